# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """How a module that plans gives plans back, checks them and executes them."""

    # Use as: extends_documentation_fragment: [ganeti.htools.execution]
    DOCUMENTATION = r'''
options:
  plan:
    description:
      - A plan returned (as RV(plan)) by an earlier run of the same module, unchanged.
      - The module executes exactly this plan, provided the live cluster is still in
        the state the plan was computed from; otherwise it fails and lists what changed.
      - The algorithm options of this run are then ignored; the plan's own are kept.
    type: dict
  replan_on_drift:
    description:
      - When O(plan) no longer matches the cluster, compute a new plan with the same
        options instead of failing.
    type: bool
    default: false
  max_parallel:
    description:
      - Maximum number of moves of one jobset that run at the same time.
    type: int
    default: 4
  max_duration:
    description:
      - Time budget in seconds. No new jobset starts after it is spent; running
        jobsets always finish. The result says which moves were not started.
    type: int
  lock_ttl:
    description:
      - Lifetime in seconds of the cluster lock (a cluster tag
        C(ganeti.htools:lock:OWNER:EXPIRY)). A lock left by a run that died can be
        taken over once it expired.
    type: int
    default: 7200
  job_timeout:
    description:
      - Seconds to wait for the lock's tag jobs.
    type: int
    default: 600
  move_timeout:
    description:
      - Seconds a single move job (migration, failover, disk replacement) may run.
      - A job still running then is left to Ganeti, reported with an unknown outcome,
        and nothing more is submitted. No limit by default (disk copies can take hours).
    type: int
'''
