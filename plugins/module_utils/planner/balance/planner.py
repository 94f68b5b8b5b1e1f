# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan a balance of one node group, as `hbal` would, and report it as data.

load -> model -> plan -> report; execution lives elsewhere and consumes the
plan returned here.
"""

from __future__ import annotations

import copy

from ...backend.prepare import (LOAD_OPTIONS, MOND_OPTION_NAMES, SOURCE_OPTIONS, GroupSelection,
                                all_group_names, prepare_model, select_group)
from ...errors import HtoolsError
from ...backend.text_save import save_text_file
from ...numfmt import hs_fixed
from ...model.records import bad_nodes, instance_record
from ...plan.cost import COST_OPTION_NAMES, gain_by_budget, plan_cost, rates_of
from ...plan.record import Move
from ...plan.usage import from_node_record
from .all_groups import merge_group_plans
from .summary import all_groups_summary, balance_summary
from ..nodetable import format_table, node_record
from ..base import Planner
from ..jobs import jobsets
from ..metrics import breakdown, cluster_score, optimal_score
from .hbal_text import (command_script, command_script_lines, commands_stdout, step_code,
                        step_commands, step_lines)
from .cost_search import copied_mib
from .loop import BalanceResult, SearchStats, balance, search_exhaustive
from .budgets import step_cost
from .options import (ALGORITHM_OPTIONS, BALANCE_OPTIONS, BUDGET_OPTIONS, MODEL_OPTIONS,
                      SEARCH_OPTIONS, BalanceOptions)
from .view import BalanceView

KIND = "balance"
# the bulk search (numpy) is imported when first used: the registry and
# hcheck import this planner, and not every run of theirs plans a balance
SEARCHES = {"exhaustive": search_exhaustive}
CLUSTER_EMPTY = "Cluster is empty, exiting."
# Everything a plan records, so that it can be recomputed the same way.
RECORDED_OPTIONS = tuple(o.name for o in SEARCH_OPTIONS + BUDGET_OPTIONS + MODEL_OPTIONS) + \
    SOURCE_OPTIONS + \
    LOAD_OPTIONS + MOND_OPTION_NAMES + COST_OPTION_NAMES


def search_function(name):
    """The step search `name` ("bulk" or "exhaustive")."""
    if name in SEARCHES:
        return SEARCHES[name]
    from .bulk_search import search_bulk  # pylint: disable=import-outside-toplevel
    return search_bulk


def plan(data, opts, search="bulk", save_state=None):
    """Prepare freshly loaded `data` and plan the balance of the chosen group.

    `opts` maps option names (RECORDED_OPTIONS) to values; missing ones take
    hbal's defaults.  With `save_state`, the states before and after are
    written like hbal -S (`.original`, `.balanced`).
    """
    def get(name, default=None):
        value = opts.get(name)
        return default if value is None else value

    def save_original(prepared):
        save_text_file(prepared, save_state + ".original", hbal_compat=True)

    # hbal stops on a cluster without instances before it saves any state
    # or chooses a group ("Cluster is empty, exiting.")
    empty = not data.instances

    prepare_model(data, opts, before_node_status=save_original if save_state and not empty else None)
    options = BalanceOptions(**{o.name: opts[o.name] for o in BALANCE_OPTIONS
                                if opts.get(o.name) is not None})
    rates = rates_of(opts)
    names = None if empty else all_group_names(data, get("group"))
    if names is not None:
        return _plan_all_groups(data, names, options, search, save_state, rates)
    if empty:
        return _plan_group(data, _group_of_empty(data, get("group")), options, None, None, rates)
    return _plan_group(data, select_group(data, get("group")), options, search, save_state,
                       rates)


def _plan_all_groups(data, names, options, search, save_state, rates):
    """group: all - each group with nodes planned as hbal -G plans it, merged
    into one plan (planner/balance/all_groups.py)."""
    if save_state:
        raise HtoolsError("save_state writes one group's states, like hbal -S; it cannot be "
                          "used with group: all")
    reports = [_plan_group(data, select_group(data, name), options, search, None, rates)
               for name in names]
    report = merge_group_plans(reports, rates)
    report["summary"] = all_groups_summary(report, [r["summary"] for r in reports])
    return report


def _hbal_curve(data, selection, options, search):
    """hbal's own plan of the group, on a copy of the cluster, for comparison
    with a cost-aware one: [(MiB its move copies, score after it)]."""
    mirror = copy.deepcopy(data)
    budgets = {o.name for o in BUDGET_OPTIONS}
    plain = BalanceOptions(**{k: v for k, v in options.as_dict().items() if k not in budgets})
    result = balance(mirror, select_group(mirror, selection.group.name), plain,
                     search=search_function(search))
    return [(copied_mib(step.move, mirror.instances[step.inst]), step.score)
            for step in result.steps]


def _group_of_empty(data, group):
    """The group reported for a cluster without instances: the one chosen if
    one can be (hbal chooses none, so a bad or missing group is no error)."""
    try:
        return select_group(data, group)
    except HtoolsError:
        return GroupSelection(None, list(data.nodes), [])


def _node_name(data, idx):
    return data.nodes[idx].name if idx >= 0 else None


def _metrics(nodes):
    return {row.name: row.value for row in breakdown(nodes)}


def _plan_group(data, selection, options, search, save_state, rates):
    """Balance the selected group of prepared `data`; returns the plan report.

    Without a search (`search` None) nothing is balanced: the cluster is empty.
    """
    group_nodes = [n.idx for n in selection.nodes]
    group_insts = [i.idx for i in selection.instances]
    nodes_before = [node_record(n) for n in selection.nodes]
    table_before = format_table(selection.nodes)
    metrics_before = _metrics(selection.nodes)
    n1_nodes, n1_insts = bad_nodes(selection)
    instances_before = {i.idx: i for i in selection.instances}

    reference = None
    if search is None:
        result = BalanceResult(cluster_score(selection.nodes), optimal_score(selection.nodes),
                               [], CLUSTER_EMPTY, False, SearchStats())
    else:
        if options.cost_guided:
            reference = _hbal_curve(data, selection, options, search)
        result = balance(data, selection, options, search=search_function(search))

    after_nodes = [data.nodes[i] for i in group_nodes]
    after_insts = [data.instances[i] for i in group_insts]
    if save_state and not result.well_balanced:   # hbal exits before writing it
        save_text_file(data, save_state + ".balanced", after_nodes, after_insts,
                       hbal_compat=True)
    steps = result.steps
    sets = jobsets(steps, data.instances)
    insts_at_step = [data.instances[s.inst] for s in steps]
    script = command_script_lines(steps, insts_at_step, data.nodes, sets)
    lines = step_lines(steps, data.nodes, data.instances, group_nodes, group_insts)
    moves = []
    jobset_of = {pos: js_no for js_no, js in enumerate(sets, start=1) for pos in js}
    for pos, step in enumerate(steps):
        inst = data.instances[step.inst]
        opcodes, costs = step_cost(step, inst, data.nodes, rates)
        moves.append(Move(
            pos + 1, inst.name, step.move, jobset_of[pos],
            _node_name(data, step.old_p), _node_name(data, step.old_s),
            _node_name(data, step.new_p), _node_name(data, step.new_s), opcodes,
            dict({"score": step.score, "score_text": hs_fixed(step.score, 8),
                  "action": step_code(step, data.nodes), "step_line": lines[pos],
                  "commands": ["gnt-instance " + c
                               for c in step_commands(step, inst, data.nodes)]},
                 **costs),
        ).record())
    final_score = steps[-1].score if steps else result.initial_score
    numbered = [[pos + 1 for pos in js] for js in sets]
    cost = plan_cost(moves, numbered, rates)
    if reference is None:
        cost["gain_by_budget"] = gain_by_budget(result.initial_score, moves)
    else:       # both against hbal's data and gain
        hbal_moves = [{"data_copied_mib": d, "score": s} for d, s in reference]
        cost["gain_by_budget"] = gain_by_budget(result.initial_score, moves, hbal_moves)
        cost["hbal_gain_by_budget"] = gain_by_budget(result.initial_score, hbal_moves)
    report = {
        "group": selection.group.name if selection.group is not None else None,
        "initial_score": result.initial_score,
        "final_score": final_score,
        "optimal_score": result.optimal_score,
        "moves": moves,
        "jobsets": numbered,
        "cost": cost,
        "step_lines": lines,
        "cluster_empty": search is None,
        "commands": [] if result.well_balanced or search is None else
        (["", "Commands to run to reach the above solution:"] + commands_stdout(script)),
        "command_script": command_script(script),
        "stop_reason": result.stop_reason,
        "well_balanced": result.well_balanced,
        "solution_length": len(steps),
        "nodes_before": nodes_before,
        "nodes_after": [node_record(n) for n in after_nodes],
        "node_table_before": table_before,
        "node_table_after": format_table(after_nodes),
        "metrics_before": metrics_before,
        "metrics_after": _metrics(after_nodes),
        "n1_failures": [n.name for n in n1_nodes],
        "n1_failing_instances": [data.instances[i].name for i in n1_insts],
        "instances_before": [instance_record(i, data) for i in instances_before.values()],
        "instances_after": [instance_record(i, data) for i in after_insts],
        "search_stats": result.search_stats.as_dict(),
        "step_seconds": result.step_seconds,
        "budget_bound": result.budget_bound,
        "warnings": list(data.warnings),
        "changed": bool(steps),
    }
    if reference is not None:
        report["hbal_curve"] = reference
    # what the HTML report charts, compact: the plan document keeps it when the
    # full node tables are left out (details)
    report["node_usage"] = [
        {"state": label, "nodes": [from_node_record(r) for r in report["nodes_" + label]]}
        for label in ("before", "after")]
    report["summary"] = balance_summary(report)
    return report


# Returned only with `details: full` (hbal's printed output among them, word for word).
DETAILS = ("hbal_curve", "nodes_before", "nodes_after", "node_table_before", "node_table_after",
           "instances_before", "instances_after", "step_lines", "commands", "command_script",
           "step_seconds", "search_stats", "n1_failing_instances")

BALANCE = Planner(KIND, "ganeti.htools.ganeti_balance", RECORDED_OPTIONS, ("numpy",),
                  lambda data, opts: plan(data, opts, save_state=opts.get("save_state")),
                  details=DETAILS, title="Balance plan", table=ALGORITHM_OPTIONS,
                  marker="initial_score", view=BalanceView(), writes=("save_state",))
