# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The order of one-node allocation candidates by cluster score, exact
without scoring every candidate in full.

tryAlloc scores each candidate by recomputing the whole cluster's score
(compCV: sums in node order, mean first, then the squared deviations), and
the order of those scores decides which candidate wins and which are
checked for N+1 first.  Here every candidate's score is estimated from the
column statistics of the cluster as it is, together with a bound on how far
the estimate and the exact score can each be from the true value.  Where
the intervals of two candidates do not overlap their order is certain; only
runs of overlapping candidates are scored in full, with the exact
arithmetic of metrics.row_metric_values, so the order given is the exact one.
"""

from __future__ import annotations

import functools

from ...deps import numpy as np
from ..metrics import (METRICS, METRIC_WEIGHTS, MAP, OFFLINE, ONLINE, STDDEV, SUM,
                       map_stat, node_values, row_metric_values, total_score)

EPS = 2.0 ** -52            # twice the unit roundoff of a double: the bounds stay loose
SAFETY = 4.0                # and are widened once more; a wider bound only costs time
STD_COLS = [k for k, m in enumerate(METRICS) if m.statistic == STDDEV]
SUM_ON_COLS = [k for k, m in enumerate(METRICS) if m.statistic == SUM and m.nodes == ONLINE]
SUM_OFF_COLS = [k for k, m in enumerate(METRICS) if m.statistic == SUM and m.nodes == OFFLINE]
MAP_COL = [k for k, m in enumerate(METRICS) if m.statistic == MAP][0]


@functools.lru_cache(maxsize=1)
def _indices():
    """(STD_COLS, SUM_ON_COLS, SUM_OFF_COLS, METRIC_WEIGHTS) as numpy arrays:
    an array indexes several times faster than a list.  Built on first use:
    modules that never rank (ganeti_cluster_info) import this one and must
    work without numpy."""
    return (np.array(STD_COLS, dtype=np.int64), np.array(SUM_ON_COLS, dtype=np.int64),
            np.array(SUM_OFF_COLS, dtype=np.int64), np.array(METRIC_WEIGHTS, dtype=np.float64))


def numeric_row(values):
    """A node_values row as floats, the map metric as 0."""
    return [0.0 if k == MAP_COL else float(v) for k, v in enumerate(values)]


class Scored:
    """A node with its node_values row, as floats too (the map metric as 0)."""
    __slots__ = ("node", "row", "vector")

    def __init__(self, node):
        self.node = node
        self.row = node_values(node)
        self.vector = numeric_row(self.row)


class Board:
    """The node_values rows of a node list, in its order, and which are online.
    Boards are replaced, never changed: `replaced` gives a new one."""

    __slots__ = ("values", "online", "matrix", "live", "_stats", "_map", "_finite")

    def __init__(self, values, online, matrix=None):
        self.values = values
        self.online = online
        self.matrix = matrix if matrix is not None else \
            np.array([numeric_row(v) for v in values], dtype=np.float64).reshape(len(values),
                                                                                 len(METRICS))
        self.live = np.array(online, dtype=bool)
        self._stats = self._map = self._finite = None

    def replaced(self, changes):
        """The board with rows {position: node_values} replaced."""
        values = list(self.values)
        matrix = self.matrix.copy()
        for pos, row in changes.items():
            values[pos] = row
            matrix[pos] = numeric_row(row)
        return Board(values, self.online, matrix)

    def stats(self):
        """Per column over the online rows: (sum, mean, sum of squared
        deviations from that mean, sum of magnitudes, largest magnitude);
        and the offline rows' sums and sums of magnitudes."""
        if self._stats is None:
            live = self.matrix[self.live]
            total = live.sum(axis=0)
            mean = total / float(live.shape[0])
            down = self.matrix[~self.live]
            self._stats = (total, mean, ((live - mean) ** 2).sum(axis=0), np.abs(live).sum(axis=0),
                           np.abs(live).max(axis=0), down.sum(axis=0), np.abs(down).sum(axis=0))
        return self._stats

    def finite(self):
        """Whether every value of the board is finite."""
        if self._finite is None:
            self._finite = bool(np.isfinite(self.matrix).all())
        return self._finite

    def map_value(self):
        """The map metric of the board as it is."""
        if self._map is None:
            self._map = map_stat([v[MAP_COL] for v, on in zip(self.values, self.online) if on])
        return self._map

    def exact_score(self, pos, row):
        """compCV of the node list with row `pos` replaced by `row`."""
        values = [row if k == pos else v for k, v in enumerate(self.values)]
        online = [v for v, on in zip(values, self.online) if on]
        if not online:
            return 0.0
        return total_score(row_metric_values(online, [v for v, on in zip(values, self.online)
                                                      if not on]))

    def exact_scores(self, positions, rows, vectors):
        """exact_score of each candidate at once, with the same operations in
        the same order (numpy's cumulative sums add one after another)."""
        count = len(positions)
        if not self.live.any():
            return [0.0] * count
        mat = np.repeat(self.matrix[None, :, :], count, axis=0)
        mat[np.arange(count), positions] = vectors
        live = mat[:, self.live, :]
        n_live = float(live.shape[1])
        values = np.zeros((count, len(METRICS)))
        std, son, soff, _weights = _indices()
        cols = live[:, :, std]
        mean = np.cumsum(cols, axis=1)[:, -1, :] / n_live
        dev = cols - mean[:, None, :]
        values[:, std] = np.sqrt(np.cumsum(dev * dev, axis=1)[:, -1, :] / n_live)
        values[:, son] = np.cumsum(live[:, :, son], axis=1)[:, -1, :]
        if not self.live.all():
            down = mat[:, ~self.live, :][:, :, soff]
            values[:, soff] = np.cumsum(down, axis=1)[:, -1, :]
        values[:, MAP_COL] = _map_values(self, positions, rows)
        # total_score's weighted sum in metric order, on Python's floats (the
        # same doubles, without numpy's cost per column)
        return [total_score(row) for row in values.tolist()]


class BoardKeeper:
    """The Boards of the last few node lists, and each node's Scored row
    (node objects are replaced, never changed): a list that differs from the
    latest one in a few nodes gets that board with those rows replaced, any
    other is stacked from the rows known."""

    def __init__(self, keep=4, rows=10000):
        self.keep = keep
        self.kept = []          # [(node list, Board)], newest last
        self.rows = {}          # id(node) -> Scored
        self.max_rows = rows

    def scored(self, node):
        """The Scored of a node, kept while the node is."""
        hit = self.rows.get(id(node))
        if hit is None or hit.node is not node:
            if len(self.rows) >= self.max_rows:
                self.rows.clear()
            hit = self.rows[id(node)] = Scored(node)
        return hit

    def board(self, nodes):
        for kept, board in reversed(self.kept):
            if kept is nodes:
                return board
        board = self._patched(nodes)
        if board is None:
            scored = [self.scored(n) for n in nodes]
            board = Board([s.row for s in scored], [not n.offline for n in nodes],
                          np.array([s.vector for s in scored], dtype=np.float64))
        self.kept = self.kept[-(self.keep - 1):] + [(nodes, board)]
        return board

    def _patched(self, nodes):
        if not self.kept or len(self.kept[-1][0]) != len(nodes):
            return None
        kept, board = self.kept[-1]
        changed = [k for k, n in enumerate(nodes) if n is not kept[k]]
        if len(changed) > 2 or any(bool(nodes[k].offline) == board.online[k] for k in changed):
            return None
        return board.replaced({k: self.scored(nodes[k]).row for k in changed})


def _map_values(board, positions, rows):
    """The map metric per candidate, as metrics.map_stat computes it."""
    base = [board.values[p][MAP_COL] for p in positions]
    if all(new[MAP_COL] == old for new, old in zip(rows, base)):
        return np.full(len(rows), board.map_value())
    return np.array([map_stat([(row if k == pos else v)[MAP_COL]
                               for k, (v, on) in enumerate(zip(board.values, board.online)) if on])
                     for pos, row in zip(positions, rows)], dtype=np.float64)


def _stddev_estimates(stats, n_nodes, x, y):
    """(values, error bounds) of the population deviations with one value
    replaced per candidate: x by y.  The deviations are taken about the
    rounded mean m0 (exact in real numbers for any m0), so the error depends
    on the spread of the values, not on their size; where the deviation is
    near 0 the square root magnifies the error, and the bound says so."""
    total, m0, spread, abs_total, biggest, n = stats
    delta = y - x
    mean = (total + delta) / n
    d = mean - m0
    ex2, ey2, nd2 = (x - m0) ** 2, (y - m0) ** 2, n * d * d
    dev = np.maximum(spread - ex2 + ey2 - nd2, 0.0)
    sig = np.sqrt(dev / n)
    err_d = (n_nodes + 3) * EPS * (abs_total + np.abs(delta)) / n + EPS * (np.abs(mean) + np.abs(d))
    err_dev = 2 * ((n_nodes + 8) * EPS * (spread + ex2 + ey2 + nd2 + dev)
                   + n * (2 * np.abs(d) + err_d) * err_d)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.sqrt(err_dev / n)
        err_est = np.where(sig > 0, np.minimum(near, err_dev / (n * sig)), near)
    err_exact = (n_nodes + 2) * EPS * np.maximum(biggest, np.abs(y)) + \
        (n_nodes + 5) * EPS * (sig + err_est)
    return sig, err_est + err_exact


def estimates(board, positions, rows, vectors=None):
    """(scores, bounds): per candidate (row `positions[i]` replaced by
    `rows[i]`, online nodes only) an estimate of its exact score, and a
    bound that the exact score is within; None when the estimate cannot be
    trusted (no online node, a value that is not finite).  `vectors` are the
    rows as numeric_row gives them, when the caller has them."""
    pos = np.array(positions, dtype=np.int64)
    if not board.live.any() or not board.live[pos].all():
        return None
    if vectors is None:
        vectors = [numeric_row(r) for r in rows]
    new = np.array(vectors, dtype=np.float64).reshape(len(rows), len(METRICS))
    if not (board.finite() and np.isfinite(new).all()):
        return None
    total, mean, spread, abs_total, biggest, down, abs_down = board.stats()
    n_nodes, n_live = float(len(board.values)), float(board.live.sum())
    old = board.matrix[pos]
    values = np.zeros_like(new)
    errors = np.zeros_like(new)
    std, son, soff, weights = _indices()
    values[:, std], errors[:, std] = _stddev_estimates(
        (total[std], mean[std], spread[std], abs_total[std], biggest[std], n_live),
        n_nodes, old[:, std], new[:, std])
    values[:, son] = total[son] + (new[:, son] - old[:, son])
    errors[:, son] = 2 * (n_nodes + 3) * EPS * (abs_total[son] + np.abs(old[:, son]) +
                                                np.abs(new[:, son]))
    values[:, soff] = down[soff]
    errors[:, soff] = 2 * (n_nodes + 3) * EPS * abs_down[soff]
    values[:, MAP_COL] = _map_values(board, positions, rows)
    scores = (values * weights).sum(axis=1)
    bounds = SAFETY * ((errors * weights).sum(axis=1) +
                       2 * (len(METRICS) + 2) * EPS * (np.abs(values) * weights).sum(axis=1))
    if not (np.isfinite(scores).all() and np.isfinite(bounds).all()):
        return None
    return scores, bounds


def certain_runs(scores, bounds):
    """The candidates (indices) in estimate order (equal estimates: lower
    index first), cut into runs: every exact score of a run is below every
    exact score of the later runs."""
    scores, bounds = np.asarray(scores, dtype=np.float64), np.asarray(bounds, dtype=np.float64)
    if not len(scores):
        return []
    order = np.argsort(scores, kind="stable")
    high = np.maximum.accumulate((scores + bounds)[order])
    low = np.minimum.accumulate((scores - bounds)[order][::-1])[::-1]
    cuts = [0] + (np.nonzero(high[:-1] < low[1:])[0] + 1).tolist() + [len(order)]
    order = order.tolist()
    return [order[a:b] for a, b in zip(cuts, cuts[1:])]


def ranked(board, positions, rows, vectors=None):
    """Candidate indices with their exact scores (None where not computed),
    in tryAlloc's order: by exact score, on equal scores the lower index
    first (callers list candidates in tryAlloc's collection order).  None
    when the estimates cannot be trusted: then score them all."""
    if vectors is None:
        vectors = [numeric_row(r) for r in rows]
    est = estimates(board, positions, rows, vectors)
    if est is None:
        return None
    return _in_order(board, positions, rows, vectors, certain_runs(*est))


def _in_order(board, positions, rows, vectors, runs):
    for run in runs:
        if len(run) == 1:
            yield run[0], None
            continue
        exact = board.exact_scores([positions[i] for i in run], [rows[i] for i in run],
                                   [vectors[i] for i in run])
        for score, i in sorted(zip(exact, run)):
            yield i, score
