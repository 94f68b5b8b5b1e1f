"""Storage units for generated clusters (multi-storage design, issue 12).

The cluster generator (cluster_gen.py) writes clusters as hbal reads them: one
disk pool per node.  This module turns such a cluster into one whose nodes
report storage units, through the collection's own text loader and writer:

* ``one_unit_per_node``: every node reports exactly its pool, as one
  ``lvm-vg`` unit: by the design's invariant it must plan as before;
* ``several_units``: two volume groups per node (``ssdvg``, ``hddvg``) and,
  on some nodes only, a ``file`` unit; every drbd/plain instance wants one
  of the volume groups, chosen at random, and each unit's free space is its
  total minus the disks it holds, so the data is consistent.

``unit_usage`` recomputes, independently of the model, what every unit holds
in a placement; the property tests use it to check plans.
"""

from __future__ import annotations

import random

from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text_save import dump_text
from ansible_collections.ganeti.htools.plugins.module_utils.model.storage import StorageUnit

POOL = ("lvm-vg", "xenvg")
VOLUME_GROUPS = (("lvm-vg", "ssdvg"), ("lvm-vg", "hddvg"))
FILE_UNIT = ("file", "/srv/ganeti/file-storage")
# Templates whose disks live on their nodes; DRBD's on both.
ON_NODE = ("drbd", "plain", "file")


def load(text, source="generated.data"):
    return load_text(text, source)


def comparable(data):
    """Whether one unit per node can reproduce 3.0.2's pool exactly: no
    exclusive storage (whose metric is spindles), no file instances (which
    3.0.2 never charges, and units do) and pools a unit can state (0 <= free
    <= total: the loaders refuse other units, hbal takes any pool)."""
    return (not any(n.excl_storage for n in data.nodes)
            and all(0 <= n.f_dsk <= n.t_dsk for n in data.nodes)
            and not any(i.template == "file" for i in data.instances))


def one_unit_per_node(data):
    """The same cluster, each node reporting its disk pool as one unit."""
    for node in data.nodes:
        node.set_storage_units([StorageUnit(POOL[0], POOL[1], (), node.f_dsk, int(node.t_dsk))])
    return dump_text(data)


def _holders(inst):
    return [inst.pnode, inst.snode] if inst.template == "drbd" else [inst.pnode]


def several_units(data, seed, file_units=True):
    """The cluster with two volume groups per node and file units on some
    (`file_units`; without, file instances want no unit)."""
    rng = random.Random(seed)
    wants = {}
    for inst in data.instances:
        if inst.template in ("drbd", "plain"):
            wants[inst.idx] = rng.choice(VOLUME_GROUPS)
        elif inst.template == "file" and file_units:
            wants[inst.idx] = FILE_UNIT
    has_file = {n.idx: file_units and rng.random() < 0.6 for n in data.nodes}
    for inst in data.instances:          # a file instance's own node has the unit
        if inst.template == "file" and file_units:
            has_file[inst.pnode] = True
    used = {}
    for inst in data.instances:
        if inst.idx in wants and not inst.forthcoming:
            for node in _holders(inst):
                key = (node, wants[inst.idx])
                used[key] = used.get(key, 0) + inst.dsk
    for node in data.nodes:
        kinds = list(VOLUME_GROUPS) + ([FILE_UNIT] if has_file[node.idx] else [])
        units = []
        for kind in kinds:
            taken = used.get((node.idx, kind), 0)
            total = taken + rng.randint(1, 4) * rng.choice((1024, 4096, 16384, 65536))
            units.append(StorageUnit(kind[0], kind[1], (), total - taken, total))
        node.set_storage_units(units)
    for inst in data.instances:
        if inst.idx in wants:
            inst.disk_units = (wants[inst.idx],) * len(inst.disks)
    return dump_text(data)


def unit_usage(data):
    """{(node name, (type, key)): MiB held} from the placement alone, and the
    disks that sit on a node without their unit: [(instance, node)]."""
    usage, misplaced = {}, []
    for inst in data.instances:
        if inst.template not in ON_NODE or inst.forthcoming:
            continue
        for idx in _holders(inst):
            node = data.nodes[idx]
            for desired in inst.disk_units:
                if desired is None:
                    continue
                ids = [(u.type, u.key) for u in node.storage_units]
                match = [i for i in ids if i[0] == desired[0] and desired[1] in (None, i[1])]
                if not match:
                    misplaced.append((inst.name, node.name))
                    continue
                key = (node.name, match[0])
                usage[key] = usage.get(key, 0) + inst.dsk // len(inst.disk_units)
    return usage, misplaced
