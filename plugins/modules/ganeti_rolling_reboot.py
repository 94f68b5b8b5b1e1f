#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_rolling_reboot
short_description: Plan which Ganeti nodes can be rebooted together, exactly as hroller does
version_added: 0.1.0
description:
  - Computes the reboot groups of C(hroller) 3.0 - sets of nodes that can be put
    into maintenance at the same time without any DRBD instance losing both of its
    nodes - the same groups in the same order, with the instance moves each group
    needs.
  - Without O(offline_maintenance), two nodes that are primaries of instances
    sharing a secondary node are never in the same group either, so that both can
    migrate their instances away at once.
  - Non-redundant instances (every template but DRBD) are moved off each group to
    the first node of their node group with room, unless O(ignore_non_redundant);
    with O(full_evacuation) the DRBD instances are migrated away and get new
    secondaries too. Groups are split further where capacity runs out.
  - RV(report) holds the lines C(hroller --print-moves) prints for the same
    options, identical.
  - The graph colourings run in time near-linear in the number of graph edges, so
    the plan of a 1000-node cluster takes seconds where C(hroller) takes minutes.
  - This module only plans; it never reboots, drains or moves anything. Check mode
    and normal mode return the same. A failure (no master, unknown node or group,
    no capacity) fails the task with C(hroller)'s message.
  - Every run returns O(plan) with a fingerprint of the cluster state, so that the
    role executing the waves can refuse a stale plan.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.data_source.model
  - ganeti.htools.rapi
  - ganeti.htools.plans
  - ganeti.htools.plan_report
  - ganeti.htools.details
options:
  group:
    description:
      - Only plan for the nodes of this node group (name or UUID), like C(hroller -G).
      - When omitted, the nodes of every group are planned.
      - Non-redundant instances may still move to any online node of their own
        group, and unselected nodes whose index lies between selected ones are
        planned too (as C(hroller) does), so their instances must also find room.
    type: str
  offline_nodes:
    description:
      - Names of nodes to treat as offline, like C(hroller -O) (an exact name or a
        unique prefix up to a dot). Offline nodes are not rebooted and take no
        instances.
    type: list
    elements: str
    default: []
  util_file:
    description:
      - Dynamic utilisation data, like C(hbal -U).
      - C(hroller) has no such option and the reboot groups do not depend on it;
        it is accepted so that one set of defaults serves every module.
    type: path
  exclusion_tags:
    description:
      - Instance exclusion tag prefixes, like C(hbal --exclusion-tags).
      - The reboot groups do not depend on them (moves here only check hard
        limits); accepted so that one set of defaults serves every module.
    type: list
    elements: str
    default: []
  ignore_dynu:
    description:
      - Ignore dynamic utilisation data, like C(hbal --ignore-dynu). No effect on the
        reboot groups.
    type: bool
    default: false
  node_tags:
    description:
      - Only plan for nodes having at least one of these tags, like
        C(hroller --node-tags).
    type: list
    elements: str
    default: []
  skip_non_redundant:
    description:
      - Only plan for nodes that are primary of no non-redundant (non-DRBD)
        instance, like C(hroller --skip-non-redundant).
    type: bool
    default: false
  ignore_non_redundant:
    description:
      - Do not move non-redundant instances off the nodes to reboot (they go down
        with their node), like C(hroller --ignore-non-redundant).
    type: bool
    default: false
  offline_maintenance:
    description:
      - The instances are shut down during the maintenance, like
        C(hroller --offline-maintenance) - only a DRBD instance's primary and
        secondary are kept apart, and no migrations are planned.
    type: bool
    default: false
  full_evacuation:
    description:
      - Also migrate the DRBD primaries off each group and give every DRBD
        instance with its secondary there a new secondary, like
        C(hroller --full-evacuation).
    type: bool
    default: false
  one_step_only:
    description:
      - Only return the first reboot group, like C(hroller --one-step-only).
    type: bool
    default: false
  force:
    description:
      - A cluster without master node is planned anyway (with a warning), like
        C(hroller --force). Without it, that is an error.
    type: bool
    default: false
  nodes:
    description:
      - Only plan for these nodes (names as Ganeti knows them); the other filters
        apply too. Not an C(hroller) option - omitted, the plan is C(hroller)'s.
    type: list
    elements: str
    default: []
  exclude_node_tags:
    description:
      - Leave out nodes that carry one of these tags. Not an C(hroller) option.
    type: list
    elements: str
    default: []
  run_id:
    description:
      - The id of a rolling-reboot run that goes wave by wave (the
        C(ganeti.htools.rolling_reboot) role), 1-40 letters, digits and C(. _ @ + -).
        Not an C(hroller) option.
      - Nodes that this run has rebooted or skipped (marks
        C(ganeti.htools:rebooted:RUN_ID), C(ganeti.htools:skipped:RUN_ID)) are left out,
        and RV(run) reports the run's progress. While nodes are marked
        C(ganeti.htools:rolling:RUN_ID) (a wave in progress, perhaps interrupted),
        nothing is planned - that wave is finished first. When no node is left, the
        plan is empty instead of an error.
      - A node's marks are kept as cluster tags with its name after the run id
        (C(ganeti.htools:rebooted:RUN_ID:NODE)), or, as older releases kept them, as
        the node's tags; both count. A run whose marks would not fit in a tag (128
        characters - a long run id with long node or instance names) is refused.
    type: str
  wave_targets:
    description:
      - Judge one wave instead of planning - exactly the nodes of O(nodes) down together,
        their DRBD primaries on their secondaries and their other primaries on these targets
        (instance name to node name; an instance without one is stopped), as the
        C(ganeti.htools.rolling_reboot) role runs a wave. Not an C(hroller) option.
      - The result is that of a plan with this one wave - its moves and RV(waves[].down),
        the verdict the role's capacity pre-flight stops on.
    type: dict
attributes:
  check_mode:
    description: Returns the plan; nothing is ever executed, in either mode.
    support: full
  diff_mode:
    description:
      - Shows the primary and secondary node of each moved instance before the plan and
        after its last move (an instance moved for several waves shows the last one).
    support: partial
notes:
  - Every wave is planned from the cluster as loaded - the instances moved away
    for one wave are expected back before the next one, as C(hroller) assumes.
  - The master node is the last node of its wave and that wave comes last, when
    the master is among the planned nodes.
seealso:
  - module: ganeti.htools.ganeti_balance
  - name: hroller(1)
    description: The Ganeti cluster maintenance scheduler this module reproduces.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hroller.html
'''

EXAMPLES = r'''
- name: Plan the rolling reboot of a saved cluster
  ganeti.htools.ganeti_rolling_reboot:
    data_file: /var/tmp/cluster.data
  register: reboot

- name: Show the reboot groups in order
  ansible.builtin.debug:
    var: reboot.reboot_groups

- name: Plan the reboot of one node group of a live cluster, moving everything away
  ganeti.htools.ganeti_rolling_reboot:
    rapi_url: https://cluster.example.com:5080
    group: rack-a
    full_evacuation: true
  register: reboot

- name: Only the nodes tagged for the new kernel, instances shut down meanwhile
  ganeti.htools.ganeti_rolling_reboot:
    data_file: /var/tmp/cluster.data
    node_tags:
      - kernel-6.1
    offline_maintenance: true
    ignore_non_redundant: true
'''

RETURN = r'''
summary:
  description:
    - The plan in a few lines for a person - nodes, waves, each wave's nodes
      and instance moves (long lists cut, with a count), warnings.
  returned: success
  type: str
  sample: |-
    9 nodes in 3 waves (reboot groups), 0 instance moves
      wave 1: node1, node4, node7 (the master)
reboot_groups:
  description: The nodes of each reboot group (wave), in the order to reboot them.
  returned: success
  type: list
  elements: list
  sample: [["node1", "node3"], ["node2", "node4"]]
waves:
  description: One entry per reboot group, in order.
  returned: success
  type: list
  elements: dict
  contains:
    wave:
      description: Number of the wave, from 1.
      type: int
    nodes:
      description: Its nodes, as in RV(reboot_groups).
      type: list
      elements: str
    has_master:
      description: Whether the master node is in this wave (it is then the last node).
      type: bool
    moves:
      description: Indices (RV(moves[].index)) of the moves this wave needs before its reboot.
      type: list
      elements: int
    migrate_primaries:
      description:
        - Whether the DRBD primaries of the wave's nodes are to be migrated to their
          secondaries first (one node migration per node; the grouping makes that safe
          for all nodes of the wave at once). False only with O(offline_maintenance)
          without O(full_evacuation), where the instances are shut down instead.
      type: bool
    evacuate:
      description:
        - Per node of the wave that something leaves, C(node) and C(moves) - the indices
          of the moves that take an instance (or a DRBD secondary, with
          O(full_evacuation)) off that node. Nodes nothing leaves are not listed.
      type: list
      elements: dict
    down:
      description:
        - The cluster while the wave's nodes are down - their DRBD primaries on their
          secondaries (when RV(waves[].migrate_primaries)), the non-redundant instances
          the wave moves on their targets, the others stopped, with O(full_evacuation)
          the new secondaries made - and whether the rest of the wave's node groups
          holds it. C(hroller) checks none of this.
        - A node is over capacity when what moves there leaves no unallocated memory or
          no free disk (or storage unit), the hard limits of C(hbal)'s moves; it fails
          N+1 when its unallocated memory does not exceed what the instances of its
          largest up peer need (C(hbal)'s rule while balancing).
        - C(fits) is true when there is no problem at all. C(problems) lists, per node,
          the first instance that does not fit into its memory or disk (with the
          totals C(needed_mib) moving there and C(free_mib) there before), then each
          N+1 failure (C(instance) null; C(needed_mib) what the largest peer needs,
          C(free_mib) the node's free memory); C(resource) is C(memory), C(disk) or
          C(n+1); C(text) says it in one line naming the instance, node and shortage.
        - C(over_capacity) and C(n1_failing) name the nodes, C(stopped) the instances
          that do not run while the wave is down, C(summary) the verdict in one line.
      type: dict
      sample:
        fits: false
        problems:
          - instance: db03
            node: node1
            resource: memory
            needed_mib: 114688
            free_mib: 92160
            text: "wave 1: db03 does not fit on node1 while the wave is down: ..."
        over_capacity: [node1]
        n1_failing: [node1]
        stopped: []
        summary: "wave 1 does not fit while its nodes are down (over capacity: node1; ...)"
  sample:
    - wave: 1
      nodes: [node1, node3]
      has_master: false
      moves: [1, 2]
      migrate_primaries: true
      evacuate: [{node: node1, moves: [1]}, {node: node3, moves: [2]}]
master:
  description: The master node (C(node), null when there is none) and the number of its C(wave) (null when it is not planned).
  returned: success
  type: dict
  sample: {node: node1, wave: 2}
report:
  description: The lines C(hroller --print-moves) prints on stdout for the same options.
  returned: success
  type: list
  elements: str
  sample: ["'Node Reboot Groups'", "node2,node4", "  inst7 node1", "node1,node3"]
moves:
  description:
    - The instance moves the waves need besides the node migrations
      (RV(waves[].migrate_primaries)), wave after wave - the instances that
      C(hroller --print-moves) lists. Each wave starts from the cluster as loaded.
    - C(move) is C(failover_and_replace) (migrate a DRBD instance, then give it a new
      secondary), C(replace_secondary), C(failover_to_any) (shared storage, to
      another node) or C(instance_move) (plain or file storage, C(gnt-instance move)
      with downtime; RAPI has no such call, so its C(opcodes) are empty and its
      C(note) says so).
  returned: success
  type: list
  elements: dict
  contains:
    index:
      description: Position in the plan, from 1.
      type: int
    wave:
      description: The wave the move belongs to.
      type: int
    instance:
      description: Instance name.
      type: str
    move:
      description: Move type, see above.
      type: str
    description:
      description:
        - The move in plain words, as in the summary, the HTML report and the diff, such as
          C(migrate to n1-3, then new secondary n1-4).
      type: str
    old_primary:
      description: Primary node before the move.
      type: str
    old_secondary:
      description: Secondary node before the move, or null.
      type: str
    new_primary:
      description: Primary node after the move.
      type: str
    new_secondary:
      description: Secondary node after the move, or null.
      type: str
    opcodes:
      description:
        - The Ganeti opcodes of the move, as RAPI/LUXI bodies; only with O(details=full)
          (RV(plan.moves) always has them).
      type: list
      elements: dict
    jobset:
      description: Number of the jobset the move belongs to, from 1.
      type: int
    memory_mib:
      description: The instance's memory, in MiB.
      type: int
    disk_mib:
      description: The instance's disk size, in MiB (what a copy moves for C(instance_move) and new secondaries).
      type: int
    note:
      description:
        - What the move does to the instance, in a sentence - for C(instance_move) that it
          stops, its disks are copied and it starts again on the target (downtime), which
          RAPI cannot do, so it is done by hand or avoided with O(ignore_non_redundant).
      type: str
jobsets:
  description: The moves (by index) of each wave that has moves, one jobset per such wave.
  returned: success
  type: list
  elements: list
  sample: [[1, 2], [3]]
instances_before:
  description: The moved instances (C(name), C(pnode), C(snode)) before the plan.
  returned: with O(details=full)
  type: list
  elements: dict
instances_after:
  description: The moved instances after their last move in the plan.
  returned: with O(details=full)
  type: list
  elements: dict
data_warnings:
  description: Inconsistencies found in the cluster data, and the missing master with O(force).
  returned: success
  type: list
  elements: str
run:
  description:
    - With O(run_id) - the run's C(id) and the nodes it has marked, C(rolling) (its
      current wave), C(rebooted) and C(skipped), and C(marks), every mark of the run on
      each node that carries one (node form, wherever Ganeti keeps it); otherwise C(null).
  returned: success
  type: dict
  sample: {id: kernel-2026-11, rolling: [], rebooted: [node2], skipped: [],
           marks: {node2: ["ganeti.htools:rebooted:kernel-2026-11"]}}
report_file:
  description: The path of the HTML report written (O(report_file)).
  returned: when O(report_file) was given
  type: str
  sample: /var/tmp/plan.html
plan:
  description:
    - The plan as one self-contained object - the moves and jobsets, the options, the
      cluster state it was computed from and its C(fingerprint), the report, and
      digests of all of them - for the role that executes the waves, which refuses a
      plan whose cluster changed.
    - Given back as O(plan), it is returned again as long as the cluster did not change.
  returned: success
  type: dict
  contains:
    format:
      description: Plan format identifier.
      type: str
      sample: ganeti.htools/rolling-reboot-plan/4
    plan_id:
      description: Unique id of the plan.
      type: str
    fingerprint:
      description: Hash of the cluster state the plan was computed from.
      type: str
    moves:
      description: As RV(moves).
      type: list
      elements: dict
    jobsets:
      description: As RV(jobsets).
      type: list
      elements: list
    options:
      description: The options the plan was computed with.
      type: dict
    report:
      description:
        - RV(reboot_groups), RV(waves), RV(master) and RV(report), packed like C(state)
          (the module returns each of them as a return value of its own).
      type: dict
    summary:
      description: RV(summary), in plain text for whoever reviews the plan document.
      type: str
    digests:
      description:
        - Digests of the parts above (each move on its own) and C(digest) over them,
          plus C(signature) (an HMAC of C(digest)) when O(plan_signing_key) was given;
          the same envelope as the plans of M(ganeti.htools.ganeti_balance).
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
'''

from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule
# the planner itself, not the registry: AnsiballZ ships what a module imports
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import ROLLER


def main():
    roller = ROLLER
    argument_spec = argspecs.combine(
        argspecs.data_source(), argspecs.rapi(), argspecs.plans(), argspecs.planner_options(roller),
        argspecs.plan_report(), argspecs.details())
    HtoolsModule(argument_spec, needs=roller.needs, checked=roller.table).run_plan(roller)


if __name__ == '__main__':
    main()
