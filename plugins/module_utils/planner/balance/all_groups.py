# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`group: all`: every node group balanced in one plan.

Each group is planned on its own exactly as `hbal -G GROUP` plans it (a
balance never moves an instance out of its group, so the groups' plans do
not touch each other).  The plans are then merged: jobset k of the merged
plan holds jobset k of every group, so the groups' moves run side by side
under one lock, checked against one fingerprint of the whole cluster.

A merged move keeps its group's `score` (hbal's score after the step);
`cluster_score` is the sum of every group's score after it, in the merged
order, which is what the plan's score line and gain curve follow.
"""

from __future__ import annotations

from ...backend.prepare import ALL_GROUPS
from ...plan.cost import gain_by_budget, plan_cost

# report keys that are lists over a group's nodes, instances or output lines:
# the merged plan holds every group's, one group after the other
CONCATENATED = ("nodes_before", "nodes_after", "instances_before", "instances_after",
                "step_lines", "commands", "n1_failures", "n1_failing_instances", "step_seconds")


def merge_group_plans(reports, rates):
    """One plan of `reports` (the groups' own plans, in group order)."""
    moves, groups = [], []
    merged_sets = [[] for _number in range(max([len(r["jobsets"]) for r in reports] or [0]))]
    # jobset by jobset, group by group: the order the moves are listed and numbered in
    order = [(report, index, number)
             for number in range(1, len(merged_sets) + 1) for report in reports
             if number <= len(report["jobsets"]) for index in report["jobsets"][number - 1]]
    current = {r["group"]: r["initial_score"] for r in reports}
    for new_index, (report, index, number) in enumerate(order, start=1):
        move = dict(report["moves"][index - 1], index=new_index, jobset=number,
                    group=report["group"])
        current[report["group"]] = move["score"]
        move["cluster_score"] = sum(current.values())
        moves.append(move)
        merged_sets[number - 1].append(new_index)
    for report in reports:
        groups.append({"group": report["group"], "initial_score": report["initial_score"],
                       "final_score": report["final_score"],
                       "optimal_score": report["optimal_score"],
                       "moves": len(report["moves"]), "jobsets": len(report["jobsets"]),
                       "stop_reason": report["stop_reason"],
                       "well_balanced": report["well_balanced"],
                       "budget_bound": report["budget_bound"],
                       "metrics_before": report["metrics_before"],
                       "metrics_after": report["metrics_after"]})
    initial = sum(r["initial_score"] for r in reports)
    merged = {
        "group": ALL_GROUPS,
        "groups": groups,
        "initial_score": initial,
        "final_score": sum(r["final_score"] for r in reports),
        "optimal_score": sum(r["optimal_score"] for r in reports),
        "moves": moves,
        "jobsets": merged_sets,
        "cluster_empty": all(r["cluster_empty"] for r in reports),
        "stop_reason": "; ".join("group %s: %s" % (r["group"], r["stop_reason"])
                                 for r in reports if r["stop_reason"]),
        "well_balanced": all(r["well_balanced"] for r in reports),
        "budget_bound": sorted({name for r in reports for name in r["budget_bound"]}),
        "solution_length": len(moves),
        "command_script": "\n".join(r["command_script"] for r in reports if r["command_script"]),
        "node_table_before": "\n".join(r["node_table_before"] for r in reports),
        "node_table_after": "\n".join(r["node_table_after"] for r in reports),
        "metrics_before": {},
        "metrics_after": {},
        "search_stats": {r["group"]: r["search_stats"] for r in reports},
        "warnings": reports[0]["warnings"] if reports else [],
        "changed": bool(moves),
    }
    for key in CONCATENATED:
        merged[key] = [item for r in reports for item in r[key]]
    merged["node_usage"] = [
        {"state": label, "nodes": [n for r in reports for s in r["node_usage"]
                                   if s["state"] == label for n in s["nodes"]]}
        for label in ("before", "after")]
    cost = plan_cost(moves, merged_sets, rates)
    cost["gain_by_budget"] = gain_by_budget(
        initial, [dict(m, score=m["cluster_score"]) for m in moves])
    merged["cost"] = cost
    return merged
