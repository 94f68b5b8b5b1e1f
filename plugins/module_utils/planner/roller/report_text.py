# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Order the reboot groups and print them as `hroller --print-moves` does."""

from __future__ import annotations

HEADER = "'Node Reboot Groups'"
HEADER_ONE_STEP = "'First Reboot Group'"


def order_groups(groups, is_master):
    """Largest first (stable), then the groups holding a master last, masters last inside.

    `groups` are (members, payload) pairs; returns them reordered the same way.
    """
    by_size = sorted(groups, key=lambda g: -len(g[0]))
    plain, with_master = [], []
    for members, payload in by_size:
        masters = [n for n in members if is_master(n)]
        others = [n for n in members if not is_master(n)]
        (with_master if masters else plain).append((others + masters, payload))
    return plain + with_master


def printed_moves(data, state):
    """The `--print-moves` lines of one group: every instance whose primary (or DRBD
    secondary) differs from the loaded cluster, except a plain primary/secondary swap.
    Names come from the group's final node slots, as hroller prints them."""
    lines = []
    for idx in sorted(state.changed_instances()):
        before, after = data.instances[idx], state.inst(idx)
        drbd = before.template == "drbd"
        if after.pnode == before.pnode and not (drbd and after.snode != before.snode):
            continue
        if after.pnode == before.snode and after.snode == before.pnode:
            continue
        if drbd:
            lines.append("  %s %s %s" % (after.name, state.node(after.pnode).name,
                                         state.node(after.snode).name))
        else:
            lines.append("  %s %s" % (after.name, state.node(after.pnode).name))
    return lines


def report_lines(groups, one_step_only):
    """stdout of hroller --print-moves; `groups` are (node names, move lines), ordered."""
    if one_step_only:
        lines = [HEADER_ONE_STEP]
        if groups:
            names, moves = groups[0]
            lines += list(names) + moves
        return lines
    lines = [HEADER]
    for names, moves in groups:
        lines.append(",".join(names))
        lines += moves
    return lines
