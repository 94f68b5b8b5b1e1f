# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A controller killed mid-plan: the same plan, run again, finishes the job exactly once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

from kit.lab import LOCK_PREFIX
from kit.processes import descendants


def _move_jobs(lab, plan_id):
    """{(move, opcode): [job ids]} of the plan's move jobs."""
    found = {}
    for job in lab.jobs_with_reason(plan_id):
        for reason in lab.reasons(job):
            match = re.search(r':m(\d+):o(\d+)(?: |$)', reason)
            if match and reason.startswith('ganeti.htools:%s:' % plan_id):
                found.setdefault((int(match.group(1)), int(match.group(2))), []).append(job['id'])
    return found


def _kill_tree(pid):
    """SIGKILL `pid` and every process below it (ansible starts the module in its
    own session, so killing the process group is not enough)."""
    for victim in [pid] + descendants(pid):
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_killed_run_is_resumed_with_the_same_plan(fresh, tmp_path):
    lab = fresh
    status, proposal, output = lab.run_module(tmp_path, 'ganeti_balance', {'max_parallel': 1},
                                              check=True)
    assert status == 'CHANGED', output
    plan = proposal['plan']
    assert len(plan['jobsets']) >= 3, plan['jobsets']
    second = plan['moves'][plan['jobsets'][1][0] - 1]

    # The controller dies (SIGKILL to ansible and the module process) while
    # the second jobset's move waits for its target node (held by a delay
    # job): no clean-up runs at all, and that job goes on in Ganeti.
    with lab.hold_node(second['new_primary']) as release:
        proc = subprocess.Popen(
            lab.module_cmd('ganeti_balance', {'plan': plan, 'max_parallel': 1}),
            cwd=str(tmp_path), env=lab.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        marker = '%s:m%d:o1' % (plan['plan_id'], second['index'])
        deadline = time.monotonic() + 300
        while not lab.jobs_with_reason(marker):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, 'the second jobset never started'
            time.sleep(0.2)
        _kill_tree(proc.pid)
        proc.communicate(timeout=60)
        release()
    lab.wait_idle()
    done_before = sorted([m['index'] for m in plan['moves'] if m['jobset'] == 1]
                         + [second['index']])
    assert sorted({m for m, _o in _move_jobs(lab, plan['plan_id'])}) == done_before
    left = lab.lock_tags()
    assert len(left) == 1 and left[0].startswith(LOCK_PREFIX)      # the lost run's lock

    # Running again: the lock of the lost run is named, with its age ...
    status, refused, output = lab.run_module(tmp_path, 'ganeti_balance', {'plan': plan})
    assert status == 'FAILED', output
    assert 'locked by another ganeti.htools run' in refused['msg']
    assert 'seconds ago' in refused['msg'] and 'force_unlock: true' in refused['msg']
    assert refused['resumed']['moves_done'] == done_before

    # ... and taken over on request: the plan is finished, nothing runs twice.
    status, done, output = lab.run_module(tmp_path, 'ganeti_balance',
                                          {'plan': plan, 'force_unlock': True})
    assert status == 'CHANGED', output
    execution = done['execution']
    assert execution['already_done'] == done['resumed']['moves_done']
    assert sorted(execution['already_done'] + execution['succeeded']) == \
        [m['index'] for m in plan['moves']]
    assert not execution['failed'] and not execution['unknown']
    by_step = _move_jobs(lab, plan['plan_id'])
    expected = sorted((m['index'], k + 1) for m in plan['moves'] for k in range(len(m['opcodes'])))
    assert sorted(by_step) == expected
    assert all(len(ids) == 1 for ids in by_step.values()), by_step
    placement = lab.placement()
    for move in plan['moves']:
        final = [m for m in plan['moves'] if m['instance'] == move['instance']][-1]
        assert placement[move['instance']] == final['new_primary']
    assert not lab.lock_tags()
    # the cluster is where the plan leads: nothing left to do
    status, again, output = lab.run_module(tmp_path, 'ganeti_balance', {'plan': plan},
                                           check=True)
    assert again['resumed']['moves_done'] == [m['index'] for m in plan['moves']], output
