# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read-only report of a node group: score, metrics, node table, N+1 state."""

from __future__ import annotations

from ..backend.detect import load_data_file
from ..backend.dynutil import load_util_file
from .nodetable import format_table, node_record
from ..backend.prepare import prepare, select_group
from ..planner.metrics import METRIC_NAMES, METRIC_WEIGHTS, breakdown, optimal_score, total_score


def load_cluster(data_file, util_file=None, offline_nodes=(), exclusion_tags=(),
                 ignore_dynu=False, select_instances=(), exclude_instances=(), min_disk=0.0,
                 max_cpu=None):
    """Load a data file and run the whole loading pipeline; returns ClusterData."""
    data, _fmt = load_data_file(data_file)
    return prepare_cluster(data, util_file, offline_nodes, exclusion_tags, ignore_dynu,
                           select_instances, exclude_instances, min_disk, max_cpu)


def prepare_cluster(data, util_file=None, offline_nodes=(), exclusion_tags=(),
                    ignore_dynu=False, select_instances=(), exclude_instances=(), min_disk=0.0,
                    max_cpu=None):
    """Run the whole loading pipeline on freshly loaded data (any backend)."""
    util = load_util_file(util_file) if (util_file and not ignore_dynu) else None
    return prepare(data, util=util, ignore_dynu=ignore_dynu, exclusion_tags=exclusion_tags,
                   select_instances=select_instances, exclude_instances=exclude_instances,
                   offline_nodes=offline_nodes, min_disk=min_disk, max_cpu=max_cpu,
                   util_source=util_file or "<util>")


def bad_nodes(selection):
    """Online nodes failing N+1, and the instances on them (hbal's initial check)."""
    nodes = [n for n in selection.nodes if not n.offline and n.fail_n1]
    insts = sorted({i for n in nodes for i in n.p_list + n.s_list})
    return nodes, insts


def policy_violations(selection):
    bad = {n.idx for n in bad_nodes(selection)[0]}
    result = []
    for node in selection.nodes:
        if node.idx in bad:
            continue
        reason = node.policy_health()
        if reason:
            result.append({"node": node.name, "reason": reason})
    return result


def instance_record(inst, data):
    nodes = data.nodes
    return {
        "name": inst.name,
        "pnode": nodes[inst.pnode].name,
        "snode": nodes[inst.snode].name if inst.snode >= 0 else None,
        "disk_template": inst.template,
        "status": inst.run_status,
        "memory": inst.mem,
        "disk": inst.dsk,
        "vcpus": inst.vcpus,
        "auto_balance": inst.auto_balance,
        "movable": inst.movable,
        "forthcoming": inst.forthcoming,
        "tags": list(inst.tags),
        "util": list(inst.util),
    }


def group_records(data):
    records = []
    for group in data.groups:
        members = {n.idx for n in data.nodes if n.group == group.idx}
        records.append({
            "name": group.name,
            "uuid": group.uuid,
            "alloc_policy": group.alloc_policy,
            "tags": list(group.tags),
            "node_count": len(members),
            "instance_count": sum(1 for i in data.instances if i.pnode in members),
        })
    return records


def report(data, selection):
    """The info dict for a selected group of a prepared cluster."""
    rows = breakdown(selection.nodes)
    values = [v for _n, v, _w in rows]
    n1_nodes, n1_insts = bad_nodes(selection)
    return {
        "score": total_score(values) if rows else 0.0,
        "optimal_score": optimal_score(selection.nodes),
        "metrics": dict((name, value) for name, value, _w in rows),
        "metric_weights": dict(zip(METRIC_NAMES, METRIC_WEIGHTS)),
        "group": selection.group.name,
        "nodes": [node_record(n) for n in selection.nodes],
        "node_table": format_table(selection.nodes),
        "instances": [instance_record(i, data) for i in selection.instances],
        "groups": group_records(data),
        "n1_failures": [n.name for n in n1_nodes],
        "n1_failing_instances": [data.instances[i].name for i in n1_insts],
        "policy_violations": policy_violations(selection),
        "warnings": list(data.warnings),
        "common_suffix": data.suffix,
    }


def cluster_info(data_file, util_file=None, group=None, offline_nodes=(), exclusion_tags=(),
                 ignore_dynu=False):
    """Load, prepare and report; raises HtoolsError subclasses on bad input."""
    data, _fmt = load_data_file(data_file)
    return info_from_data(data, util_file, group, offline_nodes, exclusion_tags, ignore_dynu)


def info_from_data(data, util_file=None, group=None, offline_nodes=(), exclusion_tags=(),
                   ignore_dynu=False):
    """Prepare freshly loaded data (file or RAPI) and report on a group."""
    prepare_cluster(data, util_file=util_file, offline_nodes=offline_nodes,
                    exclusion_tags=exclusion_tags, ignore_dynu=ignore_dynu)
    return report(data, select_group(data, group))
