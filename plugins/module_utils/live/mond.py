# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ask every node's monitoring daemon (MonD) for one collector's report.

hbal asks the nodes one after the other, so each silent node costs a whole
timeout.  Here every node is asked at once, each query with its own timeout,
and the whole round is cut off at that timeout too: however many nodes are
down, a round costs about one timeout.
"""

from __future__ import annotations

import concurrent.futures
import json
import urllib.error
import urllib.request

from ..backend.mond import CATEGORY, report_problem
from .endpoints import MOND_PORT
MOND_API_VERSION = 1
# Threads at most; more nodes than this share them (a round then costs
# ceil(nodes / MAX_THREADS) timeouts in the worst case).
MAX_THREADS = 256
# Slack for thread start-up on top of the per-query timeout.
ROUND_SLACK = 1.0


def report_url(node, collector, port=MOND_PORT):
    """Where a node's MonD serves a collector's latest report (plain HTTP, like hbal)."""
    host = "[%s]" % node if ":" in node else node
    return "http://%s:%d/%d/report/%s/%s" % (host, port, MOND_API_VERSION, CATEGORY, collector)


# Never through a proxy from the environment: the nodes are asked directly.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch_report(url, timeout):
    """The report at `url`; raises OSError or ValueError saying what went wrong."""
    with _OPENER.open(url, timeout=timeout) as answer:
        body = answer.read()
    try:
        report = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the answer is not JSON") from None
    problem = report_problem(report)
    if problem:
        raise ValueError(problem)
    return report


def _reason(err, timeout):
    if isinstance(err, urllib.error.HTTPError):
        return "HTTP %d %s" % (err.code, err.reason)
    if isinstance(err, urllib.error.URLError):
        err = err.reason if isinstance(err.reason, Exception) else err
    if isinstance(err, TimeoutError) or "timed out" in str(err):
        return "no answer within %gs" % timeout
    return str(err) or type(err).__name__


def query_monds(nodes, collector, port=MOND_PORT, timeout=10.0, fetch=fetch_report):
    """Ask every node in `nodes` (names) at once.

    Returns ({node: [report]} of the nodes that answered with a report,
    {node: why not} of the others), both in `nodes` order.
    """
    nodes = list(nodes)
    if not nodes:
        return {}, {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(len(nodes), MAX_THREADS),
                                                 thread_name_prefix="mond")
    try:
        futures = {node: pool.submit(fetch, report_url(node, collector, port), timeout)
                   for node in nodes}
        concurrent.futures.wait(futures.values(), timeout=timeout + ROUND_SLACK)
    finally:
        # do not wait for a query still hanging: it has had its time
        pool.shutdown(wait=False, cancel_futures=True)
    reports, failures = {}, {}
    for node, future in futures.items():
        if not future.done():
            failures[node] = "no answer within %gs" % timeout
            continue
        err = future.exception()
        if err is None:
            reports[node] = [future.result()]
        elif isinstance(err, (OSError, ValueError)):
            failures[node] = _reason(err, timeout)
        else:
            raise err
    return reports, failures
