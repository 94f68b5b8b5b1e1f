# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evacuation planner without hail: the fast pair search against the
literal reference loop, the pieces with a closed definition, the report."""

from __future__ import annotations

import math

import copy
import json
import random

import pytest

from gen import ialloc_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.model.group import IPolicy, ISpec
from ansible_collections.ganeti.htools.plugins.module_utils.model.instance import Instance
from ansible_collections.ganeti.htools.plugins.module_utils.model.node import Node
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate import (
    node_evac, pair, plan)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.exact import (
    GroupScorer, RowCache)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.haskell_show import (
    show_string)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.policy import (
    policy_failure)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import (
    EvacState, copy_node)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.stats import (
    cluster_stats, stats_score, update_stats)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import (
    cluster_score, node_values)


def _loaded(seed, mutate=None):
    doc = ialloc_gen.generate(seed)
    if mutate:
        mutate(doc)
    data, request = load_ialloc(copy.deepcopy(doc))
    prepare(data)
    return doc, data, request


def _outcome(state, search, mode, idxs, force):
    out = node_evac.node_evacuate(state, mode, idxs, force, pair_search=search)
    return json.dumps(out, default=str)


@pytest.mark.parametrize("force", (False, True))
def test_fast_pair_search_equals_the_reference_loop(force):
    """mode all on every DRBD instance of many generated clusters: same moves,
    same opcodes, same failure messages, same final nodes."""
    compared = moved = 0
    for seed in range(150):
        _doc, data, _req = _loaded(seed)
        idxs = [i.idx for i in data.instances if i.template == "drbd"]
        if not idxs:
            continue
        random.Random(seed).shuffle(idxs)
        idxs = idxs[:3]         # few instances: more nodes stay available
        fast, ref = EvacState(data), EvacState(data)
        a = _outcome(fast, pair.best_pair, "all", idxs, force)
        b = _outcome(ref, pair.best_pair_reference, "all", idxs, force)
        assert a == b, seed
        assert repr([node_values(n) for n in fast.nodes]) == repr([node_values(n) for n in ref.nodes])
        compared += 1
        moved += a.count('"moved"')
    assert compared > 100 and moved > 60


def test_fast_pair_search_on_identical_nodes_picks_the_last_tie():
    """Empty identical nodes tie exactly: hail keeps the last pair."""
    nodes = [Node(k, "n%d" % k, 32768, 0, 32768 - (4096 if k < 2 else 0), 500000, 500000, 8,
                  0, False, False, 0) for k in range(6)]
    inst = Instance(0, "i0", 4096, 10240, 1, "running", True, 0, 1, "drbd")
    data = _cluster(nodes, [inst])
    state = EvacState(data)
    out = node_evac.node_evacuate(state, "all", [0], False)
    ref = node_evac.node_evacuate(EvacState(data), "all", [0], False,
                                  pair_search=pair.best_pair_reference)
    assert out == ref
    assert out[0][1][0] == "moved"
    assert out[0][1][2][0] >= 2 and out[0][1][2][1] >= 2    # onto the empty nodes


def _cluster(nodes, insts):
    from ansible_collections.ganeti.htools.plugins.module_utils.model.cluster import ClusterData
    from ansible_collections.ganeti.htools.plugins.module_utils.model.group import Group
    data = ClusterData([Group(0, "default", "uuid-0", "preferred")], nodes, insts, [])
    prepare(data)
    return data


def test_messages_per_template_and_mode():
    nodes = [Node(k, "n%d" % k, 8192, 0, 4096, 100000, 90000, 4, 0, False, False, 0)
             for k in range(3)]
    insts = [Instance(0, "plain1", 512, 1024, 1, "running", True, 0, -1, "plain"),
             Instance(1, "rbd1", 512, 1024, 1, "running", True, 0, -1, "rbd"),
             Instance(2, "drbd1", 512, 1024, 1, "running", True, 0, 1, "drbd")]
    data = _cluster(nodes, insts)
    out = dict(node_evac.node_evacuate(EvacState(data), "secondary-only", [0, 1, 2], False))
    assert out[0] == ("failed", "Instances of type plain cannot be relocated")
    assert out[1] == ("failed", "Instances with disk template 'rbd' can't execute change "
                                "secondary")
    assert out[2][0] == "moved" and out[2][2] == [0, 2]
    out = dict(node_evac.node_evacuate(EvacState(data), "all", [2], False))
    # n0 and n1 are left, n2 alone is no pair
    assert out[2] == ("failed", "Can't find any good nodes for relocation: no nodes available")


def test_policy_check_reports_the_first_pair_and_the_template():
    small = (ISpec(128, 1, 128, 1, 1, 1), ISpec(1024, 2, 4096, 2, 1, 2))
    big = (ISpec(2048, 1, 128, 1, 1, 1), ISpec(8192, 8, 8192, 4, 1, 4))
    policy = IPolicy(ISpec(128, 1, 1024, 1, 1, 1), [small, big], ("drbd", "plain"), 4.0, 32.0)
    inst = Instance(0, "i", 4096, 1024, 1, "running", True, 0, 1, "drbd")
    assert policy_failure(inst, policy, False) is None           # the second pair holds it
    inst.mem = 16384
    assert policy_failure(inst, policy, False) == "FailMem"       # the first pair's reason
    inst.mem = 4096
    inst.vcpus = 4
    assert policy_failure(inst, policy, False) is None
    inst.mem, inst.vcpus = 512, 16
    assert policy_failure(inst, policy, False) == "FailCPU"      # the first pair's reason
    inst.vcpus = 1
    inst.template = "rbd"
    assert policy_failure(inst, policy, False) == "FailDisk"
    inst.template = "drbd"
    assert policy_failure(inst, policy, True) == "FailSpindles"  # no spindles, excl storage
    inst.disks = [(1024, 1)]
    assert policy_failure(inst, policy, True) is None


def test_incremental_statistics_follow_the_replacement_formula():
    _doc, data, _req = _loaded(3)
    nodes = data.nodes
    online = [n for n in nodes if not n.offline]
    base = cluster_stats(nodes)
    assert stats_score(base) == pytest.approx(cluster_score(nodes), rel=1e-12)
    old = online[0]
    new = copy_node(old)
    new.p_rem = old.p_rem + 0.25
    changed = list(nodes)
    changed[old.idx] = new
    assert stats_score(update_stats(base, old, new)) == pytest.approx(cluster_score(changed),
                                                                      rel=1e-9)
    # a map entry dropping to zero stays a key (it counts -1)
    map_pos = [k for k, s in enumerate(base) if s[0] == "map"][0]
    stats = list(base)
    stats[map_pos] = ("map", {"a": 1})
    cleared = copy_node(old)
    cleared.instance_map = {}
    source = copy_node(old)
    source.instance_map = {"a": 1}
    after = update_stats(stats, source, cleared)
    assert after[map_pos] == ("map", {"a": 0})
    assert stats_score(after) == stats_score(stats[:map_pos] + [("map", {})] +
                                             stats[map_pos + 1:]) - 1.0


def test_group_scorer_equals_the_full_recomputation():
    rows = RowCache()
    for seed in range(40):
        _doc, data, _req = _loaded(seed)
        changes = []
        for node in data.nodes[:4]:
            other = copy_node(node)
            other.p_mem = node.p_mem * 0.5
            other.util_load = [x + 1.0 for x in node.util_load]
            changes.append({node.idx: other})
        for gdx in {n.group for n in data.nodes}:
            group = [n for n in data.nodes if n.group == gdx]
            got = GroupScorer(group, rows).scores(changes)
            for change, score in zip(changes, got):
                full = [change.get(n.idx, n) for n in group]
                assert score == cluster_score(full) or (math.isnan(score) and
                                                        math.isnan(cluster_score(full)))


def test_fast_node_copy_agrees_with_node_copy():
    _doc, data, _req = _loaded(7)
    for node in data.nodes:
        a, b = node.copy(), copy_node(node)
        for slot in Node.__slots__:
            assert getattr(a, slot) == getattr(b, slot), slot
            value = getattr(node, slot)
            if isinstance(value, (list, dict, set)):
                assert getattr(b, slot) is not value, slot


def test_show_string_escapes_like_haskell():
    assert show_string('a"b\\c') == '"a\\"b\\\\c"'
    assert show_string("é1") == '"\\233\\&1"'
    assert show_string("tab\there") == '"tab\\there"'


def test_report_matches_the_answer_document():
    checked = 0
    for seed in range(80):
        doc, data, request = _loaded(seed)
        if request["type"] == "relocate":
            continue
        report = plan.evacuate(data, request, prepared=True)
        moved, failed, jobs = report["iallocator_result"]["result"]
        assert [m["instance"] for m in report["moves"]] == [m[0] for m in moved]
        assert [m["opcodes"] for m in report["moves"]] == jobs
        assert [[f["instance"], f["reason"]] for f in report["failed_instances"]] == failed
        assert report["jobsets"] == ([[m["index"] for m in report["moves"]]] if moved else [])
        for move, answer in zip(report["moves"], moved):
            assert [move["new_primary"]] + ([move["new_secondary"]] if len(answer[2]) > 1
                                            else []) == answer[2]
            assert move["new_group"] == answer[1]
        assert set(report["scores"]) >= {m["new_group"] for m in report["moves"]}
        checked += 1
    assert checked > 50


def test_module_options_pick_the_instances_of_the_nodes():
    _doc, data, _req = _loaded(11)
    node = data.nodes[0]
    report = plan.evacuate(data, {"nodes": [node.name], "mode": "primary-only"}, prepared=True)
    names = [m["instance"] for m in report["moves"]] + [f["instance"] for f in report["failed_instances"]]
    assert sorted(names) == sorted(i.name for i in data.instances if i.pnode == node.idx)
    with pytest.raises(HtoolsError):
        plan.evacuate(data, {"nodes": ["no-such-node"]}, prepared=True)
    with pytest.raises(HtoolsError):
        plan.evacuate(data, {}, prepared=True)


def test_unknown_instance_is_hails_message():
    doc = ialloc_gen.generate(5)
    doc["request"] = {"type": "node-evacuate", "instances": ["nosuch"], "evac_mode": "all"}
    with pytest.raises(HtoolsError, match="Wrong number of elems found with name nosuch"):
        plan.iallocator_result(doc)
