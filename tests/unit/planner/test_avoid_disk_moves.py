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

import random

import pytest

MIGRATIONS = ("failover", "failover_to_any")
SEEDS = list(range(1, 61))
FIRST_STEP_FACTORS = (0.25, 1.0, 2.0, 10.0, 1e9)
# "raw" search: every strictly improving step is accepted (score > -1 always)
RAW = dict(min_gain_limit=-1.0)


@pytest.fixture(scope="module")
def planner(balance_gen, htools_balance, tmp_path_factory):
    """planner(seed, **BalanceOptions overrides) -> plan dict (cached)."""
    plan_balance, BalanceOptions, _hs_fixed = htools_balance
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


def _check_divergence_from_default(planner, seed, factor):
    """Where the FACTOR plan first leaves hbal's plan, it took a migration
    instead of hbal's disk move (or stopped: that migration failed -g).

    Returns True if the plans differ.
    """
    avoid = planner(seed, avoid_disk_moves=factor)
    default = planner(seed)
    k = _first_divergence(avoid["step_lines"], default["step_lines"])
    if k == len(avoid["step_lines"]) == len(default["step_lines"]):
        return False
    where = _where(planner, seed, avoid_disk_moves=factor)
    if k < len(avoid["moves"]):
        assert avoid["moves"][k]["move"] in MIGRATIONS, (
            f"{where}\n  step {k + 1}: {avoid['step_lines'][k]!r} is not a migration")
    assert k < len(default["moves"]), (
        f"{where}\n  the factor plan goes on after hbal's plan stops")
    assert default["moves"][k]["move"] not in MIGRATIONS, (
        f"{where}\n  hbal's step {k + 1} {default['step_lines'][k]!r} is a migration, "
        f"yet the factor plan differs: {avoid['step_lines'][k:k + 1]}")
    return True


def test_huge_factor_prefers_migrations(planner):
    stats = {}
    changed = 0
    migr = {"default": [0, 0], "huge": [0, 0]}
    for seed in SEEDS + list(range(200, 230)):
        kind = _check_rule_at_divergence(planner, seed, 1e9)
        stats[kind] = stats.get(kind, 0) + 1
        if _check_divergence_from_default(planner, seed, 1e9):
            changed += 1
            for name, plan in (("default", planner(seed)),
                               ("huge", planner(seed, avoid_disk_moves=1e9))):
                migr[name][0] += sum(m["move"] in MIGRATIONS for m in plan["moves"])
                migr[name][1] += len(plan["moves"])
    # the factor changes plans, towards migrations
    assert changed >= 5, (changed, stats)
    assert migr["huge"][0] * migr["default"][1] > 2 * migr["default"][0] * migr["huge"][1], migr
    # every kind of divergence from the migrations-only plan occurs
    assert stats.get("no migration improves", 0) >= 3, stats


@pytest.mark.parametrize("factor", (0.5, 2.0))
def test_divergence_from_default_finite_factors(planner, factor):
    for seed in SEEDS:
        _check_divergence_from_default(planner, seed, factor)


@pytest.mark.parametrize("factor", (0.5, 2.0))
def test_rule_at_divergence_finite_factors(planner, factor):
    for seed in SEEDS:
        _check_rule_at_divergence(planner, seed, factor)


def _expected_first_step(best, migr, factor):
    cur = best["initial_score"]
    best_score = best["moves"][0]["score"]
    migr_score = migr["moves"][0]["score"] if migr["moves"] else cur
    return migr if cur - best_score <= (cur - migr_score) * factor else best


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_rule_holds_at_the_first_step(planner, seed):
    """One step: best (all moves), best_migr (--no-disk-moves), the FACTOR plan.

    Besides fixed factors, factors just below and above the step's ratio
    ``gain(best) / gain(best_migr)`` check where the rule switches.
    """
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
    factors = list(FIRST_STEP_FACTORS)
    if migr_score < cur and best_score < migr_score:
        ratio = (cur - best_score) / (cur - migr_score)
        factors += [ratio * (1 - 1e-6), ratio * (1 + 1e-6)]
    for factor in factors:
        avoid = planner(seed, max_length=1, avoid_disk_moves=factor, **RAW)
        expected = _expected_first_step(best, migr, factor)
        assert avoid["step_lines"] == expected["step_lines"], (
            f"{_where(planner, seed, max_length=1, avoid_disk_moves=factor, **RAW)}\n"
            f"  factor {factor!r}: cur {cur!r}, best {best_score!r} {best['step_lines']}, "
            f"best_migr {migr_score!r} {migr['step_lines']}; expected "
            f"{expected['step_lines']}, got {avoid['step_lines']}")
        assert avoid["commands"] == expected["commands"]


def _tie_cluster(seed):
    """A tiny cluster of identical nodes and DRBD instances (text format)."""
    rng = random.Random(seed)
    nodes = ["n%d" % (k + 1) for k in range(rng.randint(3, 4))]
    insts = []
    for k in range(rng.randint(2, 5)):
        pnode, snode = rng.sample(nodes, 2)
        insts.append(("i%d" % (k + 1), rng.choice((512, 1024)),
                      rng.choice((1024, 2048)), pnode, snode))
    out = "default|uuid-1|preferred|\n\n"
    for n in nodes:
        fmem = 8192 - sum(m for _i, m, _d, p, _s in insts if p == n)
        fdsk = 51200 - sum(d for _i, _m, d, p, s in insts if n in (p, s))
        out += f"{n}|8192|0|{fmem}|51200|{fdsk}|4|N|uuid-1\n"
    out += "\n"
    for name, mem, dsk, pnode, snode in insts:
        out += f"{name}|{mem}|{dsk}|1|running|Y|{pnode}|{snode}|drbd|\n"
    return out + "\n"


# seeds of _tie_cluster where the best first move is a disk move of an earlier
# instance and the best migration reaches exactly the same score
TIE_SEEDS = (59, 69, 78, 88)


@pytest.mark.parametrize("seed", TIE_SEEDS)
def test_equal_gains_take_the_migration(seed, tmp_path, htools_balance):
    """``<=``: with factor 1 an exact tie goes to the migration."""
    plan_balance, BalanceOptions, _hs_fixed = htools_balance
    path = tmp_path / "tie.data"
    path.write_text(_tie_cluster(seed))

    def plan(**kw):
        return plan_balance(str(path), options=BalanceOptions(max_length=1, **kw))

    best, migr = plan(), plan(no_disk_moves=True)
    assert best["moves"] and migr["moves"]
    assert best["moves"][0]["move"] not in MIGRATIONS
    assert best["moves"][0]["score"] == migr["moves"][0]["score"], "not a tie any more"
    assert best["step_lines"] != migr["step_lines"]
    assert plan(avoid_disk_moves=1.0)["step_lines"] == migr["step_lines"]
    assert plan(avoid_disk_moves=0.999)["step_lines"] == best["step_lines"]
    assert plan(avoid_disk_moves=0.0)["step_lines"] == best["step_lines"]


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
