# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan a balance of one node group, as `hbal` would, and report it as data.

load -> model -> plan -> report; execution lives elsewhere and consumes the
plan returned here.
"""

from __future__ import annotations

from .loop import BalanceOptions, balance, search_exhaustive
from .bulk_search import search_bulk
from ...report.cluster_info import bad_nodes, instance_record
from ...backend.detect import load_data_file
from ...backend.dynutil import load_util_file
from ...report.nodetable import format_table, node_record
from ...numfmt import hs_fixed
from ...backend.prepare import (apply_utilisation, merge_data, select_group, set_node_status,
                       update_missing)
from .hbal_text import (command_script, command_script_lines, commands_stdout, jobsets, step_code,
                   step_commands, step_lines, step_opcodes)
from ..metrics import breakdown
from ...backend.text_save import save_text_file

SEARCHES = {"bulk": search_bulk, "exhaustive": search_exhaustive}


def load_for_balance(data_file, util_file=None, ignore_dynu=False, exclusion_tags=(),
                     select_instances=(), exclude_instances=()):
    """Load and derive, without -O/--min-disk/--max-cpu (the -S .original state)."""
    data, _fmt = load_data_file(data_file)
    return prepare_for_balance(data, util_file, ignore_dynu, exclusion_tags, select_instances,
                               exclude_instances)


def prepare_for_balance(data, util_file=None, ignore_dynu=False, exclusion_tags=(),
                        select_instances=(), exclude_instances=()):
    """Derive a freshly loaded cluster like hbal before -O/--min-disk/--max-cpu."""
    util = load_util_file(util_file) if (util_file and not ignore_dynu) else None
    apply_utilisation(data, util, ignore_dynu, source=util_file or "<util>")
    merge_data(data, exclusion_tags, select_instances, exclude_instances)
    update_missing(data)
    return data


def _node_name(data, idx):
    return data.nodes[idx].name if idx >= 0 else None


def _metrics(nodes):
    return {name: value for name, value, _w in breakdown(nodes)}


def plan_from_data(data, group=None, offline_nodes=(), min_disk=0.0, max_cpu=None,
                   options=None, search="bulk", save_state=None):
    """Balance the selected group of prepared `data`; returns the plan report."""
    options = options or BalanceOptions()
    if save_state:
        save_text_file(data, save_state + ".original", hbal_compat=True)
    set_node_status(data, offline_nodes, min_disk, max_cpu)
    selection = select_group(data, group)
    group_nodes = [n.idx for n in selection.nodes]
    group_insts = [i.idx for i in selection.instances]
    nodes_before = [node_record(n) for n in selection.nodes]
    table_before = format_table(selection.nodes)
    metrics_before = _metrics(selection.nodes)
    n1_nodes, n1_insts = bad_nodes(selection)
    instances_before = {i.idx: i for i in selection.instances}

    result = balance(data, selection, options, search=SEARCHES[search])

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
        moves.append({
            "index": pos + 1,
            "instance": inst.name,
            "old_primary": _node_name(data, step.old_p),
            "old_secondary": _node_name(data, step.old_s),
            "new_primary": _node_name(data, step.new_p),
            "new_secondary": _node_name(data, step.new_s),
            "move": step.move,
            "score": step.score,
            "score_text": hs_fixed(step.score, 8),
            "action": step_code(step, data.nodes),
            "step_line": lines[pos],
            "commands": ["gnt-instance " + c for c in step_commands(step, inst, data.nodes)],
            "opcodes": step_opcodes(step, inst, data.nodes),
            "jobset": jobset_of[pos],
        })
    final_score = steps[-1].score if steps else result.initial_score
    return {
        "group": selection.group.name,
        "initial_score": result.initial_score,
        "final_score": final_score,
        "optimal_score": result.optimal_score,
        "moves": moves,
        "jobsets": [[pos + 1 for pos in js] for js in sets],
        "step_lines": lines,
        "commands": [] if result.well_balanced else
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
        "warnings": list(data.warnings),
        "changed": bool(steps),
    }


def plan_balance(data_file, util_file=None, group=None, offline_nodes=(), exclusion_tags=(),
                 ignore_dynu=False, select_instances=(), exclude_instances=(), min_disk=0.0,
                 max_cpu=None, options=None, search="bulk", save_state=None):
    """Load a data file and plan its balance (see plan_from_data)."""
    data = load_for_balance(data_file, util_file, ignore_dynu, exclusion_tags,
                            select_instances, exclude_instances)
    return plan_from_data(data, group, offline_nodes, min_disk, max_cpu, options, search,
                          save_state)
