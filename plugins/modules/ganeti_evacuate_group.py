#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_evacuate_group
short_description: Evacuate Ganeti nodes or move instances to another node group, exactly as hail plans it
version_added: 0.1.0
description:
  - Plans a node evacuation (O(nodes) with O(mode)) or a group change (O(instances)
    with O(target_groups)) exactly as Ganeti 3.0's iallocator C(hail) computes it -
    the same target nodes, the same jobs of opcodes, the same failures with the same
    messages - and executes the plan over RAPI.
  - RAPI itself evacuates one mode at a time (C(all) is refused) and cannot change an
    instance's group; this module does both, from any host that reaches RAPI.
  - Given an IAllocator request file of type C(node-evacuate), C(change-group) or
    C(relocate) as O(data_file), and neither O(nodes) nor O(instances), the module
    answers that request; RV(iallocator_result) is then the document C(hail) prints
    for it with the same options.
  - In check mode, and with O(data_file), the module returns the plan; nothing is
    changed. Otherwise it takes the cluster lock, re-reads the cluster, drains the
    evacuated nodes (O(drain)) and runs the jobs (RV(jobs)) - the opcodes of one
    instance one after the other, each submitted when the previous one succeeded
    (its C(depends)), different instances in parallel up to O(max_parallel). After the first failed job no new
    job starts; the jobs under way finish.
  - A plan in which some instances cannot move is not executed unless
    O(allow_partial=true) (Ganeti refuses such an evacuation as a whole).
  - Given back as O(plan), a plan runs exactly as approved; a plan whose run was
    interrupted continues where it stopped, skipping the instances already where the
    plan puts them.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.rapi
  - ganeti.htools.jobs
  - ganeti.htools.plans
  - ganeti.htools.plan_report
  - ganeti.htools.details
  - ganeti.htools.execution
  - ganeti.htools.lock_owner
options:
  nodes:
    description:
      - Evacuate these nodes (names, or unique short names) - the instances with their
        secondary and then those with their primary on one of them
        (O(mode=secondary-then-primary)), only one of the two
        (O(mode=secondary-only), O(mode=primary-only)), or either at once (O(mode=all)),
        like C(gnt-node evacuate).
      - Mutually exclusive with O(instances).
    type: list
    elements: str
    default: []
  mode:
    description:
      - Which instances of O(nodes) move, and how.
      - C(secondary-then-primary) plans what an operator runs - C(gnt-node evacuate -s),
        then C(gnt-node evacuate -p) on the cluster the first leaves - two C(hail)
        requests, each answered as C(hail) does; the moves of the second run after
        every move of the first (two jobsets).
      - C(secondary-only) gives DRBD instances new secondaries; C(primary-only) moves
        the primaries away (DRBD instances fail over or migrate to their secondary,
        which keeps the node as their secondary - the result warns of it).
      - C(all) is C(hail)'s all-mode - a new primary and secondary for every instance
        on the nodes, also those whose only link to them is their secondary. Ganeti
        itself refuses it (C(gnt-node evacuate) without C(-s) or C(-p) fails with
        "not possible to evacuate all instances at once"); only C(hail) answers it.
    type: str
    choices: [secondary-then-primary, secondary-only, primary-only, all]
    default: secondary-then-primary
  instances:
    description:
      - Move these instances to another node group (change-group).
      - Mutually exclusive with O(nodes).
    type: list
    elements: str
    default: []
  target_groups:
    description:
      - The node groups (names or UUIDs) O(instances) may move to; empty means any
        other group, as C(gnt-instance change-group) without C(--to).
    type: list
    elements: str
    default: []
  ignore_soft_errors:
    description:
      - Ignore soft instance policy violations when choosing targets, like
        C(hail --ignore-soft-errors).
    type: bool
    default: false
  no_capacity_checks:
    description:
      - Skip the global N+1 capacity check of group changes, like
        C(hail --no-capacity-checks).
    type: bool
    default: false
  drain:
    description:
      - Drain O(nodes) before the first job, so that nothing new lands on them
        meanwhile; they are left drained.
      - The master node cannot be drained (Ganeti changes its role only by a master
        failover); it is evacuated without, with a warning.
    type: bool
    default: true
  allow_partial:
    description:
      - Execute a plan in which some instances cannot move (RV(failed_instances) is not
        empty) - the others move, the failed ones stay.
    type: bool
    default: false
  restrict_allocation_to:
    description:
      - Like C(hail --restrict-allocation-to) - node names (full); a group change then
        chooses each instance's target group by these nodes only (the move itself may use
        any node of that group, as in C(hail)). Node evacuations are not affected, as in
        C(hail). Empty - the default - restricts nothing.
      - A name that is no node of the cluster is refused (C(hail) ignores it).
    type: list
    elements: str
    default: []
attributes:
  check_mode:
    description: Returns the plan; nothing is drained, moved or locked.
    support: full
  diff_mode:
    description: Shows the primary and secondary node of each moved instance before and after.
    support: full
notes:
  - C(util_file), C(group), C(offline_nodes), C(exclusion_tags) and C(ignore_dynu)
    of the other modules are not options of this one - C(hail) plans on the cluster
    as it is.
  - With O(lock_owner) (a step of a longer run, such as the C(ganeti.htools.rolling_reboot)
    role with C(rolling_reboot_full_evacuation)) no lock is taken or released - the run
    must hold the cluster lock under that owner.
  - The plan is computed for the state read before the lock is taken; when the
    cluster changed meanwhile the run stops before anything is executed.
seealso:
  - module: ganeti.htools.ganeti_balance
  - name: hail(1)
    description: The Ganeti iallocator this module reproduces.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hail.html
'''

EXAMPLES = r'''
- name: Plan the evacuation of node3 (check mode), to review it
  ganeti.htools.ganeti_evacuate_group:
    rapi_url: https://cluster.example.com:5080
    nodes: [node3]
  check_mode: true
  register: evacuation

- name: Show what would move
  ansible.builtin.debug:
    msg: "{{ evacuation.summary }}"

- name: Execute exactly the reviewed plan (refused if the cluster changed)
  ganeti.htools.ganeti_evacuate_group:
    rapi_url: https://cluster.example.com:5080
    plan: "{{ evacuation.plan }}"

- name: Give the DRBD instances of node4 new secondaries, without draining it
  ganeti.htools.ganeti_evacuate_group:
    nodes: [node4]
    mode: secondary-only
    drain: false

- name: Move two instances into the node group rack-b
  ganeti.htools.ganeti_evacuate_group:
    instances: [web1, web2]
    target_groups: [rack-b]

- name: Answer an IAllocator request as hail would
  ganeti.htools.ganeti_evacuate_group:
    data_file: /var/tmp/node-evacuate-request.json
  check_mode: true
  register: answer
'''

RETURN = r'''
summary:
  description: One line on what was planned - what moves, what cannot, what is drained.
  returned: success
  type: str
  sample: "node-evacuate (secondary-then-primary) of node1: 5 instance(s) to move in 6 job(s)"
kind:
  description: C(node-evacuate), C(change-group) or C(relocate) (an IAllocator request only).
  returned: success
  type: str
mode:
  description: The evacuation mode, null for a group change.
  returned: success
  type: str
nodes:
  description: The evacuated nodes (full names).
  returned: success
  type: list
  elements: str
drain_nodes:
  description: The nodes the plan drains before its first job (O(drain); never the master).
  returned: success
  type: list
  elements: str
target_groups:
  description: The target groups as given (full names), empty for any other group.
  returned: success
  type: list
  elements: str
iallocator_result:
  description:
    - The answer C(hail) gives to the same request with the same options -
      C(success), C(info) and C(result) (for evacuations, the moved instances, the
      failed ones with C(hail)'s message, and the jobs of opcodes).
    - With O(mode=secondary-then-primary), a list of the two answers in order - to the
      secondary-only request, then to the primary-only one on the cluster the first leaves.
  returned: success
  type: raw
  sample:
    success: true
    info: "Request successful: 0 instances failed to move and 1 were moved successfully"
    result: [[["inst1", "default", ["node2", "node3"]]], [], [[{OP_ID: OP_INSTANCE_MIGRATE}]]]
failed_instances:
  description:
    - The instances that cannot move - C(instance) and C(reason) (hail's message).
    - The second list of hail's answer; not named C(failed), which Ansible reserves.
  returned: success
  type: list
  elements: dict
  sample: [{instance: inst9, reason: "Instances of type plain cannot be relocated"}]
moves:
  description:
    - One entry per instance that moves (C(hail)'s moved list), in request order -
      C(index) (its job number in C(hail)'s answer), C(instance), C(move) (its opcodes
      by name, such as C(replace_disks+migrate+replace_disks)), C(description) (the
      move in plain words, as in the HTML report and the diff, such as C(new secondary
      node5, then migrate to node5)), C(old_primary), C(old_secondary), C(old_group),
      C(new_primary), C(new_secondary), C(new_group), C(jobset), and with
      O(details=full) C(opcodes) (hail's job; the moves of RV(plan) always have them).
  returned: success
  type: list
  elements: dict
jobs:
  description:
    - The RAPI jobs that execute the plan, one per opcode - C(job) (number), C(move)
      (the C(index) of the move in RV(moves) it belongs to), C(instance), C(opcode) (its C(OP_ID))
      and C(depends) (the job that must succeed first - the previous opcode of the
      same instance; the instances do not depend on each other).
  returned: with O(details=full)
  type: list
  elements: dict
  sample:
    - {job: 1, move: 1, instance: inst1, opcode: OP_INSTANCE_REPLACE_DISKS, depends: []}
    - {job: 2, move: 1, instance: inst1, opcode: OP_INSTANCE_MIGRATE, depends: [1]}
jobsets:
  description:
    - The moves that may run in parallel - one set per C(hail) request (two with
      O(mode=secondary-then-primary)), run one after the other.
  returned: success
  type: list
  elements: list
scores:
  description:
    - Each node group involved (the source groups and the targets), with its own score
      C(before) and C(after) the plan - the score C(hbal) gives that group alone; the HTML
      report shows them in a table.
  returned: success
  type: dict
score_before:
  description: The score of all the nodes of the groups involved taken together, before the plan (no group's own score; see RV(scores)).
  returned: success
  type: float
score_after:
  description: The same after the plan.
  returned: success
  type: float
data_warnings:
  description: Inconsistencies found in the cluster data, and a master that cannot be drained.
  returned: success
  type: list
  elements: str
report_file:
  description: The path of the HTML report written (O(report_file)).
  returned: when O(report_file) was given
  type: str
  sample: /var/tmp/plan.html
plan:
  description:
    - The plan as one self-contained object, given back as O(plan) to execute exactly
      it; the same envelope as the plans of M(ganeti.htools.ganeti_balance) (format
      C(ganeti.htools/evacuate-plan/4)), whose RV(ganeti.htools.ganeti_balance#module:plan)
      describes its fields.
  returned: success
  type: dict
drained:
  description: The nodes this run drained.
  returned: when the plan was executed
  type: list
  elements: str
execution:
  description:
    - What the run did, move by move - the same report as
      RV(ganeti.htools.ganeti_balance#module:execution) (C(moves) with each one's
      C(status), C(jobs) and C(error); C(succeeded), C(failed), C(not_started),
      C(unknown), C(already_done), C(stopped)).
  returned: when the plan was executed
  type: dict
replanned:
  description: Whether O(plan) had gone stale and was computed again (with O(replan_on_drift)).
  returned: when O(plan) was given
  type: bool
resumed:
  description: The moves an interrupted earlier run of O(plan) finished (C(moves_done)) or left half-way.
  returned: when O(plan) continues an interrupted run
  type: dict
drift:
  description: The cluster's changes since O(plan) was computed, one line each.
  returned: when O(plan) was given and is stale
  type: list
  elements: str
'''

from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule
# the planner itself, not the registry: AnsiballZ ships what a module imports
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import EVACUATE


def main():
    evacuate = EVACUATE
    argument_spec = argspecs.combine(
        argspecs.data_file(), argspecs.rapi(), argspecs.jobs(), argspecs.execution(),
        argspecs.plan_report(), argspecs.details(), argspecs.lock_owner(),
        argspecs.planner_options(evacuate),
    )
    HtoolsModule(argument_spec, needs=evacuate.needs, checked=evacuate.table,
                 mutually_exclusive=[("nodes", "instances")]).run_plan(evacuate)


if __name__ == '__main__':
    main()
