# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RAPI responses (as Ganeti serves them) to the cluster model, as `hbal -m` reads them.

The mapping is independent of the transport: it takes the decoded JSON of
/2/info, /2/nodes?bulk=1, /2/instances?bulk=1 and /2/groups?bulk=1, whether
they come from a saved directory or from the live client.
"""

from __future__ import annotations

import os

from ..errors import DataError
from .jsonfields import JsonObject, load_json_file
from .placement import check_placements
from ..model.cluster import ClusterData
from ..model.group import Group, IPolicy, ISpec
from ..model.instance import Instance
from ..model.node import STATIC_KVM_MEMORY, Node, kvm_node_memory
from ..model.storage import resolve_disk_units
from .storage_json import node_storage_units
from ..model.vocabulary import ALLOC_POLICIES, DISK_TEMPLATES, NO_NODE, RUN_STATUSES

DEFAULT_GROUP_UUID = "00000000-0000-0000-0000-000000000000"
_ISPEC_KEYS = ("memory-size", "cpu-count", "disk-size", "disk-count", "nic-count", "spindle-use")
RAPI_FILES = ("info", "nodes", "instances", "groups")


def parse_ipolicy(value, source, what):
    """An ipolicy object as RAPI and IAllocator serve it."""
    pol = JsonObject(value, source, what)

    def ispec(obj_value, label):
        spec = JsonObject(obj_value, source, "%s %s" % (what, label))
        return ISpec(*[spec.get(k, "int") for k in _ISPEC_KEYS])

    minmax = []
    for pos, pair in enumerate(pol.get("minmax", "list")):
        entry = JsonObject(pair, source, "%s minmax[%d]" % (what, pos))
        minmax.append((ispec(entry.get("min", "dict"), "min"), ispec(entry.get("max", "dict"), "max")))
    return IPolicy(ispec(pol.get("std", "dict"), "std"), minmax,
                   pol.get("disk-templates", "str_list"), pol.get("vcpu-ratio", "float"),
                   pol.get("spindle-ratio", "float"))


def _check_choice(obj, key, value, choices):
    if value not in choices:
        raise DataError("%s: bad key %r" % (obj.what, key), source=obj.source,
                        expected="one of " + ", ".join(choices), got=value)
    return value


# A node's live values (from its node daemon, through the master) that hbal -m
# cannot do without - it refuses the data when one is null - and those it takes
# as 0 then (Ganeti's Backend/Rapi.hs: extract vs. a default for the disk fields).
LIVE_REQUIRED = ("mtotal", "mnode", "mfree", "ctotal", "cnos")
LIVE_DEFAULT_ZERO = ("dtotal", "dfree", "spfree")
# what a node looks like with such a value taken as 0
_AS_ZERO = {"dtotal": "no disk at all", "dfree": "no free disk", "spfree": "no free spindles",
            "sptotal": "no spindles"}
WHY_NULL = ("Ganeti (RAPI, LUXI) answers null for the live values of a node whose node daemon did not "
            "answer the master in time (the node down or overloaded, or the master overloaded)")


def _check_live_values(node, name, excl, source, warnings):
    """Refuse, as hbal -m does, a live node without its memory or CPU figures, naming
    all of them; warn about the disk figures that are taken as 0 then."""
    null = [k for k in LIVE_REQUIRED if k in node.value and node.value[k] is None]
    if null:
        raise DataError(
            "node %s has no live %s (null): %s; hbal -m refuses such data too, since "
            "without them the node's memory and CPUs are unknown and nothing can be "
            "planned around it. Retry once the node answers, or set it offline in Ganeti "
            "(gnt-node modify --offline=yes) if it is down" % (name, ", ".join(null), WHY_NULL),
            source=source)
    zero = [k for k in LIVE_DEFAULT_ZERO + (("sptotal",) if excl else ())
            if node.value.get(k, 0) is None]
    if zero:
        warnings.append(
            "node %s has no live %s (null), taken as 0 as hbal -m does: %s; the node then "
            "looks as if it had %s, so no disk is planned onto it" % (
                name, ", ".join(zero), WHY_NULL, " and ".join(_AS_ZERO[k] for k in zero)))


def load_rapi(info, nodes, instances, groups, source="<rapi>",
              static_kvm_memory=STATIC_KVM_MEMORY, storage=None, reader="rapi",
              node_order="name"):
    """Build ClusterData from decoded RAPI responses.

    `storage`: each node's storage units, {node name: [{"sunit": [type, key,
    params], "free": MiB, "total": MiB}]} (live/storage_query.py, or a saved
    directory's storage.json); None reads none, as hbal does.

    reader="luxi": the same dicts, built from LUXI queries, read as `hbal -L`
    reads its fields: an instance's memory is its configured maximum (never
    the hypervisor's live `oper_ram`), and a node's CPU speed comes from its
    `cpu_speed` node parameter (hbal -m leaves it at 1).

    node_order="config": the nodes in the order Ganeti's configuration holds
    them (by UUID, when every node has one), the order of the nodes of the
    IAllocator requests Ganeti builds; hail breaks ties between equally good
    targets by it.  "name" keeps RAPI's order (by name), the one hbal reads.
    """
    for name, value in (("nodes", nodes), ("instances", instances), ("groups", groups)):
        if not isinstance(value, list):
            raise DataError("%s response is not a list (was it fetched with bulk=1?)" % name,
                            source=source)
    group_list = _groups(groups, source)
    by_uuid = {g.uuid: g for g in group_list}

    cluster = JsonObject(info, source, "cluster info")
    hypervisor = cluster.get("default_hypervisor", "str", None)
    node_list, warnings = [], []
    if node_order == "config" and all(isinstance(raw, dict) and isinstance(raw.get("uuid"), str)
                                      for raw in nodes):
        nodes = sorted(nodes, key=lambda raw: raw["uuid"])
    for pos, raw in enumerate(nodes):
        node_list.append(_node(pos, raw, source, by_uuid, hypervisor, static_kvm_memory,
                               storage, reader, warnings))
    node_idx = {node.name: node.idx for node in node_list}

    master = cluster.get("master", "str", None)
    if master is not None:
        if master not in node_idx:
            raise DataError("cluster master %r is not in the node list" % master, source=source)
        node_list[node_idx[master]].is_master = True

    inst_list = [_instance(pos, raw, source, node_idx, reader)
                 for pos, raw in enumerate(instances)]

    policy = cluster.get("ipolicy", "dict", None)
    data = ClusterData(group_list, node_list, inst_list, cluster.get("tags", "str_list", []),
                       parse_ipolicy(policy, source, "cluster ipolicy") if policy else None)
    data.source = source
    data.load_warnings = warnings
    data.warnings.extend(warnings)
    resolve_disk_units(data)
    check_placements(data, source)
    return data


def _groups(groups, source):
    group_list = []
    for pos, raw in enumerate(groups):
        g = JsonObject(raw, source, "group #%d" % pos)
        name = g.get("name", "str")
        group_list.append(Group(pos, name, g.get("uuid", "str"),
                                _check_choice(g, "alloc_policy", g.get("alloc_policy", "str"),
                                              ALLOC_POLICIES),
                                g.get("tags", "str_list", []), [],
                                parse_ipolicy(g.get("ipolicy", "dict"), source,
                                              "group %s ipolicy" % name)))
    return group_list


def _node(pos, raw, source, by_uuid, hypervisor, static_kvm_memory, storage, reader,
          warnings):
    """One node of the nodes response (its live-value warnings added to `warnings`)."""
    n = JsonObject(raw, source, "node #%d" % pos)
    name = n.get("name", "str")
    n.what = "node %s" % name
    drained = n.get("drained", "bool")
    live = not n.get("offline", "bool") and n.get("vm_capable", "bool", True)
    ndparams = n.obj("ndparams")
    excl = ndparams.get("exclusive_storage", "bool")
    group_uuid = n.get("group.uuid", "str", DEFAULT_GROUP_UUID)
    group = by_uuid.get(group_uuid)
    if group is None:
        raise DataError("node %s: unknown group %r" % (name, group_uuid), source=source,
                        expected="the UUID of a group in the groups response")

    if live:
        _check_live_values(n, name, excl, source, warnings)

    def live_value(key, kind, default=None):
        if not live:
            return 0.0 if kind == "float" else 0
        if default is None:
            return n.get(key, kind)
        return n.get(key, kind, default)

    t_spindles = (n.get("sptotal", "int", 0) if live else 0) if excl \
        else ndparams.get("spindle_count", "int")
    node = Node(pos, name, live_value("mtotal", "float"), live_value("mnode", "int"),
                live_value("mfree", "int"), live_value("dtotal", "float", 0.0),
                live_value("dfree", "int", 0), live_value("ctotal", "float"),
                live_value("cnos", "int"), (not live) or drained, False, group.idx,
                t_spindles=t_spindles, f_spindles=live_value("spfree", "int", 0),
                excl_storage=excl, tags=n.get("tags", "str_list", []))
    if reader == "luxi":
        node.t_cpu_speed = ndparams.get("cpu_speed", "float", 1.0)
    node.drained = drained
    node.hypervisor = hypervisor
    node.n_mem = kvm_node_memory(node.n_mem, hypervisor, static_kvm_memory)
    if storage and storage.get(name):
        node.set_storage_units(node_storage_units(storage[name], source, name))
    return node


def _instance(pos, raw, source, node_idx, reader):
    """One instance of the instances response."""
    i = JsonObject(raw, source, "instance #%d" % pos)
    name = i.get("name", "str")
    i.what = "instance %s" % name
    beparams = i.obj("beparams")
    oper_ram = i.value.get("oper_ram") if reader == "rapi" else None
    if isinstance(oper_ram, int) and not isinstance(oper_ram, bool):
        mem = oper_ram
    elif "memory" in beparams.value:
        mem = beparams.get("memory", "int")
    else:
        mem = beparams.get("maxmem", "int")
    pnode_name = i.get("pnode", "str")
    if pnode_name not in node_idx:
        raise DataError("instance %s: unknown primary node %r" % (name, pnode_name),
                        source=source)
    snodes = i.get("snodes", "str_list", [])
    snode = NO_NODE
    if snodes:
        if snodes[0] not in node_idx:
            raise DataError("instance %s: unknown secondary node %r" % (name, snodes[0]),
                            source=source)
        snode = node_idx[snodes[0]]
    sizes = i.get("disk.sizes", "list", [])
    spindles = i.get("disk.spindles", "list", [])
    disks = [(size, spindles[k] if k < len(spindles) else None)
             for k, size in enumerate(sizes)]
    template = _check_choice(i, "disk_template", i.get("disk_template", "str"), DISK_TEMPLATES)
    status = _check_choice(i, "status", i.get("status", "str"), RUN_STATUSES)
    return Instance(
        pos, name, mem, i.get("disk_usage", "int"), beparams.get("vcpus", "int"), status,
        beparams.get("auto_balance", "bool"), node_idx[pnode_name], snode, template,
        tags=i.get("tags", "str_list", []), spindle_use=beparams.get("spindle_use", "int"),
        disks=disks, forthcoming=i.get("forthcoming", "bool", False),
        uuid=i.value["uuid"] if isinstance(i.value.get("uuid"), str) else None)


def load_rapi_dir(path, static_kvm_memory=STATIC_KVM_MEMORY, node_order="name"):
    """Saved responses: DIR/{info,nodes,instances,groups}.json (hbal's file:// layout)."""
    missing = [n for n in RAPI_FILES if not os.path.isfile(os.path.join(path, n + ".json"))]
    if missing:
        raise DataError("directory of saved RAPI responses lacks %s"
                        % ", ".join(m + ".json" for m in missing), source=path)
    docs = {n: load_json_file(os.path.join(path, n + ".json")) for n in RAPI_FILES}
    storage_file = os.path.join(path, "storage.json")      # written by this collection
    storage = load_json_file(storage_file) if os.path.isfile(storage_file) else None
    if storage is not None and not isinstance(storage, dict):
        raise DataError("storage.json is not an object of node names", source=storage_file)
    tags_file = os.path.join(path, "tags.json")
    if os.path.isfile(tags_file) and isinstance(docs["info"], dict):
        docs["info"] = dict(docs["info"], tags=load_json_file(tags_file))
    return load_rapi(docs["info"], docs["nodes"], docs["instances"], docs["groups"], source=path,
                     static_kvm_memory=static_kvm_memory, storage=storage, node_order=node_order)
