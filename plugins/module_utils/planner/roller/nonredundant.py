# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Splitting a colour class into parts whose instances can be cleared at once.

A part is built greedily, node by node in the given order: a node joins when
every item it holds (in the current state) finds a place on the first
candidate target that takes it; otherwise the node is left for a later part
and the state is as before the attempt.  Joined nodes are no longer targets.
Every part starts from the state the partition was given, as hroller assumes
instances come back after each group.  The same scheme clears non-redundant
primaries here and DRBD secondaries in `evacuation`.
"""

from __future__ import annotations


class NoRoom(Exception):
    """An item found no target (hroller only tells that the partition failed)."""


def clear_greedily(nodes, targets, state, items_of, relocate):
    """(chosen nodes, state after clearing them)."""
    chosen = []
    gone = set()
    for n in nodes:
        trial = state.fork()
        items = items_of(trial, n)
        if items:
            group = trial.node(n).group
            cand = [t for t in targets
                    if t != n and t not in gone and trial.node(t).group == group]
            try:
                for item in items:
                    relocate(trial, item, cand)
            except NoRoom:
                continue
        chosen.append(n)
        gone.add(n)
        state = trial
    return chosen, state


def partition(nodes, targets, state, items_of, relocate):
    """[(part, state)] covering `nodes`; None when some node can never be cleared."""
    parts = []
    rest = list(nodes)
    while rest:
        chosen, after = clear_greedily(rest, targets, state, items_of, relocate)
        if not chosen:
            return None
        parts.append((chosen, after))
        taken = set(chosen)
        rest = [n for n in rest if n not in taken]
    return parts


def nonredundant_items(state, n):
    """The node's primaries without a DRBD secondary, newest first."""
    return [i for i in state.node(n).p_list if state.inst(i).template != "drbd"]


def move_primary(state, idx, cand):
    """Move instance `idx` to the first candidate that takes it (hard limits only)."""
    inst = state.inst(idx)
    for t in cand:
        # add_pri changes nothing when it fails, so the copy can be made up front
        if state.node_for_update(t).add_pri(inst, True) is None:
            state.node_for_update(inst.pnode).remove_pri(inst)
            moved = state.inst_for_update(idx)
            moved.pnode = t
            state.record(("move", idx, t))
            return
    raise NoRoom()


def partition_nonredundant(nodes, targets, state):
    return partition(nodes, targets, state, nonredundant_items, move_primary)
