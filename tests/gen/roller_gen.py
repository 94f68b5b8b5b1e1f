# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeded random clusters and hroller options for the rolling-reboot differential tests.

What hroller's results hinge on, made likely:

* several node groups whose nodes interleave in index order (``-G`` then
  plans unselected nodes between selected ones);
* zero, one or two master nodes; offline nodes, ``-O`` names (some unknown);
* node tags for ``--node-tags``;
* DRBD instances (some across groups, some pairs of nodes with several),
  plain/file and shared-storage instances, forthcoming and stopped ones;
* tight free memory and disk, so that moving non-redundant instances or
  secondaries away fails for some nodes and whole runs.

Public API::

    generate(seed) -> RollerCase          # cluster text + one option set
    options_for(seed, case) -> [Options]  # further option sets for the same cluster

An option set is a dict of module option names; ``hroller_argv(opts)`` is
its command line.  Command line: ``python tests/gen/roller_gen.py --seed N``
prints the cluster and the argv.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

__all__ = ["RollerCase", "generate", "options_for", "hroller_argv", "main"]

TAGS = ("red", "blue", "green", "rack:a")
_SHARED = ("rbd", "sharedfile", "ext", "diskless", "blockdev")
_STATUSES = ("running",) * 6 + ("ADMIN_down", "ADMIN_offline", "ERROR_up", "USER_down")
_FLAGS = ("skip_non_redundant", "ignore_non_redundant", "offline_maintenance",
          "full_evacuation", "one_step_only", "force")


@dataclass(frozen=True)
class RollerCase:
    seed: int
    data: str
    node_names: tuple
    group_names: tuple
    options: dict


def hroller_argv(opts):
    """hroller's command line (without -t FILE and --print-moves) for module options."""
    argv = []
    if opts.get("group") is not None:
        argv += ["-G", opts["group"]]
    for name in opts.get("offline_nodes") or ():
        argv += ["-O", name]
    if opts.get("node_tags"):
        argv.append("--node-tags=" + ",".join(opts["node_tags"]))
    for flag in _FLAGS:
        if opts.get(flag):
            argv.append("--" + flag.replace("_", "-"))
    return argv


def _nodes(rng, groups):
    count = rng.randint(2, 13)
    nodes = []
    for k in range(count):
        group = rng.randrange(len(groups)) if rng.random() < 0.8 else 0
        t_mem = rng.choice((2048, 4096, 8192))
        t_dsk = rng.choice((2048, 4096, 10240))
        flag = "Y" if rng.random() < 0.08 else "N"
        tags = sorted(rng.sample(TAGS, rng.randint(0, 2))) if rng.random() < 0.6 else []
        nodes.append(dict(name="node-%02d" % k, group=group, t_mem=t_mem, n_mem=rng.choice((0, 64)),
                          t_dsk=t_dsk, flag=flag, tags=tags, cpus=rng.choice((4, 8, 16)),
                          excl=rng.random() < 0.05, spindles=rng.randint(1, 6)))
    # suffixes tell apart the ones a unique-prefix -O lookup can find
    if rng.random() < 0.2:
        for node in nodes:
            node["name"] += ".example.com"
    masters = rng.choices((0, 1, 2), weights=(5, 90, 5))[0]
    for node in rng.sample(nodes, min(masters, len(nodes))):
        node["flag"] = "M" if node["flag"] != "Y" or rng.random() < 0.5 else "Y"
    return nodes


def _instances(rng, nodes):
    insts = []
    per_node = rng.choice((1, 2, 3, 4))
    for k in range(rng.randint(0, per_node * len(nodes))):
        p = rng.randrange(len(nodes))
        same = [j for j in range(len(nodes))
                if j != p and nodes[j]["group"] == nodes[p]["group"]]
        other = [j for j in range(len(nodes)) if j != p]
        roll = rng.random()
        if roll < 0.55 and other:
            template = "drbd"
            s = rng.choice(same if same and rng.random() < 0.9 else other)
        else:
            template = rng.choice(("plain", "plain", "file") + _SHARED)
            s = None
        insts.append(dict(name="inst-%02d" % k, mem=rng.choice((128, 256, 512, 1024)),
                          dsk=rng.choice((128, 256, 512, 1024)), vcpus=rng.randint(1, 4),
                          status=rng.choice(_STATUSES), p=p, s=s, template=template,
                          forthcoming=rng.random() < 0.04,
                          spindles=rng.choice(("-", "1", "2"))))
    return insts


def _free(rng, nodes, insts):
    """Free memory and disk: usually room for a few more instances, often very little."""
    used_mem = [0] * len(nodes)
    used_dsk = [0] * len(nodes)
    for inst in insts:
        if inst["status"] in ("running", "ERROR_up") and not inst["forthcoming"]:
            used_mem[inst["p"]] += inst["mem"]
        if inst["template"] in ("drbd", "plain"):
            used_dsk[inst["p"]] += inst["dsk"]
            if inst["s"] is not None:
                used_dsk[inst["s"]] += inst["dsk"]
    tight = rng.random() < 0.5
    for k, node in enumerate(nodes):
        slack_mem = rng.choice((0, 100, 300, 1200, 4000)) if tight else rng.randint(500, 6000)
        slack_dsk = rng.choice((0, 50, 300, 1100, 3000)) if tight else rng.randint(500, 8000)
        node["t_mem"] = max(node["t_mem"], used_mem[k] + node["n_mem"] + slack_mem)
        node["f_mem"] = node["t_mem"] - node["n_mem"] - used_mem[k]
        node["t_dsk"] = max(node["t_dsk"], used_dsk[k] + slack_dsk)
        node["f_dsk"] = node["t_dsk"] - used_dsk[k]
        node["f_mem"] = min(node["f_mem"], slack_mem)
        node["f_dsk"] = min(node["f_dsk"], slack_dsk)


def _render(groups, nodes, insts):
    lines = ["%s|uuid-%s|%s|" % (g, g, policy) for g, policy in groups]
    lines.append("")
    for node in nodes:
        lines.append("|".join(str(x) for x in (
            node["name"], node["t_mem"], node["n_mem"], node["f_mem"], node["t_dsk"],
            node["f_dsk"], node["cpus"], node["flag"], "uuid-" + groups[node["group"]][0],
            node["spindles"], ",".join(node["tags"]), "Y" if node["excl"] else "N",
            node["spindles"], 1, "1.0")))
    lines.append("")
    for inst in insts:
        lines.append("|".join(str(x) for x in (
            inst["name"], inst["mem"], inst["dsk"], inst["vcpus"], inst["status"], "Y",
            nodes[inst["p"]]["name"],
            nodes[inst["s"]]["name"] if inst["s"] is not None else "",
            inst["template"], "", 1, inst["spindles"], "Y" if inst["forthcoming"] else "N")))
    lines.append("")
    lines.append("")
    return "\n".join(lines) + "\n"


def _options(rng, case_nodes, case_groups):
    opts = {}
    if rng.random() < 0.25:
        opts["group"] = rng.choice(case_groups) if rng.random() < 0.9 else "nosuch"
    if rng.random() < 0.2:
        names = list(rng.sample(case_nodes, min(len(case_nodes), rng.randint(1, 2))))
        if rng.random() < 0.3:
            names = [n.split(".")[0] for n in names]        # unique prefixes
        if rng.random() < 0.1:
            names.append("nosuch")
        opts["offline_nodes"] = names
    if rng.random() < 0.2:
        opts["node_tags"] = rng.sample(TAGS, rng.randint(1, 2))
    for flag, chance in (("skip_non_redundant", 0.15), ("ignore_non_redundant", 0.3),
                         ("offline_maintenance", 0.3), ("full_evacuation", 0.4),
                         ("one_step_only", 0.12), ("force", 0.3)):
        if rng.random() < chance:
            opts[flag] = True
    return opts


def generate(seed):
    rng = random.Random("roller-%d" % seed)
    groups = [("group-%d" % g, rng.choice(("preferred", "preferred", "last_resort")))
              for g in range(rng.choice((1, 1, 2, 3)))]
    nodes = _nodes(rng, groups)
    insts = _instances(rng, nodes)
    _free(rng, nodes, insts)
    node_names = tuple(n["name"] for n in nodes)
    group_names = tuple(g for g, _p in groups)
    return RollerCase(seed, _render(groups, nodes, insts), node_names, group_names,
                      _options(rng, node_names, group_names))


def options_for(seed, case, count):
    """`count` option sets for the cluster of `case`, the case's own first."""
    rng = random.Random("roller-options-%d" % seed)
    return [case.options] + [_options(rng, case.node_names, case.group_names)
                             for _unused in range(count - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    case = generate(args.seed)
    print(case.data, end="")
    print("# hroller --print-moves -t FILE " + " ".join(hroller_argv(case.options)))


if __name__ == "__main__":
    main()
