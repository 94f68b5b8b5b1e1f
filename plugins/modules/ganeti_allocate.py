#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_allocate
short_description: Where would new Ganeti instances go, as hail answers allocate requests
version_added: 0.1.0
description:
  - Answers C(hail) 3.0.2's C(allocate), C(multi-allocate) and C(allocate-secondary)
    IAllocator requests exactly as C(hail) does - the same success, info text and
    result - either from an IAllocator request file (O(data_file)) or from instance
    specs given as options, on a cluster read like the other modules of the collection.
  - Read-only - returns the placements and the C(gnt-instance) commands an operator
    would run; it creates nothing and is safe in check mode.
  - The answer is also a plan (RV(plan)) - one move per placed instance, whose opcode
    creates it where C(hail) puts it - with the nodes before and after in the HTML
    report (O(report_file)); given back as O(plan), it is returned again as long as the
    cluster did not change. Nothing executes it.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.rapi
  - ganeti.htools.plans
  - ganeti.htools.plan_report
  - ganeti.htools.details
options:
  instances:
    description:
      - The instances to place. One instance makes an C(allocate) request, more (or a
        C(count) above 1) a C(multi-allocate) request, placed in order, each on the
        cluster as the previous ones left it.
      - Refused with an IAllocator request file, which says itself what to place.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The instance name; default C(newN) (with C(-K) appended when O(instances[].count) is above 1).
        type: str
      memory:
        description: Memory in MiB.
        type: int
        required: true
      vcpus:
        description: Virtual CPUs.
        type: int
        required: true
      disks:
        description: Disk sizes in MiB, one per disk (none for C(diskless)).
        type: list
        elements: int
        default: []
      disk_template:
        description: The disk template; C(drbd) needs two nodes, the others one.
        type: str
        required: true
        choices: [diskless, file, sharedfile, plain, blockdev, drbd, rbd, ext, gluster]
      spindles:
        description: Spindles of each disk (exclusive storage).
        type: int
      spindle_use:
        description: The spindles the instance uses (its C(spindle_use) back-end parameter).
        type: int
        default: 1
      tags:
        description: Instance tags (exclusion and desired-location tags count as in C(hail)).
        type: list
        elements: str
        default: []
      networks:
        description: Networks of the instance's NICs; only groups connected to them qualify.
        type: list
        elements: str
        default: []
      group:
        description: Place the instance in this node group only (the request's C(group_name)).
        type: str
      count:
        description: How many instances of this spec.
        type: int
        default: 1
  group:
    description: Node group for all O(instances) (the request's C(group_name)).
    type: str
  secondary_for:
    description:
      - Name of an instance without a secondary node; answers C(allocate-secondary) - the
        node that would become its DRBD secondary.
    type: str
  ignore_soft_errors:
    description: Ignore soft limits, like C(hail --ignore-soft-errors).
    type: bool
    default: false
  no_capacity_checks:
    description: Skip the global N+1 check of each placement, like C(hail --no-capacity-checks).
    type: bool
    default: false
  static_kvm_node_memory:
    description:
      - Memory in MiB taken as used by the node itself on KVM nodes, like
        C(hail --static-kvm-node-memory); C(0) keeps the value the node reports.
    type: int
    default: 4096
  restrict_allocation_to:
    description:
      - Place instances only on these nodes (full names), like
        C(hail --restrict-allocation-to); it takes the place of an IAllocator request's
        own C(restrict-to-nodes). Empty - the default - restricts nothing.
      - A name that is no node of the cluster is refused (C(hail) ignores it).
    type: list
    elements: str
    default: []
notes:
  - The disk space of a spec given as options is counted as Ganeti counts it in its own
    requests (128 MiB of DRBD metadata per disk; none for diskless and blockdev).
  - Requests of other types (node-evacuate, change-group, relocate) are answered by
    M(ganeti.htools.ganeti_evacuate_group).
attributes:
  check_mode:
    description: Can run in check mode and return the same result.
    support: full
  diff_mode:
    description: Shows where each new instance would be created.
    support: full
seealso:
  - module: ganeti.htools.ganeti_capacity
  - name: hail(1)
    description: The Ganeti IAllocator plugin whose answers this module gives.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hail.html
'''

EXAMPLES = r'''
- name: Where would 10 x (4 GiB, 2 vCPU, 40 GiB DRBD) go?
  ganeti.htools.ganeti_allocate:
    data_file: /var/tmp/cluster.data
    instances:
      - {name: web, memory: 4096, vcpus: 2, disks: [40960], disk_template: drbd, count: 10}
  register: where

- name: Show the placements
  ansible.builtin.debug:
    var: where.placements

- name: Answer an IAllocator request file exactly as hail would
  ganeti.htools.ganeti_allocate:
    data_file: /var/tmp/request.json
'''

RETURN = r'''
success:
  description: C(hail)'s C(success) - whether the request could be satisfied.
  returned: success
  type: bool
info:
  description: C(hail)'s C(info) text, word for word.
  returned: success
  type: str
  sample: "Request successful: Selected group: default, Group default (preferred): score: 53.06, successes 90, failures 0 () for node(s) node9/node8"
result:
  description:
    - C(hail)'s C(result) - for C(allocate) the node names, for C(multi-allocate) the pair
      (allocated C([name, nodes]) list, failed C([name, reason]) list), for
      C(allocate-secondary) the secondary's name; C([]) on failure.
  returned: success
  type: raw
placements:
  description: The same as a list of C(instance), C(primary), C(secondary) (or C(failed) with the reason).
  returned: success
  type: list
  elements: dict
commands:
  description: The C(gnt-instance) commands that would create the instances where C(hail) puts them (C(OS) to be filled in).
  returned: success
  type: list
  elements: str
request:
  description: The IAllocator request answered (as built from the options, or read from the file).
  returned: with O(details=full)
  type: dict
kind:
  description: The request type - C(allocate), C(multi-allocate) or C(allocate-secondary).
  returned: success
  type: str
moves:
  description:
    - One entry per placed instance, in placement order - C(index), C(instance),
      C(move) (C(create), or C(convert_to_drbd) for C(allocate-secondary)),
      C(new_primary), C(new_secondary) (C(old_primary) and C(old_secondary) are null
      for a new instance), C(jobset), and with O(details=full) C(opcodes) (the
      C(OP_INSTANCE_CREATE) Ganeti would run, without an OS).
  returned: success
  type: list
  elements: dict
jobsets:
  description: The moves as one set (by index); nothing executes them.
  returned: success
  type: list
  elements: list
report_file:
  description: The path of the HTML report written (O(report_file)).
  returned: when O(report_file) was given
  type: str
plan:
  description:
    - The answer as one self-contained plan object - the moves, the options, the cluster
      state it was computed from and its C(fingerprint), and digests of all of them (the
      envelope of the plans of M(ganeti.htools.ganeti_balance)).
    - Given back as O(plan), it is returned again as long as the cluster did not change.
  returned: success
  type: dict
replanned:
  description: Whether O(plan) had gone stale and was computed again (with O(replan_on_drift)).
  returned: when O(plan) was given
  type: bool
drift:
  description: The cluster's changes since O(plan) was computed, one line each.
  returned: when O(plan) was given and is stale
  type: list
  elements: str
summary:
  description: The request type and C(hail)'s info text.
  returned: success
  type: str
data_warnings:
  description: Warnings about the cluster data, also shown as Ansible warnings.
  returned: success
  type: list
  elements: str
'''

from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule
# the planner itself, not the registry: AnsiballZ ships what a module imports
from ansible_collections.ganeti.htools.plugins.module_utils.planner.allocate.planner import (
    ALLOCATE)


def main():
    allocate = ALLOCATE
    argument_spec = argspecs.combine(
        argspecs.data_file(), argspecs.model_source(), argspecs.rapi(), argspecs.plans(),
        argspecs.planner_options(allocate), argspecs.plan_report(), argspecs.details())
    HtoolsModule(argument_spec, needs=allocate.needs, checked=allocate.table,
                 mutually_exclusive=[("instances", "secondary_for")]).run_plan(allocate)


if __name__ == '__main__':
    main()
