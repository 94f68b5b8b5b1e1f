# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A plan as a before/after text diff of the moved instances' placements."""

from __future__ import annotations


def _placement(primary, secondary):
    return "%s:%s" % (primary, secondary) if secondary else primary


def placement_diff(result):
    """Ansible's diff of a plan result: 'instance primary[:secondary]' before its
    first move and after its last one (every planner's moves carry both)."""
    before, after = {}, {}
    for move in sorted(result["moves"], key=lambda m: m["index"]):
        before.setdefault(move["instance"], _placement(move["old_primary"], move["old_secondary"]))
        after[move["instance"]] = _placement(move["new_primary"], move["new_secondary"])
    names = sorted(before)
    return {
        "before_header": "placement before the plan",
        "after_header": "placement after the plan",
        "before": "".join("%s %s\n" % (n, before[n]) for n in names),
        "after": "".join("%s %s\n" % (n, after[n]) for n in names),
    }
