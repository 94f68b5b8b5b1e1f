# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan documents: self-contained, validated when given back, tamper- and drift-evident."""

from __future__ import annotations

import copy
import os

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.plan.envelope import (
    PlanError, check_plan, make_plan, pack_state, plan_state)
from ansible_collections.ganeti.htools.plugins.module_utils.plan.state import (
    drift, fingerprint, model_state)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import plan
from kit.paths import SPEC_DATA

EVAC = os.path.join(SPEC_DATA, "hbal-evac.data")


def _plan():
    data, _fmt = load_data_file(EVAC)
    state = model_state(data)
    report = plan(data, {})
    return make_plan("balance", report, state, {"max_length": -1}), state


def test_a_plan_round_trips_and_carries_its_opcodes():
    doc, state = _plan()
    assert check_plan(copy.deepcopy(doc), "balance", "ganeti_balance") == doc
    assert doc["fingerprint"] == fingerprint(state)
    assert [m["index"] for m in doc["moves"]] == [1, 2, 3, 4]
    assert doc["moves"][0]["opcodes"][0]["OP_ID"] == "OP_INSTANCE_MIGRATE"
    assert sorted(i for js in doc["jobsets"] for i in js) == [1, 2, 3, 4]


@pytest.mark.parametrize("tamper, message", [
    (lambda d: d.pop("fingerprint"), "lacks"),
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d["jobsets"].append([1]), "exactly once"),
    (lambda d: d["moves"][0]["opcodes"][0].update(instance_name="other"), "another instance"),
    (lambda d: d.update(state=pack_state(dict(plan_state(d), cluster_tags=["x"]))), "modified"),
])
def test_malformed_or_modified_plans_are_refused(tamper, message):
    doc, _state = _plan()
    tamper(doc)
    with pytest.raises(PlanError) as err:
        check_plan(doc, "balance", "ganeti_balance")
    assert message in str(err.value)


def test_drift_names_what_changed():
    _doc, state = _plan()
    now = copy.deepcopy(state)
    now["instances"]["inst-p1"][0] = "node-2"
    del now["nodes"]["node-3"]
    lines = drift(state, now)
    assert "instance inst-p1: primary node-E -> node-2" in lines
    assert "node node-3 is gone" in lines
    assert fingerprint(now) != fingerprint(state)
