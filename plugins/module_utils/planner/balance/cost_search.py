# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A balance that spends disk copies where they buy the most score.

hbal takes, at every step, the move with the lowest score, whatever it
copies.  With `cost_aware` (or a `max_data_moved` budget) a step takes the
move with the most score gained per GiB of disk data copied instead; with a
`max_estimated_duration` budget, per second it adds to the plan's estimated
duration (budgets.py prices the moves).

The candidates of a step are the best moves hbal's search finds among
instances whose disks are no larger than a few sizes (the smallest, the
quartiles and the largest disk size of the step's instances), and the best
move that copies nothing (a migration or failover).  Each is rated
gain / (GiB copied + 1 GiB): the 1 GiB stands for what any move costs (a
migration's pause, a job), so a move that copies nothing is not infinitely
cheap.  A move that would overrun a budget is not taken, and an
instance's disks are copied once at most: hbal's plans copy some instances
twice (a later move undoes part of an earlier one), each copy paid in full.

The searches per limit are nested (a victim within one limit is within every
larger one), so the bulk search finds all their bests in one pass
(`candidates_in_one_pass`); a search without that runs them one by one
(`candidates_by_searches`, the reference: a unit test holds them equal).
"""

from __future__ import annotations

import bisect

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


def searched_limits(victim_list, opts, left_mib):
    """The disk limits the step searches at: none without disk moves, and none
    above the data left in the budget (`left_mib`, None: no budget)."""
    if not opts.disk_moves:
        return []
    return [limit for limit in disk_limits(i.dsk for i in victim_list)
            if left_mib is None or limit <= left_mib]


def cost_aware_step(state, opts, search, victims, budgets):
    """The step's move by gain per price, within the budgets (budgets.Budgets);
    None when no move lowers the score within them."""
    victim_list = victims(state, opts)
    limits = searched_limits(victim_list, opts, budgets.left_mib())
    candidates = None
    bests_by_key = getattr(search, "bests_by_key", None)
    if bests_by_key is not None:
        candidates = candidates_in_one_pass(state, opts, bests_by_key, victim_list, limits)
    if candidates is None:
        candidates = candidates_by_searches(state, opts, search, limits)
    return _best_rate(state, candidates, budgets)


def candidates_by_searches(state, opts, search, limits):
    """The step's candidates, one search each: the best migration, then the
    best move of the victims within each disk limit (the reference method)."""
    candidates = []
    free = search(state, opts, migrations_only=True) if opts.inst_moves else None
    if free is not None:
        candidates.append(free)
    for limit in limits:
        opts.victim_disk_limit = limit
        try:
            found = search(state, opts)
        finally:
            opts.victim_disk_limit = None
        if found is not None:
            candidates.append(found)
    return candidates


# The class of a victim whose disks this step may not copy (copied before, or
# larger than every searched limit): only its migrations are candidates.
FREE_ONLY = -1


def candidates_in_one_pass(state, opts, bests_by_key, victim_list, limits):
    """The candidates of `candidates_by_searches`, from one search.

    A victim's class is the first limit its disks fit in: the search of limit
    j sees the victims of classes 0..j, so its best is the lowest of their
    classes' bests (score, then hbal's order), and the best migration the
    lowest of every class's best migration.  None when `bests_by_key` cannot
    search this step."""
    def victim_class(inst):
        if inst.idx in opts.disks_copied:
            return FREE_ONLY
        band = bisect.bisect_left(limits, inst.dsk)
        return band if band < len(limits) else FREE_ONLY

    def key_of(cls, move):
        migration = move in (FAILOVER, FAILOVER_TO_ANY)
        if cls == FREE_ONLY:
            return (cls, True) if migration and opts.inst_moves else None
        return (cls, migration)

    bests = bests_by_key(state, opts, victim_list, victim_class, key_of)
    if bests is None:
        return None
    candidates = []
    if opts.inst_moves:
        candidates.append(_lowest(best for (_cls, migration), best in bests.items()
                                  if migration))
    for band in range(len(limits)):
        candidates.append(_lowest(best for (cls, _migration), best in bests.items()
                                  if 0 <= cls <= band))
    return [cand for cand in candidates if cand is not None]


def _lowest(candidates):
    """The lowest score; on equal scores the earliest in hbal's order."""
    best = None
    for cand in candidates:
        if cand is not None and (best is None or (cand.score, cand.rank) < (best.score, best.rank)):
            best = cand
    return best


def _best_rate(state, candidates, budgets):
    """The candidate with the most gain per price within the budgets (the first of equals)."""
    best = None
    for cand in candidates:
        gain = state.score - cand.score
        if gain <= 0:
            continue
        rate = budgets.rate(state, cand, gain)
        if rate is None:
            continue
        if best is None or rate > best[0]:
            best = (rate, cand)
    return None if best is None else best[1]
