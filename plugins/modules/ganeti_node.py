#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_node
short_description: Drain, undrain, offline or promote Ganeti nodes, manage their tags, wait for them
version_added: 0.1.0
description:
  - Sets a node's role flags (O(drained), O(offline), O(master_candidate)) and tags
    over RAPI, idempotently - only what differs is changed, in one job for the flags
    and one per tag operation - and optionally waits until the master hears from
    the node's daemon again (O(wait_for_live)), as after a reboot.
  - With O(nodes) it changes several nodes in one run, each as it is told, side
    by side - each node's tags are added, then its flags set, then its tags
    removed, while the other nodes' jobs run - so a wave of nodes takes about the
    time of one node (a rolling reboot drains and undrains its waves this way).
  - A run's marks (tags C(ganeti.htools:MARK:RUN_ID...), MARK one of C(rolling),
    C(rebooted), C(rebooting), C(skipped), C(candidate), C(master), C(away)) are
    node tags to this module, but Ganeti keeps them as cluster tags with the node's
    name after the run id (C(ganeti.htools:rolling:RUN_ID:NODE)); the marks of all
    the nodes of a run go in one cluster tag job before the nodes' own jobs, and
    their removals in one after them.  Such a mark that an older release left as a
    node tag is removed from the node.
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
    description:
      - The node's name, as Ganeti knows it.
      - Exactly one of O(name) and O(nodes) is required.
    type: str
  nodes:
    description:
      - Several nodes, each with its own changes; the options of the same name at
        the top level apply to every entry that does not set them.
      - Every node is read first; an unknown name, a duplicate or an impossible
        change is refused before any job is submitted.
    type: list
    elements: dict
    suboptions:
      name:
        description: The node's name, as Ganeti knows it.
        type: str
        required: true
      drained:
        description: As the top-level O(drained).
        type: bool
      offline:
        description: As the top-level O(offline).
        type: bool
      master_candidate:
        description: As the top-level O(master_candidate).
        type: bool
      auto_promote:
        description: As the top-level O(auto_promote).
        type: bool
      add_tags:
        description: As the top-level O(add_tags).
        type: list
        elements: str
      remove_tags:
        description: As the top-level O(remove_tags).
        type: list
        elements: str
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
    description:
      - Let Ganeti promote other nodes when a demotion leaves too few master candidates.
      - Only passed on for a master candidate this run demotes, and only when a node
        outside this run's drains could be promoted (master capable, neither a
        candidate, drained nor offline). With it Ganeti locks every node for the job,
        so several drains run one after the other; without such a node it could not
        promote anyone. The demotions of master candidates run after the run's other
        nodes' changes when they could depend on them (when Ganeti is to promote
        someone, or when the run also drains a node that is not a candidate), so that
        Ganeti neither promotes nor counts a node this run is draining.
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

- name: Drain a whole rack at once, node5 with a tag of its own
  ganeti.htools.ganeti_node:
    nodes:
      - name: node4.example.com
      - name: node5.example.com
        add_tags: [maintenance, was-candidate]
      - name: node6.example.com
    drained: true
    add_tags: [maintenance]
'''

RETURN = r'''
node:
  description:
    - The node after the run (in check mode, as it would be) - C(name), C(master),
      C(drained), C(offline), C(master_candidate), C(tags) (with the run marks Ganeti
      keeps for it as cluster tags), C(live) (its daemon answers the master), C(group)
      and C(primary_instances) (names).
  returned: with O(name)
  type: dict
  sample: {name: node3, master: false, drained: true, offline: false, master_candidate: false,
           tags: [reboot], live: true, group: default, primary_instances: []}
before:
  description: The node before the run, as RV(node).
  returned: with O(name)
  type: dict
nodes:
  description: With O(nodes), every node after the run, as RV(node), in the order given.
  returned: with O(nodes)
  type: list
  elements: dict
summary:
  description: What changed (or would), in one line; with O(nodes) one part per node changed.
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
from ansible_collections.ganeti.htools.plugins.module_utils.live.parallel import run_parallel
from ansible_collections.ganeti.htools.plugins.module_utils.live.run_marks import origins
from ansible_collections.ganeti.htools.plugins.module_utils.live.lock import require_lock
from ansible_collections.ganeti.htools.plugins.module_utils.live.node_flags import (
    FLAGS, apply_node_plans, auto_promote_needed, demotes, describe, node_view, plan_node, stages,
    wait_live)
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule

REASON = "ganeti.htools:ganeti_node"
ENTRY_KEYS = FLAGS + ("auto_promote", "add_tags", "remove_tags")


def requests(params):
    """Every node's wanted state: the top-level options, and an entry's own over them."""
    if params["name"] is not None:
        return [dict({k: params[k] for k in ENTRY_KEYS}, name=params["name"])]
    entries = []
    for entry in params["nodes"]:
        entries.append(dict({k: params[k] if entry.get(k) is None else entry[k] for k in ENTRY_KEYS},
                            name=entry["name"]))
    names = [e["name"] for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise HtoolsError("nodes names a node more than once: %s" % ", ".join(twice))
    return entries


def read_nodes(client, names, cluster=None):
    """{name: node} of the named nodes as the client gives them: from `cluster`
    (the list of every node) when given, else one read of the node alone, or
    of them all for several."""
    if cluster is None and len(names) == 1:
        return {names[0]: client.node(names[0])}
    known = {node["name"]: node for node in (client.nodes() if cluster is None else cluster)}
    missing = [n for n in names if n not in known]
    if missing:
        raise HtoolsError("no such node: %s" % ", ".join(missing))
    return {n: known[n] for n in names}


def read_views(client, names, cluster=None):
    """{name: view} of the named nodes (read_nodes)."""
    return {n: node_view(node) for n, node in read_nodes(client, names, cluster).items()}


def run(module, client, preview=False):
    params = module.params
    entries = requests(params)
    names = [e["name"] for e in entries]
    # every node, read once: the named ones' views, and whom Ganeti could promote
    cluster = client.nodes() if len(names) > 1 else None
    read = read_nodes(client, names, cluster)
    views = {n: node_view(node) for n, node in read.items()}
    # where each node's run marks are kept (cluster tags, or the node's own)
    kept = {n: origins(node) for n, node in read.items()}
    plans = [plan_node(views[e["name"]], {k: e[k] for k in FLAGS}, e["add_tags"], e["remove_tags"])
             for e in entries]
    changed = any(p["changes"] for p in plans)
    result = {"plans": plans, "jobs": [], "changed": changed}
    if changed and not preview:     # a saved cluster holds no run's lock
        require_lock(client, params["lock_owner"])
    if module.ansible.check_mode:
        return result

    def run_one(submit):
        def submitted():
            job_id = submit()
            result["jobs"].append(job_id)
            return job_id
        run_job(client, submitted, params["job_timeout"])

    # auto_promote only where it can promote someone: with it Ganeti locks every node
    if cluster is None and any(map(demotes, plans)):
        cluster = client.nodes()
    needed = auto_promote_needed(plans, cluster or [])
    promote = {e["name"]: e["auto_promote"] and needed[e["name"]] for e in entries}
    for stage in stages(plans, promote):
        apply_node_plans(client, stage, run_one, REASON, promote, kept)
    if params["wait_for_live"]:
        run_parallel([(lambda p=p: wait_live(client, p["before"]["name"], params["wait_timeout"]))
                      for p in plans])
    result["jobs"].sort()
    after = read_views(client, [p["before"]["name"] for p in plans])
    for plan in plans:
        plan["after"] = after[plan["before"]["name"]]
    return result


def outcome(plans, single, preview):
    """The module's result keys from the node plans."""
    if single:
        plan = plans[0]
        out = {"before": plan["before"], "node": plan["after"],
               "summary": describe(plan["before"], plan["after"])}
    else:
        parts = [describe(p["before"], p["after"]) for p in plans
                 if p["before"] != p["after"]]
        unchanged = len(plans) - len(parts)
        if unchanged:
            parts.append("%d node(s) unchanged" % unchanged)
        out = {"nodes": [p["after"] for p in plans], "summary": "; ".join(parts)}
    if preview:
        out["summary"] += " (a preview from data_file: the live node was not read)"
    return out


def main():
    entry = dict(
        name=dict(type="str", required=True),
        drained=dict(type="bool"),
        offline=dict(type="bool"),
        master_candidate=dict(type="bool"),
        auto_promote=dict(type="bool"),
        add_tags=dict(type="list", elements="str"),
        remove_tags=dict(type="list", elements="str"),
    )
    argument_spec = argspecs.combine(
        argspecs.live_only(), argspecs.jobs(), argspecs.lock_owner(),
        argspecs.job_timeout(600),      # a node flag change may migrate or demote
        name=dict(type="str"),
        nodes=dict(type="list", elements="dict", options=entry),
        drained=dict(type="bool"),
        offline=dict(type="bool"),
        master_candidate=dict(type="bool"),
        auto_promote=dict(type="bool", default=True),
        add_tags=dict(type="list", elements="str", default=[]),
        remove_tags=dict(type="list", elements="str", default=[]),
        wait_for_live=dict(type="bool", default=False),
        wait_timeout=dict(type="int", default=900),
    )
    module = HtoolsModule(argument_spec, mutually_exclusive=[("name", "nodes")],
                          required_one_of=[("name", "nodes")])
    client, preview = module.live_only_client()
    try:
        result = run(module, client, preview)
    except HtoolsError as err:
        module.fail(err)
    out = outcome(result.pop("plans"), module.params["name"] is not None, preview)
    module.ansible.exit_json(**dict(result, **out))


if __name__ == "__main__":
    main()
