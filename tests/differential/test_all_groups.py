# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`group: all` against the real hbal 3.0.2 run once per group (`hbal -G`).

Multi-group clusters of both generators (tests/gen/cluster_gen.py,
tests/gen/capacity_gen.py): every group's step lines, initial score and end
message in the merged plan must be hbal -G's for that group, and the merged
plan must run jobset K of every group together, its moves numbered in that
order, with `cluster_score` the sum of the groups' scores after each move.
HTOOLS_ALL_GROUPS_CASES sets the number of seeds per generator.
"""

from __future__ import annotations

import os

import pytest

from gen import capacity_gen, cluster_gen
from kit.paths import HBAL
from kit.plans import plan_balance
from oracle.hbal_balance import first_difference, run_balance

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import hs_fixed

COUNT = int(os.environ.get("HTOOLS_ALL_GROUPS_CASES", "40"))
GENERATORS = {"cluster": lambda seed: cluster_gen.generate(seed).data,
              "capacity": lambda seed: capacity_gen.generate(seed)[0]}


def _multi_group(path):
    try:
        plan = plan_balance(path, group="all")
    except HtoolsError:
        return None
    return plan if plan["group"] == "all" and len(plan["groups"]) > 1 else None


@pytest.mark.parametrize("kind", sorted(GENERATORS))
@pytest.mark.parametrize("seed", range(COUNT))
def test_each_groups_moves_are_hbal_G(tmp_path, kind, seed):
    path = str(tmp_path / "c.data")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(GENERATORS[kind](seed))
    plan = _multi_group(path)
    if plan is None:
        pytest.skip("not a cluster of several groups with instances")
    start = 0
    for group in plan["groups"]:
        hbal = run_balance([HBAL, "-t", path, "-G", group["group"]])
        ours = plan["step_lines"][start:start + group["moves"]]
        start += group["moves"]
        assert hs_fixed(group["initial_score"], 8) == hbal.initial_score_text, group["group"]
        assert group["stop_reason"] == hbal.end_message, group["group"]
        assert first_difference(ours, hbal.step_lines, "step") is None, group["group"]
        mine = [m for m in plan["moves"] if m["group"] == group["group"]]
        assert [m["step_line"] for m in mine] == ours
    _check_merge(plan)


def _check_merge(plan):
    """Jobset K holds jobset K of every group; moves numbered in that order;
    cluster_score is the running sum of the groups' scores."""
    moves = plan["moves"]
    assert [m["index"] for m in moves] == list(range(1, len(moves) + 1))
    assert [i for js in plan["jobsets"] for i in js] == [m["index"] for m in moves]
    current = {g["group"]: g["initial_score"] for g in plan["groups"]}
    for move in moves:
        assert move["index"] in plan["jobsets"][move["jobset"] - 1]
        current[move["group"]] = move["score"]
        assert move["cluster_score"] == pytest.approx(sum(current.values()))
    for group in plan["groups"]:
        mine = [m for m in moves if m["group"] == group["group"]]
        jobsets = sorted({m["jobset"] for m in mine})
        assert jobsets == list(range(1, group["jobsets"] + 1))
    assert plan["final_score"] == pytest.approx(sum(g["final_score"] for g in plan["groups"]))


def test_the_generators_give_multi_group_clusters_with_moves(tmp_path):
    """The test above is not all skips: several seeds have several groups,
    some with moves in more than one group."""
    busy = 0
    for seed in range(COUNT):
        path = str(tmp_path / "c.data")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(GENERATORS["capacity"](seed))
        plan = _multi_group(path)
        if plan and sum(1 for g in plan["groups"] if g["moves"]) > 1:
            busy += 1
    assert busy >= 3, busy


def test_save_state_cannot_be_used_with_all_groups(tmp_path):
    path = str(tmp_path / "c.data")
    for seed in range(COUNT):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(GENERATORS["capacity"](seed))
        if _multi_group(path):
            break
    with pytest.raises(HtoolsError, match="save_state .* cannot be used with group: all"):
        plan_balance(path, group="all", save_state=str(tmp_path / "state"))
