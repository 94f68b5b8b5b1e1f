"""Differential test: symmetric clusters (tests/bench/gen_symmetric.py) vs the real hbal.

Identical nodes and identical DRBD instances make thousands of candidate
moves with exactly tied scores, so the plan is decided by hbal's tie rule
(earliest candidate in its enumeration order) far more often than on the
random clusters of test_balance_parity.  A few small sizes and seeds, with
exclusion tags per service and racks as locations, must give hbal's step
lines, end message and -C listing exactly.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bench"))

from gen_symmetric import generate  # noqa: E402

from test_balance_parity import compare  # noqa: E402

MAX_LENGTH = 4
# (nodes, seed, services, rack size)
CASES = [(10, 1, 5, 10), (16, 2, 5, 4), (24, 3, 3, 6), (30, 4, 5, 10)]


@pytest.mark.parametrize("nodes,seed,services,rack", CASES,
                         ids=[f"n{c[0]}-s{c[1]}" for c in CASES])
def test_symmetric_parity(nodes, seed, services, rack, tmp_path, balance_oracle, require_hbal,
                          htools_balance):
    plan_balance, _options, hs_fixed = htools_balance
    data = tmp_path / ("sym-%d-%d.data" % (nodes, seed))
    data.write_text(generate(nodes, seed, services=services, rack_size=rack), encoding="utf-8")
    hb = balance_oracle.run_balance([require_hbal, "-t", str(data), "-l", str(MAX_LENGTH), "-C"],
                                    timeout=600)
    assert hb.returncode == 0, hb.stderr
    res = plan_balance(str(data), max_length=MAX_LENGTH)
    problems = compare(hb, res, hs_fixed, balance_oracle.first_difference)
    assert not problems, (f"symmetric n={nodes} seed={seed}: " + "\n  ".join(problems))
    assert res["search_stats"]["fallbacks"] == 0
    assert len(res["step_seconds"]) == res["search_stats"]["searches"]
