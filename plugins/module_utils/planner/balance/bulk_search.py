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
import math

from ...deps import numpy as np

from .loop import Candidate, instance_moves, search_exhaustive, victims
from .move_rows import MoveRows, instance_profile, map_delta
from .sparse_folds import DENSE_LIMIT, deviation_sums, sequential_sums, unique_rows
from .unit_groups import MIXED, NO_UNITS, unit_layout, unit_score_parts, victim_unit
from ...model.storage import unit_slot
from ...model.vocabulary import MIRROR_EXTERNAL, MIRROR_INTERNAL, NO_NODE
from ..moves import (FAILOVER, FAILOVER_AND_REPLACE, FAILOVER_TO_ANY, MOVE_KINDS,
                     REPLACE_AND_FAILOVER, REPLACE_PRIMARY, REPLACE_SECONDARY, apply_move,
                     possible_moves)
from ...errors import HtoolsError
from ..metrics import (FREE_DISK, FREE_DISK_FORTH, LOAD_METRICS, METRIC_NAMES, METRICS, MAP,
                       ONLINE, STDDEV, SUM, cluster_score, metric_position, needs_unit_metric,
                       node_values)

# Exact re-scoring covers every candidate whose approximate score is this close
# to the best: a floor, plus a bound on the approximation error derived from
# the metrics' magnitudes (see _Stats.error_bound).
ABS_TOL = 1e-8
REL_TOL = 1e-10
# Instances per numpy block: keeps temporaries cache-sized.
BLOCK = 16384
# Signatures per exact-scoring batch: the sparse folds work on a few numbers
# per signature (never candidates x nodes), and large batches share folds.
EXACT_CHUNK = 1 << 18
# Candidates re-scored exactly per batch.
EXACT_PICKS = 1 << 18
# Up to this many, candidates are tried one by one (apply_move): cheaper than
# building their signatures.
SCALAR_PICKS = 32

N_METRICS = len(METRICS)
# ExactScorer.location_class of nodes without and with several location tags.
NO_LOCATION, MANY_LOCATIONS = -1, -2
MAP_POS = [k for k, m in enumerate(METRICS) if m[2] == MAP][0]


class _Nodes:
    """Per-node state arrays of the group (position g = order in the group)."""

    def __init__(self, nodes):
        self.objs = nodes
        self.pos = {n.idx: g for g, n in enumerate(nodes)}

        def f(attr):
            return np.array([getattr(n, attr) for n in nodes], dtype=np.float64)

        self.t_mem = f("t_mem")
        self.t_dsk = f("t_dsk")
        self.t_cpu = f("t_cpu")
        self.speed = f("t_cpu_speed")
        self.hi_sp = f("hi_spindles")
        self.lo_dsk = f("lo_dsk")
        self.vcpu_ratio = f("vcpu_ratio")
        self.i_mem = f("i_mem")
        self.base_free = np.array([int(n.t_mem) - n.n_mem - max(0, n.x_mem) for n in nodes],
                                  dtype=np.float64)
        self.r_mem = f("r_mem")
        self.fail_n1 = np.array([n.fail_n1 for n in nodes])
        self.f_dsk = f("f_dsk")
        self.f_dsk_forth = f("f_dsk_forth")
        self.f_mem_forth = f("f_mem_forth")
        self.u_cpu = f("u_cpu")
        self.u_cpu_forth = f("u_cpu_forth")
        self.isp = f("inst_spindles")
        self.isp_forth = f("inst_spindles_forth")
        self.load = np.array([n.util_load for n in nodes], dtype=np.float64).reshape(-1, 4)
        self.n_p = np.array([len(n.p_list) for n in nodes], dtype=np.float64)
        self.n_s = np.array([len(n.s_list) for n in nodes], dtype=np.float64)
        self.loc = np.array([n.location_score for n in nodes], dtype=np.float64)
        self.ptag = np.array([float(sum(n.p_tags.values()) - len(n.p_tags)) for n in nodes],
                             dtype=np.float64)
        self.tags = None         # _Tags of the regular victims, when any carries one
        self.offline = np.array([n.offline for n in nodes])
        self._disk_reciprocals()
        # Reciprocals for the approximate values (exact scores never use them).
        with np.errstate(divide="ignore", invalid="ignore"):
            self.inv_t_mem = 1.0 / self.t_mem
            self.inv_cpu = 1.0 / self.t_cpu / self.speed
            self.inv_hi_sp = 1.0 / self.hi_sp
        g = len(nodes)
        self.peers = np.zeros((g, g))
        self.top1 = np.zeros(g)
        self.top1_key = np.full(g, -1, dtype=np.int64)
        self.top2 = np.zeros(g)
        for a, node in enumerate(nodes):
            items = sorted(node.peers.items(), key=lambda kv: -kv[1])
            for key, value in node.peers.items():
                if key in self.pos:
                    self.peers[a, self.pos[key]] = value
            if items:
                self.top1[a] = items[0][1]
                self.top1_key[a] = self.pos.get(items[0][0], -2)
                self.top2[a] = items[1][1] if len(items) > 1 else 0
        self.loc_pairs = np.array([[len(x.location_tags & y.location_tags) for y in nodes]
                                   for x in nodes], dtype=np.float64) \
            if any(n.location_tags for n in nodes) else np.zeros((g, g))
        self.mig_ok = np.array([[x.mig_tags <= y.rmig_tags for y in nodes] for x in nodes]) \
            if any(n.mig_tags or n.rmig_tags for n in nodes) else np.ones((g, g), dtype=bool)

    def _disk_reciprocals(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            self.no_dsk = (self.t_dsk == 0).astype(np.float64)
            self.inv_t_dsk = np.where(self.t_dsk == 0, 0.0, 1.0 / self.t_dsk)

    def use_storage_unit(self, uid):
        """Disk space from each node's storage unit `uid` in place of the
        per-node pool, as the scalar Node does then (unit_groups.py)."""
        objs = self.objs
        pos = [unit_slot(n.storage_units, uid) for n in objs]

        def unit_col(values):
            return np.array(values, dtype=np.float64)

        self.t_dsk = unit_col([n.storage_units[p].total for n, p in zip(objs, pos)])
        self.f_dsk = unit_col([n.unit_free[p] for n, p in zip(objs, pos)])
        self.f_dsk_forth = unit_col([n.unit_free_forth[p] for n, p in zip(objs, pos)])
        self.lo_dsk = unit_col([n.unit_lo(p) for n, p in zip(objs, pos)])
        self._disk_reciprocals()


class _Tags:
    """Exclusion tags of the regular victims, as dense arrays.

    inc: instance x tag incidence; count: node x tag primaries carrying it
    (pri_tags_score and the FailTags check); with location tags also the
    (location, tag) counts merged over online nodes (location_exclusion_score).
    """

    def __init__(self, nodes, insts, online):
        names = sorted({t for i in insts for t in i.excl_tags})
        key = {t: k for k, t in enumerate(names)}
        g, k = len(nodes), len(names)
        self.inc = np.zeros((len(insts), k))
        for r, inst in enumerate(insts):
            for tag in inst.excl_tags:
                self.inc[r, key[tag]] = 1.0
        self.count = np.array([[n.p_tags.get(t, 0) for t in names] for n in nodes],
                              dtype=np.float64).reshape(g, k)
        self.present = (self.count > 0).astype(np.float64)
        locs = sorted({loc for n in nodes for loc in n.location_tags})
        self.has_map = bool(locs) and k > 0
        if not self.has_map:
            return
        lkey = {loc: j for j, loc in enumerate(locs)}
        merged = np.zeros((len(locs), k))
        member = np.zeros((g, len(locs)))
        for a, node in enumerate(nodes):
            if not online[a]:
                continue
            for loc in node.location_tags:
                member[a, lkey[loc]] = 1.0
            for (loc, tag), n_inst in node.instance_map.items():
                if tag in key:
                    merged[lkey[loc], key[tag]] += n_inst
        # Per node and tag: locations of the node where the tag's merged count
        # is >= 2 (a removal lowers the map statistic) or >= 1 (an add raises it).
        self.member = member
        self.rem2 = member @ (merged >= 2)
        self.add1 = member @ (merged >= 1)
        self.once = (merged == 1).astype(np.float64).T      # tag x location


class _Insts:
    """Per-instance arrays of the regular victims (columns, shape (C, 1))."""

    def __init__(self, insts, npos, unit_charge=None):

        def col(values, dt=np.float64):
            return np.array(values, dtype=dt).reshape(-1, 1)

        self.objs = insts
        self.mem = col([i.mem for i in insts])
        if unit_charge is None:
            self.dsk = col([i.dsk for i in insts])
            # whether the disk space counts on the node (3.0.2: local storage)
            self.dsk_on = col([i.uses_local_storage for i in insts], bool)
        else:        # the group's one storage unit (_GroupUnit) takes it instead
            charges = [unit_charge[i.idx] for i in insts]
            self.dsk = col([amount for _on, amount in charges])
            self.dsk_on = col([on for on, _amount in charges], bool)
        self.vcpus = col([i.vcpus for i in insts])
        self.uses_mem = col([i.uses_memory for i in insts], bool)
        self.not_off = col([i.not_offline for i in insts], bool)
        self.sec_mem = col([i.mem if i.uses_sec_mem else 0 for i in insts])
        self.local = col([i.uses_local_storage for i in insts], bool)
        self.spu = col([i.spindle_use for i in insts])
        self.util = np.array([i.util for i in insts], dtype=np.float64).reshape(-1, 4)
        self.ls = col([i.location_score for i in insts])
        self.p = np.array([npos[i.pnode] for i in insts], dtype=np.int64)
        self.s = np.array([npos.get(i.snode, -1) for i in insts], dtype=np.int64)
        self.inc = None

    def take(self, rows):
        sub = _Insts.__new__(_Insts)
        for key, value in self.__dict__.items():
            sub.__dict__[key] = value[rows] if isinstance(value, np.ndarray) else value
        sub.objs = [self.objs[r] for r in rows]
        return sub


class _State:
    """A node state (possibly broadcast over candidates) for the bulk rules."""

    __slots__ = ("g", "i_mem", "r_mem", "fail_n1", "f_dsk", "f_dsk_forth", "f_mem_forth",
                 "u_cpu", "u_cpu_forth", "isp", "isp_forth", "load", "n_p", "n_s", "loc",
                 "ptag")

    @classmethod
    def of(cls, nd, g):
        """The current state of the nodes at positions `g` (any shape)."""
        st = cls()
        st.g = g
        for name in cls.__slots__[1:]:
            if name == "load":
                st.load = [nd.load[g, k] for k in range(4)]
            else:
                setattr(st, name, getattr(nd, name)[g])
        return st

    def copy(self):
        st = _State()
        for name in self.__slots__:
            value = getattr(self, name)
            setattr(st, name, list(value) if name == "load" else value)
        return st


def _unalloc(nd, st):
    return nd.base_free[st.g] - st.i_mem


def _remove_pri(nd, st, ins):
    st = st.copy()
    st.i_mem = st.i_mem - ins.mem * ins.uses_mem
    st.fail_n1 = _unalloc(nd, st) <= st.r_mem
    st.f_dsk = st.f_dsk + ins.dsk * ins.dsk_on
    st.isp = st.isp - ins.spu * ins.local
    st.u_cpu = st.u_cpu - ins.vcpus * ins.not_off
    st.load = [st.load[k] - ins.util[:, k:k + 1] for k in range(4)]
    st.loc = st.loc - ins.ls
    st.n_p = st.n_p - 1
    if ins.inc is not None:
        st.ptag = st.ptag - ins.rem_tags
    st.f_mem_forth = st.f_mem_forth + ins.mem
    st.f_dsk_forth = st.f_dsk_forth + ins.dsk * ins.dsk_on
    st.isp_forth = st.isp_forth - ins.spu * ins.local
    st.u_cpu_forth = st.u_cpu_forth - ins.vcpus * ins.not_off
    return st


def _remove_sec(nd, st, ins):
    """Remove the instance (primary at ins.p) from the node's secondaries."""
    st = st.copy()
    g = st.g
    st.f_dsk = st.f_dsk + ins.dsk * ins.dsk_on
    st.isp = st.isp - ins.spu * ins.local
    old = nd.peers[g, ins.p.reshape(-1, 1)] if np.ndim(g) else nd.peers[g, ins.p]
    old = np.asarray(old).reshape(ins.mem.shape)
    new = old - ins.sec_mem
    others = np.where(nd.top1_key[g] == ins.p.reshape(-1, 1), nd.top2[g], nd.top1[g])
    st.r_mem = np.where(old < st.r_mem, st.r_mem, np.maximum(others, new))
    st.fail_n1 = _unalloc(nd, st) <= st.r_mem
    st.load = list(st.load)
    st.load[2] = st.load[2] - ins.util[:, 2:3]
    st.n_s = st.n_s - 1
    st.f_dsk_forth = st.f_dsk_forth + ins.dsk * ins.dsk_on
    st.isp_forth = st.isp_forth - ins.spu * ins.local
    return st


def _add_pri(nd, st, ins, force, loc_score, hits=None):
    """addPriEx for real instances; returns (state, failed mask)."""
    out, hard, soft = _add_pri_parts(nd, st, ins, loc_score, hits)
    return out, hard | (~np.asarray(force) & soft)


def _add_pri_parts(nd, st, ins, loc_score=0.0, hits=None):
    """addPriEx split by check kind: (state, hard failures, soft failures).

    hits: how many of the instance's exclusion tags the node's primaries
    already carry (None: the victims carry none)."""
    g = st.g
    local = ins.local
    dsk_on = ins.dsk_on
    mem_f = st.f_mem_forth - ins.mem
    dsk_f = st.f_dsk_forth - ins.dsk * dsk_on
    isp_f = st.isp_forth + ins.spu * local
    ucpu_f = st.u_cpu_forth + ins.vcpus * ins.not_off
    t_cpu = nd.t_cpu[g]
    pcpu_f = ucpu_f / t_cpu
    lcpu = nd.vcpu_ratio[g]
    lo = nd.lo_dsk[g]
    hi = nd.hi_sp[g]
    i_mem = st.i_mem + ins.mem * ins.uses_mem
    new_free = nd.base_free[g] - i_mem
    new_n1 = new_free <= st.r_mem
    new_dsk = st.f_dsk - ins.dsk * dsk_on
    new_isp = st.isp + ins.spu * local
    new_ucpu = st.u_cpu + ins.vcpus * ins.not_off
    new_pcpu = new_ucpu / t_cpu
    hard = (new_free <= 0) | (dsk_on & (new_dsk <= 0))
    soft = ((dsk_on & (new_dsk < lo)) | (local & (new_isp > hi)) | (new_n1 & ~st.fail_n1)
            | ((lcpu >= 0) & (lcpu < new_pcpu))
            | (mem_f <= 0) | (dsk_on & ((dsk_f <= 0) | (dsk_f < lo))) | (local & (isp_f > hi))
            | ((lcpu >= 0) & (lcpu < pcpu_f)))
    out = st.copy()
    if hits is not None:
        soft = soft | (hits > 0)                    # FailTags
        out.ptag = st.ptag + hits
    out.i_mem = i_mem
    out.f_dsk = new_dsk
    out.fail_n1 = new_n1
    out.u_cpu = new_ucpu
    out.load = [st.load[k] + ins.util[:, k:k + 1] for k in range(4)]
    out.isp = new_isp
    out.loc = st.loc + loc_score
    out.n_p = st.n_p + 1
    out.f_mem_forth = mem_f
    out.f_dsk_forth = dsk_f
    out.u_cpu_forth = ucpu_f
    out.isp_forth = isp_f
    return out, hard, soft


def _add_sec(nd, st, ins, pdx_peer, force, ignore_disks=False):
    """addSecExEx for real DRBD instances; pdx_peer = peers[pdx] of this node."""
    g = st.g
    strict = ~np.asarray(force)
    need = ins.sec_mem
    new_peem = pdx_peer + need
    old_mem = nd.base_free[g] - st.i_mem
    new_dsk = st.f_dsk - ins.dsk
    new_isp = st.isp + ins.spu * ins.local
    new_rmem = np.maximum(st.r_mem, new_peem)
    new_n1 = old_mem <= new_rmem
    dsk_f = st.f_dsk_forth - ins.dsk
    isp_f = st.isp_forth + ins.spu * ins.local
    lo = nd.lo_dsk[g]
    hi = nd.hi_sp[g]
    hard = ~np.asarray(ignore_disks) & (new_dsk <= 0)
    soft = ((new_dsk < lo) | (new_isp > hi) | (need >= old_mem) | (new_n1 & ~st.fail_n1)
            | (dsk_f <= 0) | (dsk_f < lo) | (isp_f > hi) | (need >= st.f_mem_forth))
    out = st.copy()
    out.f_dsk = new_dsk
    out.r_mem = new_rmem
    out.fail_n1 = new_n1
    out.load = list(st.load)
    out.load[2] = st.load[2] + ins.util[:, 2:3]
    out.isp = new_isp
    out.n_s = st.n_s + 1
    out.f_dsk_forth = dsk_f
    out.isp_forth = isp_f
    return out, hard | (strict & soft)


def _reserved_mem(nd, st, g):
    return st.r_mem * nd.inv_t_mem[g]


def _load(k):
    return lambda nd, st, g: st.load[k]


# The approximate per-node value of each metric, by name, from a (broadcast)
# state `st` of the nodes at positions `g`: metrics.node_values with
# reciprocals in place of divisions.
APPROX_VALUES = {
    "free_mem_cv": lambda nd, st, g: (nd.base_free[g] - st.i_mem) * nd.inv_t_mem[g],
    "free_disk_cv": lambda nd, st, g: st.f_dsk * nd.inv_t_dsk[g] + nd.no_dsk[g],
    "n1_cnt": lambda nd, st, g: np.where(st.fail_n1, st.n_p + st.n_s, 0.0),
    "reserved_mem_cv": _reserved_mem,
    "offline_all_cnt": lambda nd, st, g: st.n_p + st.n_s,
    "offline_pri_cnt": lambda nd, st, g: st.n_p,
    "vcpu_ratio_cv": lambda nd, st, g: st.u_cpu * nd.inv_cpu[g],
    "spindles_cv": lambda nd, st, g: st.isp * nd.inv_hi_sp[g],
    "free_mem_cv_forth": lambda nd, st, g: st.f_mem_forth * nd.inv_t_mem[g],
    "free_disk_cv_forth": lambda nd, st, g: st.f_dsk_forth * nd.inv_t_dsk[g] + nd.no_dsk[g],
    "vcpu_ratio_cv_forth": lambda nd, st, g: st.u_cpu_forth * nd.inv_cpu[g],
    "spindles_cv_forth": lambda nd, st, g: st.isp_forth * nd.inv_hi_sp[g],
    "location_score": lambda nd, st, g: st.loc,
    "reserved_mem_rtotal": _reserved_mem,
    "pri_tags_score": lambda nd, st, g: st.ptag,
}
APPROX_VALUES.update((name, _load(k)) for k, name in enumerate(LOAD_METRICS))
# Metrics kept in the fixed part of every score: the map statistic, whose
# change (tagged victims only) is added per candidate in _bulk_block.
FIXED_FOR_REGULAR = ("location_exclusion_score",)
# pri_tags_score changes only with tagged victims; otherwise it stays fixed too.
PTAG_POS = METRIC_NAMES.index("pri_tags_score")
# By position, for the hot path; None for the fixed metrics.
_APPROX_AT = tuple(APPROX_VALUES.get(name) for name in METRIC_NAMES)


def _values(nd, st, needed):
    """Approximate metric values of a (broadcast) state, for the metrics in `needed`."""
    g = st.g
    out = [None] * N_METRICS
    for k in needed:
        out[k] = _APPROX_AT[k](nd, st, g)
    return out


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
        self.scored = 0          # feasible candidates scored (SearchStats.bulk_scored)

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

    def keep_moves(self, moves):
        codes = [MOVE_CODES.index(m) for m in moves]
        kept = []
        for chunk in self.chunks:
            mask = np.isin(chunk[3], codes)
            kept.append(tuple(part[mask] for part in chunk))
        self.chunks = kept

    def arrays(self):
        if not self.chunks:
            return None
        merged = [np.concatenate([c[k] for c in self.chunks]) for k in range(5)]
        if not merged[0].size:
            return None
        best = merged[0].min()
        keep = merged[0] <= best + self.band + REL_TOL * abs(best)
        return [part[keep] for part in merged]


def _role(old, new, online):
    """A node role of a move (see _score); the last item memoises its narrow
    deltas, as the roles of the removals serve every move of a block."""
    all_on = bool(online.all())
    return (old, new, online, all_on, (not all_on) and not online.any(), {})


def _bulk_block(nd, stats, ins, vpos, targets, node_idx, opts, pool):
    """Score every move of a block of regular victims; add the best ones to the pool."""
    c = len(ins.objs)
    tg = targets.reshape(1, -1)                     # (1, T)
    p = ins.p.reshape(-1, 1)
    s = ins.s.reshape(-1, 1)
    has_s = s >= 0
    s_safe = np.where(has_s, s, 0)
    p_off = nd.offline[p]
    s_off = np.where(has_s, nd.offline[s_safe], True)
    force = opts.force
    fp = p_off | force
    fs = s_off | force
    online_p = ~p_off
    online_s = ~s_off
    base = stats.base
    needed = stats.needed_online + stats.needed_offline
    old_p, old_s, old_t = _rows(base, p), _rows(base, s_safe), _rows(base, tg)
    st_p = _State.of(nd, p)
    st_s = _State.of(nd, s_safe)
    st_t = _State.of(nd, tg)
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

    tags = nd.tags
    hits_t = hits_s = map_t = map_s = None
    if tags is not None:
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
    int_p = _remove_pri(nd, st_p, ins)
    int_s = _remove_sec(nd, st_s, ins)
    moves_of = [possible_moves(i.mirror, bool(use_sec[r, 0]), opts.inst_moves, opts.disk_moves,
                               opts.restricted_migration, bool(p_off[r, 0]))
                for r, i in enumerate(ins.objs)]
    wanted = {m for ms in moves_of for m in ms}
    n_t = targets.size
    inst_idx = np.array([i.idx for i in ins.objs], dtype=np.int64)
    vpos_arr = np.array(vpos, dtype=np.int64)

    def emit(move, scores, fail):
        if move == FAILOVER:
            m_pos = np.zeros((c, 1), dtype=np.int64)
        else:
            m_pos = np.array([ms.index(move) if move in ms else -1 for ms in moves_of],
                             dtype=np.int64).reshape(-1, 1)
        blocked = fail | (m_pos < 0)
        shape = blocked.shape if move != FAILOVER else (c, 1)
        if scores.shape != shape:
            scores = np.broadcast_to(scores, shape).copy()
        # scores is this block's own array: mark the infeasible in place
        np.copyto(scores, np.inf, where=blocked)
        pool.scored += int(blocked.size - np.count_nonzero(blocked))
        low = scores.min() if scores.size else np.inf
        if not np.isfinite(low):
            return
        limit = min(low, pool.best) + pool.band + REL_TOL * abs(min(low, pool.best))
        rows, cols = np.nonzero(scores <= limit)
        if move == FAILOVER:
            col_rank = np.zeros(rows.size, dtype=np.int64)
            tgt = np.full(rows.size, NO_NODE, dtype=np.int64)
        else:
            col_rank = cols + 1
            tgt = node_idx[targets[cols]]
        rank = _encode_rank(vpos_arr[rows], col_rank, m_pos[rows, 0], n_t)
        pool.add(scores[rows, cols], rank, inst_idx[rows], move, tgt)

    # Failover (internal, use_sec)
    if use_sec.any():
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


def _plus(score, delta):
    return score if delta is None else score + delta


def _with_loc(state, loc_score):
    out = state.copy()
    out.loc = state.loc + loc_score
    return out


def _is_regular(inst, group_pos, excl_in_group):
    if inst.forthcoming or inst.dsrd_loc_tags or excl_in_group:
        return False
    if len(set(inst.excl_tags)) != len(inst.excl_tags):    # counted twice: scalar model
        return False
    if inst.mirror == MIRROR_EXTERNAL:
        return inst.snode == NO_NODE
    if inst.mirror == MIRROR_INTERNAL:
        return inst.snode in group_pos
    return False


class ExactScorer:
    """Exact hbal scores of candidate node lists, vectorised over candidates."""

    def __init__(self, group_nodes):
        self.nodes = group_nodes
        self.rows = [node_values(n) for n in group_nodes]
        self.online = np.array([not n.offline for n in group_nodes])
        numeric = [[0.0 if k == MAP_POS else float(v) for k, v in enumerate(row)]
                   for row in self.rows]
        self.base = np.array(numeric, dtype=np.float64).reshape(len(group_nodes), N_METRICS)
        self.pos = {n.idx: g for g, n in enumerate(group_nodes)}
        # several storage units per node: the disk metric is no per-node column,
        # candidates are scored by metrics.py itself
        self.unit_nodes = list(group_nodes) if needs_unit_metric(group_nodes) else None
        self.scored = 0          # candidates scored (SearchStats.exact_scored)
        self.base_map = None     # merged maps of the online nodes (map_stat)
        self.base_map_value = 0
        # Per node: its location tag's number, NO_LOCATION or MANY_LOCATIONS
        # (whose maps may share keys with any other node's).
        tags = sorted({t for n in group_nodes for t in n.location_tags})
        number = {t: k for k, t in enumerate(tags)}
        self.location_class = np.array(
            [NO_LOCATION if not n.location_tags else
             number[next(iter(n.location_tags))] if len(n.location_tags) == 1 else
             MANY_LOCATIONS for n in group_nodes], dtype=np.int64)

    def scores(self, changes):
        """changes: list of {node idx: Node}; returns exact scores (list of float)."""
        self.scored += len(changes)
        if not self.online.any():
            return [0.0] * len(changes)
        if self.unit_nodes is not None:
            return [cluster_score([changed.get(n.idx, n) for n in self.unit_nodes])
                    for changed in changes]
        # Bounded chunks: many exact ties must not mean one huge matrix.
        step = EXACT_CHUNK
        scores = []
        for start in range(0, len(changes), step):
            scores.extend(self._scores(changes[start:start + step]))
        return scores

    def _scores(self, changes):
        rows, deltas = [], []
        width = max((len(c) for c in changes), default=0)
        positions = np.full((len(changes), max(1, width)), -1, dtype=np.int64)
        row_ids = np.full(positions.shape, -1, dtype=np.int64)
        for r, changed in enumerate(changes):
            sig = []
            for idx, node in changed.items():
                g = self.pos.get(idx)
                if g is not None:
                    values = node_values(node)
                    sig.append((g, len(rows)))
                    rows.append(values)
                    deltas.append(map_delta(self.rows[g][MAP_POS], values[MAP_POS]))
            for j, (g, row) in enumerate(sorted(sig)):
                positions[r, j] = g
                row_ids[r, j] = row
        return [float(x) for x in self._score_signatures(positions, row_ids, rows, deltas)]

    def score_signatures(self, positions, row_ids, rows, map_deltas):
        """Exact scores (array) of candidates named by signatures: per candidate
        the group positions it changes (ascending, -1 padded) and the ids of
        the rows they take.  rows and map_deltas: per row id, the node's
        metric values and the change of its location-exclusion map."""
        c = positions.shape[0]
        self.scored += c
        if not self.online.any():
            return np.zeros(c)
        parts = [self._score_signatures(positions[start:start + EXACT_CHUNK],
                                        row_ids[start:start + EXACT_CHUNK], rows, map_deltas)
                 for start in range(0, c, EXACT_CHUNK)]
        return np.concatenate(parts) if parts else np.zeros(0)

    def _score_signatures(self, gpos, rid, rows, map_deltas):
        """hbal's score of each signature: every metric summed in node order,
        the weighted metrics added in table order."""
        present = gpos >= 0
        numeric = np.zeros(rid.shape + (N_METRICS,))
        if present.any():
            uniq, inverse = np.unique(rid[present], return_inverse=True)
            numeric[present] = self._numeric(rows, uniq.tolist())[inverse.reshape(-1)]
        if gpos.shape[0] * len(self.nodes) <= DENSE_LIMIT:
            return self._score_dense(gpos, rid, numeric, map_deltas)
        return self._score_sparse(gpos, rid, numeric, map_deltas)

    def _score_dense(self, gpos, rid, numeric, map_deltas):
        """Few candidates: every node list written out, all metrics summed with
        numpy's cumulative sums (left to right)."""
        c = gpos.shape[0]
        present = gpos >= 0
        mat = np.repeat(self.base[None, :, :], c, axis=0)
        cand = np.nonzero(present)[0]
        mat[cand, gpos[present], :] = numeric[present]
        on = mat[:, self.online, :]
        off = mat[:, ~self.online, :]
        online_at = present & self.online[np.where(present, gpos, 0)]
        score = np.zeros(c)
        for k, (_name, weight, stat, which) in enumerate(METRICS):
            if stat == MAP:
                value = self._map_stats(gpos, rid, online_at, map_deltas)
            elif stat == SUM:
                cols = on[:, :, k] if which == ONLINE else off[:, :, k]
                value = np.cumsum(cols, axis=1)[:, -1] if cols.shape[1] else np.zeros(c)
            else:
                cols = on[:, :, k]
                count = float(cols.shape[1])
                mean = np.cumsum(cols, axis=1)[:, -1] / count
                dev = cols - mean[:, None]
                value = np.sqrt(np.cumsum(dev * dev, axis=1)[:, -1] / count)
            score = score + weight * value
        return score

    def _score_sparse(self, gpos, rid, numeric, map_deltas):
        """Many candidates: per metric, the sums of the changed node lists from
        sparse_folds, never written out."""
        c = gpos.shape[0]
        present = gpos >= 0
        on_index = np.cumsum(self.online) - 1
        off_index = np.cumsum(~self.online) - 1
        safe = np.where(present, gpos, 0)
        online_at = present & self.online[safe]
        offline_at = present & ~self.online[safe]
        on_base = self.base[self.online]
        off_base = self.base[~self.online]
        n_on = float(on_base.shape[0])
        score = np.zeros(c)
        for k, (_name, weight, stat, which) in enumerate(METRICS):
            if stat == MAP:
                value = self._map_stats(gpos, rid, online_at, map_deltas)
            elif which == ONLINE:
                pos, val = _changes(on_base[:, k], np.where(online_at, on_index[safe], -1),
                                    numeric[:, :, k])
                if stat == STDDEV:
                    _total, squares = deviation_sums(on_base[:, k], pos, val)
                    value = np.sqrt(squares / n_on)
                else:
                    value = sequential_sums(on_base[:, k], pos, val)
            else:
                pos, val = _changes(off_base[:, k], np.where(offline_at, off_index[safe], -1),
                                    numeric[:, :, k])
                value = sequential_sums(off_base[:, k], pos, val)
            score = score + weight * value
        return score

    def _map_stats(self, gpos, rid, online_at, map_deltas):
        """The map statistic per signature.

        A node's map only has keys of its own locations, so the changes of
        nodes that share no location touch different keys and simply add up:
        each changing row's own effect is computed once.  Candidates whose
        changing nodes may share a location are computed key by key (once per
        distinct set of rows)."""
        present = gpos >= 0
        changing = online_at.copy()
        changing[present] &= self._delta_flags(rid[present], map_deltas)
        base = float(self._base_map_value())
        if not changing.any():
            return np.full(gpos.shape[0], base)
        rows = sorted(set(rid[changing].tolist()))
        solo = np.zeros(rows[-1] + 1)
        for row in rows:
            solo[row] = float(self._map_value(map_deltas[row])) - base
        value = base + np.where(changing, solo[np.where(changing, rid, 0)], 0.0).sum(axis=1)
        loc = np.where(changing, self.location_class[np.where(present, gpos, 0)],
                       -10 - np.arange(gpos.shape[1]))
        shared = (loc == MANY_LOCATIONS).any(axis=1)
        for a in range(loc.shape[1]):
            for b in range(a + 1, loc.shape[1]):
                shared |= loc[:, a] == loc[:, b]
        if shared.any():
            rows_at = np.nonzero(shared)[0]
            keys = np.where(changing[rows_at], rid[rows_at], -1)
            first, inverse = unique_rows(keys)
            exact = np.empty(first.size)
            for u, row in enumerate(keys[first].tolist()):
                exact[u] = float(self._map_value(_merged([map_deltas[x] for x in row if x >= 0])))
            value[rows_at] = exact[inverse]
        return value

    @staticmethod
    def _delta_flags(row_ids, map_deltas):
        """Per row id: whether its map changes."""
        flags = np.array([bool(d) for d in map_deltas], dtype=bool)
        return flags[row_ids]

    @staticmethod
    def _numeric(rows, ids):
        """The rows `ids` as a float matrix (the map column as 0.0)."""
        return np.array([[0.0 if k == MAP_POS else float(v) for k, v in enumerate(rows[i])]
                         for i in ids], dtype=np.float64).reshape(len(ids), N_METRICS)

    def map_stat(self, delta_maps):
        """The map statistic with the maps of some nodes replaced.

        Counts are integers, so the merged counts of the unchanged nodes are
        taken once (base_map) and only the keys of the changed nodes are
        corrected: Σ(count - 1) over keys with a count, exactly.
        """
        self._base_map_value()
        change = {}
        for g, new_map in delta_maps:
            if not self.online[g]:
                continue
            for key, count in self.rows[g][MAP_POS].items():
                change[key] = change.get(key, 0) - count
            for key, count in new_map.items():
                change[key] = change.get(key, 0) + count
        return float(self._map_value(change))

    def _base_map_value(self):
        if self.base_map is None:
            merged = {}
            for g, row in enumerate(self.rows):
                if self.online[g]:
                    for key, count in row[MAP_POS].items():
                        merged[key] = merged.get(key, 0) + count
            self.base_map = merged
            self.base_map_value = sum(merged.values()) - len(merged)
        return self.base_map_value

    def _map_value(self, change):
        """Σ(count - 1) over keys with a count, after adding `change` to the base."""
        value = self._base_map_value()
        base = self.base_map
        for key, diff in change.items():
            if diff:
                old = base.get(key, 0)
                new = old + diff
                value += (new - 1 if new > 0 else 0) - (old - 1 if old > 0 else 0)
        return value


def _merged(deltas):
    if len(deltas) == 1:
        return deltas[0]
    change = {}
    for delta in deltas:
        for key, diff in delta.items():
            change[key] = change.get(key, 0) + diff
    return change


def _changes(base, pos, val):
    """The (pos, val) of each row that really change `base`, ascending, -1 padded
    at the end: a node whose value stays bit-identical is no change."""
    if not base.size:
        return np.full(pos.shape, -1, dtype=np.int64), np.zeros(pos.shape)
    safe = np.where(pos >= 0, pos, 0)
    real = (pos >= 0) & ~(val == base[safe])
    order = np.argsort(np.where(real, pos, np.iinfo(np.int64).max), axis=1, kind="stable")
    pos = np.take_along_axis(np.where(real, pos, -1), order, axis=1)
    val = np.ascontiguousarray(np.take_along_axis(np.where(real, val, 0.0), order, axis=1))
    return pos, val


def search_bulk(state, opts, migrations_only=False):
    """The step's best candidate, identical to `loop.search_exhaustive`."""
    if np is None:
        raise HtoolsError("the numpy Python package is required for balancing")
    group = state.group_node_objs()
    online = state.online()
    cand_victims = victims(state, opts)
    if not cand_victims or not online:
        return None
    layout = unit_layout(group)
    if layout == MIXED:
        # units the bulk rules cannot follow: only the scalar model scores them
        return search_exhaustive(state, opts, migrations_only)
    scorer = ExactScorer(group)
    finite = bool(np.isfinite(scorer.base[scorer.online]).all())
    nd = _Nodes(group)
    excl_in_group = any(n.excl_storage for n in group)
    online_rank = {idx: r for r, idx in enumerate(online)}
    pool = _Pool(4 * ABS_TOL)
    exact_pool = []          # (score, rank, key, result) of scalar-tried candidates
    # regular victims by the storage unit their disks take (one search each)
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
            members = by_unit.setdefault(uid, ([], []))
            members[0].append(inst)
            members[1].append(vpos)
        else:
            _scalar_instance(state, inst, vpos, online, online_rank, opts, scorer, exact_pool)
    searches = [_unit_search(scorer, nd, layout, uid, regular, regular_pos, charge)
                for uid, (regular, regular_pos) in by_unit.items()]
    if searches:
        pool.band = 4 * max(stats.error_bound for _nd, stats, _ins, _pos in searches)
        targets = np.array([nd.pos[t] for t in online], dtype=np.int64)
        node_idx = np.array([n.idx for n in group], dtype=np.int64)
        per_block = max(1, BLOCK // max(1, targets.size))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for nd_u, stats, all_ins, regular_pos in searches:
                for start in range(0, len(regular_pos), per_block):
                    rows = list(range(start, min(len(regular_pos), start + per_block)))
                    _bulk_block(nd_u, stats, all_ins.take(rows), [regular_pos[r] for r in rows],
                                targets, node_idx, opts, pool)
    if migrations_only:
        pool.keep_moves((FAILOVER, FAILOVER_TO_ANY))
        exact_pool = [e for e in exact_pool if e[2][1] in (FAILOVER, FAILOVER_TO_ANY)]
    try:
        return _choose(state, opts, scorer, nd, pool, exact_pool, pool.band / 2)
    except _Disagreement:
        # Never expected (tests assert none); the reference search is always right.
        state.stats.fallbacks += 1
        return search_exhaustive(state, opts, migrations_only)
    finally:
        state.stats.bulk_scored += pool.scored
        state.stats.exact_scored += scorer.scored


def _unit_search(scorer, nd, layout, uid, regular, regular_pos, charge):
    """(nodes, stats, victims, their positions) of the bulk search of the
    victims whose disks take storage unit `uid` (None: no units at all)."""
    group = nd.objs
    base, scale, fixed = scorer.base, 1.0, 0.0
    if uid is not None:
        nd = copy.copy(nd)
        nd.use_storage_unit(uid)
        (now, forth), scale, fixed = unit_score_parts(group, layout, uid)
        base = base.copy()
        base[:, FREE_DISK] = now
        base[:, FREE_DISK_FORTH] = forth
    regular, regular_pos = _first_of_each_kind(regular, regular_pos, nd.pos)
    tagged = any(i.excl_tags for i in regular)
    if tagged:
        nd.tags = _Tags(group, regular, scorer.online)
    stats = _Stats(base, scorer.online, scorer.map_stat([]),
                   _identical_metrics(nd, scorer.online, regular), tagged, scale, fixed)
    all_ins = _Insts(regular, nd.pos, charge if uid is not None else None)
    if tagged:
        all_ins.inc = nd.tags.inc
    return nd, stats, all_ins, regular_pos


def _first_of_each_kind(regular, regular_pos, group_pos):
    """Only the first victim of each kind: same nodes, same everything the
    node algebra reads.  Any move of a later one leaves every node exactly as
    the same move of the first does, so it scores the same to the last bit and
    loses the tie to the earlier victim (hbal's order)."""
    seen = set()
    kept, kept_pos = [], []
    for inst, vpos in zip(regular, regular_pos):
        kind = (group_pos[inst.pnode], group_pos.get(inst.snode, -1), inst.location_score,
                instance_profile(inst))
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


# Radix of the move digit of a rank: above every move position in a per-target list.
RANK_RADIX = len(MOVE_KINDS)


def _encode_rank(vpos, col_rank, m_pos, n_targets):
    """hbal's enumeration order as one integer: victim, then failover/target, then move.

    vpos is the victim's position; col_rank is 0 for the failover to the
    secondary, else 1 + the target's position among the online nodes; m_pos
    is the move's position in the instance's per-target list.  Ints or numpy
    integer arrays (element-wise).
    """
    return (vpos * (n_targets + 1) + col_rank) * RANK_RADIX + m_pos


def _scalar_instance(state, inst, vpos, online, online_rank, opts, scorer, exact_pool):
    """Try every move of one instance with the scalar model and score it exactly."""
    use_sec = inst.snode in online_rank and opts.inst_moves
    moves = possible_moves(inst.mirror, use_sec, opts.inst_moves, opts.disk_moves,
                           opts.restricted_migration, state.nodes[inst.pnode].offline)
    tried = []
    for move, target in instance_moves(state, inst, online, opts):
        result = apply_move(state.nodes, inst, move, target, opts.force)
        if isinstance(result, str):
            continue
        if move == FAILOVER:
            rank = _encode_rank(vpos, 0, 0, len(online))
        else:
            rank = _encode_rank(vpos, online_rank[target] + 1, moves.index(move), len(online))
        tried.append((rank, (inst.idx, move, target), result))
    scores = scorer.scores([t[2][0] for t in tried])
    for (rank, key, result), score in zip(tried, scores):
        exact_pool.append((score, rank, key, result))


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
    arrays = pool.arrays()
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
