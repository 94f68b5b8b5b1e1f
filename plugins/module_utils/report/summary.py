# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Short human-readable plans: what an operator reads before approving one.

A few lines, whatever the plan's size: the score before and after, the moves
jobset by jobset (or the waves), the warnings.  Long lists are cut with a
count of what is left out; the full data stays in the other result fields.
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


def _short(text, suffix):
    return text.replace(suffix, "") if suffix else text


def move_text(move):
    """'db01: new secondary node7, then migrate to node7' (report/move_words.py)."""
    return "%s: %s" % (move["instance"], move.get("description") or describe_move(move))


def _cut(items, shown):
    """The first `shown` items, and how many more there are."""
    return items[:shown], max(0, len(items) - shown)


def _more(count, what=""):
    return (" and %d more %s" % (count, what)).rstrip() if count else ""


def _jobset_lines(moves, jobsets, label):
    by_index = {move["index"]: move for move in moves}
    lines = []
    shown, hidden = _cut(jobsets, LINES_SHOWN)
    for number, jobset in enumerate(shown, start=1):
        listed, rest = _cut([by_index[i] for i in jobset], MOVES_SHOWN)
        lines.append("  %s %d (%d move%s): %s%s" % (
            label, number, len(jobset), "" if len(jobset) == 1 else "s",
            "; ".join(move_text(m) for m in listed), _more(rest)))
    if hidden:
        lines.append("  ... and %d more %ss" % (hidden, label))
    return lines


def _warning_lines(warnings):
    shown, hidden = _cut(list(warnings), 3)
    return ["warning: " + w for w in shown] + (
        ["... and %d more warnings" % hidden] if hidden else [])


def balance_summary(report):
    """ganeti_balance: score, moves per jobset, stop reason, warnings."""
    moves = report["moves"]
    suffix = domain_suffix([m[k] for m in moves for k in (
        "instance", "old_primary", "old_secondary", "new_primary", "new_secondary")])
    head = "group %s: score %.8f -> %.8f, %d move%s in %d jobset%s" % (
        report["group"], report["initial_score"], report["final_score"], len(moves),
        "" if len(moves) == 1 else "s", len(report["jobsets"]),
        "" if len(report["jobsets"]) == 1 else "s")
    lines = [head] + [_short(line, suffix)
                      for line in _jobset_lines(moves, report["jobsets"], "jobset")]
    if report.get("stop_reason"):
        lines.append(report["stop_reason"])
    if report.get("n1_failures"):
        lines.append(_short("N+1 failures before the plan: " + ", ".join(report["n1_failures"]),
                            suffix))
    return "\n".join(lines + _warning_lines(report.get("warnings", ())))


def _count(number, word):
    return "%d %s%s" % (number, word, "" if number == 1 else "s")


def _names(names, shown=NODES_SHOWN):
    listed, rest = _cut(list(names), shown)
    return ", ".join(listed) + _more(rest) if listed else "none"


def info_summary(info):
    """ganeti_cluster_info: score, N+1 failures, policy violations, groups, in a few lines."""
    groups = info["groups"]
    lines = ["group %s: score %.8f (lowest possible %.8f), %s, %s" % (
        info["group"], info["score"], info["optimal_score"], _count(len(info["nodes"]), "node"),
        _count(len(info["instances"]), "instance")),
        "N+1 failures: %s" % _names(info["n1_failures"]),
        "policy violations: %s" % _names("%s (%s)" % (v["node"], v["reason"])
                                         for v in info["policy_violations"])]
    if len(groups) > 1:
        lines.append("groups: %s" % _names("%s (%s, %s)" % (
            g["name"], _count(g["node_count"], "node"), _count(g["instance_count"], "instance"))
            for g in groups))
    return "\n".join(lines + _warning_lines(info.get("warnings", ())))


def reboot_summary(report):
    """ganeti_rolling_reboot: the waves, their nodes and moves, warnings."""
    waves = report["waves"]
    nodes = sum(len(w["nodes"]) for w in waves)
    lines = ["%d node%s in %d wave%s (reboot groups), %d instance move%s" % (
        nodes, "" if nodes == 1 else "s", len(waves), "" if len(waves) == 1 else "s",
        len(report["moves"]), "" if len(report["moves"]) == 1 else "s")]
    suffix = domain_suffix([n for w in waves for n in w["nodes"]])
    shown, hidden = _cut(waves, LINES_SHOWN)
    for wave in shown:
        names, rest = _cut(wave["nodes"], NODES_SHOWN)
        count = len(wave["moves"])
        lines.append(_short("  wave %d: %s%s%s%s" % (
            wave["wave"], ", ".join(names), _more(rest, "nodes"),
            " (the master)" if wave["has_master"] else "",
            "; %d move%s" % (count, "" if count == 1 else "s") if count else "")
            + _down_phrase(wave.get("down")), suffix))
    if hidden:
        lines.append("  ... and %d more waves" % hidden)
    return "\n".join(lines + _warning_lines(report.get("warnings", ())))


def _down_phrase(down):
    """A wave line's end when the cluster would not hold while the wave is down."""
    if not down or down.get("fits", True):
        return ""
    parts = [("over capacity: " + ", ".join(down["over_capacity"])) if down.get("over_capacity")
             else "", ("N+1 fails: " + ", ".join(down["n1_failing"])) if down.get("n1_failing")
             else ""]
    return "; does not fit while down (%s)" % "; ".join(p for p in parts if p)
