# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The approval workflow's rules: only a reviewed plan runs, exactly as reviewed.

Checked before anything is read or computed.  `given` is the set of option
names the task (or module_defaults) passed, whatever their value: Ansible
fills every option it was not given with None or its default, so only the
raw arguments tell an explicit `plan: null` (an unset variable) from a plan
left out (`default(omit)`).
"""

from __future__ import annotations

from ..errors import HtoolsError

# What a plan given back cannot carry out: it is written while planning.
_FRESH_PLAN_ONLY = ("save_state",)


def plan_request_problem(planner, params, given, check_mode):
    """Why the plan options of this run would let an unreviewed plan run, or None."""
    plan = params.get("plan")
    if "plan" in given and not plan:
        return ("plan is given but empty (%r): only a reviewed plan is executed, and an empty "
                "value (an unset variable, `default({})`) is no plan. Nothing was computed or "
                "executed. Pass the plan a check-mode run returned, or leave plan out "
                "(`default(omit)`) to compute one" % (plan,))
    key = params.get("plan_signing_key")
    if key and params.get("replan_on_drift"):
        return ("replan_on_drift cannot be used with plan_signing_key: a plan recomputed at "
                "execution time was never reviewed, and its signature would be this run's "
                "own. Nothing was computed or executed")
    if key and not plan and planner.executes and not check_mode:
        return ("plan_signing_key is set, so only a signed plan given back as plan is "
                "executed: compute it in check mode, review it, then pass it as plan. Nothing "
                "was computed or executed")
    if plan:
        return _ignored_options(planner, params, given, plan)
    return None


def _ignored_options(planner, params, given, plan):
    """The planning options given beside a plan that would change nothing."""
    recorded = plan.get("options") if isinstance(plan.get("options"), dict) else {}
    differing = ["%s (%r here, %r in the plan)" % (name, params.get(name), recorded.get(name))
                 for name in planner.options
                 if name in given and params.get(name) != recorded.get(name)]
    differing += [name for name in _FRESH_PLAN_ONLY
                  if name in given and params.get(name) is not None]
    if not differing:
        return None
    return ("plan is given, so it runs with the options it was computed with, and these "
            "would be ignored: %s. Leave them out (or equal to the plan's), or compute a new "
            "plan with them. Nothing was computed or executed" % ", ".join(differing))


def check_plan_cluster(plan, cluster):
    """Refuse a plan computed on another cluster (also with replan_on_drift)."""
    planned = plan.get("cluster")
    if planned and cluster and planned != cluster:
        raise HtoolsError("the plan was computed on cluster %s, and this is cluster %s; "
                          "nothing was executed" % (planned, cluster))
