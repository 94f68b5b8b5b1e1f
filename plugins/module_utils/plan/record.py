# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan record: what every planner returns and every reader reads.

A planner's `compute` returns a report (a dict) with at least:

- `moves`: [Move.record()], each move's fields below, its own extras after them;
- `jobsets`: [[move index, ...]]: moves of one jobset run in parallel, jobsets in order;
- `summary`: the few lines an operator reads before approving the plan;
- `warnings`: what the data loader and the planner noticed; `changed`: any moves;

and, where the planner has them, the fields the HTML report draws:
`node_usage` ([{"state": label, "nodes": [plan/usage.py record]}]) and
`drain_nodes` (nodes drained before the moves run, which resume accepts as
no drift).  Everything else in the report is the planner's own; how the
report is drawn from it is the planner's `view` (planner/base.py).
"""

from __future__ import annotations

from typing import NamedTuple


class Move(NamedTuple):
    """One instance move of a plan.

    move:    the move's kind in its planner's words (hbal's "f r:n f", a hail or
             hroller move kind); what runs is `opcodes`, which the executor submits
    extra:   the planner's own fields of the move (its score, wave, size...),
             kept at the record's top level so that results keep their shape
    """

    index: int
    instance: str
    move: str
    jobset: int
    old_primary: str
    old_secondary: object
    new_primary: str
    new_secondary: object
    opcodes: list
    extra: dict = {}

    def record(self):
        """The move as plans and results hold it (a plain dict)."""
        out = {name: getattr(self, name) for name in MOVE_FIELDS}
        out.update(self.extra)
        return out


# The fields every move record has, in the record's order.
MOVE_FIELDS = Move._fields[:-1]
# The fields a plan document's moves are checked for when given back, with their type.
CHECKED_MOVE_FIELDS = (("index", int), ("instance", str), ("move", str), ("opcodes", list),
                       ("jobset", int))
# Fields of a move returned only with `details: full`: the plan document holds
# them (the opcodes are what executes), the result shows the move in words.
MOVE_DETAILS = ("opcodes", "commands", "step_line", "action")


def brief(report, details):
    """`report` without the `details` keys, its moves without MOVE_DETAILS (a copy)."""
    out = {k: v for k, v in report.items() if k not in details}
    if isinstance(out.get("moves"), list):
        out["moves"] = [{k: v for k, v in m.items() if k not in MOVE_DETAILS}
                        for m in out["moves"]]
    return out
