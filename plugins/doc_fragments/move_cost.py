# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The rates a plan's cost is estimated at (plan/cost.py)."""

    # Use as: extends_documentation_fragment: [ganeti.htools.move_cost]
    DOCUMENTATION = r'''
options:
  disk_copy_rate:
    description:
      - MiB per second one disk copy runs at (a DRBD replace-disks or an instance
        move), for the plan's estimated duration (RV(cost)).
      - The default is Ganeti's default DRBD resync rate (C(resync-rate) 61440 KiB/s).
      - It changes the estimate only, never the moves.
    type: float
    default: 60.0
  migration_rate:
    description:
      - MiB per second a live migration transfers memory at, for the plan's
        estimated duration (RV(cost)).
      - The default is Ganeti's default KVM C(migration_bandwidth) (32 MiB/s).
      - It changes the estimate only, never the moves.
    type: float
    default: 32.0
'''
