# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the HTML report draws an evacuation plan: what was asked, each group's own score."""

from __future__ import annotations

from ..base import PlanView
from .request import CHANGE_GROUP


class EvacuationView(PlanView):

    def group_scores(self, result):
        """Each group's own score (as hbal scores that group alone), the source
        group(s) first, then the targets."""
        moves = result.get("moves") or ()
        sources = {m.get("old_group") for m in moves}
        targets = set(result.get("target_groups") or ()) | {m.get("new_group") for m in moves}
        rows = []
        for name, score in sorted((result.get("scores") or {}).items(),
                                  key=lambda item: (item[0] not in sources, item[0])):
            role = " and ".join(r for r, members in (("source", sources), ("target", targets))
                                if name in members) or "involved"
            rows.append({"group": name, "role": role, "before": score.get("before"),
                         "after": score.get("after")})
        return rows

    def columns(self, result):
        if result.get("kind") != CHANGE_GROUP:
            return ()
        return (("old_group", "Old group"), ("new_group", "New group"))

    def meta(self, result):
        return [("request", result.get("kind")),
                ("nodes", ", ".join(result.get("nodes") or ())),
                ("target groups", _targets(result))]

    def evacuated(self, result):
        return list(result.get("nodes") or ())

    def group_label(self, number, size):
        if size == 1:
            return super().group_label(number, size)
        return "jobset %d: %d moves, independent instances, run in parallel" % (number, size)


def _targets(result):
    if result.get("kind") != CHANGE_GROUP:
        return None
    return ", ".join(result.get("target_groups") or ()) or "any other group"
