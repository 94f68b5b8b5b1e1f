# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exact metric rows of the nodes a move touches, memoised per node transition.

`apply_move` copies two or three whole nodes per candidate.  When thousands
of candidates tie (symmetric clusters), most of them change the same node
in the same way: the row a node ends with depends only on the node, the
steps applied to it, the instance's resources (not its name) and, for DRBD
reservations, one peer figure.  This module runs each distinct transition
once, with the same Node methods and in the same order as `apply_move`, and
names every candidate by the rows it produces: its signature.  Candidates
with equal signatures have bit-identical scores.
"""

from __future__ import annotations

from ...deps import numpy as np
from ...model.node import check_migration
from ..metrics import METRICS, MAP, node_values
from ..moves import (FAILOVER, FAILOVER_AND_REPLACE, FAILOVER_TO_ANY, REPLACE_AND_FAILOVER,
                     REPLACE_PRIMARY, REPLACE_SECONDARY, loc_score)

MAP_POS = [k for k, m in enumerate(METRICS) if m[2] == MAP][0]


def _profile(inst):
    """Everything of an instance that the node algebra reads, except where it is."""
    return (inst.mem, inst.dsk, tuple(tuple(d) for d in inst.disks), inst.vcpus,
            inst.run_status, inst.auto_balance, inst.template, inst.spindle_use,
            inst.forthcoming, tuple(inst.util), tuple(inst.excl_tags), inst.dsrd_loc_tags)


class MoveRows:
    """Signatures of candidate moves on one node list (one balancing step)."""

    def __init__(self, nodes, group_pos, force):
        self.nodes = nodes
        self.group_pos = group_pos       # node idx -> position in the group
        self.force = force
        self.rows = []                   # row id -> node_values tuple
        self.map_deltas = []             # row id -> {map key: count change} (MAP metric)
        self._memo = {}                  # transition key -> row id or FailMode
        self._signatures = {}            # (profile, location score, p, s, target, move) -> sig
        self._profiles = {}              # profile tuple -> small int
        self._inst_profile = {}          # instance idx -> small int

    def _prof(self, inst):
        pid = self._inst_profile.get(inst.idx)
        if pid is None:
            pid = self._profiles.setdefault(_profile(inst), len(self._profiles))
            self._inst_profile[inst.idx] = pid
        return pid

    def profile_ids(self, inst_idx, instances):
        """The profile ids of the instances `inst_idx` (numpy array), as an array."""
        ids = [self._prof(instances[i]) for i in inst_idx.tolist()]
        return np.array(ids, dtype=np.int64)

    def _row(self, key, node_idx, steps):
        """The row id of node `node_idx` after `steps` (Node methods), or a FailMode.

        `steps` is a function returning [(method name, args)], called only when
        the transition is new (it may build the moved instance)."""
        hit = self._memo.get(key)
        if hit is None:
            node = self.nodes[node_idx].copy()
            for method, args in steps():
                fail = getattr(node, method)(*args)
                if fail:
                    hit = fail
                    break
            else:
                hit = len(self.rows)
                values = node_values(node)
                self.rows.append(values)
                self.map_deltas.append(map_delta(self.nodes[node_idx].instance_map,
                                                  values[MAP_POS]))
            self._memo[key] = hit
        return hit

    def forget(self, node_idxs):
        """Drop what depends on the nodes `node_idxs` (a step changed them)."""
        gone = set(node_idxs)
        self._memo = {k: v for k, v in self._memo.items() if k[1] not in gone}
        self._signatures = {k: v for k, v in self._signatures.items()
                            if k[2] not in gone and k[3] not in gone and k[4] not in gone}

    def signature(self, inst, move, target):
        """((group position, row id), ...) sorted by position, or a FailMode string."""
        key = (self._prof(inst), inst.location_score, inst.pnode, inst.snode, target, move)
        sig = self._signatures.get(key)
        if sig is None:
            sig = self._signatures[key] = self._signature(inst, move, target)
        return sig

    def _signature(self, inst, move, target):
        touched = self._touched(inst, move, target)
        if isinstance(touched, str):
            return touched
        out = []
        for idx, row in touched:
            if isinstance(row, str):
                return row
            g = self.group_pos.get(idx)
            if g is not None:
                out.append((g, row))
        out.sort()
        return tuple(out)

    def _touched(self, inst, move, target):
        """[(node idx, row id or FailMode)] in apply_move's terms."""
        nodes, force, row = self.nodes, self.force, self._row
        p, s = inst.pnode, inst.snode
        P = nodes[p]
        prof = (self._prof(inst), inst.location_score)
        if move == FAILOVER_TO_ANY:
            T = nodes[target]
            fp = P.offline or force
            return check_migration(P, T) or (
                (target, row(("ap", target, prof, fp), target,
                             lambda: (("add_pri", (inst, fp)),))),
                (p, row(("rp", p, prof), p, lambda: (("remove_pri", (inst,)),))),
            )
        S = nodes[s]
        if move == FAILOVER:
            fp = P.offline or force
            return check_migration(P, S) or (
                (s, row(("f_s", s, prof, p, fp), s,
                        lambda: (("remove_sec", (inst,)), ("add_pri", (inst, fp))))),
                (p, row(("f_p", p, prof, s, fp), p,
                        lambda: (("remove_pri", (inst,)), ("add_sec", (inst, s, fp, P.offline))))),
            )
        T = nodes[target]
        strip_p = ("remove_pri", (inst,))
        strip_s = ("remove_sec", (inst,))
        if move == REPLACE_PRIMARY:
            loc = loc_score(T, S)
            fp = P.offline or force

            def steps_s():
                moved = _placed(inst, target, s, loc)
                return (strip_s, ("add_pri", (moved, fp)), ("remove_pri", (moved,)),
                        ("add_sec", (moved, target, fp)))
            return check_migration(P, S) or check_migration(S, T) or (
                (p, row(("rp", p, prof), p, lambda: (strip_p,))),
                (s, row(("rprim_s", s, prof, p, loc, S.peers.get(target, 0), fp), s,
                        steps_s)),
                (target, row(("ap", target, (prof[0], loc), fp), target,
                             lambda: (("add_pri", (_placed(inst, target, s, loc), fp)),))),
            )
        if move == REPLACE_SECONDARY:
            loc = loc_score(P, T)
            fs = S.offline or force
            return (
                (s, row(("rs", s, prof, p), s, lambda: (strip_s,))),
                (target, row(("as", target, (prof[0], loc), T.peers.get(p, 0), fs), target,
                             lambda: (("add_sec", (_placed(inst, p, target, loc), p, fs)),))),
                (p, row(("rp_ap", p, prof, loc), p,
                        lambda: (strip_p, ("add_pri", (_placed(inst, p, target, loc), True))))),
            )
        if move == REPLACE_AND_FAILOVER:
            loc = loc_score(T, P)
            fs = S.offline or force
            return check_migration(P, T) or (
                (s, row(("rs", s, prof, p), s, lambda: (strip_s,))),
                (target, row(("ap", target, (prof[0], loc), force), target,
                             lambda: (("add_pri", (_placed(inst, target, p, loc), force)),))),
                (p, row(("rp_as", p, prof, loc, P.peers.get(target, 0), fs), p,
                        lambda: (strip_p, ("add_sec", (_placed(inst, target, p, loc), target, fs))))),
            )
        if move == FAILOVER_AND_REPLACE:
            loc = loc_score(S, T)
            fp = P.offline or force
            return check_migration(P, S) or (
                (p, row(("rp", p, prof), p, lambda: (strip_p,))),
                (s, row(("rs_ap", s, prof, p, loc, fp), s,
                        lambda: (strip_s, ("add_pri", (_placed(inst, s, target, loc), fp))))),
                (target, row(("as", target, (prof[0], loc), T.peers.get(s, 0), fp), target,
                             lambda: (("add_sec", (_placed(inst, s, target, loc), s, fp)),))),
            )
        raise ValueError("unknown move %r" % move)


def map_delta(old, new):
    """{key: new count - old count} for the keys whose count changed."""
    delta = {key: count - old.get(key, 0) for key, count in new.items()
             if count != old.get(key, 0)}
    for key, count in old.items():
        if key not in new:
            delta[key] = -count
    return delta


def _placed(inst, pnode, snode, location_score=None):
    moved = inst.copy()
    moved.pnode, moved.snode = pnode, snode
    if location_score is not None:
        moved.location_score = location_score
    return moved
