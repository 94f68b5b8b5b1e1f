# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hroller's three greedy colourings, and the classes of the one with fewest colours.

Each vertex takes the smallest colour none of its coloured neighbours has.
The orders:

* LF: degree descending, the higher index first among equal degrees;
* Dsatur: repeatedly the uncoloured vertex with the most distinct colours
  among its neighbours, then the highest degree, then the highest index;
* Dcolor: the same with the number of coloured neighbour entries (edge
  repetitions count) instead of distinct colours.

A colouring looks at each edge a constant number of times (the colours
around a vertex when it is coloured; the keys of its neighbours after), and
the dynamic orders keep the uncoloured vertices in a heap, instead of
hroller's rescans of every neighbourhood per step.
"""

from __future__ import annotations

import heapq
import itertools


def _rank(graph):
    """Vertices (offsets) in (degree, index) order, and each one's position in it."""
    size = len(graph.degree)
    order = sorted(range(size), key=lambda pos: (graph.degree[pos], pos))
    rank = [0] * size
    for position, pos in enumerate(order):
        rank[pos] = position
    return order, rank


def _first_free(used):
    c = 0
    while c in used:
        c += 1
    return c


def colour_lf(graph):
    """Colours by offset, in LF order."""
    colour = [-1] * len(graph.degree)
    neighbours = graph.neighbours
    for pos in reversed(_rank(graph)[0]):
        colour[pos] = _first_free(set(map(colour.__getitem__, neighbours[pos])))
    return colour


class _DynamicOrder:
    """The uncoloured vertex with the largest key, repeatedly; keys only grow.

    A key is (count, degree, index) as one integer, count * size + rank, so
    keys are unique and a key names its vertex (key % size is the rank).  A
    heap of negated keys with a fresh entry per raise gives the same order as
    a max() over the uncoloured vertices at every step, in O(E log V): a
    vertex's newest entry is its largest, so it comes out before the stale
    ones, which then find the vertex done.  Plain ints keep the heap cheap."""

    def __init__(self, graph):
        self.order, self.key = _rank(graph)
        self.size = len(self.key)
        self.heap = [-k for k in self.key]
        heapq.heapify(self.heap)
        self.done = [False] * self.size

    def pop(self):
        heap, done, order, size = self.heap, self.done, self.order, self.size
        while True:
            pos = order[-heapq.heappop(heap) % size]
            if not done[pos]:
                done[pos] = True
                return pos

    def raise_keys(self, vertices, counts):
        """Key of each uncoloured vertex += its count (times size: the first digit)."""
        heap, key, done, size = self.heap, self.key, self.done, self.size
        push = heapq.heappush
        for u, count in zip(vertices, counts):
            if not done[u]:
                k = key[u] + count * size
                key[u] = k
                push(heap, -k)


def colour_dsatur(graph):
    """Colours by offset, in Dsatur order."""
    size = len(graph.degree)
    colour = [-1] * size
    seen = [set() for _unused in range(size)]
    neighbours = graph.neighbours
    dynamic = _DynamicOrder(graph)
    for _step in range(size):
        pos = dynamic.pop()
        c = colour[pos] = _first_free(seen[pos])
        fresh = []
        for u in neighbours[pos]:
            useen = seen[u]
            if c not in useen:
                useen.add(c)
                fresh.append(u)
        dynamic.raise_keys(fresh, itertools.repeat(1))
    return colour


def colour_dcolor(graph):
    """Colours by offset, in Dcolor order."""
    size = len(graph.degree)
    colour = [-1] * size
    neighbours = graph.neighbours
    dynamic = _DynamicOrder(graph)
    for _step in range(size):
        pos = dynamic.pop()
        colour[pos] = _first_free(set(map(colour.__getitem__, neighbours[pos])))
        dynamic.raise_keys(neighbours[pos], graph.multiplicity[pos])
    return colour


ALGORITHMS = (("LF", colour_lf), ("Dsatur", colour_dsatur), ("Dcolor", colour_dcolor))


def classes_of(graph, colour):
    """Vertices by colour, each class in ascending index."""
    classes = [[] for _unused in range(max(colour) + 1)] if colour else []
    for pos, c in enumerate(colour):
        classes[c].append(pos + graph.first)
    return classes


def smallest_colouring(graph):
    """(classes of the colouring with fewest colours, {algorithm: classes}); ties: LF first."""
    results = [(name, classes_of(graph, algorithm(graph))) for name, algorithm in ALGORITHMS]
    best = min(results, key=lambda item: len(item[1]))    # min keeps the first on ties
    return best[1], dict(results)
