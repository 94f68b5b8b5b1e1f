# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evacuation's own options, declared once: the module argument spec is built from here."""

from __future__ import annotations

from ...options import Option

# hail's node-evacuate modes (what an IAllocator request may ask for)
PRIMARY_ONLY, SECONDARY_ONLY, ALL = "primary-only", "secondary-only", "all"
HAIL_MODES = (PRIMARY_ONLY, SECONDARY_ONLY, ALL)
# What an operator runs, and the default: `gnt-node evacuate -s`, then `-p` on
# the cluster the first left.  Ganeti itself refuses `all` (LUNodeEvacuate:
# "not possible to evacuate all instances at once"); only hail answers it.
SECONDARY_THEN_PRIMARY = "secondary-then-primary"
MODES = (SECONDARY_THEN_PRIMARY,) + HAIL_MODES
# the hail modes a module mode runs, one after the other
PHASES = {SECONDARY_THEN_PRIMARY: (SECONDARY_ONLY, PRIMARY_ONLY),
          PRIMARY_ONLY: (PRIMARY_ONLY,), SECONDARY_ONLY: (SECONDARY_ONLY,), ALL: (ALL,)}

EVACUATE_OPTIONS = (
    Option("nodes", "list", (), elements="str"),
    Option("mode", "str", SECONDARY_THEN_PRIMARY, choices=MODES),
    Option("instances", "list", (), elements="str"),
    Option("target_groups", "list", (), elements="str"),
    Option("ignore_soft_errors", "bool", False),
    Option("no_capacity_checks", "bool", False),
    Option("drain", "bool", True),
    # Not hail's: whether a plan some of whose instances cannot move still runs.
    Option("allow_partial", "bool", False),
    # hail's --restrict-allocation-to (change-group: the target group's choice)
    Option("restrict_allocation_to", "list", (), elements="str"),
)
