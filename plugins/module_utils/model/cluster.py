# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Everything a backend loads: groups, nodes, instances, cluster tags, policy."""

from __future__ import annotations

from .group import IPolicy


class ClusterData:
    """Everything a backend loads: groups, nodes, instances, tags, policy."""

    def __init__(self, groups, nodes, instances, cluster_tags, ipolicy=None):
        self.groups = groups
        self.nodes = nodes
        self.instances = instances
        self.cluster_tags = list(cluster_tags)
        self.ipolicy = ipolicy or IPolicy.default()
        self.warnings = []
        self.load_warnings = []     # the loader's own, kept when warnings are recomputed
        self.suffix = ""
        self.source = None      # where the data came from, for messages
        self.request = None     # an IAllocator file's request (what hail would answer)
        # MonD reports read from the nodes with the data: ({node: [report]},
        # {node: why it gave none}), or None when they were not asked
        self.mond_reports = None

    def group_by_name_or_uuid(self, key):
        for group in self.groups:
            if group.name == key or group.uuid == key:
                return group
        return None
