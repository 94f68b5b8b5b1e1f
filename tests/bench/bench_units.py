# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: balancing with storage units against balancing without.

For every size N the DRBD cluster of bench.py (tests/bench/gen_drbd.py) is
planned three times, each in its own process, in the same run:

* as generated (one disk pool per node, hbal's model);
* with one storage unit per node mirroring the pool (tests/gen/units_gen.py):
  the plan must be identical;
* with two volume groups per node, every instance wanting one of them.

It prints wall times and the ratios to the run without units (the bar of
issue 12: within 1.5x).  hbal has no storage units, so it does not run here.

    python tests/bench/bench_units.py --sizes 40,160 --max-length 5

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit and the generators
sys.path.insert(0, os.path.join(ROOT, ".cache", "collections"))

from bench import steps_of, timed_ours  # noqa: E402
from gen_drbd import generate  # noqa: E402
from gen import units_gen  # noqa: E402

SHAPES = ("no units", "one unit", "two units")


def write_shapes(work, size, seed):
    """The three data files of one size (kept between runs in `work`)."""
    paths = [os.path.join(work, "units-%d-s%d-%d.data" % (size, seed, k)) for k in range(3)]
    if not all(os.path.exists(p) for p in paths):
        text = generate(size, seed)
        texts = [units_gen.dump_text(units_gen.load(text)),
                 units_gen.one_unit_per_node(units_gen.load(text)),
                 units_gen.several_units(units_gen.load(text), seed, file_units=False)]
        for path, content in zip(paths, texts):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="40,160")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=5)
    parser.add_argument("--cache", help="directory keeping the data files")
    args = parser.parse_args()
    work = args.cache or tempfile.mkdtemp(prefix="htools-bench-units-")
    os.makedirs(work, exist_ok=True)
    print("%6s | %-10s %9s %6s %8s | %s" % ("nodes", "storage", "ours s", "steps", "ratio",
                                            "plan"))
    for size in [int(x) for x in args.sizes.split(",") if x]:
        base = None
        for shape, path in zip(SHAPES, write_shapes(work, size, args.seed)):
            limit = ["-l", str(args.max_length)] if args.max_length >= 0 else []
            wall, _mb, out = timed_ours(
                [sys.executable, os.path.join(HERE, "run_ours.py"), path, "bulk"] + limit,
                path + ".ours", work, args.repeat)
            steps = steps_of(out)
            if base is None:
                base = (wall, steps)
                verdict = ""
            elif shape == "one unit":
                verdict = "identical" if steps == base[1] else "DIFFERENT"
            else:
                verdict = "(own plan)"
            print("%6d | %-10s %9.2f %6d %7.2fx | %s"
                  % (size, shape, wall, len(steps), wall / base[0], verdict))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
