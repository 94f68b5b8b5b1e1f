# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's role flags and tags: what it has, and what must change to reach what is wanted."""

from __future__ import annotations

import time

from ..errors import HtoolsError
from . import run_marks
from .parallel import run_parallel

FLAGS = ("drained", "offline", "master_candidate")


def node_view(node):
    """The parts of a RAPI node (GET /2/nodes/NAME) that ganeti_node manages."""
    offline = bool(node.get("offline"))
    return {
        "name": node["name"],
        "master": node.get("role") == "M",
        "drained": bool(node.get("drained")),
        "offline": offline,
        "master_candidate": bool(node.get("master_candidate")),
        "tags": sorted(node.get("tags") or []),
        # the node daemon answered the master: live memory data is present
        "live": not offline and node.get("mfree") is not None,
        "group": node.get("group"),
        "primary_instances": sorted(node.get("pinst_list") or []),
    }


def node_changes(view, wanted, add_tags=(), remove_tags=()):
    """(flags to set, tags to add, tags to remove) to go from `view` to `wanted`
    ({flag: bool or None}; None leaves the flag as it is)."""
    both = sorted(set(add_tags) & set(remove_tags))
    if both:
        raise HtoolsError("tags both to add and to remove: %s" % ", ".join(both))
    asked = {k: v for k, v in wanted.items() if k in FLAGS and v is not None}
    flags = {k: v for k, v in asked.items() if view[k] != v}
    if flags and view["master"]:
        raise HtoolsError("%s is the master node: Ganeti changes its role only by a master "
                          "failover (gnt-cluster master-failover on another candidate)"
                          % view["name"])
    final = dict(view, **asked)
    if asked.get("master_candidate") and (final["drained"] or final["offline"]):
        raise HtoolsError("%s cannot be a master candidate while drained or offline"
                          % view["name"])
    add = [t for t in dict.fromkeys(add_tags) if t not in view["tags"]]
    remove = [t for t in dict.fromkeys(remove_tags) if t in view["tags"]]
    return flags, add, remove


def expected_view(view, flags, add, remove):
    """The view once the changes are made (what check mode reports)."""
    after = dict(view, **flags)
    if flags.get("drained") or flags.get("offline"):
        after["master_candidate"] = False       # Ganeti demotes it
    if after["offline"]:
        after["live"] = False
    after["tags"] = sorted((set(view["tags"]) | set(add)) - set(remove))
    return after


def describe(view, after):
    """'node2: drained false -> true, tags +reboot' or 'node2: unchanged'."""
    parts = ["%s %s -> %s" % (k, str(view[k]).lower(), str(after[k]).lower())
             for k in FLAGS if view[k] != after[k]]
    added = sorted(set(after["tags"]) - set(view["tags"]))
    removed = sorted(set(view["tags"]) - set(after["tags"]))
    tags = ["+" + t for t in added] + ["-" + t for t in removed]
    if tags:
        parts.append("tags " + " ".join(tags))
    return "%s: %s" % (view["name"], ", ".join(parts) if parts else "unchanged")


def wait_live(client, name, timeout, poll=2.0, clock=time.monotonic, sleep=time.sleep):
    """Wait until the master hears from the node's daemon again; returns the view."""
    deadline = clock() + timeout
    while True:
        view = node_view(client.node(name))
        if view["live"]:
            return view
        if clock() >= deadline:
            raise HtoolsError("%s did not answer the master within %ss (offline: %s)"
                              % (name, timeout, str(view["offline"]).lower()))
        sleep(poll)


def demotes(plan):
    """Whether the plan takes a node's master candidacy away (Ganeti demotes it)."""
    return plan["before"]["master_candidate"] and not plan["after"]["master_candidate"]


def removes_from_pool(plan):
    """Whether the plan drains, offlines or demotes its node (no candidate after it)."""
    flags = plan["flags"]
    return bool(flags.get("drained") or flags.get("offline") or flags.get("master_candidate") is False)


def auto_promote_needed(plans, cluster_nodes):
    """{name: bool}: whether a plan's job needs Ganeti's auto_promote.

    Only a demoted master candidate can leave too few candidates, and the option
    only does something when some node can be promoted: one outside this run's
    drains that is master capable and neither a candidate, drained nor offline
    (or any node this run undrains or onlines).  Without such a node Ganeti's
    own check cannot fail - every eligible node is a candidate already - while
    the option would lock every node for the job, running a wave's drains one
    after the other.  `stages` runs the run's other drains first, so that none
    of its nodes is eligible any more when Ganeti checks or promotes."""
    leaving = {p["before"]["name"] for p in plans if removes_from_pool(p)}
    lifted = any(p["flags"].get("drained") is False or p["flags"].get("offline") is False
                 for p in plans)
    spare = lifted or any(
        node["name"] not in leaving and node.get("master_capable", True)
        and not (node.get("master_candidate") or node.get("drained") or node.get("offline"))
        for node in cluster_nodes)
    return {p["before"]["name"]: spare and demotes(p) for p in plans}


def stages(plans, promote):
    """The plans in the order their jobs may run, each stage's nodes side by
    side: the demotions of master candidates last whenever they could depend
    on the rest - when Ganeti is to promote someone (it must not pick a node
    this run is draining), or when the run also drains a node that is not a
    candidate (until that drain is done, Ganeti counts the node as one that
    could be a candidate, and refuses a demotion that leaves too few)."""
    last = [p for p in plans if demotes(p)]
    first = [p for p in plans if not demotes(p)]
    waits = any(promote[p["before"]["name"]] for p in last) or any(
        removes_from_pool(p) and not (p["before"]["drained"] or p["before"]["offline"])
        for p in first)
    if not (first and last and waits):
        return [plans] if plans else []
    return [first, last]


def plan_node(view, wanted, add_tags=(), remove_tags=()):
    """One node's change: its view before and after, and what to submit."""
    flags, add, remove = node_changes(view, wanted, add_tags, remove_tags)
    return {"before": view, "after": expected_view(view, flags, add, remove),
            "flags": flags, "add": add, "remove": remove, "changes": bool(flags or add or remove)}


def apply_node_plans(client, plans, run_one, reason, auto_promote, kept=None):
    """Make the changes of `plans` (plan_node()'s), every node's at once.

    Per node the order stays: tags added, then the flags, then tags removed - a
    run that marks the nodes it drains (a rolling reboot) finds the mark on
    every node it drained, even when interrupted in between.  A run's marks
    (run_tags) of every node go in one cluster tag job before the nodes' own
    chains and one after; the chains run side by side (run_parallel), so a
    wave of nodes takes about the time of one.  `run_one(submit)` runs one job
    to its end; `auto_promote` is {node name: bool}; `kept` {node name:
    run_marks.origins() of the node as read}."""
    changing = [p for p in plans if p["changes"]]
    marks_added = {p["before"]["name"]: run_marks.split(p["add"])[0] for p in changing}
    run_parallel([(lambda job=job: run_one(job))
                  for job in run_marks.add_jobs(client, marks_added, reason)])

    def chain(plan):
        name = plan["before"]["name"]
        add = run_marks.split(plan["add"])[1]
        if add:
            run_one(lambda: client.add_node_tags(name, add, reason=reason))
        if plan["flags"]:
            run_one(lambda: client.modify_node(name, reason=reason, auto_promote=auto_promote[name],
                                               **plan["flags"]))
        remove = run_marks.split(plan["remove"])[1]
        if remove:
            run_one(lambda: client.delete_node_tags(name, remove, reason=reason))
    run_parallel([(lambda p=p: chain(p)) for p in changing])
    removing = {p["before"]["name"]: run_marks.split(p["remove"])[0] for p in changing}
    run_parallel([(lambda job=job: run_one(job))
                  for job in run_marks.remove_jobs(client, kept or {}, removing, reason)])
