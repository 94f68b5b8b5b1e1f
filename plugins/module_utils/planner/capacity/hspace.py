# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hspace 3.0.2: how many more instances fit, standard and tiered.

The cluster is filled with copies of one spec until no node takes another
(standard), and with a spec shrunk on the resource that failed most
(tiered).  The steps, their order, the N+1 checks and the failure counts
are hspace's; so are the HTS_* figures built from them (report.py).
"""

from __future__ import annotations

import sys

from ...errors import HtoolsError
from ...model.instance import Instance
from .alloc import NoNodes, try_alloc
from .fill import fill_to_end
from .singles import UNIT_MEM, SingleTries
from .greedy_range import GreedyRange
from .walk import SizeWalk

# the steps of the tiered search: memory UNIT_MEM (singles.py), and these
UNIT_DSK, UNIT_CPU, UNIT_SPN = 256, 1, 1


class RSpec(tuple):
    """(mem, dsk, cpu, spn) as hspace prints it."""
    __slots__ = ()

    def __new__(cls, mem, dsk, cpu, spn):
        return tuple.__new__(cls, (mem, dsk, cpu, spn))

    mem = property(lambda self: self[0])
    dsk = property(lambda self: self[1])
    cpu = property(lambda self: self[2])
    spn = property(lambda self: self[3])

    @classmethod
    def from_ispec(cls, spec):
        return cls(spec.mem_size, spec.disk_size, spec.cpu_count, spec.spindle_use)


def spec_of(inst):
    spn = inst.disks[0][1] if len(inst.disks) == 1 and inst.disks[0][1] is not None else 0
    return RSpec(inst.mem, inst.dsk, inst.vcpus, spn)


def inst_from_spec(spec, template, spindle_use):
    return Instance(-1, "new", spec.mem, spec.dsk, spec.cpu, "running", True, -1, -1,
                    template, spindle_use=spindle_use, disks=[(spec.dsk, spec.spn)])


def shrink(inst, mode, times=1):
    """shrinkByType `times` over: the instance smaller in `mode`, or None
    where one of the shrinks fails."""
    if times > 1 and mode == "FailDisk":
        disks = [(size - UNIT_DSK * times, spn) for size, spn in inst.disks]
        if any(size < UNIT_DSK for size, _spn in disks):
            return None
        new = inst.copy()
        new.disks, new.dsk = disks, inst.dsk - len(inst.disks) * UNIT_DSK * times
        new.disk_units = (None,) * len(new.disks)
        return new
    new = inst.copy()
    if mode == "FailMem":
        if inst.mem - UNIT_MEM < UNIT_MEM:
            return None
        new.mem = inst.mem - UNIT_MEM
    elif mode == "FailDisk":
        disks = [(size - UNIT_DSK, spn) for size, spn in inst.disks]
        if any(size < UNIT_DSK for size, _spn in disks):
            return None
        new.disks, new.dsk = disks, inst.dsk - len(inst.disks) * UNIT_DSK
    elif mode == "FailCPU":
        if inst.vcpus - UNIT_CPU < UNIT_CPU:
            return None
        new.vcpus = inst.vcpus - UNIT_CPU
    elif mode == "FailSpindles":
        if len(inst.disks) != 1 or inst.disks[0][1] is None:
            return None
        size, spn = inst.disks[0]
        if spn - UNIT_SPN < UNIT_SPN:
            return None
        new.disks = [(size, spn - UNIT_SPN)]
    else:
        return None
    new.disk_units = (None,) * len(new.disks)
    return new


class State:
    """(failure counts, nodes, instances, new instances oldest first)."""
    __slots__ = ("errs", "nodes", "insts", "ixes")

    def __init__(self, errs, nodes, insts, ixes):
        self.errs, self.nodes, self.insts, self.ixes = errs, nodes, insts, ixes


class Allocator:
    """The allocation methods of one hspace run (Cluster.hs's AllocMethods)."""

    def __init__(self, data, targets, required, capacity, checker):
        self.data = data
        self.targets = targets
        self.required = required
        self.capacity = capacity
        self.checker = checker
        self._target_groups = None
        self.singles = SingleTries(data, targets) if required == 1 else None
        # failures proved for runs of sizes: one-node candidates only
        self.walk = SizeWalk(checker, GreedyRange(data, checker.emptier)) \
            if required == 1 else None
        self.memos = {}         # (id(nodes), instance count) -> (nodes, {size: solution})

    def try_alloc(self, nodes, insts, inst, capacity, as_new=False):
        """tryAlloc, remembered per cluster state and instance size: the tiered
        search probes the same sizes on the same state again and again.
        `as_new`: `inst` is a size to try, tried as a copy indexed after `insts`
        (made only when the answer is not remembered)."""
        memo = self._memo(nodes, insts)
        key = (capacity, inst.mem, inst.dsk, inst.vcpus, tuple(inst.disks), inst.spindle_use)
        sol = memo.get(key)
        if sol is None:
            if as_new:
                inst = inst.copy()
                inst.idx = len(insts)
            sol = memo[key] = self._try_alloc(nodes, insts, inst, capacity)
        return sol

    def _memo(self, nodes, insts):
        key = (id(nodes), len(insts))
        entry = self.memos.get(key)
        if entry is None or entry[0] is not nodes:
            if len(self.memos) >= 4:            # the last few states only
                self.memos.pop(next(iter(self.memos)))
            entry = self.memos[key] = (nodes, {})
        return entry[1]

    def _try_alloc(self, nodes, insts, inst, capacity):
        good = None
        if capacity:
            def good(item):
                return self._verdict_with(nodes, insts, item).redundant
        try:
            if self.singles is not None:
                if not self.targets:
                    raise NoNodes("No online nodes")
                if not capacity or self.walk is None:
                    return self.singles.solve(nodes, inst, good)
                sol = self.singles.solve(nodes, inst, good, self._doomed(nodes, insts, inst))
                self.walk.settle(sol.best is not None)
                return sol
            return try_alloc(self.data, nodes, inst, self.targets, self.required, good=good)
        except NoNodes as err:
            raise HtoolsError("failure during allocation: %s" % err) from None

    def _doomed(self, nodes, insts, inst):
        """singles.solve's `doomed`: the walk proved every candidate fails."""
        def doomed(targets):
            return self.walk.all_fail(nodes, insts, inst, targets)[0]
        return doomed

    def small_steps(self, state, limit, newinst, capacity):
        """iterateAllocSmallStep."""
        nodes, insts, ixes = state.nodes, state.insts, list(state.ixes)
        capacity = capacity and newinst.template != "drbd"
        if not capacity and self.singles is not None:
            filled = fill_to_end(self.singles.policy, state, newinst, self.targets, limit,
                                 State)
            if filled is not None:
                return filled
        while True:
            new = newinst.copy()
            new.name = "new-%d" % len(ixes)
            new.idx = len(insts)
            sol = self.try_alloc(nodes, insts, new, capacity)
            if sol.best is None or limit == 0:
                return State(sol.counts(), nodes, insts, ixes)
            _score, changed, placed = sol.best
            placed = placed.copy()
            placed.name = new.name
            nodes = list(nodes)
            for idx, node in changed.items():
                nodes[idx] = node
            insts = insts + [placed]
            ixes.append(placed)
            if limit is not None:
                limit -= 1

    def iterate(self, state, limit, newinst):
        """iterateAlloc: big steps without N+1 checks, kept when the end is redundant."""
        if not self.capacity:
            return self.small_steps(state, limit, newinst, False)
        huge = True
        prefix = None           # the first 10 unchecked steps from `state`
        while True:
            step = guess_step(state.nodes, newinst) if huge else 10
            first, rest = (step, None) if limit is None else (min(step, limit),
                                                              max(0, limit - step))
            if first > 0 and self._first_step_fails_for_good(state, newinst):
                # the big and the 10-step runs start with that step: neither
                # can end redundant, so hspace ends with the checked steps
                return self.small_steps(state, limit, newinst, True)
            if first > 10:
                # the big run starts with the 10-step run: when that one ends
                # not redundant for good, so do both
                prefix = self.small_steps(state, 10, newinst, False)
                verdict = self.checker.check(prefix.nodes, prefix.insts)
                if not verdict.redundant and verdict.lasting:
                    return self.small_steps(state, limit, newinst, True)
                res = self.small_steps(prefix, first - 10, newinst, False)
            elif first == 10 and prefix is not None:
                res = prefix
            else:
                res = self.small_steps(state, first, newinst, False)
            if self.checker.redundant(res.nodes, res.insts):
                if rest == 0 or len(res.ixes) == len(state.ixes):
                    return res
                state, limit, prefix = res, rest, None
                continue
            if huge:
                huge = False
                continue
            return self.small_steps(state, limit, newinst, True)

    def _first_step_fails_for_good(self, state, newinst):
        """Whether the first unchecked step from `state` leaves a cluster that
        is not redundant for a lasting reason (Verdict.lasting): then every
        unchecked run from `state` ends not redundant, whatever it adds."""
        new = newinst.copy()
        new.name = "new-%d" % len(state.ixes)
        new.idx = len(state.insts)
        if self._all_fail_for_good(state, new):
            return True
        sol = self.try_alloc(state.nodes, state.insts, new, False)
        if sol.best is None:
            return False
        verdict = self._verdict_with(state.nodes, state.insts, sol.best)
        return not verdict.redundant and verdict.lasting

    def _all_fail_for_good(self, state, new):
        """Whether the walk proved a lasting failure for every candidate
        taking `new`: then so fails the first unchecked step, wherever it
        goes (with no candidate there is no step)."""
        if self.walk is None:
            return False
        candidates = self.singles.candidates(state.nodes, new)
        return bool(candidates) and \
            self.walk.all_fail(state.nodes, state.insts, new, candidates)[1]

    def _verdict_with(self, nodes, insts, item):
        """The N+1 Verdict of the cluster with tryAlloc's element `item`
        ((score, {idx: node}, placed)) applied; its changed nodes asked first.
        A failure the walk proved for the size needs no check."""
        walk = self.walk if len(item[1]) == 1 else None
        if walk is not None:
            known = walk.known(nodes, insts, item)
            if known is not None:
                return known
        new_nodes = list(nodes)
        for idx, node in item[1].items():
            new_nodes[idx] = node
        verdict = self.checker.check(new_nodes, insts + [item[2]], first=item[1])
        if walk is not None and not verdict.redundant:
            walk.learn(nodes, insts, item, verdict, self.checker.last_failed())
        return verdict

    def tiered(self, state, limit, newinst):
        """tieredAlloc (recursive as hspace's: the depth is the shrink count)."""
        res = self.iterate(state, limit, newinst)
        count = len(res.ixes)
        if limit is not None:
            if limit <= count:
                return res
            limit = limit - count
        ordered = [mode for mode, _c in sorted(res.errs, key=lambda e: e[1])]
        deeper = None
        smaller = shrink(newinst, ordered[-1])
        if smaller is not None:
            deeper = self.tiered(res, limit, smaller)
            if len(deeper.insts) > len(res.insts):
                return deeper
        for mode in reversed(ordered):
            found = self._suffices(res, newinst, mode)
            if found is not None:
                return self.tiered(res, limit, found)
        return res

    def _suffices(self, state, inst, mode):
        """sufficesShrinking: shrink by `mode` while it keeps failing on
        `mode`, up to the first size that fits.  A size that cannot be shrunk
        once more is never tried: hspace walks the sizes with iterateOk,
        which ends the list before such a size."""
        current = inst
        while current is not None:
            smaller = shrink(current, mode)
            if smaller is None:
                return None
            sol = self.try_alloc(state.nodes, state.insts, current, self.capacity, as_new=True)
            if sol.best is not None:
                return current
            if mode not in sol.failures:
                return None
            steps = self._same_answer_steps(current, mode)
            current = smaller if steps == 1 else shrink(current, mode, steps)
        return None

    def _same_answer_steps(self, inst, mode):
        """How many disk shrinks leave a diskless instance's tryAlloc answer as
        it is: its disk size only meets the groups' policy limits, so the
        answer holds until the size reaches the next limit (1 otherwise)."""
        if mode != "FailDisk" or inst.template != "diskless" or len(inst.disks) != 1:
            return 1
        size = inst.disks[0][0]
        steps = (size - UNIT_DSK) // UNIT_DSK        # shrinks before going below one unit
        for gdx in self.target_groups():
            for lo, hi in self.data.groups[gdx].ipolicy.minmax:
                if size > hi.disk_size:       # "too big" ends at the limit
                    steps = min(steps, -(-(size - hi.disk_size) // UNIT_DSK))
                if size >= lo.disk_size:      # "too small" starts below it
                    steps = min(steps, (size - lo.disk_size) // UNIT_DSK + 1)
        return max(1, steps)

    def target_groups(self):
        if self._target_groups is None:
            idxs = [t[0] if isinstance(t, tuple) else t for t in self.targets]
            self._target_groups = sorted({self.data.nodes[k].group for k in idxs})
        return self._target_groups


def guess_step(nodes, inst):
    """guessBigstepSize."""
    avail = sum(n.avail_mem() for n in nodes)
    guess = avail // inst.mem - len(nodes)
    return 20 if guess < 20 else guess


def with_depth(func, *args):
    """Run `func` with room for hspace's recursion (one level per shrink)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 100000))
    try:
        return func(*args)
    finally:
        sys.setrecursionlimit(old)
