# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The budgets of a cost-aware balance: disk data and estimated duration.

`max_data_moved` (GiB) caps the disk data the plan copies, and
`max_estimated_duration` (seconds) the plan's estimated duration, as its
`cost` reports it (plan/cost.py): its jobsets one after the other, each as
long as its slowest move.  A step is taken only if the plan with it fits
every budget set.

A step's duration is what it adds to the plan's: a move that runs beside a
slower one in its jobset adds nothing.  The plan's jobsets are grouped from
its last move backwards, as hbal groups them, so a new last move can regroup
earlier ones: each candidate is priced on the whole plan with it.

The search rates a candidate by gain per price (cost_search.py): GiB copied
with only a data budget (or `cost_aware` alone), seconds added with only a
duration budget, and with both the sum of the shares of each budget the
move takes - a move is as dear as it makes the plan run out of either.
"""

from __future__ import annotations

import copy

from ...plan.cost import MIB_PER_GIB, duration_text, jobset_seconds, move_cost, rates_of
from ..jobs import jobsets, step_opcodes
from .cost_search import MOVE_OVERHEAD_MIB, data_copied
from .steps import step_of

DATA_BUDGET = "max_data_moved"
DURATION_BUDGET = "max_estimated_duration"


def step_cost(step, inst, nodes, rates):
    """(opcodes, move_cost fields) of a step: the plan's cost and the budgets
    read the same figures."""
    opcodes = step_opcodes(step, inst, nodes)
    return opcodes, move_cost(opcodes, inst.mem if inst.is_running else 0, inst.dsk, rates)


class Budgets:
    """What a balance may spend, what its steps spent, and what a candidate would."""

    def __init__(self, opts):
        data, duration = opts.max_data_moved, opts.max_estimated_duration
        self.data_budget, self.duration_budget = data, duration       # as the options say
        self.max_mib = None if data is None else data * MIB_PER_GIB
        self.max_seconds = None if duration is None else float(duration)
        self.enforced = True            # False: price moves, take any (see unlimited)
        self.rates = rates_of(opts.as_dict())
        self.copied_mib = 0
        self.steps = []                 # the plan so far
        self.move_seconds = []          # each step's estimated seconds
        self.seconds = 0.0              # the plan's estimated seconds

    @property
    def limited(self):
        """Whether a budget is set."""
        return self.max_mib is not None or self.max_seconds is not None

    def unlimited(self):
        """The same prices without limits: the move the search would take next
        if the budgets were larger (which budget bound the plan)."""
        free = copy.copy(self)
        free.enforced = False
        return free

    def left_mib(self):
        """MiB of disk data the data budget has left; None without a limit."""
        if self.max_mib is None or not self.enforced:
            return None
        return self.max_mib - self.copied_mib

    def seconds_with(self, state, cand):
        """(the candidate's estimated seconds, the plan's estimated seconds with it)."""
        step = step_of(state.instances, cand)
        _opcodes, cost = step_cost(step, state.instances[cand.inst], state.nodes, self.rates)
        seconds = self.move_seconds + [cost["estimated_seconds"]]
        sets = jobsets(self.steps + [step], state.instances)
        return seconds[-1], round(sum(jobset_seconds(seconds, sets)), 1)

    def _plan_seconds(self, state, cand):
        """The plan's estimated seconds with the candidate; None without a
        duration budget (nothing reads it then)."""
        return None if self.max_seconds is None else self.seconds_with(state, cand)[1]

    def overruns(self, state, cand, plan_seconds=None):
        """The budgets (option names) the plan with the candidate would overrun
        (`plan_seconds`: _plan_seconds, when known already)."""
        over = []
        if self.max_mib is not None and \
                self.copied_mib + data_copied(state, cand) > self.max_mib:
            over.append(DATA_BUDGET)
        if self.max_seconds is not None:
            if plan_seconds is None:
                plan_seconds = self._plan_seconds(state, cand)
            if plan_seconds > self.max_seconds:
                over.append(DURATION_BUDGET)
        return over

    def fits(self, state, cand):
        return not self.enforced or not self.overruns(state, cand)

    def rate(self, state, cand, gain):
        """The candidate's gain per price (its rating), or None when it would
        overrun a budget; the plan's duration with it is worked out once."""
        plan_seconds = self._plan_seconds(state, cand)
        if self.enforced and self.overruns(state, cand, plan_seconds):
            return None
        return gain / self._price(state, cand, plan_seconds)

    def _price(self, state, cand, plan_seconds):
        """What the candidate costs, for its rating (gain / price)."""
        data = data_copied(state, cand) + MOVE_OVERHEAD_MIB
        if self.max_seconds is None:
            return data
        # the 1 GiB every move stands for, as time at the disk copy rate
        added = max(plan_seconds - self.seconds, 0.0)
        seconds = added + MOVE_OVERHEAD_MIB / self.rates[0]
        if self.max_mib is None:
            return seconds
        return data / max(self.max_mib, 1.0) + seconds / max(self.max_seconds, 1.0)

    def spend(self, state, cand):
        """Account for the candidate taken as the plan's next step."""
        self.copied_mib += data_copied(state, cand)
        if self.max_seconds is not None:
            move, self.seconds = self.seconds_with(state, cand)
            self.move_seconds.append(move)
            self.steps.append(step_of(state.instances, cand))

    def spent_text(self):
        """What the plan spent of its budgets, for the stop reason."""
        parts = []
        if self.max_seconds is not None:
            parts.append("about %s of the %s estimated-duration budget" % (
                duration_text(self.seconds), duration_text(self.duration_budget)))
        if self.max_mib is not None:
            parts.append("%.1f of the %s GiB data budget copied" % (
                self.copied_mib / MIB_PER_GIB, self.data_budget))
        return "; ".join(parts)
