# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(h) The collection's RAPI client, directly, for the calls the modules cannot
reach on this lab: failover (only for forthcoming instances), replace-disks
(DRBD only: here Ganeti's refusal must surface cleanly), GET /version, the
lost-submission lookup, the read-only fallback of wait_job."""

from __future__ import annotations

import uuid

import pytest
import requests

from ansible_collections.ganeti.htools.plugins.module_utils.live import executor
from ansible_collections.ganeti.htools.plugins.module_utils.live import rapi


def client(lab, session=None, user=None, password=None):
    return rapi.RapiClient(lab.url, user or lab.user, password or lab.password, ca_path=lab.ca,
                           session=session)


def reason(what):
    return 'htools-lab:%s:%s' % (what, uuid.uuid4().hex[:8])


class LoseAnswer(requests.Session):
    """A session whose first job submission reaches the cluster but whose answer
    is lost; with `then_down`, every later request fails too (relay gone)."""

    def __init__(self, then_down=False):
        super().__init__()
        self.then_down = then_down
        self.down = False
        self.lost = []
        self.methods = []

    def request(self, method, url, *args, **kwargs):  # pylint: disable=arguments-differ
        self.methods.append(method)
        if self.down:
            raise requests.exceptions.ConnectionError('connection refused (relay gone)')
        response = super().request(method, url, *args, **kwargs)
        if method != 'GET' and not self.lost:
            self.lost.append(response.json())
            self.down = self.then_down
            raise requests.exceptions.ConnectionError('connection reset; the answer was lost')
        return response


def test_reads_and_version(lab):
    cli = client(lab)
    assert cli.version() == 2
    assert cli.info()['name'] == 'cluster'
    assert sorted(n['name'] for n in cli.nodes()) == sorted(lab.nodes())
    assert sorted(i['name'] for i in cli.instances()) == sorted(lab.instances())
    assert [g['name'] for g in cli.groups()] == ['default']
    assert isinstance(cli.cluster_tags(), list)
    # Ganeti 3.0.2 answers an unknown job id with 200 and null fields
    with pytest.raises(rapi.RapiNotFound) as err:
        cli.job(987654)
    assert 'no such job' in str(err.value)


def test_failover_and_wait_job(fresh):
    lab = fresh
    cli = client(lab)
    why = reason('failover')
    job_id = cli.failover_instance('instance5', target_node='node3', reason=why,
                                   shutdown_timeout=30, ignore_consistency=False)
    job = cli.wait_job(job_id, timeout=120)           # long poll on /2/jobs/ID/wait
    assert job['status'] == 'success' and job['summary'] == ['INSTANCE_FAILOVER(instance5)']
    assert why in lab.reasons(lab.job(job_id))
    assert lab.placement()['instance5'] == 'node3'
    assert lab.instances()['instance5']['status'] == 'running'

    # a user without 'write' cannot long-poll (403): wait_job falls back to polling
    reader = client(lab, user=lab.ro_user, password=lab.ro_password)
    assert reader.wait_job(job_id, timeout=30, poll=0.2)['id'] == job_id


def test_replace_disks_refusal_surfaces_as_job_failed(fresh):
    lab = fresh
    cli = client(lab)
    job_id = cli.replace_disks('instance4', 'node3', reason=reason('replace-disks'),
                               early_release=False, ignore_ipolicy=False)
    with pytest.raises(rapi.JobFailed) as err:
        cli.wait_job(job_id, timeout=120)
    failure = err.value
    assert isinstance(failure, rapi.RapiError)
    assert failure.job_id == job_id and failure.job_status == 'error'
    assert failure.op_result[0][0] == 'OpPrereqError'
    message = failure.op_result[0][1][0]
    assert 'expected one secondary but found 0' in message
    assert message in str(failure)
    assert lab.job(job_id)['ops'][0]['mode'] == 'replace_new_secondary'

    # the same opcode, planned as a move and run by the executor: a clean failure
    plan = {'moves': [{'index': 1, 'instance': 'instance4', 'opcodes': [
        {'OP_ID': 'OP_INSTANCE_REPLACE_DISKS', 'instance_name': 'instance4',
         'early_release': False, 'ignore_ipolicy': False, 'mode': 'replace_new_secondary',
         'disks': [], 'remote_node': 'node3'}]}], 'jobsets': [[1]]}
    with pytest.raises(executor.ExecutionError) as err:
        executor.execute_plan(cli, plan, reason('executor'), poll=0.2)
    report = err.value.report
    assert report['failed'] == [1] and report['succeeded'] == []
    assert 'expected one secondary but found 0' in report['moves'][0]['error']
    assert 'execution stopped after a failed job' in str(err.value)
    assert set(lab.placement().values()) == {'node1'}


def test_a_lost_submission_answer_is_recovered_without_resubmitting(fresh):
    lab = fresh
    session = LoseAnswer()
    cli = client(lab, session=session)
    why = reason('lost-answer')
    job_id = cli.migrate_instance('instance1', target_node='node2', reason=why, mode='live')
    assert session.lost == [job_id]                    # the id the cluster had answered
    assert session.methods == ['PUT', 'GET']           # GET /2/jobs?bulk=1, no second PUT
    assert [j['id'] for j in lab.jobs_with_reason(why)] == [job_id]
    assert lab.wait(job_id)['status'] == 'success'


def test_a_lost_answer_with_the_cluster_gone_is_unknown_not_failed(fresh):
    lab = fresh
    session = LoseAnswer(then_down=True)
    cli = rapi.RapiClient(lab.url, lab.user, lab.password, ca_path=lab.ca, session=session,
                          sleep=lambda _s: None)
    why = reason('lost-and-gone')
    with pytest.raises(rapi.RapiSubmissionUnknown) as err:
        cli.migrate_instance('instance1', target_node='node2', reason=why, mode='live')
    assert err.value.may_exist is True
    assert 'could not be searched' in str(err.value) and why in str(err.value)
    assert session.methods.count('PUT') == 1
    # it was queued all the same, exactly once
    jobs = lab.jobs_with_reason(why)
    assert [j['id'] for j in jobs] == session.lost
    assert lab.wait(jobs[0]['id'])['status'] == 'success'
