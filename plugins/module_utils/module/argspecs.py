# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every module option, declared once; a module picks the groups it takes.

Each group matches one doc fragment: data_source, rapi, balance_options,
execution.  Defaults of the algorithm options come from the planner's own
table, so the planner and the modules cannot disagree.
"""

from __future__ import annotations

from ansible.module_utils.basic import env_fallback

from ..live.source import ENV
from ..planner.balance.options import ALGORITHM_OPTIONS


def data_source():
    """Where the cluster comes from and how it is read (hbal -t/-U/-G/-O...)."""
    return dict(
        data_file=dict(type="path"),
        util_file=dict(type="path"),
        group=dict(type="str"),
        offline_nodes=dict(type="list", elements="str", default=[]),
        exclusion_tags=dict(type="list", elements="str", default=[]),
        ignore_dynu=dict(type="bool", default=False),
    )


def rapi():
    """How to reach a live cluster; every value may come from the environment."""
    return dict(
        rapi_url=dict(type="str", fallback=(env_fallback, [ENV["rapi_url"]])),
        rapi_user=dict(type="str", fallback=(env_fallback, [ENV["rapi_user"]])),
        rapi_password=dict(type="str", no_log=True,
                           fallback=(env_fallback, [ENV["rapi_password"]])),
        validate_certs=dict(type="bool", default=True),
        ca_path=dict(type="path", fallback=(env_fallback, [ENV["ca_path"]])),
        timeout=dict(type="float", default=60.0),
    )


def _option_spec(option):
    spec = dict(type=option.type)
    if option.elements:
        spec["elements"] = option.elements
    if option.default is not None:
        spec["default"] = list(option.default) if option.type == "list" else option.default
    return spec


def balance_options():
    """hbal's algorithm options."""
    return {option.name: _option_spec(option) for option in ALGORITHM_OPTIONS}


def execution():
    """How a plan is given back, checked and executed."""
    return dict(
        plan=dict(type="dict"),
        replan_on_drift=dict(type="bool", default=False),
        max_parallel=dict(type="int", default=4),
        max_duration=dict(type="int"),
        lock_ttl=dict(type="int", default=7200),
        job_timeout=dict(type="int", default=600),
        move_timeout=dict(type="int"),
    )


def combine(*groups, **extra):
    """One argument spec from option groups (and a module's own options)."""
    spec = {}
    for group in groups:
        spec.update(group)
    spec.update(extra)
    return spec
