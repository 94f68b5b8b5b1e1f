# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Storage units over RAPI (live/storage_query.py) with a stub client; the
real cluster answers the same calls in tests/integration/test_live_storage_units.py."""

from __future__ import annotations

import json

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError, HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.rapi import JobFailed
from ansible_collections.ganeti.htools.plugins.module_utils.live.snapshot import Snapshot
from ansible_collections.ganeti.htools.plugins.module_utils.live.storage_query import (
    read_storage, storage_types)
from ansible_collections.ganeti.htools.plugins.module_utils.model.storage import StorageUnit

from kit.backend_docs import write_rapi_dir
from unit.backend.test_loader_rapi import _handmade

INFO = {"enabled_disk_templates": ["drbd", "plain", "file", "sharedfile", "diskless"],
        "tags": []}
NODES = [{"name": "node1"}, {"name": "node2", "offline": True},
         {"name": "node3", "vm_capable": False}, {"name": "node4"}]


class Client:
    """Answers storage queries like Ganeti: each one a job."""

    def __init__(self, rows, fail=None):
        self.rows = rows              # (node, type) -> opresult[0]
        self.fail = fail
        self.submitted = []

    def submit(self, method, path, body=None, query=None, reason=None):
        node = path.split("/")[3]
        self.submitted.append((method, path, dict(query)))
        return (node, query["storage_type"])

    def wait_job(self, job_id, timeout=None):
        if job_id == self.fail:
            raise JobFailed(7, {"status": "error", "opresult": [["OpExecError", ["no VG"]]]})
        return {"status": "success", "opresult": [self.rows[job_id]]}

    def info(self):
        return INFO

    def nodes(self, cluster_tags=None):
        del cluster_tags
        return NODES

    def instances(self):
        return []

    def groups(self):
        return []


ROWS = {("node1", "lvm-vg"): [["xenvg", 102400, 51200]],
        ("node1", "file"): [["/srv/ganeti/file-storage", 20480, 10240]],
        ("node4", "lvm-vg"): [["xenvg", 102400, 1024], ["ssdvg", 4096, 4096]],
        ("node4", "file"): [["/srv/ganeti/file-storage", 20480, 30000]]}


def test_only_node_local_storage_types_are_read():
    assert storage_types(INFO) == ["file", "lvm-vg"]
    assert storage_types({"enabled_disk_templates": ["sharedfile", "rbd"]}) == []


def test_every_answering_node_is_queried_once_per_type_before_any_wait():
    client = Client(ROWS)
    units = read_storage(client, INFO, NODES)
    assert [(m, p, q["storage_type"]) for m, p, q in client.submitted] == [
        ("GET", "/2/nodes/node1/storage", "file"), ("GET", "/2/nodes/node1/storage", "lvm-vg"),
        ("GET", "/2/nodes/node4/storage", "file"), ("GET", "/2/nodes/node4/storage", "lvm-vg")]
    assert all(q["output_fields"] == "name,size,free" for _m, _p, q in client.submitted)
    assert sorted(units) == ["node1", "node4"]          # offline, non-vm-capable: skipped
    assert units["node4"] == [
        {"sunit": ["file", "/srv/ganeti/file-storage", []], "free": 20480, "total": 20480},
        {"sunit": ["lvm-vg", "xenvg", []], "free": 1024, "total": 102400},
        {"sunit": ["lvm-vg", "ssdvg", []], "free": 4096, "total": 4096}]


def test_a_failed_query_names_node_and_type():
    with pytest.raises(HtoolsError) as err:
        read_storage(Client(ROWS, fail=("node4", "lvm-vg")), INFO, NODES)
    assert "lvm-vg storage of node node4" in str(err.value) and "no VG" in str(err.value)


@pytest.mark.parametrize("row", [["xenvg", 1024], "xenvg", ["xenvg", "big", 1], [7, 1, 1]])
def test_an_unexpected_row_is_refused(row):
    rows = dict(ROWS)
    rows[("node1", "file")] = [row]
    with pytest.raises(HtoolsError) as err:
        read_storage(Client(rows), INFO, NODES)
    assert "file storage of node node1" in str(err.value)


def test_the_snapshot_reads_units_only_when_asked():
    # these nodes carry no live figures: no pause between the reads they cause
    plain = Snapshot.read(Client(ROWS), sleep=lambda _seconds: None)
    assert plain.storage is None and "storage" not in plain.state()
    with_units = Snapshot.read(Client(ROWS), storage_units=True, sleep=lambda _seconds: None)
    assert with_units.state()["storage"]["node4"] == [
        ["file", "/srv/ganeti/file-storage", 20480], ["lvm-vg", "ssdvg", 4096],
        ["lvm-vg", "xenvg", 102400]]


def test_a_saved_directory_may_carry_storage_json(tmp_path):
    docs = _handmade()
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    name = docs["nodes"][0]["name"]
    with open("%s/storage.json" % directory, "w", encoding="utf-8") as handle:
        json.dump({name: [{"sunit": ["lvm-vg", "xenvg", []], "free": 100, "total": 400}]},
                  handle)
    data, _fmt = load_data_file(directory)
    assert data.nodes[0].storage_units == (StorageUnit("lvm-vg", "xenvg", (), 100, 400),)
    assert all(not n.storage_units for n in data.nodes[1:])
    with open("%s/storage.json" % directory, "w", encoding="utf-8") as handle:
        json.dump([1, 2], handle)
    with pytest.raises(DataError) as err:
        load_data_file(directory)
    assert "storage.json" in str(err.value)
