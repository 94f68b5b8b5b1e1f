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

Fit (`unit_charges`): on a node that reports units, an instance of a
node-local template (drbd, plain, file) charges each disk to the node's unit
of the disk's desired kind (for a key-less desire, the node's first unit of
the type); a disk with no such unit makes the instance not fit.  A disk is
charged its size plus its share of the instance's overhead (the DRBD
metadata: the charges add up to the instance's disk total).  The node's
per-node disk totals are not consulted then.  Shared storage (sharedfile,
gluster, rbd, ext) is never charged: its space does not move with the
instance.  Unlike 3.0.2, file disks are charged (3.0.2 never charges them,
its pool being the volume group).
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
# The unit types the free-disk metric averages over: node-local storage.  A
# shared unit shows the same space from every node; no move changes it, and
# its zero deviation would only dilute the average.
METRIC_UNIT_TYPES = frozenset(("drbd8", "lvm-vg", "file"))

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


def disk_charges(inst):
    """What each disk of `inst` takes from its unit, in MiB: its size plus an
    equal share of the instance's overhead (disk total minus the disk sizes;
    the first disk takes the remainder), so the charges add up to inst.dsk."""
    sizes = [size for size, _spindles in inst.disks]
    extra = inst.dsk - sum(sizes)
    if extra <= 0 or not sizes:
        return sizes
    share, rest = divmod(extra, len(sizes))
    return [size + share + (rest if pos == 0 else 0) for pos, size in enumerate(sizes)]


def unit_slot(units, desired):
    """The position in `units` of the unit that holds a disk wanting `desired`."""
    wanted_type, wanted_key = desired
    for pos, unit in enumerate(units):
        if unit.type == wanted_type and (wanted_key is None or unit.key == wanted_key):
            return pos
    return None


def unit_charges(inst, units):
    """{unit position: MiB} that `inst` takes on a node with `units`, or None
    when one of its disks has no unit there (the instance does not fit).
    Empty for templates whose space is not on the node."""
    if inst.template not in NODE_LOCAL_TEMPLATES:
        return {}
    charges = {}
    for desired, amount in zip(inst.disk_units, disk_charges(inst)):
        if desired is None:
            desired = derive_desired_unit(inst.template, units)
            if desired is None:
                continue
        pos = unit_slot(units, desired)
        if pos is None:
            return None
        charges[pos] = charges.get(pos, 0) + amount
    return charges


def metric_unit_positions(units):
    """Positions of the units the free-disk metric looks at."""
    return [pos for pos, unit in enumerate(units) if unit.type in METRIC_UNIT_TYPES]
