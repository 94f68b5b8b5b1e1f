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
      - The plan runs with the options it was computed with. A planning option given
        beside it (an algorithm option, C(group), the evacuation targets...) must equal
        the plan's own value, and C(save_state) cannot be given; otherwise the module
        fails before reading anything, rather than ignore them.
      - "A given but empty value (C({}), or C(null) from an unset variable) is refused:
        it is no plan, and no plan is computed instead. To compute a plan, leave the
        option out (C(plan: \"{{ approved | default(omit) }}\"))."
      - A plan computed on another cluster (its C(cluster) name) is refused.
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
      - With a key, a module that executes plans executes only a plan given back as
        O(plan) (signed with this key); without O(plan) it plans in check mode only.
    type: str
  replan_on_drift:
    description:
      - When O(plan) no longer matches the cluster, compute a new plan with the plan's
        options instead of failing, and execute that new plan at once, which nobody
        reviewed (the result says so with C(replanned) and C(drift)).
      - Refused together with O(plan_signing_key), whose point is that only signed
        plans run.
      - Without O(plan) it has no effect.
    type: bool
    default: false
'''
