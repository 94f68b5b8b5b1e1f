# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: ganeti_rolling_reboot against the real hroller on the same clusters.

For every size N it generates a DRBD cluster (20 instances per node, 20 % of
the nodes empty, tests/bench/gen_drbd.py) and times, as separate processes
in the same run:

* ``hroller --print-moves -t FILE`` (sizes in --sizes only);
* the module through the ansible CLI, ``ansible localhost -m
  ganeti.htools.ganeti_rolling_reboot -a data_file=FILE`` (the whole process:
  ansible start-up, loading, planning, plan document, result);
* the planner alone in a plain Python process (load + plan).

The module's `report` must equal hroller's stdout, line for line.  Wall and
CPU (user+sys) seconds are printed, and the hroller/ours ratios of both.
The machine may be shared: CPU seconds are the steadier figure, and
--repeat N keeps the best of N runs of ours (hroller, at minutes a run, runs
once).

    python tests/bench/bench_roller.py --sizes 40,80,160,320 --ours-only 1000

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit

from gen_drbd import generate  # noqa: E402
from kit.ansible_cli import ansible_env, parse_result, tool  # noqa: E402
from kit.paths import COLLECTIONS_DIR, HROLLER  # noqa: E402

TIME = "/usr/bin/time"
MODULE = "ganeti.htools.ganeti_rolling_reboot"
PLANNER = """
import sys
sys.path.insert(0, %r)
sys.path.insert(0, %r)
from kit.plans import plan_rolling_reboot
print("\\n".join(plan_rolling_reboot(sys.argv[1])["report"]))
""" % (COLLECTIONS_DIR, os.path.dirname(HERE))


def timed(argv, out_path, env=None, cwd=None):
    """Run argv, stdout to out_path; return (wall s, cpu s, peak RSS MiB, stdout)."""
    stats = out_path + ".time"
    with open(out_path, "w", encoding="utf-8") as out:
        subprocess.run([TIME, "-f", "%e %U %S %M", "-o", stats] + argv, stdout=out, check=True,
                       env=env, cwd=cwd)
    with open(stats, encoding="utf-8") as handle:
        wall, user, system, rss = handle.read().split()[-4:]
    with open(out_path, encoding="utf-8") as handle:
        return float(wall), float(user) + float(system), int(rss) / 1024.0, handle.read()


def run_module(data, work):
    wall, cpu, rss, out = timed([tool("ansible", skip=False), "localhost", "-m", MODULE,
                                 "-a", "data_file=%s" % data], data + ".ansible",
                                env=ansible_env(), cwd=work)
    status, result = parse_result(out, out)
    if status != "SUCCESS":
        raise SystemExit("the module failed on %s: %s" % (data, json.dumps(result)[:500]))
    return wall, cpu, rss, result["report"]


def best_of(repeat, run):
    """The run with the least wall time of `repeat` (its full return value)."""
    return min((run() for _unused in range(max(1, repeat))), key=lambda r: r[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="40,80,160,320", help="sizes run with both tools")
    parser.add_argument("--ours-only", default="1000", help="sizes run with ours only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", help="directory keeping the data files")
    parser.add_argument("--repeat", type=int, default=1, help="runs of ours, the best kept")
    args = parser.parse_args()
    work = args.cache or tempfile.mkdtemp(prefix="htools-bench-roller-")
    os.makedirs(work, exist_ok=True)
    both = [int(x) for x in args.sizes.split(",") if x]
    alone = [int(x) for x in args.ours_only.split(",") if x]
    print("%6s %6s %6s | %16s | %16s | %16s | %15s %s"
          % ("nodes", "insts", "groups", "hroller wall/cpu", "ansible wall/cpu",
             "planner wall/cpu", "ratio wall/cpu", "report"))
    for size in sorted(set(both + alone)):
        data = os.path.join(work, "drbd-%d-s%d.data" % (size, args.seed))
        if not os.path.exists(data):
            with open(data, "w", encoding="utf-8") as handle:
                handle.write(generate(size, args.seed))
        m_wall, m_cpu, _rss, report = best_of(args.repeat, lambda d=data: run_module(d, work))
        p_wall, p_cpu, _rss, p_out = best_of(args.repeat, lambda d=data: timed(
            [sys.executable, "-c", PLANNER, d], d + ".planner"))
        assert p_out.splitlines() == report
        hroller_cols, ratio, verdict = "%16s" % "-", "%15s" % "-", "(ours only)"
        if size in both:
            h_wall, h_cpu, _rss, h_out = timed([HROLLER, "--print-moves", "-t", data],
                                               data + ".hroller")
            verdict = "identical" if h_out.splitlines() == report else "DIFFERENT"
            hroller_cols = "%7.2f / %6.2f" % (h_wall, h_cpu)
            ratio = "%6.1fx / %5.1fx" % (h_wall / m_wall, h_cpu / m_cpu)
        groups = sum(1 for line in report[1:] if not line.startswith("  "))
        print("%6d %6d %6d | %s | %7.2f / %6.2f | %7.2f / %6.2f | %s %s"
              % (size, size * 20, groups, hroller_cols, m_wall, m_cpu, p_wall, p_cpu, ratio,
                 verdict))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
