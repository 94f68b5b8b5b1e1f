# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every planner tells the layers around it (listed in planner/registry.py)."""

from __future__ import annotations


class Planner:
    """A planner as the module layer, the plan envelope and the report see it.

    kind:     the plan kind ("balance", ...), part of the plan format
    title:    the title of its plans' HTML report
    module:   the module that returns its plans, for messages
    options:  names of the options a plan records (to recompute it the same way)
    table:    its own option table (options.Option: type, default, valid range)
    needs:    third-party libraries it cannot plan without
    compute:  compute(data, opts) -> report, for freshly loaded data; the report
              is the plan record (plan/record.py)
    writes:   options naming files the planner writes (hbal -S: save_state): in
              `opts` of a fresh plan, never recorded in the plan
    executes: whether the module runs the plan outside check mode; a planner
              whose plans others execute (the roller's waves) returns them only
    refuse:   refuse(report, params) -> why this plan must not be executed, or
              None (checked before the lock is taken, also for a plan given back)
    details:  report keys returned only with `details: full` (tables, per-node and
              per-instance states); the plan document then leaves them out too
    marker:   a result key only this planner's results have (a result without
              its plan document is recognised by it)
    view:     how the HTML report draws its plans (a PlanView)
    node_order: the order it reads live or saved RAPI nodes in: "name" (RAPI's,
              the one hbal sees) or "config" (Ganeti's configuration order, the
              one of the IAllocator requests Ganeti sends hail)
    """

    def __init__(self, kind, module, options, needs, compute, executes=True, refuse=None,
                 details=(), title=None, table=(), marker=None, view=None, writes=(),
                 node_order="name"):
        self.kind = kind
        self.title = title or kind
        self.module = module
        self.options = tuple(options)
        self.table = tuple(table)
        self.needs = tuple(needs)
        self.compute = compute
        self.executes = executes
        self.refuse = refuse or (lambda report, params: None)
        self.details = tuple(details)
        self.marker = marker
        self.view = view or PlanView()
        self.writes = tuple(writes)
        self.node_order = node_order


class PlanView:
    """How the HTML report (report/plan_view.py) draws one planner's plans.

    Every hook receives the planning result (a module result or a planner's
    report); the defaults draw a plan of jobsets without scores.
    """

    alert_facts = ()        # facts shown as an alert when not zero

    def own_states(self, result):
        """Usage states drawn from the result itself, or None: the plan's node_usage."""
        del result
        return None

    def mark_states(self, result, states):
        """Add what the usage charts mark to `states` (in place)."""

    def scores(self, result):
        """[(label, score)]: the score before the plan, then after each step."""
        del result
        return []

    def gain_curve(self, result):
        """[(disk GiB copied so far, % of the plan's score gain, label)] after
        each move, or []: where a data budget would stop."""
        del result
        return []

    def hbal_curve(self, result):
        """The same as gain_curve for hbal's own plan, drawn beside a cost-aware one, or []."""
        del result
        return []

    def group_scores(self, result):
        """[{group, role, before, after}]: each group's own score."""
        del result
        return []

    def columns(self, result):
        """Columns of the moves table besides report/plan_view.py MOVE_COLUMNS."""
        del result
        return ()

    def count_fact(self, result):
        """The fact that counts the plan's groups of moves."""
        return ("jobsets", len(result.get("jobsets") or ()))

    def extra_facts(self, result):
        """Facts after the common ones."""
        del result
        return []

    def meta(self, result):
        """(label, value) lines about what was asked, after the group."""
        del result
        return []

    def evacuated(self, result):
        """Nodes the plan empties (marked in the charts)."""
        del result
        return []

    def group_label(self, number, size):
        if size == 1:           # one move runs alone: nothing in parallel
            return "jobset %d: 1 move" % number
        return "jobset %d: %d moves, run in parallel" % (number, size)

    def move_groups(self, result, moves):
        """[{label, moves}]: the moves (described) in the order they run."""
        by_index = {m["index"]: m for m in moves}
        return [{"label": self.group_label(number, len(jobset)),
                 "moves": [by_index[i] for i in jobset if i in by_index]}
                for number, jobset in enumerate(result.get("jobsets") or (), start=1)]

    def problems(self, result):
        """Lines of what does not fit, besides the warnings."""
        del result
        return []
