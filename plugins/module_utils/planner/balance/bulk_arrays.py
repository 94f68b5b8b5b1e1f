# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The arrays of the bulk search: node and instance state as numpy columns, and
the placement rules (add/remove a primary or secondary) over them.

A part of the bulk search (bulk_search.py).
"""

from __future__ import annotations

from ...deps import numpy as np

from ...model.storage import unit_slot
from ..metrics import LOAD_METRICS, MAP, METRICS, METRIC_NAMES
from ..moves import MOVE_KINDS

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
MAP_POS = [k for k, m in enumerate(METRICS) if m.statistic == MAP][0]


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


def _plus(score, delta):
    return score if delta is None else score + delta


def _with_loc(state, loc_score):
    out = state.copy()
    out.loc = state.loc + loc_score
    return out


RANK_RADIX = len(MOVE_KINDS)


def _encode_rank(vpos, col_rank, m_pos, n_targets):
    """hbal's enumeration order as one integer: victim, then failover/target, then move.

    vpos is the victim's position; col_rank is 0 for the failover to the
    secondary, else 1 + the target's position among the online nodes; m_pos
    is the move's position in the instance's per-target list.  Ints or numpy
    integer arrays (element-wise).
    """
    return (vpos * (n_targets + 1) + col_rank) * RANK_RADIX + m_pos
