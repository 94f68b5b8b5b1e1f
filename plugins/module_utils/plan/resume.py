# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resume an interrupted plan: how far each move got, judged from the cluster now.

A run can stop anywhere (cancelled job, lost controller, max_duration, a
failed job).  Given the same plan again, the cluster differs from the plan's
recorded state only by the moves already made: each moved instance sits at
one of the placements its move passes through (f r f: P:S, S:P, S:T, T:S).
Any other difference is real drift, and the plan is refused as stale.
"""

from __future__ import annotations

from .envelope import plan_report, plan_state
from .state import drift, fingerprint

# Instance fields a move changes: where it runs, and its serial number.
_MOVED_FIELDS = ("primary", "secondary", "serial_no")


def placements(move):
    """The (primary, secondary) of the move's instance before and after each opcode."""
    primary, secondary = move["old_primary"], move["old_secondary"]
    path = [(primary, secondary)]
    for op in move["opcodes"]:
        if op["OP_ID"] == "OP_INSTANCE_REPLACE_DISKS":
            secondary = op["remote_node"]
        elif op.get("target_node"):
            primary = op["target_node"]
        else:                       # DRBD fail-over or migration to the secondary
            primary, secondary = secondary, primary
        path.append((primary, secondary))
    return path


def _instance_progress(moves, current):
    """{move index: opcodes done} for one instance's moves (in plan order), or None.

    hbal may move an instance more than once; its moves chain into one path
    and `current` must sit at exactly one point of it.
    """
    path, owners = [], []
    for move in moves:
        steps = placements(move)
        if not path:
            path.append(steps[0])
        for count, placement in enumerate(steps[1:], start=1):
            path.append(placement)
            owners.append((move["index"], count))
    at = [pos for pos, placement in enumerate(path) if placement == current]
    if len(at) != 1:
        return None
    done = {move["index"]: 0 for move in moves}
    for index, count in owners[:at[0]]:
        done[index] = count
    return done


def _drained(expected, now, names):
    """The plan drains `names` before its moves: that is no drift.  Draining
    demotes a master candidate and Ganeti may promote another node, so the
    candidate flags and node serial numbers of every node follow `now`."""
    fields = expected.get("fields", {}).get("nodes", [])
    if not names or "drained" not in fields:
        return
    drained = fields.index("drained")
    follow = [fields.index(f) for f in ("master_candidate", "serial_no") if f in fields]
    for name, values in expected.get("nodes", {}).items():
        current = now.get("nodes", {}).get(name)
        if current is None or len(current) != len(values):
            continue
        if name in names:
            values[drained] = True
        for pos in follow:
            values[pos] = current[pos]


def progress(plan, now):
    """({move index: opcodes done}, unexplained drift lines) of `plan` on state `now`."""
    expected = plan_state(plan)
    _drained(expected, now, set(plan_report(plan).get("drain_nodes") or ()))
    labels = expected.get("fields", {}).get("instances", [])
    moved_fields = [labels.index(f) for f in _MOVED_FIELDS if f in labels]
    by_instance = {}
    for move in sorted(plan["moves"], key=lambda m: m["index"]):
        by_instance.setdefault(move["instance"], []).append(move)
    done = {}
    for name, moves in by_instance.items():
        current = now.get("instances", {}).get(name)
        if current is None or name not in expected.get("instances", {}):
            continue
        reached = _instance_progress(moves, (current[0], current[1]))
        if reached is None:
            continue                # left as recorded: drift() will name it
        done.update(reached)
        if any(reached.values()):
            for pos in moved_fields:
                expected["instances"][name][pos] = current[pos]
    if fingerprint(expected) != fingerprint(now):
        return done, drift(expected, now)
    return done, []
