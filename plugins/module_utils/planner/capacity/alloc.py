# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One new instance, placed as htools' tryAlloc places it.

Every candidate (a node, or a primary with each possible secondary) is
tried; the successes are ordered by whole-cluster score and the best one
that passes the N+1 predicate wins, the skipped ones counting as FailN1.
Pairs are collapsed per primary first, then the primaries' bests compared
(the later one on equal scores), as hail's fold does.
"""

from __future__ import annotations

from ...numfmt import hs_fixed
from ..metrics import cluster_score
from ..evacuate.policy import policy_failure
from ..evacuate.state import copy_node
from ..evacuate.stats import cluster_stats, stats_score, update_stats

FAIL_MODES = ("FailMem", "FailDisk", "FailCPU", "FailN1", "FailTags", "FailMig",
              "FailDiskCount", "FailSpindles", "FailInternal")


class NoNodes(Exception):
    """tryAlloc refuses outright: no candidate nodes at all."""


class Solution:
    """asFailures, asAllocs and the chosen element (score, {idx: node}, instance)."""

    def __init__(self):
        self.failures = []
        self.allocs = 0
        self.best = None

    def counts(self):
        """collapseFailures: (mode, count) for every mode, in FailMode order."""
        return [(mode, self.failures.count(mode)) for mode in FAIL_MODES]

    def describe(self, names):
        reasons = ", ".join("%s: %d" % (m, c) for m, c in self.counts() if c > 0)
        if self.best is None:
            return "No valid allocation solutions, failure reasons: " + \
                (reasons if self.failures else "unknown reasons")
        return "score: %s, successes %d, failures %d (%s) for node(s) %s" % (
            hs_fixed(self.best[0], 8), self.allocs, len(self.failures), reasons,
            "/".join(names(self.best)))


def alloc_nodes(nodes, groups_allocable, required, restrict=None):
    """genAllocNodes: online nodes of allocable groups; for two nodes, each
    primary with its same-group partners (primaries without any dropped)."""
    online = [n for n in nodes if not n.offline and groups_allocable(n.group)]
    if restrict is not None:
        online = [n for n in online if n.name in restrict]
    if required == 1:
        return [n.idx for n in online]
    pairs = [(p.idx, [s.idx for s in online if s.idx != p.idx and s.group == p.group])
             for p in online]
    return [(p, ss) for p, ss in pairs if ss]


def _collapse(collected, good):
    """collectionToSolution: (dropped count, best passing element or None)."""
    dropped = 0
    for item in sorted(collected, key=lambda item: item[0]):       # stable
        if good(item):
            return dropped, item
        dropped += 1
    return dropped, None


def try_alloc(data, nodes, inst, targets, required, force=False, good=None, scope=None):
    """tryAlloc of `inst` (idx, template, sizes set) on `targets` (alloc_nodes).

    `good(element)` is the N+1 predicate on (score, {idx: new node}, placed
    instance), or None for no capacity check.  Scores are over the nodes of
    `scope` (indices; default all), the node list tryAlloc is given."""
    good = good or (lambda _item: True)
    groups = data.groups
    if required == 1:
        if not targets:
            raise NoNodes("No online nodes")
        return _singles(groups, nodes, inst, targets, force, good, scope)
    if not targets:
        raise NoNodes("Not enough online nodes")
    return _pairs(groups, nodes, inst, targets, force, good, scope)


def _singles(groups, nodes, inst, targets, force, good, scope=None):
    collected, fails = [], []
    policy_fail = {}        # the policy check depends on the group and storage kind only
    for t_idx in targets:
        tgt = nodes[t_idx]
        key = (tgt.group, tgt.excl_storage)
        if key not in policy_fail:
            policy_fail[key] = policy_failure(inst, groups[tgt.group].ipolicy, tgt.excl_storage)
        fail = policy_fail[key]
        if fail is None:
            new_t = copy_node(tgt)
            fail = new_t.add_pri(inst, force)
        if fail is not None:
            fails.append(fail)
            continue
        placed = inst.copy()
        placed.pnode, placed.snode = t_idx, -1
        new_nodes = list(nodes)
        new_nodes[t_idx] = new_t
        scored = new_nodes if scope is None else [new_nodes[k] for k in scope]
        collected.insert(0, (cluster_score(scored), {t_idx: new_t}, placed))
    sol = Solution()
    dropped, sol.best = _collapse(collected, good)
    sol.failures = ["FailN1"] * dropped + fails[::-1]
    sol.allocs = len(collected) - dropped
    return sol


def _pairs(groups, nodes, inst, targets, force, good, scope=None):
    base = None             # the cluster's statistics, once a pair takes the instance
    total = Solution()
    policy_fail = {}
    for p_idx, secondaries in targets:
        collected, fails = [], []
        tgt_p = nodes[p_idx]
        key = (tgt_p.group, tgt_p.excl_storage)
        if key not in policy_fail:
            policy_fail[key] = policy_failure(inst, groups[tgt_p.group].ipolicy,
                                              tgt_p.excl_storage)
        # the primary's own checks read neither the secondary nor the pair's
        # location score: a primary that refuses refuses every pair alike
        refusal = policy_fail[key] or copy_node(tgt_p).add_pri(inst, force)
        if refusal is not None:
            fails = [refusal] * len(secondaries)
            secondaries = ()
        for s_idx in secondaries:
            tgt_s = nodes[s_idx]
            new = inst.copy()
            new.location_score = len(tgt_p.location_tags & tgt_s.location_tags)
            new.pnode, new.snode = p_idx, s_idx
            new_p = copy_node(tgt_p)
            fail = new_p.add_pri(new, force)
            if fail is None:
                new_s = copy_node(tgt_s)
                fail = new_s.add_sec(new, p_idx, False)
            if fail is not None:
                fails.append(fail)
                continue
            if base is None:
                base = cluster_stats(nodes if scope is None else [nodes[k] for k in scope])
            score = stats_score(update_stats(update_stats(base, tgt_p, new_p), tgt_s, new_s))
            collected.insert(0, (score, {p_idx: new_p, s_idx: new_s}, new))
        dropped, chosen = _collapse(collected, good)
        # sumAllocs puts the newer primary's failures first
        total.failures = ["FailN1"] * dropped + fails[::-1] + total.failures
        total.allocs += len(collected) - dropped
        if chosen is not None and (total.best is None or not total.best[0] < chosen[0]):
            total.best = chosen
    return total
