# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which nodes hroller plans for: the master check, -O, -G, tags, non-redundancy.

The checks run in hroller's order, so that a cluster with several problems
fails with the message hroller prints first.
"""

from __future__ import annotations

from ...backend.prepare import lookup_name
from .errors import (NO_GRAPH, NO_GROUP, NO_MASTER, RollerError, hs_show_strings,
                     no_graph_hint, no_group_hint, no_master_hint)


def find_master(data, force):
    """The master's index (None when missing and `force`); returns (master, warnings)."""
    masters = [n for n in data.nodes if n.is_master]
    if len(masters) > 1:
        raise RollerError("Found more than one master node: "
                          + hs_show_strings([n.name for n in masters]))
    if masters:
        return masters[0].idx, []
    if not force:
        raise RollerError(NO_MASTER, hint=no_master_hint())
    return None, [NO_MASTER]


def mark_offline(data, offline_nodes):
    """hroller -O: mark the named nodes offline (exact name or unique `name.` prefix)."""
    names = [n.name for n in data.nodes]
    found = [(name, lookup_name(name, names)) for name in offline_nodes]
    # hroller keeps its -O list newest first, and names the wrong ones in that order
    wrong = [name for name, hit in reversed(found) if hit is None]
    if wrong:
        raise RollerError("wrong node name(s) set as offline: %s" % ",".join(wrong))
    chosen = {hit for _name, hit in found}
    for node in data.nodes:
        if node.name in chosen:
            node.offline = True


def find_group(data, group):
    """The group index for -G (name or UUID), or None for every group."""
    if group is None:
        return None
    chosen = data.group_by_name_or_uuid(group)
    if chosen is None:
        raise RollerError(NO_GROUP, hint=no_group_hint(group, data))
    return chosen.idx


def has_nonredundant(data, node):
    """Whether the node is primary of an instance without a DRBD secondary."""
    return any(data.instances[i].template != "drbd" for i in node.p_list)


def selected_nodes(data, group_idx, node_tags, skip_non_redundant, names=(),
                   exclude_tags=()):
    """SEL: the online nodes, in index order, that pass every requested filter.

    `names` and `exclude_tags` are ours, not hroller's: only these nodes, and
    none that carries one of these tags."""
    tags = set(node_tags or ())
    unknown = sorted(set(names) - {n.name for n in data.nodes})
    if unknown:
        raise RollerError("unknown node(s) selected: %s" % ", ".join(unknown))
    wanted = set(names)
    excluded = set(exclude_tags)
    candidates = [n for n in data.nodes
                  if not n.offline
                  and (not skip_non_redundant or not has_nonredundant(data, n))
                  and (group_idx is None or n.group == group_idx)
                  and (not wanted or n.name in wanted)
                  and not excluded.intersection(n.tags)]
    chosen = [n.idx for n in candidates if not node_tags or tags.intersection(n.tags)]
    if not chosen:
        filters = [what for what, used in (
            ("the offline nodes", True), ("the nodes with non-redundant instances "
                                          "(skip_non_redundant)", skip_non_redundant),
            ("the nodes outside the group", group_idx is not None),
            ("the nodes not named", bool(wanted)),
            ("the nodes with excluded tags", bool(excluded))) if used]
        raise RollerError(NO_GRAPH, hint=no_graph_hint(data, candidates, sorted(tags),
                                                       filters))
    return chosen
