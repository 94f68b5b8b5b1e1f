# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeded IAllocator allocate, multi-allocate and allocate-secondary requests.

The cluster of each document is ialloc_gen's (groups of every policy,
offline and drained nodes, exclusive storage, storage units, tags,
networks); the request is drawn here: templates, disk counts and sizes,
spindles, admin states, tags, networks, group_name, restrict-to-nodes.

Public API: ``generate(seed) -> dict`` (the whole request document).
"""

from __future__ import annotations

import random

from gen import ialloc_gen

FEATURES = ("allocate", "multi-allocate", "allocate-secondary", "group_name",
            "restrict-to-nodes", "drbd", "plain", "diskless", "rbd", "network")


def _instance(rng, name, groups):
    template = rng.choice(("drbd", "drbd", "plain", "diskless", "rbd", "file", "sharedfile"))
    count = 0 if template == "diskless" else rng.choice((1, 1, 2))
    disks = []
    for _k in range(count):
        disk = {"size": rng.choice((1024, 5120, 10240, 51200)), "mode": "rw"}
        if rng.random() < 0.5:
            disk["spindles"] = rng.choice((1, 2))
        disks.append(disk)
    nics = [{"mac": "aa:00:00:00:00:99", "ip": None, "mode": "bridged", "link": "br0"}]
    nets = sorted({n for g in groups.values() for n in g.get("networks", [])})
    if nets and rng.random() < 0.3:
        nics[0]["network"] = rng.choice(nets)
    raw = {"name": name, "disk_space_total": sum(d["size"] for d in disks),
           "disks": disks, "memory": rng.choice((128, 512, 1024, 4096, 16384)),
           "vcpus": rng.choice((1, 2, 4)), "tags": rng.choice(([], ["want:r1"], ["svc:web"])),
           "disk_template": template, "spindle_use": rng.choice((1, 2)), "nics": nics,
           "os": "debootstrap+default", "hypervisor": "xen-pvm",
           "required_nodes": 2 if template == "drbd" else 1}
    if rng.random() < 0.15:
        raw["admin_state"] = rng.choice(("down", "offline"))
    return raw


def generate(seed):
    rng = random.Random(seed * 7919 + 1)
    doc = ialloc_gen.generate(seed)
    groups = doc["nodegroups"]
    kind = rng.random()
    if kind < 0.45:
        req = dict(_instance(rng, "new1.example.com", groups), type="allocate")
        if rng.random() < 0.25:
            req["group_name"] = rng.choice([g["name"] for g in groups.values()])
        if rng.random() < 0.15:
            nodes = sorted(doc["nodes"])
            req["restrict-to-nodes"] = rng.sample(nodes, max(1, len(nodes) // 2))
    elif kind < 0.8:
        req = {"type": "multi-allocate",
               "instances": [_instance(rng, "new%d.example.com" % k, groups)
                             for k in range(rng.randint(1, 4))]}
        if rng.random() < 0.2:
            req["group_name"] = rng.choice([g["name"] for g in groups.values()])
    else:
        names = sorted(doc["instances"])
        single = [n for n in names if len(doc["instances"][n]["nodes"]) == 1]
        pick = rng.choice(single) if single and rng.random() < 0.85 else rng.choice(names)
        req = {"type": "allocate-secondary", "name": pick}
    doc["request"] = req
    return doc


def features(doc):
    req = doc["request"]
    out = {req["type"]}
    out |= {k for k in ("group_name", "restrict-to-nodes") if k in req}
    for raw in req.get("instances", [req]):
        out.add(raw.get("disk_template"))
        if any("network" in nic for nic in raw.get("nics", [])):
            out.add("network")
    return out
