# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the HTML report draws a balance plan: the score after each step."""

from __future__ import annotations

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
        return [("before", result["initial_score"])] + [
            ("step %d" % m["index"], m["score"]) for m in result.get("moves", ())]

    def columns(self, result):
        return (("score_text", "Score after"),)
