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
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.rapi
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
    description: Returns no diff; nothing is changed.
    support: none
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
  returned: with details=full
  type: dict
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

from ..module_utils.module import argspecs
from ..module_utils.module.runner import HtoolsModule
from ..module_utils.planner.allocate.request import allocate_report

TEMPLATES = ["diskless", "file", "sharedfile", "plain", "blockdev", "drbd", "rbd", "ext",
             "gluster"]
_INSTANCE = dict(
    name=dict(type="str"), memory=dict(type="int", required=True),
    vcpus=dict(type="int", required=True), disks=dict(type="list", elements="int", default=[]),
    disk_template=dict(type="str", required=True, choices=TEMPLATES),
    spindles=dict(type="int"), spindle_use=dict(type="int", default=1),
    tags=dict(type="list", elements="str", default=[]),
    networks=dict(type="list", elements="str", default=[]),
    group=dict(type="str"), count=dict(type="int", default=1))


def main():
    argument_spec = argspecs.combine(
        argspecs.data_file(), argspecs.rapi(), argspecs.details(),
        instances=dict(type="list", elements="dict", default=[], options=_INSTANCE),
        group=dict(type="str"), secondary_for=dict(type="str"),
        ignore_soft_errors=dict(type="bool", default=False),
        no_capacity_checks=dict(type="bool", default=False),
        static_kvm_node_memory=dict(type="int", default=4096),
        restrict_allocation_to=dict(type="list", elements="str", default=[]),
    )
    HtoolsModule(argument_spec, mutually_exclusive=[("instances", "secondary_for")]).run_report(
        allocate_report)


if __name__ == '__main__':
    main()
