# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The approval guarantee: a plan is executed only as it was computed and approved."""

from __future__ import annotations

import copy
import os

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.plan.envelope import (
    PlanError, check_plan, make_plan, pack_report, pack_state, plan_report, plan_state)
from ansible_collections.ganeti.htools.plugins.module_utils.plan.state import model_state
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import plan
from kit.paths import SPEC_DATA

EVAC = os.path.join(SPEC_DATA, "hbal-evac.data")


def _plan(key=None):
    data, _fmt = load_data_file(EVAC)
    state = model_state(data)       # before planning, as the module does
    return make_plan("balance", plan(data, {}), state, {"max_length": -1}, signing_key=key)


def _check(doc, key=None):
    return check_plan(doc, "balance", "ganeti_balance", signing_key=key)


def _retarget(doc):
    move = doc["moves"][1]
    for op in move["opcodes"]:
        for field in ("target_node", "remote_node"):
            if op.get(field):
                op[field] = "node-4" if op[field] != "node-4" else "node-5"
    move["new_primary"] = "node-4"


def _insert_move(doc):
    extra = copy.deepcopy(doc["moves"][0])
    extra.update(index=99, instance="inst-other")
    for op in extra["opcodes"]:
        op["instance_name"] = "inst-other"
    doc["moves"].append(extra)
    doc["jobsets"].append([99])


def _edit_report(doc, change):
    report = plan_report(doc)
    change(report)
    doc["report"] = pack_report(report)


def _edit_state(doc, change):
    """Change the packed state the way an editor would: unpack, edit, pack."""
    state = plan_state(doc)
    change(state)
    doc["state"] = pack_state(state)


@pytest.mark.parametrize("edit, named", [
    (_retarget, "move 2"),
    (lambda d: d["moves"][0]["opcodes"].pop(), "move 1"),
    (_insert_move, "moves (4 recorded, 5 now)"),
    (lambda d: d["jobsets"].reverse(), "jobsets"),
    (lambda d: d["options"].update(max_length=1), "options"),
    (lambda d: _edit_report(d, lambda r: r.update(final_score=0.0)), "report"),
    (lambda d: d.update(summary="nothing to see"), "summary"),
    (lambda d: _edit_state(d, lambda s: s["instances"]["inst-p1"].__setitem__(0, "node-2")),
     "state"),
])
def test_an_edited_plan_is_refused_naming_what_changed(edit, named):
    doc = _plan()
    assert _check(copy.deepcopy(doc))
    edit(doc)
    with pytest.raises(PlanError) as err:
        _check(doc)
    assert "modified after it was computed" in str(err.value)
    assert named in str(err.value)


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(moves=3), "moves must be a list, not int"),
    (lambda d: d.update(jobsets=[1, 2]), "jobsets[0] must be a list, not int"),
    (lambda d: d["jobsets"][0].__setitem__(0, "one"), "jobsets[0][0] must be an integer"),
    (lambda d: d["moves"][0].update(opcodes=7), "moves[0].opcodes must be a list, not int"),
    (lambda d: d["moves"][1].update(opcodes=["x"]), "moves[1].opcodes[0] must be a mapping"),
    (lambda d: d["moves"][0].update(index="1"), "moves[0].index must be an integer, not str"),
    (lambda d: d.update(state=[]), "state must be a mapping, not list"),
    (lambda d: d["state"].update(data="not base64!"), "state.data cannot be unpacked"),
    (lambda d: d["state"].update(data=d["state"]["data"][:-8]), "state.data cannot be unpacked"),
    (lambda d: d["state"].update(encoding="json"), "state must be a packed state"),
    (lambda d: d["moves"][0].pop("opcodes"), "lacks 'moves[0].opcodes'"),
])
def test_a_malformed_plan_names_the_field(edit, field):
    doc = _plan()
    edit(doc)
    with pytest.raises(PlanError) as err:
        _check(doc)
    assert field in str(err.value)


def test_signed_plans_need_the_key():
    signed = _plan(key="s3cret")
    assert _check(copy.deepcopy(signed), key="s3cret")
    with pytest.raises(PlanError, match="not signed with this plan_signing_key"):
        _check(copy.deepcopy(signed), key="other")
    with pytest.raises(PlanError, match="not signed"):
        _check(_plan(), key="s3cret")          # unsigned plan, key required
    # recomputing the digests after an edit does not help without the key
    forged = copy.deepcopy(signed)
    forged["moves"][0]["opcodes"].pop()
    rebuilt = make_plan("balance", dict(plan_report(forged), moves=forged["moves"],
                                        jobsets=forged["jobsets"]),
                        plan_state(forged), forged["options"])
    rebuilt["signature"] = signed["signature"]
    with pytest.raises(PlanError, match="not signed"):
        _check(rebuilt, key="s3cret")
