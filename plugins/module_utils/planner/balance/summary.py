# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The summary of a balance plan: the few lines an operator reads before approving it."""

from __future__ import annotations

from ...plan.cost import cost_line
from ...plan.lines import count_of, domain_suffix, jobset_lines, shorten, warning_lines


def _plan_lines(report, head, middle=()):
    """A plan's summary lines: `head` with its move and jobset counts, the cost
    line, the `middle` lines, the jobsets; and the names' common suffix."""
    moves = report["moves"]
    suffix = domain_suffix([m[k] for m in moves for k in (
        "instance", "old_primary", "old_secondary", "new_primary", "new_secondary")])
    lines = ["%s, %s in %s" % (head, count_of(len(moves), "move"),
                               count_of(len(report["jobsets"]), "jobset"))]
    if moves and report.get("cost"):
        lines.append("  " + cost_line(report["cost"]))
    lines += list(middle)
    lines += [shorten(line, suffix) for line in jobset_lines(moves, report["jobsets"], "jobset")]
    return lines, suffix


def balance_summary(report):
    """ganeti_balance: score, moves per jobset, stop reason, warnings."""
    lines, suffix = _plan_lines(report, "group %s: score %.8f -> %.8f" % (
        report["group"], report["initial_score"], report["final_score"]))
    if report.get("stop_reason"):
        lines.append(report["stop_reason"])
    if report.get("n1_failures"):
        lines.append(shorten("N+1 failures before the plan: "
                             + ", ".join(report["n1_failures"]), suffix))
    return "\n".join(lines + warning_lines(report.get("warnings", ())))


def all_groups_summary(report, group_summaries):
    """ganeti_balance with group: all: the sum of the groups' scores, each
    group's own head line, then the merged jobsets."""
    lines, _suffix = _plan_lines(
        report, "%s: scores summed %.8f -> %.8f" % (
            count_of(len(report["groups"]), "group"), report["initial_score"], report["final_score"]),
        ["  " + text.split("\n", 1)[0] for text in group_summaries])
    return "\n".join(lines + warning_lines(report.get("warnings", ())))
