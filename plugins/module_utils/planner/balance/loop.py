# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hbal's balancing loop: one best move per step until a stop rule.

Each step tries every move of every victim on the current state and applies
the best one, if it lowers the score (and, once the score is at or below
min_gain_limit, by at least min_gain).  The loop stops at max_length steps or
when the score is within min_score of the N+1 optimum.

The search for the best move of a step is delegated to a strategy:
`search_exhaustive` tries every candidate with the scalar model (hbal's own
method, slow, kept as the reference), `bulk_search.search_bulk` scores all
candidates at once with numpy and confirms the best ones exactly.  Both record
what they did in the state's SearchStats, which the result carries.
"""

from __future__ import annotations

import time

from ...model.vocabulary import MIRROR_INTERNAL, NO_NODE
from ..moves import FAILOVER, FAILOVER_TO_ANY, apply_move, possible_moves
from ...numfmt import hs_fixed, hs_g6
from ..metrics import cluster_score, optimal_score
from .budgets import Budgets
from .cost_search import cost_aware_step, data_copied
from .steps import step_of


class Candidate:
    """A tried move: its enumeration rank decides ties, as in hbal."""

    __slots__ = ("rank", "inst", "move", "target", "score", "result")

    def __init__(self, rank, inst, move, target, score, result):
        self.rank = rank
        self.inst = inst
        self.move = move
        self.target = target
        self.score = score
        self.result = result


class SearchStats:
    """What the move searches of one balancing run did (counts, all deterministic).

    searches      move searches run: one per step, one more that ends the loop
                  unless a limit stops it first, the migration-only searches
                  of avoid_disk_moves, and with budgets one without limits
                  after the last, that tells which budget bound the plan
    bulk_scored   feasible candidate moves scored approximately in bulk (numpy)
    exact_scored  candidate moves scored exactly with the scalar model: every
                  candidate of the reference search; in the bulk search the
                  near-best re-scores and the moves of instances it leaves to
                  the scalar model
    fallbacks     bulk searches that accepted a move the scalar model rejects
                  and were redone by the reference search (expected: 0)
    """

    FIELDS = ("searches", "bulk_scored", "exact_scored", "fallbacks")
    __slots__ = FIELDS

    def __init__(self):
        for name in self.FIELDS:
            setattr(self, name, 0)

    def as_dict(self):
        return {name: getattr(self, name) for name in self.FIELDS}

    def __repr__(self):
        return "SearchStats(%s)" % ", ".join("%s=%d" % kv for kv in self.as_dict().items())


class BalanceState:
    """The cluster as the loop sees it: the group's nodes, instances, current score."""

    def __init__(self, data, selection):
        self.data = data
        self.nodes = data.nodes                  # replaced entry by entry as moves apply
        self.instances = data.instances
        self.group_nodes = [n.idx for n in selection.nodes]
        self.group_insts = [i.idx for i in selection.instances]
        self.score = cluster_score(self.group_node_objs())
        self.stats = SearchStats()               # the searches add to it
        # What a search keeps between steps, by name; each has forget(node
        # indices), called with the nodes a step changes.
        self.caches = {}

    def group_node_objs(self):
        return [self.nodes[i] for i in self.group_nodes]

    def online(self):
        return [i for i in self.group_nodes if not self.nodes[i].offline]

    def apply(self, cand):
        changed, moved, _p, _s = cand.result
        for idx, node in changed.items():
            self.nodes[idx] = node
        for cache in self.caches.values():
            cache.forget(changed)
        self.instances[moved.idx] = moved
        self.score = cand.score


def victims(state, opts):
    """Instances that may move this step, ascending index.

    Movable instances with auto-balance on; in evacuation mode only those with
    a node (primary or secondary) that is offline.
    """
    nodes = state.nodes
    offline = {i for i in state.group_nodes if nodes[i].offline}
    result = []
    for idx in state.group_insts:
        inst = state.instances[idx]
        if opts.evac_mode and not any(n in offline for n in inst.all_nodes()):
            continue
        if opts.victim_disk_limit is not None and (
                inst.dsk > opts.victim_disk_limit or idx in opts.disks_copied):
            continue        # the cost-aware search's size-limited rounds: each disk once
        if inst.movable and inst.auto_balance:
            result.append(inst)
    return result


def instance_moves(state, inst, online, opts):
    """Yield (move, target) in hbal's enumeration order for one instance."""
    online_set = set(online)
    use_sec = inst.snode in online_set and opts.inst_moves
    if inst.mirror == MIRROR_INTERNAL and use_sec:
        yield FAILOVER, NO_NODE
    drained = state.nodes[inst.pnode].offline
    moves = possible_moves(inst.mirror, use_sec, opts.inst_moves, opts.disk_moves,
                           opts.restricted_migration, drained)
    if not moves:
        return
    for target in online:
        if target in (inst.pnode, inst.snode):
            continue
        for move in moves:
            yield move, target


def score_with(state, changed):
    nodes = [changed.get(i, state.nodes[i]) for i in state.group_nodes]
    return cluster_score(nodes)


MIGRATIONS = (FAILOVER, FAILOVER_TO_ANY)


def search_exhaustive(state, opts, migrations_only=False):
    """Best candidate by trying every move with the scalar model (reference)."""
    online = state.online()
    best = None
    rank = 0
    for inst in victims(state, opts):
        for move, target in instance_moves(state, inst, online, opts):
            rank += 1
            if migrations_only and move not in MIGRATIONS:
                continue
            result = apply_move(state.nodes, inst, move, target, opts.force)
            if isinstance(result, str):
                continue
            score = score_with(state, result[0])
            state.stats.exact_scored += 1
            if (best.score if best else state.score) > score:
                best = Candidate(rank, inst.idx, move, target, score, result)
    return best


def _avoid_disk_moves(state, opts, search, best):
    """Prefer the best migration unless disk moves gain FACTOR times more."""
    migr = None
    if opts.inst_moves:
        state.stats.searches += 1
        migr = search(state, opts, migrations_only=True)
    migr_score = migr.score if migr is not None else state.score
    if state.score - best.score <= (state.score - migr_score) * opts.avoid_disk_moves:
        return migr
    return best


class BalanceResult:
    """The outcome of `balance`; `search_stats` (SearchStats) says how it was searched."""

    def __init__(self, initial_score, optimal, steps, stop_reason, well_balanced,
                 search_stats, step_seconds=(), budget_bound=()):
        self.initial_score = initial_score
        self.optimal_score = optimal
        self.steps = steps
        self.stop_reason = stop_reason
        self.well_balanced = well_balanced
        self.search_stats = search_stats
        # Wall seconds of each search round (one per step, plus the round that
        # found nothing better): timing, so kept out of the deterministic stats.
        self.step_seconds = list(step_seconds)
        # The budgets (option names) whose limit stopped the plan.
        self.budget_bound = list(budget_bound)


def _next_move(state, opts, search, budgets):
    """The move the step's search takes: hbal's, or the cost-aware one within
    the budgets; then avoid_disk_moves' choice, if it fits them."""
    if opts.cost_guided:
        best = cost_aware_step(state, opts, search, victims, budgets)
    else:
        best = search(state, opts)
    if opts.avoid_disk_moves is not None and opts.disk_moves and best is not None:
        best = _avoid_disk_moves(state, opts, search, best)
        if best is not None and not budgets.fits(state, best):
            best = None
    return best


def _improves(state, opts, best):
    """Whether hbal takes `best`: it lowers the score, by min_gain once the
    score is at or below min_gain_limit."""
    if best is None or not best.score < state.score:
        return False
    return state.score > opts.min_gain_limit or state.score - best.score >= opts.min_gain


def _budgets_bound(state, opts, search, budgets):
    """The budgets (option names) that stopped the plan: those the move the
    search would take next, without limits, overruns."""
    state.stats.searches += 1
    free = _next_move(state, opts, search, budgets.unlimited())
    return budgets.overruns(state, free) if _improves(state, opts, free) else []


def balance(data, selection, opts, search=search_exhaustive, on_step=None):
    """Run hbal's loop on the selected group; `data` is updated in place."""
    state = BalanceState(data, selection)
    initial = state.score
    optimal = optimal_score(selection.nodes)
    if initial - optimal < opts.min_score:
        reason = ("Cluster is already well balanced (initial score %s,\noptimum score due to "
                  "N+1 reservations %s,\nminimum score %s).\nNothing to do, exiting"
                  % (hs_g6(initial), hs_g6(optimal), hs_g6(opts.min_score)))
        return BalanceResult(initial, optimal, [], reason, True, state.stats)
    steps = []
    seconds = []
    budgets = Budgets(opts)
    bound = []
    while ((opts.max_length < 0 or len(steps) < opts.max_length)
           and state.score > optimal + opts.min_score):
        state.stats.searches += 1
        started = time.perf_counter()
        best = _next_move(state, opts, search, budgets)
        seconds.append(round(time.perf_counter() - started, 6))
        if not _improves(state, opts, best):
            if best is None and budgets.limited:
                bound = _budgets_bound(state, opts, search, budgets)
            break
        step = step_of(state.instances, best)
        budgets.spend(state, best)
        if data_copied(state, best):
            opts.disks_copied.add(best.inst)
        state.apply(best)
        steps.append(step)
        if on_step is not None:
            on_step(step, state)
    if steps:
        reason = "Cluster score improved from %s to %s" % (hs_fixed(initial, 8),
                                                           hs_fixed(state.score, 8))
        if budgets.limited:
            reason += " (%s)" % budgets.spent_text()
    else:
        reason = "No solution found"
    if bound:
        reason += "; bound by %s: the next move would overrun %s" % (
            " and ".join(bound), "them" if len(bound) > 1 else "it")
    return BalanceResult(initial, optimal, steps, reason, False, state.stats, seconds,
                         bound)
