# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The global N+1 check's verdicts (capacity/globaln1.py Checker.check) and
the shortcut hspace's iterate takes on a lasting "not redundant"."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare_model
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.alloc import (
    alloc_nodes)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.globaln1 import (
    Checker, _quick_verdict, can_evacuate)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.quickn1 import (
    QuickN1)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.hspace import (
    Allocator, RSpec, State, inst_from_spec)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import (
    EvacState)


def _every_node_evacuable(data, nodes, insts):
    state = EvacState(data, nodes, insts)
    return all(can_evacuate(state, nodes, insts, n.idx) for n in nodes)


def _states(data, template, mem):
    """The cluster after 0, 1, 2, ... unchecked placements of one size."""
    required = 2 if template == "drbd" else 1
    targets = alloc_nodes(data.nodes, lambda g: True, required)
    if not targets:
        return
    alloc = Allocator(data, targets, required, False, Checker(data))
    state = State([], list(data.nodes), list(data.instances), [])
    for _step in range(12):
        yield state.nodes, state.insts
        nxt = alloc.small_steps(state, 1, inst_from_spec(RSpec(mem, 1024, 1, 1), template, 1),
                                False)
        if len(nxt.ixes) == len(state.ixes):
            return
        state = nxt


@pytest.mark.parametrize("template", ["diskless", "drbd", "plain"])
def test_check_agrees_with_every_node_and_lasts(prepared_cluster, template):
    lasting_seen = 0
    for seed in range(25):
        data = prepared_cluster(seed)
        checker = Checker(data)
        lasting = False
        for nodes, insts in _states(data, template, 512):
            verdict = checker.check(nodes, insts)
            truth = _every_node_evacuable(data, nodes, insts)
            assert verdict.redundant == truth
            assert not (verdict.redundant and verdict.lasting)
            # once lasting, more instances never make the cluster redundant again
            assert not (lasting and truth)
            lasting = lasting or verdict.lasting
            lasting_seen += verdict.lasting
    assert lasting_seen


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_iterate_is_the_same_without_the_shortcut(prepared_cluster, seed, monkeypatch):
    data = prepared_cluster(seed)
    targets = alloc_nodes(data.nodes, lambda g: True, 1)
    if not targets:
        pytest.skip("no target nodes")
    inst = inst_from_spec(RSpec(256, 1024, 1, 1), "diskless", 1)
    start = State([], list(data.nodes), list(data.instances), [])
    fast = Allocator(data, targets, 1, True, Checker(data)).tiered(start, None, inst)
    monkeypatch.setattr(Allocator, "_first_step_fails_for_good", lambda *_a: False)
    slow = Allocator(data, targets, 1, True, Checker(data)).tiered(start, None, inst)
    assert fast.errs == slow.errs
    assert [(i.pnode, i.mem) for i in fast.ixes] == [(i.pnode, i.mem) for i in slow.ixes]


def _three_nodes(tmp_path, mems):
    """node0 holds diskless instances of `mems`; node1 and node2 have 1000 MiB free."""
    lines = ["g|uuid-1|preferred||", "",
             "node0|4096|1024|%d|102400|102400|8|N|uuid-1|4" % (4096 - 1024 - sum(mems)),
             "node1|2048|1048|1000|102400|102400|8|N|uuid-1|4",
             "node2|2048|1048|1000|102400|102400|8|N|uuid-1|4", ""]
    lines += ["i%d|%d|0|1|running|Y|node0||diskless||1" % (k, mem) for k, mem in enumerate(mems)]
    path = tmp_path / "three.data"
    path.write_text("\n".join(lines) + "\n\n\n", encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
    return data


@pytest.mark.parametrize("mems, verdict", [
    ([700, 700, 700], (False, True)),       # two nodes hold two of them at most: certain
    ([700, 700, 400], (False, True)),       # certain too: no node holds 700 and 400 (1000 free)
    # 800 + 100 and 500 + 450 would fit; the greedy places them otherwise:
    # simulated, no lasting reason
    ([100, 800, 500, 450], (False, False)),
    ([400, 300, 200], (True, False)),
])
def test_only_certain_failures_last(tmp_path, mems, verdict):
    data = _three_nodes(tmp_path, mems)
    assert tuple(Checker(data).check(data.nodes, data.instances)) == verdict
    assert _every_node_evacuable(data, data.nodes, data.instances) == verdict[0]


@pytest.mark.parametrize("mems", [[700, 700, 700], [100, 800, 500, 450], [400, 300, 200]])
def test_the_node_that_failed_after_a_change_is_asked_first_next_time(tmp_path, mems):
    data = _three_nodes(tmp_path, mems)
    checker = Checker(data)
    verdict = checker.check(data.nodes, data.instances, first={2: data.nodes[2]})
    # only node0 holds instances, so only node0 can fail to be emptied
    assert checker.failed_after == ({} if verdict.redundant else {2: 0})
    checker.suspects = []
    order, ahead = checker._suspects_first([0, 1, 2], [2])
    assert order[:ahead] == ([2] if verdict.redundant else [2, 0])
    # and the answer is the same, asked in that order
    assert checker.check(data.nodes, data.instances, first=[2]) == verdict


@pytest.mark.parametrize("template", ["diskless", "drbd", "plain"])
def test_certain_answers_at_once_are_the_one_by_one_answers(prepared_cluster, template):
    compared = set()
    for seed in range(40):
        data = prepared_cluster(seed)
        quick = QuickN1(data)
        for nodes, insts in _states(data, template, 1024):
            state = EvacState(data, nodes, insts)
            state.frees = [n.unallocated_mem() for n in nodes]
            plain = [(n.idx, quick.profile(n, nodes, insts)) for n in nodes]
            plain = [(k, p) for k, p in plain if p is not None]
            answers, _margins = quick.verdicts([k for k, _p in plain], [p for _k, p in plain],
                                               state.frees, [n.f_dsk for n in nodes])
            for (ndx, _p), answer in zip(plain, answers):
                assert answer is _quick_verdict(state, nodes, insts, ndx)
                compared.add(answer)
    assert compared == ({True, False, None} if template == "diskless" else {True, False})
