# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A balance result as hbal reports it: step lines, jobsets, commands, opcodes."""

from __future__ import annotations

from ...model.vocabulary import NO_NODE
from ..moves import FAILOVER, MOVE_STEPS, move_target, short_code
from ...numfmt import hs_fixed_w


def _alias(nodes, idx):
    return nodes[idx].alias if idx != NO_NODE else ""


def _placement(nodes, p, s):
    return _alias(nodes, p) if s == NO_NODE else "%s:%s" % (_alias(nodes, p), _alias(nodes, s))


def step_code(step, nodes):
    return short_code(step.move, _alias(nodes, step.new_p), _alias(nodes, step.new_s))


def step_lines(steps, nodes, instances, group_nodes, group_insts):
    """hbal's "  %3d. inst old => new score a=code" lines (hbal-spec §8.2)."""
    imlen = max((len(instances[i].alias) for i in group_insts), default=0)
    nmlen = max((len(nodes[n].alias) for n in group_nodes), default=0)
    width = 2 * nmlen + 1
    lines = []
    for number, step in enumerate(steps, start=1):
        lines.append("  %3d. %s %s => %s %s a=%s" % (
            number, instances[step.inst].alias.ljust(imlen),
            _placement(nodes, step.old_p, step.old_s).ljust(width),
            _placement(nodes, step.new_p, step.new_s).ljust(width),
            hs_fixed_w(step.score, 8, 12), step_code(step, nodes)))
    return lines


def step_nodes(step, is_drbd):
    """Nodes a step touches: new placement, then the old one (hbal's involvedNodes)."""
    nodes = []
    old = (step.old_p, step.old_s) if is_drbd else (step.old_p,)
    for idx in (step.new_p, step.new_s) + old:
        if idx != NO_NODE and idx not in nodes:
            nodes.append(idx)
    return nodes


def jobsets(steps, instances):
    """Group step indices into jobsets, walking backwards from the last move as hbal
    does (hbal-spec §8.6); moves of one jobset touch disjoint nodes."""
    sets = []
    buf = set()
    for pos in range(len(steps) - 1, -1, -1):
        nodes = step_nodes(steps[pos], instances[steps[pos].inst].template == "drbd")
        if sets and not (set(nodes) & buf):
            sets[0].insert(0, pos)
            buf |= set(nodes)
        else:
            sets.insert(0, [pos])
            buf = set(nodes)
    return sets


def step_commands(step, inst, nodes):
    """The gnt-instance command lines of one step (aliases, as hbal prints)."""
    verb = "migrate" if inst.is_running else "failover"
    target = _alias(nodes, move_target(step.move, step.new_p, step.new_s))
    name = inst.alias
    lines = []
    for part in MOVE_STEPS[step.move]:
        if part == "f":
            lines.append("%s -f %s" % (verb, name))
        elif part == "fa":
            lines.append("%s -f -n %s %s" % (verb, target, name))
        else:
            lines.append("replace-disks -n %s %s" % (target, name))
    return lines


def command_script_lines(steps, instances_before, nodes, sets):
    """The job lines of -C (with "check" lines; hbal-spec §8.6)."""
    out = []
    for js_no, js in enumerate(sets, start=1):
        for job_no, pos in enumerate(js, start=1):
            if job_no == 1:
                out.append("")
                out.append("echo jobset %d, %d jobs" % (js_no, len(js)))
            out.append("  echo job %d/%d" % (js_no, job_no))
            out.append("  check")
            for cmd in step_commands(steps[pos], instances_before[pos], nodes):
                out.append("  gnt-instance " + cmd)
    return out


def commands_stdout(script_lines):
    """-C without a file: the lines prefixed by two spaces, "check" lines dropped."""
    return ["  " + line for line in script_lines if line != "  check"]


SCRIPT_HEADER = """#!/bin/sh

# Auto-generated script for executing cluster rebalancing

# To stop, touch the file /tmp/stop-htools

set -e

check() {
  if [ -f /tmp/stop-htools ]; then
    echo 'Stop requested, exiting'
    exit 0
  fi
}

"""


def command_script(script_lines):
    """The -C FILE shell script."""
    return SCRIPT_HEADER + "".join(line + "\n" for line in script_lines)


def step_opcodes(step, inst, nodes):
    """Opcodes (as RAPI-ready dicts) of one step, full names (hbal-spec §9)."""
    target = None if step.move == FAILOVER else \
        nodes[move_target(step.move, step.new_p, step.new_s)].name
    ops = []
    for part in MOVE_STEPS[step.move]:
        if part in ("f", "fa"):
            op_target = target if part == "fa" else None
            if inst.forthcoming:
                op = {"OP_ID": "OP_INSTANCE_FAILOVER", "instance_name": inst.name,
                      "shutdown_timeout": 120, "ignore_consistency": False}
                if op_target:
                    op["target_node"] = op_target
                op.update(ignore_ipolicy=False, cleanup=False)
            else:
                op = {"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": inst.name}
                if op_target:
                    op["target_node"] = op_target
                op.update(allow_runtime_changes=False, ignore_ipolicy=False, cleanup=False,
                          allow_failover=True, ignore_hvversions=True)
        else:
            op = {"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "instance_name": inst.name,
                  "early_release": False, "ignore_ipolicy": False,
                  "mode": "replace_new_secondary", "disks": [], "remote_node": target}
        ops.append(op)
    return ops
