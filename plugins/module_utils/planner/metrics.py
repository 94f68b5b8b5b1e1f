# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hbal's cluster score: 20 weighted metrics, computed exactly.

Each metric is a statistic of one per-node value over the group's online (or,
for two counts, offline) nodes: a population standard deviation, a plain sum,
or the map statistic of the location-exclusion counts.  The score is the
weighted sum of the metrics, added up in table order.

Summation is sequential in node index order, as in hbal; a different order
(numpy's pairwise sum, say) changes the last bits and can flip a tie.

Storage units (model/storage.py): when nodes report units, the two free-disk
metrics become the average, over the storage units present among the online
nodes, of the population standard deviation of the unit's free fraction
across the online nodes that hold it (the design says "sample"; the
population one keeps the design's own invariant that one unit per node
scores exactly as before).  When every online node holds exactly one such
unit, and the same one, that average is the plain deviation of p_dsk, which
the node keeps as that unit's free fraction: every scorer then works
unchanged.  Otherwise `needs_unit_metric` tells the fast scorers to defer to
this module.
"""

from __future__ import annotations

import math

from ..model.storage import metric_unit_positions, unit_slot
from typing import NamedTuple

from ..model.vocabulary import fdiv

STDDEV, SUM, MAP = "stddev", "sum", "map"
ONLINE, OFFLINE = "online", "offline"


class Metric(NamedTuple):
    """One term of the cluster score."""
    name: str
    weight: float
    statistic: str      # STDDEV, SUM or MAP
    nodes: str          # ONLINE or OFFLINE: the nodes it is taken over


class MetricValue(NamedTuple):
    """One term of a score breakdown."""
    name: str
    value: float
    weight: float


# The order is hbal's printed order.
# Code that needs a metric's position looks it up by name (metric_position),
# so that inserting a metric cannot silently shift it.
METRICS = (
    Metric("free_mem_cv", 0.5, STDDEV, ONLINE),
    Metric("free_disk_cv", 0.5, STDDEV, ONLINE),
    Metric("n1_cnt", 1.0, SUM, ONLINE),
    Metric("reserved_mem_cv", 1.0, STDDEV, ONLINE),
    Metric("offline_all_cnt", 4.0, SUM, OFFLINE),
    Metric("offline_pri_cnt", 16.0, SUM, OFFLINE),
    Metric("vcpu_ratio_cv", 0.5, STDDEV, ONLINE),
    Metric("cpu_load_cv", 1.0, STDDEV, ONLINE),
    Metric("mem_load_cv", 1.0, STDDEV, ONLINE),
    Metric("disk_load_cv", 1.0, STDDEV, ONLINE),
    Metric("net_load_cv", 1.0, STDDEV, ONLINE),
    Metric("pri_tags_score", 2.0, SUM, ONLINE),
    Metric("spindles_cv", 0.5, STDDEV, ONLINE),
    Metric("free_mem_cv_forth", 0.5, STDDEV, ONLINE),
    Metric("free_disk_cv_forth", 0.5, STDDEV, ONLINE),
    Metric("vcpu_ratio_cv_forth", 0.5, STDDEV, ONLINE),
    Metric("spindles_cv_forth", 0.5, STDDEV, ONLINE),
    Metric("location_score", 1.0, SUM, ONLINE),
    Metric("location_exclusion_score", 1.0, MAP, ONLINE),
    Metric("reserved_mem_rtotal", 0.25, SUM, ONLINE),
)
METRIC_NAMES = tuple(m.name for m in METRICS)
METRIC_WEIGHTS = tuple(m.weight for m in METRICS)
METRIC_POSITIONS = {name: pos for pos, name in enumerate(METRIC_NAMES)}
# The load metrics, in the order of a node's (and an instance's) utilisation
# vector (cpu, mem, dsk, net).
LOAD_METRICS = ("cpu_load_cv", "mem_load_cv", "disk_load_cv", "net_load_cv")


def metric_position(name):
    """The position of metric `name` in METRICS (and in every value vector)."""
    try:
        return METRIC_POSITIONS[name]
    except KeyError:
        raise KeyError("unknown metric %r" % (name,)) from None


def node_values(node):
    """The per-node value of each of the 20 metrics (the map metric gives a dict).

    One tuple in METRICS order, written out for speed (this runs for every
    candidate the reference search tries); tests/unit/test_metric_table.py
    checks each entry against its metric's name.
    """
    return (
        node.p_mem,
        node.p_dsk,
        float(len(node.s_list) + len(node.p_list)) if node.fail_n1 else 0.0,
        node.p_rem,
        float(len(node.p_list) + len(node.s_list)),
        float(len(node.p_list)),
        fdiv(node.p_cpu, node.t_cpu_speed),
        node.util_load[0],   # utilPool is always 1, and x / 1.0 == x
        node.util_load[1],
        node.util_load[2],
        node.util_load[3],
        float(sum(node.p_tags.values()) - len(node.p_tags)),
        fdiv(node.inst_spindles, node.hi_spindles),
        node.p_mem_forth,
        node.p_dsk_forth,
        fdiv(node.p_cpu_forth, node.t_cpu_speed),
        fdiv(node.inst_spindles_forth, node.hi_spindles),
        float(node.location_score),
        node.instance_map,
        node.p_rem,
    )


def seq_sum(values):
    total = 0.0
    for value in values:
        total = total + value
    return total


def pop_stddev(values):
    count = len(values)
    mean = fdiv(seq_sum(values), float(count))
    acc = 0.0
    for value in values:
        diff = value - mean
        acc = acc + diff * diff
    return math.sqrt(fdiv(acc, float(count)))


def map_stat(maps):
    merged = {}
    for counts in maps:
        for key, count in counts.items():
            merged[key] = merged.get(key, 0) + count
    return float(sum(merged.values()) - len(merged))


def online_units(nodes):
    """The metric storage units (type, key) of the online nodes, in order of
    appearance, and whether p_dsk already is the unit metric (every online
    node holds exactly one of them, the same one)."""
    ids = {}
    single = True
    first = None
    for node in nodes:
        if node.offline:
            continue
        units = node.storage_units
        if node.pdsk_unit < 0:
            single = False
        else:
            unit = units[node.pdsk_unit]
            if first is None:
                first = (unit.type, unit.key)
            elif first != (unit.type, unit.key):
                single = False
        for pos in metric_unit_positions(units):
            ids.setdefault((units[pos].type, units[pos].key), None)
    return list(ids), single


def needs_unit_metric(nodes):
    """Whether the free-disk metrics of `nodes` must come from unit_metrics
    rather than from the nodes' p_dsk."""
    ids, single = online_units(nodes)
    return bool(ids) and not single


def unit_metrics(nodes, ids=None):
    """Per metric storage unit of the online nodes (`ids`, else all of them):
    (type, key, nodes holding it, deviation of the free fraction now, and
    with forthcoming instances)."""
    if ids is None:
        ids = online_units(nodes)[0]
    rows = []
    for uid in ids:
        fractions = []
        for node in nodes:
            pos = None if node.offline else unit_slot(node.storage_units, uid)
            if pos is not None:
                fractions.append(node.unit_fractions(pos))
        rows.append(uid + (len(fractions), pop_stddev([f[0] for f in fractions]),
                           pop_stddev([f[1] for f in fractions])))
    return rows


def _unit_average(rows, column):
    return fdiv(seq_sum(row[column] for row in rows), float(len(rows)))


FREE_DISK = metric_position("free_disk_cv")
FREE_DISK_FORTH = metric_position("free_disk_cv_forth")


def row_metric_values(online, offline):
    """The 20 metric values of node_values rows (online rows not empty), the
    free-disk metrics as p_dsk gives them (metric_values corrects them for
    several storage units)."""
    result = []
    for pos, (_name, _weight, stat, which) in enumerate(METRICS):
        rows = online if which == ONLINE else offline
        column = [row[pos] for row in rows]
        if stat == STDDEV:
            result.append(pop_stddev(column))
        elif stat == SUM:
            result.append(seq_sum(column))
        else:
            result.append(map_stat(column))
    return result


def metric_values(nodes):
    """The 20 metric values over `nodes` (group nodes, ascending index)."""
    online = [node_values(n) for n in nodes if not n.offline]
    if not online:
        return None   # hbal: no online node means no statistics and score 0
    result = row_metric_values(online, [node_values(n) for n in nodes if n.offline])
    ids, single = online_units(nodes)
    if ids and not single:
        rows = unit_metrics(nodes, ids)
        result[FREE_DISK] = _unit_average(rows, 3)
        result[FREE_DISK_FORTH] = _unit_average(rows, 4)
    return result


def total_score(values):
    if values is None:
        return 0.0
    score = 0.0
    for weight, value in zip(METRIC_WEIGHTS, values):
        score = score + weight * value
    return score


def cluster_score(nodes):
    return total_score(metric_values(nodes))


def optimal_score(nodes):
    """The N+1 reservation bound below which hbal does not try.

    Taken once over all group nodes, offline ones included: with M the total
    memory, L = M minus the largest node's memory and D the memory reserved
    for DRBD secondaries (the sum of all peer entries), it is
    0.25 * (D / L - D / M), or 0 for one node or when L is not positive.
    """
    if len(nodes) <= 1:
        return 0.0
    total_mem = seq_sum(n.t_mem for n in nodes)
    less = total_mem - max(n.t_mem for n in nodes)
    if not less > 0:
        return 0.0
    drbd = sum(sum(n.peers.values()) for n in nodes)
    return 0.25 * (fdiv(drbd, less) - fdiv(drbd, total_mem))


def breakdown(nodes):
    """[(name, value, weight)] in hbal's order; empty when no node is online."""
    values = metric_values(nodes)
    if values is None:
        return []
    return [MetricValue(m.name, v, m.weight) for m, v in zip(METRICS, values)]
