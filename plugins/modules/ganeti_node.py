#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_node
short_description: Drain, undrain, offline or promote a Ganeti node, manage its tags, wait for it
version_added: 0.1.0
description:
  - Sets a node's role flags (O(drained), O(offline), O(master_candidate)) and tags
    over RAPI, idempotently - only what differs is changed, in one job for the flags
    and one per tag operation - and optionally waits until the master hears from
    the node's daemon again (O(wait_for_live)), as after a reboot.
  - Draining or offlining a master candidate demotes it; with O(auto_promote) (the
    default) Ganeti promotes another node when candidates would run short, instead
    of refusing.
  - The master node's flags cannot be changed (Ganeti does that only by a master
    failover); asking to is an error. Its tags can.
  - In check mode nothing is changed and the result shows the node as it would be.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source.live_only
  - ganeti.htools.rapi
  - ganeti.htools.jobs
  - ganeti.htools.lock_owner
options:
  name:
    description: The node's name, as Ganeti knows it.
    type: str
    required: true
  drained:
    description: Whether the node is drained (takes no new instances). Omitted - left as it is.
    type: bool
  offline:
    description: Whether the node is offline (Ganeti stops talking to it). Omitted - left as it is.
    type: bool
  master_candidate:
    description:
      - Whether the node is a master candidate. Omitted - left as it is.
      - A drained or offline node cannot be one.
    type: bool
  auto_promote:
    description: Let Ganeti promote other nodes when a demotion leaves too few master candidates.
    type: bool
    default: true
  add_tags:
    description: Tags the node must have.
    type: list
    elements: str
    default: []
  remove_tags:
    description: Tags the node must not have.
    type: list
    elements: str
    default: []
  wait_for_live:
    description:
      - After the changes, wait until the node is online and its daemon answers the
        master (its live memory data is present), at most O(wait_timeout) seconds.
    type: bool
    default: false
  wait_timeout:
    description: Seconds O(wait_for_live) waits at most.
    type: int
    default: 900
  job_timeout:
    description: Seconds to wait for each job.
    type: int
    default: 600
attributes:
  check_mode:
    description: Nothing is changed; RV(node) shows the node as it would be.
    support: full
  diff_mode:
    description: Not supported; RV(summary) names every change.
    support: none
notes:
  - Every job carries the reason C(ganeti.htools:ganeti_node).
seealso:
  - module: ganeti.htools.ganeti_evacuate_group
'''

EXAMPLES = r'''
- name: Drain node3 before maintenance
  ganeti.htools.ganeti_node:
    name: node3.example.com
    drained: true

- name: After its reboot, wait until node3 answers, then undrain it and mark it done
  ganeti.htools.ganeti_node:
    name: node3.example.com
    drained: false
    add_tags: [rebooted-2026-11]
    wait_for_live: true
    wait_timeout: 1200
'''

RETURN = r'''
node:
  description:
    - The node after the run (in check mode, as it would be) - C(name), C(master),
      C(drained), C(offline), C(master_candidate), C(tags), C(live) (its daemon
      answers the master), C(group) and C(primary_instances) (names).
  returned: success
  type: dict
  sample: {name: node3, master: false, drained: true, offline: false, master_candidate: false,
           tags: [reboot], live: true, group: default, primary_instances: []}
before:
  description: The node before the run, as RV(node).
  returned: success
  type: dict
summary:
  description: What changed (or would), in one line.
  returned: success
  type: str
  sample: "node3: drained false -> true, master_candidate true -> false"
jobs:
  description: The ids of the jobs this run submitted.
  returned: success
  type: list
  elements: int
'''

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.jobs import run_job
from ansible_collections.ganeti.htools.plugins.module_utils.live.lock import require_lock
from ansible_collections.ganeti.htools.plugins.module_utils.live.node_flags import (
    describe, expected_view, node_changes, node_view, wait_live)
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule

REASON = "ganeti.htools:ganeti_node"


def run(module, client, preview=False):
    params = module.params
    before = node_view(client.node(params["name"]))
    wanted = {flag: params[flag] for flag in ("drained", "offline", "master_candidate")}
    flags, add, remove = node_changes(before, wanted, params["add_tags"], params["remove_tags"])
    result = {"before": before, "node": expected_view(before, flags, add, remove), "jobs": [],
              "changed": bool(flags or add or remove)}
    if result["changed"] and not preview:     # a saved cluster holds no run's lock
        require_lock(client, params["lock_owner"])
    if module.ansible.check_mode:
        return result

    def run(submit):
        def submitted():
            job = submit()
            result["jobs"].append(job)
            return job
        run_job(client, submitted, params["job_timeout"])

    # tags first: a run that marks the nodes it drains (a rolling reboot) finds
    # the mark on every node it drained, even if it was interrupted in between
    if add:
        run(lambda: client.add_node_tags(before["name"], add, reason=REASON))
    if flags:
        run(lambda: client.modify_node(before["name"], reason=REASON,
                                       auto_promote=params["auto_promote"], **flags))
    if remove:
        run(lambda: client.delete_node_tags(before["name"], remove, reason=REASON))
    if params["wait_for_live"]:
        wait_live(client, before["name"], params["wait_timeout"])
    result["node"] = node_view(client.node(before["name"]))
    return result


def main():
    argument_spec = argspecs.combine(
        argspecs.live_only(), argspecs.jobs(), argspecs.lock_owner(),
        argspecs.job_timeout(600),      # a node flag change may migrate or demote
        name=dict(type="str", required=True),
        drained=dict(type="bool"),
        offline=dict(type="bool"),
        master_candidate=dict(type="bool"),
        auto_promote=dict(type="bool", default=True),
        add_tags=dict(type="list", elements="str", default=[]),
        remove_tags=dict(type="list", elements="str", default=[]),
        wait_for_live=dict(type="bool", default=False),
        wait_timeout=dict(type="int", default=900),
    )
    module = HtoolsModule(argument_spec)
    client, preview = module.live_only_client()
    try:
        result = run(module, client, preview)
    except HtoolsError as err:
        module.fail(err)
    result["summary"] = describe(result["before"], result["node"])
    if preview:
        result["summary"] += " (a preview from data_file: the live node was not read)"
    module.ansible.exit_json(**result)


if __name__ == "__main__":
    main()
