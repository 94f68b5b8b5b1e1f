# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A candidate node that cannot be emptied, proved for a range of its new
instance's memory sizes without simulating each size.

Emptying a node with a new movable instance (globaln1.can_evacuate): its
DRBD primaries fail over, then its movable instances leave one by one, the
new one first (it heads the primary list), each to the escape node of
lowest group score, until memory_only_verdict decides what is left.  On
hspace's tiered search the same candidate fails the same way size after
size.  For the sizes lo <= m <= hi the simulation is followed on both ends
at once:

* what is left cannot fit at lo (a certain "no", so none of its placements
  works): it cannot at any larger size either, as less room is left;
* otherwise the next instance goes to one of the escape nodes taking it at
  both ends (a node takes a memory-only instance while its memory stays
  above 0, so then at every size between); every node that could score
  lowest at some size in the range is followed, and each must fail.

Only one row of the group differs between the sizes at any step: that of
the node taking the new instance, or the new instance's own target.  Its
free-memory values move linearly with the size (every other value must be
the same at both ends, the N+1 flag included), and a population deviation
is a convex function of one value.  So a score is at most the larger of its
two end scores, and at least its score at lo less how far each moving
deviation can fall (to its minimum, where the value equals the mean of the
others).  The failovers and each emptied source do not depend on the size
(the same node objects; the node's integers are restored exactly).  Scores
are compared with a margin far above rounding.
"""

from __future__ import annotations

from ...deps import numpy as np
from ...model.node import check_migration
from ..evacuate.capacity import SHARED
from ..evacuate.state import EvacState, copy_node
from ..metrics import METRICS, METRIC_WEIGHTS, STDDEV, needs_unit_metric
from .emptying import with_taken
from .globaln1 import memory_only_verdict
from .quickn1 import plain

# the values of a node holding a memory-only instance that move with its size
MOVING = [k for k, m in enumerate(METRICS)
          if m.name in ("free_mem_cv", "free_mem_cv_forth") and m.statistic == STDDEV]
N1 = [k for k, m in enumerate(METRICS) if m.name == "n1_cnt"][0]
MARGIN = 1e-9           # relative: rounding is about 1e-15 of a score
MAX_DEPTH = 4           # moves followed
MAX_BRANCHES = 3        # nodes followed per move


class GreedyRange:
    """Proofs on the node objects one Checker's emptier keeps."""

    def __init__(self, data, emptier, force=False):
        self.data = data
        self.emptier = emptier
        self.force = force          # as the candidates took the instance (SingleTries')
        self.members = EvacState(data).members      # nodes never change group

    def prove(self, nodes, insts, item, low, failed):
        """Whether node `failed` cannot be emptied once the candidate of
        tryAlloc's element `item` ((score, {idx: node}, placed instance))
        took the instance, for every memory size of it from `low` to its own."""
        (target, node), = item[1].items()
        inst = item[2]
        if not _plain(node, nodes, insts, inst) or node.p_list[0] != inst.idx:
            return False
        small = inst.copy()
        small.mem = low
        ends = [(node, inst)]
        if failed != target:
            # another node fails: the candidate holding the instance at
            # `low` is the other end of the range
            held = copy_node(nodes[target])
            if held.add_pri(small, self.force) is not None:
                return False
            ends.append((held, small))
        afters = []
        for taker, placed in ends:
            at = list(nodes)
            at[target] = taker
            every = insts + [placed]
            source = at[failed]
            if failed != target and not _plain(source, at, every):
                return False
            drbd = [i for i in source.p_list if every[i].template == "drbd"]
            done = self.emptier.fail_over(at, every, source, drbd)
            if done is None:
                return False
            afters.append(done[0])
        hi, lo = afters[0], afters[-1]
        # the sizes change the candidate's node only: the failed node's
        # failovers (kept per node object) gave the same other nodes
        if any(a is not b for k, (a, b) in enumerate(zip(lo, hi)) if k != target):
            return False
        group = self.members[nodes[failed].group]
        if needs_unit_metric([hi[k] for k in group]):
            return False
        source = ends[0][0] if failed == target else nodes[failed]
        trail = _Trail(self, source, group, [k for k in group if k != failed],
                       insts + [small], insts + [inst])
        movable = [i for i in source.p_list if trail.insts[1][i].template != "drbd"]
        if failed == target:
            # both ends hold the source as it is at hi: it loses the
            # instance first, the same node at every size then
            return trail.fails(hi, hi, movable, None, 0)
        # the candidate's row moves with the size (outside the group it is
        # no escape node, and only its failovers' room could tell)
        return trail.fails(lo, hi, movable, target if target in trail.where else None, 0)


class Narrower(Exception):
    """A proof that may hold from a larger lowest size: `low`, a size at
    which a node that broke it no longer takes an instance."""

    def __init__(self, low):
        Exception.__init__(self, low)
        self.low = low


class _Trail:
    """One proof: the candidate, its group and the instances at both ends."""

    def __init__(self, owner, node, group, escape, insts_lo, insts_hi):
        self.emptier = owner.emptier
        self.node = node
        self.group = group
        self.where = {k: g for g, k in enumerate(group)}
        self.escape = escape
        self.insts = (insts_lo, insts_hi)
        self.sizes = (insts_lo[-1].mem, insts_hi[-1].mem)

    def fails(self, lo, hi, left, varying, depth):
        """Whether emptying fails at every size, from the node lists `lo` and
        `hi` (the two ends) with the movable instances `left` to go; only
        node `varying` differs between them (None: none yet)."""
        node = self.node
        if not left:
            return False            # emptied: the simulation succeeds
        if memory_only_verdict(lo, self.insts[0], node, self.escape, left) is False:
            return True
        if depth >= MAX_DEPTH or \
                memory_only_verdict(hi, self.insts[1], node, self.escape, left) is True:
            return False
        idx = left[0]
        moving = (self.insts[0][idx], self.insts[1][idx])
        source = node.idx
        # the source without the instance: the same at every size (before
        # the first move both ends hold the source as it is at hi)
        emptied = copy_node(hi[source])
        emptied.remove_pri(moving[1])
        takers, rows = [], ([], [])
        for k in self.escape:
            if check_migration(node, lo[k]) is not None:
                continue
            taken = [self.emptier.take(nodes[k], inst, self.emptier.twins(inst))
                     for nodes, inst in zip((lo, hi), moving)]
            if taken[0][1] is None:
                if taken[1][1] is not None:
                    return False    # takes it at hi only: not as assumed
                continue
            if taken[1][1] is None:
                # takes it below some size only: fine when what is left
                # cannot fit after it did, at lo (and so at any size)
                moved = list(lo)
                moved[source] = emptied
                moved[k] = with_taken(lo[k], moving[0], taken[0])
                if not left[1:] or memory_only_verdict(moved, self.insts[0], node, self.escape,
                                                       left[1:]) is not False:
                    raise Narrower(self._refuses_from(lo[k], hi[k], moving))
                continue
            takers.append(k)
            for end in (0, 1):
                rows[end].append(taken[end])
        if not takers:
            return True             # no node takes it at any size, or a dead end
        boards = [self.emptier.boards.board([emptied if k == source else nodes[k]
                                             for k in self.group])
                  for nodes in (lo, hi)]
        if not all(boards[0].live[self.where[k]] for k in takers):
            return False
        contenders = self._contenders(boards, takers, rows, varying)
        if contenders is None or len(contenders) > MAX_BRANCHES:
            return False
        for pos in contenders:
            k = takers[pos]
            ends = []
            for end, nodes in enumerate((lo, hi)):
                moved = list(nodes)
                moved[source] = emptied
                moved[k] = with_taken(nodes[k], moving[end], rows[end][pos])
                ends.append(moved)
            if not self.fails(ends[0], ends[1], left[1:], k if varying is None else varying,
                              depth + 1):
                return False
        return True

    def _refuses_from(self, at_lo, at_hi, moving):
        """The size from which a node stops taking the moving instance: its
        memory left is affine in the size (it falls by the size when it
        holds the new instance, as does the new instance's own need)."""
        low, high = self.sizes
        free = at_lo.unallocated_mem()
        slope = (free - at_hi.unallocated_mem()) // max(1, high - low)
        need_lo = moving[0].mem
        grows = 1 if moving[0].mem != moving[1].mem else 0
        return low + (free - need_lo) / float(slope + grows) if slope + grows else high

    def _contenders(self, boards, takers, rows, varying):
        """Positions in `takers` of the nodes that could score lowest at some
        size; None when the bounds do not hold (a value moves that must not).

        A score is the convex part (the deviations) plus the N+1 count, a
        step that only rises or only falls with the size: bounded by its
        values at the two ends."""
        positions = [self.where[k] for k in takers]
        vectors = [[scored.vector for _b, scored in rows[end]] for end in (0, 1)]
        scores = [boards[end].exact_scores(positions, [scored.row for _b, scored in rows[end]],
                                           vectors[end]) for end in (0, 1)]
        # the row that moves with the size: each target's own before the new
        # instance moved, after that the row of the node that took it
        moves = [positions[i] if varying is None or takers[i] == varying
                 else self.where[varying] for i in range(len(takers))]
        steps, reach = [], []
        count = float(boards[0].live.sum())
        for i, pos in enumerate(moves):
            if pos == positions[i]:
                ends = (vectors[0][i], vectors[1][i])
            else:
                if list(vectors[0][i]) != list(vectors[1][i]):
                    return None     # a target's own row must then stay
                ends = (boards[0].matrix[pos], boards[1].matrix[pos])
            if any(a != b for col, (a, b) in enumerate(zip(*ends))
                   if col not in MOVING and col != N1):
                return None
            steps.append((METRIC_WEIGHTS[N1] * ends[0][N1], METRIC_WEIGHTS[N1] * ends[1][N1]))
            # a deviation moves by at most its value's move over the root of the count
            reach.append(sum(METRIC_WEIGHTS[col] * abs(ends[1][col] - ends[0][col])
                             for col in MOVING) / count ** 0.5)
        highest = min(max(a - da, b - db) + max(da, db) + MARGIN * (1 + a + b)
                      for a, b, (da, db) in zip(scores[0], scores[1], steps))
        out = []
        for i, score in enumerate(scores[0]):
            low_step = min(steps[i])
            convex = score - steps[i][0]
            slack = MARGIN * (1 + abs(score) + abs(scores[1][i]))
            if min(convex, scores[1][i] - steps[i][1]) - reach[i] + low_step - slack > highest:
                continue
            if convex - self._fall(boards, positions[i], vectors, i, moves[i]) + low_step - \
                    slack > highest:
                continue
            out.append(i)
        return out

    def _fall(self, boards, position, vectors, i, moving):
        """How far candidate i's score can fall below its score at lo, over
        the range: per moving deviation, its value at lo less its lowest."""
        fall = 0.0
        live = boards[0].live
        for col in MOVING:
            column = boards[0].matrix[:, col].copy()
            column[position] = vectors[0][i][col]
            high = boards[1].matrix[moving, col] if moving != position else vectors[1][i][col]
            low = column[moving]
            others = np.delete(column[live], int(live[:moving].sum()))
            fall += METRIC_WEIGHTS[col] * (_deviation(low, others) -
                                           _lowest(low, high, others))
        return fall


def _plain(node, nodes, insts, inst=None):
    """quickn1.plain, none of the movable instances forthcoming, and the new
    instance `inst` (unless None; its index follows `insts`) a memory-only
    movable one: DRBD and memory-only movable instances only, on nodes
    without storage units or exclusive storage; no instance is re-created."""
    if inst is not None:
        if inst.template not in SHARED or not inst.uses_memory or inst.forthcoming:
            return False
        insts = insts + [inst]
    return plain(node, nodes, insts) and \
        not any(insts[i].forthcoming for i in node.p_list if insts[i].template != "drbd")


def _deviation(value, others):
    """The population deviation of `others` (an array) and `value`."""
    values = np.append(others, value)
    return float(np.sqrt(((values - values.mean()) ** 2).mean()))


def _lowest(a, b, others):
    """The lowest deviation for a value between a and b: at the others' mean
    when it lies between them, else at the nearer end."""
    low, high = min(a, b), max(a, b)
    best = float(others.mean()) if len(others) else low
    return _deviation(min(max(best, low), high), others)
