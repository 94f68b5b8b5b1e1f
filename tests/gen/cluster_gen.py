"""Seeded random generator of Ganeti clusters in the htools text format.

Used for differential testing of ``ganeti.htools`` against the real
``hbal`` (Ganeti 3.0.2).  The text format (``hbal -t``) is sections
separated by empty lines: groups, nodes, instances, cluster tags and
(optionally) policies, one ``|``-separated record per line.  The ``-U`` utilisation file
has one ``name cpu mem dsk net`` line per instance.

Public API::

    generate(seed: int) -> GeneratedCase

``GeneratedCase`` holds the data file content, the optional ``-U`` file
content and the hbal options (``options`` dict and ``argv`` fragment).

Command line::

    python tests/gen/cluster_gen.py --seed N --out DIR

writes ``DIR/cN.data`` and ``DIR/optsN.json`` (and ``DIR/uN.txt`` when the
case has a utilisation file).  ``--seeds A-B`` generates a range.

Every generated case is meant to be accepted by hbal (exit code 0).  The
degenerate inputs whose hbal behaviour nobody has characterised are never
produced: every ``drbd`` instance has a secondary different from its
primary, no other template gets a secondary, and all names are unique.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from dataclasses import dataclass, field

__all__ = [
    "DISK_TEMPLATES",
    "RUN_STATUSES",
    "GeneratedCase",
    "generate",
    "main",
]

DISK_TEMPLATES = (
    "drbd", "plain", "file", "sharedfile", "blockdev", "rbd", "ext",
    "diskless", "gluster",
)
RUN_STATUSES = (
    "running", "ADMIN_down", "ADMIN_offline", "ERROR_up", "ERROR_down",
    "ERROR_nodedown", "ERROR_nodeoffline", "USER_down", "ERROR_wrongnode",
)
# Statuses whose memory counts in i_mem: an instance that is not forthcoming
# uses its node's memory unless it is stopped (ADMIN_down, ADMIN_offline,
# ERROR_down, USER_down).
_MEM_STATUSES = frozenset(
    ("running", "ERROR_up", "ERROR_nodedown", "ERROR_nodeoffline",
     "ERROR_wrongnode"))
_LOCAL_STORAGE = frozenset(("drbd", "plain"))
_ALLOC_POLICIES = ("preferred", "last_resort", "unallocable")

_DEFAULT_STD = "128,1,1024,1,1,1"
_DEFAULT_MINMAX = "128,1,1024,1,1,1;32768,8,1048576,16,8,12"
_MINMAX_2 = ("128,1,1024,1,1,1;16384,4,524288,8,4,6;"
             "16384,4,524288,8,4,6;65536,16,2097152,16,8,24")
_TEMPLATE_LISTS = (
    "diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext",
    "diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext,gluster",
    "drbd,plain",
    "ext,rbd,drbd",
)


@dataclass(frozen=True)
class GeneratedCase:
    """One generated test case.

    Attributes:
        seed: the seed given to :func:`generate`.
        data: content of the ``-t`` text file.
        util: content of the ``-U`` file, or None when the case has none.
        options: ``{"group": str|None, "offline_nodes": [str],
            "exclusion_tags": [str], "ignore_dynu": bool}``; the keys are
            the keyword arguments of ``cluster_info``/``run_hbal``.
        argv: the equivalent hbal argv fragment (without ``-t``/``-U``).
        features: names of the features the generator put in (informative;
            the coverage test detects features independently from the text).
    """

    seed: int
    data: str
    util: str | None
    options: dict
    argv: tuple
    features: frozenset = field(default_factory=frozenset)

    def hbal_argv(self, data_path, util_path=None):
        """Return ``["-t", data_path, ("-U", util_path,) *argv]``."""
        args = ["-t", str(data_path)]
        if util_path is not None:
            args += ["-U", str(util_path)]
        return args + list(self.argv)

    def file_names(self):
        """(data, util-or-None, opts) base file names used by :meth:`write`."""
        s = self.seed
        return (f"c{s}.data", f"u{s}.txt" if self.util is not None else None,
                f"opts{s}.json")

    def write(self, out_dir):
        """Write the case into ``out_dir``.

        Returns ``(data_path, util_path_or_None, opts_path)``.
        """
        os.makedirs(out_dir, exist_ok=True)
        dname, uname, oname = self.file_names()
        dpath = os.path.join(out_dir, dname)
        with open(dpath, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(self.data)
        upath = None
        if uname is not None:
            upath = os.path.join(out_dir, uname)
            with open(upath, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(self.util)
        opath = os.path.join(out_dir, oname)
        doc = dict(self.options)
        doc["seed"] = self.seed
        doc["util_file"] = uname
        doc["argv"] = list(self.argv)
        doc["features"] = sorted(self.features)
        with open(opath, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(doc, fh, indent=1, sort_keys=True)
            fh.write("\n")
        return dpath, upath, opath


# ---------------------------------------------------------------------------
# internal model


@dataclass
class _Group:
    name: str
    uuid: str
    policy: str
    tags: list
    networks: list | None  # None: 4-field line
    empty: bool = False
    nodes: list = field(default_factory=list)


@dataclass
class _Node:
    name: str
    group: _Group
    t_mem: float
    n_mem: int
    t_dsk: float
    t_cpu: float
    flag: str = "N"
    spindles: int = 1
    tags: list = field(default_factory=list)
    excl: bool = False
    n_cpu: int = 1
    speed: str = "1.0"
    qmark_col: int = 0          # 2..7 when a '?' replaces that column
    ncols: int = 9
    f_mem: int = 0
    f_dsk: int = 0
    f_spindles: int = 0
    fmt_float: str = "int"      # how t_mem/t_dsk/t_cpu are written
    x_mem_delta: int = 0
    x_dsk_delta: int = 0

    @property
    def online_input(self):
        return self.flag != "Y" and not self.qmark_col


@dataclass
class _Inst:
    name: str
    mem: int
    dsk: int
    vcpus: int
    status: str
    auto_balance: bool
    pnode: _Node
    snode: _Node | None
    template: str
    tags: list = field(default_factory=list)
    spindle_use: int = 1
    spindles: str = "-"
    forthcoming: bool = False
    ncols: int = 10


def _fmt_double(value, style):
    """Write a Double the way Haskell's ``read`` accepts it."""
    if style == "dot0" and float(value).is_integer():
        return f"{int(value)}.0"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


class _Builder:
    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        self.features = set()
        self.groups = []
        self.nodes = []
        self.insts = []
        self.cluster_tags = []
        self.options = {"group": None, "offline_nodes": [],
                        "exclusion_tags": [], "ignore_dynu": False}
        self.util = None

    # -- helpers ----------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def feat(self, name):
        self.features.add(name)

    # -- main -------------------------------------------------------------
    def build(self):
        self.symmetric = self.chance(0.08)
        self._choose_names()
        self._make_groups()
        self._make_nodes()
        self._choose_tag_features()
        if self.symmetric:
            self._make_symmetric_instances()
        else:
            self._make_instances()
        self._assign_node_tags()
        self._assign_instance_tags()
        self._fill_free_values()
        self._choose_columns()
        self._choose_options()
        self._make_util()
        data = self._render()
        argv = self._argv()
        if len(self.nodes) > 12:
            self.feat("big_cluster")
        if not self.insts:
            self.feat("no_instances")
        return GeneratedCase(seed=self.seed, data=data, util=self.util,
                             options=self.options, argv=tuple(argv),
                             features=frozenset(self.features))

    # -- names --------------------------------------------------------------
    def _choose_names(self):
        rng = self.rng
        r = rng.random()
        if r < 0.6:
            self.node_suffix = self.inst_suffix = ""
        elif r < 0.8:
            self.node_suffix = self.inst_suffix = ".example.com"
        elif r < 0.9:
            self.node_suffix, self.inst_suffix = ".dc1.example.com", ".example.com"
        else:
            self.node_suffix = self.inst_suffix = ".ganeti.local"
        if self.node_suffix:
            self.feat("name_suffix")
        self.node_pat = rng.choice(
            ("node-{g}-{i:03d}", "node{n}", "n{n}", "node-{n:02d}", "host{g}x{i}"))
        self.inst_pat = rng.choice(
            ("inst-{n}", "i{n}", "vm{n:03d}", "web-{n}", "instance{n}"))
        self._node_counter = 0
        self._inst_counter = 0

    def _node_name(self, gidx, idx):
        self._node_counter += 1
        base = self.node_pat.format(g=gidx + 1, i=idx + 1, n=self._node_counter)
        return base + self.node_suffix

    def _inst_name(self):
        self._inst_counter += 1
        return self.inst_pat.format(n=self._inst_counter) + self.inst_suffix

    # -- groups -------------------------------------------------------------
    def _make_groups(self):
        rng = self.rng
        if self.symmetric:
            n_full = 1
        else:
            r = rng.random()
            n_full = 1 if r < 0.66 else (2 if r < 0.9 else 3)
        n_empty = 1 if self.chance(0.15) else 0
        total = n_full + n_empty
        empty_idx = set(rng.sample(range(total), n_empty))
        name_style = rng.choice(("group-{:02d}", "default{}", "rack{}", "g{}"))
        uuid_style = rng.choice(("fake-uuid-{:02d}", "real"))
        for k in range(total):
            name = name_style.format(k + 1)
            if uuid_style == "real":
                uuid = "%08x-%04x-%04x-%04x-%012x" % (
                    rng.getrandbits(32), rng.getrandbits(16),
                    rng.getrandbits(16), rng.getrandbits(16),
                    rng.getrandbits(48))
            else:
                uuid = uuid_style.format(k + 1)
            tags = rng.choice(([], [], ["gtag1"], ["gtag1", "gtag2"]))
            networks = rng.choice((None, None, [], ["net1"], ["net1", "net2"]))
            grp = _Group(name, uuid, rng.choice(_ALLOC_POLICIES), tags,
                         networks, empty=k in empty_idx)
            self.groups.append(grp)
        full = [g for g in self.groups if not g.empty]
        self.selected = rng.choice(full)
        if n_full > 1:
            self.feat("multi_group")
        if n_empty:
            self.feat("empty_group")

    # -- nodes --------------------------------------------------------------
    def _node_classes(self):
        rng = self.rng
        n_classes = 1 if self.symmetric else rng.choice((1, 1, 2, 2, 3))
        classes = []
        for _cls in range(n_classes):
            classes.append(dict(
                t_mem=rng.choice((2048, 4096, 8192, 16384, 32768, 65536,
                                  91552, 131072, 262144)),
                t_dsk=rng.choice((51200, 102400, 204800, 409600, 1048576,
                                  3100, 7629394)),
                t_cpu=rng.choice((2, 4, 8, 16, 24, 32, 64)),
                n_mem=rng.choice((0, 0, 0, 128, 512, 1024)),
                spindles=rng.choice((1, 1, 2, 4, 6, 12)),
            ))
        if len({c["t_mem"] for c in classes}) > 1:
            self.feat("multi_size")
        return classes

    def _make_nodes(self):
        rng = self.rng
        classes = self._node_classes()
        self.fractional = (not self.symmetric) and self.chance(0.06)
        self.float_style = rng.choice(("int", "int", "dot0"))
        for gidx, grp in enumerate(self.groups):
            if grp.empty:
                continue
            if grp is self.selected:
                if self.symmetric:
                    count = rng.randint(2, 8)
                elif self.chance(0.15):
                    count = rng.randint(13, 30)
                else:
                    count = rng.randint(2, 12)
            else:
                count = rng.randint(1, 6)
            for idx in range(count):
                cls = classes[0] if self.symmetric else rng.choice(classes)
                node = _Node(
                    name=self._node_name(gidx, idx), group=grp,
                    t_mem=float(cls["t_mem"]), n_mem=cls["n_mem"],
                    t_dsk=float(cls["t_dsk"]), t_cpu=float(cls["t_cpu"]),
                    spindles=cls["spindles"], fmt_float=self.float_style)
                if self.fractional and self.chance(0.5):
                    node.t_mem += rng.choice((0.5, 0.25, 0.75, 0.125))
                    node.t_dsk += rng.choice((0.5, 512.5, 0.25))
                    node.t_cpu += rng.choice((0.5, 0.25))
                    self.feat("fractional_sizes")
                grp.nodes.append(node)
                self.nodes.append(node)
        sel_nodes = self.selected.nodes
        # master flag
        if self.chance(0.6):
            rng.choice(self.nodes).flag = "M"
            self.feat("master")
        if self.symmetric:
            return
        # all nodes of the selected group offline (score 0, no metric rows)
        if self.chance(0.02):
            for n in sel_nodes:
                n.flag = "Y"
            self.feat("all_offline")
        # offline nodes
        elif self.chance(0.22):
            for n in rng.sample(self.nodes, rng.choice((1, 1, 2))):
                n.flag = "Y"
            self.feat("offline_node")
        # '?' nodes
        if self.chance(0.11):
            n = rng.choice(self.nodes)
            n.qmark_col = rng.randint(2, 7)
            self.feat("qmark_node")
        # exclusive storage
        if self.chance(0.12):
            every = self.chance(0.5)
            for n in self.nodes:
                if every or self.chance(0.5):
                    n.excl = True
                    n.spindles = rng.choice((2, 4, 6, 12))
            self.feat("excl_storage")
        if self.chance(0.3):
            for n in self.nodes:
                n.n_cpu = rng.choice((1, 1, 2, 3, 4))
            self.feat("ncpu")
        if self.chance(0.15):
            for n in self.nodes:
                n.speed = rng.choice(("1.0", "0.5", "2", "1.5", "3.0", "0.75", "1"))
            self.feat("cpu_speed")

    # -- tags ---------------------------------------------------------------
    def _choose_tag_features(self):
        rng = self.rng
        sym = self.symmetric
        self.iextags = (not sym) and self.chance(0.2)
        self.cli_excl = (not sym) and self.chance(0.15)
        self.nlocation = (not sym) and self.chance(0.2)
        self.dsrdloc = (not sym) and self.chance(0.15)
        self.migration = (not sym) and self.chance(0.15)
        tags = []
        if self.iextags:
            tags.append("htools:iextags:svc")
            if self.chance(0.3):
                tags.append("htools:iextags:team")
            self.feat("iextags")
        if self.cli_excl:
            self.options["exclusion_tags"] = rng.choice((["app"], ["app", "db"]))
            self.feat("cli_exclusion_tags")
        if self.nlocation:
            tags.append("htools:nlocation:power")
            if self.chance(0.3):
                tags.append("htools:nlocation:rack")
            self.feat("nlocation")
        if self.dsrdloc:
            tags.append("htools:desiredlocation:power")
            self.feat("desired_location")
        if self.migration:
            tags.append("htools:migration:hv")
            if self.chance(0.6):
                tags.append("htools:allowmigration:hv:old::hv:new")
                self.feat("allowmigration")
            self.feat("migration")
        if self.chance(0.25):
            tags.append(rng.choice(("ctag1", "foo:bar", "owner:ops")))
        if self.chance(0.03):
            tags.append("htools:iextags:")
        rng.shuffle(tags)
        self.cluster_tags = tags

    def _assign_node_tags(self):
        rng = self.rng
        for n in self.nodes:
            tags = []
            if self.symmetric:
                continue
            if self.nlocation or (self.dsrdloc and self.chance(0.7)):
                if self.chance(0.85):
                    tags.append("power:" + rng.choice("abc"))
                if self.chance(0.1):
                    tags.append("power:" + rng.choice("abc"))
                if self.chance(0.3):
                    tags.append("rack:" + rng.choice("12"))
            if self.migration and self.chance(0.8):
                tags.append("hv:" + rng.choice(("old", "new", "new", "xen")))
            if self.chance(0.08):
                tags.append("ntag:x")
            n.tags = list(dict.fromkeys(tags))

    def _assign_instance_tags(self):
        rng = self.rng
        pool = []
        if self.iextags:
            pool += ["svc:web", "svc:db", "svc:web", "svcx", "team:a"]
        if self.cli_excl:
            pool += ["app:one", "app:two", "app:one", "db:main", "appx"]
        if self.dsrdloc:
            pool += ["power:a", "power:b", "power:c"]
        misc = ["foo", "bar:baz", "a", "b"]
        for inst in self.insts:
            if self.symmetric:
                continue
            tags = []
            if pool and self.chance(0.7):
                tags += rng.sample(pool, rng.choice((1, 1, 2)))
            if self.chance(0.15):
                tags.append(rng.choice(misc))
            inst.tags = list(dict.fromkeys(tags))

    # -- instances ----------------------------------------------------------
    def _template_weights(self):
        rng = self.rng
        mix = rng.choice(("mixed", "mixed", "drbd", "ext", "one"))
        if mix == "drbd":
            return {"drbd": 1.0}
        if mix == "ext":
            return {"ext": 0.6, "rbd": 0.2, "sharedfile": 0.2}
        if mix == "one":
            return {rng.choice(DISK_TEMPLATES): 1.0}
        return {"drbd": 0.4, "plain": 0.1, "file": 0.06, "sharedfile": 0.06,
                "blockdev": 0.06, "rbd": 0.08, "ext": 0.1, "diskless": 0.06,
                "gluster": 0.08}

    def _make_instances(self):
        rng = self.rng
        r = rng.random()
        if r < 0.01:
            total = 0  # hbal prints "Cluster is empty, exiting."
        elif r < 0.1:
            total = rng.randint(1, 3)
        else:
            total = rng.randint(1, 40)
        weights = self._template_weights()
        tnames = list(weights)
        tw = [weights[t] for t in tnames]
        self.status_varied = self.chance(0.5)
        self.forth_mode = self.chance(0.2)
        self.noautobal = self.chance(0.35)
        self.spindles_mode = rng.choice(("none", "num", "mixed"))
        self.spindle_use_mode = self.chance(0.3)
        mem_scale = min(n.t_mem for n in self.nodes)
        mems = [m for m in (128, 256, 512, 1024, 2048, 4096, 8192)
                if m <= mem_scale / 4] or [128]
        full_groups = [g for g in self.groups if g.nodes]
        gweights = [len(g.nodes) * (3 if g is self.selected else 1)
                    for g in full_groups]
        # pending memory per node, for capacity-aware placement
        self._used_mem = {id(n): 0 for n in self.nodes}
        # instances split across groups only in otherwise plain clusters
        allow_split = (len(full_groups) > 1 and not self.forth_mode
                       and not self.features & {"qmark_node", "offline_node",
                                                "all_offline"}
                       and self.chance(0.15))
        for _inst in range(total):
            grp = rng.choices(full_groups, gweights)[0]
            tmpl = rng.choices(tnames, tw)[0]
            if tmpl == "drbd" and len(grp.nodes) < 2:
                tmpl = rng.choice(("plain", "ext", "rbd"))
            mem = rng.choice(mems)
            pnode = self._pick_node(grp.nodes, mem)
            snode = None
            if tmpl == "drbd":
                if allow_split and self.chance(0.25):
                    other = rng.choice([g for g in full_groups if g is not grp])
                    snode = rng.choice(other.nodes)
                    self.feat("split_instance")
                else:
                    snode = self._pick_node(
                        [n for n in grp.nodes if n is not pnode], 0)
            dsk = 0 if tmpl == "diskless" else rng.choice(
                (128, 1024, 1024, 5120, 10240, 20480, 102400))
            status = "running"
            if self.status_varied and self.chance(0.45):
                status = rng.choice(RUN_STATUSES)
            inst = _Inst(
                name=self._inst_name(), mem=mem, dsk=dsk,
                vcpus=rng.choice((1, 1, 2, 2, 4, 8)), status=status,
                auto_balance=not (self.noautobal and self.chance(0.2)),
                pnode=pnode, snode=snode, template=tmpl)
            if self.spindle_use_mode:
                inst.spindle_use = rng.choice((0, 1, 1, 2, 3))
            if self.spindles_mode == "num" or (
                    self.spindles_mode == "mixed" and self.chance(0.5)):
                inst.spindles = str(rng.choice((1, 1, 2, 4)))
            if self.forth_mode and self.chance(0.2):
                inst.forthcoming = True
                self.feat("forthcoming")
            if not inst.auto_balance:
                self.feat("autobalance_n")
            if status != "running":
                self.feat("status_" + status)
            if status in _MEM_STATUSES and not inst.forthcoming:
                self._used_mem[id(pnode)] += mem
            self.insts.append(inst)

    def _pick_node(self, nodes, mem):
        rng = self.rng
        cand = None
        for _try in range(5):
            cand = rng.choice(nodes)
            free = int(cand.t_mem) - cand.n_mem - self._used_mem[id(cand)]
            if free >= mem:
                break
        return cand

    def _make_symmetric_instances(self):
        rng = self.rng
        nodes = self.selected.nodes
        k = len(nodes)
        per_node = rng.randint(1, 4)
        tmpl = rng.choice(("drbd", "drbd", "ext", "plain", "rbd"))
        mem = rng.choice((128, 256, 512, 1024))
        dsk = rng.choice((1024, 5120, 10240))
        vcpus = rng.choice((1, 2))
        shift = rng.randint(1, k - 1) if k > 1 else 0
        for j in range(per_node):
            for i in range(k):
                snode = nodes[(i + shift) % k] if tmpl == "drbd" else None
                self.insts.append(_Inst(
                    name=self._inst_name(), mem=mem, dsk=dsk, vcpus=vcpus,
                    status="running", auto_balance=True, pnode=nodes[i],
                    snode=snode, template=tmpl))
        self.status_varied = self.forth_mode = self.noautobal = False
        self.spindles_mode = "none"
        self.spindle_use_mode = False
        self.feat("symmetric")

    # -- free memory / disk -----------------------------------------------
    def _fill_free_values(self):
        rng = self.rng
        noisy = (not self.symmetric) and self.chance(0.4)
        if noisy:
            self.feat("noisy_free")
        for n in self.nodes:
            i_mem = sum(i.mem for i in self.insts
                        if i.pnode is n and not i.forthcoming
                        and i.status in _MEM_STATUSES)
            recorded = int(n.t_mem) - n.n_mem - i_mem
            dsk_used = sum(i.dsk for i in self.insts
                           if (i.pnode is n or i.snode is n)
                           and not i.forthcoming
                           and i.template in _LOCAL_STORAGE)
            x_mem = x_dsk = 0
            if noisy and self.chance(0.6):
                x_mem = rng.choice((-4096, -2048, -700, -100, 0, 300, 513,
                                    600, 1024, 2048, 5000))
                x_dsk = rng.choice((-20480, -5000, 0, 0, 1000, 1025, 2048,
                                    20480))
            n.f_mem = max(0, recorded - x_mem)
            n.f_dsk = max(0, int(n.t_dsk) - dsk_used - x_dsk)
            if n.excl:
                sp_used = sum(int(i.spindles) for i in self.insts
                              if (i.pnode is n or i.snode is n)
                              and i.template in _LOCAL_STORAGE
                              and i.spindles != "-")
                n.f_spindles = max(0, n.spindles - sp_used)

    # -- column counts --------------------------------------------------------
    def _choose_columns(self):
        rng = self.rng
        style = rng.choice(("min", "full", "random", "random"))
        if self.symmetric and style == "random":
            style = "full"     # identical nodes need identical columns
        for n in self.nodes:
            need = 9
            if n.spindles != 1:
                need = 10
            if n.tags:
                need = 11
            if n.excl:
                need = max(need, 13 if self.chance(0.85) else 12)
            if n.n_cpu != 1:
                need = 14
            if n.speed not in ("1.0", "1"):
                need = 15
            if style == "min":
                n.ncols = need
            elif style == "full":
                n.ncols = 15
            else:
                n.ncols = rng.randint(need, 15)
            self.feat(f"node_cols_{n.ncols}")
            if n.ncols < 10:
                n.spindles = 1
        istyle = rng.choice(("min", "full", "random", "random"))
        for i in self.insts:
            need = 10
            if i.spindle_use != 1:
                need = 11
            if i.spindles != "-":
                need = 12
            if i.forthcoming:
                need = 13
            if istyle == "min":
                i.ncols = need
            elif istyle == "full":
                i.ncols = 13
            else:
                i.ncols = rng.randint(need, 13)
            self.feat(f"inst_cols_{i.ncols}")

    # -- hbal options ---------------------------------------------------------
    def _short(self, node):
        if self.node_suffix and self.chance(0.5):
            return node.name[: -len(self.node_suffix)]
        return node.name

    def _choose_options(self):
        rng = self.rng
        full_groups = [g for g in self.groups if g.nodes]
        if len(full_groups) > 1 or self.chance(0.3):
            self.options["group"] = self.selected.name
            self.feat("group_option")
        if len(full_groups) == 1 and not self.symmetric and self.chance(0.3):
            empties = [g for g in self.groups if not g.nodes]
            if empties and self.chance(0.3):
                self.selected = empties[0]
                self.options["group"] = self.selected.name
                self.feat("select_empty_group")
        if (not self.symmetric and "split_instance" not in self.features
                and self.chance(0.12)):
            pool = list(self.selected.nodes) or list(self.nodes)
            if self.chance(0.2):
                pool = list(self.nodes)
            count = min(len(pool), rng.choice((1, 1, 2)))
            names = [self._short(n) for n in rng.sample(pool, count)]
            self.options["offline_nodes"] = names
            self.feat("cli_offline")
        if self.chance(0.12):
            self.options["ignore_dynu"] = True
            self.feat("ignore_dynu")

    def _make_util(self):
        rng = self.rng
        if not self.insts or not self.chance(0.25):
            return
        values = ("0", "0.5", "1", "1.5", "2", "0.25", "3.75", "10", "1.0")
        if self.symmetric:
            vals = [rng.choice(values) for _col in range(4)]
            chosen = list(self.insts)
            lines = [" ".join([i.name] + vals) for i in chosen]
        else:
            chosen = rng.sample(self.insts, rng.randint(1, len(self.insts)))
            lines = [" ".join([i.name] + [rng.choice(values) for _col in range(4)])
                     for i in chosen]
            if self.chance(0.1):
                dup = rng.choice(chosen)
                lines.append(" ".join([dup.name] + [rng.choice(values)
                                                    for _col in range(4)]))
        self.util = "\n".join(lines) + "\n"
        self.feat("util_file")

    def _argv(self):
        o = self.options
        argv = []
        if o["group"] is not None:
            argv += ["-G", o["group"]]
        for n in o["offline_nodes"]:
            argv += ["-O", n]
        if o["exclusion_tags"]:
            argv.append("--exclusion-tags=" + ",".join(o["exclusion_tags"]))
        if o["ignore_dynu"]:
            argv.append("--ignore-dynu")
        return argv

    # -- rendering ------------------------------------------------------------
    def _render_group(self, g):
        fields = [g.name, g.uuid, g.policy, ",".join(g.tags)]
        if g.networks is not None:
            fields.append(",".join(g.networks))
        return "|".join(fields)

    def _render_node(self, n):
        ff = n.fmt_float
        cols = [n.name, _fmt_double(n.t_mem, ff), str(n.n_mem), str(n.f_mem),
                _fmt_double(n.t_dsk, ff), str(n.f_dsk),
                _fmt_double(n.t_cpu, ff),
                n.flag, n.group.uuid, str(n.spindles), ",".join(n.tags),
                "Y" if n.excl else "N", str(n.f_spindles), str(n.n_cpu),
                n.speed]
        cols = cols[: n.ncols]
        if n.qmark_col:
            cols[n.qmark_col - 1] = "?"
        return "|".join(cols)

    def _render_inst(self, i):
        cols = [i.name, str(i.mem), str(i.dsk), str(i.vcpus), i.status,
                "Y" if i.auto_balance else "N", i.pnode.name,
                i.snode.name if i.snode is not None else "", i.template,
                ",".join(i.tags), str(i.spindle_use), i.spindles,
                "Y" if i.forthcoming else "N"]
        return "|".join(cols[: i.ncols])

    def _policy_lines(self):
        rng = self.rng
        lines = []
        vr = ("4.0", "2.0", "8.0", "1.5", "6", "3.25", "4")
        sr = ("32.0", "16.0", "8", "4.0", "64.0", "2.5", "32")

        def line(owner):
            return "|".join((owner, _DEFAULT_STD,
                             _MINMAX_2 if self.chance(0.15) else _DEFAULT_MINMAX,
                             rng.choice(_TEMPLATE_LISTS), rng.choice(vr),
                             rng.choice(sr)))

        if self.chance(0.8):
            lines.append(line(""))
        for g in self.groups:
            if self.chance(0.7):
                lines.append(line(g.uuid if self.chance(0.3) else g.name))
                self.feat("group_ipolicy")
        if not lines:
            lines.append(line(""))
        return lines

    def _render(self):
        rng = self.rng
        groups = [self._render_group(g) for g in self.groups]
        nodes = [self._render_node(n) for n in self.nodes]
        insts = [self._render_inst(i) for i in self.insts]
        tags = list(self.cluster_tags)
        mode = rng.choices(("missing", "present", "quirk", "extra"),
                           (0.3, 0.45, 0.2, 0.05))[0]
        self.feat("ipolicy_" + mode)
        out = "\n".join(groups) + "\n\n"
        out += "".join(x + "\n" for x in nodes) + "\n"
        out += "".join(x + "\n" for x in insts)
        if mode == "missing":
            # exactly 4 sections: ..., instances, tags
            out += "\n" + "".join(x + "\n" for x in tags)
            if not tags and self.chance(0.5):
                out += "\n"   # 5th (empty) section
        elif mode == "quirk":
            # single blank line: the policy lines become cluster tags
            out += "\n" + "".join(x + "\n" for x in tags + self._policy_lines())
        else:
            out += "\n" + "".join(x + "\n" for x in tags) + "\n"
            out += "".join(x + "\n" for x in self._policy_lines())
            if mode == "extra":
                out += "\nthis|section|is|ignored\n"
        return out


def generate(seed: int) -> GeneratedCase:
    """Generate the deterministic test case for ``seed``."""
    return _Builder(int(seed)).build()


# ---------------------------------------------------------------------------
# command line


def _parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Generate random Ganeti clusters in htools text format.")
    grp = ap.add_mutually_exclusive_group(required=True)
    grp.add_argument("--seed", type=int, help="the seed to generate")
    grp.add_argument("--seeds", help="seed list/ranges, e.g. 1-300,512")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--print-argv", action="store_true",
                    help="print the hbal command for each case")
    args = ap.parse_args(argv)
    seeds = [args.seed] if args.seed is not None else _parse_seeds(args.seeds)
    for seed in seeds:
        case = generate(seed)
        dpath, upath = case.write(args.out)[:2]
        if args.print_argv:
            import shlex
            print(shlex.join(["hbal"] + case.hbal_argv(dpath, upath)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
