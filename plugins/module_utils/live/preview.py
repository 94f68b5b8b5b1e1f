# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A saved cluster (data_file) in the shape the live-only modules read over RAPI.

The modules that act on a live cluster (lock, node flags, health, migrations)
take data_file too, so that one `module_defaults` for the action group serves
every module; with it they only preview, in check mode.  These records hold
what a saved file knows of the RAPI bulk fields those modules read.
"""

from __future__ import annotations

from ..errors import HtoolsError
from ..model.vocabulary import NO_NODE
from .run_marks import onto_nodes

LIVE_ONLY = ("%s acts on a live cluster: data_file is a saved cluster, which it can only "
             "preview in check mode (--check or check_mode: true); without check mode give "
             "luxi_socket (on the master) or rapi_url instead of data_file")


class SavedCluster:
    """The reads of a RAPI client, answered from a saved cluster: what the live-only
    modules' check mode needs (anything that would change the cluster is not here)."""

    source = "data_file"

    def __init__(self, data):
        self.data = data
        self._nodes = saved_nodes(data)
        self._instances = saved_instances(data)

    def cluster_tags(self):
        return list(self.data.cluster_tags)

    def nodes(self, cluster_tags=None):
        del cluster_tags        # the saved cluster's own, always at hand
        return onto_nodes([dict(n) for n in self._nodes.values()], self.data.cluster_tags)

    def instances(self):
        return [dict(i) for i in self._instances.values()]

    def node(self, name):
        found = self._nodes.get(name)
        if found is None:
            raise HtoolsError("node %s is not in the saved cluster (data_file)" % name)
        return onto_nodes([dict(found)], self.data.cluster_tags)[0]


def saved_instances(data):
    """{name: record} with the RAPI instance fields the migrations read."""
    names = {n.idx: n.name for n in data.nodes}
    return {inst.name: {
        "name": inst.name,
        "pnode": names.get(inst.pnode),
        "snodes": [names[inst.snode]] if inst.snode != NO_NODE else [],
        "disk_template": inst.template,
        "admin_state": "down" if inst.run_status.startswith("ADMIN_") else "up",
    } for inst in data.instances}


def saved_nodes(data):
    """{name: record} with the RAPI node fields the live-only modules read."""
    groups = {pos: g.name for pos, g in enumerate(data.groups)}
    primaries = {}
    for inst in data.instances:
        primaries.setdefault(inst.pnode, []).append(inst.name)
    return {n.name: {"name": n.name, "tags": list(n.tags), "offline": bool(n.offline),
                     "drained": bool(n.drained), "role": "M" if n.is_master else None,
                     "master_candidate": bool(n.is_master), "group": groups.get(n.group),
                     # a saved node answered when it was saved, unless offline
                     "mfree": None if n.offline else n.f_mem,
                     "pinst_list": sorted(primaries.get(n.idx, []))}
            for n in data.nodes}
