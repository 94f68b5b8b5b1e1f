# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Writer for the htools text format, as `hbal -S` writes it.

Sections (groups, nodes, instances, cluster tags, policies: the cluster's
first, then each group's in index order) are separated by empty lines.  As in
hbal, the free memory written is the loaded one, which moves never update, and
the free disk the current one.

The storage columns (node column 16, instance column 14; see text.py) are
written only when there is something to say: a node's when it has storage
units, an instance's when its disks' desired units differ from what loading
would derive from its primary node.  Data without units therefore saves
byte for byte as hbal saves it.
"""

from __future__ import annotations

import json

from ..errors import DataError
from ..model.storage import derive_desired_unit
from ..numfmt import hs_fixed, hs_printf_f


def _size(value, hbal_compat):
    # hbal writes %.0f, which loses fractional sizes; by default they keep their
    # digits so that saving and re-reading gives the same model.
    if hbal_compat or float(value).is_integer():
        return hs_fixed(value, 0)
    return repr(float(value))


def _yn(flag):
    return "Y" if flag else "N"


def _ispec(spec):
    return ",".join(str(v) for v in spec.as_tuple())


def _policy_line(owner, policy):
    minmax = ";".join("%s;%s" % (_ispec(lo), _ispec(hi)) for lo, hi in policy.minmax)
    return "|".join((owner, _ispec(policy.std), minmax, ",".join(policy.disk_templates),
                     hs_printf_f(policy.vcpu_ratio), hs_printf_f(policy.spindle_ratio)))


def _param_text(param):
    # text-format parameters are strings; others (IAllocator's JSON values) as JSON
    return param if isinstance(param, str) else json.dumps(param)


# The text format has no quoting: a unit's key or parameter holding one of
# these would change what the line says when it is read back.
_SEPARATORS = (",", ";", "|", "\n")


def _plain(value, what):
    if any(sep in value for sep in _SEPARATORS):
        raise DataError("%s %r cannot be written in the text format (it holds one of "
                        "',', ';', '|' or a line break)" % (what, value))
    return value


def storage_field(units):
    """The node line's storage column: `free,total,type,key[,params...]` joined by `;`."""
    return ";".join(",".join([str(u.free), str(u.total), u.type,
                              _plain(u.key, "storage unit key")]
                             + [_plain(_param_text(p), "storage unit parameter")
                                for p in u.params]) for u in units)


def disk_unit_field(desired):
    """The instance line's desired-unit column, `type[,key]` for its one disk."""
    kind, key = desired
    return kind if key is None else "%s,%s" % (kind, _plain(key, "storage unit key"))


def node_line(node, group_uuid, hbal_compat=False):
    flag = "Y" if node.offline else ("M" if node.is_master else "N")
    fields = [node.name, _size(node.t_mem, hbal_compat), str(node.n_mem), str(node.f_mem),
              _size(node.t_dsk, hbal_compat), str(node.f_dsk),
              _size(node.t_cpu, hbal_compat), flag, group_uuid,
              str(node.t_spindles), ",".join(node.tags), _yn(node.excl_storage),
              str(node.f_spindles), str(node.n_cpu), hs_printf_f(node.t_cpu_speed)]
    if node.storage_units:
        fields.append(storage_field(node.current_units()))
    return "|".join(fields)


def _explicit_disk_unit(inst, nodes):
    """The desired unit to write, or None when loading would derive it anyway.

    A text line holds one disk, the sum of the instance's disks, so it takes
    the first disk's unit (disks of one instance normally share one)."""
    if not inst.disk_units or inst.disk_units[0] is None:
        return None
    if inst.disk_units[0] == derive_desired_unit(inst.template, nodes[inst.pnode].storage_units):
        return None
    return inst.disk_units[0]


def instance_line(inst, nodes):
    spindles = inst.disks[0][1] if inst.disks else None
    fields = [inst.name, str(inst.mem), str(inst.dsk), str(inst.vcpus), inst.run_status,
              _yn(inst.auto_balance), nodes[inst.pnode].name,
              nodes[inst.snode].name if inst.snode >= 0 else "", inst.template,
              ",".join(inst.tags), str(inst.spindle_use),
              "-" if spindles is None else str(spindles), _yn(inst.forthcoming)]
    explicit = _explicit_disk_unit(inst, nodes)
    if explicit is not None:
        fields.append(disk_unit_field(explicit))
    return "|".join(fields)


def dump_text(data, nodes=None, instances=None, hbal_compat=False):
    """Serialise `data`; `nodes`/`instances` restrict the node and instance sections
    (hbal writes only the selected group's ones after balancing).  With
    `hbal_compat` the output is byte for byte what `hbal -S` writes."""
    nodes = data.nodes if nodes is None else nodes
    instances = data.instances if instances is None else instances
    by_idx = {node.idx: node for node in data.nodes}
    sections = [
        ["|".join((g.name, g.uuid, g.alloc_policy, ",".join(g.tags), ",".join(g.networks)))
         for g in data.groups],
        [node_line(n, data.groups[n.group].uuid, hbal_compat) for n in nodes],
        [instance_line(i, by_idx) for i in instances],
        list(data.cluster_tags),
        [_policy_line("", data.ipolicy)] + [_policy_line(g.name, g.ipolicy) for g in data.groups],
    ]
    return "\n".join("".join(line + "\n" for line in section) for section in sections)


def save_text_file(data, path, nodes=None, instances=None, hbal_compat=False):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(dump_text(data, nodes, instances, hbal_compat))
