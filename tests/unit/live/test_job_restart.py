# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Jobs the master could not start are submitted again; other failures are not.

Just after a master failover, the new master's luxid can fail a queued job
before it starts: every opcode ends in error with a plain message ("job N
failed to start: ..."), and the job has no start time.  The job shapes below
are those Ganeti's RAPI returns for /2/jobs/ID (fields id, status, opstatus,
opresult, start_ts); the vm lab's rolling reboot meets the real one.
"""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.live import executor, jobs, rapi


def not_started(job_id):
    return {"id": job_id, "status": "error", "start_ts": None, "opstatus": ["error"],
            "opresult": ["job %d failed to start: ResultError \"fork failed\"" % job_id]}


def failed_while_running(job_id):
    return {"id": job_id, "status": "error", "start_ts": [1, 0], "opstatus": ["error"],
            "opresult": [["OpPrereqError", ["Node is offline", "wrong_state"]]]}


class Queue:
    """Jobs end at once; the first `unstartable` submissions fail to start."""

    def __init__(self, unstartable=0, failing=()):
        self.unstartable = unstartable
        self.failing = set(failing)      # instances whose jobs fail while running
        self.submitted = []              # (job id, what)

    def submit(self, what):
        self.submitted.append((len(self.submitted) + 1, what))
        return len(self.submitted)

    def job(self, job_id):
        what = self.submitted[job_id - 1][1]
        if job_id <= self.unstartable:
            return not_started(job_id)
        if what in self.failing:
            return failed_while_running(job_id)
        return {"id": job_id, "status": "success", "start_ts": [1, 0], "opstatus": ["success"],
                "opresult": [None]}

    def wait_job(self, job_id, timeout=None):
        job = self.job(job_id)
        if job["status"] != "success":
            raise rapi.JobFailed(job_id, job)
        return job

    def migrate_instance(self, name, reason=None, **_):
        return self.submit(name)


def test_a_job_that_never_started_is_recognised_and_explained():
    assert rapi.job_never_started(not_started(7))
    assert not rapi.job_never_started(failed_while_running(7))
    err = rapi.JobFailed(7, not_started(7))
    assert err.never_started
    assert "job 7 failed to start" in str(err)          # not "no error message"


def test_run_job_submits_again_until_the_master_starts_it():
    queue, pauses = Queue(unstartable=2), []
    job = jobs.run_job(queue, lambda: queue.submit("drain node2"), 60, sleep=pauses.append)
    assert job["id"] == 3 and job["status"] == "success"
    assert [what for _id, what in queue.submitted] == ["drain node2"] * 3
    assert pauses == [jobs.RESTART_PAUSE, 2 * jobs.RESTART_PAUSE]       # backing off


def test_a_master_that_starts_no_job_for_minutes_is_waited_for_with_capped_pauses():
    # the vm lab's starved master failed 8 submissions in a row, then started the 9th
    queue, pauses = Queue(unstartable=8), []
    job = jobs.run_job(queue, lambda: queue.submit("query disks"), 60, sleep=pauses.append)
    assert job["id"] == 9
    assert pauses == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 60.0, 60.0]


def test_run_job_gives_up_after_ten_restarts():
    queue, pauses = Queue(unstartable=100), []
    with pytest.raises(rapi.JobFailed, match="failed to start"):
        jobs.run_job(queue, lambda: queue.submit("drain"), 60, sleep=pauses.append)
    assert len(queue.submitted) == 1 + jobs.RESTARTS == 11
    assert sum(pauses) == 450.0


def test_run_job_gives_up_after_its_restarts():
    queue = Queue(unstartable=10)
    with pytest.raises(rapi.JobFailed, match="failed to start"):
        jobs.run_job(queue, lambda: queue.submit("drain"), 60, restarts=2, sleep=lambda _s: None)
    assert len(queue.submitted) == 3


def test_a_job_that_failed_while_running_is_never_submitted_again():
    queue = Queue(failing={"drain"})
    with pytest.raises(rapi.JobFailed, match="Node is offline"):
        jobs.run_job(queue, lambda: queue.submit("drain"), 60, sleep=lambda _s: None)
    assert len(queue.submitted) == 1


def test_the_executor_submits_a_move_again_when_its_job_never_started():
    queue = Queue(unstartable=1)
    plan = {"moves": [{"index": 1, "instance": "inst1",
                       "opcodes": [{"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": "inst1"}]}],
            "jobsets": [[1]]}
    report = executor.execute_plan(queue, plan, "r", sleep=lambda _s: None)
    assert report["succeeded"] == [1]
    assert report["moves"][0]["jobs"] == [1, 2]


def test_the_executor_stops_on_a_move_that_failed_while_running():
    queue = Queue(failing={"inst1"})
    plan = {"moves": [{"index": 1, "instance": "inst1",
                       "opcodes": [{"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": "inst1"}]}],
            "jobsets": [[1]]}
    with pytest.raises(executor.ExecutionError, match="Node is offline") as err:
        executor.execute_plan(queue, plan, "r", sleep=lambda _s: None)
    assert err.value.report["moves"][0]["jobs"] == [1]


def test_migrations_submitted_together_restart_only_the_one_that_never_started(monkeypatch):
    monkeypatch.setattr(jobs, "RESTART_PAUSE", 0.0)
    queue = Queue(unstartable=1)
    moves = [{"instance": "a"}, {"instance": "b"}]
    failed = executor.submit_then_wait(queue, moves, lambda m: queue.submit(m["instance"]), 60)
    assert failed == []
    assert [what for _id, what in queue.submitted] == ["a", "b", "a"]
    assert moves[0]["job"] == 3 and moves[1]["job"] == 2
