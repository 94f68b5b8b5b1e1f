# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""change-group's target group: where would hail allocate this instance anew?

Per candidate group (in the targets, owning nodes, connected to the
instance's networks): simulate the allocation on its online nodes (the
instance is added, not moved; whole-cluster score), reject solutions that
break the global N+1 predicate, describe the outcome; then the best group by
(alloc policy, score), the higher group index on ties.
"""

from __future__ import annotations

from ...numfmt import hs_fixed
from ..metrics import cluster_score
from .capacity import Capacity
from .haskell_show import show_group_list
from .policy import policy_failure
from .state import Failed
from .stats import cluster_stats, stats_score, update_stats

FAIL_MODES = ("FailMem", "FailDisk", "FailCPU", "FailN1", "FailTags", "FailMig",
              "FailDiskCount", "FailSpindles", "FailInternal")
POLICY_RANK = {"preferred": 0, "last_resort": 1, "unallocable": 2}


class _Solution:
    def __init__(self):
        self.failures = []
        self.allocs = 0
        self.best = None          # (score, node names)


def _collapse(solution, good):
    """collectionToSolution: the best passing solution of a sorted list;
    solutions failing `good` before it count as FailN1."""
    ordered = sorted(solution, key=lambda item: item[0])     # stable
    dropped = 0
    chosen = None
    for item in ordered:
        if good(item):
            chosen = item
            break
        dropped += 1
    return dropped, chosen


def _try_pairs(state, nodes, insts, inst, online, force, capacity):
    pairs = [(p, [s for s in online if s != p]) for p in online]
    pairs = [(p, ss) for p, ss in pairs if ss]
    if not pairs:
        raise Failed("Not enough online nodes")
    base = cluster_stats(nodes)
    total = _Solution()
    for p_idx, secondaries in pairs:
        collected, fails = [], []
        tgt_p = nodes[p_idx]
        for s_idx in secondaries:
            tgt_s = nodes[s_idx]
            fail = policy_failure(inst, state.data.groups[tgt_p.group].ipolicy, tgt_p.excl_storage)
            if fail is None:
                new = inst.copy()
                new.location_score = len(tgt_p.location_tags & tgt_s.location_tags)
                new.pnode, new.snode = p_idx, s_idx
                new_p = tgt_p.copy()
                fail = new_p.add_pri(new, force)
            if fail is None:
                new_s = tgt_s.copy()
                fail = new_s.add_sec(new, p_idx, False)
            if fail is not None:
                fails.append(fail)
                continue
            score = stats_score(update_stats(update_stats(base, tgt_p, new_p), tgt_s, new_s))
            # newest first, as hail collects them
            collected.insert(0, (score, {p_idx: new_p, s_idx: new_s}, [new_p.name, new_s.name]))
        dropped, chosen = _collapse(collected, capacity)
        total.failures.extend(["FailN1"] * dropped + fails)
        total.allocs += len(collected) - dropped
        if chosen is not None and (total.best is None or not total.best[0] < chosen[0]):
            total.best = chosen
    return total


def _try_single(state, nodes, insts, inst, online, force, capacity):
    if not online:
        raise Failed("No online nodes")
    collected, fails = [], []
    for t_idx in online:
        tgt = nodes[t_idx]
        fail = policy_failure(inst, state.data.groups[tgt.group].ipolicy, tgt.excl_storage)
        if fail is None:
            new_t = tgt.copy()
            fail = new_t.add_pri(inst, force)
        if fail is not None:
            fails.append(fail)
            continue
        new_nodes = list(nodes)
        new_nodes[t_idx] = new_t
        collected.insert(0, (cluster_score(new_nodes), {t_idx: new_t}, [new_t.name]))
    total = _Solution()
    dropped, chosen = _collapse(collected, capacity)
    total.failures = ["FailN1"] * dropped + fails
    total.allocs = len(collected) - dropped
    total.best = chosen
    return total


def _describe(sol):
    counts = [(mode, sol.failures.count(mode)) for mode in FAIL_MODES]
    reasons = ", ".join("%s: %d" % (m, c) for m, c in counts if c > 0)
    if sol.best is None:
        return "No valid allocation solutions, failure reasons: " + \
            (reasons if sol.failures else "unknown reasons")
    return "score: %s, successes %d, failures %d (%s) for node(s) %s" % (
        hs_fixed(sol.best[0], 8), sol.allocs, len(sol.failures), reasons, "/".join(sol.best[2]))


def choose_group(state, nodes, insts, inst, targets, force, capacity_checks, restrict=None):
    """The chosen group index, or raise Failed with hail's message; only the
    nodes named in `restrict` (when given) are tried in each group."""
    data = state.data
    populated = sorted(state.members)
    allowed = [g for g in populated if g in targets]
    if not allowed:
        raise Failed("no groups for evacuation: allowed groups was Just [%s], all groups: %s"
                     % (",".join(str(g) for g in targets),
                        show_group_list([data.groups[g] for g in populated])))
    nets = [nic.get("network") for nic in inst.nics if isinstance(nic, dict)]
    msgs, valid = [], []
    for gdx in allowed:
        group = data.groups[gdx]
        if all(net is None or net in group.networks for net in nets):
            valid.append(gdx)
        else:
            msgs.append("group %s is not connected to a network required by instance %s"
                        % (group.name, inst.name))
    if capacity_checks:
        checker = Capacity(state, nodes, insts)

        def good(item):
            new_nodes = list(nodes)
            for idx, node in item[1].items():
                new_nodes[idx] = node
            return checker.redundant(new_nodes, set(item[1]))
    else:
        def good(_item):
            return True
    required = 2 if inst.template == "drbd" else 1
    results = []
    for gdx in valid:
        group = data.groups[gdx]
        online = [k for k in state.members[gdx] if not nodes[k].offline
                  and (restrict is None or nodes[k].name in restrict)]
        try:
            if required == 2:
                sol = _try_pairs(state, nodes, insts, inst, online, force, good)
            else:
                sol = _try_single(state, nodes, insts, inst, online, force, good)
        except Failed as err:
            msgs.append("Group %s: error %s" % (group.name, err))
            continue
        msgs.append("Group %s (%s): %s" % (group.name, group.alloc_policy, _describe(sol)))
        if sol.best is not None and group.alloc_policy != "unallocable":
            results.append((gdx, sol.best[0]))
    if not results:
        raise Failed(", ".join(msgs))
    # hail sorts the groups highest index first (stable) by (policy, score)
    results.reverse()
    results.sort(key=lambda r: (POLICY_RANK[data.groups[r[0]].alloc_policy], r[1]))
    return results[0][0]
