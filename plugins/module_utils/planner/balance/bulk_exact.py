# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The exact scorer of the bulk search: re-scores the candidates near the best
with the rows the touched nodes end with, summed in node order as hbal does.

A part of the bulk search (bulk_search.py).
"""

from __future__ import annotations

from ...deps import numpy as np

from ...model.vocabulary import MIRROR_EXTERNAL, MIRROR_INTERNAL, NO_NODE
from ..metrics import (MAP, METRICS, ONLINE, STDDEV, SUM, cluster_score, needs_unit_metric,
                       node_values)
from .bulk_arrays import EXACT_CHUNK, MANY_LOCATIONS, MAP_POS, NO_LOCATION, N_METRICS
from .move_rows import map_delta
from .sparse_folds import DENSE_LIMIT, deviation_sums, sequential_sums, unique_rows


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
