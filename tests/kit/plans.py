# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan straight from a data file, as the tools do from the command line.

The modules load and prepare the cluster once (module/runner.py) and hand the
model to a planner; tests and benchmarks that compare with hbal, hroller or
hinfo start from a file, and these do the loading for them.
"""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import plan
from ansible_collections.ganeti.htools.plugins.module_utils.planner.cluster_info import (
    info_from_data)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    plan_reboots)


def plan_balance(data_file, search="bulk", save_state=None, options=None, **opts):
    """Load a data file and plan its balance; `options` is a BalanceOptions or None."""
    data, _fmt = load_data_file(data_file, opts.get("static_kvm_node_memory"))
    if options is not None:
        opts.update(options.as_dict())
    return plan(data, opts, search, save_state)


def plan_rolling_reboot(data_file, **opts):
    """Load a data file and plan its rolling reboot; options as in ROLLER_OPTIONS."""
    data, _fmt = load_data_file(data_file, opts.get("static_kvm_node_memory"))
    return plan_reboots(data, opts)


def cluster_info(data_file, util_file=None, group=None, offline_nodes=(), exclusion_tags=(),
                 ignore_dynu=False, static_kvm_node_memory=None, **mond):
    """Load, prepare and report (ganeti_cluster_info); `mond` takes the MonD
    options (backend.prepare.MOND_OPTION_NAMES)."""
    data, _fmt = load_data_file(data_file, static_kvm_memory=static_kvm_node_memory)
    return info_from_data(data, dict(mond, util_file=util_file, group=group, offline_nodes=offline_nodes,
                                     exclusion_tags=exclusion_tags, ignore_dynu=ignore_dynu))


def gain_by_deadline(plan, seconds):
    """The score gain of `plan` run until an execution deadline (max_duration):
    its jobsets in order while their estimated seconds fit in `seconds`."""
    elapsed, score = 0.0, plan["initial_score"]
    for jobset, jobset_seconds in zip(plan["jobsets"], plan["cost"]["jobset_seconds"]):
        elapsed += jobset_seconds
        if elapsed > seconds:
            break
        score = plan["moves"][max(jobset) - 1]["score"]
    return plan["initial_score"] - score
