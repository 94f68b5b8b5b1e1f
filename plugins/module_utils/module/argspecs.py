# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every module option, declared once; a module picks the groups it takes.

Each group matches one doc fragment: data_file (data_source), data_source
(data_source and data_source.model), mond (mond), rapi (LUXI and RAPI), jobs,
planner_options (a planner's own table; balance_options for hbal's), plans,
execution, plan_report, details, lock_owner.  Numeric options are declared as
option tables (type, default, valid range), so the same declaration builds the
spec and checks the values.
"""

from __future__ import annotations

from ansible.module_utils.basic import env_fallback

from ..live.endpoints import MOND_PORT
from ..live.source import ENV
from ..model.node import STATIC_KVM_MEMORY
from ..options import Option, argument_spec
from ..plan.cost import COST_OPTIONS
from ..run_tags import RUN_ID

RAPI_OPTIONS = (
    Option("validate_certs", "bool", True),
    Option("rapi_allow_plain_http", "bool", False),
    Option("rapi_storage_units", "bool", False),
    Option("timeout", "float", 60.0, minimum=0.1),
)

# Options that several modules take, each declared here once.
# How long to wait for one submitted job (seconds); a module passes the default
# that fits its jobs to job_timeout() (600 here: an executed plan's lock tags).
JOB_TIMEOUT = Option("job_timeout", "int", 600, minimum=1)
# The owner of the cluster lock a step runs under (doc fragment lock_owner).
LOCK_OWNER = Option("lock_owner", "str")
# How long a cluster lock lives without being renewed (seconds).
LOCK_TTL = Option("ttl", "int", 7200, minimum=60)

# A plan given back, and how it is checked (every planning module).
GIVEN_PLAN_OPTIONS = (
    Option("plan", "dict"),
    Option("plan_signing_key", "str", no_log=True),
    Option("replan_on_drift", "bool", False),
)

# How a plan is executed (modules that execute their plans).
EXECUTION_OPTIONS = GIVEN_PLAN_OPTIONS + (
    Option("force_unlock", "bool", False),
    Option("max_parallel", "int", 4, minimum=1),
    Option("max_duration", "int", minimum=1),
    Option("lock_ttl", "int", 7200, minimum=60),
    JOB_TIMEOUT,
    Option("move_timeout", "int", minimum=1),
)

# How the loaded cluster is modelled (data_source.model), the range-checked part.
MODEL_SOURCE_OPTIONS = (
    Option("static_kvm_node_memory", "int", STATIC_KVM_MEMORY, minimum=0),
)

# CPU loads from the nodes' monitoring daemons (hbal --mond...).
MOND_OPTION_TABLE = (
    Option("mond", "bool", False),
    Option("mond_data", "path"),
    Option("mond_xen", "bool", False),
    Option("exit_on_missing_mond_data", "bool", False),
    Option("mond_port", "int", MOND_PORT, minimum=1, maximum=65535),
    Option("mond_timeout", "float", 10.0, minimum=0.1),
)

# Every shared option whose values are range-checked before anything runs; a
# planner's own table is checked by its module (HtoolsModule's `checked`).
CHECKED_OPTIONS = RAPI_OPTIONS + EXECUTION_OPTIONS + MODEL_SOURCE_OPTIONS + \
    MOND_OPTION_TABLE + (LOCK_TTL,)


def data_file():
    """Where the cluster comes from: a file, else RAPI (with rapi())."""
    return dict(data_file=dict(type="path"))


def data_source():
    """Where the cluster comes from and how it is modelled (hbal -t/-U/-G/-O...)."""
    return dict(
        data_file(),
        util_file=dict(type="path"),
        group=dict(type="str"),
        offline_nodes=dict(type="list", elements="str", default=[]),
        exclusion_tags=dict(type="list", elements="str", default=[]),
        ignore_dynu=dict(type="bool", default=False),
        **argument_spec(MODEL_SOURCE_OPTIONS)
    )


def model_source():
    """How the loaded cluster is modelled, for modules without hbal's data options."""
    return argument_spec(MODEL_SOURCE_OPTIONS)


def live_only():
    """The connection options of a module that acts on a live cluster, and data_file,
    which it takes only to preview in check mode (one module_defaults for the group)."""
    return dict(rapi(), **data_file())


def mond():
    """CPU loads from MonD, like hbal --mond (modules that model the cluster as hbal does)."""
    return argument_spec(MOND_OPTION_TABLE)


def rapi():
    """How to reach a live cluster, over LUXI on the master or over RAPI; RAPI
    credentials may come from the environment."""
    spec = dict(
        luxi_socket=dict(type="path"),
        rapi_url=dict(type="str", fallback=(env_fallback, [ENV["rapi_url"]])),
        rapi_user=dict(type="str", fallback=(env_fallback, [ENV["rapi_user"]])),
        rapi_password=dict(type="str", no_log=True,
                           fallback=(env_fallback, [ENV["rapi_password"]])),
        ca_path=dict(type="path", fallback=(env_fallback, [ENV["ca_path"]])),
    )
    spec.update(argument_spec(RAPI_OPTIONS))
    return spec


def jobs():
    """What the jobs a module submits carry: the user's reason, Ganeti's priority."""
    return dict(reason=dict(type="str"),
                priority=dict(type="str", choices=["low", "normal", "high"]))


def planner_options(planner):
    """A planner's own option table (planner/registry.py): hbal's algorithm
    options, hroller's, hail's."""
    return argument_spec(planner.table)


def plans():
    """How a plan is given back and checked (for modules that only plan)."""
    return argument_spec(GIVEN_PLAN_OPTIONS)


def execution():
    """How a plan is given back, checked and executed."""
    return argument_spec(EXECUTION_OPTIONS)


def job_timeout(default):
    """How long to wait for each job; `default` fits the module's jobs (a migration
    copies memory and takes longer than a tag)."""
    return argument_spec((Option(JOB_TIMEOUT.name, JOB_TIMEOUT.type, default,
                                 minimum=JOB_TIMEOUT.minimum),))


def lock_owner():
    """The lock of a longer run that a step runs under (doc fragment lock_owner)."""
    return argument_spec((LOCK_OWNER,))


def run_id():
    """The id of a run of many steps, recorded in node tags (run_tags.py)."""
    return argument_spec((RUN_ID,))


def lock_ttl():
    """How long the cluster lock lives (ganeti_lock)."""
    return argument_spec((LOCK_TTL,))


def move_cost():
    """The rates a plan's cost is estimated at (doc fragment move_cost)."""
    return argument_spec(COST_OPTIONS)


def plan_report():
    """Where a planning module writes the HTML report of its plan."""
    return dict(report_file=dict(type="path"))


def details():
    """How much a result holds: `summary` (the default) or `full` (doc fragment details)."""
    return dict(details=dict(type="str", choices=["summary", "full"], default="summary"))


def combine(*groups, **extra):
    """One argument spec from option groups (and a module's own options)."""
    spec = {}
    for group in groups:
        spec.update(group)
    spec.update(extra)
    return spec
