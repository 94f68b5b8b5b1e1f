# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cluster state to try moves on: copy-on-write over the loaded cluster.

hroller computes every reboot group from the original cluster and throws a
node's attempt away when one of its instances does not fit.  `fork()` is that
snapshot: it shares every record and copies one only when it is written, so a
fork costs the number of records touched so far, not the cluster size.

Each state also keeps the operations that led to it, newest first, as a
shared linked list: ("move", inst, target), ("migrate", inst),
("replace", inst, target).
"""

from __future__ import annotations


class State:
    """Node records by slot, instance records by index, and the operations so far."""

    __slots__ = ("_base_nodes", "_base_insts", "_nodes", "_insts", "_own", "log")

    def __init__(self, nodes, instances):
        self._base_nodes = nodes
        self._base_insts = instances
        self._nodes = {}
        self._insts = {}
        self._own = set()
        self.log = None

    def fork(self):
        new = State.__new__(State)
        new._base_nodes = self._base_nodes
        new._base_insts = self._base_insts
        new._nodes = dict(self._nodes)
        new._insts = dict(self._insts)
        new._own = set()
        new.log = self.log
        return new

    def node(self, idx):
        found = self._nodes.get(idx)
        return self._base_nodes[idx] if found is None else found

    def inst(self, idx):
        found = self._insts.get(idx)
        return self._base_insts[idx] if found is None else found

    def node_for_update(self, idx):
        key = ("n", idx)
        if key not in self._own:
            self._nodes[idx] = self.node(idx).copy()
            self._own.add(key)
        return self._nodes[idx]

    def inst_for_update(self, idx):
        key = ("i", idx)
        if key not in self._own:
            self._insts[idx] = self.inst(idx).copy()
            self._own.add(key)
        return self._insts[idx]

    def put_node(self, idx, record):
        """Store `record` (owned by this state) in slot `idx`."""
        self._nodes[idx] = record
        self._own.add(("n", idx))

    def record(self, operation):
        self.log = (operation, self.log)

    def operations(self):
        """The operations, oldest first."""
        out = []
        link = self.log
        while link is not None:
            out.append(link[0])
            link = link[1]
        out.reverse()
        return out

    def changed_instances(self):
        return self._insts.keys()
