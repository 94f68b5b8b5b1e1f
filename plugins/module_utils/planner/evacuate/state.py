# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster as one evacuation run sees it, and the scalar moves on it.

Node and instance lists are replaced, never modified in place: a failed
candidate leaves no trace, and the state before an instance's move stays
available for the score of the next candidate.
"""

from __future__ import annotations

from collections import namedtuple

from ..jobs import step_opcodes
from ..metrics import cluster_score
from ...model.node import Node
from ...model.slots import container_slots, slot_copier
from ..moves import apply_move

# One instance move as the opcode builder of planner/jobs.py reads it.
Step = namedtuple("Step", "move new_p new_s")


# What became of one instance of an evacuation (node_evacuate, change_group):
# moved into `group`, onto `nodes` (indices), by the opcodes of one job ...
Moved = namedtuple("Moved", "status group nodes opcodes")
# ... or not moved, and why (hail's message).
Unmoved = namedtuple("Unmoved", "status reason")


class Failed(Exception):
    """An instance cannot be moved; the message is hail's, word for word."""


class EvacState:
    """Cluster-wide node and instance lists (index = position), and the
    node groups as they were loaded (a node never changes group)."""

    def __init__(self, data, nodes=None, insts=None):
        self.data = data
        self.nodes = list(data.nodes if nodes is None else nodes)
        self.insts = list(data.instances if insts is None else insts)
        members = {}
        for node in self.nodes:
            members.setdefault(node.group, []).append(node.idx)
        self.members = members            # group idx -> node indices, ascending

    def snapshot(self):
        """This state as it is now (its node and instance objects are never
        modified in place, so sharing them is safe)."""
        return EvacState(self.data, self.nodes, self.insts)

    def group_score(self, nodes, gdx):
        """The score hail compares evacuation targets by: a full recompute
        over every node of the group, offline ones included."""
        return cluster_score([nodes[k] for k in self.members.get(gdx, ())])

    def group_name(self, gdx):
        return self.data.groups[gdx].name


def apply(nodes, inst, move, target, force):
    """`move` of `inst` on `nodes` (not modified): (new node list, moved
    instance, {idx: changed node}) or the FailMode name."""
    res = apply_move(nodes, inst, move, target, force)
    if isinstance(res, str):
        return res
    changed, moved, _p, _s = res
    new = list(nodes)
    for idx, node in changed.items():
        new[idx] = node
    return new, moved, changed


def job_of(steps, inst, nodes):
    """The opcodes of an instance's moves, in order (one hail job)."""
    ops = []
    for step in steps:
        ops.extend(step_opcodes(step, inst, nodes))
    return ops


def node_containers(node_cls):
    """Slots of a node that hold a list, dict or set (they are copied, not shared)."""
    return container_slots(node_cls(0, "n", 1, 0, 1, 1, 1, 1, 0, False, False, 0))


copy_node = slot_copier(Node, node_containers(Node))
