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
import shutil
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTIONS_DIR = os.path.join(REPO_ROOT, '.cache', 'collections')
EXAMPLE = os.path.join(REPO_ROOT, 'playbooks', 'files', 'example.data')
PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'cluster_info.yml')
HBAL = os.environ.get('HBAL', '/usr/lib/ganeti/3.0/usr/bin/hbal')
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
RESULT_RE = re.compile(r'^localhost \| (SUCCESS|CHANGED|FAILED!) => ', re.M)


def _tool(name):
    """The ansible CLI next to the running Python (the venv), else on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(name)
    if not found:
        pytest.skip('%s is not installed' % name)
    return found


def _env():
    env = dict(os.environ)
    env.update(
        ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_DIR,
        ANSIBLE_CALLBACK_RESULT_FORMAT='json',
        ANSIBLE_NOCOLOR='1',
        ANSIBLE_FORCE_COLOR='0',
        ANSIBLE_LOCALHOST_WARNING='0',
        ANSIBLE_INVENTORY_UNPARSED_WARNING='0',
        ANSIBLE_DEPRECATION_WARNINGS='0',
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    return env


def run_module(tmp_path, *args):
    """Run the module ad hoc; return (status, result dict, combined output)."""
    cmd = [_tool('ansible'), 'localhost', '-m', MODULE] + list(args)
    # cwd=tmp_path: no ansible.cfg from the checkout, only the settings above
    proc = subprocess.run(cmd, cwd=str(tmp_path), env=_env(), capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    match = RESULT_RE.search(proc.stdout)
    assert match, 'no module result in the ansible output:\n' + output
    result, _end = json.JSONDecoder().raw_decode(proc.stdout[match.end():])
    return match.group(1), result, output


def run_hbal(data_file, *args):
    """Return (initial score text, initial node table text) printed by the real hbal."""
    if not os.access(HBAL, os.X_OK):
        pytest.skip('the real hbal (%s) is not installed; run make deps' % HBAL)
    proc = subprocess.run([HBAL, '-t', data_file, '-p'] + list(args), capture_output=True, text=True, timeout=300, check=True)
    score = re.search(r'^Initial score: (\S+)$', proc.stdout, re.M)
    assert score, proc.stdout
    table = proc.stderr.split('Initial cluster status:\n', 1)[1].split('\n\n', 1)[0]
    return score.group(1), table


def test_example_score_matches_hbal(tmp_path):
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % EXAMPLE)
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
def test_options_match_hbal(tmp_path, params, hbal_args):
    params = dict(params, data_file=EXAMPLE)
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


def test_missing_data_file_fails_cleanly(tmp_path):
    status, result, output = run_module(tmp_path, '-a', 'data_file=%s' % (tmp_path / 'nope.data'))
    assert status == 'FAILED!', output
    assert 'nope.data' in result['msg']
    assert 'Traceback' not in output


def test_example_playbook_runs(tmp_path):
    env = _env()
    env['ANSIBLE_CALLBACK_RESULT_FORMAT'] = 'yaml'
    proc = subprocess.run([_tool('ansible-playbook'), PLAYBOOK], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    hbal_score, _table = run_hbal(EXAMPLE)
    assert 'Score %s' % hbal_score in proc.stdout, output
    assert 'N+1 failures:' in proc.stdout
    assert 'Traceback' not in output
