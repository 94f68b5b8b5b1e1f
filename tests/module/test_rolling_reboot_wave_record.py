# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling_reboot role's wave record (templates/wave_record.j2) says only
what happened: a reboot that was noted but never started (the run stopped
before it, say while marking the batch) is neither a reboot nor "not back"."""

from __future__ import annotations

import json
import os

from kit.ansible_cli import run_playbook
from kit.paths import REPO_ROOT

TEMPLATE = os.path.join(REPO_ROOT, 'roles', 'rolling_reboot', 'templates', 'wave_record.j2')

REBOOTS = {
    'a': {'node': 'a', 'boot_id_before': 'x', 'resumed': False, 'down_at': 1.0, 'up_at': 2.0,
          'boot_id_after': 'y'},      # started and back
    'b': {'node': 'b', 'boot_id_before': 'x', 'resumed': False, 'down_at': 1.0, 'up_at': None,
          'boot_id_after': None},     # started, not back
    'c': {'node': 'c', 'boot_id_before': 'x', 'resumed': False, 'down_at': None, 'up_at': None,
          'boot_id_after': None},     # noted, never started
    'd': {'node': 'd', 'boot_id_before': 'x', 'resumed': True, 'down_at': None, 'up_at': None,
          'boot_id_after': None},     # started by the interrupted run, not back
}


def test_the_record_lists_only_the_reboots_that_were_started(tmp_path):
    playbook = tmp_path / 'record.yml'
    variables = dict(rolling_reboot__wave_number=1, rolling_reboot__wave_nodes=['a', 'b', 'c', 'd'],
                     rolling_reboot__resuming=False, rolling_reboot__concurrency=4,
                     rolling_reboot__rebooted_now=['a'], rolling_reboot__reboots=REBOOTS,
                     rolling_reboot__away={}, rolling_reboot__back={},
                     rolling_reboot__secondaries={}, rolling_reboot__resync_seconds=0,
                     rolling_reboot__started=0)
    playbook.write_text(json.dumps([{
        'hosts': 'localhost', 'gather_facts': False, 'vars': variables,
        'tasks': [{'ansible.builtin.copy': {
            'content': "{{ lookup('ansible.builtin.template', '%s') | from_yaml | to_json }}" % TEMPLATE,
            'dest': str(tmp_path / 'record.json'), 'mode': '0600'}}]}]))
    rc, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert rc == 0, output
    record = json.loads((tmp_path / 'record.json').read_text())
    assert [r['node'] for r in record['reboots']] == ['a', 'b', 'd']
    assert record['not_back'] == ['b', 'd']
    assert record['rebooted'] == ['a']
