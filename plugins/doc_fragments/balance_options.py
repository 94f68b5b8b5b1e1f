# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """hbal's algorithm options, shared by every module that balances a group."""

    # Use as: extends_documentation_fragment: [ganeti.htools.balance_options]
    DOCUMENTATION = r'''
options:
  max_length:
    description:
      - Maximum number of moves in the plan, like C(hbal -l). C(-1) means no limit.
      - C(0) computes no move at all.
    type: int
    default: -1
  min_score:
    description:
      - Stop once the score is within this distance of the optimum that N+1
        reservations allow, like C(hbal -e).
    type: float
    default: 1.0e-9
  min_gain:
    description:
      - Minimum score gain of a move once the score is at or below
        O(min_gain_limit), like C(hbal -g).
    type: float
    default: 0.01
  min_gain_limit:
    description:
      - Score above which any improvement is accepted and O(min_gain) is not
        checked, like C(hbal --min-gain-limit).
    type: float
    default: 0.1
  no_disk_moves:
    description:
      - Only fail over or migrate instances, never copy disks, like
        C(hbal --no-disk-moves).
    type: bool
    default: false
  avoid_disk_moves:
    description:
      - Accept a move that copies disks only when its gain is more than this
        factor times the gain of the best failover or migration
        (C(--avoid-disk-moves) of Ganeti 3.1 and later; not in C(hbal) 3.0).
      - Omit it to get C(hbal) 3.0's plans.
    type: float
  no_instance_moves:
    description:
      - Never change an instance's primary node; only replace DRBD
        secondaries, like C(hbal --no-instance-moves).
    type: bool
    default: false
  ignore_soft_errors:
    description:
      - Ignore soft placement restrictions (N+1, CPU ratio, spindle ratio,
        minimum free disk, exclusion tags), like C(hbal --ignore-soft-errors).
      - Hard limits (memory, disk, spindles, migration tags) still apply.
    type: bool
    default: false
  evac_mode:
    description:
      - Only move instances that have a node that is offline or drained, like
        C(hbal --evac-mode).
    type: bool
    default: false
  restricted_migration:
    description:
      - Disallow replace-primary moves (C(f r f)), and replace-and-failover
        (C(r f)) unless the primary is offline or drained, like
        C(hbal --restricted-migration).
    type: bool
    default: false
  select_instances:
    description:
      - Only move these instances, like C(hbal --select-instances).
      - Names may omit the common domain suffix.
    type: list
    elements: str
    default: []
  exclude_instances:
    description:
      - Never move these instances, like C(hbal --exclude-instances).
    type: list
    elements: str
    default: []
  max_cpu:
    description:
      - Maximum virtual-to-physical CPU ratio of a node, like
        C(hbal --max-cpu). Defaults to the node group's instance policy.
      - Must be greater than C(0), as C(hbal) requires.
    type: float
  min_disk:
    description:
      - Minimum fraction of free disk to keep on a node, like
        C(hbal --min-disk).
    type: float
    default: 0.0
'''
