# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reboot-exclusion graph, as hroller builds it, in time linear in its edges.

Vertices are the node indices from the lowest to the highest selected one;
unselected nodes in between stay isolated vertices (they still get coloured
and planned).  Edges:

* X: primary <-> secondary of every DRBD instance, one pair per instance, so
  two instances between the same nodes count twice in the degree;
* Y (unless offline maintenance): every ordered pair of primaries of
  instances sharing a secondary node, self-pairs included, each pair once
  and only when X does not already hold it.

Only edges between selected nodes are kept.  The colourings need the
degree (with those repetitions and self-pairs), the distinct neighbours and
how many edge entries lead to each.
"""

from __future__ import annotations


class Graph:
    """first..last: the vertex range.  Vertices are numbered by their offset from
    `first`; per offset: the degree, the distinct neighbours (offsets, never the
    vertex itself) and, in the same order, how many edge entries lead to each."""

    __slots__ = ("first", "last", "degree", "neighbours", "multiplicity")

    def __init__(self, first, last, degree, neighbours, multiplicity):
        self.first = first
        self.last = last
        self.degree = degree
        self.neighbours = neighbours
        self.multiplicity = multiplicity

    def vertices(self):
        return range(self.first, self.last + 1)

    def edges(self):
        """{(v, u): entries} with node indices; for tests and display."""
        first = self.first
        return {(v + first, u + first): m
                for v, (nbs, mults) in enumerate(zip(self.neighbours, self.multiplicity))
                for u, m in zip(nbs, mults)}


def build_graph(data, selected, offline_maintenance):
    """The graph over `selected` (node indices, ascending, not empty)."""
    first, last = selected[0], selected[-1]
    size = last - first + 1
    in_sel = bytearray(len(data.nodes))
    for idx in selected:
        in_sel[idx] = 1
    x_count = [{} for _unused in range(size)]           # by offsets
    for inst in data.instances:
        if inst.template != "drbd":
            continue
        p, s = inst.pnode, inst.snode
        if in_sel[p] and in_sel[s]:
            p -= first
            s -= first
            counts = x_count[p]
            counts[s] = counts.get(s, 0) + 1
            counts = x_count[s]
            counts[p] = counts.get(p, 0) + 1
    shared = [set() for _unused in range(size)]           # Y by offsets, self-pairs included
    if not offline_maintenance:
        instances = data.instances
        for node in data.nodes:
            prims = {instances[i].pnode - first for i in node.s_list}
            prims = {p for p in prims if in_sel[p + first]}
            for a in prims:
                shared[a].update(prims)
    degree = [0] * size
    neighbours = [None] * size
    multiplicity = [None] * size
    for pos in range(size):
        counts = x_count[pos]
        y_only = shared[pos].difference(counts)
        degree[pos] = sum(counts.values()) + len(y_only)
        y_only.discard(pos)
        neighbours[pos] = list(counts) + list(y_only)
        multiplicity[pos] = list(counts.values()) + [1] * len(y_only)
    return Graph(first, last, degree, neighbours, multiplicity)
