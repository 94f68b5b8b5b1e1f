# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster state a plan depends on: its fingerprint, and the drift between two states.

A state is plain data (node and instance rows with their field names); the
live reader (live/snapshot.py) and a data file's model (model_state) both
produce one, so that a plan can be checked against the cluster it runs on.
"""

from __future__ import annotations

import hashlib
import json

# The fields of a live state's node and instance rows (live/snapshot.py).
LIVE_NODE_FIELDS = ("group", "offline", "drained", "master_candidate", "vm_capable", "mtotal",
                    "dtotal", "ctotal", "serial_no")
LIVE_INSTANCE_FIELDS = ("primary", "secondary", "disk_template", "admin_state", "serial_no")


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
