# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster while a wave is down (`waves[].down`), checked independently.

For every wave of plans of generated clusters, the placement during the wave
is rebuilt from the plan's own records alone - the loaded cluster, the wave's
nodes, its moves and `migrate_primaries` - never from the planner's states;
from it each up node's free memory and disk and its N+1 reservation are
summed from scratch.  The verdict must then be exactly that: `fits: true`
only when every node holds what comes to it and none fails N+1, and every
problem a real shortage of the named node, with the figures it gives.
"""

from __future__ import annotations

import pytest

from gen import roller_gen
from kit.paths import EXAMPLE

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    plan_reboots)
from kit.plans import plan_rolling_reboot

from .test_invariants import plans

SEEDS = range(1, 81)


def placement(data, plan, wave):
    """{instance: (primary, secondary, running)} while `wave` is down, from the plan."""
    by_name = {n.name: n.idx for n in data.nodes}
    down = {by_name[n] for n in wave["nodes"]}
    moved = {m["instance"]: m for m in plan["moves"] if m["wave"] == wave["wave"]}
    out = {}
    for inst in data.instances:
        pnode, snode = inst.pnode, inst.snode
        move = moved.get(inst.name)
        if move is not None:
            pnode = by_name[move["new_primary"]]
            snode = by_name[move["new_secondary"]] if move["new_secondary"] else snode
        # whatever sits on a wave node then (hroller's full evacuation can leave an
        # instance of an unselected node there) migrates to its secondary when it can
        if inst.template == "drbd" and pnode in down and wave["migrate_primaries"] \
                and snode not in down:
            pnode, snode = snode, pnode
        out[inst.idx] = (pnode, snode, inst.uses_memory and pnode not in down)
    return down, out


def expected(data, plan, wave):
    """(over capacity, N+1 failing, {node: free memory}) summed from the placement."""
    down, during = placement(data, plan, wave)
    groups = {data.nodes[n].group for n in down}
    up = [n for n in data.nodes if n.idx not in down and not n.offline and n.group in groups]
    free = {n.idx: n.unallocated_mem() for n in up}
    disk = {n.idx: n.f_dsk for n in up}
    gains, new_disks, peers = set(), set(), {n.idx: {} for n in up}
    for inst in data.instances:
        pnode, snode, running = during[inst.idx]
        if inst.uses_memory and inst.pnode in free:
            free[inst.pnode] += inst.mem
        if running and pnode in free:
            free[pnode] -= inst.mem
            if pnode != inst.pnode:
                gains.add(pnode)
        if inst.forthcoming:
            continue
        if inst.template == "drbd":
            if snode in disk and snode not in (inst.pnode, inst.snode):
                disk[snode] -= inst.dsk
                new_disks.add(snode)
            if snode in peers and pnode not in down and inst.uses_sec_mem:
                peers[snode][pnode] = peers[snode].get(pnode, 0) + inst.mem
        elif inst.uses_local_storage and pnode in disk and pnode != inst.pnode:
            disk[pnode] -= inst.dsk
            new_disks.add(pnode)
    names = {n.idx: n.name for n in data.nodes}
    over = {names[k] for k in gains if free[k] <= 0} | {names[k] for k in new_disks
                                                        if disk[k] <= 0}
    failing = set()
    for k, reserved in peers.items():
        r_mem = max(reserved.values(), default=0)
        if r_mem > 0 and free[k] <= r_mem:
            failing.add(names[k])
    return over, failing, {names[k]: v for k, v in free.items()}


def has_units(data):
    return any(n.storage_units for n in data.nodes)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_verdict_is_the_placement_summed_from_scratch(tmp_path, seed):
    for opts, data, plan in plans(tmp_path, seed):
        assert not has_units(data)          # the per-node pool is what is summed here
        for wave in plan["waves"]:
            down = wave["down"]
            over, failing, free = expected(data, plan, wave)
            assert set(down["over_capacity"]) == over, (opts, wave["wave"])
            assert set(down["n1_failing"]) == failing, (opts, wave["wave"])
            assert down["fits"] == (not over and not failing) == (not down["problems"])
            for problem in down["problems"]:
                assert problem["text"].startswith("wave %d: " % wave["wave"])
                if problem["resource"] == "memory":
                    # the totals given are the node's: what is left is really not above 0
                    assert problem["free_mib"] - problem["needed_mib"] == free[problem["node"]]
                    assert free[problem["node"]] <= 0 and problem["instance"]
                elif problem["resource"] == "n+1":
                    assert problem["node"] in failing and problem["instance"] is None
                    assert problem["needed_mib"] >= free[problem["node"]]
                else:
                    assert problem["resource"] == "disk" and problem["node"] in over


def test_generated_plans_have_waves_that_fit_and_waves_that_do_not(tmp_path):
    """The check above sees both verdicts and both kinds of problem that occur (hroller
    places every new disk with its own disk check, so disk never runs short here)."""
    seen = set()
    for seed in SEEDS:
        for _opts, _data, plan in plans(tmp_path, seed):
            for wave in plan["waves"]:
                seen.add(wave["down"]["fits"])
                seen.update(p["resource"] for p in wave["down"]["problems"])
    assert seen >= {True, False, "memory", "n+1"}


def test_the_bundled_example_overloads_node1_in_wave_1():
    plan = plan_rolling_reboot(EXAMPLE)
    wave = plan["waves"][0]
    assert wave["nodes"][0] == "node2.example.com" and not wave["down"]["fits"]
    assert "node1.example.com" in wave["down"]["over_capacity"]
    first = wave["down"]["problems"][0]
    assert (first["node"], first["resource"]) == ("node1.example.com", "memory")
    assert first["instance"].startswith("db0")
    during = {n["name"]: n for n in plan["node_usage"][1]["nodes"]}
    node1 = during["node1.example.com"]
    used = 100.0 * (node1["mem_total"] - node1["mem_free"]) / node1["mem_total"]
    # node2's DRBD primaries (108 GiB) and scratch01 (4 GiB, moved there) on 90 GiB free
    assert 109 <= used < 112 and node1["over_capacity"] and node1["n1_fail"]
    assert during["node2.example.com"]["down"] and during["node2.example.com"]["primaries"] == 0


def test_stopped_instances_are_those_left_on_the_wave_nodes(tmp_path):
    path = tmp_path / "c.data"
    path.write_text(roller_gen.generate(3).data)
    data, _fmt = load_data_file(str(path))
    plan = plan_reboots(data, {"ignore_non_redundant": True, "force": True})
    by_name = {n.name: n.idx for n in data.nodes}
    for wave in plan["waves"]:
        down = {by_name[n] for n in wave["nodes"]}
        assert sorted(wave["down"]["stopped"]) == sorted(
            i.name for i in data.instances
            if i.pnode in down and i.uses_memory and i.template != "drbd")
