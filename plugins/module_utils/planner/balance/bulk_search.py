# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bulk search for the best move of a balancing step.

hbal scores every candidate move by recomputing the whole cluster score.
Here every candidate of a step is scored at once with numpy:

1. Node states after a move are computed for all (instance, target) pairs
   with array arithmetic that mirrors the scalar add/remove rules, including
   every placement check, so feasibility is decided exactly.
2. The score uses incremental statistics: per metric, sums of values and of
   squared deviations over online nodes, corrected by the two or three nodes
   a move touches (O(1) per candidate).
3. Those scores are approximate in the last bits, and hbal's choice depends on
   exact ties, so every candidate within a small tolerance of the best is
   re-scored exactly and the earliest in hbal's enumeration order among the
   exact minima wins.  Exact scores come from the rows the touched nodes end
   with (move_rows: each distinct node transition runs once, with the scalar
   Node methods) and sums in node order over many candidates at once
   (sparse_folds); candidates with the same signature are scored once.

Instances with rare features (forthcoming, exclusion or desired-location
tags, exclusive storage in the group) are tried with the scalar model and
scored exactly; they join the same final comparison.
"""

from __future__ import annotations

import copy

from ...deps import numpy as np

from ...errors import HtoolsError
from ..metrics import FREE_DISK, FREE_DISK_FORTH, LOAD_METRICS, metric_position
from ..moves import FAILOVER, apply_move, possible_moves
from .bulk_approx import MOVE_CODES, _Pools, _Stats, _bulk_block
from .bulk_arrays import (ABS_TOL, BLOCK, EXACT_PICKS, REL_TOL, SCALAR_PICKS, _Insts, _Nodes,
                          _Tags, _encode_rank)
from .bulk_exact import ExactScorer, _is_regular
from .loop import MIGRATIONS, Candidate, instance_moves, search_exhaustive, victims
from .move_rows import MoveRows, instance_profile
from .sparse_folds import unique_rows
from .unit_groups import MIXED, NO_UNITS, unit_layout, unit_score_parts, victim_unit


def search_bulk(state, opts, migrations_only=False):
    """The step's best candidate, identical to `loop.search_exhaustive`."""
    key_of = _migration_key if migrations_only else _any_key
    try:
        return search_bulk_by_key(state, opts, victims(state, opts), _one_class, key_of).get(0)
    except BulkFallback:
        return search_exhaustive(state, opts, migrations_only)


def bests_by_key(state, opts, cand_victims, victim_class, key_of):
    """`search_bulk_by_key`, or None when only the reference search can decide
    this step."""
    try:
        return search_bulk_by_key(state, opts, cand_victims, victim_class, key_of)
    except BulkFallback:
        return None


# How the cost-aware search (cost_search.py) finds the bests of several
# kinds of candidate in one pass.
search_bulk.bests_by_key = bests_by_key


def _one_class(_inst):
    return 0


def _any_key(_cls, _move):
    return 0


def _migration_key(_cls, move):
    return 0 if move in MIGRATIONS else None


class BulkFallback(Exception):
    """The bulk search cannot decide this step: the reference search must."""


def search_bulk_by_key(state, opts, cand_victims, victim_class, key_of):
    """The best candidate of each kind of candidate wanted, as `search_exhaustive`
    would find it among those candidates alone: {key: Candidate or None}.

    `victim_class(inst)` is an int class of the victim's candidates and
    `key_of(class, move)` the kind of a candidate, None when not wanted.
    Raises BulkFallback when the bulk rules cannot follow the group.
    """
    if np is None:
        raise HtoolsError("the numpy Python package is required for balancing")
    group = state.group_node_objs()
    online = state.online()
    if not cand_victims or not online:
        return {}
    layout = unit_layout(group)
    if layout == MIXED:
        # units the bulk rules cannot follow: only the scalar model scores them
        raise BulkFallback()
    scorer = ExactScorer(group)
    nd = _Nodes(group)
    classes = [victim_class(inst) for inst in cand_victims]
    pools = _Pools(4 * ABS_TOL, np.array(classes, dtype=np.int64), key_of)
    searches = _split_victims(state, opts, scorer, nd, layout, cand_victims, pools)
    if searches:
        pools.band = 4 * max(stats.error_bound for _nd, stats, _ins, _pos in searches)
        _score_in_bulk(searches, nd, group, online, opts, pools)
    try:
        return {key: _choose(state, opts, scorer, nd, pools.by_key.get(key),
                             pools.exact.get(key, ()), pools.band / 2)
                for key in set(pools.by_key) | set(pools.exact)}
    except _Disagreement:
        # Never expected (tests assert none); the reference search is always right.
        state.stats.fallbacks += 1
        raise BulkFallback() from None
    finally:
        state.stats.bulk_scored += pools.scored
        state.stats.exact_scored += scorer.scored


def _split_victims(state, opts, scorer, nd, layout, cand_victims, pools):
    """The bulk searches of the regular victims, one per storage unit their
    disks take; the others are tried with the scalar model (`pools.exact`)."""
    group = nd.objs
    finite = bool(np.isfinite(scorer.base[scorer.online]).all())
    excl_in_group = any(n.excl_storage for n in group)
    online = state.online()
    online_rank = {idx: r for r, idx in enumerate(online)}
    by_unit, charge = {}, {}
    for vpos, inst in enumerate(cand_victims):
        uid = None
        if layout != NO_UNITS:
            taken = victim_unit(inst, group[0])
            if taken is not None:
                uid = taken[0] or layout[0]
                charge[inst.idx] = (taken[0] is not None, taken[1])
        if finite and _is_regular(inst, nd.pos, excl_in_group) and (
                layout == NO_UNITS or inst.idx in charge):
            members = by_unit.setdefault(uid, ([], [], []))
            members[0].append(inst)
            members[1].append(vpos)
            members[2].append(int(pools.class_of[vpos]))
        else:
            _scalar_instance(state, inst, vpos, online, online_rank, opts, scorer, pools)
    return [_unit_search(scorer, nd, layout, uid, members, charge)
            for uid, members in by_unit.items()]


def _score_in_bulk(searches, nd, group, online, opts, pools):
    """Score the regular victims' moves block by block into `pools`."""
    targets = np.array([nd.pos[t] for t in online], dtype=np.int64)
    node_idx = np.array([n.idx for n in group], dtype=np.int64)
    per_block = max(1, BLOCK // max(1, targets.size))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for nd_u, stats, all_ins, regular_pos in searches:
            for start in range(0, len(regular_pos), per_block):
                rows = list(range(start, min(len(regular_pos), start + per_block)))
                _bulk_block(nd_u, stats, all_ins.take(rows), [regular_pos[r] for r in rows],
                            targets, node_idx, opts, pools)


def _unit_search(scorer, nd, layout, uid, members, charge):
    """(nodes, stats, victims, their positions) of the bulk search of the
    victims whose disks take storage unit `uid` (None: no units at all);
    `members` are the victims, their positions and their classes."""
    group = nd.objs
    base, scale, fixed = scorer.base, 1.0, 0.0
    if uid is not None:
        nd = copy.copy(nd)
        nd.use_storage_unit(uid)
        (now, forth), scale, fixed = unit_score_parts(group, layout, uid)
        base = base.copy()
        base[:, FREE_DISK] = now
        base[:, FREE_DISK_FORTH] = forth
    regular, regular_pos = _first_of_each_kind(*members, nd.pos)
    tagged = any(i.excl_tags for i in regular)
    if tagged:
        nd.tags = _Tags(group, regular, scorer.online)
    stats = _Stats(base, scorer.online, scorer.map_stat([]),
                   _identical_metrics(nd, scorer.online, regular), tagged, scale, fixed)
    all_ins = _Insts(regular, nd.pos, charge if uid is not None else None)
    if tagged:
        all_ins.inc = nd.tags.inc
    return nd, stats, all_ins, regular_pos


def _first_of_each_kind(regular, regular_pos, classes, group_pos):
    """Only the first victim of each kind: same nodes, same everything the
    node algebra reads, same class.  Any move of a later one leaves every node
    exactly as the same move of the first does, so it scores the same to the
    last bit and loses the tie to the earlier victim (hbal's order)."""
    seen = set()
    kept, kept_pos = [], []
    for inst, vpos, cls in zip(regular, regular_pos, classes):
        kind = (group_pos[inst.pnode], group_pos.get(inst.snode, -1), inst.location_score,
                instance_profile(inst), cls)
        if kind not in seen:
            seen.add(kind)
            kept.append(inst)
            kept_pos.append(vpos)
    return kept, kept_pos


def _identical_metrics(nd, online, regular):
    """Metrics whose approximate value equals another's for every candidate."""
    same = {}

    def equal(a, b):
        return bool(np.array_equal(a[online], b[online]))

    def follows(name, rep):
        same[metric_position(name)] = metric_position(rep)

    utils = np.array([i.util for i in regular]).reshape(-1, 4)
    cpu = LOAD_METRICS.index("cpu_load_cv")
    # Mem and net load follow cpu load when the data agree; disk load never
    # does, since secondaries carry it too.
    for name in ("mem_load_cv", "net_load_cv"):
        k = LOAD_METRICS.index(name)
        if equal(nd.load[:, cpu], nd.load[:, k]) and np.array_equal(utils[:, cpu], utils[:, k]):
            follows(name, "cpu_load_cv")
    if equal(nd.u_cpu_forth, nd.u_cpu):
        follows("vcpu_ratio_cv_forth", "vcpu_ratio_cv")
    if equal(nd.isp_forth, nd.isp):
        follows("spindles_cv_forth", "spindles_cv")
    if equal(nd.f_dsk_forth, nd.f_dsk):
        follows("free_disk_cv_forth", "free_disk_cv")
    if equal(nd.f_mem_forth, nd.base_free - nd.i_mem) and all(i.uses_memory for i in regular):
        follows("free_mem_cv_forth", "free_mem_cv")
    return same


def _scalar_instance(state, inst, vpos, online, online_rank, opts, scorer, pools):
    """Try every wanted move of one instance with the scalar model and score it
    exactly, into `pools.exact`."""
    cls = int(pools.class_of[vpos])
    use_sec = inst.snode in online_rank and opts.inst_moves
    moves = possible_moves(inst.mirror, use_sec, opts.inst_moves, opts.disk_moves,
                           opts.restricted_migration, state.nodes[inst.pnode].offline)
    tried = []
    for move, target in instance_moves(state, inst, online, opts):
        pool_key = pools.key_of(cls, move)
        if pool_key is None:
            continue
        result = apply_move(state.nodes, inst, move, target, opts.force)
        if isinstance(result, str):
            continue
        if move == FAILOVER:
            rank = _encode_rank(vpos, 0, 0, len(online))
        else:
            rank = _encode_rank(vpos, online_rank[target] + 1, moves.index(move), len(online))
        tried.append((pool_key, rank, (inst.idx, move, target), result))
    scores = scorer.scores([t[3][0] for t in tried])
    for (pool_key, rank, key, result), score in zip(tried, scores):
        pools.exact.setdefault(pool_key, []).append((score, rank, key, result))


class _Disagreement(Exception):
    """The bulk evaluation accepted a move the scalar model rejects."""


def _choose(state, opts, scorer, nd, pool, exact_pool, tolerance):
    """Exact decision among the approximately best candidates.

    Every candidate whose approximate score could hide an exact score at or
    below the best exact score found is re-scored exactly.
    """
    best = None                                   # (score, rank, key, result or None)
    rows = state.caches.get("move_rows")
    if rows is None:
        # Kept between steps: a step changes two or three nodes, and the
        # transitions of the others stay valid (MoveRows.forget).
        rows = state.caches["move_rows"] = MoveRows(state.nodes, state.group_nodes, opts.force)
    for entry in exact_pool:
        best = _pick(best, entry)
    arrays = None if pool is None else pool.arrays()
    if arrays is not None:
        approx, rank, inst, move, target = arrays
        order = np.argsort(approx, kind="stable")
        sorted_approx = approx[order]
        done = 0
        bound = sorted_approx[0]
        if best is not None and best[0] < bound:
            bound = best[0]
        while True:
            limit = bound + tolerance + REL_TOL * abs(bound)
            upto = int(np.searchsorted(sorted_approx, limit, side="right"))
            picks = order[done:upto]
            done = max(done, upto)
            if len(picks) <= SCALAR_PICKS or scorer.unit_nodes is not None:
                best = _best_of_few(state, opts, scorer, [part[picks] for part in
                                                          (rank, inst, move, target)], best)
                picks = picks[:0]
            # Each pick is named by the rows it gives the nodes it touches;
            # picks with the same rows score alike and are scored once.
            for start in range(0, len(picks), EXACT_PICKS):
                best = _best_of_picks(state, opts, scorer, rows, nd,
                                      [part[picks[start:start + EXACT_PICKS]]
                                       for part in (rank, inst, move, target)], best)
            if best is None or best[0] <= bound or done >= len(order):
                break
            bound = best[0]
    if best is None or not best[0] < state.score:
        return None
    score, rk, key, result = best
    if result is None:
        result = apply_move(state.nodes, state.instances[key[0]], key[1], key[2], opts.force)
        if isinstance(result, str):
            raise _Disagreement("%r: %s" % (key, result))
    return Candidate(rk, key[0], key[1], key[2], score, result)


def _best_of_few(state, opts, scorer, picks, best):
    """The best of `best` and a few picks, each tried with apply_move."""
    tried = []
    for rk, i, m, t in zip(*(part.tolist() for part in picks)):
        key = (i, MOVE_CODES[m], t)
        result = apply_move(state.nodes, state.instances[i], key[1], t, opts.force)
        if isinstance(result, str):
            raise _Disagreement("%r: %s" % (key, result))
        tried.append((rk, key, result))
    scores = scorer.scores([entry[2][0] for entry in tried])
    for (rk, key, result), score in zip(tried, scores):
        best = _pick(best, (score, rk, key, result))
    return best


def _best_of_picks(state, opts, scorer, rows, nd, picks, best):
    """The best of `best` and the picks (rank, inst, move, target arrays), exactly.

    Picks that change the same nodes into the same rows (MoveRows) have the
    same score: each distinct signature is scored once.
    """
    rank, inst, move, target = picks
    positions, row_ids, failed = rows.signatures(nd, state.instances, inst, move, target)
    for j, fail in enumerate(failed):
        if fail:
            key = (int(inst[j]), MOVE_CODES[move[j]], int(target[j]))
            raise _Disagreement("%r: %s" % (key, fail))
    first, inverse = unique_rows(np.concatenate([positions, row_ids], axis=1))
    scores = scorer.score_signatures(positions[first], row_ids[first], rows.rows,
                                     rows.map_deltas)
    pick_scores = scores[inverse]
    valid = ~np.isnan(pick_scores)
    if not valid.any():
        return best
    cand = np.nonzero(valid)[0]
    j = cand[np.lexsort((rank[cand], pick_scores[cand]))[0]]
    key = (int(inst[j]), MOVE_CODES[move[j]], int(target[j]))
    return _pick(best, (float(pick_scores[j]), int(rank[j]), key, None))


def _pick(best, entry):
    """hbal's choice: the lower score; on equal scores the earlier candidate; NaN never."""
    if entry[0] != entry[0]:
        return best
    if best is None or entry[0] < best[0] or (entry[0] == best[0] and entry[1] < best[1]):
        return entry
    return best
