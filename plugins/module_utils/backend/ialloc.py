# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IAllocator request documents (as `hbal -I` and hail read them) to the cluster model.

The request's node groups, nodes, instances and cluster tags are used; the
first enabled hypervisor becomes every node's.

Unlike `hbal -I`, the data is merged once: hbal's double merge (every
instance counted twice) is a bug that hail itself does not have.

Storage units (multi-storage design, model/storage.py): a node may carry
`storage`, a list of `{"sunit": [type, key, params], "free": MiB, "total":
MiB}`, and a disk `storage`, its desired unit as `[type, key]` (a third
element, parameters, is accepted and ignored).  Both are optional; without
them a request loads as before.  Offline and not vm-capable nodes report no
runtime data, so their units are ignored as their other sizes are.
"""

from __future__ import annotations

import json

from ..errors import DataError
from .jsonfields import JsonObject
from .placement import check_placements
from .rapi_json import parse_ipolicy
from .storage_json import node_storage_units
from ..model.node import STATIC_KVM_MEMORY, kvm_node_memory
from ..model.cluster import ClusterData
from ..model.group import Group
from ..model.instance import Instance
from ..model.node import Node
from ..model.storage import STORAGE_TYPES, resolve_disk_units
from ..model.vocabulary import ALLOC_POLICIES, DISK_TEMPLATES, NO_NODE

_ADMIN_STATE = {"up": "running", "down": "ADMIN_down", "offline": "ADMIN_offline"}


def load_ialloc(doc, source="<iallocator>", static_kvm_memory=STATIC_KVM_MEMORY):
    """Return (ClusterData, request dict)."""
    top = JsonObject(doc, source, "iallocator request")
    tags = top.get("cluster_tags", "str_list")
    hypervisors = top.get("enabled_hypervisors", "str_list")
    hypervisor = hypervisors[0] if hypervisors else None

    groups = []
    for pos, (uuid, raw) in enumerate(top.get("nodegroups", "dict").items()):
        g = JsonObject(raw, source, "node group %s" % uuid)
        policy = g.get("alloc_policy", "str")
        if policy not in ALLOC_POLICIES:
            raise DataError("node group %s: bad alloc_policy" % uuid, source=source,
                            expected="one of " + ", ".join(ALLOC_POLICIES), got=policy)
        groups.append(Group(pos, g.get("name", "str"), uuid, policy, g.get("tags", "str_list"),
                            g.get("networks", "str_list"),
                            parse_ipolicy(g.get("ipolicy", "dict"), source,
                                          "node group %s ipolicy" % uuid)))
    by_uuid = {g.uuid: g for g in groups}

    nodes = []
    for pos, (name, raw) in enumerate(top.get("nodes", "dict").items()):
        n = JsonObject(raw, source, "node %s" % name)
        offline = n.get("offline", "bool")
        drained = n.get("drained", "bool")
        vm_capable = n.get("vm_capable", "bool", True)
        group_uuid = n.get("group", "str")
        if group_uuid not in by_uuid:
            raise DataError("node %s: unknown group %r" % (name, group_uuid), source=source,
                            expected="a key of nodegroups")
        ndparams = n.obj("ndparams")
        excl = ndparams.get("exclusive_storage", "bool")
        live = not offline and vm_capable

        def val(key, kind):
            return n.get(key, kind) if live else (0.0 if kind == "float" else 0)

        t_spindles = val("total_spindles", "int") if excl else ndparams.get("spindle_count", "int")
        node = Node(pos, name, val("total_memory", "float"), val("reserved_memory", "int"),
                    val("free_memory", "int"), val("total_disk", "float"), val("free_disk", "int"),
                    val("total_cpus", "float"), val("reserved_cpus", "int"),
                    offline or drained or not vm_capable, False, by_uuid[group_uuid].idx,
                    t_spindles=t_spindles, f_spindles=val("free_spindles", "int"),
                    excl_storage=excl, tags=n.get("tags", "str_list", []))
        node.drained = drained
        node.hypervisor = hypervisor
        if live:
            node.set_storage_units(node_storage_units(n.get("storage", "list", []), source, name))
        node.n_mem = kvm_node_memory(node.n_mem, hypervisor, static_kvm_memory)
        nodes.append(node)
    node_idx = {node.name: node.idx for node in nodes}

    instances = []
    for pos, (name, raw) in enumerate(top.get("instances", "dict").items()):
        i = JsonObject(raw, source, "instance %s" % name)
        template = i.get("disk_template", "str")
        if template not in DISK_TEMPLATES:
            raise DataError("instance %s: bad disk_template" % name, source=source,
                            expected="one of " + ", ".join(DISK_TEMPLATES), got=template)
        placement = i.get("nodes", "str_list")
        if not placement:
            raise DataError("instance %s: empty node list" % name, source=source,
                            expected="[primary, secondary...]")
        for node_name in placement:
            if node_name not in node_idx:
                raise DataError("instance %s: unknown node %r" % (name, node_name), source=source)
        state = i.get("admin_state", "str", "up")
        if state not in _ADMIN_STATE:
            raise DataError("instance %s: bad admin_state" % name, source=source,
                            expected="up, down or offline", got=state)
        disks, disk_units = [], []
        for dpos, draw in enumerate(i.get("disks", "list")):
            d = JsonObject(draw, source, "instance %s disk %d" % (name, dpos))
            disks.append((d.get("size", "int"), d.get("spindles", "int", None)))
            disk_units.append(_desired_unit(d.get("storage", "list", None), d.what, source))
        instances.append(Instance(
            pos, name, i.get("memory", "int"), i.get("disk_space_total", "int"),
            i.get("vcpus", "int"), _ADMIN_STATE[state], True, node_idx[placement[0]],
            node_idx[placement[1]] if len(placement) > 1 else NO_NODE, template,
            tags=i.get("tags", "str_list"), spindle_use=i.get("spindle_use", "int"), disks=disks,
            forthcoming=i.get("forthcoming", "bool", False), nics=i.get("nics", "list"),
            disk_units=disk_units))

    ipolicy = _cluster_ipolicy(top.value.get("ipolicy"), source)
    data = ClusterData(groups, nodes, instances, tags, ipolicy)
    data.source = source
    resolve_disk_units(data)
    check_placements(data, source)
    request = top.get("request", "dict", None)
    return data, request


def _desired_unit(storage, what, source):
    """A disk's `storage` ([type, key] or [type, key, params]) as (type, key), or None."""
    if storage is None:
        return None
    if (len(storage) not in (2, 3) or storage[0] not in STORAGE_TYPES
            or not isinstance(storage[1], str) or storage[1] == ""):
        raise DataError("%s: bad key 'storage'" % what, source=source,
                        expected="[type, key] with a type among %s and a non-empty key"
                                 % ", ".join(STORAGE_TYPES), got=storage)
    return (storage[0], storage[1])


def _cluster_ipolicy(policy, source):
    """The cluster policy, when it is readable: hail (and hbal -I) use the
    groups' policies and never read this one, so an old or partial one
    (Ganeti's own test requests carry such) must not reject the request."""
    if not policy:
        return None
    try:
        return parse_ipolicy(policy, source, "cluster ipolicy")
    except DataError:
        return None


def load_ialloc_text(text, source="<iallocator>", static_kvm_memory=STATIC_KVM_MEMORY):
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise DataError("invalid JSON: %s" % err, source=source)
    return load_ialloc(doc, source=source, static_kvm_memory=static_kvm_memory)
