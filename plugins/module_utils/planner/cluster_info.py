# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read-only report of a node group: score, metrics, node table, N+1 state."""

from __future__ import annotations

from ..backend.prepare import (ALL_GROUPS, MOND_OPTION_NAMES, all_group_names, prepare_model,
                               select_group)
from ..model.records import (bad_nodes, group_records, instance_record, policy_violations,
                             storage_unit_records)
from ..plan.lines import count_of, name_list, warning_lines
from .metrics import (METRIC_NAMES, METRIC_WEIGHTS, breakdown, optimal_score, total_score,
                      unit_metrics)
from .nodetable import format_table, node_record

# Returned only with `details: full`: the per-node and per-instance tables.
DETAILS = ("nodes", "node_table", "instances", "n1_failing_instances")
# The data-source and MonD options; the selections, min_disk and max_cpu are hcheck's
# (hcheck_info), which the plain report does not apply.
PREPARED_WITH = ("util_file", "offline_nodes", "exclusion_tags", "ignore_dynu") + MOND_OPTION_NAMES


def report(data, selection):
    """The info dict for a selected group of a prepared cluster."""
    rows = breakdown(selection.nodes)
    values = [row.value for row in rows]
    n1_nodes, n1_insts = bad_nodes(selection)
    info = {
        "score": total_score(values) if rows else 0.0,
        "optimal_score": optimal_score(selection.nodes),
        "metrics": {row.name: row.value for row in rows},
        "metric_weights": dict(zip(METRIC_NAMES, METRIC_WEIGHTS)),
        "storage_unit_metrics": [
            {"type": unit_type, "key": key, "nodes": count, "free_disk_cv": now,
             "free_disk_cv_forth": forth}
            for unit_type, key, count, now, forth in unit_metrics(selection.nodes)],
        "group": selection.group.name,
        "nodes": [_node_info(n) for n in selection.nodes],
        "node_table": format_table(selection.nodes),
        "instances": [instance_record(i, data) for i in selection.instances],
        "groups": group_records(data),
        "n1_failures": [n.name for n in n1_nodes],
        "n1_failing_instances": [data.instances[i].name for i in n1_insts],
        "policy_violations": policy_violations(selection),
        "warnings": list(data.warnings),
        "common_suffix": data.suffix,
    }
    info["summary"] = info_summary(info)
    return info


def _node_info(node):
    record = node_record(node)
    record["storage_units"] = storage_unit_records(node)
    return record


# a group report's keys kept whole in a report of every group (the rest are summed or joined)
PER_GROUP = ("group", "score", "optimal_score", "metrics", "storage_unit_metrics", "n1_failures",
             "policy_violations", "summary")


def info_from_data(data, params):
    """Prepare freshly loaded data (file or RAPI) and report on the group `params` chooses
    (`all`: every group with nodes, unless a group is named so)."""
    prepare_model(data, params, PREPARED_WITH)
    names = all_group_names(data, params.get("group"))
    if names is not None:
        return all_groups_report([report(data, select_group(data, name)) for name in names])
    return report(data, select_group(data, params.get("group")))


def all_groups_report(reports):
    """One report of every group's: each group's own figures in `group_reports`,
    the scores summed, the node, instance and failure lists joined."""
    info = {
        "group": ALL_GROUPS,
        "group_reports": [{k: r[k] for k in PER_GROUP} for r in reports],
        "score": sum(r["score"] for r in reports),
        "optimal_score": sum(r["optimal_score"] for r in reports),
        "metrics": {},
        "metric_weights": reports[0]["metric_weights"],
        "storage_unit_metrics": [],
        "groups": reports[0]["groups"],
        "node_table": "\n".join(r["node_table"] for r in reports),
        "warnings": reports[0]["warnings"],
        "common_suffix": reports[0]["common_suffix"],
    }
    for key in ("nodes", "instances", "n1_failures", "n1_failing_instances",
                "policy_violations"):
        info[key] = [item for r in reports for item in r[key]]
    lines = ["%s: scores summed %.8f (lowest possible %.8f)" % (
        count_of(len(reports), "group"), info["score"], info["optimal_score"])]
    lines += ["  " + r["summary"].split("\n", 1)[0] for r in reports]
    lines += info_summary(info).split("\n")[1:3]
    info["summary"] = "\n".join(lines + warning_lines(info["warnings"]))
    return info


def info_summary(info):
    """ganeti_cluster_info: score, N+1 failures, policy violations, groups, in a few lines."""
    groups = info["groups"]
    lines = ["group %s: score %.8f (lowest possible %.8f), %s, %s" % (
        info["group"], info["score"], info["optimal_score"], count_of(len(info["nodes"]), "node"),
        count_of(len(info["instances"]), "instance")),
        "N+1 failures: %s" % name_list(info["n1_failures"]),
        "policy violations: %s" % name_list("%s (%s)" % (v["node"], v["reason"])
                                            for v in info["policy_violations"])]
    if len(groups) > 1:
        lines.append("groups: %s" % name_list("%s (%s, %s)" % (
            g["name"], count_of(g["node_count"], "node"), count_of(g["instance_count"], "instance"))
            for g in groups))
    return "\n".join(lines + warning_lines(info.get("warnings", ())))
