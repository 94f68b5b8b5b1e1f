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

from ...deps import numpy as np
from ..metrics import (METRICS, METRIC_WEIGHTS, MAP, OFFLINE, ONLINE, STDDEV, SUM,
                       row_metric_values, total_score)

EPS = 2.0 ** -52            # twice the unit roundoff of a double: the bounds stay loose
SAFETY = 4.0                # and are widened once more; a wider bound only costs time
STD_COLS = [k for k, m in enumerate(METRICS) if m.statistic == STDDEV]
SUM_ON_COLS = [k for k, m in enumerate(METRICS) if m.statistic == SUM and m.nodes == ONLINE]
SUM_OFF_COLS = [k for k, m in enumerate(METRICS) if m.statistic == SUM and m.nodes == OFFLINE]
MAP_COL = [k for k, m in enumerate(METRICS) if m.statistic == MAP][0]
WEIGHTS = np.array(METRIC_WEIGHTS, dtype=np.float64)


def numeric_row(values):
    """A node_values row as floats, the map metric as 0."""
    return [0.0 if k == MAP_COL else float(v) for k, v in enumerate(values)]


class Board:
    """The node_values rows of a node list, in its order, and which are online.
    Boards are replaced, never changed: `replaced` gives a new one."""

    __slots__ = ("values", "online", "matrix")

    def __init__(self, values, online, matrix=None):
        self.values = values
        self.online = online
        self.matrix = matrix if matrix is not None else \
            np.array([numeric_row(v) for v in values], dtype=np.float64).reshape(len(values),
                                                                                 len(METRICS))

    def replaced(self, changes):
        """The board with rows {position: node_values} replaced."""
        values = list(self.values)
        matrix = self.matrix.copy()
        for pos, row in changes.items():
            values[pos] = row
            matrix[pos] = numeric_row(row)
        return Board(values, self.online, matrix)

    def exact_score(self, pos, row):
        """compCV of the node list with row `pos` replaced by `row`."""
        online = [row if k == pos else v for k, v in enumerate(self.values) if self.online[k]]
        if not online:
            return 0.0
        offline = [v for k, v in enumerate(self.values) if not self.online[k]]
        return total_score(row_metric_values(online, offline))


def _map_values(board, positions, rows):
    """The map metric per candidate, exactly (integer counts)."""
    base = [board.values[p][MAP_COL] for p in positions]
    if all(new[MAP_COL] == old for new, old in zip(rows, base)):
        merged = _merged(board.values, board.online)
        value = float(sum(merged.values()) - len(merged))
        return np.full(len(rows), value)
    out = []
    for pos, row in zip(positions, rows):
        values = [row if k == pos else v for k, v in enumerate(board.values)]
        merged = _merged(values, board.online)
        out.append(float(sum(merged.values()) - len(merged)))
    return np.array(out, dtype=np.float64)


def _merged(values, online):
    merged = {}
    for row, is_online in zip(values, online):
        if is_online:
            for key, count in row[MAP_COL].items():
                merged[key] = merged.get(key, 0) + count
    return {key: count for key, count in merged.items() if count}


def _stddev_estimates(col, n_nodes, x, y):
    """(values, error bounds) of the population deviations with one value
    replaced per candidate: x by y.  The deviations are taken about the
    column's rounded mean m0 (exact in real numbers for any m0), so the
    error depends on the spread of the values, not on their size; where the
    deviation is near 0 the square root magnifies the error, and the bound
    says so."""
    n = float(col.shape[0])
    total = col.sum(axis=0)
    m0 = total / n
    spread = ((col - m0) ** 2).sum(axis=0)
    abs_total = np.abs(col).sum(axis=0)
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
    biggest = np.maximum(np.abs(col).max(axis=0), np.abs(y))
    err_exact = (n_nodes + 2) * EPS * biggest + (n_nodes + 5) * EPS * (sig + err_est)
    return sig, err_est + err_exact


def _sum_estimates(col, n_nodes, x, y):
    """(values, error bounds) of the column sums with x replaced by y."""
    value = col.sum(axis=0) + (y - x)
    err = 2 * (n_nodes + 3) * EPS * (np.abs(col).sum(axis=0) + np.abs(x) + np.abs(y))
    return value, err


def estimates(board, positions, rows):
    """(scores, bounds): per candidate (row `positions[i]` replaced by
    `rows[i]`, online nodes only) an estimate of its exact score, and a
    bound that the exact score is within; None when the estimate cannot be
    trusted (no online node, a value that is not finite)."""
    online = np.array(board.online, dtype=bool)
    pos = np.array(positions, dtype=np.int64)
    if not online.any() or not online[pos].all():
        return None
    new = np.array([numeric_row(r) for r in rows], dtype=np.float64).reshape(len(rows),
                                                                            len(METRICS))
    if not (np.isfinite(board.matrix).all() and np.isfinite(new).all()):
        return None
    n_nodes = float(len(board.values))
    old = board.matrix[pos]
    live = board.matrix[online]
    values = np.zeros_like(new)
    errors = np.zeros_like(new)
    values[:, STD_COLS], errors[:, STD_COLS] = _stddev_estimates(
        live[:, STD_COLS], n_nodes, old[:, STD_COLS], new[:, STD_COLS])
    values[:, SUM_ON_COLS], errors[:, SUM_ON_COLS] = _sum_estimates(
        live[:, SUM_ON_COLS], n_nodes, old[:, SUM_ON_COLS], new[:, SUM_ON_COLS])
    down = board.matrix[~online][:, SUM_OFF_COLS]
    values[:, SUM_OFF_COLS] = down.sum(axis=0)
    errors[:, SUM_OFF_COLS] = 2 * (n_nodes + 3) * EPS * np.abs(down).sum(axis=0)
    values[:, MAP_COL] = _map_values(board, positions, rows)
    scores = (values * WEIGHTS).sum(axis=1)
    bounds = (errors * WEIGHTS).sum(axis=1) + \
        2 * (len(METRICS) + 2) * EPS * (np.abs(values) * WEIGHTS).sum(axis=1)
    bounds = SAFETY * bounds
    if not (np.isfinite(scores).all() and np.isfinite(bounds).all()):
        return None
    return scores, bounds


def certain_runs(scores, bounds):
    """The candidates (indices) in estimate order, cut into runs: every
    exact score of a run is below every exact score of the later runs."""
    order = sorted(range(len(scores)), key=lambda i: (scores[i], i))
    low = [scores[i] - bounds[i] for i in order]
    for k in range(len(low) - 2, -1, -1):           # suffix minima
        low[k] = min(low[k], low[k + 1])
    runs, run, high = [], [], None
    for k, i in enumerate(order):
        if run and not high < low[k]:
            run.append(i)
        else:
            if run:
                runs.append(run)
            run = [i]
        top = scores[i] + bounds[i]
        high = top if high is None else max(high, top)
    if run:
        runs.append(run)
    return runs


def ranked(board, positions, rows):
    """Candidate indices with their exact scores (None where not computed),
    in tryAlloc's order: by exact score, on equal scores the lower index
    first (callers list candidates in tryAlloc's collection order).  None
    when the estimates cannot be trusted: then score them all."""
    est = estimates(board, positions, rows)
    if est is None:
        return None
    return _in_order(board, positions, rows, certain_runs(*[e.tolist() for e in est]))


def _in_order(board, positions, rows, runs):
    for run in runs:
        if len(run) == 1:
            yield run[0], None
            continue
        exact = [(board.exact_score(positions[i], rows[i]), i) for i in run]
        for score, i in sorted(exact):
            yield i, score
