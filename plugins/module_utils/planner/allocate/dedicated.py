# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hail's allocation on a dedicated cluster (every node of the candidate
groups with exclusive storage): the lost-allocations metric.

A placement is rated by how many minimal-policy instances each node could
still take before and after it (per min spec, largest disk first), then by
the free disk left; the lowest pair wins, the later one on ties.  No
global N+1 check is made on this path, as in hail.
"""

from __future__ import annotations

from ...model.instance import Instance
from ..capacity.alloc import FAIL_MODES, alloc_nodes
from ..evacuate.policy import policy_failure
from ..evacuate.state import Failed, copy_node


def is_dedicated(data, group):
    """isDedicated: the named group's nodes, or every allocable group's, all exclusive."""
    if group is None:
        groups = {g.idx for g in data.groups if g.alloc_policy != "unallocable"}
    else:
        groups = {g.idx for g in data.groups if g.name == group}
    return all(n.excl_storage or n.group not in groups for n in data.nodes)


def _test_instances(policy):
    mins = sorted((lo for lo, _hi in policy.minmax), key=lambda s: -s.disk_size)
    return [Instance(-1, "minimalspecinstance", s.mem_size, s.disk_size, s.cpu_count,
                     "running", False, -1, -1, "plain", spindle_use=s.spindle_use, disks=[])
            for s in mins]


def _vector(tests, node):
    """allocationVector: per test instance, 1 + how many fit one after another."""
    out = []
    for test in tests:
        work, count = copy_node(node), 1
        while work.add_pri(test, False) is None:
            count += 1
        out.append(count)
    return out


def _show(metric):
    return "([%s],%d)" % (",".join("%d" % v for v in metric[0]), metric[1])


class _Sol:
    def __init__(self):
        self.failures, self.allocs, self.best = [], 0, None

    def add(self, res):
        """concatAllocs: the new element wins unless the kept one is strictly better."""
        if isinstance(res, str):
            self.failures.insert(0, res)
            return
        self.allocs += 1
        if self.best is None or not self.best[0] < res[0]:
            self.best = res

    def merge(self, other):
        """sumAllocs(self, other): other's element wins unless self's is strictly better."""
        self.failures = other.failures + self.failures
        self.allocs += other.allocs
        if other.best is not None and (self.best is None or not self.best[0] < other.best[0]):
            self.best = other.best

    def describe(self, nodes):
        counts = [(m, self.failures.count(m)) for m in FAIL_MODES]
        reasons = ", ".join("%s: %d" % (m, c) for m, c in counts if c > 0)
        if self.best is None:
            return "No valid allocation solutions, failure reasons: " + \
                (reasons if self.failures else "unknown reasons")
        return "score: %s, successes %d, failures %d (%s) for node(s) %s" % (
            _show(self.best[0]), self.allocs, len(self.failures), reasons,
            "/".join(nodes[k].name for k in self.best[3]))


def _policy(data, node):
    return data.groups[node.group].ipolicy


def _single(data, nodes, inst, pdx, force, tests_of):
    node = nodes[pdx]
    fail = policy_failure(inst, _policy(data, node), node.excl_storage)
    if fail:
        return fail
    new = copy_node(node)
    fail = new.add_pri(inst, force)
    if fail:
        return fail
    tests = tests_of(node)
    lost = [b - a for b, a in zip(_vector(tests, node), _vector(tests, new))]
    placed = inst.copy()
    placed.pnode, placed.snode = pdx, -1
    return ((lost, new.f_dsk), {pdx: new}, placed, [pdx])


def _pair(data, nodes, inst, pdx, sdx, force, tests_of):
    prim, sec = nodes[pdx], nodes[sdx]
    fail = policy_failure(inst, _policy(data, prim), prim.excl_storage)
    if fail:
        return fail
    placed = inst.copy()
    placed.pnode, placed.snode = pdx, sdx
    new_p = copy_node(prim)
    fail = new_p.add_pri(placed, force)
    if fail:
        return fail
    new_s = copy_node(sec)
    fail = new_s.add_sec(placed, pdx, False)
    if fail:
        return fail
    tests = tests_of(prim)
    lost_p = [b - a for b, a in zip(_vector(tests, prim), _vector(tests, new_p))]
    lost_s = [b - a for b, a in zip(_vector(tests, sec), _vector(tests, new_s))]
    metric = ([a + b for a, b in zip(lost_p, lost_s)], new_p.f_dsk + new_s.f_dsk)
    return (metric, {pdx: new_p, sdx: new_s}, placed, [pdx, sdx])


def find_allocation(data, nodes, gdx, inst, required, force, restrict=None):
    """Dedicated findAllocation on group `gdx`: (_Sol, log lines) or raise Failed."""
    group = data.groups[gdx]
    nets = [nic.get("network") for nic in inst.nics if isinstance(nic, dict)]
    if not all(net is None or net in group.networks for net in nets):
        raise Failed("The group %s is not connected to a network required by instance %s"
                     % (group.name, inst.name))
    members = [n for n in nodes if n.group == gdx]
    targets = alloc_nodes(members, lambda _g: True, required, restrict)
    cache = {}

    def tests_of(node):
        key = node.group
        if key not in cache:
            cache[key] = _test_instances(_policy(data, node))
        return cache[key]

    total = _Sol()
    if required == 2:
        if not targets:
            raise Failed("Not enough online nodes")
        for pdx, secondaries in targets:
            sol = _Sol()
            for sdx in secondaries:
                sol.add(_pair(data, nodes, inst, pdx, sdx, force, tests_of))
            total.merge(sol)
    else:
        if not targets:
            raise Failed("No online nodes")
        for pdx in targets:
            total.add(_single(data, nodes, inst, pdx, force, tests_of))
    return total, ["Group %s (%s): %s" % (group.name, group.alloc_policy, total.describe(nodes))]


def find_mg_allocation(data, nodes, inst, required, force, restrict=None, groups=None):
    """Dedicated findMGAllocation: (_Sol, log lines) or raise Failed.  `groups`
    (indices): the only groups whose nodes hail's node list still holds."""
    msgs, good = [], []
    for gdx in sorted({n.group for n in nodes if groups is None or n.group in groups}):
        group = data.groups[gdx]
        try:
            sol, lines = find_allocation(data, nodes, gdx, inst, required, force, restrict)
        except Failed as err:
            msgs.append("Group %s: error %s" % (group.name, err))
            continue
        msgs += lines
        if sol.best is not None and group.alloc_policy != "unallocable":
            good.append((gdx, sol))
    if not good:
        raise Failed(", ".join(msgs))
    rank = {"preferred": 0, "last_resort": 1, "unallocable": 2}
    good.reverse()
    good.sort(key=lambda r: (rank[data.groups[r[0]].alloc_policy], r[1].best[0]))
    return good[0][1], ["Selected group: %s" % data.groups[good[0][0]].name] + msgs
