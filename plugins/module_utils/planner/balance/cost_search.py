# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A balance that spends disk copies where they buy the most score.

hbal takes, at every step, the move with the lowest score, whatever it
copies.  With `cost_aware` (or a `max_data_moved` budget) a step takes the
move with the most score gained per GiB of disk data copied instead.

The candidates of a step are the best moves hbal's search finds among
instances whose disks are no larger than a few sizes (the smallest, the
quartiles and the largest disk size of the step's instances), and the best
move that copies nothing (a migration or failover).  Each is rated
gain / (GiB copied + 1 GiB): the 1 GiB stands for what any move costs (a
migration's pause, a job), so a move that copies nothing is not infinitely
cheap.  A move that would overrun the budget is not taken, and an
instance's disks are copied once at most: hbal's plans copy some instances
twice (a later move undoes part of an earlier one), each copy paid in full.
"""

from __future__ import annotations

from ..moves import FAILOVER, FAILOVER_TO_ANY

MOVE_OVERHEAD_MIB = 1024.0
SIZE_QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)


def copied_mib(move, inst):
    """MiB of disk data a move of `inst` copies: none for a failover or
    migration, its disks for every move with a replace-disks."""
    return 0 if move in (FAILOVER, FAILOVER_TO_ANY) else inst.dsk


def data_copied(state, cand):
    """MiB of disk data a candidate move copies."""
    return copied_mib(cand.move, state.instances[cand.inst])


def disk_limits(sizes):
    """The disk sizes the step's searches stop at (quantiles of `sizes`)."""
    ordered = sorted(set(sizes))
    if not ordered:
        return []
    return sorted({ordered[int(q * (len(ordered) - 1))] for q in SIZE_QUANTILES})


def cost_aware_step(state, opts, search, victims, left_mib):
    """The step's move by gain per GiB copied, within `left_mib` (None: no budget);
    None when no move lowers the score within it."""
    candidates = []
    free = search(state, opts, migrations_only=True) if opts.inst_moves else None
    if free is not None:
        candidates.append(free)
    if opts.disk_moves:
        for limit in disk_limits(i.dsk for i in victims(state, opts)):
            if left_mib is not None and limit > left_mib:
                break
            opts.victim_disk_limit = limit
            try:
                found = search(state, opts)
            finally:
                opts.victim_disk_limit = None
            if found is not None:
                candidates.append(found)
    best = None
    for cand in candidates:
        gain = state.score - cand.score
        copied = data_copied(state, cand)
        if gain <= 0 or (left_mib is not None and copied > left_mib):
            continue
        rate = gain / (copied + MOVE_OVERHEAD_MIB)
        if best is None or rate > best[0]:
            best = (rate, cand)
    return None if best is None else best[1]
