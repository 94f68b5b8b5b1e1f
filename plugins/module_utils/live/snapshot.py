# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a live cluster (over RAPI or LUXI) into the model, with a fingerprint of its state."""

from __future__ import annotations

import time

from ..model.node import STATIC_KVM_MEMORY
from ..errors import HtoolsError
from ..run_tags import is_kept_mark
from .lock import is_lock_tag
from .storage_query import read_storage
from ..plan.state import LIVE_INSTANCE_FIELDS, LIVE_NODE_FIELDS


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
            info = client.info()
            # the cluster's tags came with its info: the nodes' marks need no read of their own
            snapshot = cls(info, client.nodes(info.get("tags")), client.instances(), client.groups(),
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

    def to_data(self, source=None, static_kvm_memory=STATIC_KVM_MEMORY, node_order="name"):
        # the RAPI loader is imported by live reads only (a data-file run's start-up time)
        from ..backend.rapi_json import load_rapi  # pylint: disable=import-outside-toplevel
        return load_rapi(self.info, self.nodes, self.instances, self.groups,
                         source=source or self.reader.upper(), reader=self.reader,
                         static_kvm_memory=static_kvm_memory, storage=self.storage,
                         node_order=node_order)

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
        # the lock and a run's marks come and go without changing any plan
        tags = sorted(t for t in self.info.get("tags", [])
                      if not (is_lock_tag(t) or is_kept_mark(t)))
        state = {"fields": {"nodes": list(LIVE_NODE_FIELDS), "instances": list(LIVE_INSTANCE_FIELDS)},
                 "nodes": nodes, "instances": instances, "groups": groups, "cluster_tags": tags}
        if self.storage is not None:
            # which units each node has, and their sizes (free space drifts)
            state["storage"] = {name: sorted([u["sunit"][0], u["sunit"][1], u["total"]]
                                             for u in units)
                                for name, units in self.storage.items()}
        return state
