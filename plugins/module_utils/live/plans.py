# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plans as self-contained artefacts: computed once, approved, executed later.

One envelope serves every planner.  A plan document carries:
- what identifies it: `format` (kind and version), `kind`, `plan_id`, `created`, `cluster`;
- what it was computed from: the planner `options` and the cluster `state`
  with its `fingerprint`, so that a stale plan is refused;
- what execution needs: `moves` (each with its opcodes) and `jobsets`;
- what the planner reported: `report` (scores, tables, commands...), so that
  a plan given back yields the same result fields as a fresh one.
"""

from __future__ import annotations

import datetime
import uuid

from ..errors import HtoolsError
from .snapshot import fingerprint

FORMAT_VERSION = 2
_MOVE_KEYS = ("index", "instance", "new_primary", "new_secondary", "move", "opcodes", "jobset")
# Parts of a planning report that the envelope holds at its top level.
_EXECUTION_KEYS = ("moves", "jobsets")
# Parts of a planning report that describe the data, not the plan.
_DATA_KEYS = ("warnings", "changed")


class PlanError(HtoolsError):
    """A plan document is malformed or does not fit the cluster."""


def plan_format(kind):
    return "ganeti.htools/%s-plan/%d" % (kind, FORMAT_VERSION)


def make_plan(kind, report, state, options, cluster=None):
    """The plan document of a planning report."""
    return {
        "format": plan_format(kind),
        "kind": kind,
        "plan_id": uuid.uuid4().hex,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cluster": cluster,
        "options": options,
        "fingerprint": fingerprint(state),
        "state": state,
        "moves": report["moves"],
        "jobsets": report["jobsets"],
        "report": {k: v for k, v in report.items() if k not in _EXECUTION_KEYS + _DATA_KEYS},
    }


def plan_result(plan):
    """The module result fields of a plan, fresh or given back: one shape for both."""
    result = dict(plan["report"])
    result.update(moves=plan["moves"], jobsets=plan["jobsets"], changed=bool(plan["moves"]),
                  plan=plan)
    return result


def check_plan(doc, kind, module):
    """Validate a plan document given back by a user to `module`; returns it."""
    expected = plan_format(kind)
    if not isinstance(doc, dict) or doc.get("format") != expected:
        raise PlanError("the plan option must be a plan returned by %s (format %s)"
                        % (module, expected))
    for key in ("plan_id", "fingerprint", "state", "options", "report") + _EXECUTION_KEYS:
        if key not in doc:
            raise PlanError("the plan lacks %r; pass the 'plan' value %s returned, unchanged"
                            % (key, module))
    _check_moves(doc["moves"], doc["jobsets"])
    if fingerprint(doc["state"]) != doc["fingerprint"]:
        raise PlanError("the plan was modified: its state no longer matches its fingerprint")
    return doc


def _check_moves(moves, jobsets):
    indices = set()
    for move in moves:
        if not isinstance(move, dict) or any(k not in move for k in _MOVE_KEYS):
            raise PlanError("the plan has a malformed move: %r" % (move,))
        for op in move["opcodes"]:
            if not isinstance(op, dict) or op.get("instance_name") != move["instance"]:
                raise PlanError("move %s has an opcode for another instance" % move["index"])
        indices.add(move["index"])
    listed = [i for js in jobsets for i in js]
    if sorted(listed) != sorted(indices) or len(listed) != len(set(listed)):
        raise PlanError("the plan's jobsets do not list each move exactly once")
