"""Cross-check: the bulk (numpy) move search vs the scalar reference search.

For seeds 1..N (N = env ``HTOOLS_SEARCH_CASES``, default 100) a random
cluster and random hbal options (``tests/gen/balance_options.py``) are
planned twice, with ``search="bulk"`` and ``search="exhaustive"``; the step
lines, the ``-C`` listing, the end message and the scores must be identical,
and the bulk search must never have fallen back to the reference search
(``BalanceResult.search_stats.fallbacks``). No hbal binary is needed.
"""

from __future__ import annotations

import os

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import loop
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import planner

N_CASES = int(os.environ.get("HTOOLS_SEARCH_CASES", "100"))
SEEDS = list(range(1, N_CASES + 1))


@pytest.fixture
def balance_results(monkeypatch):
    """The BalanceResult of every ``balance`` run the planner makes in the test."""
    results = []

    def recording_balance(*args, **kwargs):
        result = loop.balance(*args, **kwargs)
        results.append(result)
        return result

    monkeypatch.setattr(planner, "balance", recording_balance)
    return results


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_bulk_equals_exhaustive(seed, tmp_path, balance_gen, balance_oracle,
                                htools_balance, balance_results):
    opts = balance_gen.balance_options(seed)
    dpath, upath = opts["case"].write(tmp_path)[:2]
    _compare_searches(seed, opts, dpath, upath, balance_gen, balance_oracle, htools_balance,
                      balance_results)


TWIN_SEEDS = SEEDS[:max(1, N_CASES // 4)]


def _with_twins(path):
    """The data file with a twin after every instance: same nodes, same
    everything but the name (the bulk search keeps only the first of such
    victims; the reference search tries every one)."""
    with open(path, encoding="utf-8") as handle:
        sections = handle.read().split("\n\n")
    lines = [line for line in sections[2].split("\n") if line]
    twins = []
    for line in lines:
        name, rest = line.split("|", 1)
        twins += [line, "%s-twin|%s" % (name, rest)]
    sections[2] = "\n".join(twins)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n\n".join(sections))


@pytest.mark.parametrize("seed", TWIN_SEEDS, ids=[f"seed{s}" for s in TWIN_SEEDS])
def test_bulk_equals_exhaustive_with_twin_instances(seed, tmp_path, balance_gen, balance_oracle,
                                                    htools_balance, balance_results):
    opts = balance_gen.balance_options(seed)
    dpath, upath = opts["case"].write(tmp_path)[:2]
    _with_twins(dpath)
    _compare_searches(seed, opts, dpath, upath, balance_gen, balance_oracle, htools_balance,
                      balance_results)


def _compare_searches(seed, opts, dpath, upath, balance_gen, balance_oracle, htools_balance,
                      balance_results):
    plan_balance, BalanceOptions, _hs_fixed = htools_balance
    results = {}
    search_stats = {}
    for search in ("bulk", "exhaustive"):
        del balance_results[:]
        try:
            results[search] = balance_gen.run_plan(
                plan_balance, BalanceOptions, opts, dpath, upath, search=search)
        except Exception as exc:    # noqa: BLE001 - compared below
            results[search] = exc
        else:
            if results[search].get("cluster_empty"):
                pytest.skip(f"seed {seed}: the cluster has no instances (nothing is searched)")
            assert len(balance_results) == 1, "the planner must run balance() once per plan"
            search_stats[search] = balance_results[0].search_stats
    bulk, ref = results["bulk"], results["exhaustive"]
    where = (f"seed {seed}\n  options: {opts['argv']}\n"
             f"  reproduce: {balance_gen.repro(opts, search='exhaustive')}")
    if isinstance(bulk, Exception) or isinstance(ref, Exception):
        assert type(bulk) is type(ref) and str(bulk) == str(ref), (
            f"{where}\n  bulk: {bulk!r}\n  exhaustive: {ref!r}")
        pytest.skip(f"seed {seed}: both searches reject the case: {ref!r}")
    diff = balance_oracle.first_difference
    problems = []
    for key, what in (("step_lines", "step"), ("commands", "command line")):
        d = diff(bulk[key], ref[key], what, names=("bulk", "exhaustive"))
        if d:
            problems.append(f"{key} differ, {d}")
    for key in ("stop_reason", "solution_length", "well_balanced", "jobsets",
                "command_script"):
        if bulk[key] != ref[key]:
            problems.append(f"{key}: bulk {bulk[key]!r}, exhaustive {ref[key]!r}")
    bulk_scores = [m["score"] for m in bulk["moves"]]
    ref_scores = [m["score"] for m in ref["moves"]]
    if bulk_scores != ref_scores:
        problems.append(f"raw step scores differ: bulk {bulk_scores}, "
                        f"exhaustive {ref_scores}")
    stats = search_stats["bulk"]
    if stats.fallbacks:
        problems.append(f"the bulk search fell back to the reference {stats.fallbacks} time(s) "
                        f"({stats!r}): its feasibility checks disagree with the scalar model")
    if search_stats["exhaustive"].fallbacks or search_stats["exhaustive"].bulk_scored:
        problems.append(f"the reference search reports bulk work: {search_stats['exhaustive']!r}")
    if stats.searches != search_stats["exhaustive"].searches:
        problems.append(f"the searches ran a different number of times: bulk {stats!r}, "
                        f"exhaustive {search_stats['exhaustive']!r}")
    assert not problems, where + "\n  " + "\n  ".join(problems)
