# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity's `simulate` against the real `hspace --simulate`, key for key.

Random group specs (tests/gen/simulate_gen.py: policies, units, spindles,
exclusive storage, several groups) with capacity_gen's random hspace
options; every HTS_* key and value must be ours, in hspace's order.  Also
the errors: a spec hspace refuses is refused here, naming it.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from gen import simulate_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.simulated import (
    load_simulated, size_mib)
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError, HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.report import (
    capacity_report)

COUNT = int(os.environ.get("HSPACE_SIMULATE_CASES", "60"))


def _theirs(hspace, specs, argv):
    proc = subprocess.run([hspace, "--machine-readable"] + ["--simulate=%s" % s for s in specs]
                          + list(argv), capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode:
        return None, proc.stderr.strip().splitlines()[-1]
    return [tuple(line.split("=", 1)) for line in proc.stdout.replace("'", "").splitlines()], None


def _ours(specs, opts):
    try:
        return list(capacity_report(load_simulated(specs), opts)["machine_readable"].items()), None
    except HtoolsError as err:
        return None, str(err)


@pytest.mark.parametrize("seed", range(COUNT))
def test_generated(hspace, seed):
    specs, argv, opts = simulate_gen.generate(seed)
    theirs, their_err = _theirs(hspace, specs, argv)
    ours, our_err = _ours(specs, opts)
    if theirs is None:
        assert ours is None and their_err.replace("Error: ", "", 1) in our_err, \
            (specs, argv, their_err, our_err)
        return
    assert our_err is None, (specs, argv, our_err)
    wrong = [(a, b) for a, b in zip(theirs, ours) if a != b]
    assert ours == theirs, (specs, argv, wrong[:4])


@pytest.mark.parametrize("text, mib", [
    ("512", 512), ("512m", 512), ("2g", 2048), ("2GiB", 2048), ("2gib", 2048), ("1t", 1048576),
    ("1TiB", 1048576), (" 7 g", 7168), ("1M", 0), ("2M", 1), ("1G", 953), ("1GB", 953),
    ("1gb", 953), ("1T", 953674), ("3 MB", 2)])
def test_sizes_read_as_hspace_reads_them(hspace, text, mib):
    # the cluster's memory total is the one node's memory: hspace's own reading
    theirs, err = _theirs(hspace, ["p,1,1g,%s,4" % text], ["--no-capacity-checks", "-l", "0"])
    assert err is None
    assert dict(theirs)["HTS_CLUSTER_MEM"] == str(mib)
    assert size_mib(text, "memory") == mib


@pytest.mark.parametrize("spec, says", [
    ("x,2,1t,64g,16", "allocation policy 'x'"),
    ("p,2,1q,64g,16", "unknown unit 'q'"),
    ("p,2,1t,64g", "4 comma-separated fields"),
    ("p,2,1t,64g,16,1,true", "exclusive storage 'true'"),
    ("p,two,1t,64g,16", "node count: 'two' is not an integer"),
    ("p,2,-5,64g,16", "negative size"),     # hspace takes it (a deliberate difference)
])
def test_bad_specs_are_refused_naming_them(hspace, spec, says):
    with pytest.raises(DataError) as err:
        load_simulated([spec])
    assert says in str(err.value) and spec in str(err.value)
    theirs, _err = _theirs(hspace, [spec], [])
    assert (theirs is None) == (spec != "p,2,-5,64g,16")
