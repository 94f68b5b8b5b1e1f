# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hcheck 3.0.2: the cluster's health per node group, before and after a
simulated rebalance, and the HCHECK_* keys of `hcheck --machine-readable`.

Per group: online nodes failing N+1, nodes holding primaries with
conflicting exclusion tags, primaries on offline nodes, offline nodes (which
hcheck prints as "instances having a secondary node offline"), nodes that
could not be emptied (global N+1, unless capacity checks are off) and the
group score.  The cluster needs rebalancing when any count is above 0.

Deliberate difference: hcheck checks a group's nodes against the group's
nodes only, and so crashes ("IntMap.!: key N is not an element of the
map") when a DRBD instance has its secondary in another group; here the
failover reads that node from the whole cluster.
"""

from __future__ import annotations

import copy

from ...numfmt import hs_fixed
from ..balance.loop import balance
from ..balance.options import BalanceOptions
from ..balance.planner import search_function
from ..evacuate.state import EvacState
from ..metrics import cluster_score, optimal_score
from ...backend.prepare import GroupSelection
from .globaln1 import can_evacuate

COUNTS = ("N1_FAIL", "CONFLICT_TAGS", "OFFLINE_PRI", "OFFLINE_SEC", "GN1_FAIL")


def _conflicting(node):
    return sum(count - 1 for count in node.p_tags.values())


def group_stats(data, nodes, insts, gdx, capacity):
    """perGroupChecks: (counts, score) of group `gdx` in the state (nodes, insts)."""
    members = [n for n in nodes if n.group == gdx]
    offline = [n for n in members if n.offline]
    counts = [len([n for n in members if not n.offline and n.fail_n1]),
              len([n for n in members if _conflicting(n) > 0]),
              sum(len(n.p_list) for n in offline),
              len(offline)]
    if capacity:
        state = EvacState(data, nodes, insts)
        scope = [n.idx for n in members]
        counts.append(len([n for n in members
                           if not can_evacuate(state, nodes, insts, n.idx, scope)]))
    return counts, cluster_score(members)


def _rebalanced(data, gdx, options):
    """The cluster after hbal's loop on group `gdx` (as hcheck runs it), as
    (nodes, instances); the data itself is left as it was."""
    work = copy.copy(data)
    work.nodes, work.instances = list(data.nodes), list(data.instances)
    members = [n for n in work.nodes if n.group == gdx]
    selection = GroupSelection(data.groups[gdx], members,
                               [i for i in work.instances if work.nodes[i.pnode].group == gdx])
    if cluster_score(members) < options.min_score + optimal_score(members):
        return data.nodes, data.instances
    balance(work, selection, options, search=search_function("bulk"))
    return work.nodes, work.instances


def hcheck(data, no_simulation=False, no_capacity_checks=False, balance_options=None):
    """Everything hcheck prints, as ordered (key, value) pairs, and the verdicts."""
    capacity = not no_capacity_checks
    options = BalanceOptions(**(balance_options or {}))
    groups = sorted({n.group for n in data.nodes})
    keys = [("GROUP_UUID_%d" % g.idx, g.uuid) for g in data.groups]
    initial = {g: group_stats(data, data.nodes, data.instances, g, capacity) for g in groups}
    names = COUNTS if capacity else COUNTS[:-1]

    def phase(prefix, stats, need):
        out = []
        for gdx in groups:
            counts, score = stats[gdx]
            out += [("%s_GROUP_%d_%s" % (prefix, gdx, k), "%d" % v) for k, v in zip(names, counts)]
            out.append(("%s_GROUP_%d_SCORE" % (prefix, gdx), hs_fixed(score, 8)))
        totals = [sum(stats[g][0][k] for g in groups) for k in range(len(names))]
        out += [("%s_CLUSTER_%s" % (prefix, k), "%d" % v) for k, v in zip(names, totals)]
        out.append(("%s_CLUSTER_NEED_REBALANCE" % prefix, "1" if need else "0"))
        return out, totals

    init_keys, totals = phase("INIT", initial, None)
    need = sum(totals) > 0
    init_keys[-1] = ("INIT_CLUSTER_NEED_REBALANCE", "1" if need else "0")
    simulate = need and not no_simulation
    final = {}
    for gdx in groups:
        if simulate:
            nodes, insts = _rebalanced(data, gdx, options)
            final[gdx] = group_stats(data, nodes, insts, gdx, capacity)
        else:
            final[gdx] = initial[gdx]
    # hcheck prints the initial verdict again after the rebalance
    final_keys, final_totals = phase("FINAL", final, need)
    keys += init_keys + final_keys + [("OK", "1")]
    return dict(keys=[("HCHECK_" + k, v) for k, v in keys], needs_rebalance=need,
                healthy=not need, healthy_after_rebalance=sum(final_totals) == 0,
                simulated=simulate)
