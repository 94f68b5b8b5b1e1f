# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""N+1 failures proved for a range of memory sizes at once.

Between two allocations hspace's tiered search tries the same cluster with
one size after another, each 64 MiB of memory smaller than the last, and on
most of them every candidate node fails the N+1 check again.  For a
one-node candidate a failure is proved here for a whole range of sizes, so
the sizes inside it need no check:

* a lasting failure (Verdict.lasting: a failover or a placement that no
  choice can make work) only gets worse as the candidate's new instance
  grows: shown at a smaller size, it holds for every larger one.  Smaller
  sizes are probed with the certain answer of the node that could not be
  emptied (no simulation), doubling the distance each time and then
  halving it back: a few probes for a long run of sizes;
* any other failure, where greedy_range.py follows the emptying's greedy
  choices over a range of sizes at once.

Failures are proved once the search is known to go on with other sizes of
the same cluster (settle(): the try allocated nothing).  A proof is about
one cluster (the node list and instance count) and one instance shape: the
other sizes differ from it in memory only.  Another cluster or shape sets
the proofs aside, but a lasting one still holds on every cluster the search
makes from its own by adding instances (more instances cannot take a
lasting failure away): hspace only adds, so those clusters list the same
instance objects first.
"""

from __future__ import annotations

from ..evacuate.state import copy_node
from .singles import UNIT_MEM, lowest_holding, shape_key
from .globaln1 import Verdict
from .greedy_range import Narrower

NOT_LASTING = Verdict(False, False)
FIRST_SPAN = 32         # sizes a greedy proof first tries to cover
TRIES = 4               # greedy proofs tried before checking the size itself
LASTING = Verdict(False, True)
KEEP_LASTING = 8        # lasting proofs kept per candidate and shape


class SizeWalk:
    """Proved failures of one-node candidates over memory sizes, for the
    cluster the tiered search is on (Allocator's)."""

    def __init__(self, checker, greedy=None, force=False):
        self.checker = checker
        self.greedy = greedy    # a greedy_range.GreedyRange, or None
        self.force = force
        # (node list, instance count, shape) of the proofs; the shape is what
        # of an instance but its memory they assume unchanged: the sizes
        # hspace's search varies (the rest is the spec's, as SingleTries assumes)
        self.about = None
        self.proofs = {}        # candidate idx -> [(lowest mem, highest mem, Verdict)]
        self.spans = {}         # candidate idx -> (sizes its last greedy proof spanned, failed node)
        # (shape, candidate idx) -> [(the cluster's last instance or None, its
        # instance count, lowest mem)]: lasting proofs, for the clusters after
        self.lasting = {}
        self.pending = []       # failures to prove for other sizes (learn())
        self._all = None        # (node list, key, answer) of the last all_fail()

    def _same(self, nodes, insts, inst):
        """Whether the proofs are about this cluster and shape (else they
        are set aside and `about` is this one)."""
        about = (nodes, len(insts), shape_key(inst))
        if self.about is not None and self.about[0] is nodes and self.about[1:] == about[1:]:
            return True
        self.about = about
        self.proofs, self.spans = {}, {}
        return False

    def known(self, nodes, insts, item, attempt=True):
        """The Verdict proved for tryAlloc's element `item` ((score, {idx:
        node}, placed instance)) on this cluster, or None.  A candidate whose
        failure greedy_range proved for a run of sizes gets the next run
        proved (it usually fails the same way; with `attempt`): no check is
        needed then."""
        (target, _node), = item[1].items()
        verdict = self._proved(nodes, insts, target, item[2])
        if verdict is None and attempt and target in self.spans:
            return self._greedy_run(nodes, insts, item, NOT_LASTING, self.spans[target][1])
        return verdict

    def _proved(self, nodes, insts, target, inst):
        """known() without new proofs."""
        same = self._same(nodes, insts, inst)
        mem = inst.mem
        for anchor, count, low in self.lasting.get((self.about[2], target), ()):
            if mem >= low and len(insts) >= count and (count == 0 or insts[count - 1] is anchor):
                return LASTING
        if same:
            for low, high, verdict in self.proofs.get(target, ()):
                if low <= mem <= high:
                    return verdict
        return None

    def all_fail(self, nodes, insts, inst, targets):
        """(whether every candidate of `targets` has a proved failure for
        `inst`, whether all of those are lasting); the last answer kept."""
        key = (len(insts), inst.mem, shape_key(inst), len(targets))
        if self._all is not None and self._all[0] is nodes and self._all[1] == key:
            return self._all[2]
        answer = (True, True)
        for target in targets:
            verdict = self._proved(nodes, insts, target, inst)
            if verdict is None:
                answer = (False, False)
                break
            if not verdict.lasting:
                answer = (True, False)
        self._all = (nodes, key, answer)
        return answer

    def learn(self, nodes, insts, item, verdict, failed):
        """After `verdict` (a failure) of `item` (as known()), where node
        `failed` could not be emptied: prove it for other sizes, once the
        search is known to try them (settle())."""
        self.pending.append((nodes, insts, item, verdict, failed))

    def settle(self, allocated):
        """The failures learnt since the last call are proved for other
        sizes, unless the search `allocated` an instance: then it moves on
        to another cluster, and the proofs would not be asked."""
        pending, self.pending = self.pending, []
        if allocated:
            return
        for nodes, insts, item, verdict, failed in pending:
            (target, _node), = item[1].items()
            inst = item[2]
            if self._proved(nodes, insts, target, inst) is not None:
                continue
            if verdict.lasting:
                low = self._lasting_down_to(nodes, insts, target, inst, failed)
                kept = self.lasting.setdefault((self.about[2], target), [])
                kept[:] = kept[-(KEEP_LASTING - 1):] + [(insts[-1] if insts else None,
                                                         len(insts), low)]
            elif self.greedy is not None and failed is not None:
                self._greedy_run(nodes, insts, item, verdict, failed)

    def _greedy_run(self, nodes, insts, item, verdict, failed):
        """Prove `verdict` (node `failed` cannot be emptied) for the sizes
        below item's by greedy_range, over about twice the last run's span
        (then over less); `verdict` when proved, else None (and the
        candidate is not tried again until it fails a check)."""
        (target, _node), = item[1].items()
        mem = item[2].mem
        last = self.spans.pop(target, (1, failed))[0]
        span, tries = min(FIRST_SPAN, max(1, (mem - UNIT_MEM) // UNIT_MEM)), TRIES
        span = max(span, 2 * last) if last > 1 else span
        while span >= 1 and tries > 0:
            tries -= 1
            low = mem - UNIT_MEM * span
            try:
                proved = self.greedy.prove(nodes, insts, item, low, failed)
                shorter = span // 2
            except Narrower as err:
                # a node that broke the proof stops taking an instance from
                # err.low on: the span above it may hold
                proved, shorter = False, min(span - 1, int((mem - err.low) // UNIT_MEM))
            if proved:
                self.spans[target] = (span, failed)
                self.proofs.setdefault(target, []).append((low, mem, verdict))
                return verdict
            span = shorter
        return None

    def _lasting_down_to(self, nodes, insts, target, inst, failed):
        """The smallest memory size, on the 64 MiB steps below inst.mem,
        down to which node `failed` cannot be emptied for certain (probed:
        its certain answer alone, no simulation)."""
        return lowest_holding(inst.mem, lambda mem: self._lasting_at(nodes, insts, target, inst,
                                                                     mem, failed))

    def _lasting_at(self, nodes, insts, target, inst, mem, failed):
        """Whether node `failed` cannot be emptied for certain once `target`
        took `inst` with memory `mem`."""
        sized = inst.copy()
        sized.mem = mem
        node = copy_node(nodes[target])
        if node.add_pri(sized, self.force) is not None:
            return False
        sized.pnode, sized.snode = target, -1
        new_nodes = list(nodes)
        new_nodes[target] = node
        return self.checker.certain_failure(new_nodes, insts + [sized], failed)
