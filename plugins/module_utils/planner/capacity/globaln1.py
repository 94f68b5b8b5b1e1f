# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""htools' global N+1 predicate as hspace and hail's allocations use it.

A state is redundant when every checked node can be emptied: DRBD
primaries failed over, shared-storage primaries moved within the group,
the rest re-created elsewhere in the group (largest memory first).  The
per-node check is evacuate/capacity.py's; here the re-creation is scored
over the nodes the check was given (the whole cluster, or one group for
hspace --independent-groups), and offline nodes or whole groups can be
left out, as hspace's options ask.
"""

from __future__ import annotations

from collections import namedtuple

from ..evacuate.capacity import SHARED
from ..evacuate.state import EvacState
from .emptying import Emptier
from .memory_fit import after_the_first, always_fit, bounds
from .quickn1 import QuickN1


class Verdict(namedtuple("Verdict", "redundant lasting")):
    """A redundancy answer; `lasting` when it is "no" for a reason that more
    instances on the same nodes cannot take away (see `_quick_verdict`)."""
    __slots__ = ()


class Checker:
    """redundant(nodes, insts) for one cluster; `skip_offline` is hspace's
    --accept-existing-errors, `ignore_groups` its --independent-groups."""

    def __init__(self, data, skip_offline=False, ignore_groups=()):
        self.data = data
        self.skip_offline = skip_offline
        self.ignore_groups = frozenset(ignore_groups)
        # (node idx, scored over all) -> [the node objects its last simulation
        # read, None, its answer or None]; nodes are replaced, never changed,
        # so the same objects give the same answers
        self.cache = {}
        # the nodes that failed last, tried first: the answer is an "and" over
        # all nodes, so the order they are asked in changes nothing but the time
        self.suspects = []
        # changed node idx -> the node that failed the last time `first`
        # began with it: hspace's tiered search tries one size after another
        # on the same candidate node, and that node usually fails again
        self.failed_after = {}
        self.emptier = Emptier()
        self.quick = QuickN1(data)

    def checked(self, nodes, scope=None):
        pool = nodes if scope is None else [nodes[k] for k in scope]
        return [n.idx for n in pool
                if n.group not in self.ignore_groups and not (self.skip_offline and n.offline)]

    def redundant(self, nodes, insts, scope=None):
        """Every checked node (of `scope`, node indices, default all) evacuable?"""
        return self.check(nodes, insts, scope).redundant

    def check(self, nodes, insts, scope=None, first=()):
        """redundant() as a Verdict: the certain answers of every node first,
        then the simulations of the nodes that need one.  The nodes `first`
        (those just changed, say), the node that failed after a change to
        the first of them last time, and the ones that failed last are asked
        first."""
        first = list(first)         # node indices (a {idx: node} mapping gives its keys)
        state = self._state(nodes, insts)
        score_over = None if scope is None else list(scope)
        order, ahead = self._suspects_first(self.checked(nodes, scope), first)
        simulate = []
        for part in (order[:ahead], order[ahead:]):
            answers, margins = self._certain(state, nodes, insts, part)
            for ndx, quick in zip(part, answers):
                if quick is False:
                    return self._failed(ndx, True, first)
                if quick is None:
                    simulate.append((ndx not in first, margins.get(ndx, 0), len(simulate), ndx))
        # the order changes the time only: `first`, then the tightest nodes
        for _later, _margin, _pos, ndx in sorted(simulate):
            entry = self._entry(state, nodes, insts, ndx, score_over)
            if entry[2] is None:
                entry[2] = can_evacuate(state, nodes, insts, ndx, score_over, self.emptier)
            if not entry[2]:
                return self._failed(ndx, False, first)
        return Verdict(True, False)

    def _certain(self, state, nodes, insts, ndxs):
        """_quick_verdict of each of `ndxs`, the plain nodes' all at once;
        and {plain node: its margin} (QuickN1.verdicts)."""
        profiles = [self.quick.profile(nodes[k], nodes, insts) for k in ndxs]
        plain = [k for k, p in zip(ndxs, profiles) if p is not None]
        quick, margins = self.quick.verdicts(
            plain, [p for p in profiles if p is not None], state.frees,
            [n.f_dsk for n in nodes] if plain else ())
        answers = dict(zip(plain, quick))
        return [answers[k] if k in answers else _quick_verdict(state, nodes, insts, k)
                for k in ndxs], dict(zip(plain, margins))

    def _entry(self, state, nodes, insts, ndx, score_over):
        """[the node objects the node's simulation reads, None, its answer or
        None]: kept while those objects are the same."""
        deps = _depends_on(state, nodes, insts, ndx, score_over)
        key = (ndx, score_over is None)
        hit = self.cache.get(key)
        if hit is not None and len(hit[0]) == len(deps) and \
                all(a is b for a, b in zip(hit[0], deps)):
            return hit
        entry = self.cache[key] = [deps, None, None]
        return entry

    def _suspects_first(self, checked, first):
        """(the checked nodes, `first`, the node that failed after `first`'s
        first node last time and the suspects ahead; how many are ahead)."""
        present = set(checked)
        ahead = []
        after = [self.failed_after[first[0]]] if first and first[0] in self.failed_after else []
        for k in first + after + self.suspects:
            if k in present and k not in ahead:
                ahead.append(k)
        return ahead + [k for k in checked if k not in set(ahead)], len(ahead)

    def certain_failure(self, nodes, insts, ndx):
        """Whether node `ndx` cannot be emptied, for certain (its quick
        answer: a lasting "no")."""
        return self._certain(self._state(nodes, insts), nodes, insts, [ndx])[0][0] is False

    def _state(self, nodes, insts):
        """The EvacState of a check, with every node's unallocated memory."""
        state = EvacState(self.data, nodes, insts)
        state.frees = [n.unallocated_mem() for n in nodes]
        return state

    def last_failed(self):
        """The node that could not be emptied in the last failed check."""
        return self.suspects[0] if self.suspects else None

    def _failed(self, ndx, lasting, first):
        self.suspects = [ndx] + [k for k in self.suspects if k != ndx][:3]
        if first:
            self.failed_after[first[0]] = ndx
        return Verdict(False, lasting)

    def group_redundant(self, nodes, insts, gdx):
        """redundantGrp: the group's nodes only (scores over them too)."""
        return self.redundant(nodes, insts, [n.idx for n in nodes if n.group == gdx])


def _depends_on(state, nodes, insts, ndx, score_over):
    """The node objects a node's check reads: itself and its DRBD
    secondaries, and with any other primary its whole group (and, for a
    re-creation, every scored node)."""
    node = nodes[ndx]
    deps = [node]
    other = False
    for idx in node.p_list:
        inst = insts[idx]
        if inst.template == "drbd":
            deps.append(nodes[inst.snode])
        else:
            other = other or ("recreate" if inst.template not in SHARED else True)
    if other:
        deps.extend(nodes[k] for k in state.members[node.group])
    if other == "recreate":
        deps.extend(nodes if score_over is None else [nodes[k] for k in score_over])
    return deps


def memory_only_verdict(nodes, insts, node, escape, pending, room=None, frees=None):
    """True or False when the greedy placement of the pending movable
    instances (SHARED templates: a node takes them on memory alone when
    soft limits are ignored, their storage is not the node's) is decided
    whatever node it picks each time, else None.

    A node takes an instance while its unallocated memory stays above 0:
    memory_fit's bounds, then the same after each place the first of them
    may go to.
    `room`: the memory left on the nodes the failovers used; `frees`: every
    node's unallocated memory when the caller has it (Checker.check's list
    for these very nodes), else each escape node's is read here."""
    room = room or {}
    tags = node.mig_tags
    frees = [room[k] if k in room else frees[k] if frees is not None
             else nodes[k].unallocated_mem() for k in escape
             if not tags or tags <= nodes[k].rmig_tags]
    mems = [insts[i].mem for i in pending if insts[i].uses_memory]
    if len(mems) != len(pending) or min(mems) <= 0:
        # bounds' first test holds for instances that need no memory too
        return True if max(frees, default=0) - sum(mems) > 0 else None
    verdict = bounds(frees, mems)
    return after_the_first(frees, mems) if verdict is None else verdict


def _failover_room(nodes, insts, node, drbd, frees):
    """The DRBD failovers of a node's check without simulating them: False
    when one fails, else {secondary idx: its unallocated memory after}.

    With soft limits ignored a failover only fails on migration tags, or
    when the secondary's memory left (or a node's disk, which the move does
    not change) is not above 0.  None where that reading does not hold
    (storage units, exclusive storage, forthcoming instances)."""
    if node.storage_units or node.excl_storage:
        return None
    room = {}
    for idx in drbd:
        inst = insts[idx]
        sec = nodes[inst.snode]
        if sec.storage_units or sec.excl_storage or inst.forthcoming:
            return None
        if not node.mig_tags <= sec.rmig_tags:
            return False
        left = room.get(inst.snode)
        if left is None:
            left = frees[inst.snode]
        left -= inst.mem if inst.uses_memory else 0
        room[inst.snode] = left
        if left <= 0 or sec.f_dsk <= 0 or (not node.offline and node.f_dsk <= 0):
            return False
    return room


def _quick_verdict(state, nodes, insts, ndx):
    """can_evacuate's answer when it is certain without the simulation, else None.

    A False here stays False when instances are only added to the cluster
    (new instances on any nodes, nothing removed): a failover that failed on
    memory, disk or tags finds at most as much room, and movable instances
    that could not all fit into the other nodes' memory cannot fit with more
    of them and less memory either (any placement of them all would place
    the old ones too)."""
    node = nodes[ndx]
    drbd, other = [], []
    for idx in node.p_list:
        (drbd if insts[idx].template == "drbd" else other).append(idx)
    if any(insts[i].template not in SHARED for i in other):
        return None
    frees = state.frees         # Checker.check's, for these nodes
    room = _failover_room(nodes, insts, node, drbd, frees)
    if room is None or room is False:
        return None if room is None else False
    if not other:
        return True
    escape = [k for k in state.members[node.group] if k != ndx]
    return memory_only_verdict(nodes, insts, node, escape, other, room, frees)


def can_evacuate(state, nodes, insts, ndx, score_over=None, emptier=None):
    """canEvacuateNode; re-creations scored over `score_over` (all nodes when None).
    `emptier` keeps the failover and move steps between calls (a Checker's)."""
    emptier = emptier or Emptier()
    node = nodes[ndx]
    drbd = [i for i in node.p_list if insts[i].template == "drbd"]
    other = [i for i in node.p_list if insts[i].template != "drbd"]
    done = emptier.fail_over(nodes, insts, node, drbd)
    if done is None:
        return False
    nodes, insts = done
    escape = [k for k in state.members[node.group] if k != ndx]
    movable = [i for i in other if insts[i].template in SHARED]
    rest = [i for i in other if insts[i].template not in SHARED]
    hosts = movers = recreated = accepted = ()
    if rest:
        recreated = [insts[i] for i in rest]
        # which escape nodes the group's policy lets take each re-created
        # instance: the moves change no node's policy, so it is read once
        accepted = [[k for k in escape
                     if emptier.policy_allows(inst, state.data.groups[nodes[k].group].ipolicy,
                                              nodes[k].excl_storage)] for inst in recreated]
        if _no_room_for(nodes, recreated, escape, accepted):
            return False
        hosts, movers = _hosts(nodes, node, accepted)
    # the movable instances leave first, one by one; before each move, what
    # is left may be decided whatever the greedy picks from here on
    for pos, idx in enumerate(movable):
        left = movable[pos:]
        verdict = memory_only_verdict(nodes, insts, node, escape, left)
        if not rest and verdict is not None:
            return verdict
        if verdict is False:
            return False
        if rest and _room_for_all(nodes, insts, left + rest, movers):
            return True
        nodes = emptier.move(state, nodes, insts, idx, escape)
        if nodes is None:
            return False
    if rest and _room_for_all(nodes, insts, rest, hosts):
        return True
    # the moves replace no re-created instance: `recreated` and `accepted` hold
    recreations = sorted(zip(recreated, accepted),     # stable: equal sizes keep list order
                         key=lambda pair: -pair[0].mem)
    return _recreate(nodes, recreations, score_over, emptier)


def _hosts(nodes, node, accepted):
    """(the escape nodes that could take any of the node's instances, those
    of them its migration tags fit too), for _room_for_all: without storage
    units or exclusive storage, and accepted by the group's policy for each
    re-created instance (`accepted`: per instance, the nodes it is).  None
    at all when the node itself has storage units."""
    if node.storage_units:
        return [], []
    common = set.intersection(*(set(ks) for ks in accepted))
    hosts = [k for k in accepted[0] if k in common
             and not (nodes[k].storage_units or nodes[k].excl_storage)]
    tags = node.mig_tags
    return hosts, [k for k in hosts if not tags or tags <= nodes[k].rmig_tags]


def _room_for_all(nodes, insts, pending, hosts):
    """Whether the node's instances `pending` (indices) all find a place
    whatever node of `hosts` (_hosts) the greedy gives each (the moves, then
    the re-creations): a sufficient test, False when it cannot tell.

    Of the hosts, those with disk for all of the re-created instances that
    use local storage together count.  With soft limits ignored such a node
    takes an instance while its unallocated memory stays above 0:
    memory_fit.always_fit on their memory decides."""
    items = [insts[i] for i in pending]
    if any(inst.forthcoming for inst in items):
        return False
    biggest = max(inst.mem if inst.uses_memory else 0 for inst in items)
    local = [inst.dsk for inst in items if inst.template not in SHARED and inst.uses_local_storage]
    disk = sum(local)
    total = sum(inst.mem for inst in items if inst.uses_memory)
    # a node keeps more than 0 disk after each local instance (even of size 0)
    frees = [nodes[k].unallocated_mem() for k in hosts
             if not (local and nodes[k].f_dsk - disk <= 0)]
    return always_fit(frees, total, biggest, len(items))


def _no_room_for(nodes, recreated, escape, accepted):
    """Whether the re-creation of `recreated` fails whatever happens before
    it: the moves and the re-creations only take memory and disk from the
    escape nodes, so an instance that no escape node takes now (memory, disk
    of local storage, the group's policy: `accepted`, per instance the nodes
    it allows) finds none then; nor do instances needing more memory (or
    disk) than the nodes that could take any of them have between them (a
    node keeps more than 0 of each).  Without storage units only: then disk
    is per node."""
    if any(nodes[k].storage_units for k in escape):
        return False
    takers = set()
    needed = [0, 0]
    for inst, allowed in zip(recreated, accepted):
        if inst.forthcoming:    # re-created whatever the room (soft limits ignored)
            continue
        mem = inst.mem if inst.uses_memory else 0
        local = inst.uses_local_storage
        fits = [k for k in allowed
                if nodes[k].unallocated_mem() - mem > 0
                and not (local and nodes[k].f_dsk - inst.dsk <= 0)]
        if not fits:
            return True
        takers.update(fits)
        needed[0] += mem
        needed[1] += inst.dsk if local else 0
    return (sum(max(0, nodes[k].unallocated_mem() - 1) for k in takers) < needed[0] or
            sum(max(0, nodes[k].f_dsk - 1) for k in takers) < needed[1])


def _recreate(nodes, recreations, score_over, emptier):
    """Each re-creation (instance, the escape nodes its group's policy lets
    take it) added to the best of those nodes (scored over `score_over`, all
    nodes when None), in order: whether all fit."""
    scope = range(len(nodes)) if score_over is None else score_over
    for inst, targets in recreations:
        found = emptier.recreation(nodes, scope, inst, targets)
        if found is None:
            return False
        nodes = list(nodes)
        nodes[found[0]] = found[1]
    return True
