# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity's figures against the real hspace 3.0.2, key for key.

Small generated clusters (tests/gen/capacity_gen.py: groups of every
allocation policy, DRBD/plain/diskless/shared instances, offline nodes,
exclusive storage, exclusion tags, group policies) with random hspace
option sets; every HTS_* key and value of ``hspace --machine-readable``
must be ours, in hspace's order, and where hspace refuses the input we must
fail with its message.  HSPACE_PARITY_CASES sets the number of cases.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from gen import capacity_gen
from kit.paths import EXAMPLE

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.report import (
    capacity_report)

COUNT = int(os.environ.get("HSPACE_PARITY_CASES", "40"))
# Seeds whose answer still differs from hspace's; kept visible rather than
# skipped (none now: seeds 17 and 29 found iterateOk's end, see hspace.py).
KNOWN_DIFFERENT = frozenset()


def _theirs(hspace, path, argv):
    proc = subprocess.run([hspace, "--machine-readable", "-t", path] + list(argv),
                          capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode:
        return None, proc.stderr.strip().splitlines()[-1].replace("Error: ", "", 1)
    return [tuple(line.split("=", 1)) for line in proc.stdout.replace("'", "").splitlines()], None


def _ours(path, opts):
    try:
        data, _fmt = load_data_file(path)
        return list(capacity_report(data, opts)["machine_readable"].items()), None
    except HtoolsError as err:
        return None, str(err)


def _differs(hspace, path, argv, opts):
    theirs, their_err = _theirs(hspace, path, argv)
    ours, our_err = _ours(path, opts)
    if theirs is None:
        return None if ours is None and their_err in our_err else \
            "hspace refused (%s), ours: %s" % (their_err, our_err or "answered")
    if ours != theirs:
        wrong = [(a, b) for a, b in zip(theirs, ours or []) if a != b]
        return "ours %s; first differences (hspace, ours): %s" % (our_err or "", wrong[:4])
    return None


def test_example(hspace):
    assert _differs(hspace, EXAMPLE, [], {}) is None


@pytest.mark.parametrize("seed", range(COUNT))
def test_generated(hspace, tmp_path, seed):
    text, argv, opts, _features = capacity_gen.generate(seed)
    path = str(tmp_path / "c.data")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    problem = _differs(hspace, path, argv, opts)
    if seed in KNOWN_DIFFERENT:
        assert problem is not None, "seed %d now agrees: take it off KNOWN_DIFFERENT" % seed
        pytest.xfail(problem)
    assert problem is None, "%s %s" % (argv, problem)


def test_cases_cover_the_features():
    seen = set()
    for seed in range(COUNT):
        seen |= capacity_gen.generate(seed)[3]
    assert set(capacity_gen.FEATURES) <= seen, sorted(set(capacity_gen.FEATURES) - seen)
