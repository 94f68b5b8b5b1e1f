# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: ganeti.htools' planner against the real hbal on the same clusters.

For every size N it generates a DRBD cluster (20 instances per node, 20 % of
the nodes new and empty, tests/bench/gen_drbd.py), runs `hbal -t FILE` and our
planner as separate processes, checks that the step lists are identical and
prints wall time, peak memory and the speed ratio.  hbal needs minutes per
size from 40 nodes on, so it only runs up to --hbal-max nodes; larger sizes
run ours alone.  Its outputs can be cached (--cache DIR) between runs.

    python tests/bench/bench.py --sizes 10,20,40,80 --hbal-max 40 --ours-only 160,320
    python tests/bench/bench.py --shape symmetric --sizes 40 --max-length 5 --ours-only 1000

--shape symmetric uses tests/bench/gen_symmetric.py instead (identical nodes
and instances, 25 per loaded node, exclusion tags per service, racks): the
clusters where exactly tied candidates are the most numerous.

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit

from gen_drbd import generate  # noqa: E402
from gen_symmetric import generate as generate_symmetric  # noqa: E402
from kit.paths import HBAL  # noqa: E402
TIME = "/usr/bin/time"
STEP_RE = re.compile(r"^\s+\d+\. ")


def timed(argv, out_path, env=None):
    """Run argv, stdout to out_path; return (wall seconds, peak RSS MiB, stdout)."""
    stats = out_path + ".time"
    with open(out_path, "w", encoding="utf-8") as out:
        subprocess.run([TIME, "-f", "%e %M", "-o", stats] + argv, stdout=out, check=True,
                       env=env)
    with open(stats, encoding="utf-8") as handle:
        wall, rss = handle.read().split()[-2:]
    with open(out_path, encoding="utf-8") as handle:
        return float(wall), int(rss) / 1024.0, handle.read()


def timed_ours(argv, out_path, work, repeat):
    """Our run as an installed collection runs: byte code compiled once (an
    untimed first run), then the median of `repeat` timed runs."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(work, "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=env)
    runs = sorted((timed(argv, out_path, env) for _run in range(max(1, repeat))),
                  key=lambda run: run[0])
    return runs[len(runs) // 2]


def n_insts(data):
    """Instances in a text data file (its third section)."""
    with open(data, encoding="utf-8") as handle:
        sections = handle.read().split("\n\n")
    return len([line for line in sections[2].splitlines() if line.strip()])


def steps_of(text):
    return [line for line in text.splitlines() if STEP_RE.match(line)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="10,20,40", help="sizes run with both tools")
    parser.add_argument("--hbal-max", type=int, default=40, help="largest size run with hbal")
    parser.add_argument("--ours-only", default="80,160,320", help="sizes run with ours only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", help="directory keeping data files and hbal outputs")
    parser.add_argument("--shape", choices=("drbd", "symmetric"), default="drbd",
                        help="cluster generator (gen_drbd.py or gen_symmetric.py)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs of ours per size (the median is shown)")
    parser.add_argument("--max-length", type=int, default=-1,
                        help="steps at most (hbal -l), for both tools")
    args = parser.parse_args()
    work = args.cache or tempfile.mkdtemp(prefix="htools-bench-")
    os.makedirs(work, exist_ok=True)
    both = [int(x) for x in args.sizes.split(",") if x]
    alone = [int(x) for x in args.ours_only.split(",") if x]
    print("%6s %6s %6s | %9s %8s | %9s %8s %9s | %8s %s"
          % ("nodes", "insts", "steps", "hbal s", "hbal MB", "ours s", "ours MB", "s/step",
             "ratio", "moves"))
    for size in sorted(set(both + alone)):
        gen = generate_symmetric if args.shape == "symmetric" else generate
        data = os.path.join(work, "%s-%d-s%d.data" % (args.shape, size, args.seed))
        if not os.path.exists(data):
            with open(data, "w", encoding="utf-8") as handle:
                handle.write(gen(size, args.seed))
        limit = [] if args.max_length < 0 else ["-l", str(args.max_length)]
        ours_wall, ours_mb, ours_out = timed_ours(
            [sys.executable, os.path.join(HERE, "run_ours.py"), data, "bulk"] + limit,
            data + ".ours%s" % "".join(limit), work, args.repeat)
        ours_steps = steps_of(ours_out)
        per_step = ours_wall / max(1, len(ours_steps))
        hbal_cols, verdict = ("%9s %8s" % ("-", "-")), "(ours only)"
        ratio = "-"
        if size in both and size <= args.hbal_max:
            hbal_file = data + ".hbal%s" % "".join(limit)
            if os.path.exists(hbal_file + ".time"):
                with open(hbal_file + ".time", encoding="utf-8") as handle:
                    wall, rss = handle.read().split()[-2:]
                hbal_wall, hbal_mb = float(wall), int(rss) / 1024.0
                with open(hbal_file, encoding="utf-8") as handle:
                    hbal_out = handle.read()
            else:
                hbal_wall, hbal_mb, hbal_out = timed([HBAL, "-t", data] + limit, hbal_file)
            identical = steps_of(hbal_out) == ours_steps
            verdict = "identical" if identical else "DIFFERENT"
            hbal_cols = "%9.2f %8.1f" % (hbal_wall, hbal_mb)
            ratio = "%7.1fx" % (hbal_wall / ours_wall)
        print("%6d %6d %6d | %s | %9.2f %8.1f %9.3f | %8s %s"
              % (size, n_insts(data), len(ours_steps), hbal_cols, ours_wall, ours_mb, per_step,
                 ratio, verdict))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
