# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The approximate score of every candidate move of a block at once: incremental
per-metric statistics corrected by the nodes a move touches, with an error bound.

A part of the bulk search (bulk_search.py).
"""

from __future__ import annotations

import math

from ...deps import numpy as np

from ...model.vocabulary import MIRROR_INTERNAL, NO_NODE
from ..metrics import FREE_DISK, FREE_DISK_FORTH, METRICS, ONLINE, STDDEV, SUM
from ..moves import (FAILOVER, FAILOVER_AND_REPLACE, FAILOVER_TO_ANY, MOVE_KINDS,
                     REPLACE_AND_FAILOVER, REPLACE_PRIMARY, REPLACE_SECONDARY, possible_moves)
from .bulk_arrays import (ABS_TOL, FIXED_FOR_REGULAR, N_METRICS, PTAG_POS, REL_TOL, _State,
                          _add_pri, _add_pri_parts, _add_sec, _encode_rank, _plus, _remove_pri,
                          _remove_sec, _values, _with_loc)


class _Stats:
    """Centred sums over online nodes, per metric, for incremental scoring.

    Standard-deviation metrics that are provably identical for every candidate
    of this step (same node values, same per-instance changes) are scored once
    with their weights added, which roughly halves the work.
    """

    def __init__(self, base, online, map_value, same_as, tagged=False, disk_scale=1.0,
                 fixed_extra=0.0):
        # disk_scale, fixed_extra: the search of one storage unit (unit_groups.py)
        self.n = float(online.sum())
        self.base = base                          # (G, N_METRICS) values
        on = base[online]
        off = base[~online]
        self.center = np.zeros(N_METRICS)
        self.s1 = np.zeros(N_METRICS)
        self.s2 = np.zeros(N_METRICS)
        fixed = fixed_extra
        self.std_groups = []                      # (metric, summed weight)
        self.online_sums = []                     # (metric, weight)
        self.offline_sums = []
        merged = {}
        for k, (name, weight, stat, which) in enumerate(METRICS):
            if k in (FREE_DISK, FREE_DISK_FORTH):
                weight = weight * disk_scale
            if stat == STDDEV:
                rep = same_as.get(k, k)
                if rep != k:
                    merged[rep] = merged.get(rep, 0.0) + weight
                    continue
                self.center[k] = on[:, k].mean()
                dev = on[:, k] - self.center[k]
                self.s1[k] = dev.sum()
                self.s2[k] = (dev * dev).sum()
                self.std_groups.append([k, weight])
            elif stat == SUM:
                fixed += weight * (on if which == ONLINE else off)[:, k].sum()
                if name in FIXED_FOR_REGULAR or (k == PTAG_POS and not tagged):
                    continue
                (self.online_sums if which == ONLINE else self.offline_sums).append((k, weight))
            else:
                fixed += weight * map_value
        for group in self.std_groups:
            group[1] += merged.get(group[0], 0.0)
        self.fixed = fixed
        # sqrt amplifies the rounding of a variance near zero to about
        # sqrt(eps * (mean square)) per standard deviation: bound it per metric.
        self.error_bound = ABS_TOL + sum(
            w * math.sqrt(1e-15 * (self.s2[k] / max(self.n, 1.0) + self.center[k] ** 2 + 1.0))
            for k, w in self.std_groups)
        self.needed_online = [k for k, _w in self.std_groups] + [k for k, _w in self.online_sums]
        self.needed_offline = [k for k, _w in self.offline_sums]


def _score(stats, roles, shape):
    """Approximate scores of candidates.

    roles: (old values, new values, online mask, all online, all offline) per
    node the move touches; a value is per candidate (C, 1), per target
    (1, T) or both (C, T): "wide".  This is the hot path of planning: every
    pass over a wide array counts, so the per-candidate parts are summed
    first and the arithmetic is arranged for as few wide passes as possible.
    """
    narrow, score = stats.fixed, None
    for k, weight in stats.online_sums:
        for old, new, online, all_on, all_off, _memo in roles:
            if not all_off:
                delta = _weighted(new[k] - old[k], weight)
                if not all_on:
                    delta = np.where(online, delta, 0.0)
                narrow, score = _add_by_width(narrow, score, delta)
    for k, weight in stats.offline_sums:
        for old, new, online, all_on, all_off, _memo in roles:
            if not all_on:
                delta = _weighted(new[k] - old[k], weight)
                if not all_off:
                    delta = np.where(online, 0.0, delta)
                narrow, score = _add_by_width(narrow, score, delta)
    by_weight = {}
    for k, weight in stats.std_groups:
        spread = _spread(stats, k, roles)
        np.abs(spread, out=spread)      # a rounding below zero, as max(0, .) would
        np.sqrt(spread, out=spread)
        total = by_weight.get(weight)
        if total is None or total.shape != spread.shape:
            by_weight[weight] = spread if total is None else total + spread
        else:
            total += spread
    # each entry is sqrt((n acc2 - acc1^2) / (n - 1)); the std is sqrt(n acc2 - acc1^2) / n
    scale = math.sqrt(max(stats.n - 1.0, 1.0)) / stats.n
    for weight, total in by_weight.items():
        total *= weight * scale
        narrow, score = _add_by_width(narrow, score, total)
    if score is None:                   # no wide part: a move without targets
        score = np.empty(shape)
        score[...] = narrow
        return score
    if score.shape != shape:
        score = np.broadcast_to(score, shape).copy()
    score += narrow
    return score


def _is_wide(value):
    return getattr(value, "ndim", 0) == 2 and value.shape[1] > 1


def _weighted(delta, weight):
    if weight != 1.0:
        delta *= weight
    return delta


def _add_by_width(narrow, wide, delta):
    """Per-candidate parts add up in `narrow`; wide ones in `wide`."""
    if _is_wide(delta):
        if wide is None:
            return narrow, delta
        if wide.shape[0] >= delta.shape[0]:
            wide += delta
            return narrow, wide
        return narrow, wide + delta
    return narrow + delta, wide


def _deltas(stats, k, old, new, online, all_on):
    """A role's change of the centred sum and of the sum of squares of metric k."""
    d1 = new - old
    d2 = new + old
    d2 -= 2.0 * stats.center[k]
    d2 *= d1
    if not all_on:
        d1 = np.where(online, d1, 0.0)
        d2 = np.where(online, d2, 0.0)
    return d1, d2


def _spread(stats, k, roles):
    """(n * acc2 - acc1^2) / (n - 1) of metric k for every candidate.

    acc1 and acc2 are the centred sum and sum of squares after the move.
    With one wide all-online role (u = new - old, b = old - centre) and the
    narrow sums s1, s2 of the others, acc1 = s1 + u, acc2 = s2 + u (u + 2 b),
    and the quantity is u (u + (2 n b - 2 s1) / (n - 1)) + (n s2 - s1^2) / (n - 1):
    five wide passes instead of the eight of summing both accumulators."""
    n = stats.n
    m = max(n - 1.0, 1.0)
    s1, s2, wide = stats.s1[k], stats.s2[k], []
    for role in roles:
        old, new, online, all_on, all_off, memo = role
        if all_off:
            continue
        deltas = memo.get(k)
        if deltas is None:
            if _is_wide(old[k]) or _is_wide(new[k]) or not all_on and _is_wide(online):
                wide.append(role)
                continue
            deltas = memo[k] = _deltas(stats, k, old[k], new[k], online, all_on)
        d1, d2 = deltas
        s1 = s1 + d1
        s2 = s2 + d2
    if len(wide) == 1 and wide[0][3]:
        old, new = wide[0][0][k], wide[0][1][k]
        u = new - old
        spread = u + (old - stats.center[k]) * (2.0 * n / m)
        if np.ndim(s1) and spread.shape[0] < s1.shape[0]:   # the change is per target only
            spread = spread - s1 * (2.0 / m)
        else:
            spread -= s1 * (2.0 / m)
        spread *= u
        spread += (n * s2 - s1 * s1) / m
        return spread
    for old, new, online, all_on, _all_off, _memo in wide:
        d1, d2 = _deltas(stats, k, old[k], new[k], online, all_on)
        s1 = s1 + d1
        s2 = s2 + d2
    spread = s2 * (n / m)
    spread -= s1 * s1 / m
    return spread


def _rows(base, g):
    """Current metric values of nodes at positions g as a list of columns."""
    return [base[g, k] for k in range(N_METRICS)]


# A move's code in the pool arrays: its position in the move table.
MOVE_CODES = MOVE_KINDS


class _Pool:
    """Bulk candidates near the best approximate score: score, hbal rank, identity.

    Candidates further than `band` above the best approximate score seen so
    far are dropped at once: they cannot be the exact best.
    """

    def __init__(self, band):
        self.chunks = []
        self.best = math.inf
        self.band = band

    def add(self, approx, rank, inst, move, target):
        if not approx.size:
            return
        low = approx.min()
        if low < self.best:
            self.best = low
        keep = approx <= self.best + self.band + REL_TOL * abs(self.best)
        if keep.any():
            self.chunks.append((approx[keep], rank[keep], inst[keep],
                                np.full(int(keep.sum()), MOVE_CODES.index(move)), target[keep]))

    def arrays(self):
        if not self.chunks:
            return None
        merged = [np.concatenate([c[k] for c in self.chunks]) for k in range(5)]
        if not merged[0].size:
            return None
        best = merged[0].min()
        keep = merged[0] <= best + self.band + REL_TOL * abs(best)
        return [part[keep] for part in merged]


class _Pools:
    """The pools of one bulk search: one per kind of candidate whose best is wanted.

    A candidate's kind is `key_of(its victim's class, its move)`, None for a
    candidate nobody wants; `class_of` gives the class of each victim
    position.  Each pool prunes by its own best only: a candidate of one kind
    never crowds out another kind's.
    """

    def __init__(self, band, class_of, key_of):
        self.band = band
        self.class_of = class_of         # victim position -> class (int array)
        self.key_of = key_of
        self.by_key = {}         # key -> _Pool of bulk-scored candidates
        self.exact = {}          # key -> [(score, rank, key, result)] of scalar-tried ones
        self.scored = 0          # feasible candidates scored (SearchStats.bulk_scored)

    def pool(self, key):
        found = self.by_key.get(key)
        if found is None:
            found = self.by_key[key] = _Pool(self.band)
        return found

    def wants(self, classes, move):
        """Whether a move of a victim of one of `classes` is wanted."""
        return any(self.key_of(c, move) is not None for c in classes)


def _role(old, new, online):
    """A node role of a move (see _score); the last item memoises its narrow
    deltas, as the roles of the removals serve every move of a block."""
    all_on = bool(online.all())
    return (old, new, online, all_on, (not all_on) and not online.any(), {})


def _tag_hits(nd, ins, targets, p, s_safe):
    """The exclusion-tag terms of a block: (hits on each target, hits on the
    secondary, map change with the target as primary, with the secondary as
    primary); Nones without tags.  Sets ins.rem_tags."""
    tags = nd.tags
    hits_t = hits_s = map_t = map_s = None
    if tags is None:
        return hits_t, hits_s, map_t, map_s
    inc = ins.inc
    hits_t = inc @ tags.present[targets].T
    hits_s = (inc * tags.present[s_safe[:, 0]]).sum(axis=1, keepdims=True)
    ins.rem_tags = (inc * (tags.count[p[:, 0]] >= 2)).sum(axis=1, keepdims=True)
    if tags.has_map:
        # Change of the map statistic when the primary moves from p to the
        # target (map_t) or to the secondary (map_s); exact small integers.
        rem = (inc * tags.rem2[p[:, 0]]).sum(axis=1, keepdims=True)
        # (location, tag) pairs p and the new primary share, counted once:
        # the removal from p empties them again.
        once = tags.member[p[:, 0]] * (inc @ tags.once)
        map_t = inc @ tags.add1[targets].T - once @ tags.member[targets].T - rem
        map_s = ((inc * tags.add1[s_safe[:, 0]]).sum(axis=1, keepdims=True)
                 - (once * tags.member[s_safe[:, 0]]).sum(axis=1, keepdims=True) - rem)
    return hits_t, hits_s, map_t, map_s


class _Emitter:
    """Adds a block's best candidates of one move kind to their pools, ranked in
    hbal's enumeration order."""

    def __init__(self, pools, moves_of, targets, node_idx, ins, vpos):
        self.pools = pools
        self.moves_of = moves_of
        self.targets = targets
        self.node_idx = node_idx
        self.count = len(ins.objs)
        self.n_t = targets.size
        self.inst_idx = np.array([i.idx for i in ins.objs], dtype=np.int64)
        self.vpos_arr = np.array(vpos, dtype=np.int64)
        row_class = pools.class_of[self.vpos_arr]
        self.classes = sorted(set(row_class.tolist()))
        # the rows of each class (None: all rows are of the one class)
        self.rows_of = {c: None if len(self.classes) == 1 else np.nonzero(row_class == c)[0]
                        for c in self.classes}

    def __call__(self, move, scores, fail):
        c, pools = self.count, self.pools
        keys = [(pools.key_of(cls, move), cls) for cls in self.classes]
        if all(key is None for key, _cls in keys):
            return
        if move == FAILOVER:
            m_pos = np.zeros((c, 1), dtype=np.int64)
        else:
            m_pos = np.array([ms.index(move) if move in ms else -1 for ms in self.moves_of],
                             dtype=np.int64).reshape(-1, 1)
        blocked = fail | (m_pos < 0)
        shape = blocked.shape if move != FAILOVER else (c, 1)
        if scores.shape != shape:
            scores = np.broadcast_to(scores, shape).copy()
        # scores is this block's own array: mark the infeasible in place
        np.copyto(scores, np.inf, where=blocked)
        pools.scored += int(blocked.size - np.count_nonzero(blocked))
        for key, cls in keys:
            if key is not None:
                self._add(pools.pool(key), move, scores, m_pos, self.rows_of[cls])

    def _add(self, pool, move, scores, m_pos, rows_of_class):
        """Add the candidates near the pool's best among the rows of one class."""
        if rows_of_class is not None:
            scores = scores[rows_of_class]
        low = scores.min() if scores.size else np.inf
        if not np.isfinite(low):
            return
        limit = min(low, pool.best) + pool.band + REL_TOL * abs(min(low, pool.best))
        rows, cols = np.nonzero(scores <= limit)
        approx = scores[rows, cols]
        if rows_of_class is not None:
            rows = rows_of_class[rows]
        if move == FAILOVER:
            col_rank = np.zeros(rows.size, dtype=np.int64)
            tgt = np.full(rows.size, NO_NODE, dtype=np.int64)
        else:
            col_rank = cols + 1
            tgt = self.node_idx[self.targets[cols]]
        rank = _encode_rank(self.vpos_arr[rows], col_rank, m_pos[rows, 0], self.n_t)
        pool.add(approx, rank, self.inst_idx[rows], move, tgt)


def _bulk_block(nd, stats, ins, vpos, targets, node_idx, opts, pools):
    """Score every wanted move of a block of regular victims; add the best ones
    to their pools (`_Pools`)."""
    c = len(ins.objs)
    tg = targets.reshape(1, -1)                     # (1, T)
    p = ins.p.reshape(-1, 1)
    s = ins.s.reshape(-1, 1)
    has_s = s >= 0
    s_safe = np.where(has_s, s, 0)
    p_off = nd.offline[p]
    s_off = np.where(has_s, nd.offline[s_safe], True)
    force = opts.force
    fp, fs = p_off | force, s_off | force
    online_p, online_s = ~p_off, ~s_off
    base = stats.base
    needed = stats.needed_online + stats.needed_offline
    old_p, old_s, old_t = _rows(base, p), _rows(base, s_safe), _rows(base, tg)
    st_p, st_s, st_t = _State.of(nd, p), _State.of(nd, s_safe), _State.of(nd, tg)
    valid_t = (tg != p) & (tg != s)                 # (C, T)
    shape = valid_t.shape
    internal = np.array([i.mirror == MIRROR_INTERNAL for i in ins.objs]).reshape(-1, 1)
    use_sec = internal & has_s & online_s & opts.inst_moves
    true_t = np.ones((1, targets.size), dtype=bool)

    def role_t(new):
        return _role(old_t, _values(nd, new, stats.needed_online), true_t)

    def role_p(new):
        return _role(old_p, _values(nd, new, needed), online_p)

    def role_s(new):
        return _role(old_s, _values(nd, new, needed), online_s)

    hits_t, hits_s, map_t, map_s = _tag_hits(nd, ins, targets, p, s_safe)
    int_p = _remove_pri(nd, st_p, ins)
    int_s = _remove_sec(nd, st_s, ins)
    moves_of = [possible_moves(i.mirror, bool(use_sec[r, 0]), opts.inst_moves, opts.disk_moves,
                               opts.restricted_migration, bool(p_off[r, 0]))
                for r, i in enumerate(ins.objs)]
    emit = _Emitter(pools, moves_of, targets, node_idx, ins, vpos)
    wanted = {m for m in {m for ms in moves_of for m in ms} if pools.wants(emit.classes, m)}

    # Failover (internal, use_sec)
    if use_sec.any() and pools.wants(emit.classes, FAILOVER):
        mig = nd.mig_ok[p, s_safe]
        new_s, f1 = _add_pri(nd, int_s, ins, fp, ins.ls, hits_s)
        new_p, f2 = _add_sec(nd, int_p, ins, nd.peers[p, s_safe], fp, ignore_disks=p_off)
        fail = ~use_sec | ~mig | f1 | f2
        emit(FAILOVER, _plus(_score(stats, [role_s(new_s), role_p(new_p)], (c, 1)), map_s),
             fail)

    # The target as new primary: shared by FailoverToAny, ReplaceAndFailover and
    # ReplacePrimary, which differ in the force flag and the location score only.
    pri_t = None
    if wanted & {FAILOVER_TO_ANY, REPLACE_AND_FAILOVER, REPLACE_PRIMARY}:
        pri_t, pri_hard, pri_soft = _add_pri_parts(nd, st_t, ins, 0.0, hits_t)
    role_p_int = role_p(int_p)
    role_s_int = role_s(int_s)

    if FAILOVER_TO_ANY in wanted:
        fail = ~valid_t | pri_hard | (~fp & pri_soft) | ~nd.mig_ok[p, tg]
        emit(FAILOVER_TO_ANY, _plus(_score(stats, [role_t(_with_loc(pri_t, ins.ls)),
                                                   role_p_int], shape), map_t), fail)

    if REPLACE_SECONDARY in wanted:
        ls_new = nd.loc_pairs[p, tg]
        new_t, f1 = _add_sec(nd, st_t, ins, nd.peers[tg, p], fs)
        # The primary re-adds the instance with force: only hard limits can fail.
        free_p = nd.base_free[p] - st_p.i_mem
        hard_p = (free_p <= 0) | (ins.dsk_on & (st_p.f_dsk <= 0))
        re_p = st_p.copy()
        re_p.fail_n1 = free_p <= st_p.r_mem
        re_p.loc = st_p.loc - ins.ls + ls_new
        fail = ~valid_t | f1 | hard_p
        emit(REPLACE_SECONDARY, _score(stats, [role_s_int, role_t(new_t), role_p(re_p)], shape),
             fail)

    if REPLACE_AND_FAILOVER in wanted:
        new_p, f2 = _add_sec(nd, int_p, ins, nd.peers[p, tg], fs)
        fail = (~valid_t | pri_hard | (~np.asarray(force) & pri_soft) | f2
                | ~nd.mig_ok[p, tg])
        emit(REPLACE_AND_FAILOVER,
             _plus(_score(stats, [role_s_int, role_t(_with_loc(pri_t, nd.loc_pairs[tg, p])),
                                  role_p(new_p)], shape), map_t), fail)

    if REPLACE_PRIMARY in wanted:
        _tmp, f0 = _add_pri(nd, int_s, ins, fp, 0.0, hits_s)
        new_s, f2 = _add_sec(nd, int_s, ins, nd.peers[s_safe, tg], fp)
        fail = (~valid_t | f0 | pri_hard | (~fp & pri_soft) | f2 | ~nd.mig_ok[p, s_safe]
                | ~nd.mig_ok[s_safe, tg] | ~use_sec)
        emit(REPLACE_PRIMARY,
             _plus(_score(stats, [role_p_int, role_t(_with_loc(pri_t, nd.loc_pairs[tg, s_safe])),
                                  role_s(new_s)], shape), map_t), fail)

    if FAILOVER_AND_REPLACE in wanted:
        new_s, f1 = _add_pri(nd, int_s, ins, fp, nd.loc_pairs[s_safe, tg], hits_s)
        new_t, f2 = _add_sec(nd, st_t, ins, nd.peers[tg, s_safe], fp)
        fail = ~valid_t | f1 | f2 | ~nd.mig_ok[p, s_safe] | ~use_sec
        emit(FAILOVER_AND_REPLACE, _plus(_score(stats, [role_p_int, role_s(new_s),
                                                        role_t(new_t)], shape), map_s), fail)
