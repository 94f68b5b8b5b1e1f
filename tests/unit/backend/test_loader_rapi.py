# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RAPI backend (the bulk groups, nodes and instances and ``/2/info``) against the
real ``hbal -m file://DIR``.

Generated clusters are converted (kit.backend_docs.model_to_rapi) to the
four responses Ganeti 3.0 serves, with random drained and non-vm_capable
nodes, null/absent values on non-live nodes, oper_ram vs beparams memory,
multi-disk instances and the kvm default hypervisor.  For each,
``hbal -m file://DIR -v -v -v -p -l 0`` and our ``cluster_info(DIR)`` must
agree on the group, the score, every metric, the node table and the
warnings (kit.report_parity.compare, as in tests/differential/test_score_parity.py).
"""

from __future__ import annotations

import json
import os
import random

import pytest

from kit.plans import cluster_info
from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError, HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.backend.rapi_json import (
    DEFAULT_GROUP_UUID, load_rapi, load_rapi_dir)
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import hs_fixed
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.model.group import IPolicy

from kit import tools
from kit.backend_docs import ipolicy_json, model_to_rapi, write_rapi_dir
from kit.model_snapshot import snapshot, snapshot_diff
from kit.report_parity import compare

N_CASES = int(os.environ.get("HTOOLS_RAPI_CASES", "100"))
SEEDS = list(range(1, N_CASES + 1))


def _variant(seed, data):
    """(hypervisor, drained names, non-vm_capable names) chosen for a seed."""
    rng = random.Random("rapi-%d" % seed)
    online = [n.name for n in data.nodes if not n.offline]
    drained = rng.sample(online, min(len(online), rng.choice((0, 0, 1, 2))))
    rest = [n for n in online if n not in drained]
    not_vm = rng.sample(rest, min(len(rest), rng.choice((0, 0, 1))))
    hypervisor = "kvm" if seed % 4 == 0 else rng.choice(("xen-pvm", "xen-hvm", "lxc"))
    return rng, hypervisor, drained, not_vm


def _compare_with_hbal(case, directory, util_path, label):
    hb = tools.hbal_oracle.run_hbal_rapi(directory, case.argv, util_path)
    if hb.cluster_empty:
        pytest.skip("%s: hbal says 'Cluster is empty, exiting.'" % label)
    opts = case.options
    res = cluster_info(str(directory), util_file=util_path, group=opts["group"],
                       offline_nodes=list(opts["offline_nodes"]),
                       exclusion_tags=list(opts["exclusion_tags"]),
                       ignore_dynu=opts["ignore_dynu"])
    problems = compare(case, hb, res, hs_fixed)
    assert not problems, "%s: %d difference(s) from hbal -m\n  %s\n  hbal: %s" % (
        label, len(problems), "\n  ".join(problems), hb.command)
    return hb, res


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_rapi_parity(seed, tmp_path, cluster_gen, require_hbal):
    case = cluster_gen.generate(seed)
    data = load_text(case.data, "<gen>")
    rng, hypervisor, drained, not_vm = _variant(seed, data)
    docs = model_to_rapi(data, rng, hypervisor, drained, not_vm)
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    util_path = None
    if case.util is not None:
        util_path = str(tmp_path / "util.txt")
        with open(util_path, "w", encoding="utf-8") as handle:
            handle.write(case.util)
    label = "seed %d (hypervisor %s, drained %s, not vm_capable %s)" % (
        seed, hypervisor, drained, not_vm)
    _compare_with_hbal(case, directory, util_path, label)

    loaded, fmt = load_data_file(directory)
    assert fmt == "rapi"
    by_name = {n.name: n for n in loaded.nodes}
    for name in drained:
        assert by_name[name].offline and by_name[name].drained
    for name in not_vm:
        node = by_name[name]
        assert node.offline and node.t_mem == 0.0 and node.f_mem == 0 and node.t_cpu == 0.0
    if hypervisor == "kvm":
        assert all(n.n_mem == 4096 for n in loaded.nodes)


_LOSSY = frozenset(("cpu_speed", "qmark_node", "offline_node", "all_offline"))


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_rapi_model_equals_text_model(seed, tmp_path, cluster_gen):
    """Without features RAPI cannot carry, the RAPI model is the text model."""
    case = cluster_gen.generate(seed)
    if case.features & _LOSSY:
        pytest.skip("seed %d uses %s, which RAPI cannot express"
                    % (seed, sorted(case.features & _LOSSY)))
    text_model = load_text(case.data, "<gen>")
    master = next((n.name for n in text_model.nodes if n.is_master), None)
    docs = model_to_rapi(text_model, random.Random(seed), "xen-pvm", master=master or "")
    if master is None:
        docs["info"].pop("master")
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    opts = case.options
    rapi_model = prepare(load_rapi_dir(directory), exclusion_tags=opts["exclusion_tags"],
                         offline_nodes=opts["offline_nodes"], ignore_dynu=opts["ignore_dynu"])
    text_model = prepare(text_model, exclusion_tags=opts["exclusion_tags"],
                         offline_nodes=opts["offline_nodes"], ignore_dynu=opts["ignore_dynu"])
    # only RAPI carries instance UUIDs (Ganeti's configuration order)
    assert [i.uuid for i in rapi_model.instances] == [i["uuid"] for i in docs["instances"]]
    for inst in rapi_model.instances:
        inst.uuid = None
    # RAPI may split a disk in two; disk_units runs parallel to disks
    skip = ("hypervisor", "disks", "disk_units", "networks")
    diff = snapshot_diff(snapshot(text_model, skip), snapshot(rapi_model, skip))
    assert not diff, "seed %d: RAPI model differs from the text model:\n  %s" % (
        seed, "\n  ".join(diff))
    for a, b in zip(text_model.instances, rapi_model.instances):
        assert a.disk_units == (None,) and b.disk_units == (None,) * len(b.disks)
        assert a.total_spindles == b.total_spindles
        assert sum(size for size, _sp in b.disks) == a.dsk


# ---------------------------------------------------------------------------
# hand-made clusters


def _policy():
    return ipolicy_json(IPolicy.default())


def _group(name="default", uuid="uuid-g1"):
    return {"name": name, "uuid": uuid, "alloc_policy": "preferred", "ipolicy": _policy(),
            "tags": []}


def _node(name, group="uuid-g1", mtotal=8192, mnode=512, mfree=6000, dtotal=102400,
          dfree=80000, ctotal=8, cnos=1, **extra):
    node = {"name": name, "mtotal": mtotal, "mnode": mnode, "mfree": mfree, "dtotal": dtotal,
            "dfree": dfree, "ctotal": ctotal, "cnos": cnos, "offline": False,
            "drained": False, "vm_capable": True, "group.uuid": group,
            "ndparams": {"exclusive_storage": False, "spindle_count": 2},
            "sptotal": 2, "spfree": 0, "tags": []}
    node.update(extra)
    return node


def _inst(name, pnode, snode=None, mem=1024, dsk=10240, status="running", template="drbd",
          **extra):
    inst = {"name": name, "disk_usage": dsk, "oper_ram": mem if status == "running" else None,
            "beparams": {"maxmem": mem, "minmem": mem, "vcpus": 1, "auto_balance": True,
                         "spindle_use": 1},
            "status": status, "pnode": pnode, "snodes": [snode] if snode else [], "tags": [],
            "disk_template": template, "disk.sizes": [dsk], "disk.spindles": [None],
            "forthcoming": False}
    inst.update(extra)
    return inst


def _handmade(hypervisor="xen-pvm"):
    nodes = [
        _node("node1"),
        _node("node2", mfree=4000),
        # drained: live values are kept, but the node counts as offline
        _node("node3", drained=True, mfree=7000),
        # not vm_capable: not live, every value is replaced by 0
        _node("node4", vm_capable=False, mtotal=None, mnode=None, mfree=None, dtotal=None,
              dfree=None, ctotal=None, cnos=None),
        # offline: not live either; values may be stale numbers
        _node("node5", offline=True),
        _node("node6", mfree=5000, dfree=90000, tags=["a:b"]),
    ]
    instances = [
        _inst("inst1", "node1", "node2"),
        _inst("inst2", "node2", "node6", mem=2048),
        _inst("inst3", "node3", "node1", status="ADMIN_down"),
        _inst("inst4", "node6", "node1", mem=512),
        _inst("inst5", "node5", None, template="plain", dsk=2048),
        _inst("inst6", "node1", None, template="ext", dsk=2048, mem=256),
    ]
    info = {"master": "node1", "tags": ["htools:iextags:svc"], "ipolicy": _policy(),
            "default_hypervisor": hypervisor}
    return {"groups": [_group()], "nodes": nodes, "instances": instances, "info": info}


class _FakeCase:
    """What report_parity.compare() and _compare_with_hbal() read from a case."""

    def __init__(self, group=None):
        self.options = {"group": group, "offline_nodes": [], "exclusion_tags": [],
                        "ignore_dynu": False}
        self.argv = ("-G", group) if group else ()


@pytest.mark.parametrize("hypervisor", ["xen-pvm", "kvm"])
def test_handmade_drained_vm_capable_kvm(hypervisor, tmp_path, require_hbal):
    docs = _handmade(hypervisor)
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    hb, res = _compare_with_hbal(_FakeCase(), directory, None, "handmade " + hypervisor)
    rows = {r["name"]: r for r in res["nodes"]}
    assert rows["node3"]["offline"] and rows["node3"]["fmem"] == 7000
    assert rows["node4"]["offline"] and rows["node4"]["tmem"] == 0.0
    assert rows["node5"]["offline"] and rows["node5"]["fmem"] == 0
    n_mem = 4096 if hypervisor == "kvm" else 512
    # kvm: the static node memory (4096) overrides mnode, also in hbal's table
    assert [rows["node%d" % k]["nmem"] for k in (1, 2, 3, 6)] == [n_mem] * 4
    header = hb.node_table_lines[0]
    end = header.index(" n_mem") + len(" n_mem")     # numeric columns are right-aligned
    name_at = header.index(" Name") + 1
    hbal_nmem = {line[name_at:].split()[0]: int(line[end - 6:end])
                 for line in hb.node_table_lines[1:]}
    assert [hbal_nmem["node%d" % k] for k in (1, 2, 3, 6)] == [n_mem] * 4


def test_handmade_defaults_and_oper_ram(tmp_path, require_hbal):
    """Default group, absent dtotal/dfree/spfree, oper_ram precedence, multi-disk."""
    docs = _handmade()
    docs["groups"] = [_group(uuid=DEFAULT_GROUP_UUID)]
    for node in docs["nodes"]:
        node.pop("group.uuid")
    for key in ("dtotal", "dfree", "spfree"):
        docs["nodes"][5].pop(key)
    docs["instances"][0]["beparams"]["maxmem"] = 9999       # oper_ram wins
    docs["instances"][1]["oper_ram"] = None
    docs["instances"][1]["beparams"]["memory"] = 2048       # memory wins over maxmem
    docs["instances"][1]["beparams"]["maxmem"] = 4096
    docs["instances"][3].update({"disk.sizes": [256, 256], "disk.spindles": [1, None]})
    docs["instances"][3]["disk_usage"] = 512
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    _compare_with_hbal(_FakeCase(), directory, None, "handmade defaults")
    data = load_rapi_dir(directory)
    assert [i.mem for i in data.instances[:2]] == [1024, 2048]
    assert data.nodes[5].t_dsk == 0.0 and data.nodes[5].f_dsk == 0
    assert data.instances[3].disks == [(256, 1), (256, None)]
    assert data.instances[3].total_spindles is None


def test_exclusive_storage_uses_sptotal(tmp_path, require_hbal):
    docs = _handmade()
    for node in docs["nodes"]:
        node["ndparams"] = {"exclusive_storage": True, "spindle_count": 1}
        node["sptotal"], node["spfree"] = 6, 4
    for inst in docs["instances"]:
        inst["disk.spindles"] = [1]
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    _compare_with_hbal(_FakeCase(), directory, None, "exclusive storage")
    data = load_rapi_dir(directory)
    assert data.nodes[0].t_spindles == 6 and data.nodes[0].f_spindles == 4
    assert data.nodes[3].t_spindles == 0       # not live


def test_multi_group_needs_group_option(tmp_path, require_hbal):
    docs = _handmade()
    docs["groups"].append(_group("other", "uuid-g2"))
    docs["nodes"][5]["group.uuid"] = "uuid-g2"
    docs["nodes"].append(_node("node7", group="uuid-g2"))
    docs["instances"][3]["snodes"] = ["node7"]
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    for group in ("default", "other"):
        _compare_with_hbal(_FakeCase(group), directory, None, "group " + group)
    with pytest.raises(HtoolsError):
        cluster_info(directory)


@pytest.mark.parametrize("mutation,needle", [
    (lambda d: d["nodes"][0].pop("offline"), "'offline'"),
    (lambda d: d["nodes"][0].pop("ndparams"), "'ndparams'"),
    (lambda d: d["nodes"][0].update(mtotal="lots"), "'mtotal'"),
    (lambda d: d["nodes"][0].update({"group.uuid": "nosuch"}), "nosuch"),
    (lambda d: d["instances"][0].update(pnode="nosuch"), "nosuch"),
    (lambda d: d["instances"][0].update(snodes=["nosuch"]), "nosuch"),
    (lambda d: d["instances"][0].update(status="weird"), "status"),
    (lambda d: d["instances"][0].update(disk_template="floppy"), "disk_template"),
    (lambda d: d["instances"][0].pop("disk_usage"), "'disk_usage'"),
    (lambda d: d["instances"][0]["beparams"].pop("vcpus"), "'vcpus'"),
    (lambda d: d["groups"][0].pop("ipolicy"), "'ipolicy'"),
    (lambda d: d["groups"][0]["ipolicy"].pop("vcpu-ratio"), "'vcpu-ratio'"),
    (lambda d: d["info"].update(master="nosuch"), "nosuch"),
    (lambda d: d.update(nodes={"node1": {}}), "nodes"),
])
def test_rapi_errors_are_clean(mutation, needle, tmp_path):
    docs = _handmade()
    mutation(docs)
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    with pytest.raises(DataError) as err:
        load_data_file(directory)
    assert directory in str(err.value) and needle in str(err.value)


def test_rapi_missing_file_and_bad_json(tmp_path):
    directory = write_rapi_dir(_handmade(), tmp_path / "rapi")
    with open(os.path.join(directory, "nodes.json"), "w", encoding="utf-8") as handle:
        handle.write("[{")
    with pytest.raises(DataError) as err:
        load_data_file(directory)
    assert "nodes.json" in str(err.value) and "JSON" in str(err.value)
    os.unlink(os.path.join(directory, "info.json"))
    with pytest.raises(DataError) as err:
        load_data_file(directory)
    assert "info.json" in str(err.value) and directory in str(err.value)


def test_load_rapi_in_memory_matches_dir(tmp_path):
    docs = _handmade()
    directory = write_rapi_dir(docs, tmp_path / "rapi")
    from_dir = prepare(load_rapi_dir(directory))
    in_memory = prepare(load_rapi(json.loads(json.dumps(docs["info"])), docs["nodes"],
                                  docs["instances"], docs["groups"], source="<mem>"))
    assert not snapshot_diff(snapshot(from_dir), snapshot(in_memory))
