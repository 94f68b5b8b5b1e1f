# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Is the cluster fit for maintenance?  Each check names what is wrong.

The checks read one snapshot of the cluster (nodes, instances, jobs) and the
model built from it (N+1, as hbal computes it), and say nothing about
anything they did not look at.
"""

from __future__ import annotations

from ..backend.prepare import prepare_model
from ..errors import HtoolsError
from ..model.records import bad_nodes
from .rapi import FINAL_JOB_STATUSES, reason_trail

# disks_in_sync asks Ganeti for every instance's disk status (a job per
# instance over RAPI): asked for by name, not run by default
DEFAULT_CHECKS = ("nodes_online", "nodes_undrained", "nodes_answer", "instances_running",
                  "no_jobs", "n1")
CHECKS = DEFAULT_CHECKS + ("disks_in_sync",)


class _Selection:          # bad_nodes() wants the nodes of one selection
    def __init__(self, nodes):
        self.nodes = nodes


def check_health(snapshot, jobs, checks=DEFAULT_CHECKS, ignore_nodes=(), ignore_job_reasons=(),
                 disk_problems=()):
    """{check: {"ok": bool, "problems": [text]}} for the `checks` asked for.

    `ignore_nodes` are expected to be offline or drained (a node under
    maintenance); jobs whose reason trail mentions one of `ignore_job_reasons`
    are one's own; `disk_problems` are what live.disks found (disks_in_sync).
    """
    ignored = set(ignore_nodes)
    nodes = [n for n in snapshot.nodes if n["name"] not in ignored]
    problems = {
        "nodes_online": ["%s is offline" % n["name"] for n in nodes if n.get("offline")],
        "nodes_undrained": ["%s is drained" % n["name"] for n in nodes if n.get("drained")],
        "nodes_answer": ["%s does not answer the master (no live data)" % n["name"]
                         for n in nodes if not n.get("offline") and n.get("mfree") is None],
        "instances_running": [
            "%s should run but is %s" % (i["name"], i.get("status"))
            for i in snapshot.instances
            if i.get("admin_state") == "up" and not i.get("oper_state")],
        "no_jobs": ["job %s is %s (%s)" % (j["id"], j["status"], _summary(j)) for j in jobs
                    if j.get("status") not in FINAL_JOB_STATUSES
                    and not _ours(j, ignore_job_reasons)],
        "disks_in_sync": list(disk_problems),
    }
    if "n1" in checks:
        problems["n1"] = _n1(snapshot, ignored)
    return {name: {"ok": not problems[name], "problems": problems[name]} for name in checks}


def _n1(snapshot, ignored):
    try:
        data = snapshot.to_data()
        prepare_model(data)
    except HtoolsError as err:      # a node that does not answer has no figures
        return ["N+1 cannot be computed: %s" % err]
    failing, _insts = bad_nodes(_Selection(data.nodes))
    return ["%s fails N+1 (it could not take over the instances of a failed peer)" % n.name
            for n in failing if n.name not in ignored]


def _summary(job):
    ops = job.get("summary") or []
    return ", ".join(str(op) for op in ops) or "no summary"


def _ours(job, reasons):
    return any(reason in str(text) for reason in reasons for text in reason_trail(job))


def describe(results):
    """'healthy (6 checks)' or 'unhealthy: no_jobs (1), n1 (2)'."""
    bad = ["%s (%d)" % (name, len(r["problems"])) for name, r in results.items() if not r["ok"]]
    if not bad:
        return "healthy (%d checks)" % len(results)
    return "unhealthy: " + ", ".join(bad)
