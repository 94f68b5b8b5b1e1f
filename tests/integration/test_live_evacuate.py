# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_evacuate_group against the real cluster: node evacuation (check
mode, execution, drain, drift) and a group change into a new node group.

The lab's instances are sharedfile (externally mirrored): hail moves them
with a migration to the chosen node.
"""

from __future__ import annotations

import contextlib
import filecmp
import glob
import json
import os
import shutil
import subprocess

import pytest

from kit.paths import LAB_DIR

MODULE = 'ganeti_evacuate_group'
# the first directory of Ganeti's iallocator search path: an iallocator found
# there by name is run by the master's node daemon (tests/lab/iallocator-record)
RECORDER = '/usr/local/lib/ganeti/iallocators/htools-record'


def _running_everywhere(lab):
    instances = lab.instances()
    return all(i['oper_state'] and i['status'] == 'running' for i in instances.values()), \
        {n: i['status'] for n, i in instances.items()}


def test_evacuating_the_master_plans_without_changing_anything_then_empties_it(fresh, tmp_path):
    lab = fresh
    placement = lab.placement()
    jobs = [j['id'] for j in lab.jobs()]
    status, plan_run, output = lab.run_module(tmp_path, MODULE, {'nodes': ['node1']}, check=True)
    assert status == 'CHANGED', output
    assert plan_run['kind'] == 'node-evacuate' and plan_run['mode'] == 'secondary-then-primary'
    assert sorted(m['instance'] for m in plan_run['moves']) == sorted(placement)
    assert not plan_run['failed_instances']
    # node1 is the master: evacuated, never drained
    assert plan_run['drain_nodes'] == [] and 'node1 is the master node' in output
    for move in plan_run['plan']['moves']:       # the opcodes: in the plan document
        assert [op['OP_ID'] for op in move['opcodes']] == ['OP_INSTANCE_MIGRATE']
        assert move['opcodes'][0]['target_node'] == move['new_primary'] != 'node1'
    # check mode: nothing moved, no job, no lock
    assert lab.placement() == placement
    assert [j['id'] for j in lab.jobs()] == jobs and not lab.lock_tags()

    status, result, output = lab.run_module(tmp_path, MODULE, {'plan': plan_run['plan']})
    assert status == 'CHANGED', output
    execution = result['execution']
    assert execution['succeeded'] == [m['index'] for m in plan_run['moves']], execution
    after = lab.placement()
    assert 'node1' not in after.values(), after
    assert after == {m['instance']: m['new_primary'] for m in plan_run['moves']}
    ok, states = _running_everywhere(lab)
    assert ok, states
    assert not lab.lock_tags()


def test_evacuating_a_node_drains_it_and_empties_it(fresh, tmp_path):
    lab = fresh
    for name in ('instance1', 'instance2'):
        lab.migrate(name, 'node2')
    args = {'nodes': ['node2'], 'mode': 'primary-only'}
    status, result, output = lab.run_module(tmp_path, MODULE, args)
    assert status == 'CHANGED', output
    assert result['drain_nodes'] == ['node2'] and result['drained'] == ['node2']
    assert sorted(m['instance'] for m in result['moves']) == ['instance1', 'instance2']
    node2 = lab.nodes()['node2']
    assert node2['drained'] is True, node2
    assert 'node2' not in lab.placement().values()
    drains = [j for j in lab.jobs_with_reason(result['plan']['plan_id'])
              if any(op['OP_ID'] == 'OP_NODE_SET_PARAMS' for op in j['ops'])]
    assert len(drains) == 1 and drains[0]['status'] == 'success', drains
    # the drain job ran before the first migration
    first_move = min(job for move in result['execution']['moves'] for job in move['jobs'])
    assert drains[0]['id'] < first_move


def test_a_drifted_plan_is_refused(fresh, tmp_path):
    lab = fresh
    status, plan_run, output = lab.run_module(tmp_path, MODULE, {'nodes': ['node1']}, check=True)
    assert status == 'CHANGED', output
    # instance3 goes elsewhere than the plan sends it (moved where the plan
    # puts it, it would count as a move already done: see test_live_resume)
    planned = next(m['new_primary'] for m in plan_run['moves'] if m['instance'] == 'instance3')
    lab.migrate('instance3', next(n for n in ('node2', 'node3') if n != planned))
    placement = lab.placement()
    jobs = [j['id'] for j in lab.jobs()]
    status, result, output = lab.run_module(tmp_path, MODULE, {'plan': plan_run['plan']})
    assert status == 'FAILED', output
    assert 'stale' in result['msg'] and any('instance3' in line for line in result['drift'])
    assert lab.placement() == placement
    assert [j['id'] for j in lab.jobs()] == jobs and not lab.lock_tags()


@contextlib.contextmanager
def _second_group(lab, tmp_path, *nodes):
    """A node group g2 holding `nodes` for the duration of the block."""
    lab.gnt('gnt-group', 'add', 'g2')
    try:
        lab.gnt('gnt-group', 'assign-nodes', 'g2', *nodes)
        yield 'g2'
    finally:
        lab.wait_idle()
        back = sorted(name for name, inst in lab.instances().items() if inst['pnode'] in nodes)
        if back:    # a one-node group fails hail's capacity check: skip it
            status, _result, output = lab.run_module(tmp_path, MODULE, {
                'instances': back, 'target_groups': ['default'], 'no_capacity_checks': True})
            assert status == 'CHANGED', output
        lab.gnt('gnt-group', 'assign-nodes', 'default', *nodes)
        lab.gnt('gnt-group', 'remove', 'g2')


@pytest.fixture
def recorded(lab):
    """What Ganeti asks its iallocator, and what hail answers: the lab's
    recording iallocator installed; the fixture returns a reader of the
    (request, answer) pairs recorded since, oldest first."""
    source = os.path.join(LAB_DIR, 'iallocator-record')
    if not (os.path.exists(RECORDER) and filecmp.cmp(source, RECORDER, shallow=False)):
        os.makedirs(os.path.dirname(RECORDER), exist_ok=True)
        shutil.copy(source, RECORDER)
    folder = os.path.join(lab.base, 'iallocator-requests')
    shutil.rmtree(folder, ignore_errors=True)

    def pairs():
        found = []
        for request in sorted(glob.glob(os.path.join(folder, '*.request.json'))):
            with open(request, encoding='utf-8') as handle:
                asked = json.load(handle)['request']
            with open(request.replace('.request.', '.answer.'), encoding='utf-8') as handle:
                found.append((asked, json.load(handle)))
        return found
    return pairs


def _answered(answer):
    """hail's answer as {instance: its new nodes}, in its order, and the failures."""
    moved, failed, _jobs = answer['result']
    return [(name, nodes) for name, _group, nodes in moved], failed


def test_a_node_evacuation_asks_and_plans_what_ganeti_itself_does(fresh, recorded, tmp_path):
    lab = fresh
    for name in ('instance4', 'instance2', 'instance5'):
        lab.migrate(name, 'node2')
    # the module's default (no mode): the secondaries off node2, then its primaries
    status, plan_run, output = lab.run_module(tmp_path, MODULE, {'nodes': ['node2']}, check=True)
    assert status == 'CHANGED', output
    ours = [(m['instance'], [m['new_primary']]) for m in plan_run['moves']]

    # gnt-node evacuate -s then -p, through the recording iallocator: the lab's
    # instances are sharedfile (no secondary), so Ganeti asks hail once
    lab.gnt('gnt-node', 'evacuate', '-f', '-s', '-I', 'htools-record', 'node2')
    lab.gnt('gnt-node', 'evacuate', '-f', '-p', '-I', 'htools-record', 'node2')
    (request, answer), = recorded()
    assert request['type'] == 'node-evacuate' and request['evac_mode'] == 'primary-only'
    # the same instances in the same order (Ganeti's configuration order), and
    # hail's answer to Ganeti is the module's plan, move for move
    assert request['instances'] == [name for name, _nodes in ours]
    assert _answered(answer) == (ours, [])
    assert {name: nodes[0] for name, nodes in ours} == {
        name: inst['pnode'] for name, inst in lab.instances().items()
        if name in request['instances']}


def test_change_group_moves_instances_into_a_new_group(fresh, tmp_path):
    lab = fresh
    with _second_group(lab, tmp_path, 'node3') as group:
        args = {'instances': ['instance4', 'instance5'], 'target_groups': [group]}
        # a group of one node is never N+1 redundant: hail's global capacity
        # check refuses every move into it...
        status, plan_run, output = lab.run_module(tmp_path, MODULE, args, check=True)
        assert status == 'SUCCESS', output
        assert [f['reason'] for f in plan_run['failed_instances']] == [
            'Group g2 (preferred): No valid allocation solutions, failure reasons: FailN1: 1'] * 2
        # ... unless told not to check
        args['no_capacity_checks'] = True
        status, plan_run, output = lab.run_module(tmp_path, MODULE, args, check=True)
        assert status == 'CHANGED', output
        assert plan_run['kind'] == 'change-group', plan_run
        assert not plan_run['failed_instances'], plan_run['failed_instances']
        assert {m['new_group'] for m in plan_run['moves']} == {group}
        status, result, output = lab.run_module(tmp_path, MODULE, {'plan': plan_run['plan']})
        assert status == 'CHANGED', output
        placement = lab.placement()
        assert placement['instance4'] == placement['instance5'] == 'node3', placement
        ok, states = _running_everywhere(lab)
        assert ok, states


@pytest.fixture
def file_instance(fresh):
    """A file-based instance on node1: hail cannot relocate it."""
    lab = fresh
    lab.gnt('gnt-instance', 'add', '-t', 'file', '-n', 'node1', '--disk', '0:size=64M', '-o',
            'noop', '--no-name-check', '--no-ip-check', '--no-install', 'fileinst')
    try:
        yield lab
    finally:
        lab.wait_idle()
        lab.gnt('gnt-instance', 'remove', '-f', 'fileinst')


def test_a_plan_with_unmovable_instances_needs_allow_partial(file_instance, tmp_path):
    lab = file_instance
    placement = lab.placement()
    args = {'nodes': ['node1'], 'mode': 'primary-only'}
    status, result, output = lab.run_module(tmp_path, MODULE, args)
    assert status == 'FAILED', output
    assert 'fileinst: Instances of type file cannot be relocated' in result['msg']
    assert 'allow_partial' in result['msg']
    assert lab.placement() == placement and not lab.lock_tags()
    status, result, output = lab.run_module(tmp_path, MODULE, dict(args, allow_partial=True))
    assert status == 'CHANGED', output
    after = lab.placement()
    assert after['fileinst'] == 'node1'
    assert [name for name, node in after.items() if node == 'node1'] == ['fileinst']


def test_a_group_change_asks_and_answers_what_ganeti_itself_does(fresh, recorded, tmp_path):
    lab = fresh
    with _second_group(lab, tmp_path, 'node2', 'node3') as group:
        args = {'instances': ['instance4'], 'target_groups': [group]}
        _status, plan_run, output = lab.run_module(tmp_path, MODULE, args, check=True)
        assert 'iallocator_result' in plan_run, output
        # Ganeti's own change-group (one instance per command), through the
        # recording iallocator; on the lab's small nodes hail finds no place in
        # g2 that keeps it N+1 redundant, and Ganeti's job fails
        proc = subprocess.run([os.path.join(lab.base, 'gnt'), 'gnt-instance', 'change-group',
                               '--to', group, '-I', 'htools-record', 'instance4'],
                              capture_output=True, text=True, timeout=120, check=False)
        (request, answer), = recorded()
        target = next(g['uuid'] for g in lab.get('/2/groups', bulk=1) if g['name'] == group)
        assert request == {'type': 'change-group', 'instances': ['instance4'],
                           'target_groups': [target]}
        # the module's answer is hail's answer to Ganeti, word for word
        ours = plan_run['iallocator_result']
        assert (ours['info'], ours['result']) == (answer['info'], answer['result'])
        assert proc.returncode == (0 if answer['result'][0] else 1), proc.stdout + proc.stderr
