# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ganeti's words as htools uses them: statuses, disk templates, mirror types,
and the Haskell-exact division every score relies on."""

from __future__ import annotations

import math


RUN_STATUSES = (
    "running", "ADMIN_down", "ADMIN_offline", "ERROR_up", "ERROR_down",
    "ERROR_nodedown", "ERROR_nodeoffline", "USER_down", "ERROR_wrongnode",
)
DISK_TEMPLATES = (
    "diskless", "file", "sharedfile", "plain", "blockdev", "drbd", "rbd", "ext", "gluster",
)
ALLOC_POLICIES = ("preferred", "last_resort", "unallocable")

MIRROR_NONE = "none"
MIRROR_INTERNAL = "internal"
MIRROR_EXTERNAL = "external"

MEMORY_USING_STATUSES = frozenset(("running", "ERROR_up", "ERROR_nodedown", "ERROR_nodeoffline", "ERROR_wrongnode"))
RUNNING_STATUSES = frozenset(("running", "ERROR_up"))
LOCAL_STORAGE_TEMPLATES = frozenset(("drbd", "plain"))
MOVABLE_TEMPLATES = frozenset(("drbd", "blockdev", "sharedfile", "gluster", "rbd", "ext"))
MIRROR_TYPE = {
    "drbd": MIRROR_INTERNAL,
    "diskless": MIRROR_EXTERNAL, "sharedfile": MIRROR_EXTERNAL, "blockdev": MIRROR_EXTERNAL,
    "rbd": MIRROR_EXTERNAL, "ext": MIRROR_EXTERNAL, "gluster": MIRROR_EXTERNAL,
    "file": MIRROR_NONE, "plain": MIRROR_NONE,
}

NO_NODE = -1


def fdiv(a, b):
    """IEEE division (Haskell Double semantics): x/0 gives +-Infinity or NaN."""
    try:
        return a / b
    except ZeroDivisionError:
        if math.isnan(a) or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def compute_pdsk(free, total):
    """Fraction of free disk (or spindles); a node without storage counts as free."""
    return 1.0 if total == 0 else fdiv(free, total)
