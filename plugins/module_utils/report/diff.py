# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A plan as a before/after text diff of the moved instances' placements.

Each instance is a block that starts with its name, the same line on both
sides: a line diff then shows every instance's old placement right above its
new one (and the moves, in plain words), instead of all removals first and
all additions after them.
"""

from __future__ import annotations

from ..plan.move_words import describe_move


def _placement(primary, secondary):
    if primary is None:         # an instance the plan creates
        return "not created yet"
    return "on %s%s" % (primary, " (secondary %s)" % secondary if secondary else "")


def placement_diff(result):
    """Ansible's diff of a plan result: per moved instance, its name, then its
    placement before its first move and after its last one, and what runs."""
    before, after, words = {}, {}, {}
    for move in sorted(result["moves"], key=lambda m: m["index"]):
        name = move["instance"]
        before.setdefault(name, _placement(move["old_primary"], move["old_secondary"]))
        after[name] = _placement(move["new_primary"], move["new_secondary"])
        words.setdefault(name, []).append(move.get("description") or describe_move(move))
    names = sorted(before)
    return {
        "before_header": "placement before the plan",
        "after_header": "placement after the plan",
        "before": "".join("%s\n  %s\n" % (n, before[n]) for n in names),
        "after": "".join("%s\n  %s\n%s" % (n, after[n], "".join(
            "  by: %s\n" % w for w in words[n])) for n in names),
    }
