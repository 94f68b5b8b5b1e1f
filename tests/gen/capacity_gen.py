# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeded small clusters (htools text format) and hspace option sets.

Small on purpose: hspace is slow, so nodes are a few GiB and the instance
policies small, and a case runs in well under a second in hspace.  Covered:
one to three node groups (preferred, last_resort, unallocable), DRBD,
plain, diskless and shared-storage instances, offline nodes, exclusive
storage, exclusion tags, group policies that differ from the cluster's,
forthcoming instances (reserved: their memory and disk are not in the
nodes' free figures, as Ganeti reports them), N+1 failures, and every
hspace option that changes the answer.

Public API: ``generate(seed) -> (data text, [hspace argv], module options dict)``.
"""

from __future__ import annotations

import random

TEMPLATE_LISTS = ("diskless,drbd,plain,rbd", "drbd,plain", "plain,diskless", "rbd,drbd,diskless",
                  "diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext")
FEATURES = ("multi-group", "offline", "exclusive-storage", "exclusion-tags", "group-policy",
            "drbd", "plain", "diskless", "rbd", "last_resort", "unallocable", "forthcoming")


def _spec(mem, cpu, dsk, dcount, nics, su):
    return "%d,%d,%d,%d,%d,%d" % (mem, cpu, dsk, dcount, nics, su)


def _policy(rnd, name):
    lo = _spec(128, 1, 1024, 1, 1, 1)
    hi = _spec(rnd.choice((2048, 4096, 6144)), rnd.choice((2, 4, 8)),
               rnd.choice((10240, 20480, 40960)), 4, 4, rnd.choice((2, 4, 12)))
    std = _spec(rnd.choice((256, 512, 1024)), rnd.choice((1, 2)), rnd.choice((1024, 4096)), 1, 1, 1)
    return "%s|%s|%s;%s|%s|%s|%s" % (name, std, lo, hi, rnd.choice(TEMPLATE_LISTS),
                                     rnd.choice(("2", "4.0", "8")), rnd.choice(("8", "32")))


def generate(seed):
    rnd = random.Random(seed)
    features = set()
    ngroups = rnd.choice((1, 1, 2, 3))
    groups = []
    for g in range(ngroups):
        policy = "preferred" if g == 0 else rnd.choice(("preferred", "last_resort", "unallocable"))
        groups.append(("g%d" % g, "uuid-%d" % g, policy))
        if g:
            features.update(("multi-group", policy if policy != "preferred" else "multi-group"))
    excl_group = rnd.random() < 0.2
    nodes = []
    for g, (_gname, guuid, _p) in enumerate(groups):
        for k in range(rnd.randint(2, 4)):
            name = "node%d%d" % (g, k)
            excl = excl_group and g == 0
            nodes.append(dict(name=name, group=g, uuid=guuid, t_mem=rnd.choice((4096, 6144, 8192)),
                              n_mem=rnd.choice((256, 512)), t_dsk=rnd.choice((51200, 102400)),
                              t_cpu=rnd.choice((2, 4, 8)), spindles=rnd.choice((2, 4, 6)),
                              offline=rnd.random() < 0.1, excl=excl, used_mem=0, used_dsk=0,
                              used_spn=0, master=(g == 0 and k == 0)))
            features.add("exclusive-storage" if excl else "drbd")
    if any(n["offline"] for n in nodes):
        features.add("offline")
    tags = rnd.random() < 0.3
    forthcoming = rnd.random() < 0.25
    insts = []
    for i in range(rnd.randint(0, 3 * len(nodes))):
        pnode = rnd.choice(nodes)
        peers = [n for n in nodes if n["group"] == pnode["group"] and n is not pnode]
        template = rnd.choice(("drbd", "plain", "diskless", "rbd") if peers
                              else ("plain", "diskless", "rbd"))
        features.add(template)
        mem = rnd.choice((128, 256, 512, 1024))
        dsk = rnd.choice((1024, 2048, 5120)) if template != "diskless" else 0
        snode = rnd.choice(peers) if template == "drbd" else None
        status = rnd.choice(("running", "running", "running", "ADMIN_down"))
        spn = 1 if pnode["excl"] else None
        reserved = forthcoming and rnd.random() < 0.3
        if reserved:
            features.add("forthcoming")
        elif status == "running":
            pnode["used_mem"] += mem
        for node in ([pnode] if template in ("drbd", "plain") else []) + ([snode] if snode else []):
            if not reserved:
                node["used_dsk"] += dsk
                node["used_spn"] += spn or 0
        itags = ""
        if tags and rnd.random() < 0.5:
            itags = "svc:%s" % rnd.choice("ab")
            features.add("exclusion-tags")
        insts.append("inst%d|%d|%d|%d|%s|Y|%s|%s|%s|%s|1|%s%s" % (
            i, mem, dsk, rnd.choice((1, 2)), status, pnode["name"], snode["name"] if snode else "",
            template, itags, "-" if spn is None else spn, "|Y" if reserved else
            ("|N" if forthcoming else "")))
    node_lines = []
    for n in nodes:
        f_mem = max(0, n["t_mem"] - n["n_mem"] - n["used_mem"])
        f_dsk = max(0, n["t_dsk"] - n["used_dsk"])
        flag = "Y" if n["offline"] else ("M" if n["master"] else "N")
        node_lines.append("%s|%d|%d|%d|%d|%d|%d|%s|%s|%d||%s|%d" % (
            n["name"], n["t_mem"], n["n_mem"], f_mem, n["t_dsk"], f_dsk, n["t_cpu"], flag,
            n["uuid"], n["spindles"], "Y" if n["excl"] else "N",
            max(0, n["spindles"] - n["used_spn"]) if n["excl"] else 0))
    ctags = ["htools:iextags:svc"] if tags else []
    policies = [_policy(rnd, "")]
    for gname, _u, _p in groups:
        if rnd.random() < 0.3:
            policies.append(_policy(rnd, gname))
            features.add("group-policy")
    text = ("\n".join("%s|%s|%s||" % g for g in groups) + "\n\n" + "\n".join(node_lines) + "\n\n"
            + "\n".join(insts) + ("\n" if insts else "") + "\n" + "\n".join(ctags)
            + ("\n" if ctags else "") + "\n" + "\n".join(policies) + "\n")
    argv, opts = _options(rnd, nodes)
    return text, argv, opts, features


def _options(rnd, nodes):
    argv, opts = [], {}
    if rnd.random() < 0.4:
        tpl = rnd.choice(("drbd", "plain", "diskless", "rbd"))
        argv += ["--disk-template", tpl]
        opts["disk_template"] = tpl
    if rnd.random() < 0.3:
        mem, dsk, cpu = rnd.choice((512, 1024, 1536)), rnd.choice((1024, 4096)), rnd.choice((1, 2))
        argv += ["--standard-alloc", "%d,%d,%d" % (dsk, mem, cpu)]
        opts["standard_spec"] = dict(memory=mem, disk=dsk, vcpus=cpu)
    if rnd.random() < 0.3:
        mem, dsk, cpu = rnd.choice((2048, 3072)), rnd.choice((8192, 20480)), rnd.choice((2, 4))
        spn = rnd.choice((None, 2))
        argv += ["--tiered-alloc", "%d,%d,%d%s" % (dsk, mem, cpu, "" if spn is None else ",%d" % spn)]
        opts["tiered_spec"] = dict(memory=mem, disk=dsk, vcpus=cpu, spindles=spn)
    for flag, key in (("--independent-groups", "independent_groups"),
                      ("--accept-existing-errors", "accept_existing_errors"),
                      ("--no-capacity-checks", "no_capacity_checks")):
        if rnd.random() < 0.25:
            argv.append(flag)
            opts[key] = True
    if rnd.random() < 0.2:
        limit = rnd.choice((0, 1, 5, 30))
        argv += ["-l", str(limit)]
        opts["max_length"] = limit
    if rnd.random() < 0.2:
        node = rnd.choice(nodes)["name"]
        argv += ["-O", node]
        opts["offline_nodes"] = [node]
    if rnd.random() < 0.15:
        su = rnd.choice((0, 2))
        argv += ["--spindle-use", str(su)]
        opts["spindle_use"] = su
    if rnd.random() < 0.15:
        argv += ["--max-cpu", "2.5"]
        opts["max_cpu"] = 2.5
    if rnd.random() < 0.15:
        argv += ["--min-disk", "0.2"]
        opts["min_disk"] = 0.2
    return argv, opts
