# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lines of a plan's summary: what an operator reads before approving one.

A few lines, whatever the plan's size: the score before and after, the moves
jobset by jobset (or the waves), the warnings.  Long lists are cut with a
count of what is left out; the full data stays in the other result fields.
Each planner writes its own summary (planner/<name>/summary.py) from these.
"""

from __future__ import annotations

from .move_words import describe_move

MOVES_SHOWN = 4         # per jobset line
NODES_SHOWN = 8         # per wave line
LINES_SHOWN = 8         # jobsets or waves


def domain_suffix(names):
    """The dot-suffix every name shares (".example.com"), cut from the lines."""
    names = [n for n in names if n]
    if not names:
        return ""
    first = names[0]
    suffix = first[first.find("."):] if "." in first else ""
    while suffix and not all(n.endswith(suffix) and len(n) > len(suffix) for n in names):
        nxt = suffix.find(".", 1)
        suffix = suffix[nxt:] if nxt > 0 else ""
    return suffix


def shorten(text, suffix):
    return text.replace(suffix, "") if suffix else text


def move_text(move):
    """'db01: new secondary node7, then migrate to node7' (plan/move_words.py)."""
    return "%s: %s" % (move["instance"], move.get("description") or describe_move(move))


def cut_list(items, shown):
    """The first `shown` items, and how many more there are."""
    return items[:shown], max(0, len(items) - shown)


def more(count, what=""):
    return (" and %d more %s" % (count, what)).rstrip() if count else ""


def jobset_lines(moves, jobsets, label):
    by_index = {move["index"]: move for move in moves}
    lines = []
    shown, hidden = cut_list(jobsets, LINES_SHOWN)
    for number, jobset in enumerate(shown, start=1):
        listed, rest = cut_list([by_index[i] for i in jobset], MOVES_SHOWN)
        lines.append("  %s %d (%d move%s): %s%s" % (
            label, number, len(jobset), "" if len(jobset) == 1 else "s",
            "; ".join(move_text(m) for m in listed), more(rest)))
    if hidden:
        lines.append("  ... and %d more %ss" % (hidden, label))
    return lines


def warning_lines(warnings):
    shown, hidden = cut_list(list(warnings), 3)
    return ["warning: " + w for w in shown] + (
        ["... and %d more warnings" % hidden] if hidden else [])


def name_list(names, shown=NODES_SHOWN):
    listed, rest = cut_list(list(names), shown)
    return ", ".join(listed) + more(rest) if listed else "none"


def count_of(number, word):
    return "%d %s%s" % (number, word, "" if number == 1 else "s")
