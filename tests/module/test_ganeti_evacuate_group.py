# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_evacuate_group through the ansible CLI, compared with the real hail."""

from __future__ import annotations

import json

import pytest

from gen import ialloc_gen
from kit.ansible_cli import run_playbook, run_with
from oracle.hail import hail_available, run_hail

MODULE = 'ganeti.htools.ganeti_evacuate_group'
# generated IAllocator requests answered through the module (the differential
# suite compares thousands of answers in-process)
REQUESTS = 12

# n1-0 holds two DRBD primaries, a DRBD secondary and a plain instance; n1-1
# is the master; g2 is a second group with room.  hail keeps every node of the
# evacuated instances out of the targets (n1-0 to n1-3 here): n1-4 and n1-5 take them.
CLUSTER = '\n'.join([
    'g1|uuid-g1|preferred|', 'g2|uuid-g2|preferred|', '',
    'n1-0|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n1-1|32768|1024|29000|200000|190000|16|M|uuid-g1|1|',
    'n1-2|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n1-3|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n1-4|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n1-5|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n2-0|32768|1024|29000|200000|190000|16|N|uuid-g2|1|',
    'n2-1|32768|1024|29000|200000|190000|16|N|uuid-g2|1|',
    'n2-2|32768|1024|29000|200000|190000|16|N|uuid-g2|1|', '',
    'd0|512|1024|1|running|Y|n1-0|n1-1|drbd||1',
    'd1|512|1024|1|running|Y|n1-0|n1-2|drbd||1',
    'd2|512|1024|1|running|Y|n1-3|n1-0|drbd||1',
    'p0|256|1024|1|running|Y|n1-0||plain||1',
    'd3|512|1024|1|running|Y|n1-2|n1-3|drbd||1',
    '', '']) + '\n'


@pytest.fixture
def cluster(tmp_path):
    path = tmp_path / 'cluster.data'
    path.write_text(CLUSTER)
    return str(path)


def run(tmp_path, params, *flags):
    return run_with(tmp_path, MODULE, params, *flags)


def hail(path, *argv):
    if not hail_available():
        pytest.skip('hail not installed')
    return run_hail(path, argv, timeout=300)


def test_answers_iallocator_requests_exactly_as_hail(tmp_path):
    """Request files as data_file, in one playbook: the module's
    iallocator_result is hail's document, and hail's refusals are its failures."""
    paths, tasks = [], []
    for seed in range(REQUESTS):
        path = tmp_path / ('req%02d.json' % seed)
        path.write_text(json.dumps(ialloc_gen.generate(seed)))
        paths.append(str(path))
        soft = seed % 3 == 1
        tasks += [
            '    - ganeti.htools.ganeti_evacuate_group: %s'
            % json.dumps(dict(data_file=str(path), ignore_soft_errors=soft)),
            '      check_mode: true', '      ignore_errors: true', '      register: answer',
            '    - ansible.builtin.copy:', '        content: "{{ answer | to_json }}"',
            '        dest: %s.out' % path, '      check_mode: false']
    playbook = tmp_path / 'answers.yml'
    playbook.write_text('\n'.join(['- hosts: localhost', '  gather_facts: false',
                                   '  tasks:'] + tasks + ['']))
    code, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert code == 0, output
    kinds = set()
    for seed, path in enumerate(paths):
        argv = ['--ignore-soft-errors'] if seed % 3 == 1 else []
        code, out, err = hail(path, *argv)
        with open(path + '.out', encoding='utf-8') as handle:
            result = json.load(handle)
        if code != 0:
            message = err.strip().splitlines()[-1].replace('Error: ', '', 1)
            assert result.get('failed') and message in result['msg'], (path, result)
            continue
        assert not result.get('failed'), (path, result.get('msg'))
        assert result['iallocator_result'] == json.loads(out), path
        kinds.add(result['kind'])
        assert result['changed'] is bool(result['moves'])
        assert [{k: v for k, v in m.items() if k != 'opcodes'} for m in result['plan']['moves']] \
            == result['moves']
        if result['kind'] in ('node-evacuate', 'change-group'):
            # the plan document keeps the opcodes: hail's jobs, one a move
            assert [m['opcodes'] for m in result['plan']['moves']] == \
                result['iallocator_result']['result'][2]
    assert kinds >= {'node-evacuate', 'change-group'}, kinds


def test_node_evacuation_plan(tmp_path, cluster):
    status, result, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-0'], mode='all',
                                                details='full'), '--check', '--diff')
    assert status == 'CHANGED', output
    assert result['kind'] == 'node-evacuate' and result['mode'] == 'all'
    assert '\n d0\n-  on n1-0 (secondary n1-1)\n+  on ' in output
    assert '\n d2\n-  on n1-3 (secondary n1-0)\n+  on ' in output
    assert result['nodes'] == ['n1-0'] and result['drain_nodes'] == ['n1-0']
    moved = {m['instance']: m for m in result['moves']}
    assert sorted(moved) == ['d0', 'd1', 'd2']
    assert [f['instance'] for f in result['failed_instances']] == ['p0']
    for move in moved.values():
        assert {move['new_primary'], move['new_secondary']} <= {'n1-4', 'n1-5'}, move
        assert '\n %s\n-  on %s (secondary %s)\n+  on %s (secondary %s)\n+  by: %s\n' % (
            move['instance'], move['old_primary'], move['old_secondary'], move['new_primary'],
            move['new_secondary'], move['description']) in output
        assert move['new_group'] == 'g1'
        ops = [op['OP_ID'] for op in move['opcodes']]
        assert move['move'] == '+'.join(
            {'OP_INSTANCE_REPLACE_DISKS': 'replace_disks', 'OP_INSTANCE_MIGRATE': 'migrate',
             'OP_INSTANCE_FAILOVER': 'failover'}[op] for op in ops)
    # hail's answer holds the same moves and failures
    moved_doc, failed_doc, jobs = result['iallocator_result']['result']
    assert [m[0] for m in moved_doc] == [m['instance'] for m in result['moves']]
    assert jobs == [m['opcodes'] for m in result['moves']]
    assert failed_doc == [[f['instance'], f['reason']] for f in result['failed_instances']]
    assert result['summary'].startswith('node-evacuate (all) of n1-0: 3 instance(s) to move')
    assert 'p0' in result['summary'] and 'drains n1-0' in result['summary']
    assert result['jobsets'] == [[m['index'] for m in result['moves']]]
    # the RAPI jobs: one per opcode, chained within a move by depends
    jobs = result['jobs']
    assert [(j['move'], j['opcode']) for j in jobs] == [
        (m['index'], op['OP_ID']) for m in result['moves'] for op in m['opcodes']]
    assert [j['job'] for j in jobs] == list(range(1, len(jobs) + 1))
    for job, previous in zip(jobs, [None] + jobs[:-1]):
        chained = previous is not None and previous['move'] == job['move']
        assert job['depends'] == ([previous['job']] if chained else []), job


def test_the_default_is_secondary_only_then_primary_only(tmp_path, cluster):
    """What `gnt-node evacuate -s n1-0` then `-p n1-0` would run: d2 gets a new
    secondary, then d0 and d1 fail over to theirs (which keeps n1-0 their
    secondary: said in a warning), p0 cannot move."""
    status, result, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-0']), '--check')
    assert status == 'CHANGED', output
    assert result['mode'] == 'secondary-then-primary'
    first, second = result['iallocator_result']
    assert [m[0] for m in first['result'][0]] == ['d2']
    assert sorted(m[0] for m in second['result'][0]) == ['d0', 'd1']
    assert [f[0] for f in second['result'][1]] == ['p0']
    by_name = {m['instance']: m for m in result['moves']}
    assert by_name['d2']['move'] == 'replace_disks' and by_name['d2']['old_primary'] == 'n1-3'
    for name, secondary in (('d0', 'n1-1'), ('d1', 'n1-2')):
        assert by_name[name]['move'] == 'migrate', by_name[name]
        assert (by_name[name]['new_primary'], by_name[name]['new_secondary']) == (secondary, 'n1-0')
    assert result['jobsets'] == [[by_name['d2']['index']],
                                 sorted(by_name[n]['index'] for n in ('d0', 'd1'))]
    assert any('keep their secondary on the evacuated node(s)' in w and 'd0, d1' in w
               for w in result['data_warnings']), result['data_warnings']
    assert result['summary'].startswith('node-evacuate (secondary-then-primary) of n1-0: '
                                        '3 instance(s) to move')


def test_modes_pick_the_instances(tmp_path, cluster):
    picked = {}
    for mode in ('primary-only', 'secondary-only'):
        status, result, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-0'],
                                                    mode=mode, drain=False), '--check')
        assert status in ('CHANGED', 'SUCCESS'), output
        assert result['drain_nodes'] == []
        picked[mode] = sorted([m['instance'] for m in result['moves']]
                              + [f['instance'] for f in result['failed_instances']])
    assert picked == {'primary-only': ['d0', 'd1', 'p0'], 'secondary-only': ['d2']}


def test_change_group(tmp_path, cluster):
    status, result, output = run(tmp_path, dict(data_file=cluster, instances=['d3'],
                                                target_groups=['g2']), '--check')
    assert status == 'CHANGED', output
    assert result['kind'] == 'change-group' and result['target_groups'] == ['g2']
    (move,) = result['moves']
    assert move['old_group'] == 'g1' and move['new_group'] == 'g2'
    assert {move['new_primary'], move['new_secondary']} <= {'n2-0', 'n2-1', 'n2-2'}
    assert set(result['scores']) == {'g1', 'g2'}
    assert result['summary'] == 'change-group to g2: 1 instance(s) to move in 3 job(s)'


def test_the_master_is_never_drained(tmp_path, cluster):
    status, result, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-1', 'n1-2']), '--check')
    assert status == 'CHANGED', output
    assert result['drain_nodes'] == ['n1-2']
    assert any('n1-1 is the master node' in w for w in result['data_warnings'])


def test_plan_given_back_and_executing_needs_rapi(tmp_path, cluster):
    status, first, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-0']), '--check')
    assert status == 'CHANGED', output
    status, again, output = run(tmp_path, dict(data_file=cluster, plan=first['plan']), '--check')
    assert status == 'CHANGED', output
    assert again['plan']['plan_id'] == first['plan']['plan_id'] and again['replanned'] is False
    for key in ('moves', 'failed_instances', 'iallocator_result', 'summary'):
        assert again[key] == first[key], key
    assert 'jobs' not in again and 'opcodes' not in again['moves'][0]   # details: summary
    status, result, output = run(tmp_path, dict(data_file=cluster, nodes=['n1-0']))
    assert status == 'FAILED!' and 'needs a live cluster' in result['msg'], output


@pytest.mark.parametrize('params, message', [
    ({'nodes': ['n1-0'], 'instances': ['d0']}, 'mutually exclusive'),
    ({'nodes': ['nosuch']}, 'unknown node nosuch'),
    ({'instances': ['nosuch']}, 'unknown instance nosuch'),
    ({'instances': ['d0'], 'target_groups': ['nosuch']}, 'unknown node group nosuch'),
    ({}, 'nothing to evacuate'),
    ({'nodes': ['n1-0'], 'mode': 'both'}, 'value of mode must be one of'),
    ({'instances': ['d3'], 'restrict_allocation_to': ['n2-0', 'n2-9']},
     'restrict_allocation_to: no such node: n2-9'),
])
def test_bad_requests_fail_clearly(tmp_path, cluster, params, message):
    status, result, output = run(tmp_path, dict(params, data_file=cluster), '--check')
    assert status == 'FAILED!', output
    assert message in result['msg'], result['msg']
    assert 'Traceback' not in output
