# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_allocate's answers against the real hail 3.0.2.

Generated allocate, multi-allocate and allocate-secondary requests
(tests/gen/alloc_gen.py, on ialloc_gen's clusters: every group policy,
offline and drained nodes, exclusive storage - hail's dedicated-cluster
path -, networks, tags), with no option, --ignore-soft-errors and
--no-capacity-checks; the parsed JSON documents must be identical.
ALLOCATE_PARITY_REQUESTS sets the number of requests (default 120).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from gen import alloc_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.allocate.hail import answer

COUNT = int(os.environ.get("ALLOCATE_PARITY_REQUESTS", "120"))
OPTION_SETS = ([], ["--ignore-soft-errors"], ["--no-capacity-checks"])


def _ours(doc, argv):
    data, req = load_ialloc(json.loads(json.dumps(doc)))
    prepare(data)
    return answer(data, req, force="--ignore-soft-errors" in argv,
                  capacity="--no-capacity-checks" not in argv)


@pytest.mark.parametrize("chunk", range(4))
def test_generated_requests(hail, tmp_path, chunk):
    bad, kinds = [], set()
    for seed in range(chunk, COUNT, 4):
        doc = alloc_gen.generate(seed)
        argv = OPTION_SETS[seed % len(OPTION_SETS)]
        path = str(tmp_path / ("r%d.json" % seed))
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(doc, handle)
        proc = subprocess.run([hail] + argv + [path], capture_output=True, text=True,
                              timeout=300, check=False)
        if proc.returncode and "IntMap.!" in proc.stderr:
            _answered_where_hail_crashes(doc, argv)
            continue
        if proc.returncode:
            with pytest.raises(HtoolsError):
                _ours(doc, argv)
            continue
        theirs = json.loads(proc.stdout)
        kinds.add((doc["request"]["type"], theirs["success"]))
        ours = _ours(doc, argv)
        if ours != theirs:
            bad.append((seed, argv, theirs, ours))
    assert not bad, "%d differ; first: %s" % (len(bad), bad[0])
    assert len(kinds) >= 3, kinds


def _cross_group_drbd(doc):
    groups = {name: node["group"] for name, node in doc["nodes"].items()}
    return [name for name, inst in doc["instances"].items()
            if inst["disk_template"] == "drbd" and len({groups[n] for n in inst["nodes"]}) > 1]


def _answered_where_hail_crashes(doc, argv):
    """The README's deliberate difference: hail 3.0.2 crashes when its N+1
    check, run on one group's nodes, meets a DRBD instance whose secondary
    is in another group; we answer."""
    assert _cross_group_drbd(doc), "hail crashed on a request without a cross-group DRBD instance"
    assert _ours(doc, argv)["success"] in (True, False)


def _hail_and_ours(hail, tmp_path, doc):
    path = str(tmp_path / "r.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(doc, handle)
    proc = subprocess.run([hail, path], capture_output=True, text=True, timeout=300, check=False)
    return proc, _ours(doc, [])


def test_a_dedicated_multi_allocation_stays_in_the_first_placements_group(hail, tmp_path):
    # hail's dedicated placement works on its group's nodes alone, and the
    # next instance of the request starts from that node list: it sees no
    # other group (found by a campaign on fresh seeds)
    doc = alloc_gen.generate(7140)
    proc, ours = _hail_and_ours(hail, tmp_path, doc)
    theirs = json.loads(proc.stdout)
    groups = {node["group"] for node in doc["nodes"].values()}
    # the case still is what it was: a multi-allocation on three groups whose
    # second instance fails, with only the first one's group named
    assert doc["request"]["type"] == "multi-allocate" and len(groups) == 3
    assert not theirs["success"] and theirs["info"].count("Group ") == 1, theirs
    assert ours == theirs


def test_a_named_groups_check_sees_the_index_hail_gives_the_new_instance(hail, tmp_path):
    # hail allocates in a named group on that group's own instance list and
    # numbers the new instance by the list's size; here an instance of the
    # group (inst9, on node9) has that index, and hail's N+1 check puts the
    # new instance in its place, so it refuses node9 as the primary of
    # new3 (found by a campaign on fresh seeds)
    doc = alloc_gen.generate(41125)
    proc, ours = _hail_and_ours(hail, tmp_path, doc)
    theirs = json.loads(proc.stdout)
    assert doc["request"]["type"] == "multi-allocate" and doc["request"]["group_name"]
    assert theirs["result"][0][3] == ["new3.example.com", ["node10", "node12"]], theirs
    assert ours == theirs


def test_hail_crashes_on_a_cross_group_drbd_instance_and_we_answer(hail, tmp_path):
    doc = alloc_gen.generate(7210)
    proc, ours = _hail_and_ours(hail, tmp_path, doc)
    assert proc.returncode and "IntMap.!" in proc.stderr, proc.stdout
    assert doc["request"].get("group_name") and _cross_group_drbd(doc)
    # each instance answered: placed, or failed with the reasons in its group
    assert ours["success"] and sum(len(part) for part in ours["result"]) == \
        len(doc["request"]["instances"])


def test_requests_cover_the_features():
    seen = set()
    for seed in range(COUNT):
        seen |= alloc_gen.features(alloc_gen.generate(seed))
    assert set(alloc_gen.FEATURES) <= seen, sorted(set(alloc_gen.FEATURES) - seen)
