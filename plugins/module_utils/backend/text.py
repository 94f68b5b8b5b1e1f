# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reader for the htools text format (`hbal -t`, `hscan`, `hbal -S`).

Sections separated by empty lines: groups, nodes, instances, cluster tags and,
optionally, instance policies; fields within a line are separated by `|`.

Two optional columns beyond what hbal reads carry storage units
(model/storage.py): column 16 of a node line lists the node's units as
`free,total,type,key[,params...]` entries separated by `;` (sizes in MiB),
and column 14 of an instance line gives its (one) disk's desired unit as
`type,key` (or `type` alone: any unit of that type).  Without them a file
loads as hbal loads it.
"""

from __future__ import annotations

from ..errors import DataError
from ..model.cluster import ClusterData
from ..model.group import Group, IPolicy, ISpec
from ..model.instance import Instance
from ..model.node import Node
from ..model.storage import STORAGE_TYPES, StorageUnit, resolve_disk_units, unit_id
from ..model.vocabulary import ALLOC_POLICIES, DISK_TEMPLATES, NO_NODE, RUN_STATUSES
from .parsing import YES_NO, FieldReader, hs_lines, parse_int_text, sep_split
from .placement import check_placements


def split_sections(text):
    """Split into sections on empty lines, remembering each line's number."""
    sections = [[]]
    for lineno, line in enumerate(hs_lines(text), start=1):
        if line == "":
            sections.append([])
        else:
            sections[-1].append((lineno, line))
    return sections


def load_text(text, source="<text>"):
    """Parse htools text data into a ClusterData (no merge/derivation yet)."""
    sections = split_sections(text)
    if len(sections) < 4:
        raise DataError("invalid format: %d sections instead of 4 or more (groups, nodes, "
                        "instances, cluster tags[, ipolicies], separated by empty lines)"
                        % len(sections), source=source)
    groups = _parse_groups(sections[0], source)
    nodes = _parse_nodes(sections[1], groups, source)
    instances = _parse_instances(sections[2], nodes, source)
    cluster_tags = [line for _lineno, line in sections[3]]
    data = ClusterData(groups, nodes, instances, cluster_tags)
    data.source = source
    if len(sections) > 4:
        _parse_policies(sections[4], data, source)
    resolve_disk_units(data)
    check_placements(data, source)
    return data


def _parse_groups(lines, source):
    groups = []
    seen = set()
    for lineno, line in lines:
        rd = FieldReader(source, lineno, line.split("|"), "group line")
        if len(rd.fields) < 4:
            raise rd.error("%d fields instead of 4 or 5" % len(rd.fields),
                           expected="name|uuid|alloc_policy|tags[|networks]", got=line)
        name, uuid = rd.raw(0), rd.raw(1)
        policy = rd.choice(2, "alloc_policy", ALLOC_POLICIES)
        networks = sep_split(",", rd.raw(4)) if rd.has(4) else []
        for key in (name, uuid):
            if key in seen:
                raise rd.error("duplicate group name or UUID %r" % key)
        seen.update((name, uuid))
        groups.append(Group(len(groups), name, uuid, policy, sep_split(",", rd.raw(3)), networks))
    return groups


def _parse_nodes(lines, groups, source):
    by_uuid = {g.uuid: g for g in groups}
    nodes = []
    names = set()
    for lineno, line in lines:
        rd = FieldReader(source, lineno, line.split("|"), "node line")
        if len(rd.fields) < 9:
            raise rd.error("%d fields instead of 9 to 16" % len(rd.fields),
                           expected="name|t_mem|n_mem|f_mem|t_dsk|f_dsk|t_cpu|flag|group_uuid"
                                    "[|spindles|tags|excl_stor|free_spindles|n_cpu|cpu_speed"
                                    "[|storage]]",
                           got=line)
        name = rd.raw(0)
        if name in names:
            raise rd.error("duplicate node name %r" % name)
        names.add(name)
        group = by_uuid.get(rd.raw(8))
        if group is None:
            raise rd.error("unknown group %r for node %s" % (rd.raw(8), name),
                           field="9 (group uuid)", expected="the UUID of a group line")
        flag = rd.raw(7)
        idx = len(nodes)
        if "?" in rd.fields[1:7]:
            # Unknown resources: hbal keeps the node but as offline with zero sizes.
            node = Node(idx, name, 0.0, 0, 0, 0.0, 0, 0.0, 0, True, False, group.idx,
                        t_spindles=0, f_spindles=0)
        else:
            t_mem = rd.double(1, "t_mem")
            n_mem = rd.int(2, "n_mem")
            f_mem = rd.int(3, "f_mem")
            t_dsk = rd.double(4, "t_dsk")
            f_dsk = rd.int(5, "f_dsk")
            t_cpu = rd.double(6, "t_cpu")
            spindles = rd.int(9, "spindles") if rd.has(9) else 1
            tags = sep_split(",", rd.raw(10)) if rd.has(10) else []
            excl = rd.yes_no(11, "exclusive storage") if rd.has(11) else False
            f_spindles = rd.int(12, "free spindles") if rd.has(12) else 0
            n_cpu = rd.int(13, "n_cpu") if rd.has(13) else 1
            speed = rd.double(14, "cpu speed") if rd.has(14) else 1.0
            node = Node(idx, name, t_mem, n_mem, f_mem, t_dsk, f_dsk, t_cpu, n_cpu,
                        flag == "Y", flag == "M", group.idx, t_spindles=spindles,
                        f_spindles=f_spindles, excl_storage=excl, tags=tags, t_cpu_speed=speed)
            if rd.has(15):
                node.set_storage_units(_storage_units(rd, 15))
        nodes.append(node)
    return nodes


_UNIT_FORMAT = "free,total,type,key[,params...] entries separated by ';'"


def _storage_units(rd, pos):
    """The `storage` column of a node line: a tuple of StorageUnit."""
    field = "%d (storage)" % (pos + 1)
    units = []
    seen = set()
    for number, entry in enumerate(sep_split(";", rd.raw(pos)), start=1):
        unit = _storage_unit(rd, field, number, entry)
        if unit_id(unit) in seen:
            raise rd.error("storage unit %d repeats type %s key %r" % (number, unit.type, unit.key),
                           field=field, expected="one unit per type and key", got=entry)
        seen.add(unit_id(unit))
        units.append(unit)
    return tuple(units)


def _storage_unit(rd, field, number, entry):
    parts = entry.split(",")
    if len(parts) < 4:
        raise rd.error("storage unit %d has %d comma-separated parts instead of 4 or more"
                       % (number, len(parts)), field=field, expected=_UNIT_FORMAT, got=entry)
    free = _unit_size(rd, field, number, "free", parts[0])
    total = _unit_size(rd, field, number, "total", parts[1])
    if free > total:
        raise rd.error("storage unit %d has more free (%d) than total (%d) space"
                       % (number, free, total), field=field, expected="free <= total", got=entry)
    if parts[2] not in STORAGE_TYPES:
        raise rd.error("storage unit %d has a bad type" % number, field=field,
                       expected="one of " + ", ".join(STORAGE_TYPES), got=parts[2])
    if parts[3] == "":
        raise rd.error("storage unit %d has an empty key" % number, field=field,
                       expected="a key such as a volume group or directory", got=entry)
    return StorageUnit(parts[2], parts[3], tuple(parts[4:]), free, total)


def _unit_size(rd, field, number, label, text):
    size = parse_int_text(text)
    if size is None or size < 0:
        raise rd.error("storage unit %d has a bad %s size" % (number, label), field=field,
                       expected="a non-negative integer (MiB) of at most 16 digits", got=text)
    return size


def _disk_units(rd, pos, disk_count):
    """The desired-unit column of an instance line: one `type[,key]` per disk."""
    field = "%d (disk storage)" % (pos + 1)
    entries = sep_split(";", rd.raw(pos))
    if not entries:
        return None
    if len(entries) != disk_count:
        raise rd.error("%d desired storage units for %d disk(s)" % (len(entries), disk_count),
                       field=field, expected="one type[,key] entry per disk, separated by ';'",
                       got=rd.raw(pos))
    return tuple(_desired_unit(rd, field, entry) for entry in entries)


def _desired_unit(rd, field, entry):
    parts = entry.split(",")
    if len(parts) > 2 or parts[0] not in STORAGE_TYPES or parts[-1] == "":
        raise rd.error("bad desired storage unit", field=field,
                       expected="type[,key] with a non-empty key and a type among "
                                + ", ".join(STORAGE_TYPES), got=entry)
    return (parts[0], parts[1] if len(parts) == 2 else None)


def _small_count(text):
    """A plain decimal of at most 15 digits (always below 2**53) as an int, else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else None


def _quick_instance(fields, by_name, names, idx):
    """The instance of an ordinary line, or None: then the checked reader
    below reads it and names what is wrong, if anything (20 000-instance
    files are read on every run, so the common line must be cheap)."""
    count = len(fields)
    if count < 10 or count > 13:
        return None
    name, mem, dsk, vcpus, status, auto_balance, pname, sname, template, tags = fields[:10]
    mem, dsk, vcpus = _small_count(mem), _small_count(dsk), _small_count(vcpus)
    pnode = by_name.get(pname)
    snode = by_name.get(sname) if sname else NO_NODE
    if (name in names or mem is None or dsk is None or vcpus is None or pnode is None
            or snode is None or status not in RUN_STATUSES or auto_balance not in YES_NO
            or template not in DISK_TEMPLATES or (template == "drbd" and snode == pnode)):
        return None
    spindle_use = _small_count(fields[10]) if count > 10 else 1
    spindles = _small_count(fields[11]) if count > 11 and fields[11] != "-" else None
    forthcoming = fields[12] if count > 12 else "N"
    if spindle_use is None or (spindles is None and count > 11 and fields[11] != "-") \
            or forthcoming not in YES_NO:
        return None
    return Instance(idx, name, mem, dsk, vcpus, status, auto_balance == "Y", pnode, snode,
                    template, tags=sep_split(",", tags), spindle_use=spindle_use,
                    disks=[(dsk, spindles)], forthcoming=forthcoming == "Y")


def _parse_instances(lines, nodes, source):
    by_name = {n.name: n.idx for n in nodes}
    instances = []
    names = set()
    for lineno, line in lines:
        fields = line.split("|")
        inst = _quick_instance(fields, by_name, names, len(instances))
        if inst is not None:
            names.add(inst.name)
            instances.append(inst)
            continue
        rd = FieldReader(source, lineno, fields, "instance line")
        if len(rd.fields) < 10:
            raise rd.error("%d fields instead of 10 to 14" % len(rd.fields),
                           expected="name|mem|disk|vcpus|status|auto_balance|pnode|snode|"
                                    "template|tags[|spindle_use|spindles|forthcoming"
                                    "[|disk storage]]",
                           got=line)
        name = rd.raw(0)
        if name in names:
            raise rd.error("duplicate instance name %r" % name)
        names.add(name)
        mem = rd.int(1, "memory")
        dsk = rd.int(2, "disk")
        vcpus = rd.int(3, "vcpus")
        status = rd.choice(4, "run status", RUN_STATUSES)
        auto_balance = rd.yes_no(5, "auto_balance")
        pnode = by_name.get(rd.raw(6))
        if pnode is None:
            raise rd.error("unknown primary node %r for instance %s" % (rd.raw(6), name),
                           field="7 (primary node)", expected="a node name from the node section")
        snode = NO_NODE
        if rd.raw(7) != "":
            snode = by_name.get(rd.raw(7))
            if snode is None:
                raise rd.error("unknown secondary node %r for instance %s" % (rd.raw(7), name),
                               field="8 (secondary node)",
                               expected="a node name from the node section or empty")
        template = rd.choice(8, "disk template", DISK_TEMPLATES)
        if template == "drbd" and snode == pnode:
            raise rd.error("instance %s has the same primary and secondary node" % name,
                           field="8 (secondary node)", expected="a node other than the primary")
        tags = sep_split(",", rd.raw(9))
        spindle_use = rd.int(10, "spindle_use") if rd.has(10) else 1
        spindles = None
        if rd.has(11) and rd.raw(11) != "-":
            spindles = rd.int(11, "disk spindles")
        forthcoming = rd.yes_no(12, "forthcoming") if rd.has(12) else False
        disks = [(dsk, spindles)]
        disk_units = _disk_units(rd, 13, len(disks)) if rd.has(13) else None
        instances.append(Instance(len(instances), name, mem, dsk, vcpus, status, auto_balance,
                                  pnode, snode, template, tags=tags, spindle_use=spindle_use,
                                  disks=disks, forthcoming=forthcoming, disk_units=disk_units))
    return instances


def _parse_ispec(rd, pos, text, label):
    parts = text.split(",")
    values = []
    for part in parts:
        sub = FieldReader(rd.source, rd.lineno, [part], rd.kind)
        try:
            values.append(sub.int(0, label))
        except DataError:
            values = None
            break
    if values is None or len(values) != 6:
        raise rd.error("bad %s" % label, field="%d (%s)" % (pos + 1, label),
                       expected="6 comma-separated integers mem,cpu,disk,disk_count,nic,spindles",
                       got=text)
    return ISpec(*values)


def _parse_policies(lines, data, source):
    for lineno, line in lines:
        rd = FieldReader(source, lineno, line.split("|"), "ipolicy line")
        if len(rd.fields) < 6:
            raise rd.error("%d fields instead of 6" % len(rd.fields),
                           expected="owner|std|minmax|disk_templates|vcpu_ratio|spindle_ratio",
                           got=line)
        std = _parse_ispec(rd, 1, rd.raw(1), "std spec")
        specs = [_parse_ispec(rd, 2, text, "minmax spec") for text in rd.raw(2).split(";")]
        if len(specs) % 2:
            raise rd.error("odd number of min/max specs", field="3 (minmax)",
                           expected="min;max pairs", got=rd.raw(2))
        minmax = [(specs[i], specs[i + 1]) for i in range(0, len(specs), 2)]
        templates = sep_split(",", rd.raw(3))
        policy = IPolicy(std, minmax, templates, rd.double(4, "vcpu_ratio"),
                         rd.double(5, "spindle_ratio"))
        owner = rd.raw(0)
        if owner == "":
            data.ipolicy = policy
            continue
        group = data.group_by_name_or_uuid(owner)
        if group is None:
            raise rd.error("unknown group %r" % owner, field="1 (owner)",
                           expected="empty (cluster) or a group name or UUID")
        group.ipolicy = policy
