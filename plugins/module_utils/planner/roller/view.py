# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the HTML report draws a rolling-reboot plan: wave by wave, and whether each fits."""

from __future__ import annotations

from ..base import PlanView

NOT_FITTING = "waves that do not fit while down"


class RebootView(PlanView):

    alert_facts = (NOT_FITTING,)

    def mark_states(self, result, states):
        waves = {"wave %d" % w["wave"]: w["nodes"] for w in result.get("waves") or ()}
        for state in states:
            state["rebooting"] = list(waves.get(state["state"], ()))

    def columns(self, result):
        return (("size", "Size"), ("note", "What happens"))

    def count_fact(self, result):
        return ("waves", len(result.get("waves") or ()))

    def extra_facts(self, result):
        waves = result.get("waves") or ()
        return [(NOT_FITTING, sum(1 for w in waves if isinstance(w.get("down"), dict)
                                  and not w["down"].get("fits")))]

    def move_groups(self, result, moves):
        """The waves in order, those without moves too."""
        groups = []
        for wave in result.get("waves") or ():
            listed = [m for m in moves if m.get("wave") == wave["wave"]]
            label = "wave %d: reboots %s%s" % (wave["wave"], ", ".join(wave["nodes"]),
                                               " (the master, last)" if wave["has_master"]
                                               else "")
            if wave.get("migrate_primaries"):
                label += "; DRBD primaries migrated off first"
            if not listed:
                label += "; no instance moves"
            label += _verdict(wave.get("down"))
            groups.append({"label": label, "moves": [_sized(m) for m in listed]})
        return groups

    def problems(self, result):
        """Each wave's shortages while its nodes are down, one line each."""
        return [p.get("text", "") for w in result.get("waves") or ()
                if isinstance(w.get("down"), dict) for p in w["down"].get("problems") or ()]


def _verdict(down):
    """How a wave's group label ends: whether the cluster holds while it is down."""
    if not isinstance(down, dict):
        return ""
    if down.get("fits"):
        return "; fits while down"
    return "; DOES NOT FIT while down (%s)" % "; ".join(
        "%s %s" % (what, ", ".join(down.get(key) or ()))
        for what, key in (("over capacity:", "over_capacity"), ("N+1 fails on", "n1_failing"))
        if down.get(key))


def _sized(move):
    """A move row with its instance's size as text."""
    if "memory_mib" not in move:
        return move
    return dict(move, size="%g GiB memory, %g GiB disk" % (
        round(move["memory_mib"] / 1024.0, 1), round((move.get("disk_mib") or 0) / 1024.0, 1)))
