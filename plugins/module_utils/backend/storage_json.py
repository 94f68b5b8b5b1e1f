# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's storage units in JSON, as the multi-storage design writes them:
`[{"sunit": [type, key, params], "free": MiB, "total": MiB}, ...]` (the
IAllocator `storage` node key, RAPI's storage.json, the live storage read)."""

from __future__ import annotations

from ..errors import DataError
from .jsonfields import JsonObject
from ..model.storage import STORAGE_TYPES, StorageUnit, unit_id


_SUNIT_FORMAT = "[type, key, params] with a type among %s, a non-empty key and a list" \
    % ", ".join(STORAGE_TYPES)


def node_storage_units(entries, source, node_name):
    """A node's `storage` list as a tuple of StorageUnit."""
    units = []
    seen = set()
    for pos, raw in enumerate(entries):
        entry = JsonObject(raw, source, "node %s storage unit %d" % (node_name, pos))
        unit = _storage_unit(entry)
        if unit_id(unit) in seen:
            raise DataError("%s repeats type %s key %r" % (entry.what, unit.type, unit.key),
                            source=source, expected="one unit per type and key")
        seen.add(unit_id(unit))
        units.append(unit)
    return tuple(units)


def _storage_unit(entry):
    sunit = entry.get("sunit", "list")
    if (len(sunit) != 3 or sunit[0] not in STORAGE_TYPES or not isinstance(sunit[1], str)
            or sunit[1] == "" or not isinstance(sunit[2], list)):
        raise DataError("%s: bad key 'sunit'" % entry.what, source=entry.source,
                        expected=_SUNIT_FORMAT, got=sunit)
    free, total = entry.get("free", "int"), entry.get("total", "int")
    if free < 0 or total < 0 or free > total:
        raise DataError("%s: bad free/total space" % entry.what, source=entry.source,
                        expected="0 <= free <= total (MiB)", got=[free, total])
    return StorageUnit(sunit[0], sunit[1], tuple(sunit[2]), free, total)
