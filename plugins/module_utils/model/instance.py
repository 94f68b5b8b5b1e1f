# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An instance as htools sees it: sizes, placement, status, tags.

``disks`` lists (size, spindles) per disk; ``disk_units`` runs parallel to it
with each disk's desired storage unit, a (type, key) pair or None (see
storage.py for how it is known)."""

from __future__ import annotations

from .slots import slot_copier
from .vocabulary import (LOCAL_STORAGE_TEMPLATES, MEMORY_USING_STATUSES, MIRROR_TYPE, MOVABLE_TEMPLATES,
                         RUNNING_STATUSES)


class Instance:
    __slots__ = (
        "idx", "name", "alias", "mem", "dsk", "disks", "vcpus", "run_status",
        "auto_balance", "pnode", "snode", "template", "tags", "spindle_use",
        "forthcoming", "util", "movable", "excl_tags", "dsrd_loc_tags",
        "location_score", "nics", "disk_units", "uuid",
    )

    def __init__(self, idx, name, mem, dsk, vcpus, run_status, auto_balance, pnode, snode,
                 template, tags=(), spindle_use=1, disks=None, forthcoming=False, nics=(),
                 disk_units=None, uuid=None):
        self.idx = idx
        self.name = name
        self.alias = name
        self.mem = mem
        self.dsk = dsk
        self.disks = disks if disks is not None else [(dsk, None)]
        self.vcpus = vcpus
        self.run_status = run_status
        self.auto_balance = auto_balance
        self.pnode = pnode
        self.snode = snode
        self.template = template
        self.tags = list(tags)
        self.spindle_use = spindle_use
        self.forthcoming = forthcoming
        self.util = (1.0, 1.0, 1.0, 1.0)
        self.movable = template in MOVABLE_TEMPLATES
        self.excl_tags = []
        self.dsrd_loc_tags = frozenset()
        self.location_score = 0
        self.nics = list(nics)
        # a tuple, so that copies may share it
        self.disk_units = (None,) * len(self.disks) if disk_units is None else tuple(disk_units)
        # Ganeti's id (live and saved RAPI data): its configuration, and so its
        # own IAllocator requests, list instances in this order
        self.uuid = uuid

    # Predicates derived from status, template and flags; the status and template
    # sets are in vocabulary.py.
    @property
    def is_running(self):
        return self.run_status in RUNNING_STATUSES

    @property
    def not_offline(self):
        return self.run_status != "ADMIN_offline"

    @property
    def uses_sec_mem(self):
        return self.not_offline and self.auto_balance

    @property
    def uses_memory(self):
        return (not self.forthcoming) and self.run_status in MEMORY_USING_STATUSES

    @property
    def uses_local_storage(self):
        return self.template in LOCAL_STORAGE_TEMPLATES

    @property
    def has_secondary(self):
        return self.template == "drbd"

    @property
    def mirror(self):
        return MIRROR_TYPE[self.template]

    def all_nodes(self):
        return [self.pnode, self.snode] if self.template == "drbd" else [self.pnode]

    @property
    def total_spindles(self):
        total = 0
        for _size, spindles in self.disks:
            if spindles is None:
                return None
            total += spindles
        return total


# a shallow copy (lists and sets shared, as they are never changed in place),
# written out: hspace copies an instance for every new one it places
Instance.copy = slot_copier(Instance)
