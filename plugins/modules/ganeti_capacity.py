#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_capacity
short_description: How many more instances fit in a Ganeti cluster, like hspace, and with which nodes down
version_added: 0.1.0
description:
  - Answers what C(hspace) 3.0.2 answers - how many instances of the standard
    spec still fit (standard allocation) and how many of a spec shrunk on the
    resource that runs out first (tiered allocation) - with every figure that
    C(hspace --machine-readable) prints, key for key.
  - With O(down_nodes), answers what no htools program does - the cluster with
    these nodes down for maintenance (their instances moved away first, the
    nodes then offline) - whether every node group stays N+1 happy, which node
    or instance binds, and how many instances of each spec still fit.
  - The module only computes; it never changes the cluster and is safe in check
    mode.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.rapi
  - ganeti.htools.details
  - ganeti.htools.in_process
options:
  simulate:
    description:
      - Answer for an empty cluster that does not exist yet, like
        C(hspace --simulate) - for example, how many instances of a spec fit on
        ten nodes of a new hardware model. Read instead of O(data_file), O(luxi_socket)
        or O(rapi_url), which are refused beside it.
      - One entry per node group, in C(hspace)'s syntax
        C(policy,nodes,disk,memory,cpus[,spindles[,exclusive_storage]]) - the
        allocation policy (C(preferred), C(last_resort), C(unallocable), or C(p), C(a),
        C(u)), the node count, each node's disk and memory (MiB, or with a unit - C(m),
        C(g), C(t), C(MiB), C(GiB), C(TiB) binary; C(M), C(G), C(T), C(MB), C(GB), C(TB)
        decimal), its CPUs, its spindles (default C(1)) and C(True) or C(False) for
        exclusive storage (default C(False)).
      - As C(hspace) collects repeated C(--simulate) options, the last entry is the first
        group (C(group-01)), whose first node (C(node-01-001)) is the master; nodes are
        named C(node-GG-NNN), every instance policy is Ganeti's default. So the list
        C([A, B]) answers what C(hspace --simulate=A --simulate=B) answers.
      - Deliberate difference from C(hspace) 3.0.2, which accepts negative sizes and
        counts a negative disk into the cluster's totals - such an entry is refused here,
        naming it.
    type: list
    elements: str
  offline_nodes:
    description:
      - Names of nodes to treat as offline, like C(hspace -O); their instances stay
        where they are, as in C(hspace).
    type: list
    elements: str
    default: []
  down_nodes:
    description:
      - Names of nodes that go down, for example the nodes of one rolling-reboot wave.
      - Their DRBD primaries fail over to their secondaries and their other movable
        instances move to the best other node of the group (hard limits only, as
        Ganeti's own N+1 check moves them); instances that cannot leave are listed in
        RV(down) (C(unplaced)). The nodes are then offline and the capacity figures are
        those of that state.
      - Not an C(hspace) option; without it the result is C(hspace)'s.
    type: list
    elements: str
    default: []
  disk_template:
    description:
      - The disk template of the new instances, like C(hspace --disk-template).
      - Default is the first disk template the cluster's instance policy allows.
    type: str
    choices: [diskless, file, sharedfile, plain, blockdev, drbd, rbd, ext, gluster]
  spindle_use:
    description:
      - The spindles each new instance uses, like C(hspace --spindle-use).
      - Default is the spindle use of the cluster's standard instance spec.
    type: int
  standard_spec:
    description:
      - The instance spec of the standard allocation, like C(hspace --standard-alloc).
      - Default is the standard spec of the cluster's instance policy.
    type: dict
    suboptions:
      memory:
        description: Memory in MiB.
        type: int
        required: true
      disk:
        description: Disk size in MiB (one disk).
        type: int
        required: true
      vcpus:
        description: Virtual CPUs.
        type: int
        required: true
      spindles:
        description: Spindles of the disk (used with exclusive storage); default C(1), as in C(hspace).
        type: int
  tiered_spec:
    description:
      - The initial instance spec of the tiered allocation, like C(hspace --tiered-alloc).
      - Default is the maximum spec of each min/max pair of the cluster's instance
        policy, in turn.
    type: dict
    suboptions:
      memory:
        description: Memory in MiB.
        type: int
        required: true
      disk:
        description: Disk size in MiB (one disk).
        type: int
        required: true
      vcpus:
        description: Virtual CPUs.
        type: int
        required: true
      spindles:
        description: Spindles of the disk (used with exclusive storage); default C(1), as in C(hspace).
        type: int
  independent_groups:
    description:
      - Consider node groups independently, like C(hspace --independent-groups) - a
        group that is not N+1 redundant takes no instance, the others go on.
    type: bool
    default: false
  accept_existing_errors:
    description:
      - Accept existing N+1 failures and only add no new ones, like
        C(hspace --accept-existing-errors); offline nodes are then not checked.
    type: bool
    default: false
  no_capacity_checks:
    description:
      - Do not check global N+1 redundancy after each allocation, like
        C(hspace --no-capacity-checks).
    type: bool
    default: false
  max_length:
    description:
      - Stop each allocation after this many instances, like C(hspace -l); C(-1)
        is no limit.
    type: int
    default: -1
  max_cpu:
    description:
      - The virtual-to-physical CPU ratio a node may reach, like C(hspace --max-cpu);
        default is the instance policy's.
    type: float
  min_disk:
    description:
      - The fraction of disk space a node keeps free, like C(hspace --min-disk).
    type: float
    default: 0.0
  static_kvm_node_memory:
    description:
      - Memory in MiB taken as used by the node itself on KVM nodes, instead of
        the value the node reports, like C(hspace --static-kvm-node-memory).
      - C(0) keeps the value the node reports; the htools text format names no
        hypervisor, so there it changes nothing.
    type: int
    default: 4096
notes:
  - C(hspace) 3.0.2 has no C(-G) option (it always works on the whole cluster) and
    nor has this module; node groups are handled as C(hspace) handles them (a group
    with an N+1 failure takes no instance, see O(independent_groups)).
  - Where C(hspace) stops with an error (no online node, an instance policy without
    disk templates) the module fails with the same message.
attributes:
  check_mode:
    description: Can run in check mode and return the same result.
    support: full
  diff_mode:
    description: Returns no diff; nothing is changed.
    support: none
seealso:
  - name: hspace(1)
    description: The Ganeti cluster capacity estimator that this module re-implements.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hspace.html
'''

EXAMPLES = r'''
- name: How many more standard instances fit
  ganeti.htools.ganeti_capacity:
    data_file: /var/tmp/cluster.data
  register: capacity

- name: Show it
  ansible.builtin.debug:
    msg: "{{ capacity.standard.instances }} more instances fit; then {{ capacity.standard.fail_reason }}"

- name: Export the hspace figures for Prometheus (node_exporter textfile collector)
  ansible.builtin.copy:
    dest: /var/lib/node_exporter/textfile/ganeti_capacity.prom
    mode: "0644"
    content: |
      # TYPE ganeti_capacity_standard_instances gauge
      ganeti_capacity_standard_instances {{ capacity.machine_readable.HTS_ALLOC_INSTANCES }}
      # TYPE ganeti_capacity_tiered_instances gauge
      ganeti_capacity_tiered_instances {{ capacity.tiered.instances }}
      # TYPE ganeti_capacity_memory_efficiency gauge
      ganeti_capacity_memory_efficiency {{ capacity.machine_readable.HTS_FIN_MEM_EFF }}

- name: Can node3 go down, and what fits then (4 GiB, 2 vCPU, 40 GiB DRBD instances)
  ganeti.htools.ganeti_capacity:
    data_file: /var/tmp/cluster.data
    down_nodes: [node3.example.com]
    disk_template: drbd
    standard_spec: {memory: 4096, vcpus: 2, disk: 40960}
  register: wave
  failed_when: wave.down.groups | rejectattr('n1_happy') | list | length > 0

- name: How many 8 GiB DRBD instances would ten new 256 GiB nodes hold (hspace --simulate)
  ganeti.htools.ganeti_capacity:
    simulate: ["preferred,10,4t,256g,32"]
    disk_template: drbd
    standard_spec: {memory: 8192, vcpus: 4, disk: 102400}
  register: new_hardware
'''

RETURN = r'''
summary:
  description: The answer in a few lines for a person.
  returned: success
  type: str
  sample: |-
    10 nodes, 200 instances, score 53.22176338
    standard 128 MiB / 1024 MiB / 1 vCPU (diskless): 2155 more instances fit, then vCPUs binds
    tiered: 54 x 32768 MiB / 1048576 MiB / 8 vCPU, 2 x 31680 MiB / 1048576 MiB / 8 vCPU
machine_readable:
  description:
    - Every key C(hspace --machine-readable) prints, with the value string it prints
      (the quotes around C(HTS_TSPEC) removed).
  returned: success
  type: dict
  sample: {HTS_CLUSTER_NODES: "10", HTS_ALLOC_INSTANCES: "2155", HTS_ALLOC_FAIL_REASON: FAILCPU, HTS_OK: "1"}
disk_template:
  description: The disk template of the new instances.
  returned: success
  type: str
  sample: diskless
standard:
  description:
    - The standard allocation - C(spec), the number of C(instances) that fit, the
      C(fail_reason) that ended it (the most frequent failure of the last try) and
      the C(failures) by kind.
    - With O(details=full) also C(placements), the node(s) of each new instance.
  returned: success
  type: dict
  sample: {spec: {memory: 128, disk: 1024, vcpus: 1, spindles: 1}, instances: 2155, fail_reason: FailCPU,
           failures: {FailCPU: 10, FailMem: 0}}
tiered:
  description:
    - The tiered allocation - C(initial_spec), the number of C(instances) and the
      C(specs) allocated, in order, each with its C(count).
    - With O(details=full) also C(placements).
  returned: success
  type: dict
  sample: {instances: 56, specs: [{memory: 32768, disk: 1048576, vcpus: 8, spindles: 12, count: 54}]}
n1_failures:
  description: The online nodes failing the N+1 check before any allocation (C(hspace) allocates nothing then, unless told otherwise).
  returned: success
  type: list
  elements: str
not_redundant_groups:
  description: With O(independent_groups), the groups that are not globally N+1 redundant and so take no instance.
  returned: success
  type: list
  elements: str
allocation_stopped:
  description: True when C(hspace) would allocate nothing because of existing N+1 failures.
  returned: success
  type: bool
down:
  description:
    - With O(down_nodes) - the C(nodes) taken down, the number of C(moved_instances),
      the C(unplaced) instances (C(instance), C(node), C(reason)), and per node group
      (C(groups)) its C(n1_failures), the first node that could not itself be emptied
      (C(cannot_be_emptied)) and the verdict C(n1_happy).
  returned: when down_nodes is given
  type: dict
data_warnings:
  description: Warnings about the cluster data, also shown as Ansible warnings.
  returned: success
  type: list
  elements: str
'''

from ..module_utils.module import argspecs
from ..module_utils.module.reading import ReadingModule
from ..module_utils.planner.balance.options import MODEL_OPTIONS, SEARCH_OPTIONS
from ..module_utils.planner.capacity.report import capacity_report

# hbal's options that hspace shares, range-checked as ganeti_balance checks them
HBAL_CHECKED = tuple(o for o in SEARCH_OPTIONS + MODEL_OPTIONS
                     if o.name in ("max_length", "max_cpu", "min_disk"))

DETAILS = ()
_SPEC = dict(type="dict", options=dict(memory=dict(type="int", required=True),
                                       disk=dict(type="int", required=True),
                                       vcpus=dict(type="int", required=True),
                                       spindles=dict(type="int")))
TEMPLATES = ["diskless", "file", "sharedfile", "plain", "blockdev", "drbd", "rbd", "ext",
             "gluster"]


def main(module_class=None):
    """Run the module; `module_class`: ReadingModule's."""
    argument_spec = argspecs.combine(
        argspecs.data_file(), argspecs.rapi(), argspecs.details(),
        simulate=dict(type="list", elements="str"),
        offline_nodes=dict(type="list", elements="str", default=[]),
        down_nodes=dict(type="list", elements="str", default=[]),
        disk_template=dict(type="str", choices=TEMPLATES),
        spindle_use=dict(type="int"),
        standard_spec=_SPEC, tiered_spec=_SPEC,
        independent_groups=dict(type="bool", default=False),
        accept_existing_errors=dict(type="bool", default=False),
        no_capacity_checks=dict(type="bool", default=False),
        max_length=dict(type="int", default=-1),
        max_cpu=dict(type="float"),
        min_disk=dict(type="float", default=0.0),
        static_kvm_node_memory=dict(type="int", default=4096),
    )
    ReadingModule(argument_spec, checked=HBAL_CHECKED,
                  module_class=module_class).run_report(capacity_report, details=DETAILS)


if __name__ == '__main__':
    main()
