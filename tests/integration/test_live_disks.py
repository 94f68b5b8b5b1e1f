# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_health's disks_in_sync against the real cluster, over RAPI
and LUXI.  The lab has no DRBD (tests/vmlab has: test_disks_in_sync.py); its
sharedfile disks still have a status Ganeti reports, and a disk whose file
is gone is one Ganeti cannot find - "not active" - and cannot activate."""

from __future__ import annotations

import glob
import os

import pytest

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
