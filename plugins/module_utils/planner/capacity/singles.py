# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tryAlloc of one-node instances for hspace, with what does not change
between tries kept.

hspace tries instances of one size on cluster after cluster that differ in
one node.  A node object never changes, so whether a node takes an instance
of a size, and its metric row then, is kept per node object and size; the
node rows of a cluster are kept as a ranking.Board and patched where the
next cluster differs.  The candidates are ordered by ranking.ranked (the
exact order of tryAlloc's scores), and the solution is alloc.py's: the
first candidate in that order that passes the N+1 predicate, the ones
before it counted as FailN1, the nodes that refused by their reasons.
"""

from __future__ import annotations

from ..evacuate.policy import policy_failure
from ..evacuate.state import copy_node
from ..metrics import needs_unit_metric, node_values
from .alloc import Solution, try_alloc
from .ranking import BoardKeeper, numeric_row, ranked

KEEP_TRIALS = 10000         # node objects whose answers are kept, per size


def size_key(inst):
    """What, of an instance hspace makes, decides whether a node takes it."""
    return (inst.template, inst.mem, inst.dsk, inst.vcpus, tuple(inst.disks), inst.spindle_use)


class Offer:
    """One target's answer to an instance: the failure, or the node with it."""
    __slots__ = ("target", "fail", "node", "row", "vector", "inst_idx", "node_was")

    def __init__(self, target, fail, node, inst_idx, node_was):
        self.target, self.fail, self.node, self.inst_idx = target, fail, node, inst_idx
        self.row = self.vector = None
        if node is not None:
            self.row = node_values(node)
            self.vector = numeric_row(self.row)
        self.node_was = node_was        # the target as it was (kept: ids stay unique)


class SingleTries:
    """tryAlloc on one node each over all nodes (hspace's node list), for the
    targets of one hspace run."""

    def __init__(self, data, targets, force=False):
        self.data = data
        self.targets = targets
        self.force = force
        self.policy_fail = {}
        self.offers = {}        # size key -> {id(node): Offer}
        self.boards = BoardKeeper()
        self.by_units = None

    def solve(self, nodes, inst, good=None):
        """alloc.try_alloc(data, nodes, inst, targets, 1, force, good)."""
        if self.by_units is None:       # storage units are the loaded ones throughout
            self.by_units = needs_unit_metric(nodes)
        if self.by_units:
            return try_alloc(self.data, nodes, inst, self.targets, 1, self.force, good)
        key = size_key(inst)
        if key not in self.offers and len(self.offers) >= 2:      # the sizes of the last tries
            self.offers.pop(next(iter(self.offers)))
        known = self.offers.setdefault(key, {})
        offers = [self._offer(known, nodes, t, inst) for t in self.targets]
        fails = [o.fail for o in offers if o.fail is not None]
        collected = [o for o in reversed(offers) if o.fail is None]
        board = self.boards.board(nodes)
        order = ranked(board, [o.target for o in collected], [o.row for o in collected],
                       [o.vector for o in collected])
        if order is None:
            order = self._scored_order(board, collected)
        sol = Solution()
        dropped = 0
        for i, score in order:
            item = self._item(nodes, collected[i], inst, score)
            if good is None or good(item):
                sol.best = item
                break
            dropped += 1
        sol.failures = ["FailN1"] * dropped + fails[::-1]
        sol.allocs = len(collected) - dropped
        return sol

    def _offer(self, known, nodes, t_idx, inst):
        """The Offer of node `t_idx` for `inst`; `known` holds the offers for its size."""
        node = nodes[t_idx]
        offer = known.get(id(node))
        if offer is not None and offer.node_was is node:
            return offer
        if len(known) >= KEEP_TRIALS:
            known.clear()
        fail = self.policy(inst, node)
        new = None
        if fail is None:
            new = copy_node(node)
            fail = new.add_pri(inst, self.force)
        offer = known[id(node)] = Offer(t_idx, fail, new if fail is None else None, inst.idx, node)
        return offer

    def policy(self, inst, node):
        """Why the instance policy of the node's group refuses `inst`, or None
        (kept per size, group and exclusive storage)."""
        key = (size_key(inst), node.group, node.excl_storage)
        if key not in self.policy_fail:
            self.policy_fail[key] = policy_failure(inst, self.data.groups[node.group].ipolicy,
                                                   node.excl_storage)
        return self.policy_fail[key]

    def _item(self, nodes, offer, inst, score):
        """tryAlloc's element for an offer: (score, {idx: node}, placed)."""
        node = offer.node
        if offer.inst_idx != inst.idx:          # kept from a try with another index
            node = copy_node(nodes[offer.target])
            node.add_pri(inst, self.force)
        placed = inst.copy()
        placed.pnode, placed.snode = offer.target, -1
        return (score, {offer.target: node}, placed)

    @staticmethod
    def _scored_order(board, collected):
        """Every candidate scored in full, sorted as alloc._collapse sorts."""
        scored = [(board.exact_score(o.target, o.row), i) for i, o in enumerate(collected)]
        return [(i, score) for score, i in sorted(scored, key=lambda item: item[0])]
