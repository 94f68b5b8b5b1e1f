# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_balance through the ansible CLI, compared with the real hbal."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from kit.ansible_cli import run_module, run_playbook
from kit.paths import EXAMPLE, HBAL, REPO_ROOT, SPEC_DATA

MODULE = 'ganeti.htools.ganeti_balance'
PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'balance.yml')


def hbal_plan(data_file, *args):
    """(step lines, end message, -C lines) that hbal prints (tests using it need require_hbal)."""
    proc = subprocess.run([HBAL, '-t', data_file, '-C'] + list(args), capture_output=True,
                          text=True, timeout=300, check=True)
    lines = proc.stdout.splitlines()
    start = lines.index('Trying to minimize the CV...') + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith('  '))
    length_at = next(i for i, line in enumerate(lines) if line.startswith('Solution length='))
    return lines[start:end], lines[end], lines[length_at + 1:]


@pytest.mark.usefixtures('require_hbal')
def test_check_mode_plan_equals_hbal(tmp_path):
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s details=full' % EXAMPLE)
    assert status == 'CHANGED', output
    steps, end, commands = hbal_plan(EXAMPLE)
    assert result['step_lines'] == steps
    assert result['stop_reason'] == end
    assert result['commands'] == commands
    assert result['solution_length'] == len(steps) == len(result['moves'])
    assert result['moves'][-1]['score'] == result['final_score'] < result['initial_score']
    assert sorted(i for js in result['jobsets'] for i in js) == list(range(1, len(steps) + 1))
    first = result['moves'][0]
    assert first['commands'] and all(c.startswith('gnt-instance ') for c in first['commands'])
    assert first['opcodes'][0]['OP_ID'] in ('OP_INSTANCE_MIGRATE', 'OP_INSTANCE_REPLACE_DISKS')


@pytest.mark.usefixtures('require_hbal')
def test_options_reach_the_algorithm(tmp_path):
    data = os.path.join(SPEC_DATA, 'hbal-evac.data')
    params = dict(data_file=data, evac_mode=True, restricted_migration=True, details='full')
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'CHANGED', output
    steps, end, commands = hbal_plan(data, '--evac-mode', '--restricted-migration')
    assert (result['step_lines'], result['stop_reason'], result['commands']) == (steps, end, commands)

    params = dict(data_file=data, offline_nodes=['node-3'], max_length=2, details='full')
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    steps, end, commands = hbal_plan(data, '-O', 'node-3', '-l', '2')
    assert (result['step_lines'], result['commands']) == (steps, commands)


def test_diff_shows_placements(tmp_path):
    data = os.path.join(SPEC_DATA, 'hbal-evac.data')
    status, result, output = run_module(tmp_path, MODULE, '--check', '--diff', '-a',
                                        'data_file=%s' % data)
    assert status == 'CHANGED', output
    # each instance's old placement right above its new one, then its moves in words
    assert ('\n inst-p2\n-  on node-E (secondary node-3)\n+  on node-1 (secondary node-3)\n'
            '+  by: migrate to node-3, then new secondary node-1, then migrate to node-1\n'
            in output), output


def test_default_result_is_small_and_full_on_request(tmp_path):
    status, brief, output = run_module(tmp_path, MODULE, '--check', '-a',
                                       'data_file=%s' % EXAMPLE)
    assert status == 'CHANGED', output
    for key in ('nodes_before', 'nodes_after', 'instances_before', 'instances_after',
                'node_table_before', 'step_lines', 'commands', 'command_script'):
        assert key not in brief, key
    assert brief['summary'] and brief['moves'] and brief['plan']['moves']
    for move, whole in zip(brief['moves'], brief['plan']['moves']):
        assert 'opcodes' not in move and 'commands' not in move
        assert whole['opcodes'] and move['description'] == whole['description']
        assert '_' not in move['description']
    # 55 kB before the moves carried their cost (3 fields each, in the moves
    # and in the plan's moves: 7 kB for the example's 37 moves)
    assert len(json.dumps(brief)) < 64000
    status, full, output = run_module(tmp_path, MODULE, '--check', '-a',
                                      'data_file=%s details=full' % EXAMPLE)
    assert status == 'CHANGED', output
    assert len(full['nodes_before']) == 8 and full['moves'][0]['opcodes']
    assert full['moves'][0]['step_line'] and full['plan']['moves'][0]['commands']
    # the plan given back yields what it was computed with
    params = dict(data_file=EXAMPLE, plan=full['plan'], details='full')
    status, again, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'CHANGED' and again['step_lines'] == full['step_lines'], output


def test_without_check_mode_refuses_to_execute(tmp_path):
    status, result, output = run_module(tmp_path, MODULE, '-a', 'data_file=%s' % EXAMPLE)
    assert status == 'FAILED!', output
    assert 'live cluster' in result['msg'] and 'check mode' in result['msg']
    assert 'Traceback' not in output


def test_already_balanced_is_not_changed(tmp_path):
    data = os.path.join(SPEC_DATA, 'hbal-dyn.data')
    params = dict(data_file=data, ignore_dynu=True)
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'SUCCESS', output
    assert result['changed'] is False and result['moves'] == []
    assert result['stop_reason'].startswith('Cluster is already well balanced')


def test_an_empty_cluster_plans_nothing_and_saves_nothing(tmp_path):
    data = tmp_path / 'empty.data'
    data.write_text('g1|uuid-1|preferred|\n\nn1.x|16384|512|15000|100000|90000|8|N|uuid-1\n'
                    'n2.x|32768|512|30000|100000|50000|8|N|uuid-1\n\n\n')
    params = dict(data_file=str(data), save_state=str(tmp_path / 'st'),
                  report_file=str(tmp_path / 'plan.html'))
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'SUCCESS', output
    assert result['stop_reason'] == 'Cluster is empty, exiting.' and result['cluster_empty']
    assert result['moves'] == [] and not list(tmp_path.glob('st.*'))
    assert 'Cluster is empty' in (tmp_path / 'plan.html').read_text()


def _example_mond_file(tmp_path, skip=None):
    names = [line.split('|')[0] for line in open(EXAMPLE, encoding='utf-8').read()
             .split('\n\n')[1].splitlines()]
    entries = [{'node': name, 'reports': [{
        'name': 'cpu-avg-load', 'version': 'B', 'format_version': 1, 'timestamp': 1,
        'category': None, 'kind': 0,
        'data': {'cpu_number': 1, 'cpus': [pos * 1.7], 'cpu_total': pos * 1.7}}]}
        for pos, name in enumerate(names) if name != skip]
    path = tmp_path / 'mond.json'
    path.write_text(json.dumps(entries))
    return str(path), names


@pytest.mark.usefixtures('require_hbal')
@pytest.mark.parametrize('held_back', [False, True])
def test_mond_data_plan_equals_hbal(tmp_path, held_back):
    mond, names = _example_mond_file(tmp_path)
    if held_back:
        mond, _names = _example_mond_file(tmp_path, skip=names[2])
    params = dict(data_file=EXAMPLE, mond=True, mond_data=mond, details='full')
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'CHANGED', output
    steps, end, commands = hbal_plan(EXAMPLE, '--mond=yes', '--mond-data', mond)
    assert (result['step_lines'], result['stop_reason'], result['commands']) == \
        (steps, end, commands)
    ignored = [w for w in result['data_warnings'] if 'cpu-avg-load data ignored' in w]
    assert bool(ignored) == held_back
    if held_back:
        assert names[2] in ignored[0]


def test_mond_data_without_mond_fails_cleanly(tmp_path):
    mond, _names = _example_mond_file(tmp_path)
    params = dict(data_file=EXAMPLE, mond_data=mond)
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'FAILED!', output
    assert 'mond_data is only read with mond: true' in result['msg']


def test_unknown_names_fail_cleanly(tmp_path):
    for params in (dict(group='nosuch'), dict(offline_nodes=['nosuch']),
                   dict(select_instances=['nosuch'])):
        params['data_file'] = EXAMPLE
        status, result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
        assert status == 'FAILED!', output
        assert 'nosuch' in result['msg']
        assert 'Traceback' not in output


@pytest.mark.usefixtures('require_hbal')
def test_save_state_matches_hbal(tmp_path):
    data = os.path.join(SPEC_DATA, 'hbal-evac.data')
    prefix = str(tmp_path / 'ours')
    params = dict(data_file=data, offline_nodes=['node-3'], save_state=prefix)
    status, _result, output = run_module(tmp_path, MODULE, '--check', '-a', json.dumps(params))
    assert status == 'CHANGED', output
    theirs = str(tmp_path / 'theirs')
    subprocess.run([HBAL, '-t', data, '-O', 'node-3', '-S', theirs], capture_output=True,
                   check=True, timeout=300)
    for suffix in ('.original', '.balanced'):
        with open(prefix + suffix) as ours_file, open(theirs + suffix) as hbal_file:
            assert ours_file.read() == hbal_file.read(), suffix


@pytest.mark.usefixtures('require_hbal')
def test_balance_playbook_prints_the_plan(tmp_path):
    returncode, output, stdout = run_playbook(tmp_path, PLAYBOOK)
    assert returncode == 0, output
    steps, end, _commands = hbal_plan(EXAMPLE)
    assert end in stdout
    assert re.search(r"'group default: score \d+\.\d{8} -> \d+\.\d{8}, %d moves in \d+ jobsets'"
                     % len(steps), stdout), stdout      # the summary
    # singular for one move, and "in parallel" only where there is more than one
    assert 'Jobset 1 (1 move):' in stdout
    assert re.search(r'Jobset \d+ \(2 moves, run in parallel\):', stdout)
    assert '(1 moves' not in stdout and '1 move, run in parallel' not in stdout
    assert 'Traceback' not in output


def test_group_all_balances_every_group_in_one_plan(tmp_path):
    from gen import cluster_gen      # pylint: disable=import-outside-toplevel
    path = tmp_path / 'three.data'
    path.write_text(cluster_gen.generate(2).data, encoding='utf-8')   # 3 groups, 2 with moves
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s group=all' % path)
    assert status == 'CHANGED', output
    assert result['group'] == 'all' and [g['group'] for g in result['groups']] == \
        ['g1', 'g2', 'g3']
    lines = result['summary'].split('\n')
    assert lines[0].startswith('3 groups: scores summed ')
    for group in result['groups']:
        assert any(line.startswith('  group %s: score ' % group['group']) for line in lines)
        assert group['moves'] == sum(1 for m in result['moves'] if m['group'] == group['group'])
    assert result['plan']['jobsets'] == result['jobsets']
    # without the option, a cluster of several groups is refused as hbal refuses it
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a', 'data_file=%s' % path)
    assert status == 'FAILED!' and 'choose one with the group option' in result['msg'], output


def test_a_data_budget_spends_its_gib_where_they_buy_the_most(tmp_path):
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s max_data_moved=500' % EXAMPLE)
    assert status == 'CHANGED', output
    assert 0 < result['cost']['data_copied_mib'] <= 500 * 1024
    assert 'of the 500.0 GiB data budget copied)' in result['stop_reason']
    assert result['plan']['options']['max_data_moved'] == 500.0
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s max_data_moved=-1' % EXAMPLE)
    assert status == 'FAILED!' and 'max_data_moved' in result['msg'], output


def test_a_duration_budget_cuts_the_plan_and_says_so(tmp_path):
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s max_estimated_duration=3000' % EXAMPLE)
    assert status == 'CHANGED', output
    assert 0 < result['cost']['estimated_seconds'] <= 3000
    assert result['budget_bound'] == ['max_estimated_duration']
    assert 'estimated-duration budget); bound by max_estimated_duration' in result['summary']
    assert result['plan']['options']['max_estimated_duration'] == 3000
    # max_duration alone is the execution deadline: the plan stays hbal's
    plans = [run_module(tmp_path, MODULE, '--check', '-a', 'data_file=%s%s' % (EXAMPLE, extra))[1]
             for extra in ('', ' max_duration=60')]
    assert plans[0]['moves'] == plans[1]['moves'] and plans[1]['budget_bound'] == []
    status, result, output = run_module(tmp_path, MODULE, '--check', '-a',
                                        'data_file=%s max_estimated_duration=-5' % EXAMPLE)
    assert status == 'FAILED!' and 'max_estimated_duration' in result['msg'], output
