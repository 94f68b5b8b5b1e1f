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
UNIT_MEM = 64               # the memory step of hspace's tiered search


def size_key(inst):
    """What, of an instance hspace makes, decides whether a node takes it."""
    return (inst.template, inst.mem, inst.dsk, inst.vcpus, tuple(inst.disks), inst.spindle_use)


def shape_key(inst):
    """size_key but the memory: a node that takes an instance takes one of
    the same shape and less memory too (addPri's memory tests only get
    easier, the others do not read it)."""
    return (inst.template, inst.dsk, inst.vcpus, tuple(inst.disks), inst.spindle_use)


def lowest_holding(top, holds):
    """The smallest memory size, on the UNIT_MEM steps below `top` (where
    `holds` is known true), down to which `holds(size)` stays true, for a
    `holds` that, once true, is true of every larger size: probed doubling
    the distance, then halving it back (a few probes for a long run)."""
    good, step, bad = top, 1, None
    while bad is None:
        mem = top - UNIT_MEM * step
        if mem >= UNIT_MEM and holds(mem):
            good, step = mem, step * 2
        else:
            bad = mem
    # `holds` is true at `good`, not known to be at `bad`: halve the gap
    while good - bad > UNIT_MEM:
        mem = good - ((good - bad) // UNIT_MEM // 2) * UNIT_MEM
        if mem >= UNIT_MEM and holds(mem):
            good = mem
        else:
            bad = mem
    return good


class Offer:
    """One target's answer to an instance: the failure, or the node with it
    (built when first read, for a target known to take the instance)."""
    __slots__ = ("target", "fail", "_node", "_row", "_vector", "inst_idx", "node_was", "_make")

    def __init__(self, target, fail, node, inst_idx, node_was, make=None):
        self.target, self.fail, self._node, self.inst_idx = target, fail, node, inst_idx
        self._row = self._vector = None
        self.node_was = node_was        # the target as it was (kept: ids stay unique)
        self._make = make               # () -> the node with the instance, when not built

    @property
    def node(self):
        if self._node is None and self._make is not None:
            self._node, self._make = self._make(), None
        return self._node

    @property
    def row(self):
        if self._row is None and self.node is not None:
            self._row = node_values(self._node)
        return self._row

    @property
    def vector(self):
        if self._vector is None and self.row is not None:
            self._vector = numeric_row(self._row)
        return self._vector


class Replay:
    """The items of an iterator, drawn from it once, as far as any reader
    went, and given again to every reader (ranked's exact scores are
    computed as they are read)."""

    def __init__(self, source):
        self.source = iter(source)
        self.drawn = []

    def __iter__(self):
        pos = 0
        while True:
            if pos == len(self.drawn):
                try:
                    self.drawn.append(next(self.source))
                except StopIteration:
                    return
            yield self.drawn[pos]
            pos += 1


class SingleTries:
    """tryAlloc on one node each over all nodes (hspace's node list), for the
    targets of one hspace run."""

    def __init__(self, data, targets, force=False):
        self.data = data
        self.targets = targets
        self.force = force
        self.policy_fail = {}
        self.offers = {}        # size key -> {id(node): Offer}
        self.takes = {}         # (shape key, id(node)) -> (node, largest memory it took)
        # (shape key, id(node)) -> (node, smallest memory it refuses for lack of memory)
        self.short = {}
        self._last = None       # (node list, size key, instance index, its offers)
        self._last_ranking = None   # (node list, (size key, index), candidates, Replay)
        self.boards = BoardKeeper()
        self.by_units = None

    def solve(self, nodes, inst, good=None, doomed=None):
        """alloc.try_alloc(data, nodes, inst, targets, 1, force, good).
        `doomed(targets)`: whether every candidate (target indices) is known
        to fail `good` (optional): then none needs ranking."""
        if self.by_units is None:       # storage units are the loaded ones throughout
            self.by_units = needs_unit_metric(nodes)
        if self.by_units:
            return try_alloc(self.data, nodes, inst, self.targets, 1, self.force, good)
        offers = self._offers(nodes, inst)
        fails = [o.fail for o in offers if o.fail is not None]
        collected = [o for o in reversed(offers) if o.fail is None]
        if doomed is not None and collected and doomed([o.target for o in collected]):
            sol = Solution()
            sol.failures = ["FailN1"] * len(collected) + fails[::-1]
            return sol
        sol = Solution()
        dropped = 0
        for i, score in self._ranking(nodes, inst, collected):
            item = self._item(nodes, collected[i], inst, score)
            if good is None or good(item):
                sol.best = item
                break
            dropped += 1
        sol.failures = ["FailN1"] * dropped + fails[::-1]
        sol.allocs = len(collected) - dropped
        return sol

    def _ranking(self, nodes, inst, collected):
        """The candidates `collected` (solve's) in tryAlloc's order, as
        (index, exact score or None); the last ranking is kept, replayed for
        the same node list and instance: hspace's first unchecked step, the
        run it starts and the checked steps after it each ask it in turn."""
        key = (size_key(inst), inst.idx)
        last = self._last_ranking
        if last is not None and last[0] is nodes and last[1] == key and last[2] == len(collected):
            return last[3]
        board = self.boards.board(nodes)
        order = ranked(board, [o.target for o in collected], [o.row for o in collected],
                       [o.vector for o in collected])
        if order is None:
            order = self._scored_order(board, collected)
        kept = Replay(order)
        self._last_ranking = (nodes, key, len(collected), kept)
        return kept

    def candidates(self, nodes, inst):
        """The targets that take `inst`, or None where the storage units
        decide (then solve() is plain tryAlloc)."""
        if self.by_units is None:
            self.by_units = needs_unit_metric(nodes)
        if self.by_units:
            return None
        return [o.target for o in self._offers(nodes, inst) if o.fail is None]

    def _offers(self, nodes, inst):
        """Every target's Offer, the last list kept per node list and size."""
        key = size_key(inst)
        last = self._last
        if last is not None and last[0] is nodes and last[1] == key and last[2] == inst.idx:
            return last[3]
        if key not in self.offers and len(self.offers) >= 2:      # the sizes of the last tries
            self.offers.pop(next(iter(self.offers)))
        known = self.offers.setdefault(key, {})
        shape = shape_key(inst)
        offers = [self._offer(known, nodes, t, inst, key, shape) for t in self.targets]
        self._last = (nodes, key, inst.idx, offers)
        return offers

    def _offer(self, known, nodes, t_idx, inst, size, shape):
        """The Offer of node `t_idx` for `inst`; `known` holds the offers for its
        size (`size`: its size_key, `shape`: its shape_key)."""
        node = nodes[t_idx]
        offer = known.get(id(node))
        if offer is not None and offer.node_was is node:
            return offer
        if len(known) >= KEEP_TRIALS:
            known.clear()
        fail = self.policy(inst, node, size)
        if fail is not None:
            offer = known[id(node)] = Offer(t_idx, fail, None, inst.idx, node)
            return offer
        shape = (shape, id(node))
        took = self.takes.get(shape)
        if took is not None and took[0] is node and inst.mem <= took[1]:
            offer = known[id(node)] = Offer(t_idx, None, None, inst.idx, node,
                                            lambda: self._taken(node, inst))
            return offer
        short = self.short.get(shape)
        if short is not None and short[0] is node and inst.mem >= short[1]:
            offer = known[id(node)] = Offer(t_idx, "FailMem", None, inst.idx, node)
            return offer
        new = copy_node(node)
        fail = new.add_pri(inst, self.force)
        if fail is None:
            if len(self.takes) >= KEEP_TRIALS:
                self.takes.clear()
            self.takes[shape] = (node, inst.mem)
        elif fail == "FailMem":
            if len(self.short) >= KEEP_TRIALS:
                self.short.clear()
            self.short[shape] = (node, self._short_down_to(node, inst))
        offer = known[id(node)] = Offer(t_idx, fail, new if fail is None else None, inst.idx, node)
        return offer

    def _short_down_to(self, node, inst):
        """The smallest memory, on the UNIT_MEM steps below inst.mem, that
        `node` refuses for lack of memory (it refuses inst.mem so).  A node
        that refuses a size for memory refuses every larger one of the same
        shape so too: addPri tests memory before anything else (its N+1 and
        forthcoming memory tests after the disk ones, which do not read the
        memory), and every memory test only gets harder as the size grows."""
        def refuses(mem):
            sized = inst.copy()
            sized.mem = mem
            return copy_node(node).add_pri(sized, self.force) == "FailMem"
        return lowest_holding(inst.mem, refuses)

    def _taken(self, node, inst):
        new = copy_node(node)
        if new.add_pri(inst, self.force) is not None:
            raise AssertionError("a node refused a smaller instance than one it took")
        return new

    def policy(self, inst, node, size=None):
        """Why the instance policy of the node's group refuses `inst`, or None
        (kept per size, group and exclusive storage; `size`: inst's size_key
        when the caller has it)."""
        key = (size or size_key(inst), node.group, node.excl_storage)
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
