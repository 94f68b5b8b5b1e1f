# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""From moves to jobs: the opcodes of a move, and moves grouped into jobsets.

Execution needs these, whatever planner produced the moves.
"""

from __future__ import annotations

from ..model.vocabulary import NO_NODE
from .moves import FAILOVER, MOVE_STEPS, move_target


def step_nodes(step, is_drbd):
    """Nodes a step touches: new placement, then the old one (hbal's involvedNodes)."""
    nodes = []
    old = (step.old_p, step.old_s) if is_drbd else (step.old_p,)
    for idx in (step.new_p, step.new_s) + old:
        if idx != NO_NODE and idx not in nodes:
            nodes.append(idx)
    return nodes


def jobsets(steps, instances):
    """Group step indices into jobsets, as hbal does: walk backwards from the last
    move; a move joins the (earliest) jobset being built when it touches none of
    that jobset's nodes, else it starts a new one.  Moves of one jobset touch
    disjoint nodes, so they may run in parallel."""
    sets = []
    buf = set()
    for pos in range(len(steps) - 1, -1, -1):
        nodes = step_nodes(steps[pos], instances[steps[pos].inst].template == "drbd")
        if sets and not (set(nodes) & buf):
            sets[0].insert(0, pos)
            buf |= set(nodes)
        else:
            sets.insert(0, [pos])
            buf = set(nodes)
    return sets


def step_opcodes(step, inst, nodes):
    """Opcodes (as RAPI-ready dicts) of one step, with full node names.

    f and fa are migrations (failovers for forthcoming instances), r is a
    replace-disks to a new secondary; the parameters are the ones hbal -X sets.
    """
    target = None if step.move == FAILOVER else \
        nodes[move_target(step.move, step.new_p, step.new_s)].name
    ops = []
    for part in MOVE_STEPS[step.move]:
        if part in ("f", "fa"):
            op_target = target if part == "fa" else None
            if inst.forthcoming:
                op = {"OP_ID": "OP_INSTANCE_FAILOVER", "instance_name": inst.name,
                      "shutdown_timeout": 120, "ignore_consistency": False}
                if op_target:
                    op["target_node"] = op_target
                op.update(ignore_ipolicy=False, cleanup=False)
            else:
                op = {"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": inst.name}
                if op_target:
                    op["target_node"] = op_target
                op.update(allow_runtime_changes=False, ignore_ipolicy=False, cleanup=False,
                          allow_failover=True, ignore_hvversions=True)
        else:
            op = {"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "instance_name": inst.name,
                  "early_release": False, "ignore_ipolicy": False,
                  "mode": "replace_new_secondary", "disks": [], "remote_node": target}
        ops.append(op)
    return ops
