"""Differential test: our balancing plan vs the real hbal 3.0.2.

For every seed 1..N (N = env ``HTOOLS_BALANCE_CASES``, default 120) a random
cluster is generated (``tests/gen/cluster_gen.py``) together with random
hbal algorithm options (``tests/gen/balance_options.py``). hbal is run as
``hbal -t FILE [-U FILE] <options> -C`` and compared with
``plan_balance(..., search="bulk")``:

* the ``Initial score:`` value;
* every step line, exactly;
* the end message (``Cluster score improved from X to Y``,
  ``No solution found`` or the 4-line ``Cluster is already well balanced``);
* ``Solution length=N``;
* the complete ``-C`` listing (from the empty line before
  ``Commands to run to reach the above solution:``).

Cases where hbal says ``Cluster is empty, exiting.`` are skipped. If hbal
rejects a case (non-zero exit), our planner must reject it too.
Every failure names its seed, its options and the commands reproducing it.
"""

from __future__ import annotations

import collections
import os

import pytest

N_CASES = int(os.environ.get("HTOOLS_BALANCE_CASES", "500"))
SEEDS = list(range(1, N_CASES + 1))
COVERAGE_SEEDS = 500
MIN_OPTION_USES = 20


def compare(hb, res, hs_fixed, first_difference):
    """List of differences between hbal's run ``hb`` and our plan ``res``."""
    problems = []
    ini = hs_fixed(res["initial_score"], 8)
    if ini != hb.initial_score_text:
        problems.append(f"initial score: ours {ini} (raw {res['initial_score']!r}), "
                        f"hbal {hb.initial_score_text}")
    diff = first_difference(res["step_lines"], hb.step_lines, "step")
    if diff:
        problems.append("step lines differ, " + diff)
    if res["stop_reason"] != hb.end_message:
        problems.append(f"end message: ours {res['stop_reason']!r}, "
                        f"hbal {hb.end_message!r}")
    if bool(res["well_balanced"]) != hb.well_balanced:
        problems.append(f"well_balanced: ours {res['well_balanced']}, "
                        f"hbal {hb.well_balanced}")
    hb_len = hb.solution_length if hb.solution_length is not None else 0
    if res["solution_length"] != hb_len:
        problems.append(f"Solution length: ours {res['solution_length']}, "
                        f"hbal {hb.solution_length}")
    diff = first_difference(res["commands"], hb.commands, "command line")
    if diff:
        problems.append("-C listing differs, " + diff)
    if hb.trailer:
        problems.append(f"hbal printed unexpected lines after the plan: {hb.trailer!r}")
    return problems


def check_case(seed, tmp_path, balance_gen, balance_oracle, htools_balance):
    """Run one seed; return (problems, opts, reproduction text)."""
    plan_balance, BalanceOptions, hs_fixed = htools_balance
    opts = balance_gen.balance_options(seed)
    dpath, upath = opts["case"].write(tmp_path)[:2]
    again = balance_gen.repro(opts)
    hb = balance_oracle.run_balance(
        balance_gen.hbal_command(opts, dpath, upath, extra=("-C",)))
    if hb.returncode != 0:
        try:
            balance_gen.run_plan(plan_balance, BalanceOptions, opts, dpath, upath)
        except Exception:   # noqa: BLE001 - any rejection matches hbal's
            pytest.skip(f"seed {seed}: hbal and ours both reject the case "
                        f"(hbal exit {hb.returncode})")
        pytest.fail(f"seed {seed}: hbal exited {hb.returncode} but ours planned\n"
                    f"  hbal stderr: {hb.stderr.strip()[-400:]}\n"
                    f"  options: {opts['argv']}\n  reproduce: {again}")
    if hb.cluster_empty:
        pytest.skip(f"seed {seed}: 'Cluster is empty, exiting.'")
    try:
        res = balance_gen.run_plan(plan_balance, BalanceOptions, opts, dpath, upath)
    except Exception as exc:
        pytest.fail(f"seed {seed}: plan_balance raised {exc!r}\n"
                    f"  options: {opts['argv']}\n  reproduce: {again}")
    return compare(hb, res, hs_fixed, balance_oracle.first_difference), opts, again


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_balance_parity(seed, tmp_path, balance_gen, balance_oracle,
                        require_hbal, htools_balance):
    problems, opts, again = check_case(seed, tmp_path, balance_gen,
                                       balance_oracle, htools_balance)
    assert not problems, (
        f"seed {seed}: {len(problems)} difference(s) from hbal\n  "
        + "\n  ".join(problems)
        + f"\n  options: {opts['argv']}\n  reproduce: {again}")


def test_balance_options_coverage(balance_gen):
    """Over 500 seeds every option is drawn often (no hbal needed)."""
    count = collections.Counter()
    for seed in range(1, COVERAGE_SEEDS + 1):
        count.update(balance_gen.balance_options(seed)["used"])
    rare = {name: count[name] for name in balance_gen.OPTION_NAMES
            if count[name] < MIN_OPTION_USES}
    assert not rare, f"options drawn fewer than {MIN_OPTION_USES} times: {rare}"


def test_balance_options_deterministic(balance_gen):
    a = balance_gen.balance_options(42)
    b = balance_gen.balance_options(42)
    assert a["argv"] == b["argv"] and a["plan_kwargs"] == b["plan_kwargs"]
    assert a["balance_options"] == b["balance_options"]
