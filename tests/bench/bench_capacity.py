# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: ganeti_capacity against the real hspace on the same clusters.

For every size N it generates a DRBD cluster (20 instances per node, 20 % of
the nodes empty, tests/bench/gen_drbd.py) and times, as separate processes
in the same run:

* ``hspace --machine-readable -t FILE``;
* the module through the ansible CLI, ``ansible localhost -m
  ganeti.htools.ganeti_capacity -a data_file=FILE`` (the whole process; on
  this local connection the module runs in Ansible's own process, as it
  does for users running it so), ``--repeat`` times (default 3): its run is
  short, so a shared machine's noise moves it more than hspace's; the
  median run is compared, and the fastest and slowest are printed beside it;
* ``ansible localhost -m ping`` as often, each run just before the module's:
  Ansible's own start, payload and result handling.  Its median is printed,
  with hspace's time over it: the ratio a module sent as a payload that
  planned in no time at all would reach on this machine now.

The module's `machine_readable` must equal hspace's keys and values.  Wall
and CPU (user+sys) seconds are printed, and the hspace/ours ratios.

    python tests/bench/bench_capacity.py --sizes 40,80,160

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit

from bench_roller import timed  # noqa: E402
from gen_drbd import generate  # noqa: E402
from kit.ansible_cli import ansible_env, parse_result, tool  # noqa: E402
from kit.paths import HSPACE  # noqa: E402

MODULE = "ganeti.htools.ganeti_capacity"


def run_module(data, work):
    wall, cpu, _rss, out = timed([tool("ansible", skip=False), "localhost", "-m", MODULE,
                                  "-a", "data_file=%s" % data], data + ".ansible",
                                 env=ansible_env(), cwd=work)
    status, result = parse_result(out, out)
    if status != "SUCCESS":
        raise SystemExit("the module failed on %s: %s" % (data, json.dumps(result)[:500]))
    return wall, cpu, result["machine_readable"]


def run_ping(work):
    wall, _cpu, _rss, out = timed([tool("ansible", skip=False), "localhost", "-m", "ping"],
                                  os.path.join(work, "ping.ansible"), env=ansible_env(), cwd=work)
    if parse_result(out, out)[0] != "SUCCESS":
        raise SystemExit("ansible -m ping failed: %s" % out[:500])
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="40,80,160")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", help="directory keeping the data files")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the module per size")
    args = parser.parse_args()
    work = args.cache or tempfile.mkdtemp(prefix="htools-bench-capacity-")
    os.makedirs(work, exist_ok=True)
    print("%6s %6s | %16s | %16s | %15s | %13s | %14s %s"
          % ("nodes", "insts", "hspace wall/cpu", "ansible wall/cpu", "ratio wall/cpu",
             "ansible runs", "ping / ceiling", "keys"))
    for size in [int(x) for x in args.sizes.split(",") if x]:
        data = os.path.join(work, "drbd-%d-s%d.data" % (size, args.seed))
        if not os.path.exists(data):
            with open(data, "w", encoding="utf-8") as handle:
                handle.write(generate(size, args.seed))
        runs, pings = [], []
        for _run in range(max(1, args.repeat)):
            pings.append(run_ping(work))
            runs.append(run_module(data, work))
        runs.sort(key=lambda run: run[0])
        ping = sorted(pings)[len(pings) // 2]
        m_wall, m_cpu, ours = runs[len(runs) // 2]
        keys_agree = all(run[2] == ours for run in runs)
        h_wall, h_cpu, _rss, h_out = timed([HSPACE, "--machine-readable", "-t", data],
                                           data + ".hspace")
        theirs = dict(line.replace("'", "").split("=", 1) for line in h_out.splitlines())
        verdict = "identical" if theirs == ours and keys_agree else "DIFFERENT"
        print("%6d %6d | %7.2f / %6.2f | %7.2f / %6.2f | %6.1fx / %5.1fx | %5.2f-%5.2f s | "
              "%4.2f s %6.1fx %s"
              % (size, size * 20, h_wall, h_cpu, m_wall, m_cpu, h_wall / m_wall, h_cpu / m_cpu,
                 runs[0][0], runs[-1][0], ping, h_wall / ping, verdict))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
