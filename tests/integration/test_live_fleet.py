# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/fleet.yml on two live clusters at once: one ansible-playbook run
balances the default lab while the rolling_reboot role rolls a second lab
(conftest.py's second_lab), each cluster with its own RAPI endpoint, credentials, lock
and report; neither disturbs the other."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import yaml

from kit.ansible_cli import failure_first, tool
from kit.paths import LAB_DIR, REPO_ROOT

PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'fleet.yml')
HOOKS = os.path.join(LAB_DIR, 'hooks')


def _cluster(lab, **more):
    return dict({'ganeti_rapi_url': lab.url, 'ganeti_rapi_user': lab.user,
                 'ganeti_rapi_password': lab.password, 'ganeti_ca_path': lab.ca}, **more)


def _seconds(stamp):
    return stamp[0] + stamp[1] / 1e6


def _job_span(lab, after):
    """(first start, last end) of the jobs submitted after job `after`."""
    jobs = [j for j in lab.jobs() if int(j['id']) > after and j.get('start_ts')]
    assert jobs, 'no job ran on %s' % lab.ns
    return min(_seconds(j['start_ts']) for j in jobs), max(_seconds(j['end_ts']) for j in jobs)


def _last_job(lab):
    jobs = lab.jobs()
    return int(jobs[-1]['id']) if jobs else 0


def _reboots(lab):
    """{node: [(start, end)]} from the lab's reboot log (epoch seconds)."""
    spans, started = {}, {}
    with open(os.path.join(lab.base, 'reboots.log'), encoding='utf-8') as handle:
        for when, what, node in re.findall(r'^(\d+) (start|end) (\S+)', handle.read(), re.M):
            if what == 'start':
                started[node] = int(when) / 1000.0
            else:
                spans.setdefault(node, []).append((started.pop(node), int(when) / 1000.0))
    return spans


def test_one_cluster_is_balanced_while_another_is_rolled(fresh, second_lab, tmp_path):
    balanced, rolled = fresh, second_lab
    rolled.reset()
    # the rolled cluster's instances over every node first, so that its waves move some
    status, _result, output = rolled.run_module(tmp_path, 'ganeti_balance', {})
    assert status == 'CHANGED', output
    home = rolled.placement()
    assert set(home.values()) - {'node1'}, home
    before = balanced.placement()
    assert set(before.values()) == {'node1'}, before
    marks = (_last_job(balanced), _last_job(rolled))

    inventory = tmp_path / 'fleet.yml'
    inventory.write_text(yaml.safe_dump({'ganeti_clusters': {
        'vars': {'ansible_connection': 'local',
                 'ansible_python_interpreter': '{{ ansible_playbook_python }}'},
        'hosts': {
            'lab-balanced': _cluster(balanced),
            'lab-rolled': _cluster(
                rolled, fleet_action='rolling_reboot', rolling_reboot_run_id='fleet',
                rolling_reboot_nodes=['node2', 'node3'],
                lab_scripts=LAB_DIR, lab_env={'GNTLAB_NS': rolled.ns, 'GNTLAB_BASE': rolled.base},
                rolling_reboot_reboot_start_tasks=os.path.join(HOOKS, 'reboot_start.yml'),
                rolling_reboot_reboot_wait_tasks=os.path.join(HOOKS, 'reboot_wait.yml'),
                rolling_reboot_boot_id_tasks=os.path.join(HOOKS, 'boot_id.yml')),
        }}}), encoding='utf-8')
    inventory.chmod(0o600)
    env = balanced.env(FLEET_REPORT_DIR=str(tmp_path / 'reports'), GNTLAB_REBOOT_SECONDS='5')
    for name in ('GANETI_RAPI_URL', 'GANETI_RAPI_USER', 'GANETI_RAPI_PASSWORD', 'GANETI_RAPI_CA_PATH'):
        env.pop(name)       # each cluster is reached through its own inventory host only
    started = time.time()
    proc = subprocess.run([tool('ansible-playbook'), '-i', str(inventory), PLAYBOOK, '--forks', '4'],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=1800, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, failure_first(output)

    # the balanced cluster: balanced, and nothing left to do
    assert balanced.placement() != before
    status, again, out = balanced.run_module(tmp_path, 'ganeti_balance', {}, check=True)
    assert status == 'SUCCESS' and not again['changed'], out
    assert (tmp_path / 'reports' / 'lab-balanced-balance.html').stat().st_size > 1000

    # the rolled cluster: node2 and node3 rebooted once each, every instance home
    with open(tmp_path / 'reports' / 'lab-rolled-rolling-reboot.json', encoding='utf-8') as handle:
        report = json.load(handle)
    assert report['status'] == 'done', report
    assert sorted(n for w in report['waves'] for n in w['rebooted']) == ['node2', 'node3'], report
    reboots = _reboots(rolled)
    assert sorted(reboots) == ['node2', 'node3']
    assert all(len(spans) == 1 and spans[0][0] >= started for spans in reboots.values()), reboots
    assert rolled.placement() == home
    assert not rolled.lock_tags() and not balanced.lock_tags()
    for lab in (balanced, rolled):
        assert not [t for node in lab.nodes().values() for t in node['tags']
                    if t.startswith('ganeti.htools:')], lab.ns

    # side by side: the balance's jobs ran while the roll was under way
    balance_start, balance_end = _job_span(balanced, marks[0])
    roll_start, roll_end = _job_span(rolled, marks[1])
    assert balance_start < roll_end and roll_start < balance_end, (
        balance_start, balance_end, roll_start, roll_end)
    # one line per cluster, each its own
    text = ' '.join(output.split())
    assert 'lab-balanced: ' in text and 'lab-rolled: rolling reboot fleet: done' in text, output[-4000:]
