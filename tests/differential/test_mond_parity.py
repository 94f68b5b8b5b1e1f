"""Differential test: MonD CPU loads vs ``hbal --mond=yes --mond-data FILE``.

For every seed 1..N (N = env ``HTOOLS_MOND_CASES``, default 150) the
generated cluster and random hbal options of ``tests/gen/balance_options.py``
get a random MonD file (``tests/gen/mond_gen.py``: cpu-avg-load or, with
``--mond-xen``, xen-cpu-avg-load reports, a third of them with data held
back).  Then

    hbal -t DATA [-U UTIL] <options> --mond=yes [--mond-xen]
         [--exit-on-missing-mond-data] --mond-data FILE -C

is compared with ``plan_balance(DATA, mond=True, mond_data=FILE, ...)``:
the initial score, every step line, the end message and the ``-C`` listing
(kit.plan_compare).  When hbal stops on incomplete data, ours must refuse
too; when ours ignored the data it must say so in its warnings, and the plan
must still be hbal's (which ignored it as well).
"""

from __future__ import annotations

import collections
import os

import pytest

from gen import mond_gen
from kit.plan_compare import plan_differences

N_CASES = int(os.environ.get("HTOOLS_MOND_CASES", "150"))
SEEDS = list(range(1, N_CASES + 1))
HELD_BACK = ("missing-node", "missing-report", "bad-data", "missing-instance")


def _case(seed, tmp_path, balance_gen):
    opts = balance_gen.balance_options(seed)
    dpath, upath = opts["case"].write(tmp_path)[:2]
    mond = mond_gen.generate(seed, opts["case"].data)
    mpath = tmp_path / "mond.json"
    mpath.write_text(mond.text)
    return opts, dpath, upath, mond, str(mpath)


def _ours(plan_balance, BalanceOptions, balance_gen, opts, dpath, upath, mond, mpath):
    kwargs, bo = balance_gen.plan_call(opts, dpath, upath)
    return plan_balance(**kwargs, options=BalanceOptions(**bo), mond=True, mond_data=mpath,
                        **mond.options)


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_mond_plan_equals_hbal(seed, tmp_path, balance_gen, balance_oracle, require_hbal,
                               htools_balance):
    from ansible_collections.ganeti.htools.plugins.module_utils.backend.mond import (
        MondDataMissing)
    plan_balance, BalanceOptions, _fmt = htools_balance
    opts, dpath, upath, mond, mpath = _case(seed, tmp_path, balance_gen)
    argv = balance_gen.hbal_command(opts, dpath, upath,
                                    extra=mond.argv + ("--mond-data", mpath, "-C"))
    hb = balance_oracle.run_balance(argv)
    label = "seed %d (%s)\n  hbal: %s\n  reproduce: python tests/gen/mond_gen.py --seed %d " \
            "--out DIR" % (seed, ", ".join(sorted(mond.features)), hb.command, seed)

    def ours():
        return _ours(plan_balance, BalanceOptions, balance_gen, opts, dpath, upath, mond, mpath)

    if hb.returncode != 0:
        if "Not all required data available" in hb.stderr:
            with pytest.raises(MondDataMissing):
                ours()
            return
        with pytest.raises(Exception):
            ours()
        return
    if hb.cluster_empty:
        pytest.skip("seed %d: the cluster is empty" % seed)
    res = ours()
    problems = plan_differences(hb, res)
    ignored = any("data ignored" in w for w in res["warnings"])
    held_back = bool(mond.features & set(HELD_BACK))
    if ignored != held_back and not (held_back and "ignore-dynu" in opts["used"]):
        problems.append("MonD data ignored: ours %s, but the file %s data"
                        % (ignored, "holds back" if held_back else "does not hold back"))
    assert not problems, "%s\n  %s" % (label, "\n  ".join(problems))


def test_the_generator_covers_every_feature():
    """Over the seeds every kind of MonD file occurs (no hbal needed)."""
    from kit.tools import balance_gen
    count = collections.Counter()
    for seed in range(1, 301):
        count.update(mond_gen.generate(seed, balance_gen.balance_options(seed)["case"].data)
                     .features)
    rare = {f: count[f] for f in mond_gen.FEATURES if count[f] < 3}
    assert not rare, "MonD features drawn fewer than 3 times in 300 seeds: %s" % rare


def test_the_loads_matter(tmp_path, balance_gen, htools_balance):
    """The comparison above can fail: the MonD loads change the score."""
    plan_balance, BalanceOptions, _fmt = htools_balance
    changed = 0
    for seed in SEEDS[:30]:
        opts, dpath, upath, mond, mpath = _case(seed, tmp_path / str(seed), balance_gen)
        if "complete" not in mond.features or "ignore-dynu" in opts["used"]:
            continue
        kwargs, bo = balance_gen.plan_call(opts, dpath, upath)
        try:
            plain = plan_balance(**kwargs, options=BalanceOptions(**bo))
            loaded = _ours(plan_balance, BalanceOptions, balance_gen, opts, dpath, upath,
                           mond, mpath)
        except Exception:   # noqa: BLE001 - a case both sides reject
            continue
        changed += plain["initial_score"] != loaded["initial_score"]
    assert changed >= 5, "the MonD loads changed the score of only %d seeds" % changed
