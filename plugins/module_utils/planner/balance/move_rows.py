# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exact metric rows of the nodes a move touches, memoised per node transition.

`apply_move` copies two or three whole nodes per candidate.  When thousands
of candidates tie (symmetric clusters), most of them change the same node
in the same way: the row a node ends with depends only on the node, the
steps applied to it (the same Node methods in the same order as
`apply_move`), the instance's resources (not its name), its location score
before and after, and for DRBD reservations one peer figure.  Those make a
transition key; the keys of a whole batch of candidates are built as arrays,
each distinct key is run once (and remembered until a step changes its node),
and every candidate is named by its signature: the group positions of the
nodes it touches and the ids of the rows they end with.  Candidates with
equal signatures have bit-identical scores.
"""

from __future__ import annotations

from ...deps import numpy as np
from ..metrics import METRICS, MAP, node_values
from ..moves import (FAILOVER, FAILOVER_AND_REPLACE, FAILOVER_TO_ANY, MOVE_KINDS,
                     REPLACE_AND_FAILOVER, REPLACE_PRIMARY, REPLACE_SECONDARY)
from .sparse_folds import unique_rows

MAP_POS = [k for k, m in enumerate(METRICS) if m.statistic == MAP][0]

# Transition kinds: what happens to one node (see _steps).
(ADD_PRI, STRIP_PRI, FAILOVER_SEC, FAILOVER_PRI, REPLACE_PRIMARY_SEC, STRIP_SEC, ADD_SEC,
 REPRIMARY, STRIP_PRI_ADD_SEC, STRIP_SEC_ADD_PRI) = range(10)
# Columns of a transition key.
KIND, NODE, PROFILE, LOC_OLD, LOC_NEW, PARTNER, AMOUNT, FLAG = range(8)
NO_ROW = -1
# Rows kept between steps at most; beyond, they are all dropped at the next step.
ROW_LIMIT = 1 << 20


def instance_profile(inst):
    """Everything of an instance that the node algebra reads, except where it is."""
    return (inst.mem, inst.dsk, tuple(tuple(d) for d in inst.disks), inst.vcpus,
            inst.run_status, inst.auto_balance, inst.template, inst.spindle_use,
            inst.forthcoming, tuple(inst.util), tuple(inst.excl_tags), inst.dsrd_loc_tags,
            inst.disk_units)


def _steps(kind, inst, loc_new, flag, pdx, offline):
    """The Node method calls of a transition, as apply_move makes them."""
    def placed():
        moved = inst.copy()
        moved.location_score = loc_new
        return moved

    if kind == ADD_PRI:
        return [("add_pri", (placed(), flag))]
    if kind == STRIP_PRI:
        return [("remove_pri", (inst,))]
    if kind == FAILOVER_SEC:
        return [("remove_sec", (inst,)), ("add_pri", (inst, flag))]
    if kind == FAILOVER_PRI:
        return [("remove_pri", (inst,)), ("add_sec", (inst, pdx, flag, offline))]
    if kind == REPLACE_PRIMARY_SEC:
        moved = placed()
        return [("remove_sec", (inst,)), ("add_pri", (moved, flag)), ("remove_pri", (moved,)),
                ("add_sec", (moved, pdx, flag))]
    if kind == STRIP_SEC:
        return [("remove_sec", (inst,))]
    if kind == ADD_SEC:
        return [("add_sec", (placed(), pdx, flag))]
    if kind == REPRIMARY:
        return [("remove_pri", (inst,)), ("add_pri", (placed(), True))]
    if kind == STRIP_PRI_ADD_SEC:
        return [("remove_pri", (inst,)), ("add_sec", (placed(), pdx, flag))]
    return [("remove_sec", (inst,)), ("add_pri", (placed(), flag))]      # STRIP_SEC_ADD_PRI


class MoveRows:
    """Transition rows of one balancing run's group, kept between steps."""

    def __init__(self, nodes, group, force):
        self.nodes = nodes               # the state's node list (updated in place)
        self.group = list(group)         # node idx by group position
        self.force = bool(force)
        self.rows = []                   # row id -> node_values tuple
        self.map_deltas = []             # row id -> {map key: count change} (MAP metric)
        self._memo = {}                  # transition key tuple -> row id, or NO_ROW
        self._fails = {}                 # transition key tuple -> FailMode
        self._profiles = {}              # profile tuple -> small int
        self._inst_profile = {}          # instance idx -> small int

    def forget(self, node_idxs):
        """Drop the transitions of the nodes `node_idxs` (a step changed them)."""
        if len(self.rows) > ROW_LIMIT:           # bound a long plan's memory
            self.rows, self.map_deltas, self._memo, self._fails = [], [], {}, {}
            return
        changed = set(node_idxs)
        gone = {g for g, idx in enumerate(self.group) if idx in changed}
        self._memo = {k: v for k, v in self._memo.items() if k[NODE] not in gone}
        self._fails = {k: v for k, v in self._fails.items() if k[NODE] not in gone}

    def _prof(self, inst):
        pid = self._inst_profile.get(inst.idx)
        if pid is None:
            pid = self._profiles.setdefault(instance_profile(inst), len(self._profiles))
            self._inst_profile[inst.idx] = pid
        return pid

    def signatures(self, nd, instances, inst, move, target):
        """Signatures of candidates given as arrays (instance idx, move code as a
        position in `moves.MOVE_KINDS`, target node idx).

        Returns (positions, rows, failed): (m, 3) group positions ascending
        with -1 padding, the (m, 3) row ids at those positions, and per
        candidate the FailMode of a move apply_move would refuse, or None."""
        m = inst.size
        # (not np.unique: its first call imports numpy.ma, 0.1 s)
        objs = {i: instances[i] for i in sorted(set(inst.tolist()))}
        lookup = {i: k for k, i in enumerate(objs)}
        which = np.array([lookup[i] for i in inst.tolist()], dtype=np.int64)
        per_inst = np.array([(nd.pos[o.pnode], nd.pos.get(o.snode, -1), self._prof(o),
                              o.location_score) for o in objs.values()],
                            dtype=np.int64).reshape(-1, 4)[which]
        p, s, pid, loc = per_inst.T
        t = np.array([nd.pos.get(x, -1) for x in target.tolist()], dtype=np.int64)
        fp = (nd.offline[p] | self.force).astype(np.int64)
        s_safe = np.where(s >= 0, s, 0)
        t_safe = np.where(t >= 0, t, 0)
        fs = (nd.offline[s_safe] | self.force).astype(np.int64)
        loc_pairs = nd.loc_pairs.astype(np.int64)
        peers = nd.peers.astype(np.int64)
        keys = np.zeros((m, 3, 8), dtype=np.int64)
        pdx = np.full((m, 3), -1, dtype=np.int64)      # partner node (group position) to add_sec
        mig_fail = np.zeros(m, dtype=bool)
        used = np.zeros((m, 3), dtype=bool)

        def role(j, rows, kind, node, loc_old=0, loc_new=0, partner=0, amount=0, flag=0,
                 add_sec_to=None):
            keys[rows, j, KIND] = kind
            keys[rows, j, NODE] = node
            keys[rows, j, PROFILE] = pid[rows]
            keys[rows, j, LOC_OLD] = loc_old
            keys[rows, j, LOC_NEW] = loc_new
            keys[rows, j, PARTNER] = partner
            keys[rows, j, AMOUNT] = amount
            keys[rows, j, FLAG] = flag
            used[rows, j] = True
            if add_sec_to is not None:
                pdx[rows, j] = add_sec_to

        for code, name in enumerate(MOVE_KINDS):
            r = np.nonzero(move == code)[0]
            if not r.size:
                continue
            pr, sr, tr, sr_safe, tr_safe = p[r], s[r], t[r], s_safe[r], t_safe[r]
            if name == FAILOVER:
                mig_fail[r] = ~nd.mig_ok[pr, sr_safe]
                role(0, r, FAILOVER_SEC, sr, loc[r], loc[r], pr, 0, fp[r])
                role(1, r, FAILOVER_PRI, pr, loc[r], loc[r], sr, peers[pr, sr_safe], fp[r],
                     add_sec_to=sr)
            elif name == FAILOVER_TO_ANY:
                mig_fail[r] = ~nd.mig_ok[pr, tr_safe]
                role(0, r, ADD_PRI, tr, 0, loc[r], 0, 0, fp[r])
                role(1, r, STRIP_PRI, pr, loc[r])
            elif name == REPLACE_PRIMARY:
                mig_fail[r] = ~nd.mig_ok[pr, sr_safe] | ~nd.mig_ok[sr_safe, tr_safe]
                new = loc_pairs[tr_safe, sr_safe]
                role(0, r, STRIP_PRI, pr, loc[r])
                role(1, r, REPLACE_PRIMARY_SEC, sr, loc[r], new, pr, peers[sr_safe, tr_safe],
                     fp[r], add_sec_to=tr)
                role(2, r, ADD_PRI, tr, 0, new, 0, 0, fp[r])
            elif name == REPLACE_SECONDARY:
                new = loc_pairs[pr, tr_safe]
                role(0, r, STRIP_SEC, sr, loc[r], 0, pr)
                role(1, r, ADD_SEC, tr, 0, new, 0, peers[tr_safe, pr], fs[r], add_sec_to=pr)
                role(2, r, REPRIMARY, pr, loc[r], new)
            elif name == REPLACE_AND_FAILOVER:
                mig_fail[r] = ~nd.mig_ok[pr, tr_safe]
                new = loc_pairs[tr_safe, pr]
                role(0, r, STRIP_SEC, sr, loc[r], 0, pr)
                role(1, r, ADD_PRI, tr, 0, new, 0, 0, int(self.force))
                role(2, r, STRIP_PRI_ADD_SEC, pr, loc[r], new, 0, peers[pr, tr_safe], fs[r],
                     add_sec_to=tr)
            elif name == FAILOVER_AND_REPLACE:
                mig_fail[r] = ~nd.mig_ok[pr, sr_safe]
                new = loc_pairs[sr_safe, tr_safe]
                role(0, r, STRIP_PRI, pr, loc[r])
                role(1, r, STRIP_SEC_ADD_PRI, sr, loc[r], new, pr, 0, fp[r])
                role(2, r, ADD_SEC, tr, 0, new, 0, peers[tr_safe, sr_safe], fp[r],
                     add_sec_to=sr)
        row_ids = self._row_ids(keys, used, pdx, inst, instances)
        failed = [None] * m
        for j in np.nonzero(mig_fail)[0].tolist():
            failed[j] = "FailMig"
        bad_rows, bad_roles = np.nonzero(used & (row_ids == NO_ROW))
        for j, k in zip(bad_rows.tolist(), bad_roles.tolist()):
            failed[j] = failed[j] or self._fails[tuple(keys[j, k].tolist())]
        positions = np.where(used, keys[:, :, NODE], -1)
        order = np.argsort(np.where(used, positions, np.iinfo(np.int64).max), axis=1,
                           kind="stable")
        positions = np.take_along_axis(positions, order, axis=1)
        row_ids = np.take_along_axis(np.where(used, row_ids, NO_ROW), order, axis=1)
        return positions, row_ids, failed

    def _row_ids(self, keys, used, pdx, inst, instances):
        """Row ids of the used transition keys; each distinct key runs once."""
        flat = keys[used]
        first, inverse = unique_rows(flat)
        where = np.argwhere(used)[first]          # (candidate, role) of each distinct key
        ids = np.empty(first.size, dtype=np.int64)
        for u, key in enumerate(flat[first].tolist()):
            key = tuple(key)
            hit = self._memo.get(key)
            if hit is None:
                j, role = where[u]
                hit = self._run(key, instances[int(inst[j])], int(pdx[j, role]))
            ids[u] = hit
        out = np.full(used.shape, NO_ROW, dtype=np.int64)
        out[used] = ids[inverse]
        return out

    def _run(self, key, inst, pdx_g):
        node_idx = self.group[key[NODE]]
        node = self.nodes[node_idx].copy()
        pdx = self.group[pdx_g] if pdx_g >= 0 else None
        for method, args in _steps(key[KIND], inst, key[LOC_NEW], bool(key[FLAG]), pdx,
                                   node.offline):
            fail = getattr(node, method)(*args)
            if fail:
                self._memo[key] = NO_ROW
                self._fails[key] = fail
                return NO_ROW
        row = len(self.rows)
        values = node_values(node)
        self.rows.append(values)
        self.map_deltas.append(map_delta(self.nodes[node_idx].instance_map, values[MAP_POS]))
        self._memo[key] = row
        return row


def map_delta(old, new):
    """{key: new count - old count} for the keys whose count changed."""
    delta = {key: count - old.get(key, 0) for key, count in new.items()
             if count != old.get(key, 0)}
    for key, count in old.items():
        if key not in new:
            delta[key] = -count
    return delta
