# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""best-pair: move a DRBD instance to a new primary P and secondary S.

For every ordered pair (P, S) of available nodes hail runs r:P, f, r:S
(after a failover first when the primary is offline) and keeps the pair
with the lowest group score, the last one on ties; when no pair works,
only the LAST pair's failure is reported.

`best_pair_reference` is that loop, literally (scalar moves, a full group
score per pair).  `best_pair` gives the same answer without it:

* the first two steps only involve the old nodes and P: run once per P
  (scalar), and so is P's final re-registration;
* the last step adds the secondary on S, which depends on P only through
  S's memory reserved for P (peers), so feasibility and node values are
  per-S vectors plus a P x S correction for the reserve-dependent metrics;
* the group score of every pair is approximated incrementally from the
  group's base statistics (numpy, P x S matrices) with an error bound;
  every pair that could be the exact minimum is re-scored exactly
  (GroupScorer), and the winner is replayed with the scalar moves, whose
  nodes must carry exactly the values that were scored.
Anything unusual (forthcoming instances, non-finite values, overlapping
nodes) takes the reference loop.
"""

from __future__ import annotations

import math

from ...deps import numpy as np
from .exact import GroupScorer, RowCache
from ..metrics import METRICS, MAP, ONLINE, STDDEV, metric_position, needs_unit_metric
from ..moves import FAILOVER, REPLACE_SECONDARY, loc_score
from .single import pick_last_min
from .state import Failed, Step, apply, copy_node, job_of

N_METRICS = len(METRICS)
_MAP = metric_position("location_exclusion_score")
_LOC = metric_position("location_score")
_N1 = metric_position("n1_cnt")
_REM = (metric_position("reserved_mem_cv"), metric_position("reserved_mem_rtotal"))
_EPS = 2.0 ** -52
_NO_PEER = -2          # a node index no peers table holds


class _Fallback(Exception):
    """The fast path does not apply; use the reference loop."""


def _prefix(nodes, inst, force):
    """The optional first failover (offline primary): (nodes, inst, steps)."""
    if not nodes[inst.pnode].offline:
        return nodes, inst, []
    res = apply(nodes, inst, FAILOVER, None, force)
    if isinstance(res, str):
        raise Failed("Failing over to the secondary: " + res)
    return res[0], res[1], [Step(FAILOVER, res[1].pnode, res[1].snode)]


def drbd_all(nodes, inst, p_new, s_new, force):
    """hail's r:P, f, r:S sequence; (nodes, moved, steps) or raise Failed."""
    nodes, cur, steps = _prefix(nodes, inst, force)
    for label, move, target in (("Changing secondary to new primary", REPLACE_SECONDARY, p_new),
                                ("Failing over to new primary", FAILOVER, None),
                                ("Changing secondary to final secondary", REPLACE_SECONDARY,
                                 s_new)):
        res = apply(nodes, cur, move, target, force)
        if isinstance(res, str):
            raise Failed("%s: %s" % (label, res))
        nodes, cur = res[0], res[1]
        steps.append(Step(move, cur.pnode, cur.snode))
    return nodes, cur, steps


def _pairs(avail):
    return [(p, s) for p in avail for s in avail if p != s]


def _last_pair(avail):
    """The last (P, S) hail tries, or None when there is no pair."""
    return (avail[-1], avail[-2]) if len(avail) >= 2 else None


def _fail_all(avail, nodes, inst, force):
    """No pair works: hail reports the last pair's failure."""
    last = "no nodes available"
    pair_ = _last_pair(avail)
    if pair_ is not None:
        try:
            drbd_all(nodes, inst, pair_[0], pair_[1], force)
        except Failed as err:
            last = "Allocation failed: %s" % err
    return Failed("Can't find any good nodes for relocation: " + last)


def best_pair_reference(state, nodes, inst, gdx, avail, force):
    best, best_cv, last = None, None, "no nodes available"
    for p_new, s_new in _pairs(avail):
        try:
            result = drbd_all(nodes, inst, p_new, s_new, force)
        except Failed as err:
            if best is None:
                last = "Allocation failed: %s" % err
            continue
        cv = state.group_score(result[0], gdx)
        if best is None or not best_cv < cv:
            best, best_cv = result, cv
    if best is None:
        raise Failed("Can't find any good nodes for relocation: " + last)
    new_nodes, moved, steps = best
    return new_nodes, moved, job_of(steps, moved, new_nodes)


def best_pair(state, nodes, inst, gdx, avail, force):
    """(new nodes, moved instance, opcodes) or raise Failed; same as the reference."""
    rows = state.__dict__.setdefault("row_cache", RowCache())
    try:
        return _best_pair_fast(state, nodes, inst, gdx, avail, force, rows)
    except _Fallback:
        return best_pair_reference(state, nodes, inst, gdx, avail, force)


def _n1_breaks(node, peers_of, need, strict):
    """Per candidate primary: does adding the secondary break the node's N+1
    state (the one add_sec check that depends on the primary)?"""
    if not strict or node.fail_n1:
        return np.zeros(len(peers_of), dtype=bool)
    new_rmem = np.maximum(float(node.r_mem), peers_of + need)
    return node.unallocated_mem() <= new_rmem


def _best_pair_fast(state, nodes, inst, gdx, avail, force, rows):
    if _last_pair(avail) is None:
        raise Failed("Can't find any good nodes for relocation: no nodes available")
    if inst.forthcoming or inst.snode < 0:
        raise _Fallback()
    if needs_unit_metric([nodes[k] for k in state.members.get(gdx, ())]):
        raise _Fallback()           # several storage units: scored by metrics.py only
    try:
        nodes1, cur, _steps = _prefix(nodes, inst, force)
    except Failed:
        raise _fail_all(avail, nodes, inst, force)
    a_idx, b_idx = cur.pnode, cur.snode
    if a_idx in avail or b_idx in avail or len(set(avail)) != len(avail):
        raise _Fallback()
    a_node, b_node = nodes1[a_idx], nodes1[b_idx]
    force_a = a_node.offline or force
    force_b = b_node.offline or force
    need = cur.mem if cur.uses_sec_mem else 0
    count = len(avail)
    where = {k: i for i, k in enumerate(avail)}

    # -- what does not depend on P or S: the old nodes' trajectories
    zero = cur.copy()              # the instance while it moves; its location score
    zero.location_score = 0        # is added and removed again, so 0 does as well
    b_final = b_node.copy()
    b_final.remove_sec(cur)
    a_mid = a_node.copy()
    a_mid.remove_pri(cur)
    if a_mid.add_pri(zero, True) is not None:         # r:P re-registers on A
        raise _fail_all(avail, nodes, inst, force)     # ... for no P at all
    a_mid.remove_pri(zero)                             # f: A gives the primary up
    probe = zero.copy()
    probe.pnode = _NO_PEER
    a_final = a_mid.copy()
    # A as secondary of a primary it reserves nothing for: failing here
    # fails for every P (a reserve only adds to the N+1 risk)
    if a_final.add_sec(probe, _NO_PEER, force_a, ignore_disks=a_node.offline) is not None:
        raise _fail_all(avail, nodes, inst, force)
    a_final.remove_sec(probe)                          # r:S drops A as secondary
    a_peers = np.zeros(count)
    for p_idx, amount in a_mid.peers.items():
        if p_idx in where:
            a_peers[where[p_idx]] = amount

    p_ok, p_final = _per_primary(nodes1, avail, zero, a_node, a_idx, force_a, force_b)
    p_ok &= ~_n1_breaks(a_mid, a_peers, need, not force_a)
    s_ok, s_final, s_nodes, peer = _per_secondary(nodes1, avail, probe, force_a, where)
    r_mem = np.array([s.r_mem for s in s_nodes], dtype=np.float64)
    unalloc = np.array([s.unallocated_mem() for s in s_nodes], dtype=np.float64)
    s_n1 = np.array([s.fail_n1 for s in s_nodes])
    new_rmem = np.maximum(r_mem[None, :], peer + need)
    new_n1 = unalloc[None, :] <= new_rmem
    feasible = p_ok[:, None] & s_ok[None, :] & ~np.eye(count, dtype=bool)
    if not force_a:
        feasible &= ~(new_n1 & ~s_n1[None, :])
    if not feasible.any():
        raise _fail_all(avail, nodes, inst, force)

    # -- incremental group score of every pair (approximate, with a bound)
    members = state.members[gdx]
    group = [nodes1[k] for k in members]
    pos = {k: g for g, k in enumerate(members)}
    if any(k not in pos for k in avail):
        raise _Fallback()
    base = np.array([rows.numeric(n) for n in group], dtype=np.float64)
    online = np.array([not n.offline for n in group])
    per_p = [(bool(p_ok[i]), a_final, b_final, p_final[i]) for i in range(count)]
    with np.errstate(all="ignore"):
        score, bound = _approx(nodes1, pos, base, online, per_p, s_final, s_nodes,
                               new_rmem, new_n1, avail, a_idx, b_idx, rows)
    score = np.where(feasible, score, np.inf)
    if not np.isfinite(score[feasible]).all() or not np.isfinite(bound[feasible]).all():
        raise _Fallback()

    # -- exact re-scoring of every pair that can be the exact minimum
    ceiling = np.min(score + bound)
    near = feasible & (score - bound <= ceiling)
    cand = list(zip(*np.nonzero(near)))                # row-major: hail's order
    changes = [_exact_nodes(nodes1, cur, per_p[pi], avail[pi], avail[si], force_a, a_idx,
                            b_idx) for pi, si in cand]
    exact = GroupScorer(group, rows).scores(changes)
    win = pick_last_min(exact)
    pi, si = cand[win]

    # -- replay the winner with the scalar moves: the state to keep, and a check
    new_nodes, moved, steps = drbd_all(nodes, inst, avail[pi], avail[si], force)
    for idx, node in changes[win].items():
        if not _same_values(rows(new_nodes[idx]), rows(node)):
            raise _Fallback()
    return new_nodes, moved, job_of(steps, moved, new_nodes)


def _per_primary(nodes1, avail, zero, a_node, a_idx, force_a, force_b):
    """Per candidate primary P: its own trajectory (secondary, primary,
    re-registered); ([P fits], [P's node after it])."""
    count = len(avail)
    p_ok = np.zeros(count, dtype=bool)
    p_final = [None] * count
    for i, p_idx in enumerate(avail):
        node = nodes1[p_idx]
        if not a_node.mig_tags <= node.rmig_tags:
            continue
        node = copy_node(node)
        if node.add_sec(zero, a_idx, force_b) is not None:
            continue
        node.remove_sec(zero)
        # f makes P primary; r:S removes and re-adds it (forced) with the
        # pair's location score, which leaves every value as it is here
        # (the forced re-add repeats checks this add has passed).
        if node.add_pri(zero, force_a) is not None:
            continue
        p_ok[i] = True
        p_final[i] = node
    return p_ok, p_final


def _per_secondary(nodes1, avail, probe, force_a, where):
    """Per candidate secondary S: the secondary added for a primary holding no
    reserve on S; ([S fits], [S's node after it], [S's node now], [P, S]: S's
    reserve for P)."""
    count = len(avail)
    s_ok = np.zeros(count, dtype=bool)
    s_final = []
    for i, s_idx in enumerate(avail):
        node = copy_node(nodes1[s_idx])
        s_ok[i] = node.add_sec(probe, _NO_PEER, force_a) is None
        s_final.append(node)
    s_nodes = [nodes1[k] for k in avail]
    peer = np.zeros((count, count))
    for si, node in enumerate(s_nodes):
        for p_idx, amount in node.peers.items():
            if p_idx in where:
                peer[where[p_idx], si] = amount
    return s_ok, s_final, s_nodes, peer


def _same_values(left, right):
    return all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(left, right))


def _exact_nodes(nodes1, cur, entry, p_new, s_new, force3, a_idx, b_idx):
    """The changed nodes of pair (P, S), built exactly (scalar)."""
    _ok, a_final, b_final, p_zero = entry
    final = cur.copy()
    final.pnode, final.snode = p_new, s_new
    final.location_score = loc_score(nodes1[p_new], nodes1[s_new])
    s_node = copy_node(nodes1[s_new])
    if s_node.add_sec(final, p_new, force3) is not None:
        raise _Fallback()
    # P took the instance with location score 0; the pair's score is an integer term.
    p_node = copy_node(p_zero)
    p_node.location_score += final.location_score
    return {a_idx: a_final, b_idx: b_final, p_new: p_node, s_new: s_node}


_TABLES = []


def _tables():
    """Weights and kinds of the metrics as arrays, built on first use (numpy is
    imported lazily, so nothing numpy runs when this module is imported)."""
    if not _TABLES:
        _TABLES.extend((np.array([m.weight for m in METRICS]),
                        np.array([m.statistic == STDDEV for m in METRICS]),
                        np.array([m.nodes == ONLINE for m in METRICS]),
                        np.array([m.statistic != MAP for m in METRICS])))
    return _TABLES


def _approx(nodes1, pos, base, online, per_p, s_final, s_nodes, new_rmem, new_n1,
            avail, a_idx, b_idx, rows):
    """Approximate scores (P x S) and a bound on their distance to the exact ones.

    Per metric, the group's base statistics are corrected by the nodes a pair
    changes: the sum by the deltas, the centred sum of squares by the centred
    deltas (all pairs at once: P x S x metric arrays).
    """
    weights, is_std, is_on, not_map = _tables()
    n_on = float(online.sum())
    on_base = base[online]
    off_base = base[~online]
    mean = on_base.mean(axis=0)
    dev2 = ((on_base - mean) ** 2).sum(axis=0)
    sums = np.where(is_on, on_base.sum(axis=0), off_base.sum(axis=0))
    mags = np.where(is_on, np.abs(on_base).sum(axis=0), np.abs(off_base).sum(axis=0))
    in_class = np.array([[bool(online[g]) == bool(on) for on in is_on] for g in range(len(base))])

    def deltas(changed):
        d = np.zeros(N_METRICS)
        e = np.zeros(N_METRICS)
        for idx, node in changed:
            g = pos.get(idx)
            if g is None:
                continue
            old, new = base[g], rows.numeric(node)
            d += np.where(in_class[g], new - old, 0.0)
            if online[g]:
                e += (new - mean) ** 2 - (old - mean) ** 2
        return d, e

    # per P: the old primary's and secondary's final state (the same for
    # every P) and P's own (location score 0), as one array
    d_ab, e_ab = deltas(((a_idx, per_p[0][1]), (b_idx, per_p[0][2])))
    ok = np.array([entry[0] for entry in per_p])
    p_old = np.array([base[pos[k]] for k in avail])
    p_new = np.array([rows.numeric(entry[3]) if entry[0] else base[pos[avail[i]]]
                      for i, entry in enumerate(per_p)])
    dp = np.where(is_on[None, :], p_new - p_old, 0.0) + d_ab
    ep = (p_new - mean) ** 2 - (p_old - mean) ** 2 + e_ab
    dp[~ok] = 0.0
    ep[~ok] = 0.0
    # per S, then the reserve-dependent metrics per pair
    s_old = np.array([base[pos[k]] for k in avail])
    s_new = np.array([rows.numeric(n) for n in s_final])
    t_mem = np.array([n.t_mem for n in s_nodes])
    n_inst = np.array([len(n.p_list) + len(n.s_list) for n in s_final], dtype=np.float64)
    d_s = np.where(is_on[None, :], s_new - s_old, 0.0)          # S is online
    e_s = (s_new - mean) ** 2 - (s_old - mean) ** 2
    # Only the metrics that S changes need a P x S array; the others (most of
    # them: this is the hot spot of an evacuation) are evaluated per P and
    # broadcast.
    loc = _loc_matrix(nodes1, avail)
    pairwise = np.zeros(N_METRICS, dtype=bool)
    pairwise[[_N1, *_REM]] = True
    pairwise[_LOC] |= np.ndim(loc) > 0
    by_p = ~pairwise & ~(d_s != 0).any(axis=0) & ~(e_s != 0).any(axis=0)
    both = ~by_p
    d = dp[:, None, both] + d_s[None, :, both]
    e = ep[:, None, both] + e_s[None, :, both]
    col = np.cumsum(both) - 1                   # metric -> its column in d and e
    per_pair = ((_N1, np.where(new_n1, n_inst[None, :], 0.0)),) + tuple(
        (k, new_rmem / t_mem[None, :]) for k in _REM)
    for k, s_val in per_pair:
        d[:, :, col[k]] = dp[:, None, k] + (s_val - s_old[None, :, k])
        e[:, :, col[k]] = (ep[:, None, k] + (s_val - mean[k]) ** 2
                           - (s_old[None, :, k] - mean[k]) ** 2)
    if pairwise[_LOC]:
        d[:, :, col[_LOC]] += loc
    total = np.zeros((len(per_p), len(s_final)))
    bound = np.zeros_like(total)
    for which, part_d, part_e in ((both, d, e), (by_p, dp[:, by_p], ep[:, by_p])):
        value, err = _values_and_errors(part_d, part_e, dev2[which], sums[which], mags[which],
                                        is_std[which], n_on, len(base))
        keep = not_map[which]
        v = np.tensordot(value[..., keep], weights[which][keep], axes=([-1], [0]))
        b = np.tensordot(err[..., keep], weights[which][keep], axes=([-1], [0]))
        if which is by_p:
            v, b = v[:, None], b[:, None]
        total = total + v
        bound = bound + b
    total += weights[_MAP] * _map_values(nodes1, pos, online, per_p, a_idx, avail)[:, None]
    bound += 1e-12 * (1.0 + np.abs(total))
    return total, bound


def _values_and_errors(d, e, dev2, sums, mags, is_std, n_on, n_nodes):
    """Metric values after the deltas (last axis: metrics), and a bound on
    their distance to the exact ones: rounding of the sums, amplified by the
    square root near zero variance
    (|sqrt(a) - sqrt(b)| <= min(sqrt(|a - b|), |a - b| / sqrt(b)), within a factor 2)."""
    var = (dev2 + e - d * d / n_on) / n_on
    std = np.sqrt(np.maximum(var, 0.0))
    value = np.where(is_std, std, sums + d)
    lead = tuple(range(d.ndim - 1))
    d_max = np.abs(d).max(axis=lead)
    mag_std = dev2 + np.abs(e).max(axis=lead) + (mags + d_max) ** 2 / n_on
    err_var = (64 * _EPS / n_on) * (n_on + 8) * mag_std + 1e-300
    std_err = err_var / np.maximum(std, np.sqrt(err_var))
    sum_err = 64 * _EPS * (mags + d_max) * (n_nodes + 8)
    return value, np.where(is_std, std_err, sum_err)


def _map_values(nodes1, pos, online, per_p, a_idx, avail):
    """The exact location-exclusion statistic per P (only A and P change it)."""
    merged = {}
    for idx, g in pos.items():
        if online[g]:
            for key, cnt in nodes1[idx].instance_map.items():
                merged[key] = merged.get(key, 0) + cnt
    out = np.zeros(len(avail))
    for i, entry in enumerate(per_p):
        if not entry[0]:
            continue
        if not merged and not entry[1].instance_map and not entry[3].instance_map:
            continue
        counts = dict(merged)
        for idx, node in ((a_idx, entry[1]), (avail[i], entry[3])):
            g = pos.get(idx)
            if g is None or not online[g]:
                continue
            for key, cnt in nodes1[idx].instance_map.items():
                counts[key] -= cnt
            for key, cnt in node.instance_map.items():
                counts[key] = counts.get(key, 0) + cnt
        counts = {k: v for k, v in counts.items() if v}
        out[i] = float(sum(counts.values()) - len(counts))
    return out


def _loc_matrix(nodes1, avail):
    tags = [nodes1[k].location_tags for k in avail]
    if not any(tags):
        return 0.0
    return np.array([[float(len(a & b)) for b in tags] for a in tags])
