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
  - Computes the moves that C(hbal) 3.0 would make to balance one node group:
    the same moves, in the same order, with the same scores, the same
    grouping into jobsets and the same C(gnt-instance) commands as C(hbal -C).
  - Candidate moves are scored in bulk, so planning is many times faster than
    C(hbal) on large groups.
  - In check mode the module returns the plan and changes nothing.
  - Executing a plan needs a live cluster (RAPI); with only O(data_file) the
    module must run in check mode.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source
  - ganeti.htools.balance_options
options:
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
  description: Cluster score after the last move (equal to O(initial_score) without moves).
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
    - Groups of moves (by O(moves[].index)) that touch disjoint nodes and can
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
'''

import os
import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

try:
    from ansible_collections.ganeti.htools.plugins.module_utils.balance_plan import plan_balance
    from ansible_collections.ganeti.htools.plugins.module_utils.balancer import BalanceOptions
    from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
except ImportError as import_error:  # e.g. numpy missing on the host that runs the module
    CORE_IMPORT_ERROR = to_native(import_error)
    CORE_IMPORT_TRACEBACK = traceback.format_exc()

    class HtoolsError(Exception):  # pylint: disable=function-redefined
        """Placeholder so that the except clause below stays valid."""
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


def _check_readable(module, option):
    path = module.params[option]
    if path is None:
        return
    if not os.path.exists(path):
        module.fail_json(msg="%s: %s does not exist" % (option, path))
    if not os.access(path, os.R_OK):
        module.fail_json(msg="%s: %s is not readable" % (option, path))


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


def main():
    argument_spec = dict(
        data_file=dict(type='path', required=True),
        util_file=dict(type='path'),
        group=dict(type='str'),
        offline_nodes=dict(type='list', elements='str', default=[]),
        exclusion_tags=dict(type='list', elements='str', default=[]),
        ignore_dynu=dict(type='bool', default=False),
        save_state=dict(type='path'),
    )
    argument_spec.update(ALGORITHM_OPTIONS)
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True)
    params = module.params

    if CORE_IMPORT_ERROR is not None:
        module.fail_json(
            msg="Cannot load the ganeti.htools core on this host's Python (%s); "
                "install the collection's Python requirements (numpy, requests)" % CORE_IMPORT_ERROR,
            exception=CORE_IMPORT_TRACEBACK,
        )
    if not module.check_mode:
        module.fail_json(
            msg="Executing a balance plan needs a live cluster reached over RAPI; with only "
                "data_file the plan can be computed in check mode (--check or "
                "check_mode: true), but not applied")

    _check_readable(module, 'data_file')
    _check_readable(module, 'util_file')

    try:
        options = BalanceOptions(
            max_length=params['max_length'], min_score=params['min_score'],
            min_gain=params['min_gain'], min_gain_limit=params['min_gain_limit'],
            no_disk_moves=params['no_disk_moves'], no_instance_moves=params['no_instance_moves'],
            restricted_migration=params['restricted_migration'], evac_mode=params['evac_mode'],
            ignore_soft_errors=params['ignore_soft_errors'],
            avoid_disk_moves=params['avoid_disk_moves'])
        plan = plan_balance(
            params['data_file'], util_file=params['util_file'], group=params['group'],
            offline_nodes=params['offline_nodes'], exclusion_tags=params['exclusion_tags'],
            ignore_dynu=params['ignore_dynu'], select_instances=params['select_instances'],
            exclude_instances=params['exclude_instances'], min_disk=params['min_disk'],
            max_cpu=params['max_cpu'], options=options, save_state=params['save_state'])
    except HtoolsError as err:
        module.fail_json(msg=to_native(err))
    except OSError as err:
        module.fail_json(msg="cannot write the state files: %s" % to_native(err))

    plan = dict(plan)
    data_warnings = list(plan.pop('warnings', None) or [])
    for warning in data_warnings:
        module.warn(to_native(warning))
    result = dict(plan, data_warnings=data_warnings)
    if module._diff:
        result['diff'] = _diff(plan)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
