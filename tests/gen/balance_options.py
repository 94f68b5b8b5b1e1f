"""Seeded random hbal algorithm options for the generated clusters.

Companion of ``cluster_gen.py``: for a seed, :func:`balance_options` takes
the cluster ``cluster_gen.generate(seed)`` and chooses the hbal options of a
balancing run on it (the move restrictions, the instance selection, the
CPU and disk limits, and the loop's stop rules ``-l``, ``-e``, ``-g`` and
``--min-gain-limit``), combined with the generator's own per-case options
(``-G``, ``-O``, ``--exclusion-tags``, ``--ignore-dynu``, ``-U``) without
conflicts.

Public API::

    balance_options(seed, case=None) -> dict
    hbal_command(opts, data_path, util_path=None, hbal_path=None,
                 extra=()) -> list[str]
    plan_call(opts, data_path, util_path=None) -> (kwargs, options_kwargs)
    run_plan(plan_balance, BalanceOptions, opts, data_path, util_path=None,
             search="bulk", save_state=None, **option_overrides) -> dict
    repro(opts, extra=("-C",), search="bulk", save_state=None, **overrides)
        -> str   (shell + Python lines reproducing one comparison)
    OPTION_NAMES

The returned dict has the keys

* ``seed``, ``case`` (the :class:`GeneratedCase`);
* ``argv``: the hbal options, without ``-t``/``-U`` and without output
  options (``-C``, ``-S``, ``-v``, ``-p``);
* ``use_util``: pass the case's ``-U`` file (True iff the case has one);
* ``plan_kwargs``: keyword arguments of ``plan_balance`` besides
  ``data_file``/``util_file``/``options``/``search``/``save_state``
  (group, offline_nodes, exclusion_tags, ignore_dynu, select_instances,
  exclude_instances, min_disk, max_cpu);
* ``balance_options``: keyword arguments of ``BalanceOptions``;
* ``used``: the set of option names (:data:`OPTION_NAMES`) in the argv.

Every name given to ``-O``, ``--select-instances`` and
``--exclude-instances`` exists (full names, or unique partial names such as
``inst3`` for ``inst3.example.com``), so hbal accepts every combination.

Command line::

    python tests/gen/balance_options.py --seed N --out DIR

writes the case (like ``cluster_gen.py``) and prints the hbal command.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys

if __name__ == "__main__":      # run as a script: tests/ holds the kit and this package
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gen import cluster_gen  # noqa: E402  pylint: disable=wrong-import-position
from kit.paths import HBAL  # noqa: E402  pylint: disable=wrong-import-position

__all__ = ["OPTION_NAMES", "REPRO_DIR", "balance_options", "hbal_command",
           "plan_call", "run_plan", "repro", "main"]

REPRO_DIR = "/tmp/htools-bal"

# Option names as counted in ``used`` (long forms; ``-l`` is "max-length").
OPTION_NAMES = (
    "max-length", "max-length-0", "min-score", "min-gain", "min-gain-limit",
    "offline", "offline-partial", "no-disk-moves", "no-instance-moves",
    "dynu-file", "ignore-dynu", "ignore-soft-errors", "evac-mode",
    "restricted-migration", "select-instances", "select-instances-partial",
    "exclude-instances", "exclude-instances-partial", "group", "group-uuid",
    "max-cpu", "min-disk", "exclusion-tags",
)

_MIN_SCORES = ("1e-3", "0.01", "0.1", "0.5", "1", "2.5", "5", "10", "30",
               "100", "0")
_MIN_GAINS = ("0", "0.001", "0.005", "0.05", "0.1", "0.25", "1", "3")
_MIN_GAIN_LIMITS = ("0", "0.01", "0.5", "1", "2", "5", "10", "100")
_MAX_CPUS = ("0.25", "0.5", "1", "1.5", "2", "3", "4", "8", "16")
_MIN_DISKS = ("0", "0.01", "0.05", "0.1", "0.2", "0.35", "0.5", "0.8", "0.95")
_EXTRA_TAG_PREFIXES = ("app", "db", "svc", "team", "power", "bar", "foo",
                       "hv")


# ---------------------------------------------------------------------------
# a minimal, independent reading of the generated text file (sections
# separated by empty lines, fields by "|")


def _sections(text):
    sections, cur = [], []
    for line in text.split("\n"):
        if line == "":
            sections.append(cur)
            cur = []
        else:
            cur.append(line)
    sections.append(cur)
    while len(sections) < 3:
        sections.append([])
    return sections


class _Cluster:
    """Names and placement read from a generated data file."""

    def __init__(self, text):
        sec = _sections(text)
        self.groups = []                      # (name, uuid)
        for line in sec[0]:
            f = line.split("|")
            self.groups.append((f[0], f[1]))
        self.nodes = []                       # (name, group uuid, flag)
        for line in sec[1]:
            f = line.split("|")
            self.nodes.append((f[0], f[8], f[7]))
        self.instances = []                   # (name, pnode, snode)
        for line in sec[2]:
            f = line.split("|")
            self.instances.append((f[0], f[6], f[7]))
        self.node_group = {n: g for n, g, _f in self.nodes}

    def populated_groups(self):
        uuids = {g for _n, g, _f in self.nodes}
        return [(name, uuid) for name, uuid in self.groups if uuid in uuids]

    def group_uuid(self, name):
        for gname, uuid in self.groups:
            if gname == name:
                return uuid
        return None

    def split_instances(self):
        return [i for i, p, s in self.instances
                if s and self.node_group.get(p) != self.node_group.get(s)]


def _partial(name, names):
    """The short form of ``name`` (up to its first dot) if it stands for ``name`` alone, else None.

    hbal looks a name given to ``-O``, ``--select-instances`` or
    ``--exclude-instances`` up exactly, else as the one name that starts with
    it followed by a dot; none or several such names make it unknown.
    """
    if "." not in name:
        return None
    base = name.split(".", 1)[0]
    if base in names:
        return None
    hits = [n for n in names if n.startswith(base + ".")]
    return base if hits == [name] else None


def _pick_names(rng, pool, all_names, count, partial_prob):
    """``count`` names from ``pool``; some as partial names."""
    chosen = rng.sample(pool, min(count, len(pool)))
    out, partial = [], False
    for name in chosen:
        short = _partial(name, all_names)
        if short is not None and rng.random() < partial_prob:
            out.append(short)
            partial = True
        else:
            out.append(name)
    return out, partial


# ---------------------------------------------------------------------------


def balance_options(seed, case=None):
    """Choose the hbal balancing options for ``cluster_gen.generate(seed)``."""
    if case is None:
        case = cluster_gen.generate(seed)
    rng = random.Random(f"balance-options-{int(seed)}")
    cl = _Cluster(case.data)
    gen = case.options
    used = set()
    argv = []

    def chance(p):
        return rng.random() < p

    # -- group (-G): the generator's choice, sometimes as its UUID ----------
    group = gen["group"]
    if group is None and chance(0.25):
        populated = cl.populated_groups()
        if len(populated) == 1:
            group = populated[0][0]
    if group is not None:
        uuid = cl.group_uuid(group)
        if uuid is not None and chance(0.3):
            group = uuid
            used.add("group-uuid")
        argv += ["-G", group] if chance(0.7) else ["--group=" + group]
        used.add("group")
    if group is None:
        sel_uuid = cl.populated_groups()[0][1] if cl.populated_groups() else None
    else:
        sel_uuid = cl.group_uuid(group) or group

    sel_nodes = [n for n, g, _f in cl.nodes if g == sel_uuid]
    node_names = [n for n, _g, _f in cl.nodes]
    inst_names = [i for i, _p, _s in cl.instances]
    sel_insts = [i for i, p, _s in cl.instances if cl.node_group.get(p) == sel_uuid]

    # -- evacuation mode (decided early: it wants offline nodes) -------------
    evac = chance(0.2)

    # -- -O -------------------------------------------------------------------
    offline = list(gen["offline_nodes"])
    if (not offline and sel_nodes and not cl.split_instances()
            and chance(0.45 if evac else 0.15)):
        pool = sel_nodes if chance(0.85) else node_names
        offline, partial = _pick_names(rng, pool, node_names,
                                       rng.choice((1, 1, 1, 2)), 0.5)
        if partial:
            used.add("offline-partial")
    for name in offline:
        argv += ["-O", name] if chance(0.8) else ["--offline=" + name]
    if offline:
        used.add("offline")
        if any(name not in node_names for name in offline):
            used.add("offline-partial")

    # -- exclusion tags ----------------------------------------------------
    extags = list(gen["exclusion_tags"])
    if chance(0.15):
        for tag in rng.sample(_EXTRA_TAG_PREFIXES, rng.choice((1, 1, 2))):
            if tag not in extags:
                extags.append(tag)
    if extags:
        argv.append("--exclusion-tags=" + ",".join(extags))
        used.add("exclusion-tags")

    # -- dynamic utilisation ---------------------------------------------------
    use_util = case.util is not None
    if use_util:
        used.add("dynu-file")
    ignore_dynu = bool(gen["ignore_dynu"]) or chance(0.1)
    if ignore_dynu:
        argv.append("--ignore-dynu")
        used.add("ignore-dynu")

    # -- instance selection ------------------------------------------------
    select, exclude = [], []
    if inst_names and chance(0.15):
        pool = sel_insts if (sel_insts and chance(0.85)) else inst_names
        count = rng.randint(1, max(1, min(len(pool), 6)))
        select, partial = _pick_names(rng, pool, inst_names, count, 0.6)
        argv.append("--select-instances=" + ",".join(select))
        used.add("select-instances")
        if partial:
            used.add("select-instances-partial")
    if inst_names and chance(0.15):
        pool = sel_insts if (sel_insts and chance(0.85)) else inst_names
        count = rng.randint(1, max(1, min(len(pool), 4)))
        exclude, partial = _pick_names(rng, pool, inst_names, count, 0.6)
        argv.append("--exclude-instances=" + ",".join(exclude))
        used.add("exclude-instances")
        if partial:
            used.add("exclude-instances-partial")

    # -- node limits ------------------------------------------------------------
    min_disk, max_cpu = 0.0, None
    if chance(0.12):
        text = rng.choice(_MIN_DISKS)
        min_disk = float(text)
        argv.append("--min-disk=" + text)
        used.add("min-disk")
    if chance(0.12):
        text = rng.choice(_MAX_CPUS)
        max_cpu = float(text)
        argv.append("--max-cpu=" + text)
        used.add("max-cpu")

    # -- algorithm -----------------------------------------------------------
    bo = dict(max_length=-1, min_score=1e-9, min_gain=0.01, min_gain_limit=0.1,
              no_disk_moves=False, no_instance_moves=False,
              restricted_migration=False, evac_mode=False,
              ignore_soft_errors=False)
    r = rng.random()
    if r < 0.12:
        bo["max_length"] = 0
    elif r < 0.4:
        bo["max_length"] = rng.randint(1, 8)
    if bo["max_length"] >= 0:
        argv += (["-l", str(bo["max_length"])] if chance(0.7)
                 else ["--max-length=%d" % bo["max_length"]])
        used.add("max-length")
        if bo["max_length"] == 0:
            used.add("max-length-0")
    if chance(0.15):
        text = rng.choice(_MIN_SCORES)
        bo["min_score"] = float(text)
        argv += ["-e", text] if chance(0.7) else ["--min-score=" + text]
        used.add("min-score")
    if chance(0.2):
        text = rng.choice(_MIN_GAINS)
        bo["min_gain"] = float(text)
        argv += ["-g", text] if chance(0.7) else ["--min-gain=" + text]
        used.add("min-gain")
    if chance(0.2):
        text = rng.choice(_MIN_GAIN_LIMITS)
        bo["min_gain_limit"] = float(text)
        argv.append("--min-gain-limit=" + text)
        used.add("min-gain-limit")
    for key, flag, prob in (("no_disk_moves", "--no-disk-moves", 0.12),
                            ("no_instance_moves", "--no-instance-moves", 0.12),
                            ("restricted_migration", "--restricted-migration", 0.15),
                            ("ignore_soft_errors", "--ignore-soft-errors", 0.15)):
        if chance(prob):
            bo[key] = True
            argv.append(flag)
            used.add(flag[2:])
    if evac:
        bo["evac_mode"] = True
        argv.append("-E" if chance(0.3) else "--evac-mode")
        used.add("evac-mode")

    plan_kwargs = dict(group=group, offline_nodes=offline, exclusion_tags=extags,
                       ignore_dynu=ignore_dynu, select_instances=select,
                       exclude_instances=exclude, min_disk=min_disk,
                       max_cpu=max_cpu)
    return {"seed": int(seed), "case": case, "argv": argv, "use_util": use_util,
            "plan_kwargs": plan_kwargs, "balance_options": bo,
            "used": frozenset(used)}


def hbal_command(opts, data_path, util_path=None, hbal_path=None, extra=()):
    """Full hbal argv: ``hbal -t DATA [-U UTIL] <options> <extra>``."""
    argv = [hbal_path or HBAL, "-t", str(data_path)]
    if opts["use_util"] and util_path is not None:
        argv += ["-U", str(util_path)]
    return argv + list(opts["argv"]) + [str(a) for a in extra]


def plan_call(opts, data_path, util_path=None):
    """``(plan_balance kwargs without options/search/save_state, BalanceOptions kwargs)``."""
    kwargs = dict(opts["plan_kwargs"])
    kwargs["data_file"] = str(data_path)
    kwargs["util_file"] = (str(util_path) if opts["use_util"] and util_path is not None
                           else None)
    return kwargs, dict(opts["balance_options"])


def run_plan(plan_balance, BalanceOptions, opts, data_path, util_path=None,
             search="bulk", save_state=None, **overrides):
    """Call ``plan_balance`` like hbal with ``opts`` (BalanceOptions overridable)."""
    kwargs, bo = plan_call(opts, data_path, util_path)
    bo.update(overrides)
    return plan_balance(**kwargs, options=BalanceOptions(**bo), search=search,
                        save_state=save_state)


def repro(opts, extra=("-C",), search="bulk", save_state=None, **overrides):
    """Shell command and ``plan_balance`` call reproducing one comparison."""
    seed = opts["seed"]
    dname, uname = opts["case"].file_names()[:2]
    dpath = f"{REPRO_DIR}/{dname}"
    upath = f"{REPRO_DIR}/{uname}" if uname else None
    cmd = hbal_command(opts, dpath, upath, extra=extra)
    kwargs, bo = plan_call(opts, dpath, upath)
    bo.update(overrides)
    return (f"python tests/gen/balance_options.py --seed {seed} --out {REPRO_DIR}"
            f" && {shlex.join(cmd)}\n  ours: plan_balance(**{kwargs!r}, "
            f"options=BalanceOptions(**{bo!r}), search={search!r}, "
            f"save_state={save_state!r})")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Write a generated cluster and print the hbal balancing "
                    "command with the seed's random options.")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--extra", default="-C",
                    help="extra hbal arguments (default: -C)")
    args = ap.parse_args(argv)
    opts = balance_options(args.seed)
    dpath, upath = opts["case"].write(args.out)[:2]
    print(shlex.join(hbal_command(opts, dpath, upath,
                                  extra=shlex.split(args.extra))))
    kwargs, bo = plan_call(opts, dpath, upath)
    print("# plan_balance(**%r, options=BalanceOptions(**%r))" % (kwargs, bo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
