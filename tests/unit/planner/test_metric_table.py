# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The metric table is the one source of metric positions.

Every positional use of a metric (the per-node value vector, the bulk
search's approximate values, its merged metrics, its tie-break ranks) must
follow the names in ``planner.metrics.METRICS``.
"""

from __future__ import annotations

import itertools
import os
from types import SimpleNamespace

import numpy as np
import pytest
from kit.paths import SPEC_DATA

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import (
    prepare, select_group)
from ansible_collections.ganeti.htools.plugins.module_utils.model.vocabulary import (
    MIRROR_EXTERNAL, MIRROR_INTERNAL)
from ansible_collections.ganeti.htools.plugins.module_utils.planner import metrics
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import bulk_arrays, bulk_search
from ansible_collections.ganeti.htools.plugins.module_utils.planner.moves import (
    FAILOVER, MOVE_KINDS, possible_moves)


def test_names_are_unique_and_positions_follow_the_table():
    assert len(set(metrics.METRIC_NAMES)) == len(metrics.METRICS)
    for pos, (name, weight, _stat, _which) in enumerate(metrics.METRICS):
        assert metrics.metric_position(name) == pos
        assert metrics.METRIC_WEIGHTS[pos] == weight
    with pytest.raises(KeyError):
        metrics.metric_position("no_such_metric")


def test_load_metrics_are_in_the_table():
    assert len(metrics.LOAD_METRICS) == 4
    for name in metrics.LOAD_METRICS:
        metrics.metric_position(name)


def _distinct_node(offset=0.0):
    """A stand-in node whose every value feeding a metric is different."""
    return SimpleNamespace(
        p_mem=0.11 + offset, p_dsk=0.12 + offset, fail_n1=True,
        p_list=[1, 2, 3], s_list=[4, 5, 6, 7, 8], p_rem=0.13 + offset,
        p_cpu=1.5 + offset, t_cpu_speed=2.0, util_load=[2.1, 2.2, 2.3, 2.4],
        p_tags={"a": 3, "b": 7}, inst_spindles=9.0, hi_spindles=4.0,
        p_mem_forth=0.14 + offset, p_dsk_forth=0.15 + offset, p_cpu_forth=3.5 + offset,
        inst_spindles_forth=11.0, location_score=17, instance_map={("x", "y"): 2})


def test_node_values_follow_the_metric_names():
    node = _distinct_node()
    expected = {
        "free_mem_cv": node.p_mem,
        "free_disk_cv": node.p_dsk,
        "n1_cnt": 8.0,
        "reserved_mem_cv": node.p_rem,
        "offline_all_cnt": 8.0,
        "offline_pri_cnt": 3.0,
        "vcpu_ratio_cv": node.p_cpu / node.t_cpu_speed,
        "cpu_load_cv": 2.1,
        "mem_load_cv": 2.2,
        "disk_load_cv": 2.3,
        "net_load_cv": 2.4,
        "pri_tags_score": 8.0,
        "spindles_cv": 9.0 / 4.0,
        "free_mem_cv_forth": node.p_mem_forth,
        "free_disk_cv_forth": node.p_dsk_forth,
        "vcpu_ratio_cv_forth": node.p_cpu_forth / node.t_cpu_speed,
        "spindles_cv_forth": 11.0 / 4.0,
        "location_score": 17.0,
        "location_exclusion_score": {("x", "y"): 2},
        "reserved_mem_rtotal": node.p_rem,
    }
    assert set(expected) == set(metrics.METRIC_NAMES)
    values = metrics.node_values(node)
    assert len(values) == len(metrics.METRICS)
    for name, value in expected.items():
        assert values[metrics.metric_position(name)] == value, name
    node.fail_n1 = False
    assert metrics.node_values(node)[metrics.metric_position("n1_cnt")] == 0.0


def test_bulk_search_covers_every_metric_by_name():
    names = set(metrics.METRIC_NAMES)
    approx = set(bulk_arrays.APPROX_VALUES)
    fixed = set(bulk_arrays.FIXED_FOR_REGULAR)
    assert approx <= names and fixed <= names
    assert not approx & fixed
    assert approx | fixed == names, "a metric the bulk search cannot evaluate"
    for name in fixed:
        stat = metrics.METRICS[metrics.metric_position(name)][2]
        assert stat in (metrics.SUM, metrics.MAP)
    for pos, name in enumerate(metrics.METRIC_NAMES):
        assert (bulk_arrays._APPROX_AT[pos] is None) == (name in fixed)


@pytest.mark.parametrize("data_file", ["hbal-dyn.data", "hbal-evac.data", "hbal-forth.data",
                                       "hbal-location-1.data", "c142.data"])
def test_bulk_values_approximate_node_values(data_file):
    """Each approximate value is its own metric's node value, up to rounding."""
    data, _fmt = load_data_file(os.path.join(SPEC_DATA, data_file))
    prepare(data)
    group = [data.nodes[n.idx] for n in select_group(data, None).nodes]
    nd = bulk_arrays._Nodes(group)
    st = bulk_arrays._State.of(nd, np.arange(len(group)))
    needed = [k for k, fn in enumerate(bulk_arrays._APPROX_AT) if fn is not None]
    with np.errstate(divide="ignore", invalid="ignore"):
        approx = bulk_arrays._values(nd, st, needed)
    exact = [metrics.node_values(n) for n in group]
    for k in needed:
        name = metrics.METRIC_NAMES[k]
        want = np.array([row[k] for row in exact], dtype=np.float64)
        got = np.broadcast_to(np.asarray(approx[k], dtype=np.float64), want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg="%s (%s)" % (name, data_file))


def test_identical_metrics_are_named_pairs():
    """Merged metrics map each to a metric of the same statistic."""
    data, _fmt = load_data_file(os.path.join(SPEC_DATA, "hbal-evac.data"))
    prepare(data)
    selection = select_group(data, None)
    group = [data.nodes[n.idx] for n in selection.nodes]
    nd = bulk_arrays._Nodes(group)
    online = np.array([not n.offline for n in group])
    regular = [i for i in selection.instances if i.mirror in (MIRROR_INTERNAL, MIRROR_EXTERNAL)]
    same = bulk_search._identical_metrics(nd, online, regular)
    for k, rep in same.items():
        assert metrics.METRICS[k][2] == metrics.METRICS[rep][2] == metrics.STDDEV
        assert k != rep


def test_rank_radix_bounds_every_move_position():
    longest = 0
    for mirror in (MIRROR_INTERNAL, MIRROR_EXTERNAL, "none"):
        for flags in itertools.product((False, True), repeat=5):
            moves = possible_moves(mirror, *flags)
            assert FAILOVER not in moves and len(set(moves)) == len(moves)
            longest = max(longest, len(moves))
    assert longest < bulk_arrays.RANK_RADIX == len(MOVE_KINDS)


def test_rank_is_lexicographic_and_the_same_for_ints_and_arrays():
    n_targets = 3
    keys = list(itertools.product(range(3), range(n_targets + 1),
                                  range(bulk_arrays.RANK_RADIX)))
    ranks = [bulk_arrays._encode_rank(v, c, m, n_targets) for v, c, m in keys]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    arr = np.array(keys, dtype=np.int64)
    vec = bulk_arrays._encode_rank(arr[:, 0], arr[:, 1], arr[:, 2], n_targets)
    assert vec.tolist() == ranks
