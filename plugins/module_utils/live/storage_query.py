# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read every node's storage units over RAPI (option rapi_storage_units).

RAPI serves a node's storage (`/2/nodes/NAME/storage`) as a job
(OP_NODE_QUERY_STORAGE), so the read needs a user with write access.  All
the queries are submitted first and then awaited, so that the nodes answer
in parallel.  Only node-local storage is read: the volume groups when a
DRBD or plain template is enabled, the file storage directory when the
file template is; shared storage is the same space from every node, and no
move changes it.
"""

from __future__ import annotations

from ..errors import HtoolsError
from .jobs import wait_restarting

# Enabled disk template -> the storage type that holds its disks on the node.
TEMPLATE_STORAGE = {"drbd": "lvm-vg", "plain": "lvm-vg", "file": "file"}
FIELDS = "name,size,free"


def storage_types(info):
    """The storage types to read, in a fixed order, from /2/info."""
    enabled = info.get("enabled_disk_templates") or []
    return sorted({TEMPLATE_STORAGE[t] for t in enabled if t in TEMPLATE_STORAGE})


def queried_nodes(nodes):
    """Nodes that can answer: online and VM-capable (others carry no live data)."""
    return [n["name"] for n in nodes if not n.get("offline") and n.get("vm_capable", True)]


def read_storage(client, info, nodes, timeout=120.0):
    """{node name: [{"sunit": [type, key, []], "free": MiB, "total": MiB}, ...]}.

    Nodes that cannot answer are left out (they keep the per-node pool)."""
    types = storage_types(info)
    jobs = []
    for name in queried_nodes(nodes):
        for storage_type in types:
            jobs.append((name, storage_type, _submit(client, name, storage_type)))
    units = {name: [] for name in queried_nodes(nodes)}
    for name, storage_type, job_id in jobs:
        try:
            job = wait_restarting(client, job_id, timeout,
                                  lambda n=name, t=storage_type: _submit(client, n, t))
        except HtoolsError as err:
            raise HtoolsError("the %s storage of node %s could not be read (job %s): %s"
                              % (storage_type, name, job_id, err))
        units[name].extend(_units(job, name, storage_type))
    return units


def _submit(client, node, storage_type):
    return client.submit("GET", "/2/nodes/%s/storage" % node,
                         query={"storage_type": storage_type, "output_fields": FIELDS})


def _units(job, node, storage_type):
    result = (job.get("opresult") or [None])[0]
    if not isinstance(result, list):
        raise HtoolsError("the %s storage of node %s: unexpected job result %r"
                          % (storage_type, node, result))
    units = []
    for row in result:
        if (not isinstance(row, list) or len(row) != 3 or not isinstance(row[0], str)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           for v in row[1:])):
            raise HtoolsError("the %s storage of node %s: unexpected row %r (expected "
                              "[name, size, free])" % (storage_type, node, row))
        key, size, free = row
        # sizes in MiB; a filesystem may report more free than a quota'd size
        total = int(size)
        units.append({"sunit": [storage_type, key, []], "free": min(int(free), total),
                      "total": total})
    return units
