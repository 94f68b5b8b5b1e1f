# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_health's disks_in_sync against the real cluster, over RAPI
and LUXI.  The lab has no DRBD (tests/vmlab has: test_disks_in_sync.py); its
sharedfile disks still have a status Ganeti reports, and a disk whose file
is gone is one Ganeti cannot find - "not active" - and cannot activate."""

from __future__ import annotations

import glob
import json
import os

import pytest

from kit.paths import LAB_DIR

ROLE_PLAY = os.path.join(os.path.dirname(__file__), 'files', 'rolling_reboot.yml')
MODULE = 'ganeti_cluster_health'
CHECK = {'checks': ['disks_in_sync'], 'fail_on_problems': False}


def _disk_file(lab, instance):
    found = glob.glob(os.path.join(lab.base, 'shared-storage', instance, '*.disk0'))
    assert len(found) == 1, found
    return found[0]


def _run(lab, tmp_path, over, args, check=False):
    if over == 'luxi':
        return lab.run_module(tmp_path, MODULE, dict(args, luxi_socket=lab.luxi_socket),
                              check=check, env=lab.luxi_env())
    return lab.run_module(tmp_path, MODULE, args, check=check)


@pytest.mark.parametrize('over', ['rapi', 'luxi'])
def test_disks_in_sync_reads_and_reattaches_on_the_real_cluster(fresh, tmp_path, over):
    lab = fresh
    names = sorted(lab.placement())
    status, result, output = _run(lab, tmp_path, over, CHECK)
    assert status == 'SUCCESS' and result['healthy'], output
    assert result['disks']['checked'] == names and not result['disks']['not_in_sync']
    assert result['disks']['progress'].startswith('every disk in sync (%d device(s)'
                                                  % len(names))

    victim = names[0]
    path = _disk_file(lab, victim)
    node = lab.placement()[victim]
    os.rename(path, path + '.away')
    try:
        status, result, output = _run(lab, tmp_path, over, dict(CHECK, disks_nodes=[node]))
        assert status == 'SUCCESS' and not result['healthy'], output
        assert result['checks']['disks_in_sync']['problems'] == \
            ['%s disk 0 on %s (primary): not active' % (victim, node)]
        jobs = [j['id'] for j in lab.jobs()]
        # check mode re-attaches nothing
        status, result, output = _run(lab, tmp_path, over, dict(CHECK, disks_reattach=True),
                                      check=True)
        assert status == 'SUCCESS' and result['disks']['reattached'] == [], output
        assert not [j for j in lab.jobs() if j['id'] not in jobs
                    and 'ACTIVATE_DISKS' in str(j.get('summary'))]
        # Ganeti is asked to activate them, and says why it cannot
        status, result, output = _run(lab, tmp_path, over, dict(CHECK, disks_reattach=True))
        assert status == 'CHANGED', output
        assert result['disks']['reattached'] == [victim]
        problems = result['checks']['disks_in_sync']['problems']
        assert problems[0] == '%s disk 0 on %s (primary): not active' % (victim, node)
        assert problems[1].startswith('activating the disks of %s failed (job ' % victim), problems
        assert 'Cannot activate block devices' in problems[1]
    finally:
        os.rename(path + '.away', path)
    status, result, output = _run(lab, tmp_path, over, dict(CHECK, disks_reattach=True,
                                                            disks_wait_timeout=30))
    assert status == 'SUCCESS' and result['healthy'], output
    assert result['disks']['reattached'] == []


def test_disks_in_sync_refuses_bad_options(fresh, tmp_path):
    status, result, output = fresh.run_module(tmp_path, MODULE, dict(CHECK, disks_poll_interval=0))
    assert status == 'FAILED', output
    assert result['msg'] == 'disks_poll_interval must be at least 1, not 0'


def test_the_roll_stops_at_its_health_check_on_a_disk_not_in_sync(fresh, tmp_path):
    """disks_in_sync is one of the role's default health checks: a disk that is
    not active elsewhere stops the roll before anything is drained, naming it."""
    lab = fresh
    victim = sorted(lab.placement())[0]
    node = lab.placement()[victim]
    path = _disk_file(lab, victim)
    env = lab.env(GNTLAB_NS=lab.ns, GNTLAB_BASE=lab.base,
                  GNTLAB_REBOOT_SCRIPT=os.path.join(LAB_DIR, 'reboot-node.sh'),
                  ROLLING_REBOOT_REPORT=str(tmp_path / 'report.json'))
    os.rename(path, path + '.away')
    try:
        rc, output = lab.run_playbook(tmp_path, ROLE_PLAY, '-e', json.dumps(
            {'rolling_reboot_nodes': ['node2'], 'rolling_reboot_run_id': 'disks'}), env=env)
    finally:
        os.rename(path + '.away', path)
    assert rc != 0, output
    with open(str(tmp_path / 'report.json'), encoding='utf-8') as handle:
        report = json.load(handle)
    assert report['status'] == 'failed', report
    assert report['stopped_at'].startswith('wave 1 (node2), step health check:'), report
    assert '%s disk 0 on %s (primary): not active' % (victim, node) in report['stopped_at']
    nodes = lab.nodes()
    assert not nodes['node2']['drained'] and not nodes['node2']['tags'], nodes['node2']
    assert not lab.lock_tags()
