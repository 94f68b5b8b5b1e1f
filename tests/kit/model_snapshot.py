# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A canonical, comparable image of a whole ClusterData.

``snapshot()`` takes every slot of every group, node and instance, the tags,
the policies, the warnings and the suffix; ``snapshot_diff()`` lists the
differences between two images readably.
"""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.model.cluster import ClusterData
from ansible_collections.ganeti.htools.plugins.module_utils.model.group import Group, IPolicy, ISpec
from ansible_collections.ganeti.htools.plugins.module_utils.model.instance import Instance
from ansible_collections.ganeti.htools.plugins.module_utils.model.node import Node


def canon(value):
    """A hashable, exactly comparable image of a model value.

    Types are kept (1 and 1.0 differ), floats compare by repr (NaN equals NaN,
    0.0 differs from -0.0), dict order is kept (it matters for peer display).
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(canon(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((canon(v) for v in value), key=repr)))
    if isinstance(value, dict):
        return ("dict", tuple((canon(k), canon(v)) for k, v in value.items()))
    if isinstance(value, ISpec):
        return ("ispec", canon(value.as_tuple()))
    if isinstance(value, IPolicy):
        return ("ipolicy", canon(value.std), canon(value.minmax),
                canon(value.disk_templates), canon(value.vcpu_ratio),
                canon(value.spindle_ratio))
    raise TypeError("snapshot: unexpected value type %s (%r)" % (type(value).__name__, value))


def _slots(obj, cls, skip):
    missing = object()
    out = []
    for slot in cls.__slots__:
        if slot in skip:
            continue
        value = getattr(obj, slot, missing)
        out.append((slot, "<unset>" if value is missing else canon(value)))
    return tuple(out)


def snapshot(data, skip=()):
    """Canonical image of a ClusterData; ``skip`` names slots/attributes to leave out."""
    skip = frozenset(skip)
    assert isinstance(data, ClusterData)
    # "source" only names where the data was read from (for messages), and
    # "request" is what an IAllocator file asks, not part of the cluster.
    extra = sorted(k for k in vars(data)
                   if k not in ("groups", "nodes", "instances", "cluster_tags", "ipolicy",
                                "warnings", "suffix", "source", "request"))
    return {
        "groups": [_slots(g, Group, skip) for g in data.groups],
        "nodes": [_slots(n, Node, skip) for n in data.nodes],
        "instances": [_slots(i, Instance, skip) for i in data.instances],
        "cluster_tags": canon(data.cluster_tags),
        "ipolicy": canon(data.ipolicy),
        "warnings": canon(data.warnings),
        "suffix": canon(data.suffix),
        "extra": tuple((k, canon(getattr(data, k))) for k in extra if k not in skip),
    }


def snapshot_diff(left, right, limit=8):
    """Readable differences between two snapshots (empty list if equal)."""
    out = []
    for key in left:
        a, b = left[key], right.get(key)
        if a == b:
            continue
        if key in ("groups", "nodes", "instances"):
            if len(a) != len(b):
                out.append("%s: count %d != %d" % (key, len(a), len(b)))
            for pos, (x, y) in enumerate(zip(a, b)):
                for (slot, vx), (_slot, vy) in zip(x, y):
                    if vx != vy:
                        out.append("%s[%d].%s: %r != %r" % (key, pos, slot, vx, vy))
                        if len(out) >= limit:
                            return out + ["..."]
        else:
            out.append("%s: %r != %r" % (key, a, b))
        if len(out) >= limit:
            return out + ["..."]
    return out
