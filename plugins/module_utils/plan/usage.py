# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-node utilisation records: what a plan's report charts before and after.

One compact record per node (memory and disk in MiB, CPUs, instance counts,
N+1 and offline flags; free memory is what the instances leave unallocated,
the figure the planners move by, not the node's last reported free memory), taken from the model once a plan is computed, or
from the `hbal -p` node records the balance report already carries.  A
plan's `node_usage` is a list of states, each `{"state": label, "nodes":
[record, ...]}`, the nodes in the same order in every state.
"""

from __future__ import annotations

# record field -> hbal -p field of a balance node record (planner/nodetable.py)
_FROM_NODE_RECORD = (("name", "fqdn"), ("mem_total", "tmem"), ("mem_free", "umem"),
                     ("disk_total", "tdsk"), ("disk_free", "fdsk"), ("cpus", "tcpu"),
                     ("vcpus", "ucpu"), ("primaries", "pcnt"), ("secondaries", "scnt"),
                     ("offline", "offline"), ("n1_fail", "failn1"))


def node_usage(node):
    """The usage record of one model node (model/node.py)."""
    return {"name": node.name, "mem_total": node.t_mem, "mem_free": node.unallocated_mem(),
            "disk_total": node.t_dsk, "disk_free": node.f_dsk, "cpus": node.t_cpu,
            "vcpus": node.u_cpu, "primaries": len(node.p_list),
            "secondaries": len(node.s_list), "offline": bool(node.offline),
            "n1_fail": bool(node.fail_n1) and not node.offline}


def usage_state(label, nodes):
    """One state of `node_usage`: the records of `nodes` under a label."""
    return {"state": label, "nodes": [node_usage(n) for n in nodes]}


def from_node_record(record):
    """The usage record of a balance report's node record (nodes_before/nodes_after)."""
    usage = {ours: record.get(theirs) for ours, theirs in _FROM_NODE_RECORD}
    usage["n1_fail"] = bool(usage["n1_fail"]) and not usage["offline"]
    return usage
