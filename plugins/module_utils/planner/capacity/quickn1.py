# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""globaln1._quick_verdict of many nodes at once.

For a node whose instances are DRBD and movable ones (SHARED templates:
diskless, rbd, ...) only, on nodes without storage units or exclusive
storage, and with no forthcoming DRBD instance
(a "plain" node here), the certain answer is arithmetic on the other nodes'
unallocated memory:

* its failovers fail when a migration tag does not fit, a secondary's or
  the node's own disk is not above 0, or a secondary's memory minus what
  the node's instances on it need is not above 0 (what is left of a
  secondary only shrinks along the chain, so the end decides);
* otherwise its movable instances fit for certain, cannot fit for certain,
  or may either way, by the bounds of globaln1.memory_only_verdict, over the
  other nodes of its group that its migration tags fit.

What a plain node needs of itself (its secondaries and how much memory its
instances need there, its movable instances' sizes) is kept per node
object; the per-cluster part is a few array operations for all nodes.
Other nodes are answered by globaln1._quick_verdict one by one.
"""

from __future__ import annotations

from ...deps import numpy as np
from ..evacuate.capacity import SHARED
from .memory_fit import after_the_first

KEEP_PROFILES = 10000


class Profile:
    """What a plain node's certain answer needs of the node itself."""
    __slots__ = ("node", "insts", "need", "secondary", "own_disk", "pending", "count",
                 "total", "biggest", "smallest", "all_memory", "mems")

    def __init__(self, node, insts, size):
        self.node = node
        self.insts = [insts[i] for i in node.p_list]
        self.need = np.zeros(size, dtype=np.int64)
        self.secondary = np.zeros(size, dtype=bool)
        mems, self.pending = [], 0
        for inst in self.insts:
            if inst.template == "drbd":
                self.secondary[inst.snode] = True
                self.need[inst.snode] += inst.mem if inst.uses_memory else 0
            else:
                self.pending += 1
                if inst.uses_memory:
                    mems.append(inst.mem)
        self.own_disk = bool(self.secondary.any()) and not node.offline and node.f_dsk <= 0
        self.count, self.total = len(mems), sum(mems)
        self.biggest, self.smallest = max(mems, default=0), min(mems, default=0)
        self.all_memory = len(mems) == self.pending
        self.mems = mems            # in the order the greedy moves them


def plain(node, nodes, insts):
    """Whether the node's certain answer is the arithmetic above."""
    if node.storage_units or node.excl_storage:
        return False
    for idx in node.p_list:
        inst = insts[idx]
        if inst.template == "drbd":
            sec = nodes[inst.snode]
            if sec.storage_units or sec.excl_storage or inst.forthcoming:
                return False
        elif inst.template not in SHARED:
            return False
    return True


class QuickN1:
    """Certain answers of many nodes of one cluster's node lists."""

    def __init__(self, data):
        nodes = data.nodes
        self.size = len(nodes)
        # tags_fit[k, j]: node k's migration tags are accepted by node j
        self.tags_fit = np.array([[not a.mig_tags or a.mig_tags <= b.rmig_tags for b in nodes]
                                  for a in nodes], dtype=bool).reshape(self.size, self.size)
        same_group = np.array([[a.group == b.group for b in nodes] for a in nodes],
                              dtype=bool).reshape(self.size, self.size)
        # escape[k, j]: j is another node of k's group that takes k's instances
        self.escape = self.tags_fit & same_group & ~np.eye(self.size, dtype=bool)
        self.profiles = {}

    def profile(self, node, nodes, insts):
        """The Profile of a plain node (kept per node object), else None."""
        hit = self.profiles.get(id(node))
        # instances compare by identity: the same objects, read at C speed
        if hit is not None and hit.node is node and \
                list(map(insts.__getitem__, node.p_list)) == hit.insts:
            return hit
        if not plain(node, nodes, insts):
            return None
        if len(self.profiles) >= KEEP_PROFILES:
            self.profiles.clear()
        hit = self.profiles[id(node)] = Profile(node, insts, self.size)
        return hit

    def verdicts(self, ndxs, profiles, frees, disks):
        """([True, False or None], [margin]) for plain nodes `ndxs` with their
        Profiles, given every node's unallocated memory and free disk.  The
        margin of an undecided node says how tight it is (the places its
        instances have for certain, less their count: the lower, the more
        likely its simulation fails); the checker simulates tight ones first."""
        if not ndxs:
            return [], []
        rows = np.array(ndxs, dtype=np.int64)
        count = len(ndxs)
        need = np.array([p.need for p in profiles]).reshape(count, self.size)
        secondary = np.array([p.secondary for p in profiles]).reshape(count, self.size)
        room = np.asarray(frees, dtype=np.int64)[None, :] - need
        broken = (room <= 0) | (np.asarray(disks) <= 0)[None, :] | ~self.tags_fit[rows]
        failed = (broken & secondary).any(axis=1) | np.array([p.own_disk for p in profiles])
        spare = np.where(self.escape[rows], room, 0)
        fits, margins = _fits(spare, self.escape[rows], profiles)
        out = []
        for pos, prof in enumerate(profiles):
            if failed[pos]:
                out.append(False)
            elif prof.pending == 0:
                out.append(True)
            else:
                out.append(fits[pos])
        return out, margins


def _fits(spare, escape, profiles):
    """globaln1.memory_only_verdict's answer per node, on the memory `spare`
    of its escape nodes: True, False or None; and the margins (verdicts)."""
    total = np.array([p.total for p in profiles], dtype=np.int64)
    count = np.array([p.count for p in profiles], dtype=np.int64)
    biggest = np.array([max(p.biggest, 1) for p in profiles], dtype=np.int64)
    smallest = np.array([max(p.smallest, 1) for p in profiles], dtype=np.int64)
    most = np.where(escape.any(axis=1), np.where(escape, spare, np.iinfo(np.int64).min).max(axis=1), 0)
    places = np.where(escape & (spare > 0), spare - 1, 0)
    margins = (places // biggest[:, None]).sum(axis=1) - count
    # memory_fit.always_fit: enough places per node, or enough memory in sum
    beyond = np.where(escape & (spare > biggest[:, None]), spare - biggest[:, None], 0)
    at_least = (margins >= 0) | (beyond.sum(axis=1) > total - biggest)
    at_most = (places // smallest[:, None]).sum(axis=1) < count
    out = []
    for pos, prof in enumerate(profiles):
        if most[pos] - total[pos] > 0:
            out.append(True)
        elif not prof.all_memory or prof.smallest <= 0:
            out.append(None)
        elif at_least[pos]:
            out.append(True)
        elif at_most[pos]:
            out.append(False)
        else:
            out.append(after_the_first(spare[pos][escape[pos]].tolist(), prof.mems))
    return out, margins.tolist()
