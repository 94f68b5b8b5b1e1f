# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""capacity/fill.py's run to the end against hspace's one try at a time."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.simulated import (
    load_simulated, simulated_text)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity import hspace
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.alloc import (
    alloc_nodes)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.fill import (
    fill_to_end)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.globaln1 import (
    Checker)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.report import (
    capacity_report)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import (
    cluster_score, node_values)


def _allocator(data):
    targets = alloc_nodes(data.nodes, lambda _g: True, 1)
    return hspace.Allocator(data, targets, 1, False, Checker(data)), targets


def _step_by_step(alloc, state, inst, limit):
    """small_steps with the run to the end switched off."""
    saved = hspace.fill_to_end
    hspace.fill_to_end = lambda *_args: None
    try:
        return alloc.small_steps(state, limit, inst, False)
    finally:
        hspace.fill_to_end = saved


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mem", [512, 4096])
def test_same_end_as_one_try_at_a_time(prepared_cluster, seed, mem):
    data = prepared_cluster(seed)
    alloc, targets = _allocator(data)
    start = hspace.State([], list(data.nodes), list(data.instances), [])
    inst = hspace.inst_from_spec(hspace.RSpec(mem, 1024, 1, 1), "diskless", 1)
    policy = alloc.singles.policy
    filled = fill_to_end(policy, start, inst, targets, None, hspace.State)
    if not targets:
        assert filled is None
        return
    slow = _step_by_step(alloc, start, inst, None)
    assert filled.errs == slow.errs
    assert [node_values(n) for n in filled.nodes] == [node_values(n) for n in slow.nodes]
    assert cluster_score(filled.nodes) == cluster_score(slow.nodes)
    assert sorted(i.pnode for i in filled.ixes) == sorted(i.pnode for i in slow.ixes)
    assert [i.idx for i in filled.ixes] == [i.idx for i in slow.ixes]
    if filled.ixes:     # a limit that would end the run first: the caller steps
        assert fill_to_end(policy, start, inst, targets, len(filled.ixes) - 1,
                           hspace.State) is None
        assert fill_to_end(policy, start, inst, targets, len(filled.ixes),
                           hspace.State) is not None


def test_a_run_that_takes_nothing_keeps_the_cluster_objects(prepared_text):
    # every node full on vCPUs: nothing fits, and the answers remembered for
    # this cluster (Allocator.try_alloc, per nodes object) must stay usable
    data = prepared_text(simulated_text(["p,3,100g,32g,2"]))
    alloc, targets = _allocator(data)
    start = hspace.State([], list(data.nodes), list(data.instances), [])
    inst = hspace.inst_from_spec(hspace.RSpec(512, 1024, 16, 1), "diskless", 1)
    filled = fill_to_end(alloc.singles.policy, start, inst, targets, None, hspace.State)
    assert filled.ixes == [] and filled.errs
    assert filled.nodes is start.nodes and filled.insts is start.insts


def test_the_tiered_search_tries_each_size_once_per_cluster(monkeypatch):
    # five nodes of 2 CPUs, one 4-vCPU instance each, then 510 levels of
    # memory shrinks on that same cluster: each level's walks re-ask the sizes
    # the deeper levels asked; before fill_to_end kept the cluster's objects,
    # every one was tried again (130 306 tries instead of 511)
    tries = []
    real = hspace.Allocator._try_alloc
    monkeypatch.setattr(hspace.Allocator, "_try_alloc",
                        lambda self, *args: tries.append(1) or real(self, *args))
    opts = {"no_capacity_checks": True, "spindle_use": 2, "max_cpu": 2.5}
    report = capacity_report(load_simulated(["last_resort,5,100GB,32g,2"]), opts)
    assert report["machine_readable"]["HTS_TSPEC"] == "32704,1048576,4,12=5"
    assert len(tries) < 1000
