# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/fleet.yml, the many-clusters pattern of the README, on its own
example inventory (two saved clusters, check mode): every cluster planned in
the same run, each with its own report, one summary line per cluster - each
the line its cluster's own balance gives."""

from __future__ import annotations

import os
import subprocess

from kit.ansible_cli import ansible_env, run_module, tool
from kit.paths import REPO_ROOT

PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'fleet.yml')
INVENTORY = os.path.join(REPO_ROOT, 'playbooks', 'inventory', 'fleet.yml')
CLUSTERS = {'cluster-a': os.path.join(REPO_ROOT, 'playbooks', 'files', 'example.data'),
            'cluster-b': os.path.join(REPO_ROOT, 'playbooks', 'files', 'cluster-b.data')}


def test_every_cluster_is_planned_with_its_own_report(tmp_path):
    env = ansible_env()
    env['FLEET_REPORT_DIR'] = str(tmp_path / 'reports')
    proc = subprocess.run([tool('ansible-playbook'), '-i', INVENTORY, PLAYBOOK, '--check'],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
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
