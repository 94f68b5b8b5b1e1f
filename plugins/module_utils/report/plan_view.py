# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a plan's HTML report shows, as plain data, whatever the plan's kind.

`plan_view()` takes a planning module's result (or its `plan` document alone)
and returns the parts the page is made of: the facts, the per-node usage
states, the score per step, the moves grouped by jobset or wave, the
warnings.  Kept apart from the page itself so that tests can compare the
page with it.
"""

from __future__ import annotations

from ..plan.envelope import PlanError, plan_report, plan_result
from ..plan.move_words import describe_move
from ..plan.usage import from_node_record

BALANCE, EVACUATE, REBOOT = "balance", "evacuate", "rolling-reboot"
TITLES = {BALANCE: "Balance plan", EVACUATE: "Evacuation plan", REBOOT: "Rolling reboot plan"}
# The moves table: (column key, header), the same for every kind but the score and
# the groups; the move in plain words (plan/move_words.py).
MOVE_COLUMNS = (("index", "#"), ("instance", "Instance"), ("description", "Move"),
                ("old_primary", "Old primary"), ("old_secondary", "Old secondary"),
                ("new_primary", "New primary"), ("new_secondary", "New secondary"),
                ("jobset", "Jobset"))
SCORE_COLUMN = ("score_text", "Score after")
# A rolling reboot's moves also say how big the instance is and what happens to it.
REBOOT_COLUMNS = (("size", "Size"), ("note", "What happens"))
GROUP_COLUMNS = (("old_group", "Old group"), ("new_group", "New group"))


NOT_FITTING = "waves that do not fit while down"


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


def plan_kind(result):
    """balance, evacuate or rolling-reboot."""
    plan = result.get("plan")
    if isinstance(plan, dict) and plan.get("kind") in TITLES:
        return plan["kind"]
    if "initial_score" in result:
        return BALANCE
    if "waves" in result:
        return REBOOT
    if "iallocator_result" in result:
        return EVACUATE
    raise NotAPlan("expected the result of ganeti_balance, ganeti_evacuate_group or "
                   "ganeti_rolling_reboot (or its plan): none of initial_score, waves or "
                   "iallocator_result is there")


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


def _states(result, kind):
    if kind == BALANCE and result.get("nodes_before"):     # a full result or report
        return [{"state": "before", "nodes": [from_node_record(n) for n in
                                              result.get("nodes_before") or ()]},
                {"state": "after", "nodes": [from_node_record(n) for n in
                                             result.get("nodes_after") or ()]}]
    states = [dict(s) for s in _node_usage(result) if s.get("nodes")]
    if kind == REBOOT:
        waves = {"wave %d" % w["wave"]: w["nodes"] for w in result.get("waves") or ()}
        for state in states:
            state["rebooting"] = list(waves.get(state["state"], ()))
    return states


def _scores(result, kind):
    """[(label, score)]: the score before the plan, then after each step."""
    if kind == BALANCE:
        return [("before", result["initial_score"])] + [
            ("step %d" % m["index"], m["score"]) for m in result.get("moves", ())]
    return []             # an evacuation: each group's own score (group_scores)


def group_scores(result, kind):
    """[{group, role, before, after}] of an evacuation: each group's own score (as hbal
    scores that group alone), the source group(s) first, then the targets."""
    if kind != EVACUATE:
        return []
    moves = result.get("moves") or ()
    sources = {m.get("old_group") for m in moves}
    targets = set(result.get("target_groups") or ()) | {m.get("new_group") for m in moves}
    rows = []
    for name, score in sorted((result.get("scores") or {}).items(),
                              key=lambda item: (item[0] not in sources, item[0])):
        role = " and ".join(r for r, members in (("source", sources), ("target", targets))
                            if name in members) or "involved"
        rows.append({"group": name, "role": role, "before": score.get("before"),
                     "after": score.get("after")})
    return rows


def _group_label(kind, number, size):
    if size == 1:           # one move runs alone: nothing in parallel
        return "jobset %d: 1 move" % number
    if kind == EVACUATE:
        return "jobset %d: %d moves, independent instances, run in parallel" % (number, size)
    return "jobset %d: %d moves, run in parallel" % (number, size)


def _move_groups(result, kind):
    """[{label, moves}]: jobsets in order, or the waves (those without moves too)."""
    moves = [dict(m, description=m.get("description") or describe_move(m))
             for m in result.get("moves") or ()]
    if kind == REBOOT:
        groups = []
        for wave in result.get("waves") or ():
            listed = [m for m in moves if m.get("wave") == wave["wave"]]
            label = "wave %d: reboots %s%s" % (wave["wave"], ", ".join(wave["nodes"]),
                                               " (the master, last)" if wave["has_master"]
                                               else "")
            if wave.get("migrate_primaries"):
                label += "; DRBD primaries migrated off first"
            if not listed:
                label += "; no instance moves"
            label += _verdict(wave.get("down"))
            groups.append({"label": label, "moves": [_sized(m) for m in listed]})
        return groups
    by_index = {m["index"]: m for m in moves}
    return [{"label": _group_label(kind, number, len(jobset)),
             "moves": [by_index[i] for i in jobset if i in by_index]}
            for number, jobset in enumerate(result.get("jobsets") or (), start=1)]


def _verdict(down):
    """How a wave's group label ends: whether the cluster holds while it is down."""
    if not isinstance(down, dict):
        return ""
    if down.get("fits"):
        return "; fits while down"
    return "; DOES NOT FIT while down (%s)" % "; ".join(
        "%s %s" % (what, ", ".join(down.get(key) or ()))
        for what, key in (("over capacity:", "over_capacity"), ("N+1 fails on", "n1_failing"))
        if down.get(key))


def _sized(move):
    """A move row with its instance's size as text (rolling reboots)."""
    if "memory_mib" not in move:
        return move
    return dict(move, size="%g GiB memory, %g GiB disk" % (
        round(move["memory_mib"] / 1024.0, 1), round((move.get("disk_mib") or 0) / 1024.0, 1)))


def _wave_problems(result):
    """Each wave's shortages while its nodes are down, one line each."""
    return [p.get("text", "") for w in result.get("waves") or ()
            if isinstance(w.get("down"), dict) for p in w["down"].get("problems") or ()]


def _warnings(result):
    # a module result moved them to data_warnings; a planner report keeps warnings
    return list(result.get("data_warnings") or result.get("warnings") or ())


def state_phrase(label):
    """How a usage state reads in a sentence: before/after the plan, after a wave's moves."""
    if label in ("before", "after"):
        return label + " the plan"
    return "while %s is down" % label


def _facts(result, kind, states):
    moves = result.get("moves") or ()
    facts = [("moves", len(moves))]
    if kind == REBOOT:
        facts.append(("waves", len(result.get("waves") or ())))
    else:
        facts.append(("jobsets", len(result.get("jobsets") or ())))
    scores = _scores(result, kind)
    if scores:
        facts.append(("score", "%.8f \u2192 %.8f" % (scores[0][1], scores[-1][1])))
    for row in group_scores(result, kind)[:FACT_GROUPS]:
        facts.append(("score of %s (%s)" % (row["group"], row["role"]),
                      "%.8f \u2192 %.8f" % (row["before"], row["after"])))
    failing = [sum(1 for n in state["nodes"] if n.get("n1_fail")) for state in states]
    if failing:
        facts.append(("N+1 failing nodes before", failing[0]))
    if len(failing) == 2:
        facts.append(("N+1 failing nodes after", failing[1]))
    elif len(failing) > 2:
        facts.append(("N+1 failing nodes, worst wave", max(failing[1:])))
    if kind == REBOOT:
        waves = result.get("waves") or ()
        facts.append((NOT_FITTING, sum(1 for w in waves if isinstance(w.get("down"), dict)
                                       and not w["down"].get("fits"))))
    return facts


FACT_GROUPS = 3         # group scores shown as facts; all of them in their table


def _meta(result, kind):
    plan = result.get("plan") if isinstance(result.get("plan"), dict) else {}
    meta = []
    for label, value in (("cluster", plan.get("cluster")), ("group", result.get("group")),
                         ("request", result.get("kind") if kind == EVACUATE else None),
                         ("nodes", ", ".join(result.get("nodes") or ()) if kind == EVACUATE
                          else None),
                         ("target groups", _targets(result) if kind == EVACUATE else None),
                         ("plan id", plan.get("plan_id")), ("created", plan.get("created")),
                         ("stop reason", result.get("stop_reason"))):
        if value:
            meta.append((label, value))
    return meta


def _targets(result):
    if result.get("kind") != "change-group":
        return None
    return ", ".join(result.get("target_groups") or ()) or "any other group"


def plan_view(value):
    """The report's parts for a planning result or a plan document (see the module doc)."""
    result = _as_result(value)
    kind = plan_kind(result)
    states = _states(result, kind)
    columns = MOVE_COLUMNS + ((SCORE_COLUMN,) if kind == BALANCE else ()) + (
        REBOOT_COLUMNS if kind == REBOOT else ()) + (
        GROUP_COLUMNS if result.get("kind") == "change-group" else ())
    return {
        "kind": kind,
        "title": TITLES[kind],
        "meta": _meta(result, kind),
        "facts": _facts(result, kind, states),
        "states": states,
        "scores": _scores(result, kind),
        "group_scores": group_scores(result, kind),
        "evacuated": list(result.get("nodes") or ()) if kind == EVACUATE else [],
        "columns": columns,
        "groups": _move_groups(result, kind),
        "warnings": _warnings(result),
        "wave_problems": _wave_problems(result) if kind == REBOOT else [],
        "failed_instances": list(result.get("failed_instances") or ()),
        "summary": result.get("summary") or "",
    }
