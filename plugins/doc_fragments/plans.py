# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """How a plan computed earlier is given back to a planning module and checked."""

    # Use as: extends_documentation_fragment: [ganeti.htools.plans]
    DOCUMENTATION = r'''
options:
  plan:
    description:
      - A plan returned (as RV(plan)) by an earlier run of the same module, unchanged.
      - The module executes exactly this plan, provided the live cluster is still in
        the state the plan was computed from; otherwise it fails and lists what changed.
      - The algorithm options of this run are then ignored; the plan's own are kept.
      - "The approval guarantee: a plan carries digests of everything that drives
        its execution (moves and their opcodes, jobsets, options, the cluster state)
        and of its report. A plan edited in any way after it was computed is
        refused, naming the parts that no longer match, and nothing runs."
    type: dict
  plan_signing_key:
    description:
      - Secret key to sign plans with (HMAC-SHA256) when they are computed, and to
        require a valid signature on a plan given back as O(plan).
      - A digest detects edits but anyone can recompute it; a signature can only be
        made by whoever holds the key. Use it when plans travel between systems or
        people before they are executed.
      - Never logged.
    type: str
  replan_on_drift:
    description:
      - When O(plan) no longer matches the cluster, compute a new plan with the same
        options instead of failing.
    type: bool
    default: false
'''
