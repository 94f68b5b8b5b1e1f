# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling_reboot role previewed from a saved cluster file, with no live cluster.

`ansible-playbook --check` of a small play using the role on the bundled
example, with no RAPI URL in the environment and no Ganeti socket: every wave
is shown with its capacity verdict (wave 1 overloads node1).  The same file
through `module_defaults` for the action group works too, and the live-only
modules say clearly that a real run needs a live cluster.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from kit.ansible_cli import ansible_env, tool
from kit.paths import EXAMPLE

LIVE_ENV = ('GANETI_RAPI_URL', 'GANETI_RAPI_USER', 'GANETI_RAPI_PASSWORD', 'GANETI_RAPI_CA_PATH')
PLAY = '''- hosts: localhost
  gather_facts: false
%(defaults)s  tasks:
    - name: Roll
      block:
        - ansible.builtin.include_role:
            name: ganeti.htools.rolling_reboot
          vars: %(role_vars)s
      always:
        - ansible.builtin.copy:
            content: "{{ rolling_reboot_report | default({}) | to_json }}"
            dest: %(report)s
            mode: "0600"
          check_mode: false
'''


def play(tmp_path, role_vars, *args, defaults=None):
    """(rc, the role's report, output) of the play, run without any live cluster."""
    report = tmp_path / 'report.json'
    text = PLAY % {'defaults': '  module_defaults:\n    group/ganeti.htools.ganeti: %s\n'
                               % json.dumps(defaults) if defaults else '',
                   'role_vars': json.dumps(role_vars), 'report': report}
    (tmp_path / 'play.yml').write_text(text)
    env = {k: v for k, v in ansible_env().items() if k not in LIVE_ENV}
    assert not os.path.exists('/var/run/ganeti/socket/ganeti-query')
    proc = subprocess.run([tool('ansible-playbook'), 'play.yml'] + list(args), cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    found = json.loads(report.read_text()) if report.exists() else None
    return proc.returncode, found, proc.stdout + proc.stderr


def check_preview(report, output):
    assert report['status'] == 'check mode', output
    waves = report['waves']
    assert [w['nodes'] for w in waves] == [
        ['node2.example.com', 'node7.example.com', 'node8.example.com'],
        ['node3.example.com', 'node5.example.com'], ['node4.example.com']]   # master skipped
    first = waves[0]
    assert not first['fits'] and first['problems'][0].startswith(
        'wave 1: db03.example.com does not fit on node1.example.com while the wave is down')
    assert 'capacity pre-flight: REFUSES the wave, nothing drained' in output
    assert 'would be refused by the capacity pre-flight: 1, 2, 3' in report['summary']
    assert 'the master node1.example.com would be skipped' in report['summary']


def test_check_mode_previews_every_wave_from_a_saved_file(tmp_path):
    # the master is failed over by default now: skipped here, as the preview checks
    rc, report, output = play(tmp_path, {'rolling_reboot_data_file': EXAMPLE,
                                         'rolling_reboot_skip_master': True}, '--check')
    assert rc == 0, output
    check_preview(report, output)
    assert 'preview from data_file' in output       # the lock step said what it would do


def test_module_defaults_with_data_file_serve_every_module_in_check_mode(tmp_path):
    rc, report, output = play(tmp_path, {'rolling_reboot_skip_master': True}, '--check',
                              defaults={'data_file': EXAMPLE})
    assert rc == 0, output
    assert 'Unsupported parameters' not in output
    check_preview(report, output)


def test_a_real_run_from_a_saved_file_is_refused_before_anything(tmp_path):
    rc, report, output = play(tmp_path, {'rolling_reboot_data_file': EXAMPLE})
    assert rc != 0
    assert 'rolling_reboot_data_file %s is a saved cluster: it can only preview' % EXAMPLE in output
    assert report == {}


def test_a_real_run_with_data_file_in_module_defaults_names_what_is_missing(tmp_path):
    rc, report, output = play(tmp_path, {}, defaults={'data_file': EXAMPLE})
    assert rc != 0 and 'Unsupported parameters' not in output
    assert ('ganeti_lock acts on a live cluster: data_file is a saved cluster, which it can '
            'only preview in check mode') in output.replace('\n', ' ').replace('  ', ' ')
    assert report == {}      # stopped at the lock, before the run's report existed


@pytest.mark.parametrize('module,args', [
    ('ganeti_lock', {'owner': 'x'}),
    ('ganeti_node', {'name': 'node2.example.com', 'drained': True}),
    ('ganeti_cluster_health', {}),
    ('ganeti_instance_migrate', {'away_from': ['node3.example.com'],
                                 'targets': {'pxe01.example.com': 'node1.example.com'}}),
])
def test_live_only_modules_preview_from_data_file_and_refuse_it_otherwise(tmp_path, module, args):
    from kit.ansible_cli import run_with       # pylint: disable=import-outside-toplevel
    params = dict(args, data_file=EXAMPLE)
    status, result, output = run_with(tmp_path, 'ganeti.htools.' + module, params, '--check')
    assert status in ('SUCCESS', 'CHANGED'), output
    assert 'data_file' in result['summary']
    status, result, output = run_with(tmp_path, 'ganeti.htools.' + module, params)
    assert status == 'FAILED!'
    assert result['msg'].startswith('%s acts on a live cluster: data_file is a saved cluster'
                                    % module), output


def test_the_migration_preview_reads_the_saved_instances(tmp_path):
    from kit.ansible_cli import run_with       # pylint: disable=import-outside-toplevel
    params = {'away_from': ['node3.example.com'], 'data_file': EXAMPLE,
              'targets': {'pxe01.example.com': 'node1.example.com'}}
    _status, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_instance_migrate', params,
                                       '--check')
    moved = sorted((m['instance'], m['to']) for m in result['moves'])
    # node3's ten DRBD primaries to their secondaries, pxe01 (diskless) to its target
    assert ('app01.example.com', 'node1.example.com') in moved, output
    assert ('cache01.example.com', 'node2.example.com') in moved
    assert ('pxe01.example.com', 'node1.example.com') in moved
    assert len(moved) == 11      # with old-erp, stopped: failed over
