# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every planner, in one table: the report filter and the tests look planners up here.

Adding a planner is its folder (planner/<name>/, exposing a base.Planner),
one line below, and its module file (README.md, "Adding a planner").  A
module imports its own planner, not this table: AnsiballZ ships every file a
module imports, and this one would ship every planner with every module.
"""

from __future__ import annotations

from .allocate.planner import ALLOCATE
from .balance.planner import BALANCE
from .evacuate.plan import EVACUATE
from .roller.planner import ROLLER

PLANNERS = (
    ALLOCATE,
    BALANCE,
    EVACUATE,
    ROLLER,
)

BY_KIND = {planner.kind: planner for planner in PLANNERS}


class UnknownPlanner(LookupError):
    """A result or plan of no registered planner."""


def planner(kind):
    """The planner of plans of `kind`."""
    try:
        return BY_KIND[kind]
    except KeyError:
        raise UnknownPlanner("no planner makes %r plans (known: %s)"
                             % (kind, ", ".join(sorted(BY_KIND)))) from None


def _words(items):
    items = list(items)
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)


def planner_of(result):
    """The planner whose result (or plan document, under `plan`) `result` is."""
    plan = result.get("plan")
    if isinstance(plan, dict) and plan.get("kind") in BY_KIND:
        return BY_KIND[plan["kind"]]
    for each in PLANNERS:
        if each.marker in result:
            return each
    raise UnknownPlanner(
        "expected the result of %s (or its plan): none of %s is there"
        % (_words(p.module.rsplit(".", 1)[-1] for p in PLANNERS),
           _words(p.marker for p in PLANNERS)))
