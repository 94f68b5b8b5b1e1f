# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A step of a balance plan: the chosen move and the placement before and after it.

Its own module because both the loop, which takes steps, and the budgets,
which price a candidate as the step it would be, build them.
"""

from __future__ import annotations


class Step:
    """One chosen move and the placement before and after it."""

    __slots__ = ("inst", "move", "target", "old_p", "old_s", "new_p", "new_s", "score")

    def __init__(self, inst, move, target, old_p, old_s, new_p, new_s, score):
        self.inst = inst
        self.move = move
        self.target = target
        self.old_p = old_p
        self.old_s = old_s
        self.new_p = new_p
        self.new_s = new_s
        self.score = score


def step_of(instances, cand):
    """The step a candidate move (loop.Candidate) of `instances` would be."""
    inst = instances[cand.inst]
    _changed, _moved, new_p, new_s = cand.result
    return Step(cand.inst, cand.move, cand.target, inst.pnode, inst.snode, new_p, new_s,
                cand.score)
