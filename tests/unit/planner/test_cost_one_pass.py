# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cost-aware search's one pass (cost_search.candidates_in_one_pass) finds,
at every step, exactly the candidates of one search per disk limit
(candidates_by_searches): same moves, same scores, same order."""

from __future__ import annotations

import os
import sys

import pytest

from kit.plans import plan_balance

from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import (
    bulk_search, cost_search, loop, planner)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench"))
from gen_drbd import generate  # noqa: E402  pylint: disable=wrong-import-position


def _key(cand):
    return (cand.inst, cand.move, cand.target, cand.score)


def _checked_one_pass(reference_search, compared):
    """candidates_in_one_pass, after checking it against the searches per limit."""
    one_pass = cost_search.candidates_in_one_pass

    def check(state, opts, bests_by_key, victim_list, limits):
        found = one_pass(state, opts, bests_by_key, victim_list, limits)
        want = cost_search.candidates_by_searches(state, opts, reference_search, limits)
        assert [_key(c) for c in found] == [_key(c) for c in want], len(compared)
        compared.append(len(found))
        return found
    return check


def _data_file(tmp_path, nodes, seed):
    path = str(tmp_path / "drbd.data")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(generate(nodes, seed=seed, per_node=8))
    return path


@pytest.mark.parametrize("nodes, seed, block, opts", [
    (8, 1, None, dict(cost_aware=True)),
    (8, 2, 40, dict(cost_aware=True)),          # 5 victims per numpy block
    (8, 3, 40, dict(max_data_moved=300.0)),
    (8, 4, None, dict(cost_aware=True, no_instance_moves=True)),
    (8, 5, 40, dict(cost_aware=True, no_disk_moves=True)),
    (8, 6, None, dict(cost_aware=True, avoid_disk_moves=2.0)),
])
def test_one_pass_equals_a_search_per_limit(tmp_path, monkeypatch, nodes, seed, block, opts):
    if block is not None:
        monkeypatch.setattr(bulk_search, "BLOCK", block)
    compared = []
    monkeypatch.setattr(cost_search, "candidates_in_one_pass",
                        _checked_one_pass(bulk_search.search_bulk, compared))
    path = _data_file(tmp_path, nodes, seed)
    fast = plan_balance(path, **opts)
    assert len(compared) > len(fast["moves"]) > 5
    if not opts.get("no_disk_moves"):
        assert sum(compared) > len(compared), "no step with several candidates"


def test_one_pass_equals_the_reference_searches_per_limit(tmp_path, monkeypatch):
    """Against the scalar reference search (slow: a small cluster, a few steps)."""
    compared = []
    monkeypatch.setattr(cost_search, "candidates_in_one_pass",
                        _checked_one_pass(loop.search_exhaustive, compared))
    plan_balance(_data_file(tmp_path, 5, 7), cost_aware=True, max_length=6)
    assert len(compared) == 6


def test_a_search_without_one_pass_searches_per_limit(tmp_path, monkeypatch):
    """A search function without `bests_by_key` (the reference one) is run per limit."""
    calls = []

    def search(state, opts, migrations_only=False):
        calls.append((migrations_only, opts.victim_disk_limit))
        return bulk_search.search_bulk(state, opts, migrations_only)

    monkeypatch.setitem(planner.SEARCHES, "plain", search)
    path = _data_file(tmp_path, 6, 8)
    slow = plan_balance(path, search="plain", cost_aware=True, max_length=8)
    fast = plan_balance(path, cost_aware=True, max_length=8)
    assert [m["step_line"] for m in slow["moves"]] == [m["step_line"] for m in fast["moves"]]
    assert (True, None) in calls and any(limit for _m, limit in calls)
