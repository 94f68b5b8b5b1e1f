# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evacuation planner's entry points: the report, and hail's answer document.

Node evacuation and group change, planned exactly as Ganeti 3.0.2's hail does.

Entry points:

``evacuate(data, request_or_options, prepared=False) -> report``
    ``data``: a freshly loaded ClusterData (any backend; ``prepare`` runs here
    unless ``prepared``).  ``request_or_options`` is one of
      * an IAllocator ``request`` dict (``type`` node-evacuate, change-group
        or relocate), as ``backend.ialloc.load_ialloc`` returns it;
      * ``{"request": <that dict>, "ignore_soft_errors": b, "no_capacity_checks": b}``;
      * module options: ``nodes`` + ``mode`` (secondary-then-primary, the
        default: two hail requests | primary-only | secondary-only | all), or ``instances`` + ``target_groups`` (names or
        UUIDs, empty = any other group), with ``ignore_soft_errors``,
        ``no_capacity_checks``.  With ``nodes``, the instances are the ones
        on those nodes for that mode, in cluster order.
    The report (plain JSON data):
      kind ("node-evacuate" | "change-group" | "relocate"), mode, target_groups,
      ignore_soft_errors, no_capacity_checks, warnings;
      iallocator_result: the document hail prints for the same request;
      moves: [{index, instance, move, jobset, old_primary, old_secondary, old_group,
               new_primary, new_secondary, new_group, opcodes}]
        (hail's moved list: one per moved instance, request order, with the
        opcodes of its hail job; ``index`` = that job's number);
      failed_instances: [{instance, reason}] (hail's message, word for word; a
        module result cannot carry them as `failed`, which Ansible reserves);
      jobs: [{job, move, instance, opcode, depends}]: the RAPI jobs that run
        the plan, one per opcode; within a move each depends on the previous
        one's success (the executor submits each once that one succeeded);
      jobsets: [[all move indices]] (one parallel set, for the executor);
      scores: {group name: {before, after}} for every group involved;
      score_before / score_after: the whole cluster's; changed.
    Ganeti itself refuses the whole operation when ``failed_instances`` is not empty.

``iallocator_result(request_doc, ignore_soft_errors=False, no_capacity_checks=False)``
    the (parsed) document ``hail`` prints for an IAllocator request (JSON
    text or dict).  Input errors
    raise DataError / LookupFailure with hail's message where hail has one
    (hail prints ``Error: <message>`` and exits 1).

``EVACUATE``: the ``planner.base.Planner`` for ``HtoolsModule.run_plan``.

Layout: request (names → indices), node_evac (modes, templates), single
(best single target), pair (best DRBD pair: numpy incremental scoring with
exact re-scoring of near-ties), change_group + choose_group (allocation
simulation) + stats (hail's incremental statistics) + capacity (global N+1)
+ policy (instance policy check), haskell_show (one Haskell-shown message),
state (the scalar moves on node lists).
"""

from __future__ import annotations

from collections import namedtuple

from ...backend.ialloc import load_ialloc, load_ialloc_text
from ...backend.prepare import prepare_model
from ...errors import HtoolsError
from ...plan.record import Move
from ...plan.usage import usage_state
from ..base import Planner
from ..metrics import cluster_score
from .options import (EVACUATE_OPTIONS, PHASES, PRIMARY_ONLY, SECONDARY_ONLY,
                      SECONDARY_THEN_PRIMARY)
from .request import (CHANGE_GROUP, NODE_EVACUATE, RELOCATE, from_ialloc, from_options,
                      known_nodes)
from .state import EvacState
from .view import EvacuationView

KIND = "evacuate"

# One hail request of a plan: its mode, [(instance idx, Moved | Unmoved)], and
# the cluster before and after it.
Phase = namedtuple("Phase", "mode outcome before after")
OPTIONS = ("nodes", "mode", "instances", "target_groups", "ignore_soft_errors",
           "no_capacity_checks", "drain", "restrict_allocation_to")


def _is_request(value):
    return isinstance(value, dict) and "type" in value


def run(data, request):
    """Plan a resolved Request of one hail request on prepared data:
    (outcome, state before, state after)."""
    phase = run_phases(data, request)
    if len(phase) != 1:
        raise ValueError("run() plans one hail request; %s is %d" % (request.mode, len(phase)))
    return phase[0].outcome, phase[0].before, phase[0].after


def run_phases(data, request):
    """Plan a resolved Request on prepared data: one Phase per hail request,
    each planned on the cluster the previous one leaves."""
    # the searches (numpy) load when a plan is computed, not whenever the
    # registry is imported (every module imports it)
    # pylint: disable-next=import-outside-toplevel
    from .change_group import change_group
    from .node_evac import node_evacuate  # pylint: disable=import-outside-toplevel
    state = EvacState(data)
    force = request.ignore_soft_errors
    if request.kind == NODE_EVACUATE:
        phases = []
        for mode, idxs in request.phases:
            before = state.snapshot()
            outcome = node_evacuate(state, mode, idxs, force)
            phases.append(Phase(mode, outcome, before, state.snapshot()))
        return phases
    before = EvacState(data)
    if request.kind == CHANGE_GROUP:
        outcome = change_group(state, request.idxs, request.targets, force,
                               not request.no_capacity_checks, restrict=request.restrict)
    else:
        outcome = _relocate(state, request, force)
    return [Phase(request.mode, outcome, before, state)]


def _relocate(state, request, force):
    """hail's `relocate`: one instance, away from the one node given."""
    from .node_evac import node_evacuate  # pylint: disable=import-outside-toplevel
    idx = request.idxs[0]
    inst = state.insts[idx]
    if request.required_nodes != 1:
        return ("error", "Exchange %d nodes mode is not implemented" % request.required_nodes)
    if inst.mirror == "none":
        return ("error", "Can't relocate non-mirrored instances")
    internal = inst.mirror == "internal"
    expected = inst.snode if internal else inst.pnode
    if request.relocate_from != [expected]:
        return ("error", "Unsupported request: excluded nodes not equal to instance's %s(%d "
                "versus [%s])" % ("secondary" if internal else "primary", expected,
                                  ",".join(str(k) for k in request.relocate_from)))
    outcome = node_evacuate(state, SECONDARY_ONLY if internal else PRIMARY_ONLY, [idx], force)
    result = outcome[0][1]
    if result.status == "failed":
        return ("error", result.reason)
    moved = state.insts[idx]
    return ("ok", [state.nodes[moved.snode if internal else moved.pnode].name])


def answer_document(data, request, outcome):
    """The document hail prints, as a dict with hail's key order."""
    if request.kind == RELOCATE:
        if outcome[0] == "error":
            return {"success": False, "info": "Request failed: " + outcome[1], "result": []}
        return {"success": True, "info": "Request successful: success", "result": outcome[1]}
    moved, failed, jobs = [], [], []
    for idx, result in outcome:
        name = data.instances[idx].name
        if result.status == "failed":
            failed.append([name, result.reason])
        else:
            moved.append([name, data.groups[result.group].name,
                          [data.nodes[k].name for k in result.nodes]])
            jobs.append(result.opcodes)
    info = "Request successful: %d instances failed to move and %d were moved successfully" \
        % (len(failed), len(moved))
    return {"success": True, "info": info, "result": [moved, failed, jobs]}


# The move type of a job: its opcodes in order, by their gnt-instance names.
_OP_WORDS = {"OP_INSTANCE_REPLACE_DISKS": "replace_disks", "OP_INSTANCE_MIGRATE": "migrate",
             "OP_INSTANCE_FAILOVER": "failover"}


def move_kind(opcodes):
    """'replace_disks+migrate+replace_disks' and the like."""
    return "+".join(_OP_WORDS.get(op["OP_ID"], op["OP_ID"]) for op in opcodes)


def _placement(state, idx):
    inst = state.insts[idx]
    node = state.nodes
    return {"primary": node[inst.pnode].name,
            "secondary": node[inst.snode].name if inst.snode >= 0 else None,
            "group": state.data.groups[node[inst.pnode].group].name}


def evacuate(data, request_or_options, prepared=False):
    """Plan a node evacuation or group change; see the package docstring."""
    if not prepared:
        prepare_model(data)
    if _is_request(request_or_options):
        opts = {}
        request = from_ialloc(data, request_or_options)
    elif _is_request((request_or_options or {}).get("request")):
        opts = dict(request_or_options)
        request = from_ialloc(data, opts["request"], opts.get("ignore_soft_errors") or False,
                              opts.get("no_capacity_checks") or False,
                              known_nodes(data, opts.get("restrict_allocation_to")))
    else:
        opts = dict(request_or_options or {})
        request = from_options(data, opts)
    phases = run_phases(data, request)
    documents = [answer_document(data, request, phase.outcome) for phase in phases]
    drain = [data.nodes[k] for k in request.nodes] if opts.get("drain") else []
    for node in drain:
        if node.is_master:      # Ganeti changes the master's role only by master-failover
            data.warnings.append("%s is the master node: Ganeti cannot drain it; it is "
                                 "evacuated without being drained" % node.name)
    report = {"kind": request.kind, "mode": request.mode if request.kind != CHANGE_GROUP else None,
              "nodes": [data.nodes[k].name for k in request.nodes],
              "drain_nodes": [node.name for node in drain if not node.is_master],
              "target_groups": [data.groups[g].name for g in request.targets],
              "ignore_soft_errors": request.ignore_soft_errors,
              "no_capacity_checks": request.no_capacity_checks,
              # hail's answer; a list of its answers, in order, when the plan is two requests
              "iallocator_result": documents[0] if len(documents) == 1 else documents,
              "warnings": list(data.warnings)}
    if request.kind == RELOCATE:
        report.update(moves=[], jobsets=[], jobs=[], failed_instances=[], changed=False)
        report["summary"] = summary(report)
        return report
    before, after = phases[0].before, phases[-1].after
    moves, failed, jobs, touched = _moves(data, phases)
    for idx in request.idxs:
        touched.add(before.nodes[before.insts[idx].pnode].group)
    scores = {}
    for gdx in sorted(touched):
        scores[data.groups[gdx].name] = {"before": before.group_score(before.nodes, gdx),
                                         "after": after.group_score(after.nodes, gdx)}
    report["warnings"] += _still_on_nodes(after, request)
    report.update(
        failed_instances=failed, jobs=jobs,
        # one move per instance and hail request (hail's moved list, with its
        # job's opcodes); hail's jobs are independent, so a request's moves
        # form one jobset, run after the previous request's
        moves=moves, jobsets=[each for each in (
            [m["index"] for m in moves if m["jobset"] == number]
            for number in range(1, len(phases) + 1)) if each],
        scores=scores,
        score_before=cluster_score(before.nodes), score_after=cluster_score(after.nodes),
        node_usage=_node_usage(before, after,
                               touched | {before.nodes[k].group for k in request.nodes}),
        changed=bool(moves))
    report["summary"] = summary(report)
    return report


def _moves(data, phases):
    """The plan's moves, unmovable instances, RAPI jobs and the groups touched."""
    moves, failed, jobs = [], [], []
    touched = set()
    for jobset, phase in enumerate(phases, start=1):
        before, after = phase.before, phase.after
        for idx, result in phase.outcome:
            name = data.instances[idx].name
            if result.status == "failed":
                failed.append({"instance": name, "reason": result.reason})
                continue
            old, new = _placement(before, idx), _placement(after, idx)
            touched.add(before.nodes[before.insts[idx].pnode].group)
            touched.add(result.group)
            number = len(moves) + 1
            jobs += rapi_jobs(len(jobs), number, name, result.opcodes)
            moves.append(Move(number, name, move_kind(result.opcodes), jobset,
                              old["primary"], old["secondary"], new["primary"], new["secondary"],
                              result.opcodes, {"old_group": old["group"], "new_group": new["group"]},
                              ).record())
    return moves, failed, jobs, touched


def _still_on_nodes(after, request):
    """A warning when the evacuated nodes keep instances: a primary-only
    evacuation fails DRBD instances over to their secondary, which makes the
    node they left their secondary (as `gnt-node evacuate -p` does)."""
    if request.kind != NODE_EVACUATE or PRIMARY_ONLY not in PHASES[request.mode]:
        return []
    wanted = set(request.nodes)
    names = sorted(i.name for i in after.insts if i.snode in wanted and i.pnode not in wanted)
    if not names:
        return []
    return ["after the plan %d instance(s) keep their secondary on the evacuated node(s) "
            "(a primary-only evacuation fails DRBD instances over to their secondary): %s; "
            "mode secondary-only moves them off" % (len(names), ", ".join(names))]


def _node_usage(before, after, groups):
    """The nodes of the groups involved, before and after the plan (for the HTML report)."""
    members = [k for gdx in sorted(groups) for k in before.members.get(gdx, ())]
    return [usage_state("before", [before.nodes[k] for k in members]),
            usage_state("after", [after.nodes[k] for k in members])]


def rapi_jobs(first, index, instance, opcodes):
    """The RAPI jobs of one hail job: one per opcode, each depending on the
    previous one's success (numbered from first + 1)."""
    jobs = []
    for step, op in enumerate(opcodes):
        number = first + step + 1
        jobs.append({"job": number, "move": index, "instance": instance, "opcode": op["OP_ID"],
                     "depends": [number - 1] if step else []})
    return jobs


def summary(report):
    """One line for the operator: what was asked, what moves, what cannot."""
    what = report["kind"]
    if report["kind"] == NODE_EVACUATE:
        what += " (%s)" % report["mode"]
        if report["nodes"]:
            what += " of " + ", ".join(report["nodes"])
    elif report["kind"] == CHANGE_GROUP:
        what += " to " + (", ".join(report["target_groups"]) or "any other group")
    if report["kind"] == RELOCATE:
        return "%s: %s" % (what, report["iallocator_result"]["info"])
    text = "%s: %d instance(s) to move in %d job(s)" % (
        what, len(report["moves"]), len(report["jobs"]))
    failed = report["failed_instances"]
    if failed:
        names = ", ".join(f["instance"] for f in failed)
        text += ", %d cannot be moved (%s)" % (len(failed), names)
    if report["drain_nodes"]:
        text += "; drains %s first" % ", ".join(report["drain_nodes"])
    return text


def iallocator_result(request_doc, ignore_soft_errors=False, no_capacity_checks=False,
                      restrict=None):
    """The document `hail [--ignore-soft-errors] [--no-capacity-checks]
    [--restrict-allocation-to=NODES] FILE` prints for an IAllocator request
    (JSON text or an already decoded dict), parsed."""
    if isinstance(request_doc, (str, bytes)):
        data, req = load_ialloc_text(request_doc if isinstance(request_doc, str)
                                     else request_doc.decode("utf-8"))
    else:
        data, req = load_ialloc(request_doc)
    prepare_model(data)
    request = from_ialloc(data, req, ignore_soft_errors, no_capacity_checks, restrict)
    outcome, _before, _after = run(data, request)
    return answer_document(data, request, outcome)


# What an IAllocator request file says itself, and options must not contradict.
_REQUEST_OPTIONS = (("nodes", []), ("instances", []), ("target_groups", []),
                    ("mode", SECONDARY_THEN_PRIMARY))


def _compute(data, opts):
    if data.request is not None:
        conflicts = [name for name, unset in _REQUEST_OPTIONS
                     if opts.get(name) not in (None, unset)]
        if conflicts:
            raise HtoolsError(
                "data_file %s is an IAllocator request (%s), which says itself what to plan: "
                "%s would be ignored. Leave them out to answer the request as hail does, or "
                "give cluster data (htools text, saved RAPI responses) to plan them"
                % (data.source, data.request.get("type"), ", ".join(conflicts)))
        # an IAllocator request file: answer its request, as hail would
        return evacuate(data, dict(opts, request=data.request))
    return evacuate(data, opts)


def refuse_partial(report, params):
    """Why the plan must not run (some instances cannot move), or None."""
    if report["failed_instances"] and not params.get("allow_partial"):
        failed = report["failed_instances"]
        reasons = "; ".join("%s: %s" % (f["instance"], f["reason"]) for f in failed)
        return ("%d instance(s) cannot be moved (%s); Ganeti itself refuses the whole "
                "evacuation then. Nothing was executed; set allow_partial to move the others"
                % (len(failed), reasons))
    return None


EVACUATE = Planner(KIND, "ganeti.htools.ganeti_evacuate_group", OPTIONS, ("numpy",), _compute,
                   refuse=refuse_partial, details=("jobs",), title="Evacuation plan",
                   table=EVACUATE_OPTIONS, marker="iallocator_result", view=EvacuationView(),
                   node_order="config")
