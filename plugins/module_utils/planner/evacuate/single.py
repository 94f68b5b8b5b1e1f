# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""best-single: move one node of an instance (fa:T or r:T) to the best target.

Every target is tried in node order; the group score of each success is
computed exactly, all candidates in one numpy batch (GroupScorer: only the
two or three changed node rows differ from the group's base matrix).  On
equal scores the LAST target wins, as in hail's fold.
"""

from __future__ import annotations

from .exact import GroupScorer
from .state import Failed, Step, apply, job_of


def pick_last_min(scores):
    """Position of the minimum, the last one on ties; None when empty.

    hail keeps its best unless `best < new`, so an equal score replaces it.
    NaN scores follow the same rule (a NaN never stays best against a later one).
    """
    best = None
    for pos, score in enumerate(scores):
        if best is None or not scores[best] < score:
            best = pos
    return best


def best_single(state, nodes, inst, gdx, avail, move, force):
    """(new nodes, moved instance, opcodes) or raise Failed."""
    results, acc = [], ""
    for target in avail:
        res = apply(nodes, inst, move, target, force)
        if isinstance(res, str):
            if not results:     # hail stops collecting text at the first success
                acc += " Node %s failed: %s;" % (nodes[target].name, res)
            continue
        results.append((target, res))
    if not results:
        raise Failed("Can't find any good node: " + acc)
    group = [nodes[k] for k in state.members[gdx]]
    scores = GroupScorer(group).scores([res[2] for _t, res in results])
    target, (new_nodes, moved, _changed) = results[pick_last_min(scores)]
    step = Step(move, moved.pnode, moved.snode)
    return new_nodes, moved, job_of([step], moved, new_nodes)
