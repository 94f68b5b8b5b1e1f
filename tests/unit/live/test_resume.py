# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How far an interrupted plan got, judged from the cluster state alone."""

from __future__ import annotations

import os

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.plan.envelope import make_plan, plan_state
from ansible_collections.ganeti.htools.plugins.module_utils.plan.resume import (
    placements, progress)
from ansible_collections.ganeti.htools.plugins.module_utils.plan.state import model_state
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import plan
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import evacuate
from kit.paths import EXAMPLE, SPEC_DATA


def _plan(path):
    data, _fmt = load_data_file(path)
    state = model_state(data)       # before planning, as the module does
    return make_plan("balance", plan(data, {}), state, {})


def _after(doc, done):
    """The state once each move index in `done` ran that many of its opcodes."""
    state = plan_state(doc)
    for move in sorted(doc["moves"], key=lambda m: m["index"]):
        count = done.get(move["index"], 0)
        if count:
            primary, secondary = placements(move)[count]
            state["instances"][move["instance"]][0:2] = [primary, secondary]
    return state


def test_placements_follow_each_opcode():
    move = {"old_primary": "P", "old_secondary": "S", "opcodes": [
        {"OP_ID": "OP_INSTANCE_MIGRATE"},
        {"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "remote_node": "T"},
        {"OP_ID": "OP_INSTANCE_MIGRATE"}]}
    assert placements(move) == [("P", "S"), ("S", "P"), ("S", "T"), ("T", "S")]
    shared = {"old_primary": "P", "old_secondary": None,
              "opcodes": [{"OP_ID": "OP_INSTANCE_MIGRATE", "target_node": "T"}]}
    assert placements(shared) == [("P", None), ("T", None)]


def test_every_prefix_of_the_example_plan_is_recognised():
    doc = _plan(EXAMPLE)
    compound = [m for m in doc["moves"] if len(m["opcodes"]) > 1]
    assert compound, "the example plan should hold compound moves"
    half = compound[0]
    moves = sorted(doc["moves"], key=lambda m: m["index"])
    for stop in range(len(moves) + 1):
        done = {m["index"]: len(m["opcodes"]) for m in moves[:stop]}
        found, unexplained = progress(doc, _after(doc, done))
        assert not unexplained
        assert {i: k for i, k in found.items() if k} == done
    done = {half["index"]: 1}
    found, unexplained = progress(doc, _after(doc, done))
    assert not unexplained and found[half["index"]] == 1


def test_changes_the_plan_does_not_explain_are_drift():
    doc = _plan(os.path.join(SPEC_DATA, "hbal-evac.data"))
    moved = doc["moves"][0]
    state = _after(doc, {moved["index"]: len(moved["opcodes"])})
    bystander = next(n for n in state["instances"]
                     if n not in {m["instance"] for m in doc["moves"]})
    state["instances"][bystander][0] = "node-elsewhere"
    _found, unexplained = progress(doc, state)
    assert any(bystander in line for line in unexplained)
    # a moved instance off its move's path is drift too
    state = _after(doc, {})
    state["instances"][moved["instance"]][0:2] = ["node-nowhere", None]
    _found, unexplained = progress(doc, state)
    assert any(moved["instance"] in line for line in unexplained)


def test_nodes_the_plan_drains_are_no_drift():
    """An evacuation drains its nodes before the first move: a run stopped
    right after the drain resumes; a drain the plan does not make is drift."""
    data, _fmt = load_data_file(os.path.join(SPEC_DATA, "hbal-evac.data"))
    state = model_state(data)
    node = data.nodes[data.instances[0].pnode].name
    report = evacuate(data, {"nodes": [node], "mode": "primary-only", "drain": True})
    assert report["drain_nodes"] == [node]      # the file has no master (never drained)
    doc = make_plan("evacuate", report, state, {})
    now = plan_state(doc)
    drained = now["fields"]["nodes"].index("drained")
    for name in report["drain_nodes"]:
        now["nodes"][name][drained] = True
    done, unexplained = progress(doc, now)
    assert not unexplained and not any(done.values())
    other = next(n for n in now["nodes"] if n not in report["drain_nodes"])
    now["nodes"][other][drained] = True
    _done, unexplained = progress(doc, now)
    assert any(other in line for line in unexplained), unexplained
