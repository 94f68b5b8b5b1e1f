# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_evacuate_group's default mode against the real hail: what
`gnt-node evacuate -s X` and then `gnt-node evacuate -p X` would run.

For each generated cluster (tests/gen/ialloc_gen.py) and one of its nodes X,
hail answers the secondary-only request Ganeti would send for X; its moves
are applied to the cluster as Ganeti would report it afterwards (the
instances' nodes, the free disk and spindles of the secondaries); hail then
answers the primary-only request for X on that cluster.  Our one plan must
hold both answers: the same documents, its moves in two jobsets.
SECONDARY_THEN_PRIMARY_CASES sets the number of clusters (default 150).
"""

from __future__ import annotations

import copy
import json
import os
import random

from gen import ialloc_gen
from oracle.hail import run_hail

from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import evacuate

COUNT = int(os.environ.get("SECONDARY_THEN_PRIMARY_CASES", "150"))


def _hail(tmp_path, doc, mode, node):
    """hail's answer to the node-evacuate request Ganeti sends for `node` and
    `mode` (the instances in the cluster's order), or None if it refuses."""
    on = 1 if mode == "secondary-only" else 0
    names = [name for name, inst in doc["instances"].items()
             if len(inst["nodes"]) > on and inst["nodes"][on] == node]
    doc = dict(doc, request={"type": "node-evacuate", "instances": names, "evac_mode": mode})
    path = tmp_path / ("%s.json" % mode)
    path.write_text(json.dumps(doc))
    code, out, _err = run_hail(str(path))
    return json.loads(out) if code == 0 else None


def _after_secondary_moves(doc, answer):
    """The cluster once the secondary-only answer has run: each moved DRBD
    instance's disks left its old secondary and now use the new one."""
    doc = copy.deepcopy(doc)
    for name, _group, nodes in answer["result"][0]:
        inst = doc["instances"][name]
        old = inst["nodes"][1]
        inst["nodes"] = list(nodes)
        spindles = sum(d.get("spindles") or 0 for d in inst["disks"])
        for node, sign in ((old, 1), (nodes[1], -1)):
            entry = doc["nodes"][node]
            if "free_disk" in entry:
                entry["free_disk"] += sign * inst["disk_space_total"]
            if entry["ndparams"].get("exclusive_storage") and "free_spindles" in entry:
                entry["free_spindles"] += sign * spindles
    return doc


def _cases():
    """(seed, cluster document, node X) with DRBD secondaries and primaries on X."""
    found = []
    seed = 0
    while len(found) < COUNT and seed < COUNT * 20:
        doc = ialloc_gen.generate(seed)
        both = [node for node in doc["nodes"]
                if any(i["nodes"][0] == node for i in doc["instances"].values())
                and any(i["nodes"][1:] == [node] for i in doc["instances"].values())]
        if both:
            found.append((seed, doc, random.Random(seed).choice(sorted(both))))
        seed += 1
    return found


def test_the_default_is_hails_secondary_then_primary_answers(hail, tmp_path):
    compared, differ, two_sets = 0, [], 0
    for seed, doc, node in _cases():
        first = _hail(tmp_path, doc, "secondary-only", node)
        if first is None:
            continue
        second = _hail(tmp_path, _after_secondary_moves(doc, first), "primary-only", node)
        if second is None:
            continue
        data, _request = load_ialloc(copy.deepcopy(doc))
        ours = evacuate(data, {"nodes": [node]})
        compared += 1
        if ours["mode"] != "secondary-then-primary" or ours["iallocator_result"] != [first, second]:
            differ.append((seed, node, ours["iallocator_result"], [first, second]))
            continue
        # the moves of the second answer run after every move of the first
        counts = [len(first["result"][0]), len(second["result"][0])]
        assert [len(s) for s in ours["jobsets"]] == [c for c in counts if c], (seed, ours["jobsets"])
        two_sets += all(counts)
    assert compared >= COUNT // 2, "only %d of %d cases compared" % (compared, COUNT)
    assert two_sets >= compared // 4, "too few cases move in both requests: %d" % two_sets
    assert not differ, "%d of %d differ; first: %s" % (len(differ), compared, differ[0])
