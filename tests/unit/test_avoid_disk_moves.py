"""Properties of ``BalanceOptions(avoid_disk_moves=FACTOR)``.

``--avoid-disk-moves FACTOR`` is not in hbal 3.0.2 (it comes with Ganeti
3.1), so there is no oracle; these tests check the rule itself.  At every
step, with ``best`` the best move overall and ``best_migr`` the best among
failover / failover-to-any moves, the plan takes ``best_migr`` when
``cur - best <= (cur - best_migr) * FACTOR`` and ``best`` otherwise; a
missing ``best_migr`` counts as the current score (no gain).

* ``None`` (the default) is hbal 3.0.2's plan; ``test_balance_parity``
  compares that plan with the real hbal.
* ``0`` is the same plan as ``None`` on every input: a candidate is only
  ever returned when it strictly improves the score, so ``cur - best > 0``
  and ``cur - best <= (cur - best_migr) * 0`` never holds.
* A huge factor prefers any improving migration. Disk moves still happen
  when no migration improves the score (the right-hand side is 0), or when a
  migration's gain is below ``best_gain / FACTOR`` (e.g. a rounding-noise gain
  of 1e-15; seed 205 has one), so "only migrations" is not a property of
  the rule; the tests check the rule where the plans diverge instead.

Cases and options come from ``tests/gen/balance_options.py``.
"""

from __future__ import annotations

import pytest

MIGRATIONS = ("failover", "failover_to_any")
SEEDS = list(range(1, 61))
FIRST_STEP_FACTORS = (0.25, 1.0, 2.0, 10.0, 1e9)
# "raw" search: every strictly improving step is accepted (score > -1 always)
RAW = dict(min_gain_limit=-1.0)


@pytest.fixture(scope="module")
def planner(balance_gen, htools_balance, tmp_path_factory):
    """planner(seed, **BalanceOptions overrides) -> plan dict (cached)."""
    plan_balance, BalanceOptions = htools_balance
    root = tmp_path_factory.mktemp("avoid")
    cache = {}
    files = {}

    def run(seed, **overrides):
        key = (seed, tuple(sorted(overrides.items())))
        if key not in cache:
            opts = balance_gen.balance_options(seed)
            if seed not in files:
                files[seed] = opts["case"].write(root / f"s{seed}")[:2]
            dpath, upath = files[seed]
            try:
                cache[key] = balance_gen.run_plan(plan_balance, BalanceOptions, opts,
                                                  dpath, upath, **overrides)
            except Exception as exc:     # noqa: BLE001 - rejected case
                cache[key] = exc
        res = cache[key]
        if isinstance(res, Exception):
            pytest.skip(f"seed {seed}: the planner rejects the case: {res!r}")
        return res

    run.gen = balance_gen
    return run


def _where(planner, seed, **overrides):
    return (f"seed {seed}\n  reproduce: "
            + planner.gen.repro(planner.gen.balance_options(seed), **overrides))


@pytest.mark.parametrize("seed", SEEDS[:20], ids=[f"seed{s}" for s in SEEDS[:20]])
def test_factor_none_is_the_default(planner, seed):
    default = planner(seed)
    none = planner(seed, avoid_disk_moves=None)
    assert none["step_lines"] == default["step_lines"], _where(planner, seed)
    assert none["commands"] == default["commands"], _where(planner, seed)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_factor_zero_is_none(planner, seed):
    none = planner(seed)
    zero = planner(seed, avoid_disk_moves=0.0)
    assert zero["step_lines"] == none["step_lines"], _where(planner, seed,
                                                            avoid_disk_moves=0.0)
    assert zero["stop_reason"] == none["stop_reason"]
    assert zero["commands"] == none["commands"]


def _first_divergence(a, b):
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return k


def _check_rule_at_divergence(planner, seed, factor):
    """Check the rule where the FACTOR plan leaves the raw migrations-only plan.

    Before the first differing step both plans are in the same state, so the
    migrations-only plan's step there is ``best_migr`` of that state.
    Returns the kind of divergence (for the statistics).
    """
    avoid = planner(seed, avoid_disk_moves=factor, **RAW)
    migr = planner(seed, no_disk_moves=True, max_length=-1, **RAW)
    where = _where(planner, seed, avoid_disk_moves=factor, **RAW)
    a, m = avoid["step_lines"], migr["step_lines"]
    k = _first_divergence(a, m)
    for step in avoid["moves"][:k]:
        assert step["move"] in MIGRATIONS, where
    if k == len(a):
        return "avoid plan stopped"         # stop rules (max length, min gain, -e)
    step = avoid["moves"][k]
    cur = avoid["moves"][k - 1]["score"] if k else avoid["initial_score"]
    assert step["move"] not in MIGRATIONS, (
        f"{where}\n  step {k + 1} is a migration other than the best one: "
        f"{a[k]!r} vs {m[k] if k < len(m) else None!r}")
    migr_score = migr["moves"][k]["score"] if k < len(m) else cur
    assert step["score"] <= migr_score, where
    assert cur - step["score"] > (cur - migr_score) * factor, (
        f"{where}\n  step {k + 1}: took the disk move {a[k]!r} (gain "
        f"{cur - step['score']!r}) although the best migration gains "
        f"{cur - migr_score!r}, factor {factor}")
    return "no migration improves" if k == len(m) else "migration gain too small"


def test_huge_factor_prefers_migrations(planner):
    stats = {}
    only_migrations = 0
    changed = 0
    for seed in SEEDS + list(range(200, 230)):
        kind = _check_rule_at_divergence(planner, seed, 1e9)
        stats[kind] = stats.get(kind, 0) + 1
        huge = planner(seed, avoid_disk_moves=1e9)
        if all(m["move"] in MIGRATIONS for m in huge["moves"]):
            only_migrations += 1
            default = planner(seed)
            if huge["step_lines"] != default["step_lines"]:
                changed += 1
    # the factor must actually change plans that had disk moves
    assert changed >= 5, (changed, stats)
    assert only_migrations >= 40, (only_migrations, stats)


@pytest.mark.parametrize("factor", (0.5, 2.0, 10.0))
def test_rule_at_divergence_finite_factors(planner, factor):
    for seed in SEEDS:
        _check_rule_at_divergence(planner, seed, factor)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_rule_holds_at_the_first_step(planner, seed):
    """One step: best (all moves), best_migr (--no-disk-moves), the FACTOR plan."""
    best = planner(seed, max_length=1, **RAW)
    migr = planner(seed, max_length=1, no_disk_moves=True, **RAW)
    if not best["moves"]:
        for factor in FIRST_STEP_FACTORS:
            assert not planner(seed, max_length=1, avoid_disk_moves=factor,
                               **RAW)["moves"], _where(planner, seed)
        return
    cur = best["initial_score"]
    best_score = best["moves"][0]["score"]
    migr_score = migr["moves"][0]["score"] if migr["moves"] else cur
    assert best_score <= migr_score
    for factor in FIRST_STEP_FACTORS:
        avoid = planner(seed, max_length=1, avoid_disk_moves=factor, **RAW)
        take_migr = cur - best_score <= (cur - migr_score) * factor
        expected = migr if take_migr else best
        assert avoid["step_lines"] == expected["step_lines"], (
            f"{_where(planner, seed, max_length=1, avoid_disk_moves=factor, **RAW)}\n"
            f"  factor {factor}: cur {cur!r}, best {best_score!r} {best['step_lines']}, "
            f"best_migr {migr_score!r} {migr['step_lines']}; expected the "
            f"{'migration' if take_migr else 'best move'}, got {avoid['step_lines']}")
        assert avoid["commands"] == expected["commands"]


def test_first_step_exercises_both_branches(planner):
    """The seeds contain steps where the factor picks either candidate."""
    seen = set()
    for seed in SEEDS:
        best = planner(seed, max_length=1, **RAW)
        migr = planner(seed, max_length=1, no_disk_moves=True, **RAW)
        if not best["moves"] or not migr["moves"]:
            continue
        if best["moves"][0]["move"] in MIGRATIONS:
            seen.add("best is a migration")
            continue
        cur = best["initial_score"]
        ratio = (cur - best["moves"][0]["score"]) / (cur - migr["moves"][0]["score"])
        seen.add("factor 2 takes the migration" if ratio <= 2.0
                 else "factor 2 takes the disk move")
    assert seen == {"best is a migration", "factor 2 takes the migration",
                    "factor 2 takes the disk move"}, seen
