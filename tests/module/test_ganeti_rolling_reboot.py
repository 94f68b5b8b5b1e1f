# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_rolling_reboot through the ansible CLI, compared with the real hroller."""

from __future__ import annotations

import json

import pytest

from kit.ansible_cli import run_playbook, run_with
from oracle.hroller import hroller_available, run_hroller

MODULE = 'ganeti.htools.ganeti_rolling_reboot'

# Two groups; g1's plain instances must move within g1, full evacuation re-homes
# the DRBD secondaries; n1-1 is the master.
CLUSTER = '\n'.join([
    'g1|uuid-g1|preferred|', 'g2|uuid-g2|preferred|', '',
    'n1-0|8192|0|6000|9000|5000|16|N|uuid-g1|1|red',
    'n1-1|8192|0|6000|9000|5000|16|M|uuid-g1|1|red',
    'n1-2|8192|0|6000|9000|5000|16|N|uuid-g1|1|blue',
    'n1-3|8192|0|6000|9000|5000|16|N|uuid-g1|1|blue',
    'n2-0|8192|0|6000|9000|5000|16|N|uuid-g2|1', '',
    'd0|512|1024|1|running|Y|n1-0|n1-1|drbd||1',
    'd1|512|1024|1|running|Y|n1-1|n1-2|drbd||1',
    'd2|512|1024|1|running|Y|n1-3|n1-2|drbd||1',
    'p0|256|512|1|running|Y|n1-0||plain||1',
    'r0|256|512|1|running|Y|n1-3||rbd||1',
    '', '']) + '\n'


@pytest.fixture
def cluster(tmp_path):
    path = tmp_path / 'cluster.data'
    path.write_text(CLUSTER)
    return str(path)


def hroller(path, opts):
    if not hroller_available():
        pytest.skip('hroller not installed')
    return run_hroller(path, opts)


def run(tmp_path, params, *flags):
    return run_with(tmp_path, MODULE, params, *flags)


OPTION_SETS = [{}, {'full_evacuation': True}, {'group': 'g1'},
               {'node_tags': ['red'], 'offline_maintenance': True},
               {'one_step_only': True, 'ignore_non_redundant': True}]


def test_report_equals_hroller_in_both_modes(tmp_path, cluster):
    """One playbook (one ansible start-up): every option set in check and normal mode."""
    tasks = []
    for pos, opts in enumerate(OPTION_SETS):
        for mode in ('check', 'normal'):
            tasks += [
                '    - ganeti.htools.ganeti_rolling_reboot: %s' % json.dumps(
                    dict(opts, data_file=cluster)),
                '      check_mode: %s' % ('true' if mode == 'check' else 'false'),
                '      register: result',
                '    - ansible.builtin.copy:',
                '        content: "{{ result | to_json }}"',
                '        dest: %s' % (tmp_path / ('%d-%s.json' % (pos, mode))),
                '      check_mode: false']
    playbook = tmp_path / 'modes.yml'
    playbook.write_text('\n'.join(['- hosts: localhost', '  gather_facts: false', '  tasks:']
                                  + tasks + ['']))
    code, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert code == 0, output
    for pos, opts in enumerate(OPTION_SETS):
        code, lines, _err = hroller(cluster, opts)
        assert code == 0
        checked, normal = (json.loads((tmp_path / ('%d-%s.json' % (pos, mode))).read_text())
                           for mode in ('check', 'normal'))
        assert checked['report'] == lines, opts
        assert normal['changed'] is False and checked['changed'] is False
        for key in ('report', 'reboot_groups', 'waves', 'master', 'moves', 'jobsets'):
            assert normal[key] == checked[key], (opts, key)
        assert normal['plan']['fingerprint'] == checked['plan']['fingerprint']
        groups = [line.split(',') for line in lines[1:] if not line.startswith('  ')]
        if not opts.get('one_step_only'):
            assert checked['reboot_groups'] == groups


def test_waves_carry_the_moves_and_opcodes(tmp_path, cluster):
    status, result, output = run(tmp_path, dict(data_file=cluster, full_evacuation=True,
                                                details='full'))
    assert status == 'SUCCESS', output
    assert result['master'] == {'node': 'n1-1', 'wave': len(result['waves'])}
    assert result['reboot_groups'][-1][-1] == 'n1-1'
    moves = {m['index']: m for m in result['moves']}
    assert moves and sorted(i for js in result['jobsets'] for i in js) == sorted(moves)
    kinds = {m['move'] for m in moves.values()}
    assert {'instance_move', 'failover_to_any'} <= kinds, kinds
    assert kinds & {'replace_secondary', 'failover_and_replace'}, kinds
    for move in moves.values():
        ops = [op['OP_ID'] for op in move['opcodes']]
        expected = {'instance_move': [], 'failover_to_any': ['OP_INSTANCE_MIGRATE'],
                    'replace_secondary': ['OP_INSTANCE_REPLACE_DISKS'],
                    'failover_and_replace': ['OP_INSTANCE_MIGRATE',
                                             'OP_INSTANCE_REPLACE_DISKS']}[move['move']]
        assert ops == expected, move
        if move['move'] == 'failover_to_any':
            assert move['opcodes'][0]['target_node'] == move['new_primary']
    for wave in result['waves']:
        assert wave['migrate_primaries'] is True
        for entry in wave['evacuate']:
            for index in entry['moves']:
                assert entry['node'] in (moves[index]['old_primary'], moves[index]['old_secondary'])


def test_every_wave_says_whether_it_fits_while_down(tmp_path, cluster):
    status, result, output = run(tmp_path, dict(data_file=cluster))
    assert status == 'SUCCESS', output
    for wave in result['waves']:
        down = wave['down']
        assert set(down) >= {'fits', 'problems', 'over_capacity', 'n1_failing', 'summary'}
        assert down['fits'] and down['summary'].startswith('wave %d fits' % wave['wave'])
    [move] = [m for m in result['moves'] if m['move'] == 'instance_move']
    assert (move['memory_mib'], move['disk_mib']) == (256, 512)
    assert move['note'].startswith('stops; its 0.5 GiB of disks are copied to %s'
                                   % move['new_primary'])


def test_wave_targets_judge_the_given_wave(tmp_path, cluster):
    # n1-0 and n1-3 down: d0 migrates to n1-1, d2 to n1-2 (512 MiB each); each node
    # has 6000 MiB free; p0, grown to 5300 MiB, fits beside d2 on n1-2 but not beside
    # d0 and r0 (256 MiB) on n1-1
    text = open(cluster, encoding='utf-8').read().replace(
        'p0|256|512|1|running|Y|n1-0||plain||1', 'p0|5300|512|1|running|Y|n1-0||plain||1')
    path = tmp_path / 'tight.data'
    path.write_text(text)
    params = dict(data_file=str(path), nodes=['n1-0', 'n1-3'],
                  wave_targets={'p0': 'n1-1', 'r0': 'n1-1'})
    status, result, output = run(tmp_path, params)
    assert status == 'SUCCESS', output
    assert result['reboot_groups'] == [['n1-0', 'n1-3']]
    assert sorted((m['instance'], m['new_primary']) for m in result['moves']) == [
        ('p0', 'n1-1'), ('r0', 'n1-1')]
    down = result['waves'][0]['down']
    assert not down['fits'] and down['over_capacity'] == ['n1-1']
    [problem] = [p for p in down['problems'] if p['resource'] == 'memory']
    assert (problem['node'], problem['instance']) == ('n1-1', 'r0')     # d0, p0, then r0
    assert (problem['needed_mib'], problem['free_mib']) == (512 + 5300 + 256, 6000)
    params['wave_targets'] = {'p0': 'n1-2', 'r0': 'n1-1'}
    status, result, output = run(tmp_path, params)
    assert status == 'SUCCESS', output
    down = result['waves'][0]['down']
    # room for every instance; n1-2 is left with 188 MiB, less than d1 (512 MiB) needs
    # should n1-1 fail: N+1 fails there
    assert down['over_capacity'] == [] and down['n1_failing'] == ['n1-2'], down
    params['wave_targets'] = {'p0': 'nosuch'}
    status, result, output = run(tmp_path, params)
    assert status == 'FAILED!' and 'unknown target node nosuch of p0' in result['msg'], output


@pytest.mark.parametrize('opts, message, hint', [
    ({'group': 'nosuch'}, 'Cannot find target group.',
     ' (no node group is named or has the UUID nosuch; the groups are g1, g2)'),
    ({'offline_nodes': ['x', 'n1-0', 'y']}, 'wrong node name(s) set as offline: y,x', ''),
    ({'node_tags': ['green']}, 'Cannot create node graph',
     ' (no node carries the node_tags green; the nodes\' tags are blue, red)'),
])
def test_failures_carry_hrollers_message(tmp_path, cluster, opts, message, hint):
    code, _lines, err = hroller(cluster, opts)
    assert code == 1 and ('Error: ' + message) in err
    status, result, output = run(tmp_path, dict(opts, data_file=cluster), '--check')
    assert status == 'FAILED!', output
    # hroller's words first, then what the operator needs besides them
    assert result['msg'] == message + hint
    assert 'Traceback' not in output


def test_missing_master_fails_unless_forced(tmp_path):
    path = tmp_path / 'nomaster.data'
    path.write_text(CLUSTER.replace('|M|', '|N|'))
    status, result, output = run(tmp_path, dict(data_file=str(path)))
    assert status == 'FAILED!', output
    assert result['msg'].startswith('No master node found (maybe not supported by backend). (')
    assert 'M in its 8th field' in result['msg']
    status, result, output = run(tmp_path, dict(data_file=str(path), force=True), '--diff')
    assert status == 'SUCCESS', output
    assert result['master'] == {'node': None, 'wave': None}
    assert 'No master node found' in output        # shown as a warning
    # --diff: each moved instance before the plan and after its last move, paired
    last = {m['instance']: m['new_primary'] for m in result['moves']}
    assert '\n p0\n-  on n1-0\n+  on %s\n' % last['p0'] in output


def test_plan_given_back_is_returned_unchanged(tmp_path, cluster):
    status, first, output = run(tmp_path, dict(data_file=cluster, full_evacuation=True))
    assert status == 'SUCCESS', output
    status, again, output = run(tmp_path, dict(data_file=cluster, plan=first['plan']))
    assert status == 'SUCCESS', output
    assert again['replanned'] is False
    assert again['plan']['plan_id'] == first['plan']['plan_id']
    assert again['report'] == first['report']
    stale = tmp_path / 'changed.data'
    stale.write_text(CLUSTER.replace('d2|512|', 'd2|1024|'))
    status, result, output = run(tmp_path, dict(data_file=str(stale), plan=first['plan']))
    assert status == 'FAILED!' and 'stale' in result['msg'], output


def test_in_a_playbook_with_module_defaults(tmp_path, cluster):
    playbook = tmp_path / 'reboot.yml'
    playbook.write_text('\n'.join([
        '- hosts: localhost', '  gather_facts: false',
        '  module_defaults:', '    group/ganeti.htools.ganeti:',
        '      data_file: %s' % cluster,
        '  tasks:',
        '    - ganeti.htools.ganeti_rolling_reboot:', '        group: g1',
        '      register: reboot',
        '    - ansible.builtin.assert:',
        '        that: reboot.reboot_groups | length > 1', '']))
    code, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert code == 0, output
