# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The instance moves each reboot group (wave) needs, as executable moves.

Every wave starts from the loaded cluster (instances come back after each
wave).  A wave's moves are its net changes against the loaded cluster -
exactly the instances `hroller --print-moves` lists - one move per instance,
in instance order:

* a non-DRBD instance moved to T: failover to T (shared storage), or an
  instance move to T (plain/file: RAPI has no such call, so no opcodes);
* a DRBD instance that got a new secondary T: a replace-disks to T, after a
  migration to its old secondary when the plan migrated it first.

Migrating the DRBD primaries of a wave's nodes to their secondaries is not
listed per instance: it is one node migration per node (the wave's
`migrate_primaries`), which the colouring makes safe to run at once.
"""

from __future__ import annotations

from ..jobs import step_opcodes
from ..moves import FAILOVER_AND_REPLACE, FAILOVER_TO_ANY, REPLACE_SECONDARY
from ...model.vocabulary import MIRROR_EXTERNAL, NO_NODE
from ...plan.record import Move

INSTANCE_MOVE = "instance_move"     # gnt-instance move: no RAPI resource, downtime


class _Step:
    """What planner/jobs.py reads of a move."""

    __slots__ = ("move", "new_p", "new_s")

    def __init__(self, move, new_p, new_s):
        self.move, self.new_p, self.new_s = move, new_p, new_s


def _net_move(before, after):
    """(move kind, new primary, new secondary) of one instance in one wave, or None."""
    p, s = before.pnode, before.snode
    if before.template != "drbd":
        if after.pnode == p:
            return None
        kind = FAILOVER_TO_ANY if before.mirror == MIRROR_EXTERNAL else INSTANCE_MOVE
        return kind, after.pnode, NO_NODE
    if after.pnode == s and after.snode != p:
        return FAILOVER_AND_REPLACE, s, after.snode
    if after.pnode == p and after.snode != s:
        return REPLACE_SECONDARY, p, after.snode
    return None             # unchanged, or a plain swap: the node migration does it


def wave_moves(data, state):
    """[(instance index, move kind, new primary, new secondary)] of one wave."""
    out = []
    for idx in sorted(state.changed_instances()):
        net = _net_move(data.instances[idx], state.inst(idx))
        if net is not None:
            out.append((idx,) + net)
    return out


def _name(data, idx):
    return data.nodes[idx].name if idx != NO_NODE else None


def _gib(mib):
    return "%g GiB" % round(mib / 1024.0, 1)


def move_note(data, inst, kind, new_p, new_s):
    """What the move does to the instance, in a sentence for a reviewer."""
    target = _name(data, new_p)
    running = "runs" if inst.uses_memory else "is stopped"
    if kind == INSTANCE_MOVE:
        return ("stops; its %s of disks are copied to %s, where it starts again: "
                "downtime (gnt-instance move; no RAPI call, so by hand - or "
                "ignore_non_redundant: it stops with its node)" % (_gib(inst.dsk), target))
    if kind == FAILOVER_TO_ANY:
        return "migrates to %s (shared storage, nothing copied); it %s" % (target, running)
    copy = "its %s of disks are copied to the new secondary %s" % (
        _gib(inst.dsk), _name(data, new_s))
    if kind == FAILOVER_AND_REPLACE:
        return "migrates to its secondary %s, then %s" % (target, copy)
    return "stays on %s; %s" % (target, copy)


def move_record(data, index, wave, jobset, idx, kind, new_p, new_s):
    """One move as the plan envelope holds it."""
    inst = data.instances[idx]
    opcodes = [] if kind == INSTANCE_MOVE else \
        step_opcodes(_Step(kind, new_p, new_s), inst, data.nodes)
    return Move(index, inst.name, kind, jobset, _name(data, inst.pnode),
                _name(data, inst.snode), _name(data, new_p), _name(data, new_s), opcodes,
                {"wave": wave, "memory_mib": int(inst.mem), "disk_mib": int(inst.dsk),
                 "note": move_note(data, inst, kind, new_p, new_s)}).record()
