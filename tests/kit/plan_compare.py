# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Our balancing plan vs one ``hbal ... -C`` run (oracle.hbal_balance.BalanceRun)."""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import hs_fixed

from oracle.hbal_balance import first_difference


def plan_differences(hb, res):
    """What differs between hbal's run and our plan report (empty: nothing).

    Compared: the initial score as printed, every step line, the end
    message and the ``-C`` listing.
    """
    problems = []
    ini = hs_fixed(res["initial_score"], 8)
    if ini != hb.initial_score_text:
        problems.append("initial score: ours %s, hbal %s" % (ini, hb.initial_score_text))
    for what, ours, theirs in (("step", res["step_lines"], hb.step_lines),
                               ("command line", res["commands"], hb.commands)):
        diff = first_difference(ours, theirs, what)
        if diff:
            problems.append(diff)
    if res["stop_reason"] != hb.end_message:
        problems.append("end message: ours %r, hbal %r" % (res["stop_reason"], hb.end_message))
    return problems
