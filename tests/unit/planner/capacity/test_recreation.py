# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GlobalN1's re-creation of an instance (capacity/emptying.py's
Emptier.recreation) against scoring every target over the whole cluster, as
hspace's recreate does: the same target, the same node after it."""

from __future__ import annotations

from gen import capacity_gen, units_gen

from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.emptying import Emptier
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.single import (
    pick_last_min)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import (
    cluster_score, needs_unit_metric, node_values)


def _twins(count):
    """Identical empty nodes, one offline: every target ties with others."""
    nodes = ["n%d|65536|1024|64512|1048576|1048576|16|%s|uuid-1|8" % (k, "Y" if k == 2 else "N")
             for k in range(count)]
    return "g|uuid-1|preferred||\n\n" + "\n".join(nodes) + "\n\n\n\n"


def _scored_in_full(nodes, scope, inst, targets):
    """(target, node) scoring every target over `scope`, the last of equal scores."""
    found = []
    for target in targets:
        placed = nodes[target].copy()
        if placed.add_pri(inst, True) is not None:
            continue
        changed = list(nodes)
        changed[target] = placed
        found.append((cluster_score([changed[k] for k in scope]), target, placed))
    if not found:
        return None
    best = found[pick_last_min([f[0] for f in found])]
    return best[1], best[2]


def test_a_recreation_goes_where_scoring_every_target_sends_it(prepared_cluster, prepared_text):
    clusters = [prepared_cluster(seed) for seed in range(30)]
    twins = prepared_text(_twins(6))
    twins.instances = list(clusters[0].instances[:8])
    seen = {"offline target": 0, "group scope": 0, "none": 0, "tie": 0}
    for data in clusters + [twins]:
        emptier = Emptier()
        nodes = list(data.nodes)
        for inst in data.instances:
            inst = inst.copy()
            inst.idx = len(data.instances)
            for scope in (range(len(nodes)), [n.idx for n in nodes if n.group == nodes[0].group]):
                targets = [k for k in scope if k != inst.pnode]
                ours = emptier.recreation(nodes, scope, inst, targets)
                theirs = _scored_in_full(nodes, scope, inst, targets)
                if theirs is None:
                    assert ours is None
                    seen["none"] += 1
                    continue
                assert ours[0] == theirs[0]
                assert node_values(ours[1]) == node_values(theirs[1])
                seen["offline target"] += nodes[ours[0]].offline
                seen["group scope"] += len(scope) < len(nodes)
                seen["tie"] += data is twins
    # the cases that make the ranked order give way to scoring all targets
    assert all(seen.values()), seen


def test_with_storage_units_every_target_is_scored_with_the_unit_metric(prepared_text):
    # the board holds the nodes' own free-disk metric; with several units a
    # node's comes from unit_metrics, which only cluster_score applies
    decided_by_units = 0
    for seed in range(30):
        data = prepared_text(units_gen.several_units(
            units_gen.load(capacity_gen.generate(seed)[0]), seed, False))
        nodes = list(data.nodes)
        assert needs_unit_metric(nodes)
        emptier = Emptier()
        for inst in data.instances:
            inst = inst.copy()
            inst.idx = len(data.instances)
            scope = range(len(nodes))
            targets = [k for k in scope if k != inst.pnode]
            ours = emptier.recreation(nodes, scope, inst, targets)
            theirs = _scored_in_full(nodes, scope, inst, targets)
            assert (ours is None) == (theirs is None)
            if theirs is not None:
                assert ours[0] == theirs[0]
                assert node_values(ours[1]) == node_values(theirs[1])
                board = emptier.boards.board(nodes)
                decided_by_units += board.exact_score(ours[0], node_values(ours[1])) != \
                    cluster_score([ours[1] if k == ours[0] else n for k, n in enumerate(nodes)])
    assert decided_by_units
