# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node-evacuate: move the requested instances off their nodes, inside their group.

The nodes to leave (per mode) and every offline node are excluded once,
before any move; instances are then placed one by one in request order,
each seeing the node state the previous ones left.  The group's alloc
policy plays no part here.
"""

from __future__ import annotations

from ...model.vocabulary import MIRROR_EXTERNAL
from ..moves import FAILOVER, FAILOVER_TO_ANY, REPLACE_SECONDARY
from .pair import best_pair
from .single import best_single
from .options import PRIMARY_ONLY, SECONDARY_ONLY
from .state import Failed, Moved, Step, Unmoved, apply, job_of


def evacuate_one(state, nodes, mode, inst, gdx, avail, force, pair_search=best_pair):
    """Move one instance per its template and the mode: (nodes, moved, opcodes)."""
    template = inst.template
    if template in ("plain", "file"):
        raise Failed("Instances of type %s cannot be relocated" % template)
    if inst.mirror == MIRROR_EXTERNAL:
        if mode == SECONDARY_ONLY:
            raise Failed("Instances with disk template '%s' can't execute change secondary"
                         % template)
        return best_single(state, nodes, inst, gdx, avail, FAILOVER_TO_ANY, force)
    # DRBD
    if mode == PRIMARY_ONLY:
        res = apply(nodes, inst, FAILOVER, None, force)
        if isinstance(res, str):
            raise Failed(res)
        new_nodes, moved = res[0], res[1]
        return new_nodes, moved, job_of([Step(FAILOVER, moved.pnode, moved.snode)], moved,
                                        new_nodes)
    if mode == SECONDARY_ONLY:
        return best_single(state, nodes, inst, gdx, avail, REPLACE_SECONDARY, force)
    return pair_search(state, nodes, inst, gdx, avail, force)


def nodes_to_leave(insts, mode, idxs):
    out = set()
    for idx in idxs:
        inst = insts[idx]
        if mode != SECONDARY_ONLY:
            out.add(inst.pnode)
        if mode != PRIMARY_ONLY and inst.template == "drbd":
            out.add(inst.snode)
    out.discard(-1)
    return out


def node_evacuate(state, mode, idxs, force, pair_search=best_pair):
    """Run the evacuation; returns [(idx, Moved | Unmoved)] in request order.
    `state` ends in the final state."""
    originals = list(state.insts)
    excluded = nodes_to_leave(originals, mode, idxs) | {n.idx for n in state.nodes if n.offline}
    outcome = []
    for idx in idxs:
        inst = originals[idx]     # hail takes the instances from the list as loaded
        gdx = state.nodes[inst.pnode].group
        avail = [k for k in state.members[gdx] if k not in excluded and k != inst.pnode]
        try:
            nodes, moved, ops = evacuate_one(state, state.nodes, mode, inst, gdx, avail, force,
                                             pair_search)
        except Failed as err:
            outcome.append((idx, Unmoved("failed", str(err))))
            continue
        state.nodes = nodes
        state.insts[idx] = moved
        outcome.append((idx, Moved("moved", nodes[moved.pnode].group, moved.all_nodes(), ops)))
    return outcome
