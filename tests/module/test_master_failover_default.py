# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling_reboot role's default master failover (master_failover_default.yml)
against a stand-in `gnt-cluster` that answers as Ganeti 3.0.2 does.

On the emulated vm lab (CI, a loaded machine) `gnt-cluster master-failover`
exited 1 with "The master IP did not come up within 30 seconds; the cluster
should still be working and reachable via node2, ..." after failing the
master over: the role stopped a roll that could go on.  It goes on now to
master_failover.yml's wait for RAPI (behind the master IP) to name the new
master; any other failure still stops it.
"""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from kit.ansible_cli import ansible_env, tool
from kit.paths import COLLECTIONS_DIR

TASKS = os.path.join(COLLECTIONS_DIR, 'ansible_collections', 'ganeti', 'htools', 'roles',
                     'rolling_reboot', 'tasks', 'master_failover_default.yml')
LATE_IP = ('The master IP did not come up within 30 seconds; the cluster should still\n'
           'be working and reachable via node2, but not via the master IP address\n')
PLAY = '''- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.include_tasks: %s
      vars:
        rolling_reboot_new_master: node2
        rolling_reboot_host: localhost
''' % TASKS


def _fake_gnt_cluster(bin_dir, failover_rc, failover_err):
    """`gnt-cluster master-failover` exits failover_rc printing failover_err;
    every call is logged."""
    script = bin_dir / 'gnt-cluster'
    script.write_text('''#!/bin/sh
echo "$@" >> "%(log)s"
case "$1" in
  master-failover) printf '%%s' '%(err)s' >&2; exit %(rc)d ;;
esac
exit 2
''' % {'log': bin_dir / 'calls', 'err': failover_err, 'rc': failover_rc})
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def _run(tmp_path, failover_rc, failover_err=''):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    _fake_gnt_cluster(bin_dir, failover_rc, failover_err)
    (tmp_path / 'play.yml').write_text(PLAY)
    env = dict(ansible_env(), PATH='%s:%s' % (bin_dir, os.environ['PATH']))
    proc = subprocess.run([tool('ansible-playbook'), 'play.yml'], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    calls = (bin_dir / 'calls').read_text().split('\n') if (bin_dir / 'calls').exists() else []
    return proc.returncode, [c for c in calls if c], proc.stdout + proc.stderr


def test_a_clean_failover_goes_on(tmp_path):
    rc, calls, output = _run(tmp_path, 0)
    assert rc == 0, output
    assert calls == ['master-failover']


def test_a_late_master_ip_goes_on_to_the_wait_for_rapi(tmp_path):
    rc, calls, output = _run(tmp_path, 1, LATE_IP)
    assert rc == 0, output
    assert calls == ['master-failover']


@pytest.mark.parametrize('err', ['Failure: prerequisites not met for this operation:\n'
                                 'error type: wrong_state, error details:\nnode2 is not a master candidate\n',
                                 ''])
def test_any_other_failure_stops_the_roll(tmp_path, err):
    rc, calls, output = _run(tmp_path, 1, err)
    assert rc != 0, output
    assert calls == ['master-failover']
