# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A run's marks on the live cluster: read onto their nodes, written as cluster tags.

The clients show each node with its marks among its tags (`onto_nodes`), so
modules and the role read them as node tags.  Writing goes the other way:
the marks of all the nodes a module changes go in one cluster tag job
(`add_jobs`, `remove_jobs`), other tags stay on their nodes.  Ganeti keeps
at most 4096 tags per object: marks that would not fit among the cluster's
tags go on their nodes, as older releases kept them all, and a mark left on
a node is read and removed there.
"""

from __future__ import annotations

from .. import run_tags

# Ganeti's limit on the tags of one object (constants.MAX_TAGS_PER_OBJ), less
# room for the lock and for what others add meanwhile
MAX_TAGS = 4096
KEEP_FREE = 64

# the keys of a node (as the clients give it) listing the marks read from
# cluster tags, and those it carries as node tags itself (an older release's)
FROM_CLUSTER = "cluster_marks"
ON_NODE = "node_marks"


def onto_nodes(rows, cluster_tags):
    """`rows` (node dicts) with the marks among `cluster_tags` added to their tags."""
    marks = run_tags.project(cluster_tags or ())
    for row in rows:
        found = marks.get(row.get("name"), [])
        own = list(row.get("tags") or [])
        row[FROM_CLUSTER] = found
        row[ON_NODE] = [t for t in own if run_tags.is_mark(t)]
        row["tags"] = own + [t for t in found if t not in own]
    return rows


def origins(node):
    """The part of a node dict (onto_nodes) that remove_jobs reads."""
    return {FROM_CLUSTER: node.get(FROM_CLUSTER) or [], ON_NODE: node.get(ON_NODE) or []}


def split(tags):
    """(marks, other tags) of a node's tags, in their order."""
    return [t for t in tags if run_tags.is_mark(t)], [t for t in tags if not run_tags.is_mark(t)]


def add_jobs(client, adding, reason):
    """Callables submitting the jobs that add the marks of `adding` ({node:
    marks, node form}): one adding them all as cluster tags, or, when the
    cluster has no room for that many more tags, one per node adding them as
    its own tags.  None at all when there are no marks."""
    adding = {node: marks for node, marks in adding.items() if marks}
    tags = [run_tags.cluster_tag(node, t) for node in sorted(adding) for t in adding[node]]
    if not tags:
        return []
    if len(client.cluster_tags()) + len(tags) <= MAX_TAGS - KEEP_FREE:
        return [lambda: client.add_cluster_tags(tags, reason=reason)]
    return [lambda node=node, marks=marks: client.add_node_tags(node, marks, reason=reason)
            for node, marks in sorted(adding.items())]


def remove_jobs(client, rows, removing, reason):
    """Callables submitting the jobs that remove the marks of `removing`
    ({node: marks}): one for those kept as cluster tags, one per node for
    those a node carries itself (`rows`: {node: origins(its dict)})."""
    cluster, on_nodes = [], {}
    for node in sorted(removing):
        row = rows.get(node) or {}
        for tag in removing[node]:
            if tag in (row.get(FROM_CLUSTER) or ()):
                cluster.append(run_tags.cluster_tag(node, tag))
            if tag in (row.get(ON_NODE) or ()):
                on_nodes.setdefault(node, []).append(tag)
    jobs = []
    if cluster:
        jobs.append(lambda: client.delete_cluster_tags(cluster, reason=reason))
    for node, tags in sorted(on_nodes.items()):
        jobs.append(lambda node=node, tags=tags: client.delete_node_tags(node, tags, reason=reason))
    return jobs
