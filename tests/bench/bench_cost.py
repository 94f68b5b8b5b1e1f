# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: score gained against disk data copied, hbal's plan against the
cost-aware one (ganeti_balance cost_aware / max_data_moved).

For every size N a DRBD cluster is generated (tests/bench/gen_drbd.py: 20
instances per node, 20 % of the nodes new and empty) and planned three ways
in the same run:

* hbal's plan (our default search, identical to hbal's step list: the
  balance parity suites prove it; --hbal runs the real hbal too and checks
  the step lines are the same);
* the cost-aware plan (gain per GiB copied), run to the end;
* the cost-aware plan with a budget of --budget percent of hbal's data.

Printed: each plan's moves, data copied and share of hbal's gain, then the
table "data budget -> gain" for 10 % ... 90 % of hbal's data: the gain of
hbal's prefix within that data and of the cost-aware plan's prefix.

With --durations, also the table "duration budget -> gain" for 10 % ... 90 %
of the estimated seconds of hbal's plan: hbal's plan run until that deadline
(max_duration: its jobsets in order while they fit) against a plan made for
that budget (max_estimated_duration), one planning run per budget.

    python tests/bench/bench_cost.py --sizes 40,80 [--durations]

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), ".cache", "collections"))

from gen_drbd import generate  # noqa: E402
from kit.paths import HBAL  # noqa: E402
from kit.plans import gain_by_deadline, plan_balance  # noqa: E402
from ansible_collections.ganeti.htools.plugins.module_utils.plan.cost import gain_curve  # noqa: E402

FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def curve(plan):
    """[(MiB copied so far, score)] before the plan and after each move."""
    return gain_curve(plan["initial_score"], plan["moves"])


def gain_within(points, initial, budget):
    return max(initial - score for data, score in points if data <= budget)


def timed_plan(path, **opts):
    started = time.perf_counter()
    plan = plan_balance(path, **opts)
    return plan, time.perf_counter() - started


def check_hbal(path, plan):
    proc = subprocess.run([HBAL, "-t", path], capture_output=True, text=True, check=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("    ") and ". " in line]
    same = lines == plan["step_lines"]
    print("  hbal's own step lines %s ours" % ("equal" if same else "DIFFER from"))
    return same


def duration_table(path, hbal):
    """The table "duration budget -> gain": hbal's plan cut at the deadline
    against a plan for that many estimated seconds."""
    total, gain = hbal["cost"]["estimated_seconds"], hbal["initial_score"] - hbal["final_score"]
    print("  duration budget -> share of hbal's gain:  hbal's plan until the deadline | "
          "planned for the budget (moves, estimated, planning s)")
    for fraction in FRACTIONS:
        budget = int(fraction * total)
        ours, seconds = timed_plan(path, max_estimated_duration=budget)
        print("    %3d %% (%7d s, %6.1f h)   %5.1f %%  |  %5.1f %%  (%3d moves, %7.0f s, %.1f s)" % (
            100 * fraction, budget, budget / 3600.0, 100.0 * gain_by_deadline(hbal, budget) / gain,
            100.0 * (ours["initial_score"] - ours["final_score"]) / gain, len(ours["moves"]),
            ours["cost"]["estimated_seconds"], seconds))


def run_size(nodes, seed, budget_pct, work, with_hbal, durations=False):
    path = os.path.join(work, "drbd-%d.data" % nodes)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(generate(nodes, seed))
    hbal, hbal_s = timed_plan(path)
    if with_hbal:
        check_hbal(path, hbal)
    ours, ours_s = timed_plan(path, cost_aware=True)
    hc, oc = curve(hbal), curve(ours)
    data, gain = hc[-1][0], hbal["initial_score"] - hbal["final_score"]
    budget = budget_pct / 100.0 * data / 1024.0
    capped, capped_s = timed_plan(path, max_data_moved=budget)
    print("%d nodes, %d instances (seed %d)" % (nodes, nodes * 20, seed))
    for label, plan, seconds in (("hbal's plan", hbal, hbal_s), ("cost-aware", ours, ours_s),
                                 ("cost-aware, %d %% budget" % budget_pct, capped, capped_s)):
        copied = curve(plan)[-1][0]
        print("  %-26s %4d moves  %7.2f TiB copied (%5.1f %% of hbal's)  gain %5.1f %% of "
              "hbal's  (%.1f s)" % (label, len(plan["moves"]), copied / 2.0 ** 20,
                                    100.0 * copied / data,
                                    100.0 * (plan["initial_score"] - plan["final_score"]) / gain,
                                    seconds))
    print("  data budget -> share of hbal's gain:  hbal's prefix | cost-aware prefix")
    better = True
    for fraction in FRACTIONS:
        ours_gain = gain_within(oc, ours["initial_score"], fraction * data)
        hbal_gain = gain_within(hc, hbal["initial_score"], fraction * data)
        better = better and ours_gain > hbal_gain
        print("    %3d %% (%6.2f TiB)   %5.1f %%  |  %5.1f %%" % (
            100 * fraction, fraction * data / 2.0 ** 20, 100.0 * hbal_gain / gain,
            100.0 * ours_gain / gain))
    full = (ours["initial_score"] - ours["final_score"]) / gain
    print("  bar: >= 95 %% of hbal's gain with <= 60 %% of its data: %s; more gain than hbal's "
          "prefix at every budget: %s" % (
              "met" if full >= 0.95 and oc[-1][0] <= 0.6 * data else "NOT met",
              "met" if better else "NOT met"))
    if durations:
        duration_table(path, hbal)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="40,80")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=60, help="percent of hbal's data")
    parser.add_argument("--hbal", action="store_true", help="also run the real hbal")
    parser.add_argument("--durations", action="store_true",
                        help="also the table duration budget -> gain")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            run_size(size, args.seed, args.budget, work, args.hbal, args.durations)


if __name__ == "__main__":
    main()
