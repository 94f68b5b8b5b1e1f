# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Calls to the master made side by side.

Submitting a job takes about a second on a busy master, and Ganeti runs jobs
on different nodes or instances side by side: a wave's nodes drained one
after the other, or an instance's disks queried one after the other, cost
the sum of their times where they could cost the longest.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


MAX_PARALLEL = 10   # at once: the RAPI client's connection pool holds ten


def run_parallel(tasks):
    """Run callables side by side (each in a thread of its own, at most
    MAX_PARALLEL at a time) and return their results in order.

    Jobs Ganeti can run side by side then take the time of the slowest, and
    their submissions (a second each on a busy master) overlap too.  Every task
    ends before the first failure is raised, so that no job of ours is left
    running unseen."""
    tasks = list(tasks)
    if len(tasks) <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=min(len(tasks), MAX_PARALLEL)) as pool:
        futures = [pool.submit(task) for task in tasks]
    failures = [f.exception() for f in futures if f.exception() is not None]
    if failures:
        raise failures[0]
    return [f.result() for f in futures]
