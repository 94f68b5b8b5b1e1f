# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hspace's faster one-node tries (capacity/singles.py, capacity/ranking.py)
against alloc.try_alloc, which scores every candidate in full."""

from __future__ import annotations

import random

import pytest

from gen import capacity_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare_model
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity import ranking
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.alloc import (
    alloc_nodes, try_alloc)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.hspace import (
    RSpec, inst_from_spec)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.singles import (
    SingleTries, shape_key)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import copy_node
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import (
    cluster_score, node_values)


def _cluster(tmp_path, text):
    path = tmp_path / "c.data"
    path.write_text(text, encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
    return data


def _twins(count):
    """A cluster of identical empty nodes: every candidate ties with others."""
    nodes = ["n%d|65536|1024|64512|1048576|1048576|16|N|uuid-1|8" % k for k in range(count)]
    return "g|uuid-1|preferred||\n\n" + "\n".join(nodes) + "\n\n\n\n"


def _clusters(tmp_path):
    yield _cluster(tmp_path, _twins(6))
    for seed in range(12):
        yield _cluster(tmp_path, capacity_gen.generate(seed)[0])


def _inst(data, mem, template="diskless"):
    inst = inst_from_spec(RSpec(mem, 1024, 1, 1), template, 1)
    inst.idx = len(data.instances)
    return inst


def _order(solve):
    """The candidates in the order the N+1 predicate is asked about them."""
    seen = []

    def good(item):
        seen.append(list(item[1]))
        return False
    sol = solve(good)
    return seen, sol.counts()


def _grow(data, nodes, tries, inst, steps):
    """`steps` placements of copies of `inst`, as hspace's unchecked steps."""
    insts = list(data.instances)
    for _step in range(steps):
        new = inst.copy()
        new.idx = len(insts)
        sol = tries.solve(nodes, new)
        if sol.best is None:
            break
        nodes = list(nodes)
        for idx, node in sol.best[1].items():
            nodes[idx] = node
        insts.append(sol.best[2])
    return nodes, insts


@pytest.mark.parametrize("mem", [128, 512, 2048])
def test_the_order_is_full_scorings_order(tmp_path, mem):
    for data in _clusters(tmp_path):
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        if not targets:
            continue
        tries = SingleTries(data, targets)
        nodes = list(data.nodes)
        for step in range(4):
            inst = _inst(data, mem)
            inst.idx += step
            ours = _order(lambda good: tries.solve(nodes, inst, good))
            theirs = _order(lambda good: try_alloc(data, nodes, inst, targets, 1, good=good))
            assert ours == theirs
            nodes, _insts = _grow(data, nodes, tries, inst, 3)


def test_a_predicate_picks_the_same_candidate(tmp_path):
    rnd = random.Random(5)
    for data in _clusters(tmp_path):
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        if not targets:
            continue
        refused = {t for t in targets if rnd.random() < 0.5}
        inst = _inst(data, 256)

        def good(item):
            return not set(item[1]) & refused
        ours = SingleTries(data, targets).solve(data.nodes, inst, good)
        theirs = try_alloc(data, data.nodes, inst, targets, 1, good=good)
        assert ours.failures == theirs.failures and ours.allocs == theirs.allocs
        assert (ours.best is None) == (theirs.best is None)
        if ours.best is not None:
            assert list(ours.best[1]) == list(theirs.best[1])
            assert node_values(list(ours.best[1].values())[0]) == \
                node_values(list(theirs.best[1].values())[0])
            assert ours.best[2].pnode == theirs.best[2].pnode


def test_the_bounds_hold_the_exact_scores(tmp_path):
    for data in _clusters(tmp_path):
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        tries = SingleTries(data, targets)
        nodes, _insts = _grow(data, list(data.nodes), tries, _inst(data, 128), 20)
        board = ranking.Board([node_values(n) for n in nodes], [not n.offline for n in nodes])
        inst = _inst(data, 384)
        offers = tries._offers(nodes, inst)        # pylint: disable=protected-access
        offers = [o for o in offers if o.fail is None]
        est = ranking.estimates(board, [o.target for o in offers], [o.row for o in offers])
        if est is None:
            continue
        for offer, score, bound in zip(offers, *est):
            changed = list(nodes)
            changed[offer.target] = offer.node
            exact = cluster_score(changed)
            assert abs(exact - score) <= bound
            assert exact == board.exact_score(offer.target, offer.row)


def test_runs_are_cut_only_between_separate_intervals():
    scores = [1.0, 1.05, 3.0, 2.0, 2.001]
    bounds = [0.1, 0.1, 0.5, 0.01, 0.01]
    assert ranking.certain_runs(scores, bounds) == [[0, 1], [3, 4], [2]]
    # a wide interval later on keeps earlier candidates in its run
    assert ranking.certain_runs([1.0, 2.0, 5.0], [0.1, 0.1, 3.5]) == [[0], [1, 2]]
    assert ranking.certain_runs([1.0, 1.0], [0.0, 0.0]) == [[0, 1]]


def test_board_patches_equal_a_new_board(tmp_path):
    data = _cluster(tmp_path, capacity_gen.generate(3)[0])
    nodes = list(data.nodes)
    tries = SingleTries(data, alloc_nodes(nodes, lambda g: True, 1))
    grown, _insts = _grow(data, nodes, tries, _inst(data, 128), 2)
    board = ranking.Board([node_values(n) for n in nodes], [not n.offline for n in nodes])
    patched = board.replaced({k: node_values(n) for k, n in enumerate(grown) if n is not nodes[k]})
    fresh = ranking.Board([node_values(n) for n in grown], [not n.offline for n in grown])
    assert patched.values == fresh.values
    assert (patched.matrix == fresh.matrix).all()


def test_batch_exact_scores_are_the_full_scores(tmp_path):
    checked = 0
    for seed in range(40):
        data = _cluster(tmp_path, capacity_gen.generate(seed)[0])
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        if not targets:
            continue
        nodes = list(data.nodes)
        board = ranking.Board([node_values(n) for n in nodes], [not n.offline for n in nodes])
        tries = SingleTries(data, targets)
        offers = tries._offers(nodes, _inst(data, 256))      # pylint: disable=protected-access
        offers = [o for o in offers if o.fail is None]
        if not offers:
            continue
        batch = board.exact_scores([o.target for o in offers], [o.row for o in offers],
                                   [o.vector for o in offers])
        for offer, score in zip(offers, batch):
            changed = list(nodes)
            changed[offer.target] = offer.node
            assert score == cluster_score(changed)
            checked += 1
        checked += any(n.offline for n in nodes)
    assert checked > 40


def test_exact_scores_replace_offline_rows_too(tmp_path):
    replaced_offline = 0
    for seed in range(60):
        data = _cluster(tmp_path, capacity_gen.generate(seed)[0])
        nodes = list(data.nodes)
        board = ranking.Board([node_values(n) for n in nodes], [not n.offline for n in nodes])
        inst = _inst(data, 128)
        for node in nodes:
            new = node.copy()
            if new.add_pri(inst, True) is not None:
                continue
            changed = list(nodes)
            changed[node.idx] = new
            row = node_values(new)
            assert board.exact_score(node.idx, row) == cluster_score(changed)
            assert board.exact_scores([node.idx], [row], [ranking.numeric_row(row)]) == \
                [cluster_score(changed)]
            replaced_offline += node.offline
    assert replaced_offline


def test_memory_refusals_hold_down_to_the_probed_size(tmp_path):
    """A node's offers over a descending walk of sizes (as hspace's tiered
    search makes) equal a fresh answer (the group's policy, then addPri) of
    each size, also where the refusal for lack of memory is taken from the
    probe instead of tried."""
    from_probe = 0
    for data in _clusters(tmp_path):
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        tries = SingleTries(data, targets)
        nodes, _insts = _grow(data, list(data.nodes), tries, _inst(data, 256), 15)
        for mem in range(16384, 63, -64):
            inst = _inst(data, mem)
            # the nodes the probe already answers for, before this size is asked
            known = {t for t in targets
                     if tries.short.get((shape_key(inst), id(nodes[t])), (None,))[0] is nodes[t]
                     and mem >= tries.short[(shape_key(inst), id(nodes[t]))][1]}
            for offer in tries._offers(nodes, inst):        # pylint: disable=protected-access
                node = nodes[offer.target]
                fresh = tries.policy(inst, node) or copy_node(node).add_pri(inst, False)
                assert offer.fail == fresh, (mem, offer.target)
                from_probe += offer.target in known
    assert from_probe >= 200


def test_a_replayed_ranking_is_the_fresh_one(tmp_path):
    """solve() asked again on the same nodes and size replays its kept
    ranking: the order of the N+1 questions is that of a fresh ranking,
    however far the first reader went."""
    replayed = 0
    for data in _clusters(tmp_path):
        targets = alloc_nodes(data.nodes, lambda g: True, 1)
        tries = SingleTries(data, targets)
        nodes, insts = _grow(data, list(data.nodes), tries, _inst(data, 128), 10)
        inst = _inst(data, 512)
        inst.idx = len(insts)
        first = tries.solve(nodes, inst)             # reads the best candidate only
        again, _counts = _order(lambda good: tries.solve(nodes, inst, good))
        fresh, _counts = _order(lambda good: SingleTries(data, targets).solve(nodes, inst, good))
        assert again == fresh
        if first.best is not None:
            assert list(first.best[1]) == fresh[0]
            replayed += tries._last_ranking is not None     # pylint: disable=protected-access
    assert replayed >= 10
