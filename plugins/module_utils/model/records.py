# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain-data records of the model for reports: instances, groups, N+1, policy."""

from __future__ import annotations


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


def storage_unit_records(node):
    """A node's storage units as plain dicts (sizes in MiB), in the data's order."""
    return [{"type": unit.type, "key": unit.key, "free": unit.free, "total": unit.total}
            for unit in node.current_units()]


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
