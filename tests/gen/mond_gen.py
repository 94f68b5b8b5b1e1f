"""Seeded random MonD report files (``hbal --mond-data``) for generated clusters.

Companion of ``cluster_gen.py`` / ``balance_options.py``: for a seed and its
cluster, :func:`generate` writes what the nodes' monitoring daemons could
have answered, as the JSON list hbal reads: ``[{"node": NAME, "reports":
[REPORT, ...]}, ...]``.

What a file may hold (each drawn per seed, see ``FEATURES``):

* ``cpu-avg-load`` reports with random per-CPU loads and totals (zero,
  fractional, integral JSON numbers, large values);
* with ``--mond-xen``, ``xen-cpu-avg-load`` reports mapping instance names to
  CPU usage (each instance listed by its primary node, some by several);
* other collectors' reports before the one hbal reads, a second report of the
  same collector (the first counts), entries for nodes the cluster does not
  have, a node listed twice (the later entry counts);
* held back data: a node without an entry, a node without the collector's
  report, a report whose ``data`` is unusable, an instance without a value:
  then hbal ignores the collector's data (or, with
  ``--exit-on-missing-mond-data``, stops).

Public API::

    generate(seed, case_data) -> MondCase   # .text, .argv, .options, .features
    FEATURES

Command line: ``python tests/gen/mond_gen.py --seed N --out DIR`` writes the
cluster (as ``balance_options.py`` does), ``DIR/mondN.json``, and prints the
hbal command.  Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
from dataclasses import dataclass

if __name__ == "__main__":      # run as a script: tests/ holds the kit and this package
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FEATURES = ("xen", "exit-on-missing", "missing-node", "missing-report", "bad-data",
            "missing-instance", "other-collectors", "duplicate-report", "duplicate-node",
            "unknown-node", "integral-loads", "zero-loads", "complete")

_OTHER = (("diskstats", "storage"), ("lv", "storage"), ("drbd", "storage"),
          ("inst-status-xen", "hypervisor"))


@dataclass(frozen=True)
class MondCase:
    text: str              # the --mond-data file
    argv: tuple            # hbal's MonD options (without --mond-data FILE)
    options: dict          # the module's options: mond_xen, exit_on_missing_mond_data
    features: frozenset


def _names(case_data):
    """(node names, [(instance name, primary node)]) of a text-format cluster."""
    sections = [[]]
    for line in case_data.split("\n"):        # sections end at an empty line
        if line:
            sections[-1].append(line.split("|"))
        else:
            sections.append([])
    sections += [[], [], []]
    return [f[0] for f in sections[1]], [(f[0], f[6]) for f in sections[2]]


def _load(rng, feats, top):
    r = rng.random()
    if r < 0.08:
        feats.add("zero-loads")
        return 0
    if r < 0.2:
        feats.add("integral-loads")
        return rng.randint(0, int(top) + 1)
    if r < 0.25:
        return rng.uniform(top, 50 * top)
    return rng.uniform(0, top)


def _report(name, category, data, rng):
    report = {"name": name, "version": "B", "format_version": 1,
              "timestamp": rng.randint(1, 2 ** 62), "category": category,
              "kind": 0, "data": data}
    if category is None and rng.random() < 0.3:
        del report["category"]      # optional in a report
    return report


def _cpu_report(rng, feats):
    cpus = rng.choice((1, 2, 4, 8, 16, 48))
    loads = [_load(rng, feats, 1.0) for _c in range(cpus)]
    total = sum(loads) if rng.random() < 0.7 else _load(rng, feats, cpus)
    return _report("cpu-avg-load", None, {"cpu_number": cpus, "cpus": loads,
                                          "cpu_total": total}, rng)


def generate(seed, case_data):
    """The MonD file of seed ``seed`` for the cluster text ``case_data``."""
    rng = random.Random("mond-%d" % int(seed))
    nodes, insts = _names(case_data)
    feats = set()
    xen = rng.random() < 0.2
    collector = "xen-cpu-avg-load" if xen else "cpu-avg-load"
    usage = {name: _load(rng, feats, 4.0) for name, _p in insts}
    by_node = {n: [] for n in nodes}
    for name, pnode in insts:
        by_node.setdefault(pnode, []).append(name)

    entries = []
    for node in nodes:
        if xen:
            mine = {name: usage[name] for name in by_node.get(node, ())}
            if insts and rng.random() < 0.1:      # listed by another node too
                name = rng.choice(insts)[0]
                mine.setdefault(name, _load(rng, feats, 4.0))
            main = _report(collector, None, mine, rng)
        else:
            main = _cpu_report(rng, feats)
        reports = [main]
        if rng.random() < 0.2:
            feats.add("other-collectors")
            for name, category in rng.sample(_OTHER, rng.randint(1, 2)):
                reports.insert(0, _report(name, category, {"value": rng.random()}, rng))
        if rng.random() < 0.08:
            feats.add("duplicate-report")
            reports.append(_cpu_report(rng, feats) if not xen else
                           _report(collector, None, {}, rng))
        entries.append({"node": node, "reports": reports})

    # hold something back (the case the collector's data is ignored)
    if rng.random() < 0.35 and entries:
        kind = rng.choice(("missing-node", "missing-report", "bad-data")
                          + (("missing-instance",) if xen and insts else ()))
        feats.add(kind)
        victim = rng.randrange(len(entries))
        if kind == "missing-node":
            del entries[victim]
        elif kind == "missing-report":
            entries[victim]["reports"] = [r for r in entries[victim]["reports"]
                                          if r["name"] != collector]
        elif kind == "bad-data":
            first = next(r for r in entries[victim]["reports"] if r["name"] == collector)
            first["data"] = rng.choice(({"cpu_number": 1, "cpus": [0.5]}, "busy", [1, 2],
                                        {"cpu_number": 1, "cpus": [0.5], "cpu_total": "x"})
                                       if not xen else ("busy", {"inst": "high"}))
        else:
            name = rng.choice(insts)[0]
            for entry in entries:
                for report in entry["reports"]:
                    if report["name"] == collector and isinstance(report["data"], dict):
                        report["data"].pop(name, None)
    else:
        feats.add("complete")
    if rng.random() < 0.1 and entries:
        feats.add("duplicate-node")
        earlier = dict(rng.choice(entries))
        earlier["reports"] = [_cpu_report(rng, feats) if not xen else
                              _report(collector, None, {}, rng)]
        entries.insert(0, earlier)                 # the later entry wins
    if rng.random() < 0.1:
        feats.add("unknown-node")
        entries.append({"node": "ghost%d.example.com" % seed,
                        "reports": [_cpu_report(rng, feats)]})
    if rng.random() < 0.3 and "duplicate-node" not in feats:
        rng.shuffle(entries)                       # node order does not matter

    argv = ["--mond=yes"]
    options = {"mond_xen": xen, "exit_on_missing_mond_data": False}
    if xen:
        feats.add("xen")
        argv.append("--mond-xen")
    if rng.random() < 0.15:
        feats.add("exit-on-missing")
        argv.append("--exit-on-missing-mond-data")
        options["exit_on_missing_mond_data"] = True
    text = json.dumps(entries, indent=None if rng.random() < 0.5 else 1)
    return MondCase(text, tuple(argv), options, frozenset(feats))


def main(argv=None):
    from gen import balance_options  # pylint: disable=import-outside-toplevel
    ap = argparse.ArgumentParser(description="Write a generated cluster, its MonD file "
                                             "and print the hbal command.")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="output directory")
    args = ap.parse_args(argv)
    opts = balance_options.balance_options(args.seed)
    dpath, upath = opts["case"].write(args.out)[:2]
    mond = generate(args.seed, opts["case"].data)
    mpath = os.path.join(args.out, "mond%d.json" % args.seed)
    with open(mpath, "w", encoding="utf-8") as handle:
        handle.write(mond.text)
    print(shlex.join(balance_options.hbal_command(
        opts, dpath, upath, extra=mond.argv + ("--mond-data", mpath, "-C"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
