# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one job to its end, submitting it again when the master could not start it.

Just after a master failover the new master's luxid may fail a queued job
before any of its opcodes ran ("job N failed to start"). Such a job changed
nothing, so it is submitted again, a few times, after a pause; any other
failure is the caller's to handle.
"""

from __future__ import annotations

import time

from .rapi import JobFailed

RESTARTS = 5            # submissions after the first one
RESTART_PAUSE = 10.0    # seconds before the first; the k-th waits k times as long
# A busy master can fail every job for minutes: on the vm lab's emulated
# master four submissions 10 s apart all failed ("Getting the lockfile of the
# client: ... Timeout in reading a response"); these wait 150 s in all.


def run_job(client, submit, timeout, restarts=RESTARTS, pause=None, sleep=None):
    """Submit (`submit()` returns a job id) and wait; returns the finished job.

    `timeout` bounds each submission's wait. Raises JobFailed (the last
    failure) or the client's errors."""
    return wait_restarting(client, submit(), timeout, submit, restarts, pause, sleep)


def wait_restarting(client, job_id, timeout, resubmit, restarts=RESTARTS, pause=None,
                    sleep=None):
    """Wait for `job_id`; if it failed without starting, `resubmit()` and wait again.
    `pause` (default RESTART_PAUSE) seconds pass before the first new submission,
    twice as long before the second, and so on."""
    pause = RESTART_PAUSE if pause is None else pause
    sleep = sleep or time.sleep
    for attempt in range(restarts + 1):
        try:
            return client.wait_job(job_id, timeout=timeout)
        except JobFailed as err:
            if not err.never_started or attempt == restarts:
                raise
        sleep(pause * (attempt + 1))
        job_id = resubmit()
    raise AssertionError("unreachable")
