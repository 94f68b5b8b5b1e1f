# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restrict_allocation_to against `hail --restrict-allocation-to=NODES`.

In hail 3.0.2 the option narrows the nodes an allocation may choose from:
the allocate family's targets (where it wins over an allocate request's own
restrict-to-nodes) and, in a change-group, the nodes each candidate group is
judged by.  Node evacuations do not read it.  On generated change-group
requests (tests/gen/ialloc_gen.py) and allocate-family requests
(tests/gen/alloc_gen.py), each with a random subset of the cluster's nodes,
our answers must be hail's documents.  RESTRICT_CASES sets the number of
requests of each family (default 150).
"""

from __future__ import annotations

import json
import os
import random
import subprocess

import pytest

from gen import alloc_gen, ialloc_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.allocate.hail import answer
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import (
    iallocator_result)

COUNT = int(os.environ.get("RESTRICT_CASES", "150"))


def _subset(doc, seed):
    names = sorted(doc["nodes"])
    rng = random.Random(seed)
    return sorted(rng.sample(names, rng.randint(1, len(names))))


def _hail(hail, tmp_path, doc, restrict):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([hail, "--restrict-allocation-to=" + ",".join(restrict), str(path)],
                          capture_output=True, text=True, timeout=300, check=False)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def _allocate(doc, restrict):
    data, req = load_ialloc(json.loads(json.dumps(doc)))
    prepare(data)
    return answer(data, req, restrict=restrict)


def _compare(hail, tmp_path, docs, ours):
    """(compared, differing cases, cases whose answer the restriction changed)."""
    compared, bad, changed = 0, [], 0
    for seed, doc in docs:
        restrict = _subset(doc, seed)
        theirs = _hail(hail, tmp_path, doc, restrict)
        if theirs is None:
            with pytest.raises(HtoolsError):
                ours(doc, restrict)
            continue
        compared += 1
        mine = ours(doc, restrict)
        if mine != theirs:
            bad.append((seed, restrict, mine, theirs))
        elif mine != ours(doc, None):
            changed += 1
    return compared, bad, changed


def test_change_group_chooses_groups_by_the_given_nodes(hail, tmp_path):
    docs = []
    seed = 0
    while len(docs) < COUNT and seed < COUNT * 10:
        doc = ialloc_gen.generate(seed)
        if doc["request"]["type"] == "change-group":
            docs.append((seed, doc))
        seed += 1
    compared, bad, changed = _compare(hail, tmp_path, docs,
                                      lambda doc, restrict: iallocator_result(doc, restrict=restrict))
    assert compared >= len(docs) // 2 and changed >= 5, (compared, changed)
    assert not bad, "%d of %d differ; first: %s" % (len(bad), compared, bad[0])


def test_the_allocate_family_places_on_the_given_nodes_only(hail, tmp_path):
    docs = [(seed, alloc_gen.generate(seed)) for seed in range(COUNT)]
    compared, bad, changed = _compare(hail, tmp_path, docs, _allocate)
    assert compared >= len(docs) // 2 and changed >= 10, (compared, changed)
    assert not bad, "%d of %d differ; first: %s" % (len(bad), compared, bad[0])
