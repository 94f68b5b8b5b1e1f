# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whole-cluster statistics updated one node at a time, as hail's allocation
simulation keeps them.

This is not a recomputation: hail replaces a node's contribution with a
closed formula (count, sum, variance), and its rounding decides near-ties,
so the formula is reproduced operation by operation.  Map statistics keep
keys whose count fell to zero (they still count as keys).
"""

from __future__ import annotations

import math

from ..metrics import (MAP, METRICS, METRIC_WEIGHTS, ONLINE, STDDEV, cluster_score,
                       needs_unit_metric, node_values)
from ...model.vocabulary import fdiv


def cluster_stats(nodes):
    """Per metric: ("sum", s) | ("std", n, s, var) | ("map", dict); [] without online nodes.

    With several storage units per node the free-disk metric is no column
    statistic: then a single ("units", nodes) entry, and stats_score rescores."""
    if needs_unit_metric(nodes):
        return [("units", list(nodes))]
    online = [node_values(n) for n in nodes if not n.offline]
    if not online:
        return []
    offline = [node_values(n) for n in nodes if n.offline]
    stats = []
    for k, (_name, _w, stat, which) in enumerate(METRICS):
        column = [row[k] for row in (online if which == ONLINE else offline)]
        if stat == MAP:
            merged = {}
            for counts in column:
                for key, cnt in counts.items():
                    merged[key] = merged.get(key, 0) + cnt
            stats.append(("map", merged))
        elif stat == STDDEV:
            count, total = 0.0, 0.0
            for value in column:
                count = count + 1
                total = total + value
            mean = fdiv(total, count)
            acc = 0.0
            for value in column:
                diff = value - mean
                acc = acc + diff * diff
            stats.append(("std", count, total, fdiv(acc, count)))
        else:
            total = 0.0
            for value in column:
                total = total + value
            stats.append(("sum", total))
    return stats


def update_stats(stats, old, new):
    """Replace node `old`'s contribution by `new`'s (only the statistics of
    the old node's online/offline class change)."""
    if not stats:
        return stats
    if stats[0][0] == "units":
        return [("units", [new if n is old else n for n in stats[0][1]])]
    old_vals, new_vals = node_values(old), node_values(new)
    is_online = not old.offline
    out = []
    for k, stat in enumerate(stats):
        if (METRICS[k].nodes == ONLINE) != is_online:
            out.append(stat)
            continue
        x, y = old_vals[k], new_vals[k]
        if stat[0] == "sum":
            out.append(("sum", stat[1] + (y - x)))
        elif stat[0] == "std":
            _tag, n, s, var = stat
            ds = y - x
            dss = y * y - x * x
            dnnvar = (n * dss - 2 * s * ds) - ds * ds
            var2 = var + fdiv(dnnvar, n * n)
            # Haskell's `max 0 v`: 0 unless 0 <= v (so NaN gives 0 too)
            out.append(("std", n, s + ds, var2 if 0 <= var2 else 0.0))
        else:
            merged = dict(stat[1])
            for key, cnt in x.items():
                merged[key] = merged.get(key, 0) - cnt
            for key, cnt in y.items():
                merged[key] = merged.get(key, 0) + cnt
            out.append(("map", merged))
    return out


def stats_score(stats):
    if stats and stats[0][0] == "units":
        return cluster_score(stats[0][1])
    score = 0.0
    for weight, stat in zip(METRIC_WEIGHTS, stats):
        if stat[0] == "sum":
            value = stat[1]
        elif stat[0] == "std":
            value = math.sqrt(stat[3]) if not stat[3] < 0 else math.nan
        else:
            value = float(sum(stat[1].values()) - len(stat[1]))
        score = score + weight * value
    return score
