# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan execution and the cluster lock against a simulated Ganeti job queue.

The simulation only models what the executor relies on (jobs that run for a
few polls and end in success or error); tests/integration runs the same code
against a real cluster.
"""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.live import executor
from ansible_collections.ganeti.htools.plugins.module_utils.live import lock
from ansible_collections.ganeti.htools.plugins.module_utils.live import rapi


class FakeCluster:
    """A job queue: each job runs for `duration` polls, then ends as decided by `fails`."""

    def __init__(self, fails=(), duration=2, unreachable_after=None):
        self.jobs = {}
        self.submitted = []          # (job id, call, instance, reason)
        self.fails = set(fails)      # (instance, opcode position) that fail
        self.duration = duration
        self.polls = 0
        self.unreachable_after = unreachable_after
        self.tags = []
        self.op_count = {}

    def _new(self, call, name, reason, result="success"):
        job_id = len(self.jobs) + 1
        self.jobs[job_id] = {"left": self.duration, "result": result}
        self.submitted.append((job_id, call, name, reason))
        return job_id

    def _op(self, call, name, reason):
        pos = self.op_count.get(name, 0) + 1
        self.op_count[name] = pos
        return self._new(call, name, reason, "error" if (name, pos) in self.fails else "success")

    def migrate_instance(self, name, reason=None, **_):
        return self._op("migrate", name, reason)

    def failover_instance(self, name, reason=None, **_):
        return self._op("failover", name, reason)

    def replace_disks(self, name, remote, reason=None, **_):
        return self._op("replace-disks:" + remote, name, reason)

    def job(self, job_id):
        self.polls += 1
        if self.unreachable_after is not None and self.polls > self.unreachable_after:
            raise rapi.RapiUnreachable("GET /2/jobs/%s: cannot connect" % job_id)
        job = self.jobs[job_id]
        if job["left"] > 0:
            job["left"] -= 1
            return {"id": job_id, "status": "running"}
        if job["result"] == "error":
            return {"id": job_id, "status": "error",
                    "opresult": [["OpPrereqError", ["Node is offline", "wrong_state"]]]}
        return {"id": job_id, "status": "success"}

    # tags, for the lock
    def cluster_tags(self):
        return list(self.tags)

    def add_cluster_tags(self, tags, reason=None):
        self.tags.extend(tags)
        return self._new("tag+", None, reason)

    def delete_cluster_tags(self, tags, reason=None):
        self.tags = [t for t in self.tags if t not in tags]
        return self._new("tag-", None, reason)

    def wait_job(self, job_id, timeout=None):
        return {"id": job_id, "status": "success"}


def move(index, instance, steps, jobset):
    ops = []
    for step in steps:
        if step == "r":
            ops.append({"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "instance_name": instance,
                        "mode": "replace_new_secondary", "remote_node": "nodeX", "disks": []})
        else:
            ops.append({"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": instance,
                        "allow_failover": True})
    return {"index": index, "instance": instance, "opcodes": ops, "jobset": jobset}


def plan_of(moves, jobsets):
    return {"moves": moves, "jobsets": jobsets}


PLAN = plan_of([move(1, "i1", "frf", 1), move(2, "i2", "r", 1), move(3, "i3", "f", 2),
                move(4, "i4", "rf", 3)], [[1, 2], [3], [4]])


def run(cluster, plan=None, **kw):
    kw.setdefault("sleep", lambda _s: None)
    return executor.execute_plan(cluster, plan or PLAN, "ganeti.htools:p1", **kw)


def test_every_opcode_runs_once_in_order():
    cluster = FakeCluster()
    report = run(cluster)
    assert report["succeeded"] == [1, 2, 3, 4] and not report["failed"]
    calls = [(name, call) for _id, call, name, _r in cluster.submitted]
    assert [c for n, c in calls if n == "i1"] == ["migrate", "replace-disks:nodeX", "migrate"]
    assert [c for n, c in calls if n == "i4"] == ["replace-disks:nodeX", "migrate"]
    reasons = [r for _i, _c, _n, r in cluster.submitted]
    assert len(reasons) == len(set(reasons)) == 7
    assert all(r.startswith("ganeti.htools:p1:m") for r in reasons)
    # jobset 2 starts only when jobset 1 is complete
    first_of_i3 = next(i for i, (_j, _c, n, _r) in enumerate(cluster.submitted) if n == "i3")
    assert all(n in ("i1", "i2") for _j, _c, n, _r in cluster.submitted[:first_of_i3])


def test_a_failure_stops_new_moves_but_lets_the_running_ones_finish():
    cluster = FakeCluster(fails={("i2", 1)})
    with pytest.raises(executor.ExecutionError) as err:
        run(cluster)
    report = err.value.report
    assert "Node is offline" in str(err.value)
    assert report["failed"] == [2]
    assert report["succeeded"] == [1]           # i1's f r f completed, not left half-moved
    assert report["not_started"] == [3, 4]
    assert {n for _j, _c, n, _r in cluster.submitted} == {"i1", "i2"}


def test_a_failure_inside_a_compound_move_reports_how_far_it_got():
    cluster = FakeCluster(fails={("i1", 2)})
    with pytest.raises(executor.ExecutionError) as err:
        run(cluster)
    rec = err.value.report["moves"][0]
    assert (rec["status"], rec["opcodes_done"], rec["opcodes"]) == ("failed", 1, 3)
    assert len(rec["jobs"]) == 2


def test_max_parallel_bounds_the_moves_in_flight():
    plan = plan_of([move(i, "i%d" % i, "f", 1) for i in range(1, 6)], [[1, 2, 3, 4, 5]])
    cluster = FakeCluster(duration=3)
    in_flight = []
    original = cluster.job

    def spy(job_id):
        running = [j for j, job in cluster.jobs.items() if job["left"] > 0]
        in_flight.append(len(running))
        return original(job_id)

    cluster.job = spy
    run(cluster, plan, max_parallel=2)
    assert max(in_flight) == 2


def test_max_duration_stops_between_jobsets():
    ticks = iter(range(0, 1000, 10))
    cluster = FakeCluster()
    report = run(cluster, max_duration=15, clock=lambda: next(ticks))
    assert report["stopped"] and "max_duration" in report["stopped"]
    assert report["not_started"] and report["succeeded"]
    assert set(report["succeeded"]) | set(report["not_started"]) == {1, 2, 3, 4}


def test_losing_the_cluster_marks_running_moves_unknown_and_submits_nothing_more():
    cluster = FakeCluster(unreachable_after=1)
    with pytest.raises(executor.ExecutionError) as err:
        run(cluster)
    report = err.value.report
    assert "unreachable" in str(err.value)
    assert report["unknown"] == [1, 2]
    assert report["not_started"] == [3, 4]
    assert len(cluster.submitted) == 2


def test_a_job_that_never_ends_stops_the_run_after_the_job_timeout():
    ticks = iter(range(0, 100000, 5))
    cluster = FakeCluster(duration=10 ** 6)
    with pytest.raises(executor.ExecutionError) as err:
        run(cluster, job_timeout=60, clock=lambda: next(ticks))
    report = err.value.report
    assert "not waited for" in str(err.value)
    assert report["unknown"] == [1, 2] and report["not_started"] == [3, 4]
    assert len(cluster.submitted) == 2


def test_lock_is_exclusive_and_released():
    cluster = FakeCluster()
    first = lock.ClusterLock(cluster, ttl=600, owner="a", clock=lambda: 1000).acquire()
    assert cluster.tags == ["ganeti.htools:lock:a:1000:1600"]    # owner:taken:expiry
    with pytest.raises(lock.LockHeld) as err:
        lock.ClusterLock(cluster, ttl=600, owner="b", clock=lambda: 1001).acquire()
    assert "locked by another ganeti.htools run (a), taken 1 seconds ago" in str(err.value)
    assert "force_unlock: true" in str(err.value)
    first.release()
    assert cluster.tags == []


def test_an_expired_lock_is_taken_over():
    cluster = FakeCluster()
    cluster.tags = ["ganeti.htools:lock:dead:900", "unrelated-tag"]
    held = lock.ClusterLock(cluster, ttl=600, owner="b", clock=lambda: 1000).acquire()
    assert sorted(cluster.tags) == ["ganeti.htools:lock:b:1000:1600", "unrelated-tag"]
    held.release()


def test_force_takes_over_a_live_lock_of_a_lost_run():
    cluster = FakeCluster()
    cluster.tags = ["ganeti.htools:lock:lost:400:4000", "unrelated-tag"]
    with pytest.raises(lock.LockHeld) as err:
        lock.ClusterLock(cluster, ttl=600, owner="b", clock=lambda: 1000).acquire()
    assert "(lost), taken 600 seconds ago, for 3000 more seconds" in str(err.value)
    held = lock.ClusterLock(cluster, ttl=600, owner="b", clock=lambda: 1000).acquire(force=True)
    assert sorted(cluster.tags) == ["ganeti.htools:lock:b:1000:1600", "unrelated-tag"]
    held.release()


def test_a_run_that_loses_the_race_for_the_lock_withdraws():
    cluster = FakeCluster()
    original_add = cluster.add_cluster_tags

    def racing_add(tags, reason=None):
        # run "a" adds its tag at the same moment as "b": both saw no lock before
        cluster.tags.append("ganeti.htools:lock:a:1600")
        return original_add(tags, reason)

    cluster.add_cluster_tags = racing_add
    with pytest.raises(lock.LockHeld) as err:
        lock.ClusterLock(cluster, ttl=600, owner="b", clock=lambda: 1000).acquire()
    assert "(a)" in str(err.value)
    assert cluster.tags == ["ganeti.htools:lock:a:1600"]


def test_a_resumed_run_skips_done_moves_and_finishes_a_half_done_one():
    cluster = FakeCluster()
    # an earlier run completed move 2 and the first opcode (migrate) of move 1
    report = run(cluster, progress={1: 1, 2: 1})
    assert report["already_done"] == [2]
    assert report["succeeded"] == [1, 3, 4]
    calls = [(name, call, reason) for _id, call, name, reason in cluster.submitted]
    assert [c for n, c, _r in calls if n == "i1"] == ["replace-disks:nodeX", "migrate"]
    assert not [c for n, c, _r in calls if n == "i2"]
    # the opcodes keep their numbers in the plan: o2 and o3 of move 1
    assert [r for n, _c, r in calls if n == "i1"] == ["ganeti.htools:p1:m1:o2",
                                                      "ganeti.htools:p1:m1:o3"]
    first = report["moves"][0]
    assert (first["resumed_at"], first["opcodes_done"], first["opcodes"]) == (1, 3, 3)
