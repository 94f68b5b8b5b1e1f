# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every rolling-reboot plan must satisfy, checked on generated clusters.

* no reboot group holds both nodes of a DRBD instance;
* without offline maintenance, no reboot group holds two primaries of
  instances that share a secondary node;
* every selected node is in exactly one group; the master, when planned, is
  the last node of the last group;
* the moves are consistent: indices, jobsets, waves and opcodes agree, and a
  move leaves each node that `evacuate` says it leaves.
"""

from __future__ import annotations

import pytest

from gen import roller_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    plan_reboots)

SEEDS = range(1, 121)


def plans(tmp_path, seed):
    case = roller_gen.generate(seed)
    path = tmp_path / "c.data"
    path.write_text(case.data)
    for opts in roller_gen.options_for(seed, case, 4):
        data, _fmt = load_data_file(str(path))
        try:
            yield opts, data, plan_reboots(data, dict(opts))
        except HtoolsError:
            continue


def check_separation(data, plan, offline_maintenance):
    by_name = {n.name: n.idx for n in data.nodes}
    for group in plan["reboot_groups"]:
        members = {by_name[name] for name in group}
        for inst in data.instances:
            if inst.template == "drbd":
                assert not {inst.pnode, inst.snode} <= members, (group, inst.name)
        if offline_maintenance:
            continue
        for node in data.nodes:
            prims = {data.instances[i].pnode for i in node.s_list} & members
            assert len(prims) <= 1, (group, node.name, prims)


def check_order(data, plan, opts):
    groups = plan["reboot_groups"]
    flat = [n for g in groups for n in g]
    assert len(flat) == len(set(flat))
    assert [g for g in groups if g] and all(
        len(a) >= len(b) for a, b in zip(groups, groups[1:]) if not plan["master"]["wave"])
    master = plan["master"]
    if master["wave"] is not None:
        assert master["wave"] == len(groups) and groups[-1][-1] == master["node"]
        assert [w["has_master"] for w in plan["waves"]] == [False] * (len(groups) - 1) + [True]
    if opts.get("one_step_only"):
        assert len(groups) == 1


def check_moves(plan):
    moves = plan["moves"]
    assert [m["index"] for m in moves] == list(range(1, len(moves) + 1))
    assert sorted(i for js in plan["jobsets"] for i in js) == [m["index"] for m in moves]
    for wave in plan["waves"]:
        assert wave["moves"] == [m["index"] for m in moves if m["wave"] == wave["wave"]]
        listed = [e["node"] for e in wave["evacuate"]]
        assert listed == [n for n in wave["nodes"] if n in listed]
        leaving = {node for index in wave["moves"] for node in
                   (moves[index - 1]["old_primary"], moves[index - 1]["old_secondary"])
                   if node not in (moves[index - 1]["new_primary"], moves[index - 1]["new_secondary"])}
        assert set(listed) == leaving & set(wave["nodes"])
        for entry in wave["evacuate"]:
            assert entry["moves"]
            for index in entry["moves"]:
                move = moves[index - 1]
                assert entry["node"] in (move["old_primary"], move["old_secondary"])
                assert entry["node"] not in (move["new_primary"], move["new_secondary"])
    for move in moves:
        assert all(op["instance_name"] == move["instance"] for op in move["opcodes"])
        assert (move["move"] == "instance_move") == (not move["opcodes"])
        assert (move["old_primary"], move["old_secondary"]) != \
            (move["new_primary"], move["new_secondary"])


@pytest.mark.parametrize("seed", SEEDS)
def test_plan_invariants(tmp_path, seed):
    for opts, data, plan in plans(tmp_path, seed):
        check_separation(data, plan, opts.get("offline_maintenance"))
        check_order(data, plan, opts)
        check_moves(plan)
        assert plan["reboot_groups"] == [w["nodes"] for w in plan["waves"]]
        assert plan["report"][0] in ("'Node Reboot Groups'", "'First Reboot Group'")


def test_generated_plans_exercise_the_invariants(tmp_path):
    """Enough plans with shared secondaries, moves and masters for the checks to bite."""
    counts = dict(plans=0, moves=0, master=0, shared=0)
    for seed in SEEDS:
        for opts, data, plan in plans(tmp_path, seed):
            counts["plans"] += 1
            counts["moves"] += bool(plan["moves"])
            counts["master"] += plan["master"]["wave"] is not None
            counts["shared"] += any(
                len({data.instances[i].pnode for i in n.s_list}) > 1 for n in data.nodes)
    assert counts["plans"] >= 200 and min(counts.values()) >= 40, counts


def test_graph_counts_repeated_edges_and_self_loops(tmp_path):
    """Two instances between the same nodes count twice; a shared secondary adds
    an edge between the primaries and a self-loop on each."""
    path = tmp_path / "g.data"
    path.write_text("\n".join([
        "g|uuid-g|preferred|", "",
        "n0|8192|0|8192|9000|9000|8|M|uuid-g|1",
        "n1|8192|0|8192|9000|9000|8|N|uuid-g|1",
        "n2|8192|0|8192|9000|9000|8|N|uuid-g|1",
        "n3|8192|0|8192|9000|9000|8|N|uuid-g|1", "",
        "a|128|100|1|running|Y|n0|n1|drbd||1",
        "b|128|100|1|running|Y|n0|n1|drbd||1",
        "c|128|100|1|running|Y|n2|n1|drbd||1", "", ""]) + "\n")
    from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.graph import (
        build_graph)
    data, _fmt = load_data_file(str(path))
    prepare(data)
    graph = build_graph(data, [0, 1, 2, 3], offline_maintenance=False)
    assert graph.degree == [2 + 1 + 1, 2 + 1, 1 + 1 + 1, 0]
    assert graph.edges() == {(0, 1): 2, (1, 0): 2, (1, 2): 1, (2, 1): 1, (0, 2): 1, (2, 0): 1}
    offline = build_graph(data, [0, 1, 2, 3], offline_maintenance=True)
    assert offline.degree == [2, 3, 1, 0]
    # LF: n0 (degree 4) -> 0, then n2 before n1 (equal degree, higher index): 1, 2;
    # n3 -> 0.  The class holding the master n0 goes last, n0 last inside it.
    plan = plan_reboots(load_data_file(str(path))[0], {})
    assert plan["reboot_groups"] == [["n2"], ["n1"], ["n3", "n0"]]
    assert plan["master"] == {"node": "n0", "wave": 3}
