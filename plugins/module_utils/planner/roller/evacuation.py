# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Full evacuation: migrate the DRBD primaries off a part, then find new secondaries.

After the migrations, the part is split again (`nonredundant.partition`)
into nodes whose secondaries all find a new node at once: the first
candidate that is not the instance's primary and takes the disk.

hroller writes the old secondary's slot with a copy of the *primary's*
record (minus the instance) when it replaces a secondary.  Only slots of
nodes already cleared in the current part are hit, and they are never
targets again; the copy is kept because its node name is what hroller
prints for an instance whose primary sits in such a slot.
"""

from __future__ import annotations

from .errors import NO_MIGRATION, NO_ROOM_SECONDARIES, RollerError, no_migration_hint
from .nonredundant import NoRoom, partition


def _migrate(state, idx):
    inst = state.inst(idx)
    pdx, sdx = inst.pnode, inst.snode
    secondary = state.node_for_update(sdx)
    primary = state.node_for_update(pdx)
    primary.remove_pri(inst)
    secondary.remove_sec(inst)
    failure, role = secondary.add_pri(inst, True), "primary"
    if failure is None:
        failure, role = primary.add_sec(inst, sdx, True), "secondary"
    if failure is not None:
        raise RollerError(NO_MIGRATION, hint=no_migration_hint(
            inst.name, primary.name, secondary.name, failure, role))
    moved = state.inst_for_update(idx)
    moved.pnode, moved.snode = sdx, pdx
    state.record(("migrate", idx))


def migrate_off(part, state):
    """The state after migrating every DRBD primary of the part's nodes to its secondary."""
    state = state.fork()
    todo = [i for n in part for i in state.node(n).p_list if state.inst(i).template == "drbd"]
    for idx in todo:
        _migrate(state, idx)
    return state


def _without_secondary(record, inst):
    """Copy of `record` after removing `inst` as a secondary, even if it is not one."""
    record = record.copy()
    if inst.idx not in record.s_list_forth:
        record.s_list_forth.insert(0, inst.idx)
    if not inst.forthcoming and inst.idx not in record.s_list:
        record.s_list.insert(0, inst.idx)
    record.remove_sec(inst)
    return record


def replace_secondary(state, idx, cand):
    """Give instance `idx` the first candidate that takes its disk as new secondary."""
    inst = state.inst(idx)
    pdx, old = inst.pnode, inst.snode
    for t in cand:
        if t == pdx:
            continue
        # add_sec changes nothing when it fails, so the copy can be made up front
        if state.node_for_update(t).add_sec(inst, pdx, True) is None:
            state.put_node(old, _without_secondary(state.node(pdx), inst))
            state.inst_for_update(idx).snode = t
            state.record(("replace", idx, t))
            return
    raise NoRoom()


def secondary_items(state, n):
    return list(state.node(n).s_list)


def partition_secondaries(part, targets, state):
    parts = partition(part, targets, state, secondary_items, replace_secondary)
    if parts is None:
        raise RollerError(NO_ROOM_SECONDARIES)
    return parts
