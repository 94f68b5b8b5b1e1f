"""Differential test: our initial cluster report vs the real hbal 3.0.2.

For every seed 1..N (N = env ``HTOOLS_DIFF_CASES``, default 300) a random
cluster is generated (``tests/gen/cluster_gen.py``), hbal is run on it with
``-v -v -v -p -l 0`` (``tests/oracle/hbal.py``) and the result is compared
with ``cluster_info()`` of the collection:

* the initial score, ``%.8f`` (``hs_fixed(score, 8)``);
* every metric of the ``Initial coefficients`` table, name and value, in order;
* the ``Initial cluster status:`` node table (``-p``), line by line;
* the selected group name;
* the load warnings (``  - node ... is missing ...`` lines, spec 2.3).

Every failure names its seed and the commands that reproduce it.
"""

from __future__ import annotations

import os
import shlex

import pytest

N_CASES = int(os.environ.get("HTOOLS_DIFF_CASES", "300"))
SEEDS = list(range(1, N_CASES + 1))
REPRO_DIR = "/tmp/htools-diff"


def _repro(case, hbal_oracle):
    dname, uname = case.file_names()[:2]
    dpath = f"{REPRO_DIR}/{dname}"
    upath = f"{REPRO_DIR}/{uname}" if uname else None
    argv = hbal_oracle.hbal_argv(dpath, upath, **case.options)
    return (f"python tests/gen/cluster_gen.py --seed {case.seed} "
            f"--out {REPRO_DIR} && {shlex.join(argv)}")


def _diff_lines(ours, theirs, limit=6):
    """Readable line-by-line difference of two line lists."""
    out = []
    if len(ours) != len(theirs):
        out.append(f"    line count: ours {len(ours)}, hbal {len(theirs)}")
    for k in range(max(len(ours), len(theirs))):
        a = ours[k] if k < len(ours) else "<missing>"
        b = theirs[k] if k < len(theirs) else "<missing>"
        if a != b:
            out.append(f"    line {k}:\n      ours: {a!r}\n      hbal: {b!r}")
            if len(out) >= limit:
                out.append("    ...")
                break
    return out


def compare(case, hb, res, hs_fixed):
    """Return the list of differences between ``res`` and hbal's ``hb``."""
    problems = []

    if res.get("group") != hb.group_name:
        problems.append(f"group: ours {res.get('group')!r}, "
                        f"hbal {hb.group_name!r}")

    score = hs_fixed(res["score"], 8)
    if score != hb.initial_score_text:
        problems.append(f"score: ours {score} (raw {res['score']!r}), "
                        f"hbal {hb.initial_score_text}")

    ours_m = [(name, hs_fixed(value, 8))
              for name, value in res["metrics"].items()]
    hbal_m = [(row[0], row[1]) for row in hb.metrics_text]
    if ours_m != hbal_m:
        if not hbal_m:
            problems.append(
                "metrics: hbal prints no metric rows (the selected group has "
                f"no online node, spec 5.2); ours has {len(ours_m)}")
        elif [r[0] for r in ours_m] != [r[0] for r in hbal_m]:
            problems.append(f"metric names: ours {[r[0] for r in ours_m]}, "
                            f"hbal {[r[0] for r in hbal_m]}")
        else:
            for (name, a), (_name, b) in zip(ours_m, hbal_m):
                if a != b:
                    problems.append(f"metric {name}: ours {a} "
                                    f"(raw {res['metrics'][name]!r}), hbal {b}")

    table = res["node_table"]
    ours_t = table.split("\n") if isinstance(table, str) else list(table)
    if isinstance(table, str) and table.endswith("\n"):
        problems.append("node_table: must not end with a newline")
    if ours_t != hb.node_table_lines:
        problems.append("node table differs:")
        problems.extend(_diff_lines(ours_t, hb.node_table_lines))

    warnings = list(res.get("warnings", []))
    if warnings != hb.warnings:
        problems.append("warnings differ:")
        problems.extend(_diff_lines(warnings, hb.warnings))
    return problems


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_score_parity(seed, tmp_path, cluster_gen, hbal_oracle, require_hbal,
                      htools_core):
    cluster_info, hs_fixed = htools_core
    case = cluster_gen.generate(seed)
    dpath, upath = case.write(tmp_path)[:2]
    repro = _repro(case, hbal_oracle)

    hb = hbal_oracle.run_hbal(dpath, upath, **case.options)
    if hb.cluster_empty:
        pytest.skip(f"seed {seed}: hbal says 'Cluster is empty, exiting.' "
                    "(no instances), nothing to compare")

    opts = case.options
    kwargs = dict(data_file=str(dpath),
                  util_file=str(upath) if upath is not None else None,
                  group=opts["group"],
                  offline_nodes=list(opts["offline_nodes"]),
                  exclusion_tags=list(opts["exclusion_tags"]),
                  ignore_dynu=opts["ignore_dynu"])
    try:
        res = cluster_info(**kwargs)
    except Exception as exc:  # report the seed with the crash
        pytest.fail(f"seed {seed}: cluster_info raised {exc!r}\n"
                    f"  cluster_info kwargs: {kwargs}\n"
                    f"  reproduce: {repro}")

    problems = compare(case, hb, res, hs_fixed)
    assert not problems, (
        f"seed {seed}: {len(problems)} difference(s) from hbal\n  "
        + "\n  ".join(problems)
        + f"\n  options: {opts}\n  reproduce: {repro}")
