# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_health's checks on RAPI answers written from model files."""

from __future__ import annotations

import os
import random

from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.live.health import (
    DEFAULT_CHECKS, check_health, describe)
from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import Snapshot
from kit.backend_docs import model_to_rapi
from kit.paths import EXAMPLE, SPEC_DATA


def _snapshot(path):
    with open(path, encoding="utf-8") as handle:
        docs = model_to_rapi(load_text(handle.read(), source=path), random.Random(1))
    return Snapshot(docs["info"], docs["nodes"], docs["instances"], docs["groups"])


def _run(snapshot, jobs=(), **options):
    return check_health(snapshot, list(jobs), **options)


def test_every_check_names_its_problems():
    snap = _snapshot(EXAMPLE)
    node = snap.nodes[0]
    node.update(offline=False, drained=True, mfree=None)
    inst = snap.instances[0]
    inst.update(admin_state="up", oper_state=False, status="ERROR_down")
    jobs = [{"id": 7, "status": "running", "summary": ["INSTANCE_MIGRATE(x)"],
             "ops": [{"reason": [["gnt:user", "someone else"]]}]},
            {"id": 8, "status": "queued", "summary": [],
             "ops": [{"reason": [["gnt:user", "ganeti.htools:abc:m1:o1"]]}]},
            {"id": 9, "status": "success", "summary": [], "ops": []}]
    results = _run(snap, jobs, ignore_job_reasons=["ganeti.htools:"])
    assert sorted(results) == sorted(DEFAULT_CHECKS)
    assert results["nodes_undrained"]["problems"] == ["%s is drained" % node["name"]]
    assert results["nodes_answer"]["problems"] == \
        ["%s does not answer the master (no live data)" % node["name"]]
    assert results["instances_running"]["problems"] == \
        ["%s should run but is ERROR_down" % inst["name"]]
    assert results["no_jobs"]["problems"] == ["job 7 is running (INSTANCE_MIGRATE(x))"]
    assert results["nodes_online"]["problems"] == \
        ["%s is offline" % n["name"] for n in snap.nodes if n["offline"]]
    assert results["n1"]["problems"][0].startswith("N+1 cannot be computed: RAPI: node ")
    assert "nodes_undrained (1), nodes_answer (1), instances_running (1), no_jobs (1), n1 (1)" \
        in describe(results)
    # the node under maintenance is expected to be drained
    quiet = _run(snap, [], ignore_nodes=[node["name"]],
                 checks=["nodes_undrained", "nodes_answer"])
    assert describe(quiet) == "healthy (2 checks)"


def test_n1_is_hbals():
    failing = _run(_snapshot(os.path.join(SPEC_DATA, "n1-failure.data")), checks=["n1"])
    assert not failing["n1"]["ok"] and all("fails N+1" in p for p in failing["n1"]["problems"])
