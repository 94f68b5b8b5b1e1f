# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exact group scores of many candidates at once.

A candidate replaces a few nodes of the group; the score is hail's full
recomputation (metrics.cluster_score): sums in node order, mean first, then
the squared deviations, metrics added in table order.  Here all candidates
share one matrix (candidates x nodes x metrics) and numpy's cumulative sums,
which add in order too, so the results are bit-identical.
"""

from __future__ import annotations

from ...deps import numpy as np
from ..metrics import METRICS, MAP, ONLINE, SUM, cluster_score, needs_unit_metric, node_values

N_METRICS = len(METRICS)
MAP_POS = [k for k, m in enumerate(METRICS) if m.statistic == MAP][0]
CHUNK = 65536          # node rows per numpy batch: bounded memory


def numeric(values):
    return [0.0 if k == MAP_POS else float(v) for k, v in enumerate(values)]


class RowCache:
    """node_values per node object.  Nodes in a state are replaced, never
    changed, so a node's row stays valid while the object lives."""

    def __init__(self):
        self.cache = {}

    def _entry(self, node):
        hit = self.cache.get(id(node))
        if hit is None or hit[0] is not node:
            values = node_values(node)
            hit = (node, values, np.array(numeric(values), dtype=np.float64))
            self.cache[id(node)] = hit
        return hit

    def __call__(self, node):
        return self._entry(node)[1]

    def numeric(self, node):
        """The row as a float array (the map metric as 0)."""
        return self._entry(node)[2]


class GroupScorer:
    def __init__(self, group_nodes, rows=node_values):
        self.values = rows
        self.rows = [rows(n) for n in group_nodes]
        self.online = np.array([not n.offline for n in group_nodes], dtype=bool)
        if isinstance(rows, RowCache):
            self.base = np.array([rows.numeric(n) for n in group_nodes],
                                 dtype=np.float64).reshape(len(group_nodes), N_METRICS)
        else:
            self.base = np.array([numeric(r) for r in self.rows],
                                 dtype=np.float64).reshape(len(group_nodes), N_METRICS)
        self.pos = {n.idx: g for g, n in enumerate(group_nodes)}
        self.merged = None
        # several storage units per node: the metric is not per-node columns
        self.unit_nodes = list(group_nodes) if needs_unit_metric(group_nodes) else None

    def scores(self, changes):
        """changes: [{node idx: Node}] (nodes outside the group are ignored)."""
        if not self.online.any():
            return [0.0] * len(changes)       # no online node: score 0, as in hail
        if self.unit_nodes is not None:
            return [cluster_score([changed.get(n.idx, n) for n in self.unit_nodes])
                    for changed in changes]
        step = max(1, CHUNK // max(1, len(self.rows)))
        out = []
        for start in range(0, len(changes), step):
            out.extend(self._scores(changes[start:start + step]))
        return out

    def _scores(self, changes):
        count = len(changes)
        mat = np.repeat(self.base[None, :, :], count, axis=0)
        maps = []
        for r, changed in enumerate(changes):
            replaced = {}
            for idx, node in changed.items():
                g = self.pos.get(idx)
                if g is None:
                    continue
                vals = self.values(node)
                mat[r, g, :] = (self.values.numeric(node) if isinstance(self.values, RowCache)
                                else numeric(vals))
                replaced[g] = vals[MAP_POS]
            maps.append(replaced)
        on = mat[:, self.online, :]
        off = mat[:, ~self.online, :]
        score = np.zeros(count)
        n_on = float(on.shape[1])
        for k, (_name, weight, stat, which) in enumerate(METRICS):
            if stat == MAP:
                value = np.array([self._map_stat(m) for m in maps])
            elif stat == SUM:
                cols = on[:, :, k] if which == ONLINE else off[:, :, k]
                value = np.cumsum(cols, axis=1)[:, -1] if cols.shape[1] else np.zeros(count)
            else:                       # STDDEV, the only other statistic
                cols = on[:, :, k]
                mean = np.cumsum(cols, axis=1)[:, -1] / n_on
                dev = cols - mean[:, None]
                value = np.sqrt(np.cumsum(dev * dev, axis=1)[:, -1] / n_on)
            score = score + weight * value
        return [float(x) for x in score]

    def _map_stat(self, replaced):
        if self.merged is None:
            self.merged = {}
            for g, row in enumerate(self.rows):
                if self.online[g]:
                    for key, cnt in row[MAP_POS].items():
                        self.merged[key] = self.merged.get(key, 0) + cnt
        merged = dict(self.merged)
        for g, new in replaced.items():
            if self.online[g]:
                for key, cnt in self.rows[g][MAP_POS].items():
                    merged[key] -= cnt
                for key, cnt in new.items():
                    merged[key] = merged.get(key, 0) + cnt
        # a key whose count drops to zero is no key at all in a recomputation
        return float(sum(merged.values()) - sum(1 for cnt in merged.values() if cnt))
