# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hostile input through the ansible CLI: edited plans, bad option values, secrets in URLs."""

from __future__ import annotations

import json

import pytest

from kit.ansible_cli import run_module, run_playbook, run_with
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


# -- only a reviewed plan runs (issue 23, item 1)

BROKEN = 'web01.example.com|8192|40960|4|running|Y|node1.example.com||drbd|service:web|1|-|N'


@pytest.fixture
def unreadable_cluster(tmp_path):
    """A cluster file no loader accepts: a refusal that names the plan instead
    proves nothing was read, let alone computed."""
    with open(EXAMPLE, encoding='utf-8') as handle:
        lines = [BROKEN if line.startswith('web01.') else line
                 for line in handle.read().split('\n')]
    path = tmp_path / 'broken.data'
    path.write_text('\n'.join(lines))
    return str(path)


EMPTY_PLANS = """
- hosts: localhost
  gather_facts: false
  vars:
    set_but_null: null
  tasks:
    - name: default({}) of an unset variable
      ganeti.htools.ganeti_balance:
        data_file: %(data)s
        plan: "{{ approved_plan | default({}) }}"
        report_file: %(report)s
        save_state: %(state)s
      ignore_errors: true
      register: from_default
    - name: a variable set to null
      ganeti.htools.ganeti_balance:
        data_file: %(data)s
        plan: "{{ set_but_null }}"
        report_file: %(report)s
      ignore_errors: true
      register: from_null
    - name: an empty string
      ganeti.htools.ganeti_rolling_reboot:
        data_file: %(data)s
        plan: ""
        report_file: %(report)s
      ignore_errors: true
      register: from_string
    - name: left out with omit is no plan at all
      ganeti.htools.ganeti_balance:
        data_file: %(example)s
        plan: "{{ approved_plan | default(omit) }}"
      check_mode: true
      register: omitted
    - ansible.builtin.copy:
        content: "{{ {'default': from_default, 'null': from_null, 'string': from_string,
                      'omitted': omitted.moves | length} | to_json }}"
        dest: %(out)s
"""


def test_an_empty_plan_is_refused_before_anything_is_read(tmp_path, unreadable_cluster):
    out, report, state = tmp_path / 'out.json', tmp_path / 'plan.html', tmp_path / 'state'
    playbook = tmp_path / 'empty.yml'
    playbook.write_text(EMPTY_PLANS % dict(data=unreadable_cluster, report=report, state=state,
                                           example=EXAMPLE, out=out))
    returncode, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert returncode == 0, output
    results = json.loads(out.read_text())
    for key, shown in (('default', '{}'), ('null', 'None')):
        assert results[key]['failed'], results[key]
        assert results[key]['msg'].startswith('plan is given but empty (%s)' % shown)
        assert 'Nothing was computed or executed' in results[key]['msg']
        assert 'plan' not in results[key] and 'moves' not in results[key]
    assert results['string']['failed']
    assert "argument 'plan' is of type str" in results['string']['msg']
    assert results['omitted'] > 0
    assert not report.exists() and not list(tmp_path.glob('state*'))


def _fresh_plan(tmp_path, module=BALANCE, **params):
    status, fresh, output = run_module(tmp_path, module, '--check', '-a',
                                       json.dumps(dict(params, data_file=EXAMPLE)))
    assert status in ('CHANGED', 'SUCCESS'), output
    return fresh['plan']


def test_planning_options_beside_a_plan_are_refused_unless_they_match_it(tmp_path):
    plan = _fresh_plan(tmp_path, max_length=3)
    for extra, named in ((dict(max_length=5), 'max_length (5 here, 3 in the plan)'),
                         (dict(group='default'), "group ('default' here, None in the plan)"),
                         (dict(save_state=str(tmp_path / 'st')), 'save_state')):
        status, result, output = run_with(tmp_path, BALANCE, dict(extra, data_file=EXAMPLE,
                                                                  plan=plan), '--check')
        assert status == 'FAILED!', output
        assert 'would be ignored: %s' % named in result['msg'], result['msg']
    status, result, output = run_with(tmp_path, BALANCE, dict(data_file=EXAMPLE, plan=plan,
                                                              max_length=3), '--check')
    assert status == 'CHANGED', output
    assert result['plan']['plan_id'] == plan['plan_id']


def test_evacuation_targets_beside_a_plan_are_refused(tmp_path):
    plan = _fresh_plan(tmp_path, 'ganeti.htools.ganeti_evacuate_group', nodes=['node3'])
    status, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_evacuate_group',
                                      dict(data_file=EXAMPLE, plan=plan, nodes=['node4']),
                                      '--check')
    assert status == 'FAILED!', output
    assert "nodes (['node4'] here, ['node3'] in the plan)" in result['msg']


def test_a_signing_key_executes_only_a_plan_given_back(tmp_path):
    # refused before any connection: nothing listens on port 9
    live = dict(rapi_url='https://127.0.0.1:9', plan_signing_key='k3y-of-the-approvers')
    status, result, output = run_with(tmp_path, BALANCE, live)
    assert status == 'FAILED!', output
    assert result['msg'].startswith('plan_signing_key is set, so only a signed plan given back')
    assert 'k3y-of-the-approvers' not in output
    status, result, output = run_with(tmp_path, BALANCE, dict(live, replan_on_drift=True,
                                                              plan=_fresh_plan(tmp_path)))
    assert status == 'FAILED!', output
    assert result['msg'].startswith('replan_on_drift cannot be used with plan_signing_key')


# -- one source of cluster data (issue 23, item 13)

@pytest.mark.parametrize('other', [dict(rapi_url='https://127.0.0.1:9'),
                                   dict(luxi_socket='/nonexistent/ganeti-query')],
                         ids=['rapi_url', 'luxi_socket'])
def test_data_file_with_a_live_source_is_refused(tmp_path, other):
    status, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_cluster_info',
                                      dict(other, data_file=EXAMPLE))
    assert status == 'FAILED!', output
    assert result['msg'].startswith('data_file and %s are given: give only one' % list(other)[0])


def test_an_environment_rapi_url_gives_way_to_data_file(tmp_path):
    status, result, output = run_module(
        tmp_path, 'ganeti.htools.ganeti_cluster_info', '-a', 'data_file=%s' % EXAMPLE,
        extra_env={'GANETI_RAPI_URL': 'https://127.0.0.1:9', 'GANETI_RAPI_USER': 'u'})
    assert status == 'SUCCESS', output
    assert result['score'] > 0


def test_an_iallocator_request_file_with_evacuation_targets_is_refused(tmp_path):
    from gen import ialloc_gen
    path = tmp_path / 'request.json'
    path.write_text(json.dumps(ialloc_gen.generate(1)))
    module = 'ganeti.htools.ganeti_evacuate_group'
    status, result, output = run_with(tmp_path, module, dict(data_file=str(path),
                                                             nodes=['node3']), '--check')
    assert status == 'FAILED!', output
    assert 'is an IAllocator request' in result['msg']
    assert 'nodes would be ignored' in result['msg']
    status, result, output = run_with(tmp_path, module, dict(data_file=str(path)), '--check')
    assert status in ('CHANGED', 'SUCCESS', 'FAILED!'), output
    assert 'is an IAllocator request' not in result.get('msg', '')


@pytest.mark.parametrize('option, value, valid', [
    ('max_length', -2, 'an integer >= -1'),
    ('max_cpu', 0, 'a finite number > 0'),
    ('min_disk', 2, 'a finite number >= 0 and <= 1'),
])
def test_ganeti_capacity_checks_the_hbal_options_it_shares(tmp_path, option, value, valid):
    params = {'data_file': EXAMPLE, option: value}
    status, result, output = run_module(tmp_path, 'ganeti.htools.ganeti_capacity', '--check', '-a',
                                        json.dumps(params))
    assert status == 'FAILED!', output
    assert '%s must be %s' % (option, valid) in result['msg']
