# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The answers can_evacuate (capacity/globaln1.py) gives without simulating
the greedy: movable instances of every SHARED template decided on memory,
room for all whatever the greedy picks, no room for a re-creation whatever
happens before it.  Each must be the simulation's own answer."""

from __future__ import annotations

import random

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare_model

from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity import globaln1
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.alloc import (
    alloc_nodes)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.globaln1 import (
    Checker, _quick_verdict, can_evacuate)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.memory_fit import (
    after_the_first, always_fit)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.quickn1 import QuickN1
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.hspace import (
    Allocator, RSpec, State, inst_from_spec)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import (
    EvacState)


def _mixed_states(data, seed):
    """The cluster after unchecked placements of rbd, diskless and plain
    instances of random sizes (nodes holding movable and re-created ones)."""
    rng = random.Random(seed)
    targets = alloc_nodes(data.nodes, lambda g: True, 1)
    if not targets:
        return
    alloc = Allocator(data, targets, 1, False, Checker(data))
    state = State([], list(data.nodes), list(data.instances), [])
    for _step in range(14):
        yield state.nodes, state.insts
        template = rng.choice(["rbd", "diskless", "plain", "rbd"])
        spec = RSpec(rng.choice([128, 512, 2048, 8192]), rng.choice([1024, 20480]), 1, 1)
        nxt = alloc.small_steps(state, rng.choice([1, 3]), inst_from_spec(spec, template, 1),
                                False)
        if len(nxt.ixes) == len(state.ixes):
            return
        state = nxt


class _Counted:
    """A shortcut's calls and decided answers, counted."""

    def __init__(self, func, decided):
        self.func, self.decided, self.calls, self.hits = func, decided, 0, 0

    def __call__(self, *args):
        answer = self.func(*args)
        self.calls += 1
        self.hits += self.decided(answer)
        return answer


def test_answers_without_the_greedy_are_the_greedy_answers(prepared_cluster, monkeypatch):
    room = _Counted(globaln1._room_for_all, bool)
    no_room = _Counted(globaln1._no_room_for, bool)
    memory = _Counted(globaln1.memory_only_verdict, lambda a: a is not None)
    compared = 0
    for seed in range(80):
        data = prepared_cluster(seed)
        for nodes, insts in _mixed_states(data, seed):
            state = EvacState(data, nodes, insts)
            for node in nodes:
                monkeypatch.setattr(globaln1, "_room_for_all", room)
                monkeypatch.setattr(globaln1, "_no_room_for", no_room)
                monkeypatch.setattr(globaln1, "memory_only_verdict", memory)
                fast = can_evacuate(state, nodes, insts, node.idx)
                monkeypatch.setattr(globaln1, "_room_for_all", lambda *_a: False)
                monkeypatch.setattr(globaln1, "_no_room_for", lambda *_a: False)
                monkeypatch.setattr(globaln1, "memory_only_verdict", lambda *_a, **_k: None)
                slow = can_evacuate(state, nodes, insts, node.idx)
                assert fast == slow, (seed, node.name)
                compared += 1
    # every shortcut decided some of them, so the comparison says something
    assert compared > 1000, compared
    assert room.hits and no_room.hits and memory.hits, (room.hits, no_room.hits, memory.hits)


def _greedy_fills(frees, mems, rng):
    """A random node that takes each instance (memory left above 0), in a
    random order: whether all found one."""
    left = list(frees)
    for mem in rng.sample(mems, len(mems)):
        fits = [k for k, free in enumerate(left) if free - mem > 0]
        if not fits:
            return False
        left[rng.choice(fits)] -= mem
    return True


@pytest.mark.parametrize("seed", range(6))
def test_always_fit_means_every_order_and_choice_fits(seed):
    rng = random.Random(seed)
    said_yes = by_sum = 0
    for _case in range(400):
        frees = [rng.randint(-100, 3000) for _n in range(rng.randint(1, 6))]
        mems = [rng.choice([1, 64, 100, 300, 512, 700]) for _i in range(rng.randint(1, 12))]
        biggest = max(mems)
        if not always_fit(frees, sum(mems), biggest, len(mems)):
            continue
        said_yes += 1
        slots = sum((free - 1) // biggest for free in frees if free > 0)
        by_sum += slots < len(mems)
        assert all(_greedy_fills(frees, mems, rng) for _try in range(40)), (frees, mems)
    # the second bound (memory sums) decided cases the per-node count could not
    assert said_yes and by_sum


def test_always_fit_is_not_said_of_an_order_that_fails():
    # 2 nodes of 101: two instances of 100 fit, a third cannot
    assert always_fit([101, 101], 200, 100, 2)
    assert not always_fit([101, 101], 300, 100, 3)
    # one of 100 then one of 60 may both land on the node of 161: 1 left, the
    # 60 fits the other (61); with 3 of 60 one order fails
    assert not always_fit([161, 61], 280, 100, 4)
    assert not always_fit([], 1, 1, 1)


def _tight_cluster(tmp_path, rng, case, templates=("rbd", "diskless", "plain", "plain")):
    """node0 holds rbd, diskless and plain instances; three more nodes with
    little memory and disk left, so that every bound is sometimes binding."""
    mems = [rng.choice([256, 512, 1024]) for _i in range(rng.randint(1, 5))]
    # disks of 0 on nodes with no disk left: a local instance still needs more than 0
    disks = [rng.choice([0, 1024, 4096, 10240]) for _i in mems]
    templates = [rng.choice(templates) for _i in mems]
    plain_disk = sum(d for d, t in zip(disks, templates) if t == "plain")
    lines = ["g|uuid-1|preferred||", "",
             "node0|16384|1024|%d|409600|%d|8|N|uuid-1|4"
             % (16384 - 1024 - sum(mems), 409600 - plain_disk)]
    for k in (1, 2, 3):
        lines.append("node%d|8192|1024|%d|102400|%d|8|N|uuid-1|4"
                     % (k, rng.randint(0, 2500), rng.choice([0, rng.randint(0, 16000)])))
    lines.append("")
    lines += ["i%d|%d|%d|1|running|Y|node0||%s||1" % (k, mem, dsk if t == "plain" else 0, t)
              for k, (mem, dsk, t) in enumerate(zip(mems, disks, templates))]
    path = tmp_path / ("tight%d.data" % case)
    path.write_text("\n".join(lines) + "\n\n\n", encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
    return data


def test_tight_nodes_get_the_greedy_answers(tmp_path, monkeypatch):
    rng = random.Random(7)
    room = _Counted(globaln1._room_for_all, bool)
    no_room = _Counted(globaln1._no_room_for, bool)
    answers = set()
    for case in range(400):
        data = _tight_cluster(tmp_path, rng, case)
        state = EvacState(data, data.nodes, data.instances)
        monkeypatch.setattr(globaln1, "_room_for_all", room)
        monkeypatch.setattr(globaln1, "_no_room_for", no_room)
        fast = can_evacuate(state, data.nodes, data.instances, 0)
        monkeypatch.setattr(globaln1, "_room_for_all", lambda *_a: False)
        monkeypatch.setattr(globaln1, "_no_room_for", lambda *_a: False)
        slow = can_evacuate(state, data.nodes, data.instances, 0)
        assert fast == slow, case
        answers.add(fast)
    assert answers == {True, False} and room.hits > 20 and no_room.hits > 20, \
        (room.hits, no_room.hits)


def test_quick_answers_at_once_use_the_same_bounds(tmp_path):
    """QuickN1 (all nodes at once) answers as _quick_verdict (one node)
    where only the memory sums tell that the movable instances fit."""
    rng = random.Random(11)
    by_sum = 0
    for case in range(300):
        data = _tight_cluster(tmp_path, rng, case, templates=("rbd", "diskless"))
        nodes, insts = data.nodes, data.instances
        state = EvacState(data, nodes, insts)
        state.frees = [n.unallocated_mem() for n in nodes]
        quick = QuickN1(data)
        profile = quick.profile(nodes[0], nodes, insts)
        (answer,), _margins = quick.verdicts([0], [profile], state.frees, [n.f_dsk for n in nodes])
        assert answer is _quick_verdict(state, nodes, insts, 0), case
        mems = [insts[i].mem for i in nodes[0].p_list]
        slots = sum((f - 1) // max(mems) for f in state.frees[1:] if f > 0)
        by_sum += answer is True and slots < len(mems) and max(state.frees[1:]) - sum(mems) <= 0
    assert by_sum


def _every_choice(frees, mems):
    """(whether every sequence of choices places all, whether some does):
    each instance in turn to any node whose memory stays above 0."""
    if not mems:
        return True, True
    every, some = True, False
    takers = [k for k, free in enumerate(frees) if free - mems[0] > 0]
    if not takers:
        return False, False
    for k in takers:
        left = list(frees)
        left[k] -= mems[0]
        all_placed, one_placed = _every_choice(left, mems[1:])
        every, some = every and all_placed, some or one_placed
    return every, some


@pytest.mark.parametrize("seed", range(4))
def test_after_the_first_is_certain(seed):
    rng = random.Random(seed)
    decided = set()
    for _case in range(300):
        frees = [rng.randint(-50, 1500) for _n in range(rng.randint(1, 4))]
        mems = [rng.choice([50, 120, 300, 450, 700, 900]) for _i in range(rng.randint(1, 5))]
        answer = after_the_first(frees, mems)
        every, some = _every_choice(frees, mems)
        if answer is True:
            assert every, (frees, mems)
        elif answer is False:
            assert not some, (frees, mems)
        decided.add(answer)
    assert decided == {True, False, None}


def test_a_local_instance_of_no_disk_still_needs_disk_left(tmp_path):
    """A plain instance of 0 MiB of disk does not fit a node with no disk left
    (its disk must stay above 0): node1 has the memory but no disk, node2 the
    disk but no memory, so node0 cannot be emptied."""
    lines = ["g|uuid-1|preferred||", "",
             "node0|16384|1024|14848|409600|409600|8|N|uuid-1|4",
             "node1|8192|1024|6000|102400|0|8|N|uuid-1|4",
             "node2|8192|1024|100|102400|50000|8|N|uuid-1|4", "",
             "i0|512|0|1|running|Y|node0||plain||1"]
    path = tmp_path / "nodisk.data"
    path.write_text("\n".join(lines) + "\n\n\n", encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
    assert [n.f_dsk for n in data.nodes][1] <= 0
    nodes, insts = data.nodes, data.instances
    state = EvacState(data, nodes, insts)
    assert can_evacuate(state, nodes, insts, 0) is False
    # each shortcut on its own (in can_evacuate the first hides the second)
    assert globaln1._no_room_for(nodes, insts, [1, 2], [[1, 2]])
    hosts, _movers = globaln1._hosts(nodes, nodes[0], [[1, 2]])
    assert hosts == [1, 2]
    assert not globaln1._room_for_all(nodes, insts, [0], hosts)
