# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a live cluster (over RAPI or LUXI) into the model, with a fingerprint of its state."""

from __future__ import annotations

import hashlib
import json
import time

from ..model.node import STATIC_KVM_MEMORY
from ..errors import HtoolsError
from .lock import is_lock_tag
from .storage_query import read_storage


class Snapshot:
    """The raw answers (RAPI-shaped) of one read of the cluster."""

    def __init__(self, info, nodes, instances, groups, reader="rapi", storage=None):
        self.reader = reader        # "luxi": read the model as hbal -L does
        self.info = info
        self.nodes = nodes
        self.instances = instances
        self.groups = groups
        self.storage = storage        # node name -> storage units, when read

    @classmethod
    def read(cls, client, retries=6, wait=10.0, sleep=time.sleep, storage_units=False):
        """One read of the cluster.  A node whose daemon did not answer the
        master in time (a busy node, one just rebooted) shows no live data for
        a moment: read again for up to a minute before the model refuses it
        (seen on the vm lab: 15 seconds were not enough for a busy master).
        `storage_units` also reads every node's storage units (write access)."""
        for attempt in range(retries + 1):
            snapshot = cls(client.info(), client.nodes(), client.instances(), client.groups(),
                           reader=getattr(client, "kind", "rapi"))
            if not snapshot.silent_nodes() or attempt == retries:
                break
            sleep(wait)
        if storage_units:
            if snapshot.reader != "rapi":
                raise HtoolsError("rapi_storage_units: storage units are read over RAPI only; "
                                  "give rapi_url instead of luxi_socket")
            snapshot.storage = read_storage(client, snapshot.info, snapshot.nodes)
        return snapshot

    def silent_nodes(self):
        """Online VM-capable nodes without live data (their memory is unknown)."""
        return [n.get("name") for n in self.nodes
                if not n.get("offline") and n.get("vm_capable", True)
                and n.get("mtotal") is None]

    def to_data(self, source=None, static_kvm_memory=STATIC_KVM_MEMORY):
        # the RAPI loader is imported by live reads only (a data-file run's start-up time)
        from ..backend.rapi_json import load_rapi  # pylint: disable=import-outside-toplevel
        return load_rapi(self.info, self.nodes, self.instances, self.groups,
                         source=source or self.reader.upper(), reader=self.reader,
                         static_kvm_memory=static_kvm_memory, storage=self.storage)

    def state(self):
        """What a plan depends on: placements, node roles and sizes, serial numbers.

        Free memory and disk are left out: they drift constantly on a live
        cluster without anything relevant changing.
        """
        nodes = {}
        for node in self.nodes:
            nodes[node["name"]] = [
                node.get("group.uuid"), bool(node.get("offline")), bool(node.get("drained")),
                bool(node.get("master_candidate")), node.get("vm_capable", True),
                node.get("mtotal"), node.get("dtotal"), node.get("ctotal"),
                node.get("serial_no")]
        instances = {}
        for inst in self.instances:
            instances[inst["name"]] = [
                inst.get("pnode"), (inst.get("snodes") or [None])[0], inst.get("disk_template"),
                inst.get("admin_state"), inst.get("serial_no")]
        groups = {g["name"]: [g.get("uuid"), g.get("serial_no")] for g in self.groups}
        tags = sorted(t for t in self.info.get("tags", []) if not is_lock_tag(t))
        state = {"fields": {"nodes": list(_NODE_FIELDS), "instances": list(_INSTANCE_FIELDS)},
                 "nodes": nodes, "instances": instances, "groups": groups, "cluster_tags": tags}
        if self.storage is not None:
            # which units each node has, and their sizes (free space drifts)
            state["storage"] = {name: sorted([u["sunit"][0], u["sunit"][1], u["total"]]
                                             for u in units)
                                for name, units in self.storage.items()}
        return state


def model_state(data):
    """The state of a cluster read from a data file (which has no serial numbers)."""
    nodes = {n.name: [data.groups[n.group].uuid, n.offline, n.drained, n.is_master, n.t_mem,
                      n.t_dsk, n.t_cpu] for n in data.nodes}
    instances = {i.name: [data.nodes[i.pnode].name,
                          data.nodes[i.snode].name if i.snode >= 0 else None, i.template,
                          i.run_status, i.mem, i.dsk, i.vcpus] for i in data.instances}
    return {"source": "data_file",
            "fields": {"nodes": ["group", "offline", "drained", "master", "t_mem", "t_dsk",
                                 "t_cpu"],
                       "instances": ["primary", "secondary", "disk_template", "status",
                                     "memory", "disk", "vcpus"]},
            "nodes": nodes, "instances": instances, "cluster_tags": sorted(data.cluster_tags)}


def fingerprint(state):
    blob = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


_NODE_FIELDS = ("group", "offline", "drained", "master_candidate", "vm_capable", "mtotal",
                "dtotal", "ctotal", "serial_no")
_INSTANCE_FIELDS = ("primary", "secondary", "disk_template", "admin_state", "serial_no")


def drift(old, new, limit=20):
    """Human-readable differences between two states (at most `limit` lines)."""
    lines = []
    labels = old.get("fields", {})
    for kind in ("node", "instance"):
        fields = labels.get(kind + "s", [])
        before, after = old.get(kind + "s", {}), new.get(kind + "s", {})
        for name in sorted(set(before) | set(after)):
            if name not in after:
                lines.append("%s %s is gone" % (kind, name))
            elif name not in before:
                lines.append("%s %s is new" % (kind, name))
            elif before[name] != after[name]:
                changes = ["%s %s -> %s" % (fields[k] if k < len(fields) else k, a, b)
                           for k, (a, b) in enumerate(zip(before[name], after[name])) if a != b]
                lines.append("%s %s: %s" % (kind, name, ", ".join(changes)))
    if old.get("groups") != new.get("groups"):
        lines.append("node groups changed")
    if old.get("cluster_tags") != new.get("cluster_tags"):
        lines.append("cluster tags changed")
    if len(lines) > limit:
        lines = lines[:limit] + ["... and %d more" % (len(lines) - limit)]
    return lines
