# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node without live data for a moment (seen in the vm lab: the master under
DRBD load, mtotal null in GET /2/nodes) is read again instead of failing."""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import Snapshot


class Client:
    def __init__(self, silent_reads):
        self.reads = 0
        self.silent_reads = silent_reads

    def info(self):
        return {"tags": []}

    def nodes(self, cluster_tags=None):
        assert cluster_tags == []       # the info's, not read again
        self.reads += 1
        mtotal = None if self.reads <= self.silent_reads else 8192
        return [{"name": "node1", "offline": False, "mtotal": mtotal},
                {"name": "node2", "offline": True, "mtotal": None}]

    def instances(self):
        return []

    def groups(self):
        return []


def test_a_silent_node_is_read_again():
    client, waits = Client(silent_reads=2), []
    snapshot = Snapshot.read(client, sleep=waits.append)
    assert client.reads == 3 and waits == [10.0, 10.0]
    assert snapshot.silent_nodes() == []          # the offline node never counts


def test_a_node_that_stays_silent_is_given_up_on():
    client, waits = Client(silent_reads=99), []
    snapshot = Snapshot.read(client, retries=2, sleep=waits.append)
    assert client.reads == 3 and snapshot.silent_nodes() == ["node1"]


def test_a_healthy_cluster_is_read_once():
    client = Client(silent_reads=0)
    Snapshot.read(client, sleep=lambda _s: None)
    assert client.reads == 1
