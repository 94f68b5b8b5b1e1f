# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Storage units of a node and the unit each disk wants (multi-storage design).

A node may report storage units: one (type, key, params, free, total) per
storage location, sizes in MiB.  ``Node.storage_units`` holds them as a tuple
of immutable ``StorageUnit`` records, empty when the data reports none; a
change of free space replaces a record (``unit._replace(free=...)``), so
copies of a node may share the tuple.

Every disk has one desired unit, a (type, key) pair that stays with the
disk when it moves.  ``Instance.disk_units`` runs parallel to
``Instance.disks``; an entry is:

* the pair the data gives (IAllocator ``disks[].storage``, the text
  format's instance column 14), else
* the pair derived when the data is loaded from the disk template and the
  primary node's units: the first unit of the template's storage type
  (``DESIRED_TYPES``; a drbd disk takes the node's ``drbd8`` unit, else its
  ``lvm-vg`` one, the volume group DRBD sits on), else
* ``(type, None)`` for a template whose data lives on the node (drbd,
  plain, file) when the primary has units but none of that type: any unit
  of that type will do, else
* None: the disk takes no unit, and the 3.0.2 per-node disk pool applies
  (diskless and blockdev disks, shared storage the node does not report,
  and every disk of a node that reports no units).
"""

from __future__ import annotations

from collections import namedtuple

# Ganeti's storage types, plus drbd8 to tell mirrored from plain LVM storage.
STORAGE_TYPES = ("lvm-vg", "lvm-pv", "file", "sharedfile", "gluster", "rados", "ext",
                 "diskless", "drbd8")

# The storage types a template's disk may live in, the preferred one first.
DESIRED_TYPES = {
    "drbd": ("drbd8", "lvm-vg"),
    "plain": ("lvm-vg",),
    "file": ("file",),
    "sharedfile": ("sharedfile",),
    "gluster": ("gluster",),
    "rbd": ("rados",),
    "ext": ("ext",),
}
# Templates whose disks are kept on the node itself: they always want a unit
# once the node reports units.
NODE_LOCAL_TEMPLATES = frozenset(("drbd", "plain", "file"))

StorageUnit = namedtuple("StorageUnit", ("type", "key", "params", "free", "total"))


def unit_id(unit):
    """The (type, key) pair naming a unit; a node holds at most one per pair."""
    return (unit.type, unit.key)


def derive_desired_unit(template, units):
    """The desired (type, key) of a disk of `template` whose primary node has
    `units`, or None when no unit constrains it (see the module docstring)."""
    types = DESIRED_TYPES.get(template)
    if not units or types is None:
        return None
    for wanted in types:
        for unit in units:
            if unit.type == wanted:
                return unit_id(unit)
    if template in NODE_LOCAL_TEMPLATES:
        return (types[0], None)
    return None


def unit_accepts(unit, desired):
    """Whether `unit` can hold a disk that wants `desired` (type, key); a
    None key accepts any unit of the type."""
    wanted_type, wanted_key = desired
    return unit.type == wanted_type and (wanted_key is None or unit.key == wanted_key)


def derived_disk_units(inst, nodes):
    """The desired units loading would derive for `inst` on its current primary."""
    units = nodes[inst.pnode].storage_units
    return tuple(derive_desired_unit(inst.template, units) for _disk in inst.disks)


def resolve_disk_units(data):
    """Fill the desired unit of every disk the data left open, from its primary
    node as loaded (a no-op when no node reports storage units)."""
    if not any(node.storage_units for node in data.nodes):
        return
    for inst in data.instances:
        derived = derived_disk_units(inst, data.nodes)
        inst.disk_units = tuple(given if given is not None else guess
                                for given, guess in zip(inst.disk_units, derived))
