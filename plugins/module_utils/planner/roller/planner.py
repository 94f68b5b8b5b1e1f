# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan a rolling reboot as `hroller` does, and return it as data.

load -> select nodes -> graph -> colouring -> split the colour classes by
capacity (non-redundant instances, full evacuation) -> order -> report.  The
plan is for others to execute (the rolling-reboot role): this planner never
runs anything.
"""

from __future__ import annotations

from ... import run_tags
from ...backend.prepare import prepare_model
from .summary import reboot_summary
from ...plan.usage import usage_state
from ..base import Planner
from .colouring import smallest_colouring
from .down import failing_n1, wave_down
from .errors import NO_GRAPH, NO_ROOM_NONREDUNDANT, RollerError
from .evacuation import migrate_off, partition_secondaries
from .graph import build_graph
from .nonredundant import partition_nonredundant
from .options import ROLLER_OPTIONS
from .view import RebootView
from .report_text import order_groups, printed_moves, report_lines
from .selection import find_group, find_master, mark_offline, selected_nodes
from .state import State
from .waves import move_record, wave_moves

KIND = "rolling-reboot"
# Everything a plan records, so that it can be recomputed the same way.
RECORDED_OPTIONS = tuple(o.name for o in ROLLER_OPTIONS) + (
    "group", "offline_nodes", "util_file", "ignore_dynu", "exclusion_tags",
    "static_kvm_node_memory")
# What prepare_model applies; hroller marks -O (offline_nodes) itself, once it has found the master.
PREPARED_WITH = ("util_file", "ignore_dynu", "exclusion_tags")


def _parts(data, classes, online, opts):
    """[(nodes, state)]: the colour classes split until each part can be cleared at once."""
    base = State(data.nodes, data.instances)
    if opts["ignore_non_redundant"]:
        parts = [(members, base) for members in classes]
    else:
        parts = []
        for members in classes:
            split = partition_nonredundant(members, online, base)
            if split is None:
                raise RollerError(NO_ROOM_NONREDUNDANT)
            parts.extend(split)
    if opts["full_evacuation"]:
        migrated = [(members, migrate_off(members, state)) for members, state in parts]
        parts = []
        for members, state in migrated:
            parts.extend(partition_secondaries(members, online, state))
    return parts


def plan_reboots(data, opts):
    """The rolling-reboot report of freshly loaded `data` (see ROLLER for `opts`)."""
    def get(name, default=None):
        value = opts.get(name)
        return default if value is None else value

    flags = {o.name: get(o.name, o.default) for o in ROLLER_OPTIONS}
    prepare_model(data, opts, PREPARED_WITH)
    master, warnings = find_master(data, flags["force"])
    mark_offline(data, get("offline_nodes", ()))
    group_idx = find_group(data, get("group"))
    marks_onto_nodes(data)
    run = flags["run_id"] and run_progress(data, flags["run_id"])
    names, exclude = flags["nodes"], list(flags["exclude_node_tags"])
    if run:
        exclude += [run_tags.mark(what, flags["run_id"]) for what in ("rebooted", "skipped")]
    if run and run["rolling"]:
        # A wave in progress (perhaps interrupted) is finished first: plan for
        # its nodes alone, which this run drained - not offline for the plan
        # as long as they answer (their live data were loaded).
        names = run["rolling"]
        for node in data.nodes:
            if node.name in names and node.drained and node.t_mem > 0:
                node.offline = False
    if flags["wave_targets"] is not None:
        return _judged_wave(data, names, flags, master, warnings, run, group_idx)
    try:
        selected = selected_nodes(data, group_idx, flags["node_tags"],
                                  flags["skip_non_redundant"], names, exclude)
    except RollerError as err:
        if run and str(err) == NO_GRAPH:        # every node of the run is done
            return _report(data, [], master, [], warnings, flags, run, group_idx)
        raise

    if run:
        check_marks(data, selected, flags["run_id"])
    graph = build_graph(data, selected, flags["offline_maintenance"])
    classes, _all = smallest_colouring(graph)
    online = [n.idx for n in data.nodes if not n.offline]
    parts = _parts(data, classes, online, flags)

    in_sel = set(selected)
    ordered = order_groups([([n for n in members if n in in_sel], state)
                            for members, state in parts],
                           lambda n: data.nodes[n].is_master)
    if flags["one_step_only"]:
        ordered = ordered[:1]
    text = report_lines([([data.nodes[n].name for n in members], printed_moves(data, state))
                         for members, state in ordered], flags["one_step_only"])
    return _report(data, ordered, master, text, warnings, flags, run, group_idx)


def _judged_wave(data, names, flags, master, warnings, run, group_idx):
    """The report of one wave as the role runs it: exactly the nodes `names` down
    together, the non-redundant instances on them moved to `wave_targets`
    (instance -> node) and the others stopped - judged, not planned."""
    if not names:
        raise RollerError("wave_targets needs the wave's nodes in nodes")
    by_name = {n.name: n.idx for n in data.nodes}
    unknown = sorted(set(names) - set(by_name))
    if unknown:
        raise RollerError("unknown node(s) selected: %s" % ", ".join(unknown))
    members = [by_name[n] for n in names]
    if run:
        check_marks(data, members, flags["run_id"])
    state = State(data.nodes, data.instances)
    instances = {i.name: i.idx for i in data.instances}
    for inst_name, target in sorted(flags["wave_targets"].items()):
        idx, node = instances.get(inst_name), by_name.get(target)
        if idx is None or node is None:
            raise RollerError("wave_targets: %s" % (
                "unknown instance %s" % inst_name if idx is None else
                "unknown target node %s of %s" % (target, inst_name)))
        if data.instances[idx].pnode in members and data.instances[idx].template != "drbd":
            state.inst_for_update(idx).pnode = node
            state.record(("move", idx, node))
    ordered = [(members, state)]
    text = report_lines([(list(names), printed_moves(data, state))], False)
    return _report(data, ordered, master, text, warnings, flags, run, group_idx)


def marks_onto_nodes(data):
    """Every run mark kept among the cluster tags on its node's tags, as a
    live read shows them (a saved cluster file keeps them as cluster tags)."""
    marks = run_tags.project(data.cluster_tags)
    for node in data.nodes:
        for tag in marks.get(node.name, ()):
            if tag not in node.tags:
                node.tags.append(tag)


def run_progress(data, run_id):
    """The run's marks on the nodes; the run id is checked first."""
    found = run_tags.progress(data.nodes, run_tags.valid_run_id(run_id))
    found["id"] = run_id
    return found


# a boot id as Linux gives it (/proc/sys/kernel/random/boot_id): the length
# the `rebooting` mark must leave room for
BOOT_ID_LENGTH = 36


def check_marks(data, node_idxs, run_id):
    """A clear error, before any wave starts, when a mark the run may put on
    one of these nodes (the longest: its reboot with a boot id, and each
    instance on it moved away) would not fit in a cluster tag (cluster_tag
    raises it)."""
    on_nodes = set(node_idxs)
    for idx in node_idxs:
        run_tags.cluster_tag(data.nodes[idx].name, "%srebooting:%s:%s" % (
            run_tags.PREFIX, run_id, "0" * BOOT_ID_LENGTH))
    for inst in data.instances:
        if inst.pnode in on_nodes:
            run_tags.cluster_tag(data.nodes[inst.pnode].name, run_tags.away_tag(run_id, inst.name))


# Waves the HTML report charts while they are down: enough to see the pattern,
# few enough that a plan of hundreds of waves stays small.
USAGE_WAVES_SHOWN = 6


def _charted(waves):
    """The waves whose state during the reboot the report draws: those that do
    not fit first, then the first others, in wave order."""
    failing = [w["wave"] for w in waves if not w["down"]["fits"]]
    rest = [w["wave"] for w in waves if w["down"]["fits"]]
    return sorted((failing + rest)[:USAGE_WAVES_SHOWN])


def _node_usage(data, group_idx, during):
    """The nodes (of the planned group) as loaded, and while each charted wave is
    down (its nodes rebooting, their instances where the wave puts them), for
    the HTML report."""
    members = [n for n in data.nodes if group_idx is None or n.group == group_idx]
    states = [usage_state("before", members)]
    for number in sorted(during):
        states.append({"state": "wave %d" % number, "nodes": during[number]})
    return states


def _report(data, ordered, master, text, warnings, opts, run=None, group_idx=None):
    migrate = opts["full_evacuation"] or not opts["offline_maintenance"]
    moves, jobsets, waves = [], [], []
    master_wave = None
    during = {}
    base_failing = failing_n1(data)
    for number, (members, state) in enumerate(ordered, start=1):
        if master is not None and master in members:
            master_wave = number
        found = wave_moves(data, state)
        if found:
            jobsets.append(list(range(len(moves) + 1, len(moves) + len(found) + 1)))
        leaving = {n: [] for n in members}
        for idx, kind, new_p, new_s in found:
            record = move_record(data, len(moves) + 1, number, len(jobsets), idx, kind,
                                 new_p, new_s)
            moves.append(record)
            inst = data.instances[idx]
            for node in (inst.pnode, inst.snode):
                if node in leaving and node not in (new_p, new_s):
                    leaving[node].append(record["index"])
        waves.append({
            "wave": number,
            "nodes": [data.nodes[n].name for n in members],
            "has_master": master_wave == number,
            "moves": [m["index"] for m in moves if m["wave"] == number],
            "migrate_primaries": migrate,
            # only the nodes something leaves: a wave of empty nodes lists none
            # (AWX stores every value of a result)
            "evacuate": [{"node": data.nodes[n].name, "moves": leaving[n]}
                         for n in members if leaving[n]],
        })
        waves[-1]["down"], _usage = wave_down(data, number, members, state, migrate,
                                              base_failing=base_failing)
    # the charted waves again, with every node's usage while they are down
    for number in _charted(waves):
        members, state = ordered[number - 1]
        during[number] = wave_down(data, number, members, state, migrate, group_idx,
                                   base_failing, with_usage=True)[1]
    # The placements --diff shows: before the plan, and after each instance's last move.
    before, after = {}, {}
    for move in moves:
        before.setdefault(move["instance"], (move["old_primary"], move["old_secondary"]))
        after[move["instance"]] = (move["new_primary"], move["new_secondary"])
    report = {
        "reboot_groups": [w["nodes"] for w in waves],
        "waves": waves,
        "master": {"node": data.nodes[master].name if master is not None else None,
                   "wave": master_wave},
        "report": text,
        "moves": moves,
        "jobsets": jobsets,
        "instances_before": [dict(name=n, pnode=p, snode=s) for n, (p, s) in before.items()],
        "instances_after": [dict(name=n, pnode=p, snode=s) for n, (p, s) in after.items()],
        "warnings": warnings + list(data.warnings),
        "changed": False,
        "run": run or None,
        "node_usage": _node_usage(data, group_idx, during),
    }
    report["summary"] = reboot_summary(report)
    return report


ROLLER = Planner(KIND, "ganeti.htools.ganeti_rolling_reboot", RECORDED_OPTIONS, (),
                 plan_reboots,
                 executes=False, details=("instances_before", "instances_after"),
                 title="Rolling reboot plan", table=ROLLER_OPTIONS, marker="waves",
                 view=RebootView())
