# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeded random IAllocator requests (node-evacuate, change-group, relocate)
for the differential tests against the real hail.

Written directly as IAllocator documents (not through cluster_gen's text
format): what hail reads only from these documents — alloc policies, group
networks and NIC networks, drained / not vm_capable nodes, exclusive storage
with spindles, admin states, request shapes — is drawn here.

Public API::

    generate(seed) -> dict          # the whole request document
    FEATURES                        # names of the features a document can show
    features(doc) -> set            # which of them this document shows

Command line: ``python tests/gen/ialloc_gen.py --seed N [--out FILE]``.
Only the standard library is used; the clusters are small (hail and our
planner answer in milliseconds).
"""

from __future__ import annotations

import argparse
import json
import random

TEMPLATES = ("drbd", "drbd", "drbd", "plain", "file", "diskless", "sharedfile", "blockdev",
             "rbd", "ext", "gluster")
POLICIES = ("preferred", "preferred", "last_resort", "unallocable")
MODES = ("primary-only", "secondary-only", "all")
FEATURES = ("node-evacuate", "change-group", "relocate", "target-groups", "any-group",
            "offline", "drained", "not-vm-capable", "exclusive-storage", "networks",
            "location-tags", "migration-tags", "exclusion-tags", "forthcoming",
            "multi-group") + tuple("mode:" + m for m in MODES) + tuple(
                "template:" + t for t in sorted(set(TEMPLATES))) + tuple(
                    "policy:" + p for p in sorted(set(POLICIES)))


def _ispec(mem, cpu, disk, dcount, nics, spindles):
    return {"memory-size": mem, "cpu-count": cpu, "disk-size": disk, "disk-count": dcount,
            "nic-count": nics, "spindle-use": spindles}


def _ipolicy(rng):
    hi_mem = rng.choice((32768, 32768, 4096))
    templates = ["sharedfile", "diskless", "plain", "blockdev", "drbd", "file", "rbd", "ext",
                 "gluster"]
    if rng.random() < 0.15:
        templates.remove(rng.choice(templates))
    minmax = [{"min": _ispec(128, 1, 128, 1, 1, 1),
               "max": _ispec(hi_mem, 8, 1048576, 16, 8, rng.choice((8, 8, 2)))}]
    if rng.random() < 0.2:
        minmax.append({"min": _ispec(64, 1, 64, 1, 1, 1),
                       "max": _ispec(65536, 16, 1048576, 16, 8, 12)})
    return {"minmax": minmax, "std": _ispec(128, 1, 1024, 1, 1, 1),
            "disk-templates": templates,
            "vcpu-ratio": rng.choice((4.0, 4.0, 2.0, 1.5)),
            "spindle-ratio": rng.choice((32.0, 32.0, 5.0))}


def generate(seed):
    rng = random.Random(seed)
    n_groups = rng.choice((1, 2, 2, 3, 3))
    networks = ["net-uuid-%d" % k for k in range(3)]
    groups = {}
    for g in range(n_groups):
        groups["uuid-group-%d" % g] = {
            "name": "group%d" % g,
            "alloc_policy": rng.choice(POLICIES) if g else rng.choice(("preferred", "preferred",
                                                                       "last_resort")),
            "networks": sorted(rng.sample(networks, rng.choice((0, 1, 2, 3)))),
            "ipolicy": _ipolicy(rng), "tags": []}
    guuids = list(groups)
    cluster_tags = []
    use_loc = rng.random() < 0.25
    use_mig = rng.random() < 0.15
    use_excl = rng.random() < 0.3
    if use_loc:
        cluster_tags.append("htools:nlocation:rack")
    if use_mig:
        cluster_tags += ["htools:migration:hv", "htools:allowmigration:hv:a::hv:b"]
    if use_excl:
        cluster_tags.append("htools:iextags:service")
    if rng.random() < 0.1:
        cluster_tags.append("htools:desiredlocation:want")

    nodes = {}
    node_meta = []
    excl_groups = {u for u in guuids if rng.random() < 0.15}
    for g, uuid in enumerate(guuids):
        count = rng.choice((0, 2, 3, 3, 4, 5, 6)) if g else rng.choice((2, 3, 4, 4, 5, 6))
        for _k in range(count):
            name = "node%d" % (len(node_meta) + 1)
            excl = uuid in excl_groups
            state = rng.random()
            offline = state < 0.08
            drained = 0.08 <= state < 0.14
            vm_capable = not (0.14 <= state < 0.17)
            tags = []
            if use_loc and rng.random() < 0.7:
                tags.append("rack:r%d" % rng.randrange(3))
            if use_mig and rng.random() < 0.7:
                tags.append(rng.choice(("hv:a", "hv:b")))
            t_mem = rng.choice((8192, 16384, 32768, 65536))
            t_dsk = rng.choice((102400, 512000, 1048576))
            spindles = rng.choice((4, 8, 12))
            node = {"offline": offline, "drained": drained, "group": uuid,
                    "ndparams": {"exclusive_storage": excl, "spindle_count": rng.choice((1, 2, 4)),
                                 "oob_program": None, "ssh_port": 22},
                    "tags": tags, "master_candidate": True, "master_capable": True,
                    "primary_ip": "127.0.2.%d" % (len(node_meta) + 1),
                    "secondary_ip": "127.0.3.%d" % (len(node_meta) + 1)}
            if not vm_capable or rng.random() < 0.3:
                node["vm_capable"] = vm_capable
            meta = {"name": name, "group": uuid, "t_mem": t_mem, "t_dsk": t_dsk,
                    "n_mem": rng.choice((0, 512, 1024)), "t_cpu": rng.choice((4, 8, 16)),
                    "spindles": spindles, "excl": excl, "node": node, "used_mem": 0,
                    "used_dsk": 0, "used_sp": 0, "live": not offline and vm_capable}
            node_meta.append(meta)
            nodes[name] = node

    by_group = {}
    for meta in node_meta:
        by_group.setdefault(meta["group"], []).append(meta)
    instances = {}
    count = rng.randrange(4, 4 + 3 * len(node_meta))
    for k in range(count):
        gmetas = list(by_group.get(rng.choice(guuids), [])) or node_meta
        template = rng.choice(TEMPLATES)
        if template == "drbd" and len(gmetas) < 2:
            template = "plain"
        pm = rng.choice(gmetas)
        placed = [pm]
        if template == "drbd":
            placed.append(rng.choice([m for m in gmetas if m is not pm]))
        mem = rng.choice((128, 256, 512, 1024, 2048, 4096))
        sizes = [rng.choice((1024, 2048, 10240, 20480))]
        if rng.random() < 0.3:
            sizes.append(rng.choice((512, 1024, 4096)))
        excl = any(m["excl"] for m in placed)
        disks = []
        for size in sizes:
            disk = {"size": size, "mode": "rw"}
            if excl and rng.random() < 0.9:
                disk["spindles"] = rng.choice((1, 1, 2))
            disks.append(disk)
        tags = []
        if use_excl and rng.random() < 0.4:
            tags.append("service:%s" % rng.choice(("web", "db")))
        if rng.random() < 0.05:
            tags.append("want:r1")
        nics = [{"mac": "aa:00:00:00:%02x:%02x" % (k // 256, k % 256), "ip": None,
                 "mode": "bridged", "link": "br0"}]
        if rng.random() < 0.25:
            nics[0]["network"] = rng.choice(networks)
        state = rng.choice(("up", "up", "up", "down", "offline", None))
        inst = {"disk_space_total": sum(sizes), "disks": disks, "memory": mem,
                "vcpus": rng.choice((1, 1, 2, 4)), "tags": tags, "disk_template": template,
                "spindle_use": rng.choice((1, 1, 2)), "nics": nics,
                "nodes": [m["name"] for m in placed], "os": "debootstrap+default",
                "hypervisor": "xen-pvm"}
        if state is not None:
            inst["admin_state"] = state
        if rng.random() < 0.04:
            inst["forthcoming"] = True
        elif rng.random() < 0.2:
            inst["forthcoming"] = False
        instances["inst%d" % (k + 1)] = inst
        if state in (None, "up"):
            pm["used_mem"] += mem
        for m in placed:
            if template in ("drbd", "plain"):
                m["used_dsk"] += sum(sizes)
            m["used_sp"] += sum(d.get("spindles", 1) for d in disks)

    tight = rng.random() < 0.3
    for meta in node_meta:
        node = meta["node"]
        if not meta["live"] and rng.random() < 0.7:
            continue
        free_mem = meta["t_mem"] - meta["n_mem"] - meta["used_mem"]
        free_mem -= rng.choice((0, 0, 0, 256, 1024)) if not tight else rng.randrange(0, 8192)
        free_dsk = meta["t_dsk"] - meta["used_dsk"] - (rng.randrange(0, 60000) if tight else 0)
        node.update({"total_memory": meta["t_mem"], "reserved_memory": meta["n_mem"],
                     "free_memory": max(free_mem, rng.choice((0, 64, 512))),
                     "total_disk": meta["t_dsk"], "free_disk": max(free_dsk, 0),
                     "total_cpus": meta["t_cpu"], "reserved_cpus": rng.choice((0, 1)),
                     "free_spindles": max(meta["spindles"] - meta["used_sp"], 0),
                     "i_pri_memory": 0, "i_pri_up_memory": 0})
        if meta["excl"]:
            node["total_spindles"] = meta["spindles"]

    doc = {"version": 2, "cluster_name": "cluster.example.com", "cluster_tags": cluster_tags,
           "enabled_hypervisors": ["xen-pvm", "kvm"] if rng.random() < 0.9 else ["kvm"],
           "ipolicy": _ipolicy(rng), "nodegroups": groups, "nodes": nodes,
           "instances": instances,
           "request": _request(rng, doc_nodes=node_meta, instances=instances, groups=groups)}
    return doc


def _request(rng, doc_nodes, instances, groups):
    names = list(instances)
    kind = rng.random()
    populated = {m["group"] for m in doc_nodes}
    if 0.5 <= kind < 0.92 and len(populated) < 2 and rng.random() < 0.85:
        kind = rng.random() * 0.5       # change-group needs a second group to say much
    if kind < 0.5:
        node = rng.choice(doc_nodes)["name"]
        mode = rng.choice(MODES)
        picked = [n for n in names
                  if (mode != "secondary-only" and instances[n]["nodes"][0] == node)
                  or (mode != "primary-only" and instances[n]["nodes"][1:] == [node])]
        if not picked or rng.random() < 0.2:
            picked = rng.sample(names, min(len(names), rng.randrange(1, 4)))
        if rng.random() < 0.3:
            rng.shuffle(picked)
        return {"type": "node-evacuate", "instances": picked, "evac_mode": mode}
    if kind < 0.92:
        node_group = {m["name"]: m["group"] for m in doc_nodes}
        group = node_group[instances[rng.choice(names)]["nodes"][0]]
        pool = [n for n in names if node_group[instances[n]["nodes"][0]] == group]
        picked = rng.sample(pool, min(len(pool), rng.randrange(1, 5)))
        targets = []
        if rng.random() < 0.5:
            keys = list(groups)
            targets = rng.sample(keys, rng.randrange(1, len(keys) + 1))
            targets = [t if rng.random() < 0.7 else groups[t]["name"] for t in targets]
        return {"type": "change-group", "instances": picked, "target_groups": targets}
    name = rng.choice(names)
    inst = instances[name]
    if inst["disk_template"] == "drbd":
        frm = [inst["nodes"][1]]
    else:
        frm = [inst["nodes"][0]]
    if rng.random() < 0.1:
        frm = [rng.choice(doc_nodes)["name"]]
    return {"type": "relocate", "name": name, "required_nodes": 1, "relocate_from": frm,
            "disk_space_total": inst["disk_space_total"]}


def features(doc):
    """The FEATURES this document shows (for the coverage check of the tests)."""
    out = set()
    req = doc["request"]
    out.add(req["type"])
    if req["type"] == "node-evacuate":
        out.add("mode:" + req["evac_mode"])
    if req["type"] == "change-group":
        out.add("target-groups" if req["target_groups"] else "any-group")
    for node in doc["nodes"].values():
        if node["offline"]:
            out.add("offline")
        if node["drained"]:
            out.add("drained")
        if node.get("vm_capable") is False:
            out.add("not-vm-capable")
        if node["ndparams"]["exclusive_storage"]:
            out.add("exclusive-storage")
    for group in doc["nodegroups"].values():
        out.add("policy:" + group["alloc_policy"])
        if group["networks"]:
            out.add("networks")
    if len(doc["nodegroups"]) > 1:
        out.add("multi-group")
    tags = doc["cluster_tags"]
    if any(t.startswith("htools:nlocation:") for t in tags):
        out.add("location-tags")
    if any(t.startswith("htools:migration:") for t in tags):
        out.add("migration-tags")
    if any(t.startswith("htools:iextags:") for t in tags):
        out.add("exclusion-tags")
    for inst in doc["instances"].values():
        out.add("template:" + inst["disk_template"])
        if inst.get("forthcoming"):
            out.add("forthcoming")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out")
    args = parser.parse_args()
    text = json.dumps(generate(args.seed), indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
