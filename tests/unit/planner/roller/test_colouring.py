# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fast colourings against a literal reading of hroller's rules, on random graphs.

The reference below rescans everything at every step (quadratic and slow, but
obviously the rule); the planner's colourings must give the same colour to
every vertex.  Degrees count repeated edges and self-loops, as hroller does.
"""

from __future__ import annotations

import random

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller import colouring
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.graph import Graph


def random_graph(rng, size):
    """A Graph plus its adjacency as a plain multiset list per vertex (offsets)."""
    adj = [[] for _unused in range(size)]
    for _unused in range(rng.randint(0, size * 3)):
        a, b = rng.randrange(size), rng.randrange(size)
        adj[a].append(b)
        if a != b:
            adj[b].append(a)
    degree = [len(entries) for entries in adj]
    neighbours, multiplicity = [], []
    for v, entries in enumerate(adj):
        counts = {}
        for u in entries:
            if u != v:
                counts[u] = counts.get(u, 0) + 1
        neighbours.append(list(counts))
        multiplicity.append(list(counts.values()))
    return Graph(0, size - 1, degree, neighbours, multiplicity), adj


def reference(adj, order_key):
    """Greedy colouring; order_key(v, colour) ranks the uncoloured vertices, highest first."""
    colour = {}
    while len(colour) < len(adj):
        v = max((u for u in range(len(adj)) if u not in colour),
                key=lambda u: (order_key(u, colour), u))
        used = {colour[u] for u in adj[v] if u in colour}
        colour[v] = min(c for c in range(len(adj) + 1) if c not in used)
    return [colour[v] for v in range(len(adj))]


@pytest.mark.parametrize("seed", range(60))
def test_colourings_follow_hroller_rules(seed):
    rng = random.Random(seed)
    graph, adj = random_graph(rng, rng.randint(1, 40))

    def lf(u, colour):
        return len(adj[u])

    def dsatur(u, colour):
        return (len({colour[w] for w in adj[u] if w in colour}), len(adj[u]))

    def dcolor(u, colour):
        return (sum(1 for w in adj[u] if w in colour), len(adj[u]))

    assert colouring.colour_lf(graph) == reference(adj, lf)
    assert colouring.colour_dsatur(graph) == reference(adj, dsatur)
    assert colouring.colour_dcolor(graph) == reference(adj, dcolor)


@pytest.mark.parametrize("seed", range(20))
def test_classes_are_independent_and_smallest(seed):
    rng = random.Random(1000 + seed)
    graph, adj = random_graph(rng, rng.randint(1, 60))
    classes, every = colouring.smallest_colouring(graph)
    assert sorted(v for members in classes for v in members) == list(range(len(adj)))
    for members in classes:
        assert members == sorted(members)
        inside = set(members)
        assert not any(u in inside for v in members for u in adj[v] if u != v)
    sizes = [len(every[name]) for name in ("LF", "Dsatur", "Dcolor")]
    # the fewest colours win, the earlier algorithm on ties
    assert classes == every[("LF", "Dsatur", "Dcolor")[sizes.index(min(sizes))]]
