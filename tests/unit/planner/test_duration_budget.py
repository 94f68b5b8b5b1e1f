# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The estimated-duration budget (max_estimated_duration, planner/balance/budgets.py):
a plan's estimated seconds never overrun it, a larger budget buys no less,
without it the plans are unchanged, and with the data budget a step fits both."""

from __future__ import annotations

import pytest

from kit.plans import gain_by_deadline, plan_balance

from ansible_collections.ganeti.htools.plugins.module_utils.report.html import render_plan_html

DATA, DURATION = "max_data_moved", "max_estimated_duration"


def _gain(plan):
    return plan["initial_score"] - plan["final_score"]


def _seconds_budget(hbal, share):
    """`share` of the estimated seconds of hbal's plan, in whole seconds."""
    return int(share * hbal["cost"]["estimated_seconds"])


def _timeless(plan):
    """The plan without its wall-clock timings (step_seconds)."""
    return {k: v for k, v in plan.items() if k != "step_seconds"}


@pytest.mark.parametrize("share", [0.0, 0.05, 0.2])
def test_the_plans_estimated_seconds_fit_the_budget(cost_cluster, share):
    path, hbal, _ours = cost_cluster
    budget = _seconds_budget(hbal, share)
    capped = plan_balance(path, max_estimated_duration=budget)
    assert capped["cost"]["estimated_seconds"] <= budget
    assert sum(capped["cost"]["jobset_seconds"]) <= budget + 0.05 * len(capped["jobsets"])
    if share:
        assert capped["moves"] and _gain(capped) > 0
    assert capped["budget_bound"] == [DURATION]
    assert "estimated-duration budget" in capped["stop_reason"] or not capped["moves"]
    assert "bound by %s" % DURATION in capped["stop_reason"]


def test_a_larger_budget_never_buys_less(cost_cluster):
    path, hbal, _ours = cost_cluster
    gains = [_gain(plan_balance(path, max_estimated_duration=_seconds_budget(hbal, share)))
             for share in (0.02, 0.05, 0.1, 0.2, 0.4)]
    assert gains == sorted(gains) and gains[0] < gains[-1]


def test_a_budget_buys_more_than_running_hbals_plan_until_the_deadline(cost_cluster):
    """hbal's plan cut by the execution deadline (max_duration: its jobsets in
    order, as long as they fit) against a plan made for the same seconds."""
    path, hbal, _ours = cost_cluster
    budget = _seconds_budget(hbal, 0.2)
    planned = plan_balance(path, max_estimated_duration=budget)
    assert _gain(planned) > gain_by_deadline(hbal, budget) > 0


def test_without_the_budget_the_plans_are_unchanged(cost_cluster):
    path, hbal, ours = cost_cluster
    assert _timeless(plan_balance(path, max_estimated_duration=None)) == _timeless(hbal)
    assert _timeless(plan_balance(path, cost_aware=True, max_estimated_duration=None)) == \
        _timeless(ours)
    assert hbal["budget_bound"] == [] and ours["budget_bound"] == []


def test_a_budget_larger_than_the_plan_binds_nothing(drbd_12):
    ours = plan_balance(drbd_12, cost_aware=True)
    roomy = plan_balance(drbd_12, max_estimated_duration=int(ours["cost"]["estimated_seconds"]) * 4)
    assert roomy["budget_bound"] == []
    assert "bound by" not in roomy["stop_reason"]
    assert _gain(roomy) >= 0.99 * _gain(ours)


@pytest.mark.parametrize("data_share, seconds_share, bound", [
    (0.05, 1.0, [DATA]),
    (1.0, 0.03, [DURATION]),
    (0.1, 0.1, None),
])
def test_both_budgets_a_step_fits_both(cost_cluster, data_share, seconds_share, bound):
    path, hbal, _ours = cost_cluster
    data_gib = data_share * hbal["cost"]["data_copied_mib"] / 1024.0
    seconds = _seconds_budget(hbal, seconds_share)
    both = plan_balance(path, max_data_moved=data_gib, max_estimated_duration=seconds)
    assert both["moves"]
    assert both["cost"]["data_copied_mib"] <= data_gib * 1024.0
    assert both["cost"]["estimated_seconds"] <= seconds
    assert both["budget_bound"] and set(both["budget_bound"]) <= {DATA, DURATION}
    if bound is not None:
        assert both["budget_bound"] == bound
    assert "GiB data budget copied" in both["stop_reason"]
    assert "estimated-duration budget" in both["stop_reason"]


def test_the_summary_and_the_page_say_which_budget_bound_the_plan(drbd_12):
    hbal = plan_balance(drbd_12)
    capped = plan_balance(drbd_12, max_estimated_duration=_seconds_budget(hbal, 0.05))
    said = "bound by %s" % DURATION
    assert said in capped["summary"]
    assert said in render_plan_html(capped)
