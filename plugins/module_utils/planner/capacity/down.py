# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What no htools program answers: the cluster with some nodes down.

The nodes' instances leave first, as an operator empties a node for
maintenance (hard limits only, as htools' own N+1 check moves them): DRBD
primaries fail over to their secondaries, other movable instances go to the
best other node of the group; instances whose disks live on the node stay
and are reported.  The nodes are then offline; each group is checked as
hcheck/hspace check N+1 (no node short of memory for its peers' failover,
and every remaining node could itself be emptied), and hspace runs on
that state.
"""

from __future__ import annotations

from ...backend.prepare import lookup_name
from ...errors import LookupFailure
from ..evacuate.capacity import SHARED
from ..evacuate.single import best_single
from ..evacuate.state import EvacState, Failed, apply
from ..moves import FAILOVER, FAILOVER_TO_ANY
from .globaln1 import can_evacuate


def _resolve(data, names):
    all_names = [n.name for n in data.nodes]
    found, unknown = [], []
    for name in names:
        hit = lookup_name(name, all_names)
        (unknown if hit is None else found).append(name if hit is None else hit)
    if unknown:
        raise LookupFailure("unknown node name(s) in down_nodes: %s" % ", ".join(unknown))
    return [all_names.index(name) for name in found]


def take_down(data, names):
    """Empty and offline the named nodes in `data` (changed in place); the report."""
    down = _resolve(data, names)
    down_set = set(down)
    nodes, insts = list(data.nodes), list(data.instances)
    state = EvacState(data, nodes, insts)
    unplaced, moved = [], 0
    for ndx in down:
        for idx in list(nodes[ndx].p_list):
            inst = insts[idx]
            reason = None
            if inst.template == "drbd":
                if inst.snode in down_set:
                    reason = "its secondary %s is down too" % nodes[inst.snode].name
                else:
                    res = apply(nodes, inst, FAILOVER, None, True)
                    if isinstance(res, str):
                        reason = "failover to %s: %s" % (nodes[inst.snode].name, res)
                    else:
                        nodes, insts[idx] = res[0], res[1]
            elif inst.template in SHARED:
                escape = [k for k in state.members[nodes[ndx].group]
                          if k not in down_set and not nodes[k].offline]
                try:
                    nodes, insts[idx], _ops = best_single(state, nodes, inst, nodes[ndx].group,
                                                          escape, FAILOVER_TO_ANY, True)
                except Failed as err:
                    reason = str(err)
            else:
                reason = "its %s disks are on the node" % inst.template
            if reason is None:
                moved += 1
            else:
                unplaced.append(dict(instance=inst.name, node=nodes[ndx].name, reason=reason))
        node = nodes[ndx].copy()
        node.offline = True
        nodes[ndx] = node
    data.nodes, data.instances = nodes, insts
    groups = []
    for gdx in sorted({n.group for n in nodes}):
        members = [n for n in nodes if n.group == gdx]
        short = [n.name for n in members if not n.offline and n.fail_n1]
        binding = None
        for node in members:
            if node.offline:
                continue
            if not can_evacuate(EvacState(data, nodes, insts), nodes, insts, node.idx,
                                [n.idx for n in members]):
                binding = node.name
                break
        groups.append(dict(group=data.groups[gdx].name, n1_failures=short,
                           cannot_be_emptied=binding,
                           n1_happy=not short and binding is None))
    return dict(nodes=[nodes[k].name for k in down], moved_instances=moved,
                unplaced=unplaced, groups=groups)
