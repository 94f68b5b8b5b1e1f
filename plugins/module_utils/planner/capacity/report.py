# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity's result: load → (down nodes) → hspace → readable figures."""

from __future__ import annotations

from ...backend.prepare import prepare_model
from ...collector import collector_paused
from .run import hspace

# the module options that are hspace's own (the rest say where the cluster is)
HSPACE_OPTIONS = ("disk_template", "spindle_use", "standard_spec", "tiered_spec",
                  "independent_groups", "accept_existing_errors", "no_capacity_checks",
                  "max_length")
SPEC_KEYS = ("memory", "disk", "vcpus", "spindles")
# the node status options: the module takes no utilisation, tag or MonD options
PREPARED_WITH = ("offline_nodes", "min_disk", "max_cpu")


def _spec(value):
    """A spec option (dict) as hspace's (mem, dsk, cpu, spn); spindles default to 1."""
    if value is None:
        return None
    return (value["memory"], value["disk"], value["vcpus"],
            1 if value.get("spindles") is None else value["spindles"])


def _spec_dict(spec):
    return dict(zip(SPEC_KEYS, (spec.mem, spec.dsk, spec.cpu, spec.spn)))


def capacity_report(data, params):
    """The module's result for freshly loaded data."""
    prepare_model(data, params, PREPARED_WITH)
    down = None
    if params.get("down_nodes"):
        # only here: the evacuation planner it needs is not loaded for the rest
        from .down import take_down  # pylint: disable=import-outside-toplevel
        down = take_down(data, params["down_nodes"])
    opts = {k: params.get(k) for k in HSPACE_OPTIONS}
    opts["standard_spec"] = _spec(opts["standard_spec"])
    opts["tiered_spec"] = _spec(opts["tiered_spec"])
    if opts["max_length"] is None:
        opts["max_length"] = -1
    with collector_paused():
        run = hspace(data, opts)
    keys = run["keys"]
    machine = dict(keys)
    standard, tiered = run["standard"], run["tiered"]
    result = dict(
        machine_readable=machine,
        disk_template=run["template"],
        standard=dict(spec=_spec_dict(run["standard_spec"]),
                      instances=len(standard.state.ixes),
                      fail_reason=standard.reasons[0][0] if standard.reasons else None,
                      failures=dict(standard.reasons)),
        tiered=dict(initial_spec=_spec_dict(run["tiered_spec"]),
                    instances=len(tiered.state.ixes),
                    specs=[dict(_spec_dict(s), count=c) for s, c in tiered.spec_map]),
        n1_failures=run["bad_nodes"],
        not_redundant_groups=run["bad_groups"],
        allocation_stopped=run["stopped"],
    )
    if params.get("details") == "full":
        result["standard"]["placements"] = _placements(standard.state)
        result["tiered"]["placements"] = _placements(tiered.state)
    if down is not None:
        result["down"] = down
    result["summary"] = summary(result, machine)
    return result


def _placements(state):
    names = [n.name for n in state.nodes]
    return [dict(name=i.name, primary=names[i.pnode],
                 secondary=names[i.snode] if i.snode >= 0 else None,
                 memory=i.mem, disk=i.dsk, vcpus=i.vcpus) for i in state.ixes]


def summary(result, machine):
    std, trl = result["standard"], result["tiered"]
    spec = std["spec"]
    lines = ["%s nodes, %s instances, score %s" % (
        machine["HTS_CLUSTER_NODES"], machine["HTS_INI_INST_CNT"], machine["HTS_INI_SCORE"])]
    if result["allocation_stopped"]:
        lines.append("no allocation: the cluster is not N+1 happy (%s)"
                     % ", ".join(result["n1_failures"]))
    lines.append("standard %d MiB / %d MiB / %d vCPU (%s): %d more instances fit, "
                 "then %s binds" % (spec["memory"], spec["disk"], spec["vcpus"],
                                    result["disk_template"], std["instances"],
                                    _resource(std["fail_reason"])))
    tiers = ", ".join("%d x %d MiB / %d MiB / %d vCPU"
                      % (t["count"], t["memory"], t["disk"], t["vcpus"]) for t in trl["specs"])
    lines.append("tiered: %s" % (tiers or "no instance fits"))
    down = result.get("down")
    if down is not None:
        bad = [g["group"] for g in down["groups"] if not g["n1_happy"]]
        lines.append("with %s down: %s" % (", ".join(down["nodes"]),
                                           "every group N+1 happy" if not bad else
                                           "not N+1 happy: " + ", ".join(bad)))
        for stuck in down["unplaced"]:
            lines.append("  %s cannot leave %s: %s"
                         % (stuck["instance"], stuck["node"], stuck["reason"]))
    return "\n".join(lines)


def _resource(mode):
    return {"FailMem": "memory", "FailDisk": "disk", "FailCPU": "vCPUs", "FailN1": "N+1",
            "FailSpindles": "spindles", "FailTags": "exclusion tags",
            "FailDiskCount": "disk count", "FailMig": "migration tags"}.get(mode, mode or "nothing")
