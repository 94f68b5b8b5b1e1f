# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A plan as a before/after text diff of the moved instances' placements."""

from __future__ import annotations


def _placement(inst):
    if inst["snode"]:
        return "%s:%s" % (inst["pnode"], inst["snode"])
    return inst["pnode"]


def placement_diff(result):
    """Ansible's diff of a plan result: 'instance primary[:secondary]' before and after."""
    moved = {m["instance"] for m in result["moves"]}
    before = {i["name"]: _placement(i) for i in result["instances_before"] if i["name"] in moved}
    after = {i["name"]: _placement(i) for i in result["instances_after"] if i["name"] in moved}
    names = sorted(moved)
    return {
        "before_header": "placement before the plan",
        "after_header": "placement after the plan",
        "before": "".join("%s %s\n" % (n, before[n]) for n in names),
        "after": "".join("%s %s\n" % (n, after[n]) for n in names),
    }
