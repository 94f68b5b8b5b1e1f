# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hail's global N+1 predicate: after a simulated allocation, can every node
of the cluster (all groups, offline nodes too) still be emptied?

Per node, on a scratch copy: fail over its DRBD primaries, move its
shared-storage primaries to the best other node of its group, and re-create
the rest (plain, file, blockdev; largest memory first) on the best other
node of its group, where the instance is added, not moved.  Soft limits are
ignored throughout.  Nodes refer to instances by index, so the allocated
instance is failed over between its OLD nodes, as hail does.
"""

from __future__ import annotations

from ..metrics import cluster_score
from ..moves import FAILOVER, FAILOVER_TO_ANY
from .policy import policy_failure
from .single import best_single, pick_last_min
from .state import Failed, apply

SHARED = frozenset(("diskless", "sharedfile", "rbd", "ext", "gluster"))


class Capacity:
    """The predicate for one instance's group choice (cluster state fixed).

    Results of nodes whose check cannot see the two simulated nodes (another
    group, no re-creation, no secondary among them) are kept between
    candidates: they are the same for every candidate.
    """

    def __init__(self, state, nodes, insts):
        self.state = state
        self.nodes = nodes
        self.insts = insts
        self.cache = {}

    def redundant(self, new_nodes, touched):
        groups = {new_nodes[k].group for k in touched}
        for node in new_nodes:
            key = node.idx
            if key in self.cache:
                if not self.cache[key]:
                    return False
                continue
            ok = can_evacuate(self.state, new_nodes, self.insts, node.idx)
            if self._cacheable(node, groups, touched):
                self.cache[key] = ok
            if not ok:
                return False
        return True

    def _cacheable(self, node, groups, touched):
        if node.group in groups or node.idx in touched:
            return False
        for idx in node.p_list:
            inst = self.insts[idx]
            if inst.template == "drbd":
                if inst.snode in touched:
                    return False
            elif inst.template not in SHARED:
                return False          # re-creation scores the whole cluster
        return True


def can_evacuate(state, nodes, insts, ndx, score_over=None):
    """canEvacuateNode; re-creations scored over the nodes `score_over`
    (indices; all nodes when None)."""
    insts = list(insts)
    node = nodes[ndx]
    drbd = [i for i in node.p_list if insts[i].template == "drbd"]
    other = [i for i in node.p_list if insts[i].template != "drbd"]
    for idx in drbd:
        res = apply(nodes, insts[idx], FAILOVER, None, True)
        if isinstance(res, str):
            return False
        nodes, insts[idx] = res[0], res[1]
    gdx = node.group
    escape = [k for k in state.members[gdx] if k != ndx]
    for idx in other:
        if insts[idx].template not in SHARED:
            continue
        try:
            nodes, insts[idx], _ops = best_single(state, nodes, insts[idx], gdx, escape,
                                                  FAILOVER_TO_ANY, True)
        except Failed:
            return False
    rest = [insts[i] for i in other if insts[i].template not in SHARED]
    rest.sort(key=lambda inst: -inst.mem)        # stable: equal sizes keep list order
    for inst in rest:
        cands = []
        for target in escape:
            tnode = nodes[target]
            if policy_failure(inst, state.data.groups[tnode.group].ipolicy,
                              tnode.excl_storage):
                continue
            placed = tnode.copy()
            if placed.add_pri(inst, True) is not None:
                continue
            new_nodes = list(nodes)
            new_nodes[target] = placed
            scored = new_nodes if score_over is None else [new_nodes[k] for k in score_over]
            cands.append((cluster_score(scored), new_nodes))
        if not cands:
            return False
        nodes = cands[pick_last_min([c[0] for c in cands])][1]
    return True
