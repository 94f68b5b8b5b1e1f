#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_balance
short_description: Plan the balance of a Ganeti node group exactly as hbal does
version_added: 0.1.0
description:
  - Computes the moves that C(hbal) 3.0 would make to balance one node group,
    that is the same moves, in the same order, with the same scores, the same
    grouping into jobsets and the same C(gnt-instance) commands as C(hbal -C).
  - Candidate moves are scored in bulk, so planning is many times faster than
    C(hbal) on large groups.
  - Reads the cluster from O(data_file), or live over RAPI (O(rapi_url)).
  - In check mode the module returns the plan and changes nothing.
  - Without check mode, on a live cluster, it executes the plan through RAPI
    jobs - jobset after jobset, the moves of a jobset in parallel - under a
    cluster lock, and stops cleanly at the first failed job.
  - Every run returns O(plan), a self-contained plan with a fingerprint of the
    cluster state it was computed from; give it back as O(plan) to execute
    exactly that plan later (for example after an approval step). A plan whose
    cluster changed meanwhile is refused, or recomputed with O(replan_on_drift).
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.data_source.model
  - ganeti.htools.mond
  - ganeti.htools.balance_options
  - ganeti.htools.move_cost
  - ganeti.htools.rapi
  - ganeti.htools.jobs
  - ganeti.htools.plans
  - ganeti.htools.plan_report
  - ganeti.htools.details
  - ganeti.htools.execution
options:
  cost_aware:
    description:
      - Take, at every step, the move that gains the most score per GiB of disk data it
        copies, instead of C(hbal)'s move with the lowest score whatever it copies.
      - The candidates of a step are C(hbal)'s best moves among the instances whose disks
        are no larger than the smallest, the quartile and the largest disk size, and the
        best move that copies nothing; each is rated gain / (GiB copied + 1 GiB). An
        instance's disks are copied once at most.
      - Plans differ from C(hbal)'s; without this option, O(max_data_moved) and
        O(max_estimated_duration) they are C(hbal)'s exactly. See the README,
        "Balance at the cost you choose".
    type: bool
    default: false
  max_data_moved:
    description:
      - Disk data budget in GiB - the plan copies at most this much (its replace-disks,
        see RV(cost)), spent where it buys the most score, as with O(cost_aware).
      - The plan stops when no move within what is left lowers the score.
      - With O(max_estimated_duration) too, a move is taken only if it fits both.
      - With O(group=all), each group's plan has this budget.
    type: float
  max_estimated_duration:
    description:
      - Planning time budget in seconds - the plan's estimated duration (RV(cost.estimated_seconds),
        its jobsets one after the other, each as long as its slowest move at O(disk_copy_rate)
        and O(migration_rate)) is at most this much, spent where it buys the most score
        per second the move adds to the plan, as with O(cost_aware).
      - A move that runs beside a slower one of its jobset adds nothing, so the plan
        favours moves that run side by side.
      - The plan stops when no move within what is left lowers the score;
        RV(budget_bound) and RV(stop_reason) say whether this budget stopped it.
      - With O(max_data_moved) too, a move is taken only if it fits both, and it is
        rated by the sum of the shares of the two budgets it takes.
      - With O(group=all), each group's plan has this budget (the groups' jobsets run
        side by side, so the whole plan can take longer than the longest group's).
      - This is not O(max_duration), the execution deadline, and does not set it.
        O(max_duration) is often set today only to stop a long run, with plans that are
        C(hbal)'s; planning by it would silently change them. And an estimate is not a
        deadline - rates differ from the cluster's; set both to plan for a maintenance
        window and stop at its end whatever the estimate said.
    type: int
  save_state:
    description:
      - Path prefix of the cluster state files to write, like C(hbal -S).
      - C(PREFIX.original) gets the whole cluster as loaded,
        C(PREFIX.balanced) the selected group after the planned moves, both in
        the htools text format.
      - These are local report files; they are written in check mode too.
      - Neither is written for a cluster without instances (RV(cluster_empty)),
        nor C(PREFIX.balanced) for a cluster already well balanced, as with C(hbal).
    type: path
attributes:
  check_mode:
    description: Returns the plan and changes nothing.
    support: full
  diff_mode:
    description: Shows the primary and secondary node of each moved instance before and after the plan.
    support: full
seealso:
  - module: ganeti.htools.ganeti_cluster_info
  - name: hbal(1)
    description: The Ganeti cluster balancer whose algorithm this module reproduces.
    link: https://docs.ganeti.org/docs/ganeti/3.0/man/hbal.html
'''

EXAMPLES = r'''
- name: Balance a live cluster (credentials from GANETI_RAPI_* environment variables)
  ganeti.htools.ganeti_balance:
    rapi_url: https://cluster.example.com:5080
    ca_path: /etc/ganeti/rapi-ca.pem
    max_parallel: 4
    max_duration: 3600

- name: Plan now, execute after approval - only if the cluster did not change
  ganeti.htools.ganeti_balance:
    rapi_url: https://cluster.example.com:5080
  check_mode: true
  register: proposal

- name: Execute exactly the approved plan
  ganeti.htools.ganeti_balance:
    rapi_url: https://cluster.example.com:5080
    plan: "{{ proposal.plan }}"

- name: Plan the balance of the cluster saved by hscan
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
  check_mode: true
  register: plan

- name: Show the commands hbal -C would print
  ansible.builtin.debug:
    var: plan.commands

- name: Evacuate a node that is about to go away, without copying disks more than needed
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
    group: default
    offline_nodes:
      - node7.example.com
    evac_mode: true
    restricted_migration: true
  check_mode: true
  register: evacuation

- name: A plan that copies at most 2 TiB of disk data, spent where it buys the most score
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
    max_data_moved: 2048
  check_mode: true

- name: A plan for a 4-hour window - an estimated 3 hours of moves, stopped at 4 hours whatever
  ganeti.htools.ganeti_balance:
    rapi_url: https://cluster.example.com:5080
    max_estimated_duration: 10800
    max_duration: 14400

- name: A short, cheap plan - at most 10 failovers/migrations
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
    max_length: 10
    no_disk_moves: true
  check_mode: true
'''

RETURN = r'''
summary:
  description:
    - The plan in a few lines for a person - score before and after, the moves
      jobset by jobset in plain words (long lists cut, with a count), the stop reason,
      N+1 failures and warnings.
  returned: success
  type: str
  sample: |-
    group default: score 220.56058989 -> 20.00060943, 37 moves in 31 jobsets
      jobset 1 (1 move): db01: new secondary node7, then migrate to node7
      ... and 30 more jobsets
    Cluster score improved from 220.56058989 to 20.00060943
group:
  description:
    - Name of the node group that was balanced, or C(all) with O(group=all).
    - Null only for an empty cluster whose group cannot be chosen (RV(cluster_empty)).
  returned: success
  type: str
  sample: default
groups:
  description:
    - With O(group=all), each node group's own plan, in name order - its moves are
      those of C(hbal -G GROUP), and jobset K of the plan holds jobset K of every
      group, so that the groups' moves run side by side.
  returned: with O(group=all)
  type: list
  elements: dict
  contains:
    group:
      description: The group's name.
      type: str
    initial_score:
      description: The group's score before its moves (C(hbal -G)'s "Initial score").
      type: float
    final_score:
      description: The group's score after its moves.
      type: float
    optimal_score:
      description: The lowest score the group's N+1 reservations allow.
      type: float
    moves:
      description: How many of the plan's moves are the group's.
      type: int
    jobsets:
      description: How many jobsets the group's own plan has.
      type: int
    stop_reason:
      description: Why the group's search stopped, as C(hbal -G) says it.
      type: str
    budget_bound:
      description: The budgets that stopped the group's plan (see RV(budget_bound)).
      type: list
      elements: str
    well_balanced:
      description: Whether the group was already well balanced.
      type: bool
    metrics_before:
      description: The group's score components before its moves.
      type: dict
    metrics_after:
      description: The group's score components after its moves.
      type: dict
  sample:
    - {group: g1, initial_score: 3.38283973, final_score: 2.64836038, optimal_score: 0.0,
       moves: 2, jobsets: 2, stop_reason: "Cluster score improved from 3.38283973 to 2.64836038",
       well_balanced: false, metrics_before: {}, metrics_after: {}}
initial_score:
  description:
    - Cluster score before the plan (C(hbal)'s "Initial score").
    - With O(group=all), the sum of the groups' scores.
  returned: success
  type: float
  sample: 46.94539253
final_score:
  description:
    - Cluster score after the last move (equal to RV(initial_score) without moves).
    - With O(group=all), the sum of the groups' scores.
  returned: success
  type: float
  sample: 0.26606742
optimal_score:
  description: Lowest score that the N+1 memory reservations allow.
  returned: success
  type: float
  sample: 0.03125
solution_length:
  description: Number of moves in the plan.
  returned: success
  type: int
  sample: 4
stop_reason:
  description:
    - The message C(hbal) ends with, for example C(Cluster score improved from X to Y),
      C(No solution found), C(Cluster is already well balanced ...) or
      C(Cluster is empty, exiting.).
    - With O(max_data_moved) or O(max_estimated_duration), followed by what the plan
      spent of each budget and, when a budget stopped the plan, C(bound by) its name.
  returned: success
  type: str
  sample: Cluster score improved from 46.94539253 to 0.26606742
budget_bound:
  description:
    - The budgets, O(max_data_moved) and O(max_estimated_duration) by name, that stopped
      the plan - the move the search would take next, if they were larger, does not fit
      them. Empty when no budget is set or the plan ended for another reason.
    - With O(group=all), those of any group.
  returned: success
  type: list
  elements: str
  sample: [max_estimated_duration]
well_balanced:
  description: True when the cluster was already within O(min_score) of the optimum.
  returned: success
  type: bool
cluster_empty:
  description:
    - True when the cluster has no instance at all; then nothing is planned, no
      O(save_state) file is written and RV(stop_reason) is C(Cluster is empty, exiting.),
      as with C(hbal).
    - RV(group) is then the node group that would be chosen, or null when none can be
      (C(hbal) chooses none on an empty cluster, so a missing or unknown O(group) is
      no error).
  returned: success
  type: bool
moves:
  description:
    - The moves, in order.
    - C(action), C(step_line), C(commands) and C(opcodes) only with O(details=full);
      RV(plan.moves) always holds the opcodes (what executes).
  returned: success
  type: list
  elements: dict
  contains:
    index:
      description: Position in the plan, from 1.
      type: int
    instance:
      description: Full instance name.
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
    move:
      description:
        - Move type, one of C(failover), C(failover_to_any), C(replace_secondary),
          C(replace_primary), C(replace_and_failover), C(failover_and_replace).
      type: str
    description:
      description:
        - The move in plain words, the same in the summary, the HTML report and the diff -
          C(migrate to N), C(new secondary N), joined by C(, then) (see the README,
          "Moves in plain words").
      type: str
      sample: new secondary node7, then migrate to node7
    score:
      description: Cluster score after the move.
      type: float
    score_text:
      description: The score as C(hbal) prints it (8 decimals).
      type: str
    action:
      description: The action codes of C(hbal)'s step line, such as C(f r:node3 f).
      type: str
    step_line:
      description: The step line exactly as C(hbal) prints it.
      type: str
    commands:
      description: The C(gnt-instance) commands of the move.
      type: list
      elements: str
    opcodes:
      description: The Ganeti opcodes the move maps to, as RAPI/LUXI bodies.
      type: list
      elements: dict
    jobset:
      description: Number of the jobset the move belongs to, from 1.
      type: int
    data_copied_mib:
      description: Disk data the move copies to another node (MiB), its disk size per replace-disks.
      type: int
    memory_migrated_mib:
      description: Memory its live migrations transfer (MiB), its memory per migration.
      type: int
    estimated_seconds:
      description: About how long the move takes at O(disk_copy_rate) and O(migration_rate).
      type: float
    group:
      description: With O(group=all), the node group the move belongs to.
      type: str
    cluster_score:
      description:
        - With O(group=all), the sum of every group's score after the move, in the
          plan's order (RV(moves[].score) is its own group's score, as C(hbal -G) prints it).
      type: float
  sample:
    - index: 1
      instance: inst-p2
      old_primary: node-E
      old_secondary: node-3
      new_primary: node-1
      new_secondary: node-3
      move: replace_primary
      description: migrate to node-3, then new secondary node-1, then migrate to node-1
      score: 26.525817346141004
      score_text: "26.52581735"
      action: f r:node-1 f
      step_line: "    1. inst-p2  node-E:node-3 => node-1:node-3  26.52581735 a=f r:node-1 f"
      commands:
        - gnt-instance migrate -f inst-p2
        - gnt-instance replace-disks -n node-1 inst-p2
        - gnt-instance migrate -f inst-p2
      opcodes:
        - {OP_ID: OP_INSTANCE_MIGRATE, instance_name: inst-p2, allow_failover: true}
      jobset: 1
      data_copied_mib: 10240
      memory_migrated_mib: 2048
      estimated_seconds: 234.7
cost:
  description:
    - What running the plan costs, estimated from its opcodes - disk data copied,
      memory migrated, and about how long at O(disk_copy_rate) and O(migration_rate).
    - A jobset takes as long as its slowest move (its moves run in parallel); the plan
      as long as its jobsets one after the other.
  returned: success
  type: dict
  contains:
    data_copied_mib:
      description: Disk data all moves copy (MiB).
      type: int
    memory_migrated_mib:
      description: Memory all live migrations transfer (MiB).
      type: int
    disk_copies:
      description: How many disk copies the plan makes.
      type: int
    estimated_seconds:
      description: About how long the plan runs.
      type: float
    jobset_seconds:
      description: About how long each jobset runs, in order.
      type: list
      elements: float
    disk_copy_rate:
      description: The O(disk_copy_rate) the estimate used.
      type: float
    migration_rate:
      description: The O(migration_rate) the estimate used.
      type: float
    gain_by_budget:
      description:
        - For 10, 20 ... 100 percent of the disk data the plan copies, the share of its
          score gain that the longest prefix of the plan within that budget reaches.
      type: list
      elements: dict
      contains:
        data_fraction:
          description: The budget as a share of the plan's disk data.
          type: float
        data_copied_mib:
          description: The budget in MiB.
          type: int
        gain_fraction:
          description: The share of the plan's score gain reached within the budget.
          type: float
    hbal_gain_by_budget:
      description:
        - With O(cost_aware) or O(max_data_moved), the same table for C(hbal)'s own plan of
          the group, computed in the same run; C(gain_by_budget) is then measured against
          C(hbal)'s data and gain too, so that the two compare row by row.
        - Not with O(group=all).
      type: list
      elements: dict
  sample:
    data_copied_mib: 5488640
    memory_migrated_mib: 497664
    disk_copies: 36
    estimated_seconds: 99008.1
    jobset_seconds: [7850.7, 853.3]
    disk_copy_rate: 60.0
    migration_rate: 32.0
    gain_by_budget:
      - {data_fraction: 0.1, data_copied_mib: 548864, gain_fraction: 0.352}
hbal_curve:
  description:
    - With O(cost_aware) or O(max_data_moved), C(hbal)'s own plan of the group as pairs
      (MiB its move copies, score after it), which the HTML report draws beside the plan.
  returned: with details=full, and O(cost_aware) or O(max_data_moved)
  type: list
  elements: list
jobsets:
  description:
    - Groups of moves (by RV(moves[].index)) that touch disjoint nodes and can
      run in parallel, built backwards from the last move as C(hbal) does.
  returned: success
  type: list
  elements: list
  sample: [[1], [2, 3]]
step_lines:
  description: C(hbal)'s step lines.
  returned: with O(details=full)
  type: list
  elements: str
commands:
  description: The lines C(hbal -C) prints to reach the solution (empty when already balanced).
  returned: with O(details=full)
  type: list
  elements: str
command_script:
  description: The shell script C(hbal -C FILE) writes.
  returned: with O(details=full)
  type: str
metrics_before:
  description: The 20 score metrics before the plan, named as C(hbal) prints them.
  returned: success
  type: dict
  sample: {free_mem_cv: 0.11785113, offline_all_cnt: 3.0}
metrics_after:
  description: The 20 score metrics after the plan.
  returned: success
  type: dict
nodes_before:
  description: One dict per node of the group with the C(hbal -p) fields, before the plan.
  returned: with O(details=full)
  type: list
  elements: dict
nodes_after:
  description: The same node fields after the plan.
  returned: with O(details=full)
  type: list
  elements: dict
node_table_before:
  description: C(hbal -p)'s table before the plan.
  returned: with O(details=full)
  type: str
node_table_after:
  description: C(hbal -p)'s table after the plan.
  returned: with O(details=full)
  type: str
instances_before:
  description: The group's instances and their placement before the plan.
  returned: with O(details=full)
  type: list
  elements: dict
instances_after:
  description: The group's instances and their placement after the plan.
  returned: with O(details=full)
  type: list
  elements: dict
n1_failures:
  description: Nodes failing the N+1 check before the plan.
  returned: success
  type: list
  elements: str
n1_failing_instances:
  description: Instances on the nodes that fail the N+1 check.
  returned: with O(details=full)
  type: list
  elements: str
data_warnings:
  description: Inconsistencies found in the cluster data (also shown as warnings).
  returned: success
  type: list
  elements: str
step_seconds:
  description:
    - Wall-clock seconds of each search round (one per step, plus the round that found no
      better move), to see how planning scales on a cluster.
  returned: with O(details=full)
  type: list
  elements: float
search_stats:
  description:
    - What the search did, for the curious and for benchmarks - C(searches) (one per step
      tried), C(bulk_scored) (candidates scored in bulk), C(exact_scored) (candidates
      re-scored exactly) and C(fallbacks) (steps handed to the reference search; 0 expected).
  returned: with O(details=full)
  type: dict
report_file:
  description: The path of the HTML report written (O(report_file)).
  returned: when O(report_file) was given
  type: str
  sample: /var/tmp/plan.html
plan:
  description:
    - The plan as one self-contained object, to be given back as O(plan).
    - Holds the moves with their opcodes, the jobsets, the options, the cluster state the
      plan was computed from and its C(fingerprint), the planning report, and digests of
      all of them, so that an edited plan is refused (see O(plan)).
    - The report and the moves' C(hbal) texts (C(action), C(step_line), C(commands)) are
      left out of it unless O(details=full); the report keeps what the HTML report draws
      (per-node usage before and after).
  returned: always, when a plan was computed or given
  type: dict
  contains:
    format:
      description: Plan format identifier.
      type: str
      sample: ganeti.htools/balance-plan/4
    plan_id:
      description: Unique id; every job the plan submits carries C(ganeti.htools:PLAN_ID) in its reason trail.
      type: str
    fingerprint:
      description: Hash of the cluster state the plan was computed from.
      type: str
    state:
      description:
        - The cluster state the plan was computed from, packed - C(encoding)
          (C(json+zlib+base64)), C(nodes) and C(instances) (how many it covers) and
          C(data); used to name what changed when the plan has gone stale, and to
          resume an interrupted run.
      type: dict
    moves:
      description: The moves, as in RV(moves), with their opcodes (what executes).
      type: list
      elements: dict
    jobsets:
      description: As in RV(jobsets).
      type: list
      elements: list
    options:
      description: The algorithm options the plan was computed with.
      type: dict
    report:
      description:
        - The planning report (scores, node tables, commands...), packed like C(state); the
          module returns each of its fields as a return value of its own.
      type: dict
    summary:
      description: RV(summary), in plain text for whoever reviews the plan document.
      type: str
    digests:
      description: Digest of each part of the plan, and of each move.
      type: dict
    digest:
      description: Digest over all parts; what a signature signs.
      type: str
    signature:
      description: HMAC of RV(plan.digest) with O(plan_signing_key), when one was given.
      type: str
replanned:
  description: True when O(plan) was stale and a new plan was computed (O(replan_on_drift)).
  returned: when O(plan) was given
  type: bool
drift:
  description: What changed in the cluster since O(plan) was computed.
  returned: when O(plan) was given and is stale
  type: list
  elements: str
execution:
  description: What the execution did, per move.
  returned: when a plan was executed (also on failure)
  type: dict
  contains:
    moves:
      description:
        - One entry per move, with C(index), C(instance), C(status) (C(success), C(failed),
          C(not_started), C(unknown), C(already_done)), C(jobs) (the RAPI job ids),
          C(opcodes), C(opcodes_done), C(resumed_at) (opcodes an earlier run had done) and
          C(error) (Ganeti's message).
      type: list
      elements: dict
    succeeded:
      description: Indices of the moves that completed.
      type: list
      elements: int
    failed:
      description: Indices of the moves that failed.
      type: list
      elements: int
    not_started:
      description: Indices of the moves that were not started.
      type: list
      elements: int
    unknown:
      description: Indices of the moves whose outcome is unknown because the cluster became unreachable.
      type: list
      elements: int
    already_done:
      description: Indices of the moves an earlier, interrupted run of the same plan completed.
      type: list
      elements: int
    stopped:
      description: Why execution stopped early on purpose (the O(max_duration) budget), or null.
      type: str
resumed:
  description:
    - When O(plan) was given and an earlier run of it stopped part-way (cancelled, controller
      lost, O(max_duration), a failed job), what that run had done; this run continues from
      there, never repeating a done move or opcode.
  returned: when O(plan) was given and is partly executed
  type: dict
  contains:
    moves_done:
      description: Indices of the moves that are complete.
      type: list
      elements: int
    moves_partly_done:
      description: Moves stopped half-way, as C(index) and C(opcodes_done).
      type: list
      elements: dict
'''

from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule
from ansible_collections.ganeti.htools.plugins.module_utils.options import argument_spec as option_spec
from ansible_collections.ganeti.htools.plugins.module_utils.plan.cost import COST_OPTIONS
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.options import (
    BUDGET_OPTIONS)
# the planner itself, not the registry: AnsiballZ ships what a module imports
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import BALANCE


def main():
    balance = BALANCE
    argument_spec = argspecs.combine(
        argspecs.data_source(), argspecs.mond(), argspecs.planner_options(balance),
        argspecs.move_cost(), option_spec(BUDGET_OPTIONS), argspecs.rapi(), argspecs.jobs(),
        argspecs.execution(), argspecs.plan_report(), argspecs.details(),
        save_state=dict(type="path"))
    HtoolsModule(argument_spec, needs=balance.needs,
                 checked=balance.table + COST_OPTIONS + BUDGET_OPTIONS).run_plan(balance)


if __name__ == '__main__':
    main()
