# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether instances that need memory only fit into some nodes, whatever
node the greedy gives each.

With soft limits ignored, a node takes such an instance while its
unallocated memory stays above 0.  So a set of them fits on a node exactly
when their memory adds up to less than the node's: whether all fit does not
depend on the order they come in, only on which node each goes to.  The
answers here are certain ones (True: every choice fits, False: none does)
or None, and never read the greedy's scores.
"""

from __future__ import annotations


def always_fit(frees, total, biggest, count):
    """Whether `count` instances of `total` memory, none above `biggest`,
    all fit into nodes with unallocated memory `frees` whatever node each
    goes to:

    * each node takes at least (free - 1) // biggest of them;
    * or, when one of them (memory m) found no node, each node had at most
      m left, so what was placed on the nodes with more than `biggest`,
      sum(free - m), is at most total - m: a larger sum of (free - biggest)
      over them than total - biggest rules that out."""
    if biggest <= 0:
        return False
    if sum((free - 1) // biggest for free in frees if free > 0) >= count:
        return True
    return sum(free - biggest for free in frees if free > biggest) > total - biggest


def bounds(frees, mems):
    """True or False when instances of memory `mems` (all above 0) fit, or
    cannot fit, whatever node each goes to; else None.  Fail: a node with
    `free` holds at most (free - 1) // smallest of them."""
    need = sum(mems)
    if max(frees, default=0) - need > 0:
        return True
    if always_fit(frees, need, max(mems), len(mems)):
        return True
    smallest = min(mems)
    if sum((free - 1) // smallest for free in frees if free > 0) < len(mems):
        return False
    return None


def after_the_first(frees, mems):
    """bounds() of mems[1:] after mems[0] (the one the greedy places first)
    went to each node that takes it: True or False when that is the answer
    whatever node it went to, else None.  False also when no node takes it.

    Each node's case differs from the others in one node's memory, so the
    sums of bounds() are taken once and corrected per node."""
    first, rest = mems[0], mems[1:]
    takers = [k for k, free in enumerate(frees) if free - first > 0]
    if not takers:
        return False
    if not rest:
        return True
    need, biggest, smallest, count = sum(rest), max(rest), min(rest), len(rest)

    def at_least(free):
        return (free - 1) // biggest if free > 0 else 0

    def beyond(free):
        return free - biggest if free > biggest else 0

    def at_most(free):
        return (free - 1) // smallest if free > 0 else 0

    places = sum(at_least(free) for free in frees)
    spare = sum(beyond(free) for free in frees)
    most = sum(at_most(free) for free in frees)
    ranked = sorted(range(len(frees)), key=lambda k: -frees[k])[:2]
    answer = None
    for k in takers:
        old, new = frees[k], frees[k] - first
        other = next((frees[j] for j in ranked if j != k), new)
        if max(new, other) - need > 0 or \
                places - at_least(old) + at_least(new) >= count or \
                spare - beyond(old) + beyond(new) > need - biggest:
            verdict = True
        elif most - at_most(old) + at_most(new) < count:
            verdict = False
        else:
            return None
        if answer is not None and verdict != answer:
            return None
        answer = verdict
    return answer
