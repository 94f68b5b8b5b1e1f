# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every planner tells the layers around it."""

from __future__ import annotations


class Planner:
    """A planner as the module layer and the plan envelope see it.

    kind:     the plan kind ("balance", ...), part of the plan format
    module:   the module that returns its plans, for messages
    options:  names of the options a plan records (to recompute it the same way)
    needs:    third-party libraries it cannot plan without
    compute:  compute(data, opts, save_state=None) -> report, for freshly loaded
              data; the report holds `moves` and `jobsets` besides what it describes
    executes: whether the module runs the plan outside check mode; a planner
              whose plans others execute (the roller's waves) returns them only
    refuse:   refuse(report, params) -> why this plan must not be executed, or
              None (checked before the lock is taken, also for a plan given back)
    details:  report keys returned only with `details: full` (tables, per-node and
              per-instance states); the plan document then leaves them out too
    """

    def __init__(self, kind, module, options, needs, compute, executes=True, refuse=None,
                 details=()):
        self.kind = kind
        self.module = module
        self.options = tuple(options)
        self.needs = tuple(needs)
        self.compute = compute
        self.executes = executes
        self.refuse = refuse or (lambda report, params: None)
        self.details = tuple(details)
