# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""capacity/emptying.py against the moves it stands for: one failover per
DRBD instance (evacuate.state.apply) and evacuate.single.best_single."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.emptying import (
    Emptier)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.capacity import SHARED
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.single import (
    best_single)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import (
    EvacState, Failed, apply)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import node_values
from ansible_collections.ganeti.htools.plugins.module_utils.planner.moves import (
    FAILOVER, FAILOVER_TO_ANY)


def _one_by_one(nodes, insts, drbd):
    for idx in drbd:
        res = apply(nodes, insts[idx], FAILOVER, None, True)
        if isinstance(res, str):
            return None
        nodes = res[0]
    return nodes


@pytest.mark.parametrize("seed", range(60))
def test_failovers_and_moves_are_the_plain_ones(prepared_cluster, seed):
    data = prepared_cluster(seed)
    nodes, insts = list(data.nodes), list(data.instances)
    state = EvacState(data, nodes, insts)
    emptier = Emptier()
    for _round in range(2):         # the second round answers from what was kept
        for node in nodes:
            drbd = [i for i in node.p_list if insts[i].template == "drbd"]
            ours = emptier.fail_over(nodes, insts, node, drbd)
            theirs = _one_by_one(nodes, insts, drbd)
            assert (ours is None) == (theirs is None)
            if ours is not None:
                assert [node_values(n) for n in ours[0]] == [node_values(n) for n in theirs]
            escape = [k for k in state.members[node.group] if k != node.idx]
            for idx in node.p_list:
                if insts[idx].template not in SHARED:
                    continue
                moved = list(insts)
                ours = emptier.move(state, nodes, moved, idx, escape)
                try:
                    theirs, placed, _ops = best_single(state, nodes, insts[idx], node.group,
                                                       escape, FAILOVER_TO_ANY, True)
                except Failed:
                    theirs = placed = None
                assert (ours is None) == (theirs is None)
                if ours is not None:
                    assert moved[idx].pnode == placed.pnode
                    assert [node_values(n) for n in ours] == [node_values(n) for n in theirs]
