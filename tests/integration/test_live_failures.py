# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(d) a job fails in the middle of a plan, (e) RAPI becomes unreachable mid-run."""

from __future__ import annotations

import re
import threading
import time

from kit.lab import LOCK_PREFIX

from ansible_collections.ganeti.htools.plugins.module_utils.live.rapi import RapiClient


class Trigger(threading.Thread):
    """Once a job whose reason contains `marker` exists, run `action` (once)."""

    def __init__(self, lab, marker, action, timeout=120):
        super().__init__(daemon=True)
        self.lab, self.marker, self.action, self.timeout = lab, marker, action, timeout
        self.job = None
        self.error = None
        self.done = threading.Event()

    def run(self):
        try:
            deadline = time.monotonic() + self.timeout
            while self.job is None:
                found = self.lab.jobs_with_reason(self.marker)
                if found:
                    self.job = found[0]
                    break
                if time.monotonic() > deadline:
                    raise AssertionError('no job with reason %s appeared' % self.marker)
                time.sleep(0.1)
            self.action(self.job)
        # the test reports whatever went wrong here
        except Exception as err:  # pylint: disable=broad-except
            self.error = err
        finally:
            self.done.set()


def _plan(lab, tmp_path, **options):
    status, proposal, output = lab.run_module(tmp_path, 'ganeti_balance', options, check=True)
    assert status == 'CHANGED', output
    return proposal['plan']


def _move_jobs(lab, plan_id):
    """{(move, opcode): [job ids]} of the plan's move jobs, from the job queue."""
    found = {}
    for job in lab.jobs_with_reason(plan_id):
        for reason in lab.reasons(job):
            match = re.search(r':m(\d+):o(\d+)(?: |$)', reason)
            if match and reason.startswith('ganeti.htools:%s:' % plan_id):
                found.setdefault((int(match.group(1)), int(match.group(2))), []).append(job['id'])
    return found


def test_a_failed_job_stops_the_plan(fresh, tmp_path):
    lab = fresh
    plan = _plan(lab, tmp_path, max_parallel=1)
    moves = plan['moves']
    assert len(plan['jobsets']) >= 3 and all(len(js) == 1 for js in plan['jobsets']), plan['jobsets']
    first, second = moves[plan['jobsets'][0][0] - 1], moves[plan['jobsets'][1][0] - 1]
    victim = second['new_primary']                 # the target of a later move
    assert victim not in (first['old_primary'], first['new_primary'])

    # While the first move's job waits for its target node (held by a delay
    # job), the collection's own client takes the later move's target offline.
    client = RapiClient(lab.url, lab.user, lab.password, ca_path=lab.ca)

    with lab.hold_node(first['new_primary']) as release:
        def offline(_job):
            job_id = client.set_node_role(victim, 'offline', force=True,
                                          reason='htools-lab:offline-%s' % victim)
            client.wait_job(job_id, timeout=120)
            release()

        trigger = Trigger(lab, '%s:m%d:o1' % (plan['plan_id'], first['index']), offline)
        trigger.start()
        status, result, output = lab.run_module(tmp_path, 'ganeti_balance',
                                                {'plan': plan, 'max_parallel': 1})
        trigger.done.wait(60)
    try:
        assert trigger.error is None, trigger.error
        assert lab.nodes()[victim]['offline'] is True
        assert status == 'FAILED', output
        assert 'Traceback' not in output
        execution = result['execution']
        assert execution['succeeded'] == [first['index']]
        assert execution['failed'] == [second['index']]
        later = [m['index'] for m in moves if m['index'] not in (first['index'], second['index'])]
        assert execution['not_started'] == later and later
        # Ganeti's own error is reported, with the job that failed
        failed = execution['moves'][second['index'] - 1]
        failed_job = lab.job(failed['jobs'][0])
        assert failed_job['status'] == 'error'
        ganeti_error = failed_job['opresult'][0][1][0]
        assert victim in ganeti_error and 'offline' in ganeti_error.lower(), ganeti_error
        assert ganeti_error in failed['error'] and ganeti_error in result['msg']
        assert 'execution stopped after a failed job' in result['msg']

        # nothing after the failure was submitted, nothing ran twice
        by_step = _move_jobs(lab, plan['plan_id'])
        assert sorted(by_step) == [(first['index'], 1), (second['index'], 1)]
        assert all(len(ids) == 1 for ids in by_step.values()), by_step
        for move in execution['moves']:
            assert len(move['jobs']) == len(set(move['jobs'])) == move['opcodes_done'] + (
                1 if move['status'] == 'failed' else 0)
        plan_jobs = lab.jobs_with_reason(plan['plan_id'])
        after_failure = [j for j in plan_jobs if j['id'] > failed_job['id']]
        assert [j['summary'] for j in after_failure] == [['TAGS_DEL']]
        assert lab.placement()[first['instance']] == first['new_primary']
        assert lab.placement()[second['instance']] == second['old_primary']
        assert not lab.lock_tags()                      # the lock was released
    finally:
        lab.set_role(victim, 'master-candidate')        # back online
    assert lab.nodes()[victim]['offline'] is False


def test_losing_rapi_mid_run_reports_jobs_in_unknown_state(fresh, tmp_path):
    lab = fresh
    plan = _plan(lab, tmp_path)
    first = plan['moves'][plan['jobsets'][0][0] - 1]
    relay_pid = lab.relay_pid()
    assert relay_pid

    def cut(job):
        # the first move's job waits behind the delay job; once the module polls
        # it (so it has its id), cut the relay
        deadline = time.monotonic() + 60
        while ('GET', '/2/jobs/%d' % job['id']) not in {c[:2] for c in lab.collection_calls()}:
            assert time.monotonic() < deadline, 'the module never polled job %s' % job['id']
            time.sleep(0.1)
        proc = lab.relay('stop')
        assert proc.returncode == 0, proc.stderr

    with lab.hold_node(first['new_primary']) as release:
        trigger = Trigger(lab, '%s:m%d:o1' % (plan['plan_id'], first['index']), cut)
        trigger.start()
        started = time.monotonic()
        status, result, output = lab.run_module(tmp_path, 'ganeti_balance', {'plan': plan})
        elapsed = time.monotonic() - started
        trigger.done.wait(60)
        assert trigger.error is None, trigger.error
        release()
    try:
        assert status == 'FAILED', output
        assert 'Traceback' not in output and 'MODULE FAILURE' not in output
        job_id = trigger.job['id']
        msg = result['msg']
        assert 'the cluster became unreachable' in msg and 'cannot connect to %s' % lab.url in msg
        assert 'jobs that were running: [%d]' % job_id in msg
        execution = result['execution']
        assert execution['unknown'] == [first['index']]
        assert execution['succeeded'] == [] and execution['failed'] == []
        assert execution['not_started'] == [m['index'] for m in plan['moves']
                                            if m['index'] != first['index']]
        record = execution['moves'][first['index'] - 1]
        assert record['status'] == 'unknown' and record['jobs'] == [job_id]
        assert 'contact lost while job %d was running' % job_id in record['error']
        assert result['changed'] is True          # something may have happened
        # the lock could not be released either: said so, and the tag is left
        assert re.search(r'could not release the cluster lock ganeti\.htools:lock:', output), output
        assert elapsed < 120
    finally:
        proc = lab.relay('start')                 # the same socat command again
        assert proc.returncode == 0, proc.stderr
    assert lab.relay_pid() != relay_pid
    # the job itself went on in the cluster; nothing else of the plan was submitted
    assert lab.wait(job_id)['status'] == 'success'
    assert [j['id'] for j in lab.jobs_with_reason(plan['plan_id'])
            if ':m' in ' '.join(lab.reasons(j))] == [job_id]
    left = lab.lock_tags()
    assert len(left) == 1 and left[0].startswith(LOCK_PREFIX)
    # and the collection reaches the cluster again through the restarted relay
    status, _result, output = lab.run_module(tmp_path, 'ganeti_cluster_info')
    assert status == 'SUCCESS', output
