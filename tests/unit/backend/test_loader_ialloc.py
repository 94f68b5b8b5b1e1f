# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IAllocator request documents (what Ganeti hands an iallocator such as hail,
and ``hbal -I`` reads).

``hbal -I`` is not an oracle here: 3.0.2 merges the instances twice (a
known bug we deliberately do not copy).  Instead, a request built from a
generated text cluster must load into the same model as that text cluster
after the changes the protocol implies (no auto_balance=N, no master flag,
no CPU speed, three admin states, drained / non-vm_capable nodes offline,
non-live nodes zeroed, kvm static node memory), with the same score.
"""

from __future__ import annotations

import copy
import json
import os
import random

import pytest

from kit.plans import cluster_info
from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError
from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import (
    load_ialloc, load_ialloc_text)
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.dynutil import parse_util
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare, select_group
from ansible_collections.ganeti.htools.plugins.module_utils.planner.metrics import (
    breakdown, total_score)
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text_save import dump_text
from ansible_collections.ganeti.htools.plugins.module_utils.model.group import IPolicy

from kit.backend_docs import ipolicy_json, model_to_ialloc
from kit.model_snapshot import snapshot, snapshot_diff

N_CASES = int(os.environ.get("HTOOLS_IALLOC_CASES", "150"))
SEEDS = list(range(1, N_CASES + 1))
SOURCE = "/some/dir/request.json"


def expected_model(text, drained, not_vm, hypervisor):
    """The text cluster as an IAllocator request can describe it (not prepared)."""
    data = load_text(text, "<gen>")
    for node in data.nodes:
        node.is_master = False
        node.t_cpu_speed = 1.0
        live = not node.offline and node.name not in not_vm
        if node.name in drained or not live:
            node.offline = True
        if not live:
            node.t_mem, node.n_mem, node.f_mem = 0.0, 0, 0
            node.t_dsk, node.f_dsk, node.t_cpu, node.n_cpu = 0.0, 0, 0.0, 0
            node.f_spindles = 0
            if node.excl_storage:
                node.t_spindles = 0
        if hypervisor == "kvm":
            node.n_mem = 4096
    for inst in data.instances:
        inst.auto_balance = True
        inst.run_status = {"ADMIN_down": "ADMIN_down",
                           "ADMIN_offline": "ADMIN_offline"}.get(inst.run_status, "running")
    # re-read, so that every value derived at construction time is recomputed
    return load_text(dump_text(data), "<expected>")


def _prepare(data, case):
    opts = case.options
    util = parse_util(case.util, "<util>") if case.util is not None else None
    return prepare(data, util=util, ignore_dynu=opts["ignore_dynu"],
                   exclusion_tags=opts["exclusion_tags"], offline_nodes=opts["offline_nodes"])


def _score(data, group):
    selection = select_group(data, group)
    return total_score([v for _n, v, _w in breakdown(selection.nodes)] or None)


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_ialloc_model_matches_text(seed, tmp_path, cluster_gen):
    case = cluster_gen.generate(seed)
    text_model = load_text(case.data, "<gen>")
    rng = random.Random("ialloc-%d" % seed)
    online = [n.name for n in text_model.nodes if not n.offline]
    drained = rng.sample(online, min(len(online), rng.choice((0, 0, 1, 2))))
    rest = [n for n in online if n not in drained]
    not_vm = rng.sample(rest, min(len(rest), rng.choice((0, 0, 1))))
    hypervisor = "kvm" if seed % 5 == 0 else "xen-pvm"
    doc = model_to_ialloc(text_model, rng, hypervisor, drained, not_vm)
    path = tmp_path / "request.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")

    loaded, fmt = load_data_file(str(path))
    assert fmt == "iallocator"
    data, request = load_ialloc(copy.deepcopy(doc), str(path))
    assert request == doc["request"]
    label = "seed %d (hypervisor %s, drained %s, not vm_capable %s)" % (
        seed, hypervisor, drained, not_vm)

    # node/instance fields that the snapshot leaves out
    assert [n.hypervisor for n in data.nodes] == [hypervisor] * len(data.nodes)
    assert sorted(n.name for n in data.nodes if n.drained) == sorted(drained)
    assert all(len(i.nics) == 1 for i in data.instances)
    assert all(i.auto_balance for i in data.instances)
    assert not any(n.is_master for n in data.nodes)

    expected = _prepare(expected_model(case.data, drained, not_vm, hypervisor), case)
    for got in (_prepare(loaded, case), _prepare(data, case)):
        skip = ("hypervisor", "drained", "nics")
        diff = snapshot_diff(snapshot(expected, skip), snapshot(got, skip))
        assert not diff, "%s: IAllocator model differs from the text model:\n  %s" % (
            label, "\n  ".join(diff))
        group = case.options["group"]
        assert repr(_score(got, group)) == repr(_score(expected, group)), label

    # and through the whole report, from files
    expected_path = tmp_path / "expected.data"
    expected_path.write_text(dump_text(expected_model(case.data, drained, not_vm, hypervisor)),
                             encoding="utf-8")
    util_path = None
    if case.util is not None:
        util_path = str(tmp_path / "util.txt")
        with open(util_path, "w", encoding="utf-8") as handle:
            handle.write(case.util)
    kwargs = dict(util_file=util_path, group=case.options["group"],
                  offline_nodes=case.options["offline_nodes"],
                  exclusion_tags=case.options["exclusion_tags"],
                  ignore_dynu=case.options["ignore_dynu"])
    ours = cluster_info(str(path), **kwargs)
    ref = cluster_info(str(expected_path), **kwargs)
    for key in ("score", "metrics", "node_table", "n1_failures", "warnings", "group"):
        assert repr(ours[key]) == repr(ref[key]), "%s: %s differs" % (label, key)


# ---------------------------------------------------------------------------
# hand-made requests


def _policy():
    return ipolicy_json(IPolicy.default())


def _base_doc():
    text = ("default|uuid-g1|preferred||\n\n"
            "node1|8192|512|5000|102400|80000|8|N|uuid-g1|2\n"
            "node2|8192|512|6000|102400|90000|8|N|uuid-g1|2\n"
            "node3|8192|512|7000|102400|90000|8|N|uuid-g1|2\n"
            "node4|8192|512|7000|102400|90000|8|N|uuid-g1|2\n\n"
            "i-up|1024|10240|1|running|Y|node1|node2|drbd|\n"
            "i-down|1024|10240|1|ADMIN_down|Y|node2|node1|drbd|\n"
            "i-off|1024|10240|1|ADMIN_offline|Y|node3|node1|drbd|\n"
            "i-missing|512|1024|2|running|Y|node3||plain|\n\n\n")
    data = load_text(text, "<base>")
    doc = model_to_ialloc(data, random.Random(1), omit_up=False)
    del doc["instances"]["i-missing"]["admin_state"]
    return doc


def test_admin_state_mapping():
    data, _request = load_ialloc(_base_doc(), SOURCE)
    states = {i.name: i.run_status for i in data.instances}
    assert states == {"i-up": "running", "i-down": "ADMIN_down", "i-off": "ADMIN_offline",
                      "i-missing": "running"}
    doc = _base_doc()
    doc["instances"]["i-up"]["admin_state"] = "running"
    with pytest.raises(DataError) as err:
        load_ialloc(doc, SOURCE)
    assert SOURCE in str(err.value) and "admin_state" in str(err.value)


def test_drained_and_not_vm_capable_are_offline():
    doc = _base_doc()
    doc["nodes"]["node2"]["drained"] = True
    doc["nodes"]["node3"]["vm_capable"] = False
    for key in ("total_memory", "free_memory", "total_cpus"):
        del doc["nodes"]["node3"][key]      # not live: dynamic keys are not needed
    doc["nodes"]["node4"]["offline"] = True
    data, _request = load_ialloc(doc, SOURCE)
    node = {n.name: n for n in data.nodes}
    assert not node["node1"].offline
    # drained: offline for htools, but its live values are kept
    assert node["node2"].offline and node["node2"].drained and node["node2"].f_mem == 6000
    # not vm_capable and offline: not live, zeroed
    for name in ("node3", "node4"):
        assert node[name].offline and node[name].t_mem == 0.0 and node[name].f_mem == 0
        assert node[name].t_cpu == 0.0 and node[name].f_dsk == 0
    prepare(data)


def test_kvm_static_node_memory():
    doc = _base_doc()
    doc["enabled_hypervisors"] = ["kvm", "xen-pvm"]
    data, _request = load_ialloc(doc, SOURCE)
    assert [n.n_mem for n in data.nodes] == [4096] * 4
    doc["enabled_hypervisors"] = ["xen-pvm", "kvm"]
    data, _request = load_ialloc(doc, SOURCE)
    assert [n.n_mem for n in data.nodes] == [512] * 4


def test_exclusive_storage_spindles():
    doc = _base_doc()
    for name in ("node1", "node2"):
        doc["nodes"][name]["ndparams"]["exclusive_storage"] = True
        doc["nodes"][name]["total_spindles"] = 6
        doc["nodes"][name]["free_spindles"] = 5
    doc["instances"]["i-up"]["disks"] = [{"size": 5120, "spindles": 1},
                                         {"size": 5120, "spindles": 2}]
    data, _request = load_ialloc(doc, SOURCE)
    assert data.nodes[0].t_spindles == 6 and data.nodes[0].f_spindles == 5
    assert data.instances[0].total_spindles == 3
    del doc["nodes"]["node1"]["total_spindles"]
    with pytest.raises(DataError) as err:
        load_ialloc(doc, SOURCE)
    assert "total_spindles" in str(err.value) and SOURCE in str(err.value)


# Keys the protocol requires (a live node's resources included; vm_capable, tags,
# admin_state and forthcoming may be left out): (path to the containing object, key).
REQUIRED = [
    ((), "cluster_tags"), ((), "enabled_hypervisors"), ((), "nodegroups"), ((), "nodes"),
    ((), "instances"),
    (("nodegroups", "uuid-g1"), "name"), (("nodegroups", "uuid-g1"), "alloc_policy"),
    (("nodegroups", "uuid-g1"), "networks"), (("nodegroups", "uuid-g1"), "ipolicy"),
    (("nodegroups", "uuid-g1"), "tags"),
    (("nodegroups", "uuid-g1", "ipolicy"), "minmax"),
    (("nodegroups", "uuid-g1", "ipolicy"), "std"),
    (("nodegroups", "uuid-g1", "ipolicy"), "disk-templates"),
    (("nodegroups", "uuid-g1", "ipolicy"), "vcpu-ratio"),
    (("nodegroups", "uuid-g1", "ipolicy"), "spindle-ratio"),
    (("nodegroups", "uuid-g1", "ipolicy", "std"), "memory-size"),
    (("nodes", "node1"), "offline"), (("nodes", "node1"), "drained"),
    (("nodes", "node1"), "group"), (("nodes", "node1"), "ndparams"),
    (("nodes", "node1", "ndparams"), "exclusive_storage"),
    (("nodes", "node1", "ndparams"), "spindle_count"),
    (("nodes", "node1"), "total_memory"), (("nodes", "node1"), "reserved_memory"),
    (("nodes", "node1"), "free_memory"), (("nodes", "node1"), "total_disk"),
    (("nodes", "node1"), "free_disk"), (("nodes", "node1"), "total_cpus"),
    (("nodes", "node1"), "reserved_cpus"), (("nodes", "node1"), "free_spindles"),
    (("instances", "i-up"), "disk_space_total"), (("instances", "i-up"), "disks"),
    (("instances", "i-up"), "memory"), (("instances", "i-up"), "vcpus"),
    (("instances", "i-up"), "tags"), (("instances", "i-up"), "disk_template"),
    (("instances", "i-up"), "spindle_use"), (("instances", "i-up"), "nics"),
    (("instances", "i-up"), "nodes"),
    (("instances", "i-up", "disks", 0), "size"),
]


def _container(doc, path):
    for part in path:
        doc = doc[part]
    return doc


@pytest.mark.parametrize("path,key", REQUIRED,
                         ids=["/".join(str(p) for p in path + (key,)) for path, key in REQUIRED])
def test_missing_required_key(path, key, tmp_path):
    doc = _base_doc()
    del _container(doc, path)[key]
    with pytest.raises(DataError) as err:
        load_ialloc(doc, SOURCE)
    message = str(err.value)
    assert SOURCE in message and repr(key) in message, message
    # the same through the data-file entry point
    file_path = tmp_path / "req.json"
    file_path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_data_file(str(file_path))
    assert str(file_path) in str(err.value)


WRONG_TYPES = [
    ((), "cluster_tags", "tag"), ((), "enabled_hypervisors", "kvm"), ((), "nodes", []),
    ((), "nodegroups", ["uuid-g1"]), ((), "instances", None),
    (("nodegroups", "uuid-g1"), "alloc_policy", "sometimes"),
    (("nodegroups", "uuid-g1"), "tags", "a,b"),
    (("nodegroups", "uuid-g1", "ipolicy"), "vcpu-ratio", "4"),
    (("nodes", "node1"), "offline", "false"), (("nodes", "node1"), "drained", 0),
    (("nodes", "node1"), "vm_capable", "yes"), (("nodes", "node1"), "group", 1),
    (("nodes", "node1"), "group", "nosuch-group"),
    (("nodes", "node1"), "total_memory", "8192"), (("nodes", "node1"), "free_memory", 1.5),
    (("nodes", "node1"), "reserved_cpus", True), (("nodes", "node1"), "tags", "x"),
    (("nodes", "node1"), "ndparams", []),
    (("nodes", "node1", "ndparams"), "exclusive_storage", "N"),
    (("instances", "i-up"), "memory", "1024"), (("instances", "i-up"), "vcpus", 1.5),
    (("instances", "i-up"), "disks", {"size": 1}), (("instances", "i-up"), "nodes", "node1"),
    (("instances", "i-up"), "nodes", []), (("instances", "i-up"), "nodes", ["nosuch"]),
    (("instances", "i-up"), "disk_template", "floppy"),
    (("instances", "i-up"), "forthcoming", "no"), (("instances", "i-up"), "admin_state", 1),
    (("instances", "i-up"), "tags", [1]), (("instances", "i-up"), "nics", {}),
    (("instances", "i-up", "disks", 0), "size", "10G"),
    (("instances", "i-up", "disks", 0), "spindles", "two"),
]


@pytest.mark.parametrize("path,key,value", WRONG_TYPES,
                         ids=["/".join(str(p) for p in path + (key,)) + "=" + repr(value)
                              for path, key, value in WRONG_TYPES])
def test_wrong_type(path, key, value):
    doc = _base_doc()
    _container(doc, path)[key] = value
    with pytest.raises(DataError) as err:
        load_ialloc(doc, SOURCE)
    assert SOURCE in str(err.value), str(err.value)


@pytest.mark.parametrize("text", ["{", "{}", "[]", "{\"nodes\": 1}", "null"])
def test_bad_documents(text):
    with pytest.raises(DataError) as err:
        load_ialloc_text(text, SOURCE)
    assert SOURCE in str(err.value)


def test_optional_keys_have_defaults():
    doc = _base_doc()
    for node in doc["nodes"].values():
        node.pop("vm_capable", None)
        node.pop("tags", None)
    for inst in doc["instances"].values():
        inst.pop("forthcoming", None)
        inst.pop("admin_state", None)
        inst["disks"] = [{"size": d["size"]} for d in inst["disks"]]
    doc.pop("ipolicy")
    doc.pop("request")
    data, request = load_ialloc(doc, SOURCE)
    assert request is None
    assert all(not n.offline and n.tags == [] for n in data.nodes)
    assert all(i.run_status == "running" and not i.forthcoming for i in data.instances)
    assert all(i.total_spindles is None for i in data.instances)
    prepare(data)
