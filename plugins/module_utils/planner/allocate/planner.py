# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hail's allocate family as a plan: where new instances would go.

request (request.py: options or an IAllocator file) -> hail's answer
(hail.py) -> the plan record: one move per placed instance, whose opcode is
the instance's creation (or, for allocate-secondary, its conversion to
DRBD), and the nodes before and after.  Nothing executes these plans: an
operator (or a playbook) creates the instances.
"""

from __future__ import annotations

from ...model.vocabulary import DISK_TEMPLATES
from ...options import Option
from ...plan.record import Move
from ...plan.usage import usage_state
from ..base import Planner
from .hail import ALLOCATE_SECONDARY, new_instance
from .request import allocate_report, placed_requests

KIND = "allocate"

# one spec of `instances` (an Ansible argument spec: it holds dicts)
INSTANCE_SPEC = dict(
    name=dict(type="str"), memory=dict(type="int", required=True),
    vcpus=dict(type="int", required=True), disks=dict(type="list", elements="int", default=[]),
    disk_template=dict(type="str", required=True, choices=list(DISK_TEMPLATES)),
    spindles=dict(type="int"), spindle_use=dict(type="int", default=1),
    tags=dict(type="list", elements="str", default=[]),
    networks=dict(type="list", elements="str", default=[]),
    group=dict(type="str"), count=dict(type="int", default=1))

ALLOCATE_OPTIONS = (
    Option("instances", "list", (), elements="dict", suboptions=INSTANCE_SPEC),
    Option("group", "str"),
    Option("secondary_for", "str"),
    Option("ignore_soft_errors", "bool", False),
    Option("no_capacity_checks", "bool", False),
    # hail's --restrict-allocation-to
    Option("restrict_allocation_to", "list", (), elements="str"),
)
OPTIONS = tuple(option.name for option in ALLOCATE_OPTIONS) + ("static_kvm_node_memory",)


def _create_opcode(raw, nodes):
    """The opcode that would create the instance where hail puts it."""
    return {"OP_ID": "OP_INSTANCE_CREATE", "instance_name": raw["name"], "mode": "create",
            "disk_template": raw["disk_template"],
            "disks": [{"size": disk["size"]} for disk in raw["disks"]],
            "pnode": nodes[0], "snode": nodes[1] if len(nodes) > 1 else None,
            "beparams": {"memory": raw["memory"], "vcpus": raw["vcpus"]},
            "tags": list(raw.get("tags") or [])}


def _moves(data, req, report, placed):
    """One move per placed instance (index = placement order); `placed` is
    placed_requests(req, report)."""
    moves = []
    if req["type"] == ALLOCATE_SECONDARY:
        if report["success"]:
            inst = next(i for i in data.instances if req["name"] in (i.name, i.alias))
            primary = data.nodes[inst.pnode].name
            opcode = {"OP_ID": "OP_INSTANCE_SET_PARAMS", "instance_name": inst.name,
                      "disk_template": "drbd", "remote_node": report["result"]}
            moves.append(Move(1, inst.name, "convert_to_drbd", 1, primary, None, primary,
                              report["result"], [opcode]).record())
        return moves
    for number, (raw, nodes) in enumerate(placed, start=1):
        moves.append(Move(number, raw["name"], "create", 1, None, None, nodes[0],
                          nodes[1] if len(nodes) > 1 else None,
                          [_create_opcode(raw, nodes)]).record())
    return moves


def _nodes_after(data, placed):
    """The nodes with the new instances of `placed` (placed_requests) on them,
    for the usage charts."""
    nodes = [node.copy() for node in data.nodes]
    by_name = {node.name: node.idx for node in nodes}
    for number, (raw, names) in enumerate(placed):
        inst = new_instance(data, raw, raw["name"])
        inst.idx = len(data.instances) + number
        inst.pnode = by_name[names[0]]
        inst.snode = by_name[names[1]] if len(names) > 1 else -1
        nodes[inst.pnode].add_pri(inst, True)
        if inst.snode >= 0:
            nodes[inst.snode].add_sec(inst, inst.pnode, True)
    return nodes


def plan_allocation(data, opts):
    """The allocation plan: hail's answer (allocate_report) as a plan record."""
    report = allocate_report(data, opts)
    req = report["request"]
    placed = placed_requests(req, report)
    moves = _moves(data, req, report, placed)
    touched = {move[key] for move in moves for key in ("new_primary", "new_secondary")
               if move[key]}
    groups = {node.group for node in data.nodes if node.name in touched}
    members = [node for node in data.nodes if node.group in groups]
    after = _nodes_after(data, placed)
    report.update(
        kind=req["type"], moves=moves, jobsets=[[m["index"] for m in moves]] if moves else [],
        warnings=list(data.warnings), changed=bool(moves),
        node_usage=[usage_state("before", members),
                    usage_state("after", [after[node.idx] for node in members])])
    return report


ALLOCATE = Planner(KIND, "ganeti.htools.ganeti_allocate", OPTIONS, (), plan_allocation,
                   executes=False, details=("request",), title="Allocation plan",
                   table=ALLOCATE_OPTIONS, marker="placements")
