# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Moves in plain words: the one vocabulary of every human-facing output.

The summary, the HTML report, the --diff and each move's `description` say
what a move does the same way, read off the opcodes it runs, so that no
glossary is needed:

* ``migrate to N``: a migration (live; Ganeti falls back to a failover when
  the instance is not running) makes N the primary; without a target this is
  the DRBD secondary, which becomes the primary and the old primary the
  secondary;
* ``failover to N``: the same for an instance that is not running yet;
* ``new secondary N``: the DRBD disks are copied to N, which replaces the
  secondary;
* ``move to N (copies the disks, the instance stops)``: an instance without
  mirrored disks is moved (no opcode: gnt-instance move);
* ``create on N (secondary M)``: a new instance placed there (allocation
  plans, which nothing executes);

several steps are joined by ", then ".  hbal's own notation (``f r:node7 f``,
step lines, -C commands) stays in the fields that equal hbal's output.
"""

from __future__ import annotations

THEN = ", then "
INSTANCE_MOVE = "instance_move"


def _step_words(op, placement):
    """(words, new placement) of one opcode applied to (primary, secondary)."""
    primary, secondary = placement
    op_id = op.get("OP_ID")
    if op_id in ("OP_INSTANCE_MIGRATE", "OP_INSTANCE_FAILOVER"):
        target = op.get("target_node") or secondary
        verb = "migrate" if op_id == "OP_INSTANCE_MIGRATE" else "failover"
        new = (target, primary) if target == secondary else (target, secondary)
        return "%s to %s" % (verb, target or "the secondary"), new
    if op_id == "OP_INSTANCE_REPLACE_DISKS" and op.get("remote_node"):
        return "new secondary %s" % op["remote_node"], (primary, op["remote_node"])
    if op_id == "OP_INSTANCE_CREATE":
        new = (op.get("pnode"), op.get("snode"))
        return "create on %s" % _placement_words(*new), new
    if op_id == "OP_INSTANCE_SET_PARAMS" and op.get("remote_node"):
        return ("new secondary %s (the disks become DRBD)" % op["remote_node"],
                (primary, op["remote_node"]))
    return str(op_id).replace("OP_INSTANCE_", "").replace("_", " ").lower(), placement


def _placement_words(primary, secondary):
    return primary + (" (secondary %s)" % secondary if secondary else "")


def describe_move(move):
    """The move in plain words, e.g. 'new secondary node7, then migrate to node7'."""
    opcodes = move.get("opcodes")
    if not opcodes:
        if move.get("move") == INSTANCE_MOVE or move.get("new_primary") != move.get(
                "old_primary"):
            return "move to %s (copies the disks, the instance stops)" % move.get(
                "new_primary")
        return "nothing to run"
    placement = (move.get("old_primary"), move.get("old_secondary"))
    words = []
    for op in opcodes:
        text, placement = _step_words(op, placement)
        words.append(text)
    return THEN.join(words)


def describe_moves(moves):
    """Give every move its `description` (in place); returns the moves."""
    for move in moves:
        move["description"] = describe_move(move)
    return moves
