# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Execute a plan over RAPI or LUXI, jobset by jobset, stopping safely.

Rules:
* jobsets run one after the other; the moves of a jobset run in parallel,
  at most `max_parallel` at a time;
* a move's opcodes (f r f, r f, f r) run in sequence: over LUXI as one job
  per move (as hbal -X submits them, so `gnt-job list` reads as the plan);
  over RAPI, which has no resource for a job of several opcodes, each as
  its own job submitted after the previous one succeeded (the client's
  `ops_per_job` says which);
* after the first failure no new move starts; moves already under way finish
  their remaining opcodes, so no instance is left half-moved by a step we
  could complete (a failed step itself leaves what Ganeti left);
* `max_duration` is checked between jobsets only: a jobset is never cut.
"""

from __future__ import annotations

import time

from ..errors import HtoolsError
from .jobs import RESTARTS, restart_pause, wait_restarting
from .parallel import run_parallel
from .rapi import (FINAL_JOB_STATUSES, RapiError, RapiSubmissionUnknown, job_error_text,
                   job_never_started)

SUCCESS, FAILED, NOT_STARTED, RUNNING, UNKNOWN, ALREADY_DONE = (
    "success", "failed", "not_started", "running", "unknown", "already_done")


class ExecutionError(HtoolsError):
    """The plan could not be executed completely; `report` says how far it got."""

    def __init__(self, message, report):
        self.report = report
        super().__init__(message)


def _replace_disks(client, name, params, reason):
    params = dict(params)
    remote = params.pop("remote_node")
    params.pop("mode", None)        # RAPI's replace-disks with remote_node is this mode
    return client.replace_disks(name, remote, reason=reason, **params)


# How each opcode a planner emits is submitted over RAPI, keyed by OP_ID.
SUBMITTERS = {
    "OP_INSTANCE_MIGRATE":
        lambda client, name, params, reason: client.migrate_instance(name, reason=reason,
                                                                     **params),
    "OP_INSTANCE_FAILOVER":
        lambda client, name, params, reason: client.failover_instance(name, reason=reason,
                                                                      **params),
    "OP_INSTANCE_REPLACE_DISKS": _replace_disks,
}


def submit_opcode(client, op, reason):
    """Submit one planned opcode as the matching RAPI job; returns the job id."""
    submit = SUBMITTERS.get(op["OP_ID"])
    if submit is None:
        raise HtoolsError("cannot execute opcode %s" % op["OP_ID"])
    params = {k: v for k, v in op.items() if k not in ("OP_ID", "instance_name")}
    return submit(client, op["instance_name"], params, reason)


class _Move:
    def __init__(self, move, done=0):
        self.move = move
        self.index = move["index"]
        self.ops = move["opcodes"]
        self.step = done        # opcodes an earlier, interrupted run completed
        self.job = None
        self.batch = 0          # opcodes in the current job
        self.since = None       # when the current job was submitted
        self.restarts = 0       # jobs submitted again: the master could not start them
        self.record = {"index": self.index, "instance": move["instance"],
                       "status": ALREADY_DONE if done >= len(self.ops) else NOT_STARTED,
                       "jobs": [], "opcodes_done": done, "opcodes": len(self.ops),
                       "resumed_at": done, "error": None}


def execute_plan(client, plan, reason, max_parallel=4, max_duration=None, poll=1.0,
                 clock=time.monotonic, sleep=time.sleep, job_timeout=None, progress=None):
    """Run the plan's moves; returns the report, or raises ExecutionError with it.

    A job still running after `job_timeout` seconds is left to Ganeti and
    counts as a failure with an unknown outcome: nothing more is submitted.
    `progress` ({move index: opcodes done}) resumes an interrupted run: done
    moves are skipped, a move stopped halfway continues with its next opcode.
    """
    progress = progress or {}
    moves = {m["index"]: _Move(m, progress.get(m["index"], 0)) for m in plan["moves"]}
    started = clock()
    stop = None          # why no further jobset starts
    failure = None
    done_sets = 0
    for number, jobset in enumerate(plan["jobsets"], start=1):
        if failure:
            break
        if max_duration is not None and clock() - started >= max_duration:
            stop = "max_duration reached after %d of %d jobsets" % (done_sets, len(plan["jobsets"]))
            break
        queue = [moves[i] for i in jobset if moves[i].record["status"] != ALREADY_DONE]
        active = []
        try:
            while queue or active:
                while queue and not failure and len(active) < max(1, max_parallel):
                    mv = queue.pop(0)
                    failure = _advance(client, mv, reason, number) or failure
                    mv.since = clock()
                    if mv.record["status"] == RUNNING:
                        active.append(mv)
                if failure:
                    queue = []
                progressed = False
                for mv in list(active):
                    job = client.job(mv.job)
                    status = job.get("status")
                    if status not in FINAL_JOB_STATUSES:
                        if job_timeout is not None and clock() - mv.since > job_timeout:
                            mv.record["status"] = UNKNOWN
                            mv.record["error"] = ("job %s still %s after %ss; not waited for"
                                                  % (mv.job, status, job_timeout))
                            failure = failure or mv.record["error"]
                            active.remove(mv)
                        continue
                    progressed = True
                    if status == SUCCESS:
                        mv.step += mv.batch
                        mv.record["opcodes_done"] = mv.step
                        if mv.step < len(mv.ops):
                            failure = _advance(client, mv, reason, number) or failure
                            mv.since = clock()
                        else:
                            mv.record["status"] = SUCCESS
                    elif job_never_started(job) and mv.restarts < RESTARTS:
                        mv.restarts += 1
                        sleep(restart_pause(mv.restarts))
                        failure = _advance(client, mv, reason, number) or failure
                        mv.since = clock()
                    else:
                        # a job of several opcodes may have got part of the way
                        mv.step += _succeeded_opcodes(job, mv.batch)
                        mv.record["opcodes_done"] = mv.step
                        mv.record["status"] = FAILED
                        mv.record["error"] = "job %s %s: %s" % (mv.job, status,
                                                                job_error_text(job))
                        failure = failure or mv.record["error"]
                    if mv.record["status"] != RUNNING:
                        active.remove(mv)
                if active and not progressed:
                    sleep(poll)
        except RapiError as err:
            # Lost contact: what runs now is unknown; submit nothing more.
            for mv in active:
                mv.record["status"] = UNKNOWN
                mv.record["error"] = "contact lost while job %s was running: %s" % (mv.job, err)
            lost = ["move %d (%s)" % (mv.index, mv.record["instance"]) for mv in moves.values()
                    if mv.record["status"] == UNKNOWN and mv not in active]
            report = _report(moves, stop)
            raise ExecutionError("execution stopped, the cluster became unreachable: %s; "
                                 "jobs that were running: %s%s"
                                 % (err, [mv.job for mv in active],
                                    "; submitted, answer lost: %s" % ", ".join(lost)
                                    if lost else ""), report)
        if not failure:
            done_sets += 1
    report = _report(moves, stop)
    if failure:
        raise ExecutionError("execution stopped after a failed job: %s" % failure, report)
    return report


def _succeeded_opcodes(job, batch):
    """How many of a failed job's first opcodes succeeded (0 if not known)."""
    done = 0
    for status in (job.get("opstatus") or [])[:batch]:
        if status != SUCCESS:
            break
        done += 1
    return done if done < batch else 0


def _advance(client, mv, reason, jobset):
    """Submit the move's next job; returns an error text when that fails."""
    per_job = getattr(client, "ops_per_job", 1)
    ops = mv.ops[mv.step:] if per_job is None else mv.ops[mv.step:mv.step + per_job]
    op = ops[0]
    # the tag names the job's first opcode: unique within the plan
    tag = "%s:m%d:o%d" % (reason, mv.index, mv.step + 1)
    try:
        if hasattr(client, "submit_job"):
            mv.job = client.submit_job(ops, tag)
        else:
            mv.job = submit_opcode(client, op, tag)
        mv.batch = len(ops)
    except RapiSubmissionUnknown as err:
        if not err.may_exist:
            mv.record["status"] = FAILED
            mv.record["error"] = "submitting %s (jobset %d) failed: %s" % (op["OP_ID"], jobset, err)
            return mv.record["error"]
        # the job may be running: the cluster became unreachable (handled by the caller)
        mv.record["status"] = UNKNOWN
        mv.record["error"] = "submitting %s (jobset %d): %s" % (op["OP_ID"], jobset, err)
        raise
    except RapiError as err:
        mv.record["status"] = FAILED
        mv.record["error"] = "submitting %s (jobset %d) failed: %s" % (op["OP_ID"], jobset, err)
        return mv.record["error"]
    mv.record["jobs"].append(mv.job)
    mv.record["status"] = RUNNING
    return None


def _report(moves, stop):
    records = [mv.record for mv in sorted(moves.values(), key=lambda m: m.index)]
    by_status = {}
    for rec in records:
        by_status.setdefault(rec["status"], []).append(rec["index"])
    return {
        "moves": records,
        "succeeded": by_status.get(SUCCESS, []),
        "failed": by_status.get(FAILED, []),
        "not_started": by_status.get(NOT_STARTED, []),
        "unknown": by_status.get(UNKNOWN, []),
        "already_done": by_status.get(ALREADY_DONE, []),
        "stopped": stop,
    }


def submit_then_wait(client, moves, submit, timeout):
    """Submit one job per move (`submit(move)` returns its id), then wait for
    each in turn: for moves that do not depend on each other (migrations off
    or back onto nodes).  Each move gets its `job` and `status`; returns the
    failed ones as [(move, error text)]."""
    # side by side: each submission takes about a second on a busy master
    for move, job_id in zip(moves, run_parallel([(lambda m=m: submit(m)) for m in moves])):
        move["job"] = job_id
    failed = []
    for move in moves:
        def again(move=move):
            move["job"] = submit(move)
            return move["job"]
        try:
            wait_restarting(client, move["job"], timeout, again)
            move["status"] = SUCCESS
        except HtoolsError as err:
            move["status"] = FAILED
            failed.append((move, str(err)))
    return failed
