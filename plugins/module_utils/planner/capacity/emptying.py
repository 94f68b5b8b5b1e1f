# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Two steps of canEvacuateNode's simulation, with what repeats kept.

hspace asks whether every node can be emptied after each tentative
allocation, of clusters that differ in a node or two.  The failovers of a
node's DRBD primaries run on one private copy of each node involved (the
operations and their order are those of one move per instance), and their
outcome is kept while the node, its secondaries and those instances are the
same objects.  A movable instance goes where evacuate.single.best_single
sends it (the group's best score after the move, the last target of equal
scores), each target's answer kept per node object and instance, the
targets ordered by ranking.ranked rather than all scored in full.
"""

from __future__ import annotations

from ...model.instance import Instance
from ...model.node import check_migration
from ..evacuate.policy import policy_failure
from ..evacuate.single import best_single, pick_last_min
from ..evacuate.state import Failed, copy_node
from ..metrics import cluster_score, needs_unit_metric
from ..moves import FAILOVER_TO_ANY
from .ranking import BoardKeeper, ranked

KEEP_TAKES = 10000          # (target, instance) answers kept
# an instance's identity and place, which a node taking it does not read
WHO_AND_WHERE = frozenset(("idx", "name", "alias", "pnode", "snode", "uuid"))


class Emptier:
    """The failover and move steps of can_evacuate, for one cluster."""

    def __init__(self):
        self.failovers = {}     # (role, id(node)) -> (node, instances, node after or None)
        self.takes = {}         # (id(node), twins key) -> (node, instance, node after or None)
        self.kinds = {}         # id(instance) -> (instance, twins key)
        self.policies = {}      # (id(inst), id(policy), exclusive) -> (inst, policy, allowed)
        self.boards = BoardKeeper()

    def policy_allows(self, inst, ipolicy, exclusive):
        """Whether the instance policy `ipolicy` lets a node (of exclusive
        storage or not) hold `inst`; kept per instance object (instances are
        replaced, never changed)."""
        key = (id(inst), id(ipolicy), exclusive)
        hit = self.policies.get(key)
        if hit is None or hit[0] is not inst:
            if len(self.policies) >= KEEP_TAKES:
                self.policies.clear()
            hit = self.policies[key] = (inst, ipolicy, not policy_failure(inst, ipolicy, exclusive))
        return hit[2]

    def fail_over(self, nodes, insts, node, drbd):
        """(nodes, insts) after failing over the DRBD instances `drbd` (indices)
        of `node`, in order; None when one of them fails (soft limits ignored).

        A failover changes the primary and the secondary only, each by its
        own state and the instance: each node's part is that node's steps in
        their order, whatever the other nodes' steps, and the chain fails
        where any node's part fails.  So each part is kept on its own."""
        seconds = {}
        for idx in drbd:
            seconds.setdefault(insts[idx].snode, []).append(insts[idx])
        if any(check_migration(node, nodes[s]) is not None for s in seconds):
            return None
        changed = {}
        for s, moving in seconds.items():
            changed[s] = self._kept(("taker", node.idx), nodes[s], moving, _take_primaries)
        if drbd:
            changed[node.idx] = self._kept("giver", node, [insts[i] for i in drbd],
                                           _give_primaries)
        if any(new is None for new in changed.values()):
            return None
        nodes = list(nodes)
        for idx, new in changed.items():
            nodes[idx] = new
        return nodes, list(insts)

    def _kept(self, role, node, moving, step):
        """step(node, moving), kept per node object, role and instances."""
        key = (role, id(node))
        hit = self.failovers.get(key)
        if hit is None or hit[0] is not node or len(hit[1]) != len(moving) or \
                any(a is not b for a, b in zip(hit[1], moving)):
            if len(self.failovers) >= KEEP_TAKES:
                self.failovers.clear()
            hit = self.failovers[key] = (node, moving, step(node, moving))
        return hit[2]

    def move(self, state, nodes, insts, idx, escape):
        """`nodes` after moving instance `idx` off its primary to the best of
        `escape` (fa:T, soft limits ignored), insts[idx] replaced; None when
        no node takes it."""
        inst = insts[idx]
        source = nodes[inst.pnode]
        group = state.members[source.group]
        if needs_unit_metric([nodes[k] for k in group]):
            try:
                new_nodes, insts[idx], _ops = best_single(state, nodes, inst, source.group,
                                                          escape, FAILOVER_TO_ANY, True)
            except Failed:
                return None
            return new_nodes
        twins = self.twins(inst)
        offers = [(t, self.take(nodes[t], inst, twins)) for t in escape
                  if check_migration(source, nodes[t]) is None]
        offers = [(t, new) for t, new in offers if new[1] is not None]
        if not offers:
            return None
        emptied = copy_node(source)
        emptied.remove_pri(inst)
        target, taken = offers[self._best(nodes, group, inst.pnode, emptied, offers)]
        new_t = with_taken(nodes[target], inst, taken)
        moved = inst.copy()
        moved.pnode = target
        insts[idx] = moved
        nodes = list(nodes)
        nodes[target], nodes[inst.pnode] = new_t, emptied
        return nodes

    def _best(self, nodes, group, source, emptied, offers):
        """Position in `offers` of the target best_single would pick."""
        board = self.boards.board([emptied if k == source else nodes[k] for k in group])
        return _pick(board, {k: g for g, k in enumerate(group)}, offers)

    def recreation(self, nodes, scope, inst, targets):
        """(target, that node with `inst` added) of GlobalN1's re-creation of
        `inst` on `targets` (node indices the group's policy lets take it):
        the lowest cluster score over the nodes `scope` after the addition,
        the last of equal scores; None when no target takes it (soft limits
        ignored).  The order is ranking.ranked's, exact without scoring every
        target over the whole cluster, unless the free-disk metrics come from
        storage units (which the board does not hold): then every target is
        scored in full."""
        twins = self.twins(inst)
        offers = [(t, self.take(nodes[t], inst, twins)) for t in targets]
        offers = [(t, new) for t, new in offers if new[1] is not None]
        if not offers:
            return None
        scoped = [nodes[k] for k in scope]
        where = {k: g for g, k in enumerate(scope)}
        if needs_unit_metric(scoped):
            pick = pick_last_min([cluster_score(scoped[:where[t]] + [new.node] + scoped[where[t] + 1:])
                                  for t, (_i, new) in offers])
        else:
            pick = _pick(self.boards.board(scoped), where, offers)
        target, taken = offers[pick]
        return target, with_taken(nodes[target], inst, taken)

    def take(self, node, inst, twins):
        """(the instance it was built for, the node with it added as Scored
        or None), soft limits ignored; kept per node object and `twins`
        (inst's `twins` key): twins get the same answer."""
        key = (id(node), twins)
        hit = self.takes.get(key)
        if hit is None or hit[0] is not node:
            if len(self.takes) >= KEEP_TAKES:
                self.takes.clear()
            new = copy_node(node)
            hit = self.takes[key] = (node, inst, self.boards.scored(new)
                                     if new.add_pri(inst, True) is None else None)
        return hit[1], hit[2]

    def twins(self, inst):
        """What a node taking `inst` reads of it (all but who it is and
        where): hspace's new instances of one size are copies of one, and a
        node takes each of them alike."""
        hit = self.kinds.get(id(inst))
        if hit is None or hit[0] is not inst:
            if len(self.kinds) >= KEEP_TAKES:
                self.kinds.clear()
            hit = self.kinds[id(inst)] = (inst, tuple(
                frozen(getattr(inst, slot)) for slot in Instance.__slots__
                if slot not in WHO_AND_WHERE))
        return hit[1]


def with_taken(node, inst, taken):
    """`node` with `inst` added, from take's answer `taken` (built for inst
    or for a twin of it: then the node must list this one)."""
    built_for, scored = taken
    if built_for is inst:
        return scored.node
    new = copy_node(node)
    new.add_pri(inst, True)
    return new


def _pick(board, where, offers):
    """Position in `offers` ((target, (instance, Scored))) of the lowest score
    of `board` with the target's row (at position where[target]) replaced,
    the last target of equal scores."""
    latest_first = offers[::-1]       # equal scores: the last target wins
    order = ranked(board, [where[t] for t, _n in latest_first],
                   [n.row for _t, (_i, n) in latest_first],
                   [n.vector for _t, (_i, n) in latest_first])
    if order is not None:
        return len(offers) - 1 - next(order)[0]
    # an offline target, or a value that is not finite: every score in full
    # (exact_scores: exact_score's operations, all targets at once)
    return pick_last_min(board.exact_scores([where[t] for t, _n in offers],
                                            [n.row for _t, (_i, n) in offers],
                                            [n.vector for _t, (_i, n) in offers]))


def frozen(value):
    """A slot value as a hashable one, equal where the value is."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    if isinstance(value, set):
        return frozenset(value)
    return value


def _take_primaries(node, moving):
    """A secondary after its instances of one primary failed over to it, or None."""
    new = copy_node(node)
    for inst in moving:
        new.remove_sec(inst)
        if new.add_pri(inst, True) is not None:
            return None
    return new


def _give_primaries(node, moving):
    """The primary after its DRBD instances failed over, or None."""
    new = copy_node(node)
    for inst in moving:
        new.remove_pri(inst)
        if new.add_sec(inst, inst.snode, True, ignore_disks=node.offline) is not None:
            return None
    return new
