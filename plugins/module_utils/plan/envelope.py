# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plans as self-contained artefacts: computed once, approved, executed exactly.

One envelope serves every planner.  A plan document carries:
- what identifies it: `format` (kind and version), `kind`, `plan_id`, `created`, `cluster`;
- what it was computed from: the planner `options` and the cluster `state`
  with its `fingerprint`, so that a plan whose cluster changed is refused.
  The state is packed (compressed JSON in one string, with its node and
  instance counts): nobody reviews it line by line, and a 20 000-instance
  state as nested data costs Ansible seconds to pass around;
- what execution needs: `moves` (each with its opcodes) and `jobsets`;
- what the planner reported: `report` (scores, tables, commands...), so that
  a plan given back yields the same result fields as a fresh one.  Packed
  too: the module result shows every one of its fields already, and Ansible
  spends about as long on each value of a result as a planner on a node.
  `summary`, the few lines a reviewer reads, stays plain text;
- `digests` of each of those parts (and of each move), and `digest` over all
  of them: the approval guarantee.  A plan edited in any part is refused,
  naming what no longer matches.  A digest protects against edits, not
  against someone who recomputes it: `signature`, an HMAC with a key only
  the approvers and the executing side hold, closes that gap.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import json
import uuid
import zlib

from ..errors import HtoolsError
from .record import CHECKED_MOVE_FIELDS
from .state import fingerprint

FORMAT_VERSION = 4
STATE_ENCODING = "json+zlib+base64"
# Parts of a planning report that the envelope holds at its top level.
_EXECUTION_KEYS = ("moves", "jobsets")
# Parts of a planning report that describe the data, not the plan.
_DATA_KEYS = ("warnings", "changed")
# Parts of a planning report that only the plan document carries (packed): the
# HTML report's per-node usage, thousands of values Ansible need not handle.
PLAN_ONLY_KEYS = ("node_usage",)
# The parts the digest covers, each digested on its own to name an edit.
_DIGESTED = ("format", "kind", "plan_id", "created", "cluster", "options", "fingerprint",
             "state", "jobsets", "report", "summary")


class PlanError(HtoolsError):
    """A plan document is malformed, edited, or does not fit the cluster."""


def plan_format(kind):
    return "ganeti.htools/%s-plan/%d" % (kind, FORMAT_VERSION)


def _digest(value):
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _digests(doc):
    parts = {key: _digest(doc.get(key)) for key in _DIGESTED}
    parts["moves"] = [_digest(move) for move in doc["moves"]]
    return parts


def _signature(digest, key):
    return "hmac-sha256:" + hmac.new(key.encode("utf-8"), digest.encode("utf-8"),
                                     hashlib.sha256).hexdigest()


def _pack(value, **counts):
    blob = json.dumps(value, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return dict(counts, encoding=STATE_ENCODING,
                data=base64.b64encode(zlib.compress(blob, 6)).decode("ascii"))


def _unpack(doc, key, what):
    packed = doc.get(key)
    if not isinstance(packed, dict) or packed.get("encoding") != STATE_ENCODING \
            or not isinstance(packed.get("data"), str):
        raise PlanError("malformed plan: %s must be a packed %s (encoding %s)"
                        % (key, what, STATE_ENCODING))
    try:
        value = json.loads(zlib.decompress(base64.b64decode(packed["data"], validate=True)))
    except (ValueError, binascii.Error, zlib.error) as err:
        raise PlanError("malformed plan: %s.data cannot be unpacked: %s" % (key, err)) from None
    if not isinstance(value, dict):
        raise PlanError("malformed plan: %s.data must hold a mapping" % key)
    return value


def pack_state(state):
    """The cluster state as a plan carries it."""
    return _pack(state, nodes=len(state.get("nodes", {})),
                 instances=len(state.get("instances", {})))


def plan_state(doc):
    """The cluster state a plan was computed from (a fresh copy)."""
    return _unpack(doc, "state", "state")


def pack_report(report):
    """The planner's report as a plan carries it."""
    return _pack(report)


def plan_report(doc):
    """What the planner reported besides the moves (a fresh copy)."""
    return _unpack(doc, "report", "report")


def make_plan(kind, report, state, options, cluster=None, signing_key=None):
    """The plan document of a planning report (signed when a key is given)."""
    doc = {
        "format": plan_format(kind),
        "kind": kind,
        "plan_id": uuid.uuid4().hex,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cluster": cluster,
        "options": options,
        "fingerprint": fingerprint(state),
        "state": pack_state(state),
        "moves": report["moves"],
        "jobsets": report["jobsets"],
        "report": pack_report({k: v for k, v in report.items()
                               if k not in _EXECUTION_KEYS + _DATA_KEYS}),
        "summary": report.get("summary"),
    }
    doc["digests"] = _digests(doc)
    doc["digest"] = _digest(doc["digests"])
    if signing_key:
        doc["signature"] = _signature(doc["digest"], signing_key)
    return doc


def plan_result(plan):
    """The module result fields of a plan, fresh or given back: one shape for both."""
    result = {k: v for k, v in plan_report(plan).items() if k not in PLAN_ONLY_KEYS}
    result.update(moves=plan["moves"], jobsets=plan["jobsets"], changed=bool(plan["moves"]),
                  plan=plan)
    return result


def check_plan(doc, kind, module, signing_key=None):
    """Validate a plan document given back by a user to `module`; returns it.

    Refuses a malformed plan (naming the field), an edited one (naming the
    parts that no longer match their digests) and, with `signing_key`, one
    whose signature is missing or wrong.
    """
    expected = plan_format(kind)
    if not isinstance(doc, dict) or doc.get("format") != expected:
        raise PlanError("the plan option must be a plan returned by %s (format %s)"
                        % (module, expected))
    state = _check_shape(doc, module)
    _check_digests(doc, state)
    if signing_key:
        signature = doc.get("signature")
        if not isinstance(signature, str) or not hmac.compare_digest(
                signature, _signature(doc["digest"], signing_key)):
            raise PlanError("the plan is not signed with this plan_signing_key; nothing was "
                            "executed")
    return doc


def _field_error(path, expected, value):
    return PlanError("malformed plan: %s must be %s, not %s"
                     % (path, expected, type(value).__name__))


def _require(doc, key, kind, path, module):
    if key not in doc:
        raise PlanError("the plan lacks %r; pass the 'plan' value %s returned, unchanged"
                        % (path, module))
    if not isinstance(doc[key], kind) or (kind is int and isinstance(doc[key], bool)):
        raise _field_error(path, _TYPE_WORDS[kind], doc[key])
    return doc[key]


_TYPE_WORDS = {dict: "a mapping", list: "a list", str: "a string", int: "an integer"}


def _check_shape(doc, module):
    for key, kind in (("plan_id", str), ("fingerprint", str), ("state", dict),
                      ("options", dict), ("report", dict), ("moves", list), ("jobsets", list),
                      ("digests", dict), ("digest", str)):
        _require(doc, key, kind, key, module)
    indices = set()
    for pos, move in enumerate(doc["moves"]):
        path = "moves[%d]" % pos
        if not isinstance(move, dict):
            raise _field_error(path, "a mapping", move)
        for key, kind in CHECKED_MOVE_FIELDS:
            _require(move, key, kind, "%s.%s" % (path, key), module)
        for op_pos, op in enumerate(move["opcodes"]):
            op_path = "%s.opcodes[%d]" % (path, op_pos)
            if not isinstance(op, dict):
                raise _field_error(op_path, "a mapping", op)
            _require(op, "OP_ID", str, op_path + ".OP_ID", module)
            if op.get("instance_name") != move["instance"]:
                raise PlanError("move %s has an opcode for another instance" % move["index"])
        indices.add(move["index"])
    listed = []
    for pos, jobset in enumerate(doc["jobsets"]):
        if not isinstance(jobset, list):
            raise _field_error("jobsets[%d]" % pos, "a list", jobset)
        for item_pos, item in enumerate(jobset):
            if not isinstance(item, int) or isinstance(item, bool):
                raise _field_error("jobsets[%d][%d]" % (pos, item_pos), "an integer", item)
        listed.extend(jobset)
    if sorted(listed) != sorted(indices) or len(listed) != len(set(listed)):
        raise PlanError("the plan's jobsets do not list each move exactly once")
    plan_report(doc)                # what is wrong with it named, if anything
    return plan_state(doc)


def _check_digests(doc, state):
    try:
        now = _digests(doc)
    except ValueError as err:       # NaN or infinity slipped into the document
        raise PlanError("malformed plan: %s" % err) from None
    recorded = doc["digests"]
    edited = [key for key in _DIGESTED if recorded.get(key) != now[key]]
    old_moves = recorded.get("moves")
    if not isinstance(old_moves, list) or len(old_moves) != len(now["moves"]):
        edited.append("moves (%d recorded, %d now)"
                      % (len(old_moves) if isinstance(old_moves, list) else 0,
                         len(now["moves"])))
    else:
        edited += ["move %s (%s)" % (move["index"], move["instance"])
                   for move, old, new in zip(doc["moves"], old_moves, now["moves"])
                   if old != new]
    if not edited and doc["digest"] != _digest(recorded):
        edited.append("digest")
    if edited:
        raise PlanError("the plan was modified after it was computed: it no longer matches "
                        "its digest in: %s. Nothing was executed; compute and approve a new "
                        "plan" % ", ".join(edited))
    if fingerprint(state) != doc["fingerprint"]:
        raise PlanError("the plan was modified: its state no longer matches its fingerprint")
