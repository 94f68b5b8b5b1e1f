#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_cluster_info
short_description: Score a Ganeti node group and report its state, like hbal
version_added: 0.1.0
description:
  - Loads a Ganeti cluster model from saved data (O(data_file)) or from a live
    cluster over RAPI (O(rapi_url)) and reports what C(hbal)
    would see before balancing one node group.
  - Returns the cluster score (C(hbal)'s "Initial score") with its metric
    breakdown, the per-node table of C(hbal -p), the instances and node
    groups, the nodes that fail the N+1 check and the nodes that violate the
    instance policy.
  - The module never changes anything; it is safe in check mode.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.data_source.model
  - ganeti.htools.mond
  - ganeti.htools.rapi
  - ganeti.htools.details
  - ganeti.htools.balance_options
  - ganeti.htools.in_process
options:
  hcheck:
    description:
      - Also answer what C(hcheck) 3.0.2 answers, in RV(hcheck) - per node group and for
        the whole cluster, the nodes failing N+1, the nodes with conflicting primaries,
        the instances and nodes offline, the nodes that could not be emptied, and the
        same after a simulated rebalance of each group.
      - C(hcheck) looks at every node group; O(group) then only chooses the group of the
        rest of the report, which is left out on a cluster of several groups without it.
      - The options of the simulated rebalance are those of C(hbal) below (C(hcheck)
        takes the same); O(select_instances), O(exclude_instances), O(max_cpu) and
        O(min_disk) apply to the cluster model as in C(hcheck).
      - Deliberate difference - C(hcheck) 3.0.2 crashes (C(IntMap.!) error) when a DRBD
        instance has its secondary node in another group; the check then reads that
        node from the whole cluster here.
    type: bool
    default: false
    version_added: 0.2.0
  no_simulation:
    description:
      - With O(hcheck), do not simulate the rebalance, like C(hcheck --no-simulation);
        the C(FINAL) figures are then the initial ones.
    type: bool
    default: false
    version_added: 0.2.0
  no_capacity_checks:
    description:
      - With O(hcheck), leave out the nodes that could not be emptied (C(GN1_FAIL)), like
        C(hcheck --no-capacity-checks).
    type: bool
    default: false
    version_added: 0.2.0
attributes:
  check_mode:
    description: Can run in check mode and return the same result.
    support: full
  diff_mode:
    description: Returns no diff; nothing is changed.
    support: none
seealso:
  - name: hbal(1)
    description: The Ganeti cluster balancer that this module re-implements.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hbal.html
'''

EXAMPLES = r'''
- name: Score the cluster saved by hscan
  ganeti.htools.ganeti_cluster_info:
    data_file: /var/tmp/cluster.data
  register: info

- name: Show the score
  ansible.builtin.debug:
    msg: "Score {{ info.score }} (optimum {{ info.optimal_score }}), N+1 failures: {{ info.n1_failures }}"

- name: Score one group, treating a node as offline and ignoring load data
  ganeti.htools.ganeti_cluster_info:
    data_file: /var/tmp/cluster.data
    group: default
    offline_nodes:
      - node3.example.com
    ignore_dynu: true
  register: info

- name: Use instance load data and exclusion tags
  ganeti.htools.ganeti_cluster_info:
    data_file: /var/tmp/rapi-dump
    util_file: /var/tmp/util.txt
    exclusion_tags:
      - service

- name: Fail when hcheck finds the cluster unhealthy
  ganeti.htools.ganeti_cluster_info:
    data_file: /var/tmp/cluster.data
    hcheck: true
    no_simulation: true
  register: health
  failed_when: not health.hcheck.healthy

- name: Fail when the group is not N+1 redundant
  ansible.builtin.assert:
    that: info.n1_failures | length == 0
    fail_msg: "Not N+1 redundant: {{ info.n1_failures | join(', ') }}"
'''

RETURN = r'''
summary:
  description:
    - The state in a few lines for a person - the group's score and the lowest possible,
      its node and instance counts, the nodes failing N+1, the policy violations, the
      node groups (when there are several) and the first warnings.
  returned: success
  type: str
  sample: |-
    group default: score 220.56058989 (lowest possible 0.01484375), 8 nodes, 41 instances
    N+1 failures: node1.example.com, node2.example.com
    policy violations: none
score:
  description: The cluster score of the selected group, as C(hbal) prints it as C(Initial score); lower is better.
  returned: success
  type: float
  sample: 46.94539253
optimal_score:
  description: The lowest score that the group could reach (the N+1 reservation score); balancing cannot go below it.
  returned: success
  type: float
  sample: 0.125
metrics:
  description:
    - The components of the score, by the names C(hbal -v -v -v) prints.
    - The score is the sum of each value multiplied by its weight in RV(metric_weights).
    - "The keys are C(free_mem_cv), C(free_disk_cv), C(n1_cnt), C(reserved_mem_cv), C(offline_all_cnt), C(offline_pri_cnt),
      C(vcpu_ratio_cv), C(cpu_load_cv), C(mem_load_cv), C(disk_load_cv), C(net_load_cv), C(pri_tags_score), C(spindles_cv),
      C(free_mem_cv_forth), C(free_disk_cv_forth), C(vcpu_ratio_cv_forth), C(spindles_cv_forth), C(location_score),
      C(location_exclusion_score) and C(reserved_mem_rtotal)."
  returned: success
  type: dict
  sample:
    free_mem_cv: 0.11785113
    free_disk_cv: 0.20786985
    n1_cnt: 0.0
    offline_pri_cnt: 2.0
storage_unit_metrics:
  description:
    - When nodes report storage units, the free-disk statistics per unit, over
      the online nodes that hold it; C(free_disk_cv) and C(free_disk_cv_forth)
      in RV(metrics) are then the average of these over the units.
    - Empty when no node reports units (hbal's model, one disk pool per node).
  returned: success
  type: list
  elements: dict
  contains:
    type:
      description: The storage type of the unit.
      type: str
      sample: lvm-vg
    key:
      description: The unit's key (volume group name, file storage directory).
      type: str
      sample: xenvg
    nodes:
      description: How many online nodes hold the unit.
      type: int
      sample: 3
    free_disk_cv:
      description: Standard deviation (population) of the unit's free fraction.
      type: float
      sample: 0.125
    free_disk_cv_forth:
      description: The same, counting forthcoming instances.
      type: float
      sample: 0.125
metric_weights:
  description: The weight of each metric in RV(metrics), by the same names.
  returned: success
  type: dict
  sample:
    free_mem_cv: 0.5
    n1_cnt: 1.0
    offline_all_cnt: 4.0
    offline_pri_cnt: 16.0
group:
  description: The name of the selected node group, or C(all) with O(group=all).
  returned: success
  type: str
  sample: default
group_reports:
  description:
    - With O(group=all), each group's own figures, in name order; the report's
      RV(score) and RV(optimal_score) are then their sums, and its node, instance,
      N+1 and policy lists every group's.
  returned: with O(group=all)
  type: list
  elements: dict
  contains:
    group:
      description: The group's name.
      type: str
    score:
      description: The group's score (as C(hbal -G) computes it).
      type: float
    optimal_score:
      description: The lowest score the group's N+1 reservations allow.
      type: float
    metrics:
      description: The group's score components.
      type: dict
    storage_unit_metrics:
      description: The group's per storage unit disk metrics.
      type: list
      elements: dict
    n1_failures:
      description: The group's nodes that fail N+1.
      type: list
      elements: str
    policy_violations:
      description: The group's instance policy violations.
      type: list
      elements: dict
    summary:
      description: The group's own summary.
      type: str
nodes:
  description:
    - One entry per node of the selected group, in the order of the input data.
    - The keys are the field names of C(hbal -p), with numbers as numbers.
  returned: with O(details=full)
  type: list
  elements: dict
  contains:
    idx:
      description: Index of the node in the cluster data.
      type: int
    name:
      description: Node name without the common domain suffix, as C(hbal) prints it.
      type: str
    fqdn:
      description: Full node name.
      type: str
    status:
      description: C(hbal -p)'s flag column, C(-) for offline, C(*) for a node failing N+1, else a space.
      type: str
    tmem:
      description: Total memory (MiB).
      type: float
    nmem:
      description: Memory used by the node itself (MiB).
      type: int
    imem:
      description: Memory used by the primary instances (MiB).
      type: int
    xmem:
      description: Unaccounted memory (MiB); may be negative.
      type: int
    fmem:
      description: Free memory as reported by the node (MiB).
      type: int
    umem:
      description: Unallocated memory (MiB).
      type: int
    rmem:
      description: Memory reserved for N+1 failover (MiB).
      type: int
    amem:
      description: Available memory (MiB).
      type: int
    tdsk:
      description: Total disk (MiB).
      type: float
    fdsk:
      description: Free disk (MiB).
      type: int
    tcpu:
      description: Physical CPUs.
      type: float
    ucpu:
      description: Virtual CPUs in use, including the node's own.
      type: int
    pcnt:
      description: Number of primary instances.
      type: int
    scnt:
      description: Number of secondary instances.
      type: int
    plist:
      description: Indices of the primary instances in the cluster data, newest first (as C(hbal -p) prints them).
      type: list
      elements: int
    slist:
      description: Indices of the secondary instances in the cluster data, newest first.
      type: list
      elements: int
    pfmem:
      description: Fraction of memory that is free.
      type: float
    pfdsk:
      description: Fraction of disk that is free.
      type: float
    rcpu:
      description: Ratio of virtual to physical CPUs.
      type: float
    cload:
      description: CPU load of the node (sum of its primaries' loads).
      type: float
    mload:
      description: Memory load of the node.
      type: float
    dload:
      description: Disk load of the node.
      type: float
    nload:
      description: Network load of the node.
      type: float
    ptags:
      description: Count of primary instances per exclusion tag, as C(tag=count) joined with commas (C(hbal -p) text).
      type: str
    peermap:
      description:
        - Memory that each peer node would fail over to this node, as C(hbal -p) prints it
          (C([(peer index,MiB),...])).
      type: str
    spindle_count:
      description: Spindles of the node.
      type: int
    hi_spindles:
      description: Spindle limit of the node (spindle ratio times spindles).
      type: float
    inst_spindles:
      description: Spindles used by instances.
      type: float
    offline:
      description: Whether the node is offline (or drained, or listed in O(offline_nodes)).
      type: bool
    master:
      description: Whether the node is the cluster master.
      type: bool
    failn1:
      description: Whether the node fails the N+1 check.
      type: bool
    storage_units:
      description:
        - The node's storage units as the data reports them (text format node column 16, IAllocator node
          C(storage)), in the data's order; empty when the data reports none.
        - Free and total space are the loaded figures.
      type: list
      elements: dict
      contains:
        type:
          description: Storage type, such as C(lvm-vg), C(drbd8) or C(file).
          type: str
        key:
          description: Storage key, such as a volume group name or a directory.
          type: str
        free:
          description: Free space (MiB).
          type: int
        total:
          description: Total space (MiB).
          type: int
  sample:
    - idx: 0
      name: node1
      fqdn: node1.example.com
      status: ' '
      tmem: 262144.0
      pcnt: 7
      scnt: 6
      offline: false
      master: true
      failn1: false
      storage_units:
        - type: drbd8
          key: xenvg
          free: 2000
          total: 4000
node_table:
  description: The node table exactly as C(hbal -p) prints it for the initial state.
  returned: with O(details=full)
  type: str
  sample: " F Name  t_mem n_mem i_mem ...\n   node1 262144  4096 98304 ...\n"
instances:
  description: The instances of the selected group, in the order of the input data.
  returned: with O(details=full)
  type: list
  elements: dict
  contains:
    name:
      description: Instance name.
      type: str
    pnode:
      description: Primary node.
      type: str
    snode:
      description: Secondary node, null when the instance has none.
      type: str
    disk_template:
      description: Disk template, for example C(drbd) or C(plain).
      type: str
    status:
      description: Run status, for example C(running) or C(ADMIN_down).
      type: str
    memory:
      description: Memory (MiB).
      type: int
    disk:
      description: Disk size (MiB).
      type: int
    vcpus:
      description: Virtual CPUs.
      type: int
    auto_balance:
      description: Whether the instance's memory is kept N+1 redundant.
      type: bool
    movable:
      description: Whether balancing may move the instance.
      type: bool
    forthcoming:
      description: Whether the instance is only reserved (not yet created).
      type: bool
    tags:
      description: Instance tags.
      type: list
      elements: str
    util:
      description: Dynamic load of the instance, C([cpu, mem, dsk, net]) (default C(1.0) each, C(0) with O(ignore_dynu)).
      type: list
      elements: float
  sample:
    - name: web1.example.com
      pnode: node1.example.com
      snode: node2.example.com
      disk_template: drbd
      status: running
      memory: 4096
      disk: 51200
      vcpus: 2
      auto_balance: true
      movable: true
      forthcoming: false
      tags: []
      util: [1.0, 1.0, 1.0, 1.0]
groups:
  description: All node groups of the cluster.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: Group name.
      type: str
    uuid:
      description: Group UUID.
      type: str
    alloc_policy:
      description: Allocation policy, C(preferred), C(last_resort) or C(unallocable).
      type: str
    tags:
      description: Group tags.
      type: list
      elements: str
    node_count:
      description: Number of nodes in the group.
      type: int
    instance_count:
      description: Number of instances whose primary node is in the group.
      type: int
  sample:
    - name: default
      uuid: 7b1a1e2c-0000-4000-8000-000000000001
      alloc_policy: preferred
      tags: []
      node_count: 8
      instance_count: 40
n1_failures:
  description: Names of the nodes of the group that fail the N+1 memory check.
  returned: success
  type: list
  elements: str
  sample: [node2.example.com]
n1_failing_instances:
  description: Names of the instances on the nodes listed in RV(n1_failures) (C(hbal)'s "bad instances").
  returned: with O(details=full)
  type: list
  elements: str
  sample: [web01.example.com]
common_suffix:
  description: The domain suffix common to all node and instance names, stripped from the C(name) of RV(nodes) as C(hbal) does.
  returned: success
  type: str
  sample: .example.com
policy_violations:
  description: Nodes of the group that violate the instance policy, with the reason.
  returned: success
  type: list
  elements: dict
  contains:
    node:
      description: Node name.
      type: str
    reason:
      description: Why the node violates the policy.
      type: str
  sample: []
hcheck:
  description:
    - With O(hcheck) - C(machine_readable), every key C(hcheck --machine-readable) prints
      with the value string it prints (quotes removed), and the verdicts C(healthy)
      (no problem found; C(hcheck) then exits with status 0, as it also does with
      O(no_simulation)), C(needs_rebalance) (its opposite),
      C(healthy_after_rebalance) (no problem left after the simulated rebalance) and
      C(simulated) (whether the rebalance was simulated).
  returned: when hcheck is true
  type: dict
  sample: {healthy: false, needs_rebalance: true, healthy_after_rebalance: false, simulated: true,
           machine_readable: {HCHECK_INIT_CLUSTER_N1_FAIL: "2", HCHECK_INIT_CLUSTER_NEED_REBALANCE: "1", HCHECK_OK: "1"}}
data_warnings:
  description:
    - Warnings about the cluster data, for example nodes reporting memory or disk that no instance accounts for
      (C(hbal)'s "cluster has inconsistent data").
    - Each one is also shown as an Ansible warning.
    - Named C(data_warnings) because Ansible reserves the C(warnings) key of a module result.
  returned: success
  type: list
  elements: str
  sample: ["node node4.example.com is missing 1024 MB ram and 0 GB disk"]
'''

from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.reading import ReadingModule
from ansible_collections.ganeti.htools.plugins.module_utils.planner.cluster_info import (
    DETAILS, info_from_data)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.hcheck_info import hcheck_info
# the planner itself, not the registry: AnsiballZ ships what a module imports
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import BALANCE


def _report(data, params):
    if params["hcheck"]:
        return hcheck_info(data, params)
    return info_from_data(data, params)


def main(module_class=None):
    """Run the module; `module_class`: ReadingModule's."""
    argument_spec = argspecs.combine(argspecs.data_source(), argspecs.mond(), argspecs.rapi(),
                                     argspecs.details(), argspecs.planner_options(BALANCE),
                                     hcheck=dict(type="bool", default=False),
                                     no_simulation=dict(type="bool", default=False),
                                     no_capacity_checks=dict(type="bool", default=False))
    ReadingModule(argument_spec, checked=BALANCE.table,
                  module_class=module_class).run_report(_report, details=DETAILS)


if __name__ == '__main__':
    main()
