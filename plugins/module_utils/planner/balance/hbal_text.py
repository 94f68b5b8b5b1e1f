# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A balance result as hbal prints it: step lines, -C commands and script."""

from __future__ import annotations

from ...model.vocabulary import NO_NODE
from ..moves import MOVE_STEPS, move_target, short_code
from ...numfmt import hs_fixed_w


def _alias(nodes, idx):
    return nodes[idx].alias if idx != NO_NODE else ""


def _placement(nodes, p, s):
    return _alias(nodes, p) if s == NO_NODE else "%s:%s" % (_alias(nodes, p), _alias(nodes, s))


def step_code(step, nodes):
    return short_code(step.move, _alias(nodes, step.new_p), _alias(nodes, step.new_s))


def step_lines(steps, nodes, instances, group_nodes, group_insts):
    """hbal's step lines: "  %3d. inst old => new score a=code"."""
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
    """The job lines of -C: each jobset's commands, separated by "check" lines."""
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
