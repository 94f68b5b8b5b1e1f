# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a plan's HTML report shows, as plain data, whatever planner made it.

`plan_view()` takes a planning module's result (or its `plan` document alone)
and returns the parts the page is made of: the facts, the per-node usage
states, the score per step, the moves grouped by jobset or wave, the
warnings.  What differs between planners is the planner's view
(planner/base.py PlanView), found in the registry.  Kept apart from the page
itself so that tests can compare the page with it.
"""

from __future__ import annotations

import importlib

from ..plan.cost import duration_text, size_text
from ..plan.envelope import PlanError, plan_report, plan_result
from ..plan.move_words import describe_move

# The moves table: (column key, header), the same for every plan but the
# planner's own columns; the move in plain words (plan/move_words.py).
COST_COLUMNS = (("data_copied", "Disk data copied"),)
MOVE_COLUMNS = (("index", "#"), ("instance", "Instance"), ("description", "Move"),
                ("old_primary", "Old primary"), ("old_secondary", "Old secondary"),
                ("new_primary", "New primary"), ("new_secondary", "New secondary"),
                ("jobset", "Jobset"))
FACT_GROUPS = 3         # group scores shown as facts; all of them in their table


class NotAPlan(ValueError):
    """The value given is neither a planning result nor a plan document."""


def _as_result(value):
    """A module result from a result or a plan document (`plan` given alone)."""
    if not isinstance(value, dict):
        raise NotAPlan("expected the result of a ganeti.htools planning module or its plan, "
                       "not %s" % type(value).__name__)
    if isinstance(value.get("report"), dict) and str(value.get("format", "")).startswith(
            "ganeti.htools/"):
        try:
            return plan_result(value)       # node_usage stays in value (the plan)
        except PlanError as err:
            raise NotAPlan(str(err)) from None
    return value


def _registered_planner(result):
    # Imported by name: a module's AnsiballZ payload holds what it imports, and
    # the registry would bring every planner; modules pass their own planner.
    # The filter and the tests, on the controller, look the planner up here.
    registry = importlib.import_module(__name__.rsplit(".", 2)[0] + ".planner.registry")
    try:
        return registry.planner_of(result)
    except registry.UnknownPlanner as err:
        raise NotAPlan(str(err)) from None


def _node_usage(result):
    """The usage states: a module result leaves them in its plan (packed)."""
    if "node_usage" in result:
        return result["node_usage"] or ()
    plan = result.get("plan")
    if isinstance(plan, dict) and isinstance(plan.get("report"), dict):
        try:
            return plan_report(plan).get("node_usage") or ()
        except PlanError as err:
            raise NotAPlan(str(err)) from None
    return ()


def _states(result, view):
    states = view.own_states(result)
    if states is None:
        states = [dict(s) for s in _node_usage(result) if s.get("nodes")]
        view.mark_states(result, states)
    return states


def _warnings(result):
    # a module result moved them to data_warnings; a planner report keeps warnings
    return list(result.get("data_warnings") or result.get("warnings") or ())


def state_phrase(label):
    """How a usage state reads in a sentence: before/after the plan, after a wave's moves."""
    if label in ("before", "after"):
        return label + " the plan"
    return "while %s is down" % label


def _cost_facts(cost):
    """The plan's cost in the facts panel (plan/cost.py)."""
    if not isinstance(cost, dict):
        return []
    copies = cost["disk_copies"]
    copied = "%s (%d disk cop%s)" % (size_text(cost["data_copied_mib"]), copies,
                                     "y" if copies == 1 else "ies")
    duration = "about %s at %g MiB/s per disk copy, %g MiB/s per migration" % (
        duration_text(cost["estimated_seconds"]), cost["disk_copy_rate"], cost["migration_rate"])
    return [("disk data copied", copied),
            ("memory migrated", size_text(cost["memory_migrated_mib"])),
            ("estimated duration", duration)]


def _facts(result, view, states):
    facts = [("moves", len(result.get("moves") or ())), view.count_fact(result)]
    facts += _cost_facts(result.get("cost"))
    scores = view.scores(result)
    if scores:
        facts.append(("score", "%.8f \u2192 %.8f" % (scores[0][1], scores[-1][1])))
    for row in view.group_scores(result)[:FACT_GROUPS]:
        facts.append(("score of %s (%s)" % (row["group"], row["role"]),
                      "%.8f \u2192 %.8f" % (row["before"], row["after"])))
    failing = [sum(1 for n in state["nodes"] if n.get("n1_fail")) for state in states]
    if failing:
        facts.append(("N+1 failing nodes before", failing[0]))
    if len(failing) == 2:
        facts.append(("N+1 failing nodes after", failing[1]))
    elif len(failing) > 2:
        facts.append(("N+1 failing nodes, worst wave", max(failing[1:])))
    return facts + view.extra_facts(result)


def _meta(result, view):
    plan = result.get("plan") if isinstance(result.get("plan"), dict) else {}
    lines = [("cluster", plan.get("cluster")), ("group", result.get("group"))] + \
        view.meta(result) + [("plan id", plan.get("plan_id")), ("created", plan.get("created")),
                             ("stop reason", result.get("stop_reason"))]
    return [(label, value) for label, value in lines if value]


def plan_view(value, planner=None):
    """The report's parts for a planning result or a plan document (see the module doc);
    `planner` made it (found in the registry when not given)."""
    result = _as_result(value)
    if planner is None:
        planner = _registered_planner(result)
    view = planner.view
    states = _states(result, view)
    moves = [dict(m, description=m.get("description") or describe_move(m))
             for m in result.get("moves") or ()]
    costed = bool(moves) and all("data_copied_mib" in m for m in moves)
    if costed:
        for move in moves:
            move["data_copied"] = size_text(move["data_copied_mib"]) \
                if move["data_copied_mib"] else "none"
    return {
        "kind": planner.kind,
        "title": planner.title,
        "meta": _meta(result, view),
        "facts": _facts(result, view, states),
        "alerts": list(view.alert_facts),
        "states": states,
        "scores": view.scores(result),
        "gain_curve": view.gain_curve(result),
        "hbal_curve": view.hbal_curve(result),
        "group_scores": view.group_scores(result),
        "evacuated": view.evacuated(result),
        "columns": MOVE_COLUMNS + tuple(view.columns(result)) + (COST_COLUMNS if costed else ()),
        "groups": view.move_groups(result, moves),
        "warnings": _warnings(result),
        "wave_problems": view.problems(result),
        "failed_instances": list(result.get("failed_instances") or ()),
        "summary": result.get("summary") or "",
    }
