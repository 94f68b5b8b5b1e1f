# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: our evacuation planner against the real hail on the same requests.

For every size N it generates a DRBD cluster (tests/bench/gen_drbd.py: 20
instances per node), writes it as an IAllocator node-evacuate request for
the most loaded node (most primaries + secondaries; mode all, every
instance on it, cluster order), then runs, in the same run, `hail FILE`, our
planner (`iallocator_result`, in a separate process: import, load, prepare,
plan) and the module (`ansible localhost -m ganeti.htools.ganeti_evacuate_group
-a data_file=FILE --check`), and checks that all three answers are identical.
"ours s" is the planner's whole process (Python start, imports, load, plan,
print); "plan s" / "plan cpu" the planning alone, wall clock and CPU time
(CPU time does not count waiting for a busy machine); "ansible s" the whole
ansible run.  The ratios are hail's time over ours and over ansible's.

    python tests/bench/bench_hail.py --sizes 40,80,160

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, TESTS)      # the kit

from gen_drbd import generate  # noqa: E402
from kit.backend_docs import model_to_ialloc  # noqa: E402
from kit.ansible_cli import ansible_env, parse_result, tool  # noqa: E402
from kit.paths import COLLECTIONS_DIR, HAIL  # noqa: E402

OURS = r"""
import json, sys, time
t0 = time.time()
sys.path.insert(0, %(coll)r)
from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import (
    answer_document, run)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.request import (
    from_ialloc)
t1 = time.time()
data, req = load_ialloc_text(open(sys.argv[1]).read())
prepare(data)
request = from_ialloc(data, req)
t2 = time.time()
c2 = time.process_time()
outcome, _b, _a = run(data, request)
t3 = time.time()
c3 = time.process_time()
sys.stdout.write(json.dumps(answer_document(data, request, outcome), separators=(",", ":")))
sys.stderr.write("%%.3f %%.3f %%.3f %%.3f\n" %% (t1 - t0, t2 - t1, t3 - t2, c3 - c2))
"""


def request_for(size, seed):
    from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
    data = load_text(generate(size, seed), source="gen_drbd")
    doc = model_to_ialloc(data, random.Random(seed), omit_up=True)
    load = {}
    for inst in data.instances:
        for idx in (inst.pnode, inst.snode):
            if idx >= 0:
                load[idx] = load.get(idx, 0) + 1
    busiest = max(sorted(load), key=lambda idx: load[idx])
    names = [i.name for i in data.instances if busiest in (i.pnode, i.snode)]
    doc["request"] = {"type": "node-evacuate", "instances": names, "evac_mode": "all"}
    return doc, data.nodes[busiest].name, len(names)


def timed(argv):
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return time.time() - start, proc


def through_ansible(path, work):
    """(seconds, iallocator_result or the failure) of the module in check mode."""
    argv = [tool("ansible", skip=False), "localhost", "-m", "ganeti.htools.ganeti_evacuate_group",
            "-a", json.dumps({"data_file": path}), "--check"]
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=work,
                          env=ansible_env())
    took = time.time() - start
    _status, result = parse_result(proc.stdout, proc.stdout + proc.stderr)
    return took, result.get("iallocator_result", result.get("msg"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="40,80,160")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", help="directory for the requests (default: a new temporary one)")
    args = parser.parse_args()
    sys.path.insert(0, COLLECTIONS_DIR)
    work = args.work or tempfile.mkdtemp(prefix="hail-bench-")
    os.makedirs(work, exist_ok=True)
    script = os.path.join(work, "ours.py")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(OURS % {"coll": COLLECTIONS_DIR})
    print("%6s %6s %-19s %5s | %9s | %9s %9s %9s | %9s | %8s %8s %s"
          % ("nodes", "insts", "node", "evac", "hail s", "ours s", "plan s", "plan cpu",
             "ansible s", "ratio", "ansible", "answers"))
    for size in [int(x) for x in args.sizes.split(",") if x]:
        path = os.path.join(work, "evac-%d-s%d.json" % (size, args.seed))
        doc, node, count = request_for(size, args.seed)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(doc, handle)
        hail_wall, proc = timed([HAIL, path])
        expected = json.loads(proc.stdout)
        ours_wall, proc = timed([sys.executable, script, path])
        if proc.returncode != 0:
            print(proc.stderr)
            continue
        plan_s, plan_cpu = [float(x) for x in proc.stderr.split()[-2:]]
        ansible_wall, module_answer = through_ansible(path, work)
        same = json.loads(proc.stdout) == expected and module_answer == expected
        print("%6d %6d %-19s %5d | %9.2f | %9.3f %9.3f %9.3f | %9.3f | %7.1fx %7.1fx %s"
              % (size, size * 20, node, count, hail_wall, ours_wall, plan_s, plan_cpu,
                 ansible_wall, hail_wall / ours_wall, hail_wall / ansible_wall,
                 "identical" if same else "DIFFERENT"))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
