# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """How a planning module executes its plans over LUXI or RAPI."""

    # Use as: extends_documentation_fragment: [ganeti.htools.execution]
    DOCUMENTATION = r'''
options:
  force_unlock:
    description:
      - Take over the cluster lock even when another run holds it and it has not
        expired yet, for example after the controller of that run was lost.
      - Make sure that run is really over first; the failure message of a refused
        lock names its owner and age.
    type: bool
    default: false
  max_parallel:
    description:
      - Maximum number of moves of one jobset that run at the same time (at least 1).
    type: int
    default: 4
  max_duration:
    description:
      - Time budget in seconds. No new jobset starts after it is spent; running
        jobsets always finish. The result says which moves were not started.
      - A deadline of the execution only - the plan is the same with or without it.
    type: int
  lock_ttl:
    description:
      - Lifetime in seconds (at least 60) of the cluster lock (a cluster tag
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
      - Seconds a single move job (migration, failover, disk replacement; over LUXI,
        the job holding all of a move's opcodes) may run.
      - A job still running then is left to Ganeti, reported with an unknown outcome,
        and nothing more is submitted. No limit by default (disk copies can take hours).
    type: int
notes:
  - Over LUXI each move is submitted as one Ganeti job holding its opcodes in order
    (for example migrate, replace-disks, migrate), as C(hbal -X) submits them, so
    C(gnt-job list) reads as the plan; the moves of a jobset are submitted side by
    side (at most O(max_parallel)), the next jobset after they all succeeded.
  - Over RAPI, which has no resource for a job of several opcodes, each opcode of a
    move is its own job, submitted once the previous one succeeded.
  - Either way an interrupted run resumes from the cluster's state - a move whose job
    stopped half-way continues with the opcodes it has left - and both lock the
    cluster, refuse a drifted cluster and stop at the first failure.
'''
