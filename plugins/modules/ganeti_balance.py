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
  - ganeti.htools.balance_options
  - ganeti.htools.rapi
options:
  plan:
    description:
      - A plan returned (as RV(plan)) by an earlier run of this module, unchanged.
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
  save_state:
    description:
      - Path prefix of the cluster state files to write, like C(hbal -S).
      - C(PREFIX.original) gets the whole cluster as loaded,
        C(PREFIX.balanced) the selected group after the planned moves, both in
        the htools text format.
      - These are local report files; they are written in check mode too.
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

- name: A short, cheap plan - at most 10 failovers/migrations
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
    max_length: 10
    no_disk_moves: true
  check_mode: true
'''

RETURN = r'''
group:
  description: Name of the node group that was balanced.
  returned: success
  type: str
  sample: default
initial_score:
  description: Cluster score before the plan (C(hbal)'s "Initial score").
  returned: success
  type: float
  sample: 46.94539253
final_score:
  description: Cluster score after the last move (equal to RV(initial_score) without moves).
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
      C(No solution found) or C(Cluster is already well balanced ...).
  returned: success
  type: str
  sample: Cluster score improved from 46.94539253 to 0.26606742
well_balanced:
  description: True when the cluster was already within O(min_score) of the optimum.
  returned: success
  type: bool
moves:
  description: The moves, in order.
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
  sample:
    - index: 1
      instance: inst-p2
      old_primary: node-E
      old_secondary: node-3
      new_primary: node-1
      new_secondary: node-3
      move: replace_primary
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
  returned: success
  type: list
  elements: str
commands:
  description: The lines C(hbal -C) prints to reach the solution (empty when already balanced).
  returned: success
  type: list
  elements: str
command_script:
  description: The shell script C(hbal -C FILE) writes.
  returned: success
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
  returned: success
  type: list
  elements: dict
nodes_after:
  description: The same node fields after the plan.
  returned: success
  type: list
  elements: dict
node_table_before:
  description: C(hbal -p)'s table before the plan.
  returned: success
  type: str
node_table_after:
  description: C(hbal -p)'s table after the plan.
  returned: success
  type: str
instances_before:
  description: The group's instances and their placement before the plan.
  returned: success
  type: list
  elements: dict
instances_after:
  description: The group's instances and their placement after the plan.
  returned: success
  type: list
  elements: dict
n1_failures:
  description: Nodes failing the N+1 check before the plan.
  returned: success
  type: list
  elements: str
n1_failing_instances:
  description: Instances on the nodes that fail the N+1 check.
  returned: success
  type: list
  elements: str
data_warnings:
  description: Inconsistencies found in the cluster data (also shown as warnings).
  returned: success
  type: list
  elements: str
plan:
  description:
    - The plan as one self-contained object, to be given back as O(plan).
    - Holds the moves with their opcodes, the jobsets, the options, the cluster state the
      plan was computed from and its C(fingerprint).
  returned: always, when a plan was computed or given
  type: dict
  contains:
    format:
      description: Plan format identifier.
      type: str
      sample: ganeti.htools/balance-plan/1
    plan_id:
      description: Unique id; every job the plan submits carries C(ganeti.htools:PLAN_ID) in its reason trail.
      type: str
    fingerprint:
      description: Hash of the cluster state the plan was computed from.
      type: str
    moves:
      description: The moves, as in RV(moves), with their opcodes.
      type: list
      elements: dict
    jobsets:
      description: As in RV(jobsets).
      type: list
      elements: list
    options:
      description: The algorithm options the plan was computed with.
      type: dict
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
          C(not_started), C(unknown)), C(jobs) (the RAPI job ids), C(opcodes_done) and
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
    stopped:
      description: Why execution stopped early on purpose (the O(max_duration) budget), or null.
      type: str
'''

import traceback

from ansible.module_utils.basic import AnsibleModule, env_fallback
from ansible.module_utils.common.text.converters import to_native

try:
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import (
        plan_from_data, prepare_for_balance)
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.loop import BalanceOptions
    from ansible_collections.ganeti.htools.plugins.module_utils.live.source import (
        rapi_argument_spec, read_cluster, unreadable)
    from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
    from ansible_collections.ganeti.htools.plugins.module_utils.live.executor import (
        ExecutionError, execute_plan)
    from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import (
        Snapshot, drift, fingerprint)
    from ansible_collections.ganeti.htools.plugins.module_utils.live.lock import ClusterLock
    from ansible_collections.ganeti.htools.plugins.module_utils.live.plans import (
        check_plan, make_plan, model_state)
except ImportError as import_error:  # e.g. numpy missing on the host that runs the module
    CORE_IMPORT_ERROR = to_native(import_error)
    CORE_IMPORT_TRACEBACK = traceback.format_exc()

    class HtoolsError(Exception):  # pylint: disable=function-redefined
        """Placeholder so that the except clause below stays valid."""

    class ExecutionError(HtoolsError):  # pylint: disable=function-redefined
        """Placeholder so that the except clause below stays valid."""

    def rapi_argument_spec(_fallback):  # pylint: disable=function-redefined
        return {}
else:
    CORE_IMPORT_ERROR = None
    CORE_IMPORT_TRACEBACK = None

ALGORITHM_OPTIONS = dict(
    max_length=dict(type='int', default=-1),
    min_score=dict(type='float', default=1e-9),
    min_gain=dict(type='float', default=0.01),
    min_gain_limit=dict(type='float', default=0.1),
    no_disk_moves=dict(type='bool', default=False),
    avoid_disk_moves=dict(type='float'),
    no_instance_moves=dict(type='bool', default=False),
    ignore_soft_errors=dict(type='bool', default=False),
    evac_mode=dict(type='bool', default=False),
    restricted_migration=dict(type='bool', default=False),
    select_instances=dict(type='list', elements='str', default=[]),
    exclude_instances=dict(type='list', elements='str', default=[]),
    max_cpu=dict(type='float'),
    min_disk=dict(type='float', default=0.0),
)
# Options that shape the plan; a plan records them so that it can be recomputed.
PLAN_OPTIONS = tuple(ALGORITHM_OPTIONS) + (
    'util_file', 'group', 'offline_nodes', 'exclusion_tags', 'ignore_dynu')


def _placement(inst):
    if inst['snode']:
        return "%s:%s" % (inst['pnode'], inst['snode'])
    return inst['pnode']


def _diff(plan):
    """Placement before/after of every moved instance."""
    moved = {m['instance'] for m in plan['moves']}
    before = {i['name']: _placement(i) for i in plan['instances_before'] if i['name'] in moved}
    after = {i['name']: _placement(i) for i in plan['instances_after'] if i['name'] in moved}
    names = sorted(moved)
    return {
        'before_header': 'placement before the plan',
        'after_header': 'placement after the plan',
        'before': ''.join('%s %s\n' % (n, before[n]) for n in names),
        'after': ''.join('%s %s\n' % (n, after[n]) for n in names),
    }


def compute_plan(data, opts, save_state=None):
    """Plan a balance of loaded `data` with the module options `opts`."""
    options = BalanceOptions(
        max_length=opts['max_length'], min_score=opts['min_score'], min_gain=opts['min_gain'],
        min_gain_limit=opts['min_gain_limit'], no_disk_moves=opts['no_disk_moves'],
        no_instance_moves=opts['no_instance_moves'],
        restricted_migration=opts['restricted_migration'], evac_mode=opts['evac_mode'],
        ignore_soft_errors=opts['ignore_soft_errors'], avoid_disk_moves=opts['avoid_disk_moves'])
    prepare_for_balance(data, opts['util_file'], opts['ignore_dynu'], opts['exclusion_tags'],
                        opts['select_instances'], opts['exclude_instances'])
    return plan_from_data(data, opts['group'], opts['offline_nodes'], opts['min_disk'],
                          opts['max_cpu'], options, save_state=save_state)


def _fresh_plan(data, snapshot, opts, save_state):
    state = snapshot.state() if snapshot is not None else model_state(data)
    report = compute_plan(data, opts, save_state)
    cluster = snapshot.info.get('name') if snapshot is not None else None
    return report, make_plan(report, state, opts, cluster)


def _exit_plan(module, report, plan, **extra):
    report = dict(report)
    data_warnings = list(report.pop('warnings', None) or [])
    for warning in data_warnings:
        module.warn(to_native(warning))
    result = dict(report, data_warnings=data_warnings, plan=plan, **extra)
    if module._diff:
        result['diff'] = _diff(report)
    return result


def _plan_only_result(plan):
    """The result fields of a given plan that was not recomputed."""
    return dict(changed=bool(plan['moves']), group=plan['group'],
                initial_score=plan['initial_score'], final_score=plan['final_score'],
                optimal_score=plan['optimal_score'], solution_length=plan['solution_length'],
                stop_reason=plan['stop_reason'], moves=plan['moves'], jobsets=plan['jobsets'],
                commands=plan['commands'], plan=plan)


def _execute(module, client, plan, snapshot_state, result):
    """Lock, re-check the cluster, run the plan, unlock; exits the module."""
    params = module.params
    lock = ClusterLock(client, ttl=params['lock_ttl'], reason='ganeti.htools:%s' % plan['plan_id'],
                       job_timeout=params['job_timeout'])
    lock.acquire()
    failure, report = None, None
    try:
        now = Snapshot.read(client).state()
        if fingerprint(now) != fingerprint(snapshot_state):
            failure = dict(msg="the cluster changed while the run was starting; nothing was "
                               "executed", drift=drift(snapshot_state, now))
        else:
            report = execute_plan(client, plan, 'ganeti.htools:%s' % plan['plan_id'],
                                  max_parallel=params['max_parallel'],
                                  max_duration=params['max_duration'],
                                  job_timeout=params['move_timeout'])
    except ExecutionError as err:
        report = err.report
        failure = dict(msg=to_native(err))
    except HtoolsError as err:
        failure = dict(msg=to_native(err))
    finally:
        _release(module, lock)
    if report is not None:
        result['changed'] = bool(report['succeeded']) or bool(report['unknown'])
        result['execution'] = report
    if failure:
        result.update(failure)
        module.fail_json(**result)
    module.exit_json(**result)


def _release(module, lock):
    tag = lock.tag      # release() forgets it before trying
    try:
        lock.release()
    except HtoolsError as err:
        module.warn("could not release the cluster lock %s: %s; it expires by itself after "
                    "lock_ttl, or remove that cluster tag once this run is known to be over"
                    % (tag, to_native(err)))


def main():
    argument_spec = dict(
        data_file=dict(type='path'),
        util_file=dict(type='path'),
        group=dict(type='str'),
        offline_nodes=dict(type='list', elements='str', default=[]),
        exclusion_tags=dict(type='list', elements='str', default=[]),
        ignore_dynu=dict(type='bool', default=False),
        save_state=dict(type='path'),
        plan=dict(type='dict'),
        replan_on_drift=dict(type='bool', default=False),
        max_parallel=dict(type='int', default=4),
        max_duration=dict(type='int'),
        lock_ttl=dict(type='int', default=7200),
        job_timeout=dict(type='int', default=600),
        move_timeout=dict(type='int'),
    )
    argument_spec.update(ALGORITHM_OPTIONS)
    argument_spec.update(rapi_argument_spec(env_fallback))
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True)
    params = module.params

    if CORE_IMPORT_ERROR is not None:
        module.fail_json(
            msg="Cannot load the ganeti.htools core on this host's Python (%s); "
                "install the collection's Python requirements (numpy, requests)" % CORE_IMPORT_ERROR,
            exception=CORE_IMPORT_TRACEBACK,
        )
    live = not params['data_file']
    if not live and not module.check_mode:
        module.fail_json(
            msg="Executing a balance plan needs a live cluster reached over RAPI (rapi_url); "
                "with data_file the plan can only be computed in check mode (--check or "
                "check_mode: true)")
    for option in ('data_file', 'util_file'):
        problem = unreadable(module.params, option)
        if problem:
            module.fail_json(msg=problem)

    try:
        data, snapshot, client = read_cluster(params)
        opts = {key: params[key] for key in PLAN_OPTIONS}
        given = check_plan(params['plan']) if params['plan'] else None
        extra = {}
        if given is not None:
            state = snapshot.state() if snapshot is not None else model_state(data)
            if fingerprint(state) == given['fingerprint']:
                result = _plan_only_result(given)
                result['replanned'] = False
                plan, snapshot_state = given, given['state']
            elif params['replan_on_drift']:
                report, plan = _fresh_plan(data, snapshot, given['options'], None)
                extra = dict(replanned=True, drift=drift(given['state'], state))
                result = _exit_plan(module, report, plan, **extra)
                snapshot_state = plan['state']
            else:
                module.fail_json(msg="the plan is stale: the cluster changed since it was "
                                     "computed; nothing was executed",
                                 drift=drift(given['state'], state), replanned=False,
                                 plan=given)
        else:
            report, plan = _fresh_plan(data, snapshot, opts, params['save_state'])
            result = _exit_plan(module, report, plan)
            snapshot_state = plan['state']
    except HtoolsError as err:
        module.fail_json(msg=to_native(err))
    except OSError as err:
        module.fail_json(msg="cannot write the state files: %s" % to_native(err))

    if module.check_mode or not plan['moves']:
        module.exit_json(**result)
    try:
        _execute(module, client, plan, snapshot_state, result)
    except HtoolsError as err:   # the lock could not be taken
        module.fail_json(msg=to_native(err), **result)


if __name__ == '__main__':
    main()
