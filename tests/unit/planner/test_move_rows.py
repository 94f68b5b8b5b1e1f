"""``MoveRows`` (memoised node transitions) against ``apply_move``.

The bulk search names each tied candidate by the rows it gives the nodes it
touches and scores each distinct signature once.  For every candidate of the
first steps of random clusters with random hbal options (and of symmetric
clusters, where the memo is hit most), the rows must be exactly those of
``apply_move``'s nodes, a failing move must fail, and the exact score of the
signature must equal the reference score of the node list.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import bulk_arrays, bulk_exact, bulk_search
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import loop
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import planner
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.move_rows import (
    MoveRows)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import node_values
from ansible_collections.ganeti.htools.plugins.module_utils.planner.moves import (
    MOVE_KINDS, apply_move)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench"))

from gen_symmetric import generate  # noqa: E402

SEEDS = list(range(1, 13))
STEPS = 3


def _same(value):
    """A row value in a form where NaN equals NaN and dicts compare by content."""
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _row(values):
    return tuple(_same(v) for v in values)


def _checking_search(counts):
    """search_exhaustive, after checking every candidate of the step with MoveRows."""
    def search(state, opts, migrations_only=False):
        pos = {idx: g for g, idx in enumerate(state.group_nodes)}
        rows = MoveRows(state.nodes, state.group_nodes, opts.force)
        nd = bulk_arrays._Nodes(state.group_node_objs())
        scorer = bulk_exact.ExactScorer(state.group_node_objs())
        online = state.online()
        cands = [(inst, move, target) for inst in loop.victims(state, opts)
                 if inst.snode in pos or inst.snode < 0
                 for move, target in loop.instance_moves(state, inst, online, opts)]
        if cands:
            positions, row_ids, failed = rows.signatures(
                nd, state.instances, np.array([c[0].idx for c in cands], dtype=np.int64),
                np.array([MOVE_KINDS.index(c[1]) for c in cands], dtype=np.int64),
                np.array([c[2] for c in cands], dtype=np.int64))
            tried, want_scores = [], []
            for j, (inst, move, target) in enumerate(cands):
                result = apply_move(state.nodes, inst, move, target, opts.force)
                where = (inst.name, move, target)
                if isinstance(result, str):
                    assert failed[j], where
                    continue
                assert failed[j] is None, (where, failed[j])
                want = sorted((pos[i], _row(node_values(n)))
                              for i, n in result[0].items() if i in pos)
                got = [(g, _row(rows.rows[r])) for g, r in zip(positions[j], row_ids[j])
                       if g >= 0]
                assert got == want, where
                tried.append(j)
                want_scores.append(loop.score_with(state, result[0]))
            got = scorer.score_signatures(positions[tried], row_ids[tried], rows.rows,
                                          rows.map_deltas)
            for g, w in zip(got.tolist(), want_scores):
                assert g == w or (math.isnan(g) and math.isnan(w))
            counts["candidates"] += len(tried)
            counts["rows"] += len(rows.rows)
        return loop.search_exhaustive(state, opts, migrations_only)
    return search


@pytest.fixture(params=["dense", "sparse"])
def checked(request, monkeypatch):
    """Counts of the checked candidates; exact scores written out (dense) or
    from sparse folds."""
    if request.param == "sparse":
        monkeypatch.setattr(bulk_exact, "DENSE_LIMIT", 0)
        monkeypatch.setattr(bulk_search, "SCALAR_PICKS", 0)
    counts = {"candidates": 0, "rows": 0}
    monkeypatch.setitem(planner.SEARCHES, "exhaustive", _checking_search(counts))
    return counts


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_rows_equal_apply_move(seed, tmp_path, balance_gen, htools_balance, checked):
    plan_balance, BalanceOptions, _hs_fixed = htools_balance
    opts = balance_gen.balance_options(seed)
    dpath, upath = opts["case"].write(tmp_path)[:2]
    balance_gen.run_plan(plan_balance, BalanceOptions, opts, dpath, upath,
                         search="exhaustive", max_length=STEPS)


# 6 instances per node over 5 secondary offsets: a node's peers differ (2, 1,
# 1, 1, 1 instances), so transitions of identical instances still depend on
# which primary they come from.
@pytest.mark.parametrize("nodes,seed,per_node,sharing", [(12, 1, 25, 3), (16, 2, 25, 3),
                                                         (12, 3, 6, 0)])
def test_symmetric_candidates_share_rows(nodes, seed, per_node, sharing, tmp_path,
                                         htools_balance, checked):
    plan_balance = htools_balance[0]
    data = tmp_path / "sym.data"
    data.write_text(generate(nodes, seed, per_node=per_node, rack_size=4), encoding="utf-8")
    plan_balance(str(data), max_length=2, search="exhaustive")
    assert checked["candidates"] > 0
    # identical nodes and instances: far fewer distinct rows than candidates
    if sharing:
        assert checked["rows"] * sharing < checked["candidates"]


def test_dropping_kept_rows_changes_no_plan(tmp_path, htools_balance, monkeypatch):
    """Beyond ROW_LIMIT the kept transitions are dropped between steps: same plan."""
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import move_rows
    plan_balance = htools_balance[0]
    data = tmp_path / "sym.data"
    data.write_text(generate(16, 4, rack_size=4), encoding="utf-8")
    kept = plan_balance(str(data), max_length=4)["step_lines"]
    monkeypatch.setattr(move_rows, "ROW_LIMIT", 0)
    assert plan_balance(str(data), max_length=4)["step_lines"] == kept
    assert len(kept) == 4
