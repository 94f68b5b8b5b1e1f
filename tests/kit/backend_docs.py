# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model written as the documents the other backends read.

* ``model_to_rapi()``: the four answers Ganeti 3.0's RAPI serves for a
  cluster (``/2/groups?bulk=1``, ``/2/nodes?bulk=1``, ``/2/instances?bulk=1``,
  ``/2/info``), written by ``write_rapi_dir()`` as the directory that
  ``hbal -m file://DIR`` reads (``oracle.hbal.run_hbal_rapi``);
* ``model_to_ialloc()``: an IAllocator request document;
* ``ipolicy_json()`` / ``ispec_json()``: an instance policy as both carry it.

Nothing here is copied from Ganeti: the documents carry the keys Ganeti 3.0
serves and htools reads (summed up above each part).
"""

from __future__ import annotations

import json
import os

# ---------------------------------------------------------------------------
# model -> RAPI responses
#
# hbal -m reads /2/groups?bulk=1, /2/nodes?bulk=1, /2/instances?bulk=1 and
# /2/info.  A node that is not live (offline or not vm_capable) counts with
# zero resources, and a drained node as offline.  An instance's memory is
# oper_ram if that is a number, else beparams.memory, else beparams.maxmem; a
# node's spindles are sptotal with exclusive storage, else
# ndparams.spindle_count.  The master named in /2/info must be a known node.

_ISPEC_KEYS = ("memory-size", "cpu-count", "disk-size", "disk-count", "nic-count", "spindle-use")


def _num(value):
    """A float that is integral is served as a JSON integer, as Ganeti does."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def ispec_json(spec):
    return dict(zip(_ISPEC_KEYS, spec.as_tuple()))


def ipolicy_json(policy):
    return {
        "minmax": [{"min": ispec_json(lo), "max": ispec_json(hi)} for lo, hi in policy.minmax],
        "std": ispec_json(policy.std),
        "disk-templates": list(policy.disk_templates),
        "vcpu-ratio": policy.vcpu_ratio,
        "spindle-ratio": policy.spindle_ratio,
    }


def model_to_rapi(data, rng, hypervisor="xen-pvm", drained=(), not_vm_capable=(),
                  master=None):
    """The RAPI responses for a freshly loaded (not prepared) text model.

    ``drained`` / ``not_vm_capable``: node names to mark so.  Values of nodes
    that are not live (offline or not vm_capable) are served as null or as
    stale numbers at random: hbal must not read them.  Returns
    ``{"groups": [...], "nodes": [...], "instances": [...], "info": {...}}``.
    """
    drained = set(drained)
    not_vm_capable = set(not_vm_capable)
    groups = []
    for g in data.groups:
        members = [n.name for n in data.nodes if n.group == g.idx]
        groups.append({
            "name": g.name, "uuid": g.uuid, "alloc_policy": g.alloc_policy,
            "ipolicy": ipolicy_json(g.ipolicy), "tags": list(g.tags),
            "node_cnt": len(members), "node_list": members,
            "networks": list(g.networks), "serial_no": 1, "ndparams": {}, "diskparams": {},
            "ctime": 1700000000.0, "mtime": 1700000000.0,
        })
    if master is None:
        masters = [n.name for n in data.nodes if n.is_master]
        master = masters[0] if masters else (data.nodes[0].name if data.nodes else "")
    nodes = []
    for n in data.nodes:
        vm_capable = n.name not in not_vm_capable
        live = not n.offline and vm_capable
        entry = {
            "name": n.name,
            "offline": bool(n.offline), "drained": n.name in drained,
            "group.uuid": data.groups[n.group].uuid,
            "ndparams": {
                "exclusive_storage": bool(n.excl_storage),
                # with exclusive storage hbal takes sptotal, not spindle_count
                "spindle_count": (rng.choice((1, 2, 7)) if n.excl_storage
                                  else n.t_spindles),
                "oob_program": None, "ssh_port": 22, "cpu_speed": 1.0,
                "ovs": False, "ovs_link": None, "ovs_name": "switch1",
            },
            "tags": list(n.tags),
            "role": "M" if n.name == master else "R",
            "master_candidate": n.name == master, "master_capable": True,
            "pinst_cnt": 0, "sinst_cnt": 0, "pinst_list": [], "sinst_list": [],
            "pip": "127.0.2.%d" % (n.idx % 250 + 1), "sip": "127.0.3.%d" % (n.idx % 250 + 1),
            "serial_no": 1, "uuid": "node-uuid-%d" % n.idx,
            "ctime": 1700000000.0, "mtime": 1700000000.0,
            "csockets": 1, "cnodes": 1,
        }
        if rng.random() < 0.7 or not vm_capable:
            entry["vm_capable"] = vm_capable
        values = {
            "mtotal": _num(n.t_mem), "mnode": n.n_mem, "mfree": n.f_mem,
            "dtotal": _num(n.t_dsk), "dfree": n.f_dsk, "ctotal": _num(n.t_cpu),
            "cnos": n.n_cpu,
            "sptotal": n.t_spindles if n.excl_storage else rng.choice((n.t_spindles, 0, 5)),
            "spfree": n.f_spindles,
        }
        if not live:
            mode = rng.choice(("null", "stale", "absent"))
            for key in values:
                if mode == "null":
                    values[key] = None
                elif mode == "absent":
                    values[key] = "<absent>"
        for key, value in values.items():
            if value != "<absent>":
                entry[key] = value
        nodes.append(entry)
    by_idx = {n.idx: n for n in data.nodes}
    instances = []
    for i in data.instances:
        spindles = i.disks[0][1] if i.disks else None
        sizes, disk_spindles = [i.dsk], [spindles]
        if i.dsk >= 2 and rng.random() < 0.3 and (spindles is None or spindles >= 2):
            half = i.dsk // 2
            sizes = [half, i.dsk - half]
            disk_spindles = [None, None] if spindles is None else [spindles - 1, 1]
        beparams = {"vcpus": i.vcpus, "auto_balance": bool(i.auto_balance),
                    "spindle_use": i.spindle_use, "always_failover": False,
                    "minmem": i.mem}
        style = rng.choice(("oper", "memory", "maxmem"))
        if style == "oper":
            # oper_ram wins over the beparams
            oper_ram = i.mem
            beparams["maxmem"] = i.mem + 512
            if rng.random() < 0.5:
                beparams["memory"] = i.mem + 256
        elif style == "memory":
            oper_ram = None
            beparams["memory"] = i.mem
            beparams["maxmem"] = i.mem + 512
        else:
            oper_ram = None
            beparams["maxmem"] = i.mem
        entry = {
            "name": i.name, "disk_usage": i.dsk, "oper_ram": oper_ram, "beparams": beparams,
            "status": i.run_status, "pnode": by_idx[i.pnode].name,
            "snodes": [by_idx[i.snode].name] if i.snode >= 0 else [],
            "tags": list(i.tags), "disk_template": i.template,
            "disk.sizes": sizes, "disk.spindles": disk_spindles,
            "admin_state": "up" if i.run_status == "running" else "down",
            "oper_state": i.run_status == "running", "os": "debootstrap+default",
            "hvparams": {}, "nic.macs": ["aa:00:00:00:00:%02x" % (i.idx % 256)],
            "network_port": None, "serial_no": 1, "uuid": "inst-uuid-%d" % i.idx,
            "ctime": 1700000000.0, "mtime": 1700000000.0,
        }
        if i.forthcoming or rng.random() < 0.5:
            entry["forthcoming"] = bool(i.forthcoming)
        instances.append(entry)
    info = {
        "name": "cluster.example.com", "master": master, "tags": list(data.cluster_tags),
        "ipolicy": ipolicy_json(data.ipolicy), "default_hypervisor": hypervisor,
        "enabled_hypervisors": [hypervisor], "software_version": "3.0.2",
        "protocol_version": 2030000, "architecture": ["64bit", "x86_64"],
    }
    return {"groups": groups, "nodes": nodes, "instances": instances, "info": info}


def write_rapi_dir(docs, directory):
    """Write DIR/{groups,nodes,instances,info}.json; returns the directory."""
    os.makedirs(directory, exist_ok=True)
    for key in ("groups", "nodes", "instances", "info"):
        with open(os.path.join(directory, key + ".json"), "w", encoding="utf-8") as handle:
            json.dump(docs[key], handle, indent=1)
            handle.write("\n")
    return str(directory)


# ---------------------------------------------------------------------------
# model -> IAllocator request
#
# The request names groups by uuid, nodes and instances by name.  A node
# that is not live carries only offline, drained, group, ndparams (and
# optionally vm_capable, tags); a live one also its memory, disk, CPU and
# spindle figures.  An instance without admin_state is up; the first
# enabled hypervisor is every node's.

ADMIN_STATE_OF = {"ADMIN_down": "down", "ADMIN_offline": "offline"}


def model_to_ialloc(data, rng, hypervisor="xen-pvm", drained=(), not_vm_capable=(),
                    omit_up=None):
    """An IAllocator request for a freshly loaded text model.

    Statuses other than ADMIN_down/ADMIN_offline become ``admin_state: up``
    (omitted at random when ``omit_up`` is None).  Non-live nodes get only
    their static keys, as masterd sends them.
    """
    drained = set(drained)
    not_vm_capable = set(not_vm_capable)
    groups = {}
    for g in data.groups:
        groups[g.uuid] = {"name": g.name, "alloc_policy": g.alloc_policy,
                          "networks": list(g.networks), "ipolicy": ipolicy_json(g.ipolicy),
                          "tags": list(g.tags)}
    nodes = {}
    for n in data.nodes:
        vm_capable = n.name not in not_vm_capable
        live = not n.offline and vm_capable
        entry = {
            "offline": bool(n.offline), "drained": n.name in drained,
            "group": data.groups[n.group].uuid,
            "ndparams": {"exclusive_storage": bool(n.excl_storage),
                         "spindle_count": (rng.choice((1, 3)) if n.excl_storage
                                           else n.t_spindles),
                         "oob_program": None, "ssh_port": 22, "cpu_speed": 1.0},
            "tags": list(n.tags),
            "primary_ip": "127.0.2.%d" % (n.idx % 250 + 1),
            "secondary_ip": "127.0.3.%d" % (n.idx % 250 + 1),
            "master_candidate": True, "master_capable": True,
        }
        if rng.random() < 0.7 or not vm_capable:
            entry["vm_capable"] = vm_capable
        if live:
            entry.update({
                "total_memory": _num(n.t_mem), "reserved_memory": n.n_mem,
                "free_memory": n.f_mem, "total_disk": _num(n.t_dsk), "free_disk": n.f_dsk,
                "total_cpus": _num(n.t_cpu), "reserved_cpus": n.n_cpu,
                "free_spindles": n.f_spindles, "i_pri_memory": 0, "i_pri_up_memory": 0,
            })
            if n.excl_storage:
                entry["total_spindles"] = n.t_spindles
        nodes[n.name] = entry
    by_idx = {n.idx: n for n in data.nodes}
    instances = {}
    for i in data.instances:
        disks = []
        for size, spindles in i.disks:
            disk = {"size": size, "mode": "rw"}
            if spindles is not None:
                disk["spindles"] = spindles
            disks.append(disk)
        entry = {
            "disk_space_total": i.dsk, "disks": disks, "memory": i.mem, "vcpus": i.vcpus,
            "tags": list(i.tags), "disk_template": i.template, "spindle_use": i.spindle_use,
            "nics": [{"mac": "aa:00:00:00:00:%02x" % (i.idx % 256), "ip": None,
                      "mode": "bridged", "link": "br0", "bridge": "br0", "network": None}],
            "nodes": [by_idx[i.pnode].name] + ([by_idx[i.snode].name] if i.snode >= 0 else []),
            "os": "debootstrap+default", "hypervisor": hypervisor, "disks_active": True,
            "admin_state_source": "admin",
        }
        state = ADMIN_STATE_OF.get(i.run_status, "up")
        omit = (rng.random() < 0.5) if omit_up is None else omit_up
        if state != "up" or not omit:
            entry["admin_state"] = state
        if i.forthcoming or rng.random() < 0.5:
            entry["forthcoming"] = bool(i.forthcoming)
        instances[i.name] = entry
    names = [i.name for i in data.instances]
    return {
        "version": 2, "cluster_name": "cluster.example.com",
        "cluster_tags": list(data.cluster_tags),
        "enabled_hypervisors": [hypervisor, "fake"],
        "ipolicy": ipolicy_json(data.ipolicy),
        "nodegroups": groups, "nodes": nodes, "instances": instances,
        "request": {"type": "node-evacuate", "instances": names[:1],
                    "evac_mode": "secondary-only"},
    }
