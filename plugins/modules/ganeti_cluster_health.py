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
    computes it).
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
    choices: [nodes_online, nodes_undrained, nodes_answer, instances_running, no_jobs, n1]
    default: [nodes_online, nodes_undrained, nodes_answer, instances_running, no_jobs, n1]
  ignore_nodes:
    description: Nodes expected to be offline or drained (under maintenance); not reported.
    type: list
    elements: str
    default: []
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
    description: Read-only; the same in check mode.
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
summary:
  description: C(healthy (N checks)), or the failing checks with their number of problems.
  returned: always
  type: str
  sample: "unhealthy: no_jobs (1)"
'''

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.health import (
    CHECKS, check_health, describe)
from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import Snapshot
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule


def main():
    argument_spec = argspecs.combine(
        argspecs.live_only(),
        checks=dict(type="list", elements="str", choices=list(CHECKS), default=list(CHECKS)),
        ignore_nodes=dict(type="list", elements="str", default=[]),
        ignore_job_reasons=dict(type="list", elements="str", default=[]),
        fail_on_problems=dict(type="bool", default=True),
    )
    module = HtoolsModule(argument_spec, needs=("numpy",))
    params = module.params
    client, preview = module.live_only_client()
    if preview:
        module.ansible.exit_json(
            changed=False, checks={}, healthy=None,
            summary="not checked: data_file is a saved cluster and the checks (%s) read the "
                    "live one; without check mode they run there" % ", ".join(params["checks"]))
    try:
        snapshot = Snapshot.read(client)
        jobs = client.jobs() if "no_jobs" in params["checks"] else []
        results = check_health(snapshot, jobs, checks=params["checks"],
                               ignore_nodes=params["ignore_nodes"],
                               ignore_job_reasons=params["ignore_job_reasons"])
    except HtoolsError as err:
        module.fail(err)
    result = {"changed": False, "checks": results, "summary": describe(results),
              "healthy": all(r["ok"] for r in results.values())}
    if params["fail_on_problems"] and not result["healthy"]:
        module.fail("the cluster is not healthy: %s" % "; ".join(
            p for r in results.values() for p in r["problems"]), **result)
    module.ansible.exit_json(**result)


if __name__ == "__main__":
    main()
