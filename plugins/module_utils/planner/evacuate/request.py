# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to evacuate: an IAllocator request, or module-style options, resolved
to instance and group indices the way hail resolves names."""

from __future__ import annotations

from ...errors import DataError, LookupFailure
from .options import ALL, HAIL_MODES, MODES, PHASES, PRIMARY_ONLY, SECONDARY_ONLY

NODE_EVACUATE, CHANGE_GROUP, RELOCATE = "node-evacuate", "change-group", "relocate"


class Request:
    """kind, mode (node-evacuate), instance indices, target group indices,
    the two hail options; `relocate` also carries the excluded node indices.

    `phases` are the hail requests a node evacuation runs, in order: (hail
    mode, instance indices), one for a hail mode, two for secondary-then-primary.
    """

    def __init__(self, kind, idxs, mode=ALL, targets=(), ignore_soft_errors=False,
                 no_capacity_checks=False, relocate_from=(), required_nodes=1, nodes=(),
                 phases=None, restrict=None):
        self.kind = kind
        self.nodes = list(nodes)        # the evacuated nodes' indices, when given by name
        self.idxs = list(idxs)
        self.mode = mode
        self.phases = list(phases) if phases is not None else [(mode, self.idxs)]
        # hail's --restrict-allocation-to: node names a change-group may choose
        # its target group by (None: any)
        self.restrict = restrict
        self.targets = list(targets)
        self.ignore_soft_errors = bool(ignore_soft_errors)
        self.no_capacity_checks = bool(no_capacity_checks)
        self.relocate_from = list(relocate_from)
        self.required_nodes = required_nodes


def _carrying(items, name, names_of):
    return [item for item in items if name in names_of(item)]


def find_one(items, name, names_of):
    """hail's lookup: exactly one item must carry `name` among its names."""
    found = _carrying(items, name, names_of)
    if len(found) != 1:
        raise LookupFailure("Wrong number of elems found with name %s" % name)
    return found[0]


def _named(items, name, names_of, what):
    """A module option's name lookup: as hail's, with a message for people."""
    found = _carrying(items, name, names_of)
    if not found:
        raise LookupFailure("unknown %s %s" % (what, name))
    if len(found) > 1:
        raise LookupFailure("%s %s is ambiguous: %s" % (what, name, ", ".join(
            sorted(names_of(item)[0] for item in found))))
    return found[0].idx


def _inst(data, name):
    return find_one(data.instances, name, lambda i: (i.name, i.alias)).idx


def _group(data, name):
    return find_one(data.groups, name, lambda g: (g.uuid, g.name)).idx


def _field(request, key, kind):
    if key not in request:
        raise DataError("invalid request dict: key '%s' not found" % key)
    value = request[key]
    if kind is list and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise DataError("invalid request dict: key '%s' is not a list of strings" % key)
    if kind is str and not isinstance(value, str):
        raise DataError("invalid request dict: key '%s': Unable to read String" % key)
    return value


def from_ialloc(data, request, ignore_soft_errors=False, no_capacity_checks=False,
                restrict=None):
    """A request dict of an IAllocator document (data already prepared)."""
    if not isinstance(request, dict):
        raise DataError("invalid iallocator message: key 'request' not found")
    kind = _field(request, "type", str)
    opts = dict(ignore_soft_errors=ignore_soft_errors, no_capacity_checks=no_capacity_checks,
                restrict=restrict)
    if kind == NODE_EVACUATE:
        idxs = [_inst(data, n) for n in _field(request, "instances", list)]
        mode = _field(request, "evac_mode", str)
        if mode not in HAIL_MODES:
            raise DataError("invalid request dict: key 'evac_mode': unknown mode %r" % mode)
        return Request(kind, idxs, mode=mode, **opts)
    if kind == CHANGE_GROUP:
        idxs = [_inst(data, n) for n in _field(request, "instances", list)]
        targets = [_group(data, g) for g in _field(request, "target_groups", list)]
        return Request(kind, idxs, targets=targets, **opts)
    if kind == RELOCATE:
        idx = _inst(data, _field(request, "name", str))
        names = _field(request, "relocate_from", list)
        nodes = [find_one(data.nodes, n, lambda x: (x.name, x.alias)).idx for n in names]
        required = request.get("required_nodes")
        if not isinstance(required, int):
            raise DataError("invalid request dict: key 'required_nodes' is not an integer")
        return Request(kind, [idx], relocate_from=nodes, required_nodes=required, **opts)
    raise DataError("unsupported request type %r (this planner answers node-evacuate, "
                    "change-group and relocate)" % kind)


def from_options(data, options):
    """Module-style options: `nodes` + `mode`, or `instances` + `target_groups`.

    With `nodes`, the instances are those with their primary (primary-only),
    their secondary (secondary-only) or either (all) on one of the nodes, in
    Ganeti's configuration order (config_order);
    secondary-then-primary asks for the secondaries, then the primaries (a
    secondary-only evacuation moves no primary, so both lists are known now).
    """
    common = dict(ignore_soft_errors=options.get("ignore_soft_errors") or False,
                  no_capacity_checks=options.get("no_capacity_checks") or False,
                  restrict=known_nodes(data, options.get("restrict_allocation_to")))
    nodes = options.get("nodes") or []
    instances = options.get("instances") or []
    if nodes and instances:
        raise DataError("give either nodes (node-evacuate) or instances (change-group), not both")
    if nodes:
        mode = options.get("mode") or MODES[0]
        if mode not in MODES:
            raise DataError("unknown evacuation mode %r" % mode, expected=", ".join(MODES))
        wanted = sorted({_named(data.nodes, n, lambda x: (x.name, x.alias), "node")
                         for n in nodes})
        phases = [(hail_mode, _on_nodes(data, wanted, hail_mode)) for hail_mode in PHASES[mode]]
        idxs = [idx for _mode, each in phases for idx in each]
        return Request(NODE_EVACUATE, idxs, mode=mode, nodes=wanted, phases=phases, **common)
    if instances:
        idxs = [_named(data.instances, n, lambda i: (i.name, i.alias), "instance")
                for n in instances]
        targets = [_named(data.groups, g, lambda x: (x.name, x.uuid), "node group")
                   for g in options.get("target_groups") or []]
        return Request(CHANGE_GROUP, idxs, targets=targets, **common)
    raise DataError("nothing to evacuate: give nodes (node-evacuate) or instances (change-group)")


def config_order(instances):
    """The instances in the order Ganeti's configuration holds them - by UUID
    - when every one has its UUID (live and saved RAPI data), else as given."""
    if instances and all(inst.uuid for inst in instances):
        return sorted(instances, key=lambda inst: inst.uuid)
    return list(instances)


def _on_nodes(data, wanted, mode):
    """The instances the request Ganeti sends for `mode` off the nodes
    `wanted` lists, in its order (LUNodeEvacuate reads them from its
    configuration)."""
    idxs = []
    for inst in config_order(data.instances):
        on_p = inst.pnode in wanted and mode != SECONDARY_ONLY
        on_s = inst.snode in wanted and mode != PRIMARY_ONLY
        if on_p or on_s:
            idxs.append(inst.idx)
    return idxs


def known_nodes(data, names):
    """hail's --restrict-allocation-to list (None: no restriction); every name
    must be a node of the cluster (hail ignores a typing error silently)."""
    if not names:
        return None
    known = {node.name for node in data.nodes}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise DataError("restrict_allocation_to: no such node: %s (give full node names)"
                        % ", ".join(unknown))
    return list(names)
