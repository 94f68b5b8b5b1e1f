#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_cluster_health
short_description: Check that a Ganeti cluster is fit for maintenance
version_added: 0.1.0
description:
  - Reads the cluster once over RAPI and runs the checks asked for, each naming
    every problem it finds -
    C(nodes_online) (no node offline), C(nodes_undrained) (no node drained),
    C(nodes_answer) (every online node's daemon answers the master),
    C(instances_running) (every instance that should run runs),
    C(no_jobs) (no job queued or running), C(n1) (no node fails N+1, as C(hbal)
    computes it), C(disks_in_sync) (every disk of every instance meant to run is
    set up, connected and in sync on each of its nodes, as Ganeti reports it -
    C(gnt-instance info); not run unless asked for).
  - C(disks_in_sync) can re-attach disks first (O(disks_reattach), what Ganeti's
    watcher does minutes after a node reboot) and wait until they are in sync
    (O(disks_wait_timeout)); the result names every disk not in sync, with its
    node and state (not active, not connected, resyncing and how far, degraded).
  - Fails when a check finds a problem, unless O(fail_on_problems=false); the
    result lists the problems either way. Read-only - check mode and normal mode
    are the same.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source.live_only
  - ganeti.htools.rapi
options:
  checks:
    description: The checks to run.
    type: list
    elements: str
    choices: [nodes_online, nodes_undrained, nodes_answer, instances_running, no_jobs, n1,
              disks_in_sync]
    default: [nodes_online, nodes_undrained, nodes_answer, instances_running, no_jobs, n1]
  ignore_nodes:
    description:
      - Nodes expected to be offline or drained (under maintenance); not reported.
      - C(disks_in_sync) leaves out the instances with a disk on them.
    type: list
    elements: str
    default: []
  disks_nodes:
    description:
      - C(disks_in_sync) only - the instances with a disk on one of these nodes
        (as primary or secondary). Omitted - every instance.
    type: list
    elements: str
  disks_reattach:
    description:
      - C(disks_in_sync) only - first activate the disks of every instance with a
        device that is not set up or not connected (C(gnt-instance activate-disks),
        as Ganeti's watcher would after a node reboot), and again every minute
        while waiting if it is still so. A resync in progress is left alone.
      - A change (C(changed=true) when a disk was re-attached); not done in check mode.
    type: bool
    default: false
  disks_wait_timeout:
    description:
      - C(disks_in_sync) only - seconds to wait until every disk is in sync,
        reading their state every O(disks_poll_interval) seconds. C(0) - read once.
    type: int
    default: 0
  disks_poll_interval:
    description: Seconds between two reads of the disks' state while waiting.
    type: int
    default: 10
  disks_job_timeout:
    description: Seconds to wait for each Ganeti job that reads or re-attaches disks.
    type: int
    default: 300
  ignore_job_reasons:
    description:
      - Jobs whose reason trail contains one of these texts do not count for
        C(no_jobs) - one's own jobs, such as C(ganeti.htools:).
    type: list
    elements: str
    default: []
  fail_on_problems:
    description: Fail when a check finds a problem.
    type: bool
    default: true
attributes:
  check_mode:
    description: Read-only, except O(disks_reattach), which check mode does not do.
    support: full
  diff_mode:
    description: Not applicable.
    support: none
seealso:
  - module: ganeti.htools.ganeti_cluster_info
  - module: ganeti.htools.ganeti_node
'''

EXAMPLES = r'''
- name: Stop here unless the cluster is healthy
  ganeti.htools.ganeti_cluster_health:
    rapi_url: https://cluster.example.com:5080

- name: Report only, ignoring the node under maintenance
  ganeti.htools.ganeti_cluster_health:
    ignore_nodes: [node3]
    checks: [nodes_answer, instances_running, n1]
    fail_on_problems: false
  register: health

- name: After a node reboot, re-attach its disks and wait until DRBD has resynced them
  ganeti.htools.ganeti_cluster_health:
    checks: [disks_in_sync]
    disks_nodes: [node3]
    disks_reattach: true
    disks_wait_timeout: 1800
'''

RETURN = r'''
healthy:
  description: Whether every check passed; null in a preview from O(data_file), which checks nothing.
  returned: always
  type: bool
checks:
  description: Per check, C(ok) and C(problems) (one line each).
  returned: always
  type: dict
  sample: {no_jobs: {ok: false, problems: ["job 42 is running (INSTANCE_MIGRATE(web1))"]},
           n1: {ok: true, problems: []}}
disks:
  description:
    - What C(disks_in_sync) found; absent when it did not run.
    - C(checked) - the instances looked at; C(skipped) - instance - why not
      (not meant to run, on an ignored node); C(reattached) - instances whose
      disks were activated; C(waited) - seconds; C(progress) - one line.
    - C(not_in_sync) - one entry per disk and node - C(instance), C(disk) (index),
      C(label), C(node), C(role) (primary, secondary), C(state) (not active, not
      connected, resyncing, degraded ...), C(sync_percent), C(eta) (seconds, when
      Ganeti can tell).
  returned: when disks_in_sync was asked for
  type: dict
  sample: {checked: [drbd1, drbd3], skipped: {}, reattached: [drbd3], waited: 40,
           not_in_sync: [{instance: drbd3, disk: 0, label: disk 0, node: node3, role: secondary,
                          state: resyncing, sync_percent: 45.2, eta: 30}],
           progress: "1 of 4 device(s) not in sync after 40s; slowest: drbd3 disk 0 on node3 (secondary): resyncing 45.2% (about 30s left)"}
summary:
  description: C(healthy (N checks)), or the failing checks with their number of problems.
  returned: always
  type: str
  sample: "unhealthy: no_jobs (1)"
'''

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.disks import (
    DiskCheck, describe_state, progress_line, select_instances)
from ansible_collections.ganeti.htools.plugins.module_utils.live.health import (
    CHECKS, DEFAULT_CHECKS, check_health, describe)
from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import Snapshot
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule


def check_disks(module, client, snapshot):
    """(problems, the `disks` result, whether a disk was re-attached)."""
    params = module.params
    names, skipped = select_instances(snapshot.instances, params["disks_nodes"],
                                      params["ignore_nodes"])
    check = DiskCheck(client, names, job_timeout=params["disks_job_timeout"])
    states, waited = check.run(do_reattach=params["disks_reattach"] and not module.ansible.check_mode,
                               wait=params["disks_wait_timeout"],
                               poll=params["disks_poll_interval"])
    bad = [s for s in states if not s["in_sync"]]
    problems = [describe_state(s) for s in bad] + [check.errors[n] for n in sorted(check.errors)]
    report = {"checked": names, "skipped": skipped, "reattached": check.reattached,
              "waited": waited, "progress": progress_line(states, waited),
              "not_in_sync": [{k: s[k] for k in ("instance", "disk", "label", "node", "role",
                                                 "state", "sync_percent", "eta")} for s in bad]}
    return problems, report, bool(check.reattached)


def main():
    argument_spec = argspecs.combine(
        argspecs.live_only(),
        checks=dict(type="list", elements="str", choices=list(CHECKS),
                    default=list(DEFAULT_CHECKS)),
        ignore_nodes=dict(type="list", elements="str", default=[]),
        ignore_job_reasons=dict(type="list", elements="str", default=[]),
        fail_on_problems=dict(type="bool", default=True),
        disks_nodes=dict(type="list", elements="str"),
        disks_reattach=dict(type="bool", default=False),
        disks_wait_timeout=dict(type="int", default=0),
        disks_poll_interval=dict(type="int", default=10),
        disks_job_timeout=dict(type="int", default=300),
    )
    module = HtoolsModule(argument_spec, needs=("numpy",))
    params = module.params
    for option, least in (("disks_wait_timeout", 0), ("disks_poll_interval", 1),
                          ("disks_job_timeout", 1)):
        if params[option] < least:
            module.fail("%s must be at least %d, not %d" % (option, least, params[option]))
    client, preview = module.live_only_client()
    if preview:
        module.ansible.exit_json(
            changed=False, checks={}, healthy=None,
            summary="not checked: data_file is a saved cluster and the checks (%s) read the "
                    "live one; without check mode they run there" % ", ".join(params["checks"]))
    result = {"changed": False}
    try:
        # a silent node is one of the findings here: 15 seconds of patience,
        # not the minute a planning read waits for it
        snapshot = Snapshot.read(client, retries=3, wait=5.0)
        disk_problems = []
        if "disks_in_sync" in params["checks"]:
            disk_problems, result["disks"], result["changed"] = check_disks(module, client,
                                                                            snapshot)
        jobs = client.jobs() if "no_jobs" in params["checks"] else []
        results = check_health(snapshot, jobs, checks=params["checks"],
                               ignore_nodes=params["ignore_nodes"],
                               ignore_job_reasons=params["ignore_job_reasons"],
                               disk_problems=disk_problems)
    except HtoolsError as err:
        module.fail(err)
    result.update(checks=results, summary=describe(results),
                  healthy=all(r["ok"] for r in results.values()))
    if params["fail_on_problems"] and not result["healthy"]:
        module.fail("the cluster is not healthy: %s" % "; ".join(
            p for r in results.values() for p in r["problems"]), **result)
    module.ansible.exit_json(**result)


if __name__ == "__main__":
    main()
