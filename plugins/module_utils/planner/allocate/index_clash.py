# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hail 3.0.2's N+1 check when the new instance's index is already taken.

hail allocates within one group on that group's own lists: the nodes of the
group and the instances whose primary is there, each keeping its
cluster-wide index.  The check of a candidate placement (allocGlobalN1) adds
the new instance at index "number of instances in the list"; when an
instance of the group already has that index, the new one replaces it in
the list while nodes still name the index: the old instance's nodes then
hold the new one, as far as the check can tell.  hail's answer follows from
that state, so it is rebuilt here and checked as hail checks it - node by
node, each failover and move as htools applies them (evacuate/capacity.py),
the scores over the group's nodes.
"""

from __future__ import annotations

from ..evacuate.capacity import can_evacuate
from ..evacuate.state import EvacState, copy_node

_LISTS = ("p_list", "s_list", "p_list_forth", "s_list_forth")


def clashing_index(insts, members):
    """The index hail gives a new instance in the group of nodes `members`,
    when an instance of the group already has it; None otherwise (then the
    check is the usual one)."""
    inside = set(members)
    own = [inst for inst in insts if inst.pnode in inside]
    taken = len(own)
    return taken if any(inst.idx == taken for inst in own) else None


def redundant_as_hail(data, nodes, insts, item, members, index):
    """hail's N+1 verdict on tryAlloc's element `item` ((score, {idx: node},
    placed)), the placed instance renumbered `index` (clashing_index)."""
    placed = item[2].copy()
    old_idx, placed.idx = placed.idx, index
    new_nodes = list(nodes)
    for ndx, node in item[1].items():
        renamed = copy_node(node)
        for name in _LISTS:
            setattr(renamed, name, [index if i == old_idx else i
                                    for i in getattr(renamed, name)])
        new_nodes[ndx] = renamed
    new_insts = list(insts)
    new_insts[index] = placed
    state = EvacState(data, new_nodes, new_insts)
    return all(can_evacuate(state, new_nodes, new_insts, ndx, score_over=members)
               for ndx in members)
