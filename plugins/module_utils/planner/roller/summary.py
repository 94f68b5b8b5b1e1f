# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The summary of a rolling-reboot plan: its waves, their nodes and moves."""

from __future__ import annotations

from ...plan.lines import (LINES_SHOWN, NODES_SHOWN, cut_list, domain_suffix, more, shorten,
                           warning_lines)


def reboot_summary(report):
    """ganeti_rolling_reboot: the waves, their nodes and moves, warnings."""
    waves = report["waves"]
    nodes = sum(len(w["nodes"]) for w in waves)
    lines = ["%d node%s in %d wave%s (reboot groups), %d instance move%s" % (
        nodes, "" if nodes == 1 else "s", len(waves), "" if len(waves) == 1 else "s",
        len(report["moves"]), "" if len(report["moves"]) == 1 else "s")]
    suffix = domain_suffix([n for w in waves for n in w["nodes"]])
    shown, hidden = cut_list(waves, LINES_SHOWN)
    for wave in shown:
        names, rest = cut_list(wave["nodes"], NODES_SHOWN)
        count = len(wave["moves"])
        lines.append(shorten("  wave %d: %s%s%s%s" % (
            wave["wave"], ", ".join(names), more(rest, "nodes"),
            " (the master)" if wave["has_master"] else "",
            "; %d move%s" % (count, "" if count == 1 else "s") if count else "")
            + _down_phrase(wave.get("down")), suffix))
    if hidden:
        lines.append("  ... and %d more waves" % hidden)
    return "\n".join(lines + warning_lines(report.get("warnings", ())))


def _down_phrase(down):
    """A wave line's end when the cluster would not hold while the wave is down."""
    if not down or down.get("fits", True):
        return ""
    parts = [("over capacity: " + ", ".join(down["over_capacity"])) if down.get("over_capacity")
             else "", ("N+1 fails: " + ", ".join(down["n1_failing"])) if down.get("n1_failing")
             else ""]
    return "; does not fit while down (%s)" % "; ".join(p for p in parts if p)
