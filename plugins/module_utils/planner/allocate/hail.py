# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hail 3.0.2's allocate, multi-allocate and allocate-secondary answers.

A new instance goes to the best node group (allocation policy first, then
the score of its best placement), within that group to the best node or
node pair, as htools' tryMGAlloc / tryGroupAlloc choose; every group's
outcome is described in the info text, word for word as hail writes it.
"""

from __future__ import annotations

from ...errors import DataError
from ...model.instance import Instance
from ...model.vocabulary import DISK_TEMPLATES
from ...backend.prepare import TAG_DESIRED_LOCATION, TAG_IEXTAGS
from ..capacity.alloc import NoNodes, alloc_nodes, try_alloc
from ..capacity.globaln1 import Checker
from ..evacuate.haskell_show import show_group_list
from ..evacuate.state import Failed
from . import dedicated
from .index_clash import clashing_index, redundant_as_hail

ALLOCATE, MULTI_ALLOCATE, ALLOCATE_SECONDARY = "allocate", "multi-allocate", "allocate-secondary"
KINDS = (ALLOCATE, MULTI_ALLOCATE, ALLOCATE_SECONDARY)
POLICY_RANK = {"preferred": 0, "last_resort": 1, "unallocable": 2}
_ADMIN_STATE = {"up": "running", "down": "ADMIN_down", "offline": "ADMIN_offline"}


def _key(raw, key, kind, what):
    if key not in raw:
        raise DataError("%s: key '%s' not found" % (what, key))
    value = raw[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise DataError("%s: key '%s' is not an integer" % (what, key))
    if kind is str and not isinstance(value, str):
        raise DataError("%s: key '%s' is not a string" % (what, key))
    return value


def _prefixes(tags, prefix):
    return [t[len(prefix):] for t in tags if t.startswith(prefix) and t[len(prefix):]]


def new_instance(data, raw, name):
    """parseBaseInstance of a request: the instance to place (no nodes yet)."""
    what = "invalid data for instance '%s'" % name
    template = _key(raw, "disk_template", str, what)
    if template not in DISK_TEMPLATES:
        raise DataError("%s: unknown disk template %r" % (what, template))
    disks = [(_key(d, "size", int, what), d.get("spindles")) for d in _key(raw, "disks", list, what)]
    state = raw.get("admin_state", "up")
    inst = Instance(-1, name, _key(raw, "memory", int, what),
                    _key(raw, "disk_space_total", int, what), _key(raw, "vcpus", int, what),
                    _ADMIN_STATE.get(state, "running"), True, 0, 0, template,
                    tags=_key(raw, "tags", list, what),
                    spindle_use=_key(raw, "spindle_use", int, what), disks=disks,
                    forthcoming=bool(raw.get("forthcoming", False)),
                    nics=_key(raw, "nics", list, what))
    excl = _prefixes(data.cluster_tags, TAG_IEXTAGS)
    dsrd = _prefixes(data.cluster_tags, TAG_DESIRED_LOCATION)
    inst.excl_tags = [t for t in inst.tags if any(t.startswith(p) for p in excl)]
    inst.dsrd_loc_tags = frozenset(t for t in inst.tags if any(t.startswith(p) for p in dsrd))
    return inst


class Allocation:
    """One placement request's outcome: (solution or None, log lines)."""

    def __init__(self, sol, log):
        self.sol = sol
        self.log = log

    @property
    def info(self):
        return ", ".join(self.log)


def _networks_ok(group, inst):
    nets = [nic.get("network") for nic in inst.nics if isinstance(nic, dict)]
    return all(net is None or net in group.networks for net in nets)


def _names(nodes):
    return lambda best: [nodes[k].name for k in _order(best)]


def _order(best):
    """The solution's nodes as hail lists them: primary, then secondary."""
    placed = best[2]
    return [placed.pnode] + ([placed.snode] if placed.snode in best[1] and
                             placed.snode != placed.pnode else [])


def _try(data, nodes, insts, inst, targets, required, opts, scope, members=None):
    """tryAlloc; `members`: the nodes of the group whose own lists hail
    allocates on (findAllocation, a named group), None: the cluster's lists."""
    good = None
    clash = clashing_index(insts, members) if opts["capacity"] and members else None
    if clash is not None:
        def good(item):
            return redundant_as_hail(data, nodes, insts, item, members, clash)
    elif opts["capacity"]:
        checker = Checker(data)

        def good(item):
            new_nodes = list(nodes)
            for idx, node in item[1].items():
                new_nodes[idx] = node
            return checker.redundant(new_nodes, insts + [item[2]], scope)
    return try_alloc(data, nodes, inst, targets, required, force=opts["force"], good=good,
                     scope=scope)


def best_group(data, nodes, insts, inst, required, opts, allowed=None):
    """findBestAllocGroup: (group idx, solution, log lines) or raise Failed."""
    populated = sorted({n.group for n in nodes})
    groups = [g for g in populated if allowed is None or g in allowed]
    msgs, valid = [], []
    for gdx in groups:
        if _networks_ok(data.groups[gdx], inst):
            valid.append(gdx)
        else:
            msgs.append("group %s is not connected to a network required by instance %s"
                        % (data.groups[gdx].name, inst.name))
    results = []
    for gdx in valid:
        group = data.groups[gdx]
        targets = alloc_nodes([n for n in nodes if n.group == gdx], lambda _g: True, required,
                              opts.get("restrict"))
        try:
            sol = _try(data, nodes, insts, inst, targets, required, opts, None)
        except NoNodes as err:
            msgs.append("Group %s: error %s" % (group.name, err))
            continue
        msgs.append("Group %s (%s): %s" % (group.name, group.alloc_policy,
                                           sol.describe(_names(nodes))))
        if sol.best is not None and group.alloc_policy != "unallocable":
            results.append((gdx, sol))
    if not results:
        if not groups:
            raise Failed("no groups for evacuation: allowed groups was %s, all groups: %s"
                         % ("Nothing" if allowed is None else "Just %s" % list(allowed),
                            show_group_list([data.groups[g] for g in populated])))
        raise Failed(", ".join(msgs))
    results.reverse()
    results.sort(key=lambda r: (POLICY_RANK[data.groups[r[0]].alloc_policy], r[1].best[0]))
    return results[0][0], results[0][1], msgs


def mg_alloc(data, nodes, insts, inst, required, opts):
    """tryMGAlloc: an Allocation, or raise Failed."""
    gdx, sol, msgs = best_group(data, nodes, insts, inst, required, opts)
    return Allocation(sol, ["Selected group: %s" % data.groups[gdx].name] + msgs)


def group_alloc(data, nodes, insts, inst, required, opts, group_name):
    """tryGroupAlloc: an Allocation (maybe without solution), or raise Failed."""
    found = [g for g in data.groups if group_name in (g.uuid, g.name)]
    if len(found) != 1:
        raise Failed("Wrong number of elems found with name %s" % group_name)
    group = found[0]
    if not _networks_ok(group, inst):
        raise Failed("The group %s is not connected to a network required by instance %s"
                     % (group.name, inst.name))
    members = [n for n in nodes if n.group == group.idx]
    targets = alloc_nodes(members, lambda _g: True, required, opts.get("restrict"))
    try:
        scope = [n.idx for n in members]
        sol = _try(data, nodes, insts, inst, targets, required, opts, scope, scope)
    except NoNodes as err:
        raise Failed(str(err)) from None
    return Allocation(sol, ["Group %s (%s): %s" % (group.name, group.alloc_policy,
                                                   sol.describe(_names(nodes)))])


def answer(data, request, force=False, capacity=True, restrict=None):
    """hail's response document (success, info, result) for an allocate-family request.

    `restrict`: hail's --restrict-allocation-to (node names); it wins over an
    allocate request's own restrict-to-nodes, as in hail."""
    opts = dict(force=force, capacity=capacity, restrict=restrict)
    kind = _key(request, "type", str, "invalid request dict")
    nodes, insts = list(data.nodes), list(data.instances)
    try:
        if kind == ALLOCATE:
            info, result = _allocate(data, nodes, insts, request, opts)
        elif kind == MULTI_ALLOCATE:
            info, result = _multi(data, nodes, insts, request, opts)
        elif kind == ALLOCATE_SECONDARY:
            info, result = _secondary(data, nodes, insts, request, opts)
        else:
            raise DataError("Invalid request type '%s'" % kind)
    except Failed as err:
        return {"success": False, "info": "Request failed: %s" % err, "result": []}
    return {"success": True, "info": "Request successful: %s" % info, "result": result}


def _allocate(data, nodes, insts, request, opts):
    name = _key(request, "name", str, "invalid request dict")
    required = _key(request, "required_nodes", int, "invalid request dict")
    inst = new_instance(data, request, name)
    inst.idx = len(insts)
    restrict = opts["restrict"] if opts["restrict"] is not None \
        else request.get("restrict-to-nodes")
    opts = dict(opts, restrict=restrict)
    group = request.get("group_name")
    if dedicated.is_dedicated(data, group):
        if group is not None:
            gdx = _group_idx(data, group)
            sol, log = dedicated.find_allocation(data, nodes, gdx, inst, required, opts["force"],
                                                 restrict)
        else:
            sol, log = dedicated.find_mg_allocation(data, nodes, inst, required, opts["force"],
                                                    restrict)
        if sol.best is None:
            raise Failed(", ".join(log))
        return ", ".join(log), [nodes[k].name for k in sol.best[3]]
    alloc = (group_alloc(data, nodes, insts, inst, required, opts, group) if group is not None
             else mg_alloc(data, nodes, insts, inst, required, opts))
    if alloc.sol.best is None:
        raise Failed(alloc.info)
    return alloc.info, _names(nodes)(alloc.sol.best)


def _group_idx(data, name):
    found = [g for g in data.groups if name in (g.uuid, g.name)]
    if len(found) != 1:
        raise Failed("Wrong number of elems found with name %s" % name)
    return found[0].idx


def _multi(data, nodes, insts, request, opts):
    group = request.get("group_name")
    raws = _key(request, "instances", list, "invalid request dict")
    ded = dedicated.is_dedicated(data, group)
    start = nodes
    # a dedicated placement's node list is its group's alone (Dedicated.hs
    # allocates on the group's nodes, and allocList goes on from that list):
    # after the first placement hail sees no other group
    only = None
    done, failed = [], []
    for raw in raws:
        name = _key(raw, "name", str, "invalid request dict")
        required = _key(raw, "required_nodes", int, "invalid request dict")
        inst = new_instance(data, raw, name)
        inst.idx = len(insts)
        if ded:
            if group is not None:
                # hail places each instance of a named group on the cluster as it was
                sol, _log = dedicated.find_allocation(data, start, _group_idx(data, group), inst,
                                                      required, opts["force"], opts["restrict"])
                log = [sol.describe(start)]
            else:
                sol, log = dedicated.find_mg_allocation(data, nodes, inst, required,
                                                        opts["force"], opts["restrict"], only)
                if sol.best is not None:
                    only = {nodes[sol.best[3][0]].group}
            best = sol.best
            names = [nodes[k].name for k in best[3]] if best is not None else None
            changed = best[1] if best is not None else None
            placed = best[2] if best is not None else None
            info = ", ".join(log)
        else:
            alloc = (group_alloc(data, nodes, insts, inst, required, opts, group)
                     if group is not None else mg_alloc(data, nodes, insts, inst, required, opts))
            best = alloc.sol.best
            names = _names(nodes)(best) if best is not None else None
            changed = best[1] if best is not None else None
            placed = best[2] if best is not None else None
            info = alloc.info
        if best is None:
            failed.append([name, info])
            continue
        done.append([name, names])
        # hail's next state is the solution's node list: from the cluster as it was
        # when a dedicated group was named, else as the previous placements left it
        nodes = list(start if ded and group is not None else nodes)
        for idx, node in changed.items():
            nodes[idx] = node
        insts = insts + [placed]
    info = "%d instances failed to allocate and %d were allocated successfully" % (
        len(failed), len(done))
    return info, [done, failed]


def _secondary(data, nodes, insts, request, opts):
    name = _key(request, "name", str, "invalid request dict")
    found = [i for i in insts if name in (i.name, i.alias)]
    if len(found) != 1:
        raise DataError("Wrong number of elems found with name %s" % name)
    inst = found[0]
    if inst.snode >= 0:
        raise Failed("Instance already has a secondary")
    pnode = nodes[inst.pnode].copy()
    pnode.remove_pri(inst)
    nodes = list(nodes)
    nodes[inst.pnode] = pnode
    moved = inst.copy()
    moved.template = "drbd"
    others = [n.idx for n in nodes if n.group == pnode.group and n.idx != pnode.idx]
    sol = _try(data, nodes, insts, moved, [(pnode.idx, others)], 2, opts, None)
    info = sol.describe(_names(nodes))
    if sol.best is None:
        raise Failed(info)
    return info, nodes[sol.best[2].snode].name
