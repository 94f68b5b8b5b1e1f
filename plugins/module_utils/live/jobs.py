# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one job to its end, submitting it again when the master could not start it.

Just after a master failover, or on a master short of CPU, luxid may fail a
queued job before any of its opcodes ran ("job N failed to start"). Such a
job changed nothing, so it is submitted again after a pause, for about a
quarter of an hour; any other failure is the caller's to handle.
"""

from __future__ import annotations

import time

from .rapi import JobFailed

RESTARTS = 10           # submissions after the first one
RESTART_PAUSE = 10.0    # seconds before the first; the k-th waits k times as long,
RESTART_PAUSE_MAX = 60.0    # but never longer than this
# A busy master can fail every job for minutes: on the vm lab's emulated
# master, starved by other work on its host, the storage gate's jobs failed to
# start for 9 minutes in a row (each failing after luxid's 60 s "Getting the
# lockfile of the client: ... Timeout in reading a response"); with 5
# restarts the roll stopped.  These pauses add up to 450 s, plus luxid's
# minute per failed submission.


def restart_pause(restart):
    """Seconds to wait before the `restart`-th new submission (from 1)."""
    return min(RESTART_PAUSE * restart, RESTART_PAUSE_MAX)


def run_job(client, submit, timeout, restarts=RESTARTS, sleep=None):
    """Submit (`submit()` returns a job id) and wait; returns the finished job.

    `timeout` bounds each submission's wait. Raises JobFailed (the last
    failure) or the client's errors."""
    return wait_restarting(client, submit(), timeout, submit, restarts, sleep)


def wait_restarting(client, job_id, timeout, resubmit, restarts=RESTARTS, sleep=None):
    """Wait for `job_id`; if it failed without starting, `resubmit()` and wait again,
    after restart_pause()'s pause."""
    sleep = sleep or time.sleep
    for attempt in range(restarts + 1):
        try:
            return client.wait_job(job_id, timeout=timeout)
        except JobFailed as err:
            if not err.never_started or attempt == restarts:
                raise
        sleep(restart_pause(attempt + 1))
        job_id = resubmit()
    raise AssertionError("unreachable")
