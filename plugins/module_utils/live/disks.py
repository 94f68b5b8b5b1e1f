# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Are the instances' disks in sync, as Ganeti itself reports them?

Ganeti reports a disk's state in OpInstanceQueryData (`gnt-instance info`,
RAPI `GET /2/instances/NAME/info?static=0`): per disk, the status of its
device on the primary (`pstatus`) and, for DRBD, on the secondary
(`sstatus`), each `[dev_path, major, minor, sync_percent, estimated_time,
is_degraded, ldisk_status]`, or null when the device is not set up there (or
the node is offline).  DRBD is degraded when it is not connected or its
local disk is not up to date; `sync_percent` is set while it resyncs.

After a node reboot nothing sets its DRBD devices up again until someone
activates the instance's disks (Ganeti's watcher does, minutes later):
`reattach` does it at once, as the watcher would (OpInstanceActivateDisks).
The queries of all instances are submitted together and then awaited (over
RAPI one job per instance, over LUXI one job for all).
"""

from __future__ import annotations

import time
import uuid

from ..errors import HtoolsError
from .jobs import wait_restarting
from .parallel import run_parallel

# Ganeti's local disk status (ldisk_status) values
LDISK = {1: "ok", 2: "syncing", 3: "unknown", 4: "faulty"}
_STATUS_LEN = 7
REASON_PREFIX = "ganeti.htools:disks"


def select_instances(instances, nodes=None, ignore_nodes=()):
    """(names to check, {name: why not}) of the instances with disks on `nodes`
    (every node when None).  An instance that is not meant to run has its
    disks deactivated: nothing to be in sync; one on an ignored node (under
    maintenance) is not looked at."""
    wanted = None if nodes is None else set(nodes)
    ignored = set(ignore_nodes)
    checked, skipped = [], {}
    for inst in instances:
        held = [inst.get("pnode")] + list(inst.get("snodes") or [])
        if wanted is not None and not wanted.intersection(held):
            continue
        name = inst["name"]
        if inst.get("disk_template") == "diskless" or not inst.get("disk.sizes"):
            continue
        if ignored.intersection(held):
            skipped[name] = "on an ignored node"
        elif inst.get("admin_state") != "up":
            skipped[name] = "not meant to run (%s): its disks are not active" \
                % inst.get("admin_state")
        else:
            checked.append(name)
    return sorted(checked), skipped


def query_disks(client, names, timeout=300.0):
    """({instance: Ganeti's instance data (OpInstanceQueryData)}, {instance: why
    Ganeti could not tell}) for `names`: all queries submitted first, then
    awaited.  A query Ganeti fails (a node that does not answer yet) leaves
    its instances unknown, not the others."""
    if not names:
        return {}, {}
    reason = _reason("query")
    jobs = client.query_instance_data(list(names), reason=reason)
    found, errors = {}, {}
    for asked, job_id in jobs:
        def again(asked=asked):
            return client.query_instance_data(asked, reason=reason)[0][1]
        try:
            job = wait_restarting(client, job_id, timeout, again)
        except HtoolsError as err:
            errors.update((name, "job %s: %s" % (job_id, err)) for name in asked)
            continue
        result = (job.get("opresult") or [None])[0]
        if not isinstance(result, dict):
            raise HtoolsError("disk status (job %s): unexpected job result %r"
                              % (job_id, result))
        found.update(result)
    missing = sorted(set(names) - set(found) - set(errors))
    if missing:
        raise HtoolsError("disk status: Ganeti did not report %s" % ", ".join(missing))
    return found, errors


def unknown_states(errors):
    """One state per instance whose disks Ganeti could not report."""
    return [{"instance": name, "disk": None, "label": "disks", "node": None, "role": None,
             "state": "unknown (%s)" % errors[name], "in_sync": False, "sync_percent": None,
             "eta": None} for name in sorted(errors)]


def disk_states(data):
    """Per disk and node of every instance: {instance, disk, node, role, state,
    sync_percent, eta, in_sync}, from query_disks' answer."""
    states = []
    for name in sorted(data):
        info = data[name]
        if not isinstance(info, dict) or not isinstance(info.get("disks"), list):
            raise HtoolsError("disk status of %s: unexpected answer %r" % (name, info))
        for index, disk in enumerate(info["disks"]):
            states.extend(_disk_sides(name, info, index, disk))
    return states


def _disk_sides(name, info, index, disk):
    if not isinstance(disk, dict):
        raise HtoolsError("disk %d of %s: unexpected answer %r" % (index, name, disk))
    drbd = disk.get("drbd_info") if isinstance(disk.get("drbd_info"), dict) else None
    sides = [("primary", drbd["primary_node"] if drbd else info.get("pnode"), "pstatus")]
    if drbd:
        sides.append(("secondary", drbd["secondary_node"], "sstatus"))
    label = "disk %d" % index + (" (%s)" % disk["name"] if disk.get("name") else "")
    return [dict(_side_state(disk.get(key), name, label), instance=name, disk=index,
                 label=label, node=node, role=role) for role, node, key in sides]


def _side_state(status, name, label):
    """The state of one device, from its status list (or null)."""
    if status is None:
        return {"state": "not active", "in_sync": False, "sync_percent": None, "eta": None}
    if not isinstance(status, list) or len(status) != _STATUS_LEN:
        raise HtoolsError("%s of %s: unexpected device status %r" % (label, name, status))
    percent, eta, degraded, ldisk = status[3:7]
    state = {"sync_percent": percent, "eta": eta, "in_sync": False}
    if percent is not None:
        state["state"] = "resyncing"
    elif not degraded:
        state.update(state="in sync", in_sync=True)
    elif ldisk == 1:
        state["state"] = "not connected"        # its own disk is fine, the peer is missing
    elif ldisk == 4:
        state["state"] = "degraded (no local disk)"
    else:
        state["state"] = "degraded (local disk %s)" % LDISK.get(ldisk, ldisk)
    return state


def describe_state(state):
    """'drbd3 disk 0 on node3 (secondary): resyncing 45.2% (about 30s left)'."""
    if state["node"] is None:
        return "%s %s: %s" % (state["instance"], state["label"], state["state"])
    text = "%s %s on %s (%s): %s" % (state["instance"], state["label"], state["node"],
                                     state["role"], state["state"])
    if state["state"] == "resyncing":
        text += " %.1f%%" % state["sync_percent"]
        if state["eta"] is not None:
            text += " (about %ss left)" % state["eta"]
    return text


def needs_reattach(states):
    """Instances with a device not set up or not connected: what activate-disks
    repairs (a resync runs by itself; it is left alone)."""
    return sorted({s["instance"] for s in states if not s["in_sync"] and s["node"] is not None
                   and s["state"] != "resyncing"})


def reattach(client, names, timeout=300.0):
    """Activate the disks of `names` (all jobs submitted, then awaited);
    returns {instance: error text} for those Ganeti refused."""
    def submit(name):
        return client.activate_disks(name, reason=_reason("activate:%s" % name))

    # side by side: each submission takes about a second on a busy master
    jobs = list(zip(names, run_parallel([(lambda n=n: submit(n)) for n in names])))
    errors = {}
    for name, job_id in jobs:
        try:
            wait_restarting(client, job_id, timeout, lambda name=name: submit(name))
        except HtoolsError as err:
            errors[name] = "activating the disks of %s failed (job %s): %s" % (name, job_id, err)
    return errors


def slowest(states):
    """The state furthest from in sync (for the progress line), or None."""
    bad = [s for s in states if not s["in_sync"]]
    if not bad:
        return None
    return min(bad, key=lambda s: (s["state"] == "resyncing", s["sync_percent"] or 0.0,
                                   s["instance"], s["disk"] or 0, s["node"] or ""))


def progress_line(states, waited):
    """One line: how many disks are not in sync yet, the slowest first."""
    bad = [s for s in states if not s["in_sync"]]
    if not bad:
        return "every disk in sync (%d device(s) checked, waited %ds)" % (len(states), waited)
    return "%d of %d device(s) not in sync after %ds; slowest: %s" % (
        len(bad), len(states), waited, describe_state(slowest(states)))


class DiskCheck:
    """Query, re-attach, and wait until every selected disk is in sync."""

    def __init__(self, client, names, job_timeout=300.0, clock=time.monotonic,
                 sleep=time.sleep):
        self.client = client
        self.names = names
        self.job_timeout = job_timeout
        self.clock = clock
        self.sleep = sleep
        self.reattached = []
        self.errors = {}

    def states(self):
        found, errors = query_disks(self.client, self.names, self.job_timeout)
        return disk_states(found) + unknown_states(errors)

    def run(self, do_reattach=False, wait=0, poll=10.0, again_after=60.0):
        """The last states read and the seconds waited, after re-attaching what
        needs it and waiting up to `wait` seconds for the rest.  A device still
        not connected is re-attached again only `again_after` seconds later:
        connecting takes a moment."""
        start = self.clock()
        last = {}
        while True:
            states = self.states()
            now = self.clock()
            todo = [name for name in (needs_reattach(states) if do_reattach else [])
                    if now - last.get(name, now - again_after) >= again_after]
            if todo:
                last.update((name, now) for name in todo)
                self.reattached = sorted(set(self.reattached) | set(todo))
                self.errors.update(reattach(self.client, todo, self.job_timeout))
                states = self.states()
            waited = self.clock() - start
            if all(s["in_sync"] for s in states) or waited >= wait:
                return states, int(waited)
            self.sleep(min(poll, max(0.0, wait - waited)))


def _reason(what):
    # unique per submission: a job whose answer got lost is found by it
    return "%s:%s:%s" % (REASON_PREFIX, what, uuid.uuid4().hex[:12])
