# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_allocate's input as the IAllocator request Ganeti would send, and
hail's answer as placements and the commands an operator would run."""

from __future__ import annotations

from ...errors import HtoolsError
from ...backend.prepare import prepare_model
from ..evacuate.request import known_nodes
from .hail import ALLOCATE, ALLOCATE_SECONDARY, KINDS, MULTI_ALLOCATE, answer

# Ganeti's own disk_space_total (cmdlib ComputeDiskSize): DRBD adds 128 MiB of
# metadata per disk, diskless and blockdev take no space from the node.
DRBD_META_SIZE = 128


def disk_space_total(template, sizes):
    if template in ("diskless", "blockdev"):
        return 0
    return sum(size + (DRBD_META_SIZE if template == "drbd" else 0) for size in sizes)


def _spec_request(spec, name):
    template = spec["disk_template"]
    sizes = [] if template == "diskless" else list(spec.get("disks") or [])
    spindles = spec.get("spindles")
    return {"name": name, "memory": spec["memory"], "vcpus": spec["vcpus"],
            "disk_template": template,
            "disks": [dict({"size": s, "mode": "rw"},
                           **({"spindles": spindles} if spindles is not None else {}))
                      for s in sizes],
            "disk_space_total": disk_space_total(template, sizes),
            "tags": list(spec.get("tags") or []), "spindle_use": spec.get("spindle_use") or 1,
            "nics": [{"network": n} for n in spec.get("networks") or []] or [{}],
            "required_nodes": 2 if template == "drbd" else 1}


def build_request(params):
    """The IAllocator request the module options describe."""
    if params.get("secondary_for"):
        return {"type": ALLOCATE_SECONDARY, "name": params["secondary_for"]}
    specs = params.get("instances") or []
    if not specs:
        raise HtoolsError("give instances (the specs to place) or secondary_for, or a data_file "
                          "holding an IAllocator request")
    raws = []
    for pos, spec in enumerate(specs):
        count = spec.get("count") or 1
        for k in range(count):
            name = spec.get("name") or "new%d" % (pos + 1)
            raws.append(_spec_request(spec, name if count == 1 else "%s-%d" % (name, k + 1)))
    groups = {spec.get("group") for spec in specs}
    if len(raws) == 1 and params.get("group") is None:
        req = dict(raws[0], type=ALLOCATE)
        if specs[0].get("group"):
            req["group_name"] = specs[0]["group"]
        return req
    req = {"type": MULTI_ALLOCATE, "instances": raws}
    group = params.get("group") or (groups.pop() if len(groups) == 1 else None)
    if group:
        req["group_name"] = group
    return req


def placed_requests(req, doc):
    """[(the request's instance, [its nodes])] of an allocate or multi-allocate
    answer, in placement order (none for a failed request)."""
    if not doc["success"] or req["type"] == ALLOCATE_SECONDARY:
        return []
    if req["type"] == ALLOCATE:
        return [(req, doc["result"])]
    by_name = {raw["name"]: raw for raw in req["instances"]}
    return [(by_name[name], nodes) for name, nodes in doc["result"][0]]


def _commands(req, doc):
    """gnt-instance commands for the placements (what Ganeti would be asked)."""
    if not doc["success"]:
        return []
    if req["type"] == ALLOCATE_SECONDARY:
        return ["gnt-instance modify -t drbd -n %s %s" % (doc["result"], req["name"])]
    out = []
    for raw, nodes in placed_requests(req, doc):
        disks = " ".join("--disk %d:size=%dm" % (k, d["size"]) for k, d in enumerate(raw["disks"]))
        out.append("gnt-instance add -t %s -n %s -B memory=%dm,vcpus=%d %s-o OS %s" % (
            raw["disk_template"], ":".join(nodes), raw["memory"], raw["vcpus"],
            disks + " " if disks else "", raw["name"]))
    return out


def allocate_report(data, params):
    """The module's result: hail's answer and what it means."""
    req = data.request if data.request is not None else build_request(params)
    if data.request is not None and (params.get("instances") or params.get("secondary_for")):
        raise HtoolsError("data_file %s is an IAllocator request, which says itself what to "
                          "place: leave out instances and secondary_for" % data.source)
    if not isinstance(req, dict) or req.get("type") not in KINDS:
        raise HtoolsError("the IAllocator request is of type %r; this module answers %s "
                          "(ganeti_evacuate_group answers the others)"
                          % (req.get("type") if isinstance(req, dict) else None, ", ".join(KINDS)))
    prepare_model(data)  # as hail, which takes no data-source options
    restrict = known_nodes(data, params.get("restrict_allocation_to"))
    doc = answer(data, req, force=params.get("ignore_soft_errors"),
                 capacity=not params.get("no_capacity_checks"),
                 restrict=restrict)
    placements = []
    if doc["success"] and req["type"] == ALLOCATE:
        placements = [_placement(req["name"], doc["result"])]
    elif doc["success"] and req["type"] == MULTI_ALLOCATE:
        placements = [_placement(name, nodes) for name, nodes in doc["result"][0]]
        placements += [dict(instance=name, failed=why) for name, why in doc["result"][1]]
    elif doc["success"]:
        placements = [dict(instance=req["name"], secondary=doc["result"])]
    return dict(success=doc["success"], info=doc["info"], result=doc["result"],
                placements=placements, commands=_commands(req, doc),
                summary="%s: %s" % (req["type"], doc["info"]), request=req)


def _placement(name, nodes):
    return dict(instance=name, primary=nodes[0], secondary=nodes[1] if len(nodes) > 1 else None)
