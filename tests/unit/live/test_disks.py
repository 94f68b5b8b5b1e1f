# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Disk status as Ganeti reports it (live/disks.py), from answers recorded on
the vm lab's real DRBD (tests/data/live/disks/*.json, see README there): in
sync, a secondary rebooted (not set up), disconnected, resyncing; and the
query / re-attach rounds with a stub client that answers them."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.disks import (
    DiskCheck, describe_state, disk_states, needs_reattach, progress_line, query_disks,
    select_instances, slowest)
from ansible_collections.ganeti.htools.plugins.module_utils.live.rapi import JobFailed
from kit.fake_clock import FakeClock
from kit.paths import DATA_DIR

RECORDED = os.path.join(DATA_DIR, "live", "disks")


def _recorded(name):
    """{instance: OpInstanceQueryData answer} recorded on the vm lab."""
    with open(os.path.join(RECORDED, name + ".json"), encoding="utf-8") as handle:
        return json.load(handle)


class Client:
    """Answers disk queries and activations like Ganeti: each one a job.
    `rounds` are the answers of successive query rounds ({instance: data})."""

    def __init__(self, rounds, refuse=()):
        self.rounds = list(rounds)
        self.refuse = set(refuse)
        self.jobs = {}
        self.calls = []

    def _job(self, result, ok=True):
        job_id = len(self.jobs) + 1
        self.jobs[job_id] = {"status": "success" if ok else "error", "opresult": [result]}
        return job_id

    def query_instance_data(self, names, reason=None):
        self.calls.append(("query", tuple(names)))
        answer = self.rounds.pop(0) if len(self.rounds) > 1 else self.rounds[0]
        return [([n], self._job({n: answer[n]})) for n in names]

    def activate_disks(self, name, reason=None):
        self.calls.append(("activate", name))
        assert reason.startswith("ganeti.htools:disks:activate:%s:" % name)
        if name in self.refuse:
            return self._job(["OpExecError", ["Cannot activate block devices", "ecode"]], False)
        return self._job([])

    def wait_job(self, job_id, timeout=None):
        job = self.jobs[job_id]
        if job["status"] != "success":
            raise JobFailed(job_id, job)
        return job


INSTANCES = [
    {"name": "web", "pnode": "node1", "snodes": ["node2"], "disk_template": "drbd",
     "admin_state": "up", "disk.sizes": [64]},
    {"name": "db", "pnode": "node2", "snodes": ["node3"], "disk_template": "drbd",
     "admin_state": "up", "disk.sizes": [64, 64]},
    {"name": "off", "pnode": "node3", "snodes": ["node1"], "disk_template": "drbd",
     "admin_state": "down", "disk.sizes": [64]},
    {"name": "nodisk", "pnode": "node1", "snodes": [], "disk_template": "diskless",
     "admin_state": "up", "disk.sizes": []},
]


def test_the_instances_with_disks_on_the_nodes_and_meant_to_run():
    assert select_instances(INSTANCES) == (
        ["db", "web"], {"off": "not meant to run (down): its disks are not active"})
    assert select_instances(INSTANCES, nodes=["node3"]) == (
        ["db"], {"off": "not meant to run (down): its disks are not active"})
    assert select_instances(INSTANCES, nodes=["node1"], ignore_nodes=["node2"]) == (
        [], {"web": "on an ignored node", "off": "not meant to run (down): its disks are not active"})


def test_a_sharedfile_disk_has_a_status_on_its_primary_only():
    [state] = disk_states(_recorded("sharedfile"))
    assert (state["instance"], state["disk"], state["node"], state["role"], state["state"],
            state["in_sync"]) == ("instance2", 0, "node1", "primary", "in sync", True)


def _with_status(data, instance, key, status):
    """The recorded answer with one device's status replaced (a state the lab
    cannot be put in on purpose)."""
    changed = json.loads(json.dumps(data))
    changed[instance]["disks"][0][key] = status
    return changed


def test_unreadable_answers_are_named():
    data = _recorded("sharedfile")
    with pytest.raises(HtoolsError, match="disk 0 of instance2: unexpected device status"):
        disk_states(_with_status(data, "instance2", "pstatus", ["/dev/x", 1, 2]))
    with pytest.raises(HtoolsError, match="disk status of instance2: unexpected answer"):
        disk_states({"instance2": {"disks": None}})


def test_a_query_ganeti_fails_leaves_its_instance_unknown_and_waiting():
    client = Client([_recorded("sharedfile")])
    client.query_instance_data = lambda names, reason=None: [
        ([n], client._job({}, ok=False)) for n in names]
    clock = FakeClock()
    check = DiskCheck(client, ["instance2"], clock=clock, sleep=clock.sleep)
    states, waited = check.run(wait=30, poll=10)
    assert waited == 30 and len(states) == 1
    assert describe_state(states[0]).startswith("instance2 disks: unknown (job ")
    assert check.reattached == []          # nothing known to re-attach


def _gone(data):
    return _with_status(data, "instance2", "pstatus", None)


def test_a_device_not_set_up_is_reattached_once_and_the_wait_ends_in_sync():
    data = _recorded("sharedfile")
    client = Client([_gone(data), _gone(data), data])
    clock = FakeClock()
    check = DiskCheck(client, ["instance2"], clock=clock, sleep=clock.sleep)
    states, waited = check.run(do_reattach=True, wait=300, poll=10)
    assert all(s["in_sync"] for s in states) and waited == 10
    assert client.calls == [("query", ("instance2",)), ("activate", "instance2"),
                            ("query", ("instance2",)), ("query", ("instance2",))]
    assert check.reattached == ["instance2"] and check.errors == {}
    assert progress_line(states, waited) == "every disk in sync (1 device(s) checked, waited 10s)"


def test_a_device_still_gone_is_reattached_again_a_minute_later_and_a_refusal_is_named():
    data = _recorded("sharedfile")
    client = Client([_gone(data)], refuse=["instance2"])
    clock = FakeClock()
    check = DiskCheck(client, ["instance2"], clock=clock, sleep=clock.sleep)
    states, waited = check.run(do_reattach=True, wait=100, poll=10)
    assert waited == 100 and not states[0]["in_sync"]
    assert [c for c in client.calls if c[0] == "activate"] == [("activate", "instance2")] * 2
    assert check.errors["instance2"].startswith("activating the disks of instance2 failed (job ")
    assert "Cannot activate block devices" in check.errors["instance2"]
    assert needs_reattach(states) == ["instance2"]
    assert slowest(states)["state"] == "not active"


def test_without_reattach_nothing_is_activated():
    client = Client([_gone(_recorded("sharedfile"))])
    states, _waited = DiskCheck(client, ["instance2"]).run()
    assert [c[0] for c in client.calls] == ["query"]
    assert describe_state(states[0]) == "instance2 disk 0 on node1 (primary): not active"


def test_no_instance_no_query():
    client = Client([{}])
    assert query_disks(client, []) == ({}, {})
    assert client.calls == []


class Unstartable(Client):
    """The first query job fails to start, as luxid does on a busy master
    (seen on the vm lab: "Getting the lockfile of the client: ... Timeout in
    reading a response"): every opcode in error with a plain message, no
    start time."""

    def query_instance_data(self, names, reason=None):
        asked = super().query_instance_data(names, reason)
        if not any(c[0] == "query" for c in self.calls[:-1]):
            for _names, job_id in asked[:1]:
                self.jobs[job_id] = {"status": "error", "start_ts": None, "opresult": [
                    "job %d failed to start: GenericError \"Timeout in reading a response\""
                    % job_id]}
        return asked


def test_a_query_the_master_could_not_start_is_asked_again(monkeypatch):
    from ansible_collections.ganeti.htools.plugins.module_utils.live import jobs
    monkeypatch.setattr(jobs, "RESTART_PAUSE", 0.0)
    data = _recorded("sharedfile")
    client = Unstartable([data])
    found, errors = query_disks(client, sorted(data))
    assert errors == {} and sorted(found) == sorted(data)
    assert client.calls[0] == ("query", tuple(sorted(data)))
    assert client.calls[1] == ("query", (sorted(data)[0],))       # that one again
