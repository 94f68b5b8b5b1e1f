# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hbal's algorithm options, declared once: name, type, default, valid range.

The balancer reads its defaults from here, the module argument spec is built
from here, and a unit test holds the doc fragment `balance_options` to it.
"""

from __future__ import annotations

from ...options import Option, defaults
from ...plan.cost import COST_OPTIONS


# Options of the search itself (hbal -l -e -g --min-gain-limit ...).
SEARCH_OPTIONS = (
    Option("max_length", "int", -1, minimum=-1),
    Option("min_score", "float", 1e-9, minimum=0),
    Option("min_gain", "float", 0.01, minimum=0),
    Option("min_gain_limit", "float", 0.1, minimum=0),
    Option("no_disk_moves", "bool", False),
    # Ganeti >= 3.1's factor; None keeps 3.0.2's plans.
    Option("avoid_disk_moves", "float", minimum=0),
    Option("no_instance_moves", "bool", False),
    Option("ignore_soft_errors", "bool", False),
    Option("evac_mode", "bool", False),
    Option("restricted_migration", "bool", False),
)

# Options of ganeti_balance's cost-aware search (cost_search.py): not hbal's.
BUDGET_OPTIONS = (
    Option("cost_aware", "bool", False),
    Option("max_data_moved", "float", minimum=0),
    # A planning budget, apart from the execution deadline max_duration: only
    # an operator who sets it gets a cost-aware plan (see the module's docs).
    Option("max_estimated_duration", "int", minimum=0),
)

# The budgets among them: each makes the search cost-aware.
BUDGET_NAMES = tuple(o.name for o in BUDGET_OPTIONS if o.name != "cost_aware")

# Options applied while preparing the cluster model, before the search.
MODEL_OPTIONS = (
    Option("select_instances", "list", (), elements="str"),
    Option("exclude_instances", "list", (), elements="str"),
    Option("max_cpu", "float", above=0),
    Option("min_disk", "float", 0.0, minimum=0, maximum=1),
)

ALGORITHM_OPTIONS = SEARCH_OPTIONS + MODEL_OPTIONS


# Everything BalanceOptions takes: the search, its budgets and the rates a
# duration budget prices moves at.
BALANCE_OPTIONS = SEARCH_OPTIONS + BUDGET_OPTIONS + COST_OPTIONS


class BalanceOptions:
    """The search options (SEARCH_OPTIONS, hbal's defaults) and the flags the search reads."""

    def __init__(self, **values):
        unknown = sorted(set(values) - {o.name for o in BALANCE_OPTIONS})
        if unknown:
            raise TypeError("unknown balance option(s): %s" % ", ".join(unknown))
        self._values = dict(defaults(BALANCE_OPTIONS), **values)
        for name, value in self._values.items():
            setattr(self, name, value)
        self.disk_moves = not self.no_disk_moves
        self.inst_moves = not self.no_instance_moves
        self.force = self.ignore_soft_errors
        self.victim_disk_limit = None       # set by the cost-aware search's rounds
        self.disks_copied = set()           # instances whose disks a step copied

    @property
    def cost_guided(self):
        """Whether the cost-aware search chooses the moves (cost_search.py)."""
        return self.cost_aware or any(getattr(self, name) is not None
                                      for name in BUDGET_NAMES)

    def as_dict(self):
        return dict(self._values)
