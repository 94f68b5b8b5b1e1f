# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/fleet.yml, the many-clusters pattern of the README, on its own
example inventory (two saved clusters, check mode): every cluster planned in
the same run, each with its own report, one summary line per cluster - each
the line its cluster's own balance gives."""

from __future__ import annotations

import json
import os
import re
import subprocess

import yaml

from kit.ansible_cli import ansible_env, run_module, tool
from kit.paths import REPO_ROOT

PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'fleet.yml')
INVENTORY = os.path.join(REPO_ROOT, 'playbooks', 'inventory', 'fleet.yml')
CLUSTERS = {'cluster-a': os.path.join(REPO_ROOT, 'playbooks', 'files', 'example.data'),
            'cluster-b': os.path.join(REPO_ROOT, 'playbooks', 'files', 'cluster-b.data')}


def _run_fleet(tmp_path, inventory):
    """playbooks/fleet.yml in check mode on that inventory: (exit status, output)."""
    env = ansible_env()
    env['FLEET_REPORT_DIR'] = str(tmp_path / 'reports')
    proc = subprocess.run([tool('ansible-playbook'), '-i', str(inventory), PLAYBOOK, '--check'],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _inventory(tmp_path, hosts):
    """An inventory of these clusters, run on the controller as the example's are."""
    inventory = tmp_path / 'fleet.yml'
    inventory.write_text(yaml.safe_dump({'ganeti_clusters': {
        'vars': {'ansible_connection': 'local',
                 'ansible_python_interpreter': '{{ ansible_playbook_python }}'},
        'hosts': hosts}}), encoding='utf-8')
    return inventory


def test_every_cluster_is_planned_with_its_own_report(tmp_path):
    rc, output = _run_fleet(tmp_path, INVENTORY)
    assert rc == 0, output
    for name, data_file in sorted(CLUSTERS.items()):
        report = tmp_path / 'reports' / ('%s-balance.html' % name)
        assert report.is_file() and report.stat().st_size > 1000, name
        # the cluster's line is the head line of its own plan
        status, alone, out = run_module(tmp_path, 'ganeti.htools.ganeti_balance', '--check', '-a',
                                        'data_file=%s group=all' % data_file)
        assert status == 'CHANGED', out
        head = alone['summary'].split('\n')[0]
        assert "%s: %s" % (name, head) in ' '.join(output.split()), (name, head, output)
    assert 'failed=0' in output and 'cluster-a' in output and 'cluster-b' in output


def test_a_cluster_can_be_rolled_beside_one_balanced(tmp_path):
    rc, output = _run_fleet(tmp_path, _inventory(tmp_path, {
        'cluster-a': {'ganeti_data_file': CLUSTERS['cluster-a']},
        'cluster-b': {'ganeti_data_file': CLUSTERS['cluster-b'], 'fleet_action': 'rolling_reboot',
                      'rolling_reboot_run_id': 'fleet-preview'}}))
    assert rc == 0, output
    text = ' '.join(output.split())
    # the roll previews its waves (check mode) from its own saved cluster
    match = re.search(r"cluster-b: rolling reboot fleet-preview \(check mode\): (\d+) wave\(s\)", text)
    assert match and int(match.group(1)) > 0, output
    with open(tmp_path / 'reports' / 'cluster-b-rolling-reboot.json', encoding='utf-8') as handle:
        report = json.load(handle)
    assert report['status'] == 'check mode' and len(report['waves']) == int(match.group(1))
    assert not (tmp_path / 'reports' / 'cluster-b-balance.html').exists()
    assert (tmp_path / 'reports' / 'cluster-a-balance.html').is_file()


def test_an_unknown_action_fails_that_cluster_only(tmp_path):
    rc, output = _run_fleet(tmp_path, _inventory(tmp_path, {
        'cluster-a': {'ganeti_data_file': CLUSTERS['cluster-a']},
        'cluster-b': {'ganeti_data_file': CLUSTERS['cluster-b'], 'fleet_action': 'reinstall'}}))
    assert rc != 0, output
    assert 'fleet_action of cluster-b must be balance or rolling_reboot, not reinstall' in output
    assert (tmp_path / 'reports' / 'cluster-a-balance.html').is_file()
    assert not (tmp_path / 'reports' / 'cluster-b-balance.html').exists()
