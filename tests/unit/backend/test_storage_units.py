# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Storage units per node (issue 12, multi-storage design): model, loaders, writer.

* text: node column 16 and instance column 14 load, derive each disk's
  desired unit, and save back byte for byte; every malformed entry is
  refused with a message naming file, line, field and expectation;
* IAllocator: node `storage` and disk `storage` load to the same model as
  the text format, and save through the text writer unchanged;
* data without units loads with empty units and None desired units.
"""

from __future__ import annotations

import copy
import random

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text_save import dump_text
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError
from ansible_collections.ganeti.htools.plugins.module_utils.model.storage import (
    StorageUnit, derive_desired_unit, unit_accepts)
from ansible_collections.ganeti.htools.plugins.module_utils.model.node import Node

from kit.backend_docs import model_to_ialloc
from kit.model_snapshot import snapshot, snapshot_diff

SOURCE = "units.data"
NODE_TAIL = "|2||N|0|1|1.0"           # columns 10-15, then the storage column
GROUPS = "default|uuid-g1|preferred||\n"


def _node(name, storage=None):
    line = "%s|8192|512|5000|102400|80000|8|N|uuid-g1%s" % (name, NODE_TAIL)
    return line if storage is None else line + "|" + storage


def _text(nodes, instances):
    return GROUPS + "\n" + "".join(n + "\n" for n in nodes) + "\n" \
        + "".join(i + "\n" for i in instances) + "\n"


UNIT_NODES = [
    _node("node1", "2000,4000,drbd8,xenvg;5000,10000,file,/srv/a;1024,1024,lvm-vg,ssdvg,excl"),
    _node("node2", "3000,4000,drbd8,xenvg;1000,20000,file,/srv/b"),
    _node("node3", "500,800,lvm-vg,xenvg"),
    _node("node4"),
]
UNIT_INSTANCES = [
    "i-drbd|1024|1000|1|running|Y|node1|node2|drbd||1|-|N",
    "i-plain|1024|100|1|running|Y|node1||plain||1|-|N",
    "i-file|1024|100|1|running|Y|node2||file||1|-|N",
    "i-diskless|1024|0|1|running|Y|node1||diskless||1|-|N",
    "i-shared|1024|100|1|running|Y|node1||sharedfile||1|-|N",
    "i-drbd-vg|1024|100|1|running|Y|node3|node1|drbd||1|-|N",
    "i-plain-none|1024|100|1|running|Y|node2||plain||1|-|N",
    "i-nounits|1024|100|1|running|Y|node4||plain||1|-|N",
    "i-given|1024|100|1|running|Y|node3||plain||1|-|N|lvm-vg,ssdvg",
    "i-given-type|1024|100|1|running|Y|node4||file||1|-|N|file",
]
UNIT_TEXT = _text(UNIT_NODES, UNIT_INSTANCES)


def _by_name(items):
    return {item.name: item for item in items}


def test_node_units_are_read_in_order_with_params():
    nodes = _by_name(load_text(UNIT_TEXT, SOURCE).nodes)
    assert nodes["node1"].storage_units == (
        StorageUnit("drbd8", "xenvg", (), 2000, 4000),
        StorageUnit("file", "/srv/a", (), 5000, 10000),
        StorageUnit("lvm-vg", "ssdvg", ("excl",), 1024, 1024))
    assert nodes["node3"].storage_units == (StorageUnit("lvm-vg", "xenvg", (), 500, 800),)
    assert nodes["node4"].storage_units == ()
    # the per-node pool is read as before
    assert nodes["node1"].f_dsk == 80000 and nodes["node1"].t_dsk == 102400.0


def test_desired_units_come_from_the_data_or_the_primary():
    insts = _by_name(load_text(UNIT_TEXT, SOURCE).instances)
    wanted = {name: inst.disk_units for name, inst in insts.items()}
    assert wanted == {
        "i-drbd": (("drbd8", "xenvg"),),
        "i-plain": (("lvm-vg", "ssdvg"),),
        "i-file": (("file", "/srv/b"),),
        "i-diskless": (None,),
        "i-shared": (None,),                  # shared storage the node does not report
        "i-drbd-vg": (("lvm-vg", "xenvg"),),  # no drbd8 unit: the VG DRBD sits on
        "i-plain-none": (("lvm-vg", None),),  # node-local template, no unit of its type
        "i-nounits": (None,),                 # the primary reports no units
        "i-given": (("lvm-vg", "ssdvg"),),
        "i-given-type": (("file", None),),
    }


def test_unit_accepts_its_type_and_key():
    unit = StorageUnit("file", "/srv/a", (), 10, 20)
    assert unit_accepts(unit, ("file", "/srv/a")) and unit_accepts(unit, ("file", None))
    assert not unit_accepts(unit, ("file", "/srv/b")) and not unit_accepts(unit, ("lvm-vg", None))
    assert derive_desired_unit("blockdev", (unit,)) is None


def test_text_with_units_saves_byte_for_byte_and_reloads_the_same_model():
    first = load_text(UNIT_TEXT, SOURCE)
    dumped = dump_text(first)
    node_section = dumped.split("\n\n")[1]
    assert node_section.split("\n")[:4] == UNIT_NODES[:3] + [_node("node4")]
    inst_section = dumped.split("\n\n")[2].split("\n")
    # only the units loading would not derive again are written
    assert inst_section[:len(UNIT_INSTANCES)] == UNIT_INSTANCES
    second = load_text(dumped, SOURCE)
    assert not snapshot_diff(snapshot(first), snapshot(second))
    assert dump_text(second) == dumped


def test_a_moved_disk_keeps_its_unit_through_a_save():
    data = load_text(UNIT_TEXT, SOURCE)
    inst = _by_name(data.instances)["i-drbd"]
    inst.pnode, inst.snode = inst.snode, inst.pnode     # node2's drbd8 unit is also xenvg
    assert "|drbd||1|-|N\n" in dump_text(data)
    inst = _by_name(data.instances)["i-file"]
    inst.pnode = 0                                       # node1's file unit is /srv/a
    dumped = dump_text(data)
    assert "|file||1|-|N|file,/srv/b\n" in dumped
    assert _by_name(load_text(dumped, SOURCE).instances)["i-file"].disk_units == (("file", "/srv/b"),)


def test_data_without_units_has_none():
    text = _text([_node("node1"), _node("node2")],
                 ["i1|1024|100|1|running|Y|node1|node2|drbd||1|-|N"])
    data = load_text(text, SOURCE)
    assert all(n.storage_units == () for n in data.nodes)
    assert data.instances[0].disk_units == (None,)
    assert dump_text(data).split("\n\n")[:3] == text.split("\n\n")[:3]


def test_an_empty_storage_column_means_no_units():
    data = load_text(_text([_node("node1", "")], []), SOURCE)
    assert data.nodes[0].storage_units == ()


def test_node_copies_keep_their_units():
    node = load_text(UNIT_TEXT, SOURCE).nodes[0]
    assert node.copy().storage_units == node.storage_units
    assert Node(0, "n", 1, 0, 1, 1, 1, 1, 0, False, False, 0).storage_units == ()


BAD_NODE_STORAGE = [
    ("2000,4000,drbd8", "storage unit 1 has 3 comma-separated parts instead of 4 or more"),
    ("2000,4000,drbd8,xenvg;", "storage unit 2 has 1 comma-separated parts instead of 4 or more"),
    ("x,4000,drbd8,xenvg", "storage unit 1 has a bad free size"),
    ("-1,4000,drbd8,xenvg", "storage unit 1 has a bad free size"),
    ("10,4e3,drbd8,xenvg", "storage unit 1 has a bad total size"),
    ("10," + "9" * 17 + ",drbd8,xenvg", "storage unit 1 has a bad total size"),
    ("5000,4000,drbd8,xenvg", "storage unit 1 has more free (5000) than total (4000) space"),
    ("10,40,drbd,xenvg", "storage unit 1 has a bad type"),
    ("10,40,file,", "storage unit 1 has an empty key"),
    ("10,40,file,/a;1,2,file,/a", "storage unit 2 repeats type file key '/a'"),
]


@pytest.mark.parametrize("storage,message", BAD_NODE_STORAGE)
def test_malformed_node_storage_is_refused_precisely(storage, message):
    text = _text([_node("node1"), _node("node2", storage)], [])
    with pytest.raises(DataError) as err:
        load_text(text, SOURCE)
    shown = str(err.value)
    assert message in shown
    assert SOURCE in shown and "4" in shown.split(SOURCE)[1][:8]    # line 4: the second node
    assert "field 16 (storage): expected" in shown


BAD_DISK_UNITS = [
    ("drbd8,xenvg;file,/a", "2 desired storage units for 1 disk(s)"),
    ("drbd,xenvg", "bad desired storage unit"),
    ("file,", "bad desired storage unit"),
    ("file,/a,x", "bad desired storage unit"),
    (";", "2 desired storage units for 1 disk(s)"),
    ("lvm-vg;", "2 desired storage units for 1 disk(s)"),
]


@pytest.mark.parametrize("column,message", BAD_DISK_UNITS)
def test_malformed_disk_unit_is_refused_precisely(column, message):
    text = _text([_node("node1")], ["i1|1024|100|1|running|Y|node1||plain||1|-|N|" + column])
    with pytest.raises(DataError) as err:
        load_text(text, SOURCE)
    shown = str(err.value)
    assert message in shown and "field 14 (disk storage): expected" in shown


# -- IAllocator -------------------------------------------------------------

def _json_units(node):
    return [{"sunit": [u.type, u.key, list(u.params)], "free": u.free, "total": u.total}
            for u in node.storage_units]


def _ialloc_doc(text=UNIT_TEXT):
    """An IAllocator request for the text cluster, with its units and given disk units."""
    data = load_text(text, SOURCE)
    doc = model_to_ialloc(data, random.Random(3), omit_up=False)
    for node in data.nodes:
        if node.storage_units:
            doc["nodes"][node.name]["storage"] = _json_units(node)
    for inst in data.instances:
        unit = inst.disk_units[0]
        if unit is not None and unit[1] is not None:
            for disk in doc["instances"][inst.name]["disks"]:
                disk["storage"] = list(unit)
    return doc


def test_ialloc_units_load_like_the_text_ones():
    from_text = load_text(UNIT_TEXT, SOURCE)
    from_json, _request = load_ialloc(_ialloc_doc(), "req.json")
    assert [n.storage_units for n in from_json.nodes] == [n.storage_units for n in from_text.nodes]
    text_units = {i.name: i.disk_units for i in from_text.instances}
    for inst in from_json.instances:
        if inst.name == "i-given-type":       # IAllocator's disk storage always names a key
            continue
        assert inst.disk_units == (text_units[inst.name][0],) * len(inst.disks), inst.name


def test_ialloc_units_save_as_text_and_reload():
    data, _request = load_ialloc(_ialloc_doc(), "req.json")
    data.nodes[0].set_storage_units(data.nodes[0].storage_units[:2] + (
        StorageUnit("lvm-vg", "ssdvg", (False,), 1024, 1024),))
    reloaded = load_text(dump_text(data), SOURCE)
    assert reloaded.nodes[0].storage_units[2] == StorageUnit("lvm-vg", "ssdvg", ("false",), 1024, 1024)
    assert [n.storage_units for n in reloaded.nodes][1:] == [n.storage_units for n in data.nodes][1:]
    assert [i.disk_units[0] for i in reloaded.instances] == [i.disk_units[0] for i in data.instances]


def test_ialloc_without_storage_loads_as_before():
    plain = _text([_node("node1"), _node("node2")],
                  ["i1|1024|100|1|running|Y|node1|node2|drbd||1|-|N"])
    data, _request = load_ialloc(_ialloc_doc(plain), "req.json")
    assert all(n.storage_units == () for n in data.nodes)
    assert all(u is None for i in data.instances for u in i.disk_units)


def test_ialloc_offline_node_units_are_ignored():
    doc = _ialloc_doc()
    doc["nodes"]["node1"]["offline"] = True
    data, _request = load_ialloc(doc, "req.json")
    assert data.nodes[0].storage_units == ()


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


BAD_IALLOC = [
    (("nodes", "node1", "storage"), {"sunit": ["drbd8", "xenvg", []]}, "node node1: bad key 'storage'"),
    (("nodes", "node1", "storage"), [["drbd8"]], "node node1 storage unit 0 is not a JSON object"),
    (("nodes", "node1", "storage"), [{"free": 1, "total": 2}], "storage unit 0: missing key 'sunit'"),
    (("nodes", "node1", "storage"), [{"sunit": ["drbd", "xenvg", []], "free": 1, "total": 2}],
     "node node1 storage unit 0: bad key 'sunit'"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "", []], "free": 1, "total": 2}],
     "node node1 storage unit 0: bad key 'sunit'"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "/a"], "free": 1, "total": 2}],
     "node node1 storage unit 0: bad key 'sunit'"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "/a", []], "free": 1.5, "total": 2}],
     "node node1 storage unit 0: bad key 'free'"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "/a", []], "free": 1}],
     "node node1 storage unit 0: missing key 'total'"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "/a", []], "free": 3, "total": 2}],
     "node node1 storage unit 0: bad free/total space"),
    (("nodes", "node1", "storage"), [{"sunit": ["file", "/a", []], "free": 1, "total": 2}] * 2,
     "node node1 storage unit 1 repeats type file key '/a'"),
    (("instances", "i-drbd", "disks", 0, "storage"), ["drbd8"], "instance i-drbd disk 0: bad key 'storage'"),
    (("instances", "i-drbd", "disks", 0, "storage"), "drbd8", "instance i-drbd disk 0: bad key 'storage'"),
    (("instances", "i-drbd", "disks", 0, "storage"), ["nfs", "x"], "instance i-drbd disk 0: bad key 'storage'"),
]


@pytest.mark.parametrize("path,value,message", BAD_IALLOC)
def test_malformed_ialloc_storage_is_refused_precisely(path, value, message):
    doc = copy.deepcopy(_ialloc_doc())
    _set(doc, path, value)
    with pytest.raises(DataError) as err:
        load_ialloc(doc, "req.json")
    shown = str(err.value)
    assert message in shown and "req.json" in shown
    assert "missing key" in message or "expected" in shown


@pytest.mark.parametrize("key", ["vg,1", "a;b", "x|y", "two\nlines"])
def test_a_key_the_text_format_cannot_hold_is_refused_when_saving(key):
    data, _request = load_ialloc(_ialloc_doc(), "req.json")
    data.nodes[0].set_storage_units((StorageUnit("lvm-vg", key, (), 1024, 1024),))
    with pytest.raises(DataError) as err:
        dump_text(data)
    assert repr(key) in str(err.value) and "text format" in str(err.value)
