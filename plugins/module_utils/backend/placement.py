# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks every loader runs on what it loaded: placements the planners can model.

Each format reads names and fields its own way and names its own errors;
what no format may let through, whatever it says, is checked here once:
a DRBD instance needs a secondary node other than its primary (hbal 3.0.2
itself crashes on one without: "IntMap.!: key -1"), and names are unique.
"""

from __future__ import annotations

from ..errors import DataError
from ..model.vocabulary import NO_NODE


def check_placements(data, source):
    """Raise a DataError naming the first instance or node the planners cannot model."""
    _check_unique("node", [node.name for node in data.nodes], source)
    _check_unique("instance", [inst.name for inst in data.instances], source)
    for inst in data.instances:
        if inst.template != "drbd":
            continue
        if inst.snode == NO_NODE:
            raise DataError("instance %s: disk template drbd needs a secondary node, and none "
                            "is given" % inst.name, source=source,
                            expected="a secondary node for every DRBD instance")
        if inst.snode == inst.pnode:
            raise DataError("instance %s has the same primary and secondary node (%s)"
                            % (inst.name, data.nodes[inst.pnode].name), source=source,
                            expected="a secondary node other than the primary")


def _check_unique(what, names, source):
    if len(set(names)) == len(names):
        return
    seen = set()
    for name in names:
        if name in seen:
            raise DataError("duplicate %s name %r" % (what, name), source=source)
        seen.add(name)
