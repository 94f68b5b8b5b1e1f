# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bulk search on nodes that report storage units (model/storage.py).

When every node of the group holds the same K metric storage units, the
free-disk metrics are the average over the K units of each unit's deviation
(planner/metrics.py).  A move of an instance whose disks all sit in one unit
u changes u's deviation only.  So the regular victims are searched unit by
unit: each time with the disk arrays and the two disk metric columns of
that unit, the disk weights divided by K, and the other units' deviations,
which the move leaves alone, in the fixed part of the score.  Victims whose
disks take no unit are searched with the first unit; victims that want
several units, or a unit by type only, are left to the scalar model.

Any other layout (nodes without units, nodes holding different units) is
left to the exhaustive search.
"""

from __future__ import annotations

from ..metrics import FREE_DISK, FREE_DISK_FORTH, METRICS, unit_metrics
from ...model.storage import METRIC_UNIT_TYPES, unit_charges, unit_id, unit_slot

NO_UNITS = "no units"      # the group's nodes report none: 3.0.2's per-node pool
MIXED = "mixed"            # units the bulk rules cannot follow


def unit_layout(nodes):
    """The metric units every node holds, in the first node's order; NO_UNITS
    or MIXED."""
    if not any(n.storage_units for n in nodes):
        return NO_UNITS
    layout = None
    for node in nodes:
        ids = [unit_id(u) for u in node.storage_units if u.type in METRIC_UNIT_TYPES]
        if layout is None:
            layout = ids
        elif sorted(ids) != sorted(layout):
            return MIXED
    return layout if layout else MIXED


def victim_unit(inst, node):
    """(unit id or None, MiB) that `inst` takes on any node of the layout;
    None when the scalar model must decide (several units, a type only)."""
    if any(d is not None and d[1] is None for d in inst.disk_units):
        return None
    charges = unit_charges(inst, node.storage_units)
    if charges is None or len(charges) > 1:
        return None
    if not charges:
        return (None, 0)
    pos, amount = next(iter(charges.items()))
    unit = node.storage_units[pos]
    if unit.type not in METRIC_UNIT_TYPES:
        return None
    return (unit_id(unit), amount)


def free_fractions(nodes, uid):
    """The free fraction of unit `uid` per node: now, and with forthcoming instances."""
    now, forth = [], []
    for node in nodes:
        fraction, fraction_forth = node.unit_fractions(unit_slot(node.storage_units, uid))
        now.append(fraction)
        forth.append(fraction_forth)
    return now, forth


def unit_score_parts(nodes, layout, uid):
    """(base columns, disk weight factor, fixed part) of the search of unit `uid`:
    its free fractions for the two disk columns, 1/K, and the weighted
    deviations of the other units (every online node holds each of them)."""
    scale = 1.0 / len(layout)
    fixed = 0.0
    for row in unit_metrics(nodes, [other for other in layout if other != uid]):
        fixed += METRICS[FREE_DISK][1] * scale * row[3]
        fixed += METRICS[FREE_DISK_FORTH][1] * scale * row[4]
    return free_fractions(nodes, uid), scale, fixed
