# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hostile input through the ansible CLI: edited plans, bad option values, secrets in URLs."""

from __future__ import annotations

import json

import pytest

from kit.ansible_cli import run_module, run_playbook
from kit.paths import EXAMPLE

BALANCE = 'ganeti.htools.ganeti_balance'


def test_a_plan_with_a_retargeted_move_is_refused(tmp_path):
    status, fresh, output = run_module(tmp_path, BALANCE, '--check', '-a',
                                       'data_file=%s' % EXAMPLE)
    assert status == 'CHANGED', output
    plan = fresh['plan']
    nodes = sorted({m['old_primary'] for m in plan['moves']} | {m['new_primary'] for m in plan['moves']})
    move = next(m for m in plan['moves'] if any(op.get('remote_node') for op in m['opcodes']))
    for op in move['opcodes']:
        if op.get('remote_node'):
            op['remote_node'] = next(n for n in nodes if n != op['remote_node'])
    params = dict(data_file=EXAMPLE, plan=plan)
    status, result, output = run_module(tmp_path, BALANCE, '--check', '-a', json.dumps(params))
    assert status == 'FAILED!', output
    assert 'modified after it was computed' in result['msg']
    assert 'move %d (%s)' % (move['index'], move['instance']) in result['msg']
    assert 'execution' not in result


@pytest.mark.parametrize('option, value, valid', [
    ('max_parallel', 0, 'an integer >= 1'),
    ('timeout', -1, 'a finite number >= 0.1'),
    ('min_gain', 'nan', 'a finite number >= 0'),
    ('avoid_disk_moves', 'inf', 'a finite number >= 0'),
    ('max_length', -2, 'an integer >= -1'),
    ('max_cpu', 0, 'a finite number > 0'),          # hbal: "expected >0"
    ('max_cpu', -1.5, 'a finite number > 0'),
    ('static_kvm_node_memory', -1, 'an integer >= 0'),
])
def test_option_values_are_checked_against_their_range(tmp_path, option, value, valid):
    params = {'data_file': EXAMPLE, option: value}
    status, result, output = run_module(tmp_path, BALANCE, '--check', '-a', json.dumps(params))
    assert status == 'FAILED!', output
    assert '%s must be %s' % (option, valid) in result['msg']
    assert 'Traceback' not in output


def test_a_password_in_rapi_url_is_refused_and_never_shown(tmp_path):
    # (ansible's ad-hoc CLI itself echoes its own command line at -vvv; a play
    # is how secrets are given, and nothing of ours may echo it there)
    secret = 'Sup3rS3cretPw'
    playbook = tmp_path / 'secret.yml'
    playbook.write_text(PLAY % secret)
    returncode, output, _stdout = run_playbook(tmp_path, str(playbook), '-vvvv')
    assert returncode != 0, output
    assert 'rapi_url must not contain credentials' in output
    assert secret not in output


PLAY = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ganeti.htools.ganeti_balance:
        rapi_url: https://admin:%s@127.0.0.1:9/
        rapi_user: admin
      check_mode: true
"""
