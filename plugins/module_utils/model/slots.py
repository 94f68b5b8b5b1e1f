# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Copy functions for the model's slotted classes, written out attribute by
attribute: the planners copy a node per candidate and an instance per new
one, and a generated body is several times faster than a setattr loop."""

from __future__ import annotations


def slot_copier(cls, containers=None):
    """A copy function for `cls`; the slots named in `containers` (slot ->
    "list", "dict" or "set") are copied shallowly, the others shared."""
    containers = containers or {}
    lines = ["def copy(self):", "    new = new_obj(cls)"]
    for slot in cls.__slots__:
        kind = containers.get(slot)
        lines.append("    new.%s = %sself.%s%s" % (slot, kind + "(" if kind else "", slot,
                                                   ")" if kind else ""))
    lines.append("    return new")
    scope = {"new_obj": object.__new__, "cls": cls}
    exec("\n".join(lines), scope)       # pylint: disable=exec-used
    return scope["copy"]


def container_slots(sample):
    """The slots of `sample` holding a list, dict or set (slot -> kind)."""
    out = {}
    for slot in type(sample).__slots__:
        value = getattr(sample, slot)
        for kind in (list, dict, set):
            if isinstance(value, kind):
                out[slot] = kind.__name__
    return out
