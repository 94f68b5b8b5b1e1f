"""Differential test: our initial cluster report vs the real hbal 3.0.2.

For every seed 1..N (N = env ``HTOOLS_DIFF_CASES``, default 300) a random
cluster is generated (``tests/gen/cluster_gen.py``), hbal is run on it with
``-v -v -v -p -l 0`` (``tests/oracle/hbal.py``) and the result is compared
with ``cluster_info()`` of the collection:

* the initial score, ``%.8f`` (``hs_fixed(score, 8)``);
* every metric of the ``Initial coefficients`` table, name and value, in order;
* the ``Initial cluster status:`` node table (``-p``), line by line;
* the selected group name;
* the load warnings (``  - node ... is missing ...`` lines: a node whose
  memory or disk does not add up with its instances).

The comparison is ``kit.report_parity.compare``, shared with the RAPI and
``-U`` backend tests.  Every failure names its seed and the commands that reproduce it.
"""

from __future__ import annotations

import os
import shlex

import pytest

from kit.report_parity import compare

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
