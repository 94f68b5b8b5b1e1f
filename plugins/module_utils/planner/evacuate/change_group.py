# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""change-group: move instances out of their group, one by one in request order.

Targets are the given groups (all groups when none are given) minus the
groups the instances live in.  Per instance: choose the group (hail's
allocation simulation, --ignore-soft-errors applies there), then move it
there as node-evacuate mode `all` would, always honouring soft limits; only
offline nodes are excluded.
"""

from __future__ import annotations

from .choose_group import choose_group
from .node_evac import evacuate_one
from .options import ALL
from .pair import best_pair
from .state import Failed, Moved, Unmoved


def target_groups(state, idxs, given):
    """hail's target list: `given` (or every group) minus the instances' groups,
    removing one occurrence of each."""
    evac = []
    for idx in idxs:
        gdx = state.nodes[state.insts[idx].pnode].group
        if gdx not in evac:
            evac.append(gdx)
    targets = list(given) if given else [g.idx for g in state.data.groups]
    for gdx in evac:
        if gdx in targets:
            targets.remove(gdx)
    return targets


def change_group(state, idxs, given, force, capacity_checks, pair_search=best_pair,
                 restrict=None):
    """Same outcome list as node_evacuate; `state` ends in the final state.
    `restrict` (node names) limits the nodes each group is judged by when the
    target group is chosen, not the nodes of the move (as in hail)."""
    originals = list(state.insts)
    targets = target_groups(state, idxs, given)
    offline = {n.idx for n in state.nodes if n.offline}
    outcome = []
    for idx in idxs:
        inst = originals[idx]
        try:
            gdx = choose_group(state, state.nodes, state.insts, inst, targets, force,
                               capacity_checks, restrict)
            avail = [k for k in state.members[gdx] if k not in offline]
            nodes, moved, ops = evacuate_one(state, state.nodes, ALL, inst, gdx, avail, False,
                                             pair_search)
        except Failed as err:
            outcome.append((idx, Unmoved("failed", str(err))))
            continue
        state.nodes = nodes
        state.insts[idx] = moved
        outcome.append((idx, Moved("moved", nodes[moved.pnode].group, moved.all_nodes(), ops)))
    return outcome
