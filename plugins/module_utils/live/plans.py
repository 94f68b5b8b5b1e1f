# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plans as self-contained artefacts: computed once, approved, executed later.

A plan document carries everything needed to execute it (moves with their
opcodes, jobsets), the options it was computed with, and a fingerprint of
the cluster state it was computed from, so that a stale plan is refused.
"""

from __future__ import annotations

import datetime
import uuid

from ..errors import HtoolsError
from .snapshot import fingerprint

PLAN_FORMAT = "ganeti.htools/balance-plan/1"
_MOVE_KEYS = ("index", "instance", "new_primary", "new_secondary", "move", "opcodes", "jobset")
_PLAN_MOVE_KEYS = _MOVE_KEYS + ("old_primary", "old_secondary", "score", "action", "commands")


class PlanError(HtoolsError):
    """A plan document is malformed or does not fit the cluster."""


def model_state(data):
    """Fingerprint state of a cluster read from a data file (no serial numbers there)."""
    nodes = {n.name: [data.groups[n.group].uuid, n.offline, n.drained, n.is_master, n.t_mem,
                      n.t_dsk, n.t_cpu] for n in data.nodes}
    instances = {i.name: [data.nodes[i.pnode].name,
                          data.nodes[i.snode].name if i.snode >= 0 else None, i.template,
                          i.run_status, i.mem, i.dsk, i.vcpus] for i in data.instances}
    return {"source": "data_file",
            "fields": {"nodes": ["group", "offline", "drained", "master", "t_mem", "t_dsk",
                                 "t_cpu"],
                       "instances": ["primary", "secondary", "disk_template", "status",
                                     "memory", "disk", "vcpus"]},
            "nodes": nodes, "instances": instances, "cluster_tags": sorted(data.cluster_tags)}


def make_plan(report, state, options, cluster=None):
    """The plan document of a planning report."""
    keep = ("group", "initial_score", "final_score", "optimal_score", "solution_length",
            "stop_reason", "jobsets", "commands")
    doc = {key: report[key] for key in keep}
    doc.update(
        format=PLAN_FORMAT,
        plan_id=uuid.uuid4().hex,
        created=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        cluster=cluster,
        options=options,
        fingerprint=fingerprint(state),
        state=state,
        moves=[{k: m[k] for k in _PLAN_MOVE_KEYS} for m in report["moves"]],
    )
    return doc


def check_plan(doc):
    """Validate a plan document given back by a user; returns it."""
    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT:
        raise PlanError("the plan option must be a plan returned by ganeti_balance (format %s)"
                        % PLAN_FORMAT)
    for key in ("plan_id", "fingerprint", "state", "moves", "jobsets", "options"):
        if key not in doc:
            raise PlanError("the plan lacks %r; pass the 'plan' value ganeti_balance returned, "
                            "unchanged" % key)
    indices = set()
    for move in doc["moves"]:
        if not isinstance(move, dict) or any(k not in move for k in _MOVE_KEYS):
            raise PlanError("the plan has a malformed move: %r" % (move,))
        for op in move["opcodes"]:
            if not isinstance(op, dict) or op.get("instance_name") != move["instance"]:
                raise PlanError("move %s has an opcode for another instance" % move["index"])
        indices.add(move["index"])
    listed = [i for js in doc["jobsets"] for i in js]
    if sorted(listed) != sorted(indices) or len(listed) != len(set(listed)):
        raise PlanError("the plan's jobsets do not list each move exactly once")
    if fingerprint(doc["state"]) != doc["fingerprint"]:
        raise PlanError("the plan was modified: its state no longer matches its fingerprint")
    return doc
