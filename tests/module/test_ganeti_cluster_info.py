# -*- coding: utf-8 -*-
# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Smoke tests of the ganeti_cluster_info module, run through the ansible CLI.

They run the module as a user would (``ansible localhost -m
ganeti.htools.ganeti_cluster_info``) and compare its score and node table with
the real hbal's on the same file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from kit.ansible_cli import run_module as _run, run_playbook
from kit.paths import EXAMPLE, HBAL, REPO_ROOT

PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'cluster_info.yml')
MODULE = 'ganeti.htools.ganeti_cluster_info'

METRIC_NAMES = [
    'free_mem_cv', 'free_disk_cv', 'n1_cnt', 'reserved_mem_cv', 'offline_all_cnt', 'offline_pri_cnt',
    'vcpu_ratio_cv', 'cpu_load_cv', 'mem_load_cv', 'disk_load_cv', 'net_load_cv', 'pri_tags_score',
    'spindles_cv', 'free_mem_cv_forth', 'free_disk_cv_forth', 'vcpu_ratio_cv_forth', 'spindles_cv_forth',
    'location_score', 'location_exclusion_score', 'reserved_mem_rtotal',
]
RESULT_KEYS = [
    'score', 'optimal_score', 'metrics', 'metric_weights', 'group', 'nodes', 'node_table', 'instances',
    'groups', 'n1_failures', 'policy_violations', 'data_warnings',
]


def run_module(tmp_path, *args):
    return _run(tmp_path, MODULE, *args)


def run_hbal(data_file, *args):
    """Return (initial score text, initial node table text) printed by the real hbal
    (tests using it need require_hbal)."""
    proc = subprocess.run([HBAL, '-t', data_file, '-p'] + list(args), capture_output=True, text=True, timeout=300, check=True)
    score = re.search(r'^Initial score: (\S+)$', proc.stdout, re.M)
    assert score, proc.stdout
    table = proc.stderr.split('Initial cluster status:\n', 1)[1].split('\n\n', 1)[0]
    return score.group(1), table


@pytest.mark.usefixtures('require_hbal')
def test_example_score_matches_hbal(tmp_path):
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s details=full' % EXAMPLE)
    assert status == 'SUCCESS', output
    assert result['changed'] is False
    for key in RESULT_KEYS:
        assert key in result, key

    hbal_score, hbal_table = run_hbal(EXAMPLE)
    assert abs(result['score'] - float(hbal_score)) <= 5e-9, (result['score'], hbal_score)
    assert result['node_table'].rstrip('\n') == hbal_table.rstrip('\n')

    assert set(result['metrics']) == set(METRIC_NAMES)
    assert set(result['metric_weights']) == set(METRIC_NAMES)
    weighted = sum(result['metrics'][n] * result['metric_weights'][n] for n in METRIC_NAMES)
    assert weighted == pytest.approx(result['score'], rel=1e-9, abs=1e-9)
    assert result['optimal_score'] <= result['score']

    assert result['group'] == 'default'
    assert len(result['nodes']) == 8
    assert len(result['instances']) == 41
    # the rows hbal -p flags with '*' are exactly the nodes failing N+1
    starred = set(line.split()[1] for line in hbal_table.splitlines()[1:] if line[1:2] == '*')
    assert starred, 'the example is meant to start with N+1 failures'
    assert set(n['name'] for n in result['nodes'] if n['failn1']) == starred
    assert len(result['n1_failures']) == len(starred)
    offline = [n['name'] for n in result['nodes'] if n['offline']]
    assert offline == ['node6']


@pytest.mark.usefixtures('require_hbal')
def test_check_mode_gives_the_same_result(tmp_path):
    status, result, output = run_module(tmp_path, '--check', '-a', 'data_file=%s' % EXAMPLE)
    assert status == 'SUCCESS', output
    assert result['changed'] is False
    hbal_score, _table = run_hbal(EXAMPLE)
    assert abs(result['score'] - float(hbal_score)) <= 5e-9


@pytest.mark.parametrize('params, hbal_args', [
    (dict(offline_nodes=['node7.example.com']), ['-O', 'node7.example.com']),
    (dict(ignore_dynu=True), ['--ignore-dynu']),
    (dict(exclusion_tags=['backup']), ['--exclusion-tags', 'backup']),
    (dict(group='default'), ['-G', 'default']),
], ids=['offline_nodes', 'ignore_dynu', 'exclusion_tags', 'group'])
@pytest.mark.usefixtures('require_hbal')
def test_options_match_hbal(tmp_path, params, hbal_args):
    params = dict(params, data_file=EXAMPLE, details='full')
    status, result, output = run_module(tmp_path, '-a', json.dumps(params))
    assert status == 'SUCCESS', output
    hbal_score, hbal_table = run_hbal(EXAMPLE, *hbal_args)
    assert abs(result['score'] - float(hbal_score)) <= 5e-9, (result['score'], hbal_score)
    assert result['node_table'].rstrip('\n') == hbal_table.rstrip('\n')


@pytest.mark.parametrize('content', [
    'this is not a Ganeti cluster\n',
    'g1|uuid-1|preferred|\n\nnode1|not-a-number|0|0|0|0|1|N|uuid-1\n\n\n\n',
])
def test_bad_data_file_fails_cleanly(tmp_path, content):
    bad = tmp_path / 'bad.data'
    bad.write_text(content)
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % bad)
    assert status == 'FAILED!', output
    assert result.get('failed') is True or 'msg' in result, output
    assert result['msg'].strip(), output
    assert 'Traceback' not in output
    assert 'exception' not in result, output


def test_nodes_show_their_storage_units(tmp_path):
    """Node column 16 of the text format comes back as each node's storage_units;
    a node without the column has none."""
    tail = '|8192|512|5000|102400|80000|8|N|uuid-1|2||N|0|1|1.0'
    lines = ['g1|uuid-1|preferred||', '',
             'node1' + tail + '|2000,4000,drbd8,xenvg;5000,10000,file,/srv/a,x',
             'node2' + tail, '',
             'i1|1024|1000|1|running|Y|node1|node2|drbd||1|-|N', '', '']
    with_units = tmp_path / 'units.data'
    with_units.write_text('\n'.join(lines) + '\n')
    without = tmp_path / 'plain.data'
    without.write_text('\n'.join(lines).replace('|2000,4000,drbd8,xenvg;5000,10000,file,/srv/a,x', '') + '\n')
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s details=full' % with_units)
    assert status == 'SUCCESS', output
    units = {n['name']: n['storage_units'] for n in result['nodes']}
    assert units == {'node1': [{'type': 'drbd8', 'key': 'xenvg', 'free': 2000, 'total': 4000},
                               {'type': 'file', 'key': '/srv/a', 'free': 5000, 'total': 10000}],
                     'node2': []}
    status, plain, output = run_module(tmp_path, '-a', 'data_file=%s details=full' % without)
    assert status == 'SUCCESS', output
    assert [n['storage_units'] for n in plain['nodes']] == [[], []]
    assert plain['storage_unit_metrics'] == []


def test_free_disk_metrics_are_per_unit(tmp_path):
    """free_disk_cv is the average of the units' deviations, each listed in
    storage_unit_metrics."""
    tail = '|8192|512|5000|102400|80000|8|N|uuid-1|2||N|0|1|1.0'
    lines = ['g1|uuid-1|preferred||', '',
             'node1' + tail + '|1000,4000,lvm-vg,ssd;10000,10000,lvm-vg,hdd',
             'node2' + tail + '|3000,4000,lvm-vg,ssd;8000,10000,lvm-vg,hdd', '',
             'i1|1024|1000|1|running|Y|node1|node2|drbd||1|-|N|lvm-vg,ssd', '', '']
    data = tmp_path / 'units.data'
    data.write_text('\n'.join(lines) + '\n')
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % data)
    assert status == 'SUCCESS', output
    # free fractions: ssd 0.25 and 0.75 (deviation 0.25), hdd 1.0 and 0.8 (0.1)
    units = result['storage_unit_metrics']
    assert [(u['type'], u['key'], u['nodes']) for u in units] == [
        ('lvm-vg', 'ssd', 2), ('lvm-vg', 'hdd', 2)]
    assert [u['free_disk_cv'] for u in units] == pytest.approx([0.25, 0.1])
    assert [u['free_disk_cv_forth'] for u in units] == pytest.approx([0.25, 0.1])
    assert result['metrics']['free_disk_cv'] == pytest.approx(0.175)


@pytest.mark.usefixtures('require_hbal')
def test_default_result_is_a_summary_without_the_tables(tmp_path):
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % EXAMPLE)
    assert status == 'SUCCESS', output
    for key in ('nodes', 'node_table', 'instances', 'n1_failing_instances'):
        assert key not in result, key
    hbal_score, _table = run_hbal(EXAMPLE)
    lines = result['summary'].split('\n')
    assert lines[0] == 'group default: score %s (lowest possible %.8f), 8 nodes, 41 instances' % (
        hbal_score, result['optimal_score'])
    assert lines[1] == 'N+1 failures: ' + ', '.join(result['n1_failures'])
    assert lines[2].startswith('policy violations: ')
    assert len(lines) <= 6 and len(json.dumps(result)) < 6000


def test_summary_names_the_groups(tmp_path):
    data = tmp_path / 'groups.data'
    data.write_text('\n'.join([
        'g1|uuid-g1|preferred|', 'g2|uuid-g2|preferred|', '',
        'a|8192|512|5000|102400|80000|8|M|uuid-g1|1|', 'b|8192|512|5000|102400|80000|8|N|uuid-g1|1|',
        'c|8192|512|5000|102400|80000|8|N|uuid-g2|1|', '',
        'i1|1024|1000|1|running|Y|a|b|drbd||1', '', '']) + '\n')
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s group=g1' % data)
    assert status == 'SUCCESS', output
    assert result['summary'].split('\n')[3] == \
        'groups: g1 (2 nodes, 1 instance), g2 (1 node, 0 instances)'


def test_missing_data_file_fails_cleanly(tmp_path):
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % (tmp_path / 'nope.data'))
    assert status == 'FAILED!', output
    assert 'nope.data' in result['msg']
    assert 'Traceback' not in output


@pytest.mark.usefixtures('require_hbal')
def test_example_playbook_runs(tmp_path):
    returncode, output, stdout = run_playbook(tmp_path, PLAYBOOK)
    assert returncode == 0, output
    hbal_score, _table = run_hbal(EXAMPLE)
    assert 'Score %s' % hbal_score in stdout, output
    assert 'N+1 failures:' in stdout
    assert 'Traceback' not in output


def test_group_all_reports_every_group_as_each_alone(tmp_path):
    from gen import cluster_gen      # pylint: disable=import-outside-toplevel
    path = tmp_path / 'three.data'
    path.write_text(cluster_gen.generate(2).data, encoding='utf-8')   # 3 groups
    status, every, output = _run(tmp_path, MODULE, '-a', 'data_file=%s group=all' % path)
    assert status == 'SUCCESS', output
    assert [g['group'] for g in every['group_reports']] == ['g1', 'g2', 'g3']
    for own in every['group_reports']:
        status, alone, output = _run(tmp_path, MODULE, '-a',
                                     'data_file=%s group=%s' % (path, own['group']))
        assert status == 'SUCCESS', output
        for key in ('score', 'optimal_score', 'metrics', 'n1_failures', 'summary'):
            assert own[key] == alone[key], key
        assert '  ' + alone['summary'].split('\n')[0] in every['summary'].split('\n')
    assert every['score'] == pytest.approx(sum(g['score'] for g in every['group_reports']))
