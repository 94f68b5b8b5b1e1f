# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the HTML report draws a balance plan: the score after each step."""

from __future__ import annotations

from ...plan.cost import gain_curve
from ...plan.usage import from_node_record
from ..base import PlanView


class BalanceView(PlanView):

    def own_states(self, result):
        if not result.get("nodes_before"):        # only a full result or report has them
            return None
        return [{"state": label, "nodes": [from_node_record(n) for n in
                                           result.get("nodes_" + label) or ()]}
                for label in ("before", "after")]

    def scores(self, result):
        # with group: all, the sum of the groups' scores (planner/balance/all_groups.py)
        return [("before", result["initial_score"])] + [
            ("step %d" % m["index"], _cluster_score(m)) for m in result.get("moves", ())]

    def group_scores(self, result):
        return [{"group": g["group"], "role": "%d move%s" % (g["moves"], "" if g["moves"] == 1
                                                             else "s"),
                 "before": g["initial_score"], "after": g["final_score"]}
                for g in result.get("groups") or ()]

    def gain_curve(self, result):
        moves = result.get("moves") or ()
        if not moves or not all("data_copied_mib" in m for m in moves):
            return []
        return _shares(result, [dict(m, score=_cluster_score(m)) for m in moves], "move")

    def hbal_curve(self, result):
        if not result.get("hbal_curve") or not result.get("moves"):
            return []
        return _shares(result, [{"data_copied_mib": d, "score": s}
                                for d, s in result["hbal_curve"]], "hbal's move")

    def columns(self, result):
        if result.get("groups"):        # group: all
            return (("group", "Group"), ("score_text", "Score after (its group's)"))
        return (("score_text", "Score after"),)


def _cluster_score(move):
    return move.get("cluster_score", move["score"])


def _shares(result, moves, word):
    """[(GiB copied so far, % of the gain, label)] of `moves`; the gain is
    hbal's own plan's when the result has it (a cost-aware plan's report)."""
    initial = result["initial_score"]
    curve = gain_curve(initial, moves)
    reference = result.get("hbal_curve")
    gain = initial - (reference[-1][1] if reference else curve[-1][1])
    if gain <= 0:
        return []
    labels = ["before"] + ["%s %d" % (word, k) for k in range(1, len(moves) + 1)]
    return [(data / 1024.0, 100.0 * (initial - score) / gain, label)
            for (data, score), label in zip(curve, labels)]
