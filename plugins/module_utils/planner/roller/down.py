# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster while a wave is down, and whether the rest of it holds.

While a wave's nodes reboot, their DRBD primaries run on their secondaries
(when the plan migrates them), the non-redundant instances the plan moves
run on their targets, those it leaves (`ignore_non_redundant`, or every
primary under `offline_maintenance`) are stopped, and with `full_evacuation`
the DRBD instances whose secondary was there have their new secondary.

hroller checks none of the migrations fit; this module does, with hbal's
hard limits (those of hroller's own moves): a node's unallocated memory and
free disk (or storage unit) must stay above 0.  A node fails N+1 when its
unallocated memory would not exceed what the instances of its largest peer
(one other up node whose DRBD secondary it is) need, hbal's rule while
balancing.  Everything is computed from the instances' placements, never
from hroller's node records (which full evacuation overwrites).
"""

from __future__ import annotations

from ...model.storage import unit_charges

NO_NODE = -1


class _Figures:
    """One up node's memory, disk and N+1 reservations during the wave."""

    __slots__ = ("node", "mem_free", "disk_free", "unit_free", "peers", "mem_in", "disk_in")

    def __init__(self, node):
        self.node = node
        self.mem_free = node.unallocated_mem()
        self.disk_free = node.f_dsk
        self.unit_free = node.unit_free
        self.peers = {}         # the changes to node.peers (memory reserved per primary node)
        self.mem_in = []        # (instance, MiB) starting to run here, in instance order
        self.disk_in = []       # instances whose disk is created here

    def reserved(self, down):
        """{peer: MiB reserved for it} during the wave, up peers only."""
        loaded, changed = self.node.peers, self.peers
        return {p: loaded.get(p, 0) + changed.get(p, 0)
                for p in set(loaded).union(changed) if p not in down}

    def r_mem(self, down):
        loaded, changed = self.node.peers, self.peers
        top = max(loaded, key=loaded.__getitem__) if loaded else None
        if top is None or top in down or top in changed:
            return max((m for m in self.reserved(down).values() if m > 0), default=0)
        # the loaded largest peer still holds: only the changed peers can exceed it
        best = loaded[top]
        for peer, change in changed.items():
            if peer not in down:
                best = max(best, loaded.get(peer, 0) + change)
        return max(best, 0)


def _during(inst, moved, down, migrate):
    """(primary, secondary, running) of one instance while the wave is down."""
    pnode, snode = moved.pnode, moved.snode
    if inst.template == "drbd" and pnode in down and migrate and snode not in down:
        pnode, snode = snode, pnode
    return pnode, snode, inst.uses_memory and pnode not in down


def _affected(data, members, state):
    found = set(state.changed_instances())
    for n in members:
        found.update(data.nodes[n].p_list)
        found.update(data.nodes[n].s_list)
    return sorted(found)


def _sec_mem(inst):
    return inst.mem if inst.uses_sec_mem and not inst.forthcoming else 0


def _apply(fig_of, inst, before, after):
    """Move one instance's load from its loaded placement to its wave placement;
    `fig_of(node)` is that up node's figures, or None."""
    (p0, s0, run0), (p1, s1, run1) = before, after
    mem = inst.mem
    if run0 and (p1 != p0 or not run1):
        fig = fig_of(p0)
        if fig is not None:
            fig.mem_free += mem
    if run1 and (p1 != p0 or not run0):
        fig = fig_of(p1)
        if fig is not None:
            fig.mem_free -= mem
            fig.mem_in.append((inst, mem))
    if inst.template == "drbd":
        need = _sec_mem(inst)
        old, new = fig_of(s0), fig_of(s1)
        if old is not None and need:
            old.peers[p0] = old.peers.get(p0, 0) - need
        if new is not None and need:
            new.peers[p1] = new.peers.get(p1, 0) + need
        if new is not None and s1 not in (p0, s0) and not inst.forthcoming:
            new.disk_in.append(inst)      # a new secondary: its disks are made there
    elif inst.uses_local_storage and p1 != p0 and not inst.forthcoming:
        fig = fig_of(p1)
        if fig is not None:
            fig.disk_in.append(inst)


def _problem(number, inst, node, resource, needed, free, text):
    return {"instance": inst.name if inst is not None else None, "node": node.name,
            "resource": resource, "needed_mib": int(needed), "free_mib": int(free),
            "text": "wave %d: %s" % (number, text)}


def _memory_problem(number, fig):
    """The first instance that does not fit into the node's memory, with the totals."""
    free = fig.mem_free + sum(m for _i, m in fig.mem_in)
    needed = sum(m for _i, m in fig.mem_in)
    left = free
    for pos, (inst, mem) in enumerate(fig.mem_in):
        left -= mem
        if left <= 0:
            rest = len(fig.mem_in) - pos - 1
            return _problem(number, inst, fig.node, "memory", needed, free, (
                "%s does not fit on %s while the wave is down: it needs %d MiB of memory, "
                "%d MiB are left there%s; the %d instance(s) moving there need %d MiB, "
                "%s has %d MiB free (%d MiB short)" % (
                    inst.name, fig.node.name, mem, left + mem,
                    " (%d more after it)" % rest if rest else "",
                    len(fig.mem_in), needed, fig.node.name, free, needed - free)))
    return None


def _disk_charges(fig, inst):
    """{unit: MiB} on a node with storage units, else None (the per-node pool)."""
    if not fig.node.storage_units:
        return None
    return unit_charges(inst, fig.node.storage_units)


def _disk_problem(number, fig):
    """The first new disk that does not fit (per-node pool, or the node's units)."""
    free, units = fig.disk_free, fig.unit_free
    needed = sum(inst.dsk for inst in fig.disk_in)
    fig.disk_free -= needed
    for inst in fig.disk_in:
        charges = _disk_charges(fig, inst)
        if charges is None and not fig.node.storage_units:
            free -= inst.dsk
            if free <= 0:
                return _problem(number, inst, fig.node, "disk", needed, fig.disk_free + needed, (
                    "the disks of %s (%d MiB) do not fit on %s: %d MiB are left there; the "
                    "disks made there while the wave is down need %d MiB, %s has %d MiB free"
                    % (inst.name, inst.dsk, fig.node.name, free + inst.dsk, needed,
                       fig.node.name, fig.disk_free + needed)))
            continue
        after, hard, _strict = fig.node._units_after(units, charges)
        if hard:
            room = min((units[pos] for pos in charges or ()), default=0)
            return _problem(number, inst, fig.node, "disk", inst.dsk, room, (
                "the disks of %s (%d MiB) do not fit into the storage units of %s "
                "(%d MiB free in the fullest unit it needs)"
                % (inst.name, inst.dsk, fig.node.name, room)))
        units = after if after is not None else units
    return None


def _n1_problem(number, fig, down, nodes):
    r_mem = fig.r_mem(down)
    if r_mem <= 0 or fig.mem_free > r_mem:
        return None
    reserved = fig.reserved(down)
    peer = max(reserved, key=lambda p: reserved[p])
    room = ("which has %d MiB free" % fig.mem_free if fig.mem_free > 0
            else "which is over capacity itself")
    return _problem(number, None, fig.node, "n+1", r_mem, max(fig.mem_free, 0), (
        "%s fails N+1 while the wave is down: should %s fail, its instances need %d MiB of "
        "memory on %s, %s" % (fig.node.name, nodes[peer].name, r_mem, fig.node.name, room)))


def _usage(fig, down_node=None):
    """The node's usage record (plan/usage.py) during the wave."""
    node = fig.node if down_node is None else down_node
    record = {"name": node.name, "mem_total": node.t_mem, "disk_total": node.t_dsk,
              "cpus": node.t_cpu, "offline": bool(node.offline)}
    if down_node is not None:       # rebooting: nothing runs there
        record.update(mem_free=int(node.t_mem) - node.n_mem, disk_free=node.f_dsk, vcpus=0,
                      primaries=0, secondaries=len(node.s_list), n1_fail=False,
                      over_capacity=False, down=True)
        return record
    record.update(mem_free=fig.mem_free, disk_free=fig.disk_free, vcpus=fig.node.u_cpu,
                  primaries=len(fig.node.p_list), secondaries=len(fig.node.s_list),
                  down=False)
    return record


def failing_n1(data):
    """The online nodes failing N+1 as loaded, by the rule used while a wave is
    down: computed once per plan, for the nodes a wave leaves untouched."""
    return {n.idx for n in data.nodes if not n.offline and n.r_mem > 0
            and n.unallocated_mem() <= n.r_mem}


class _UpNodes:
    """The figures of the up nodes of the wave's groups, made when first needed."""

    def __init__(self, data, down, groups):
        self.data, self.down, self.groups, self.figures = data, down, groups, {}
        self.others = set(down)         # the nodes known to have no figures
        self.others.add(NO_NODE)

    def __call__(self, idx):
        fig = self.figures.get(idx)
        if fig is not None:
            return fig
        if idx not in self.others:
            node = self.data.nodes[idx]
            if node.offline or node.group not in self.groups:
                self.others.add(idx)
            else:
                fig = self.figures[idx] = _Figures(node)
        return fig


def wave_down(data, number, members, state, migrate, group_idx=None, base_failing=None,
              with_usage=False):
    """(the wave's `down` verdict, usage records of the group's nodes during the wave,
    or None without `with_usage`).

    `members` are the wave's node slots, `state` hroller's state of the wave
    (its moves), `migrate` whether DRBD primaries are migrated off;
    `base_failing` is failing_n1(data), given to save recomputing it."""
    down = set(members)
    up = _UpNodes(data, down, {data.nodes[n].group for n in members})
    counts = {}         # node: [primaries, secondaries, vcpus] change
    stopped = []
    for idx in _affected(data, members, state):
        inst = data.instances[idx]
        before = (inst.pnode, inst.snode, inst.uses_memory)
        after = _during(inst, state.inst(idx), down, migrate)
        if after == before:     # a secondary on a down node: nothing changes elsewhere
            continue
        _apply(up, inst, before, after)
        if with_usage:
            _count(counts, inst, before, after)
        if before[2] and not after[2]:
            stopped.append(inst.name)
    # a node the wave does not touch keeps its loaded N+1 state
    for idx in failing_n1(data) if base_failing is None else base_failing:
        up(idx)
    problems, over, failing = [], [], []
    for k in sorted(up.figures):
        fig = up.figures[k]
        found = [p for p in (_memory_problem(number, fig), _disk_problem(number, fig))
                 if p is not None]
        n1 = _n1_problem(number, fig, down, data.nodes)
        if found:
            over.append(fig.node.name)
        if n1 is not None:
            failing.append(fig.node.name)
        problems += found + ([n1] if n1 else [])
    # an instance without a place first: that is what stops a wave for sure
    problems.sort(key=lambda p: p["instance"] is None)
    verdict = {"fits": not problems, "problems": problems, "over_capacity": over,
               "n1_failing": failing, "stopped": stopped,
               "summary": _summary(number, problems, over, failing, stopped)}
    if not with_usage:
        return verdict, None
    return verdict, _usage_records(data, up, counts, group_idx, over, failing)


def _count(counts, inst, before, after):
    (p0, s0, _run0), (p1, s1, _run1) = before, after

    def change(node, pos, amount):
        if node != NO_NODE:
            counts.setdefault(node, [0, 0, 0])[pos] += amount

    for node, pos, sign in ((p0, 0, -1), (p1, 0, 1), (s0, 1, -1), (s1, 1, 1)):
        change(node, pos, sign)
    if inst.not_offline and p0 != p1:
        change(p0, 2, -inst.vcpus)
        change(p1, 2, inst.vcpus)


def _usage_records(data, up, counts, group_idx, over, failing):
    over, failing = set(over), set(failing)
    records = []
    for node in data.nodes:
        if group_idx is not None and node.group != group_idx:
            continue
        if node.idx in up.down:
            records.append(_usage(None, node))
        elif up(node.idx) is not None:
            record = _usage(up(node.idx))
            change = counts.get(node.idx, (0, 0, 0))
            record["primaries"] += change[0]
            record["secondaries"] += change[1]
            record["vcpus"] += change[2]
            record["n1_fail"] = node.name in failing
            record["over_capacity"] = node.name in over
            records.append(record)
        else:                           # offline, or a group the wave does not touch
            records.append(_unchanged(node))
    return records


def _unchanged(node):
    return {"name": node.name, "mem_total": node.t_mem, "mem_free": node.unallocated_mem(),
            "disk_total": node.t_dsk, "disk_free": node.f_dsk, "cpus": node.t_cpu,
            "vcpus": node.u_cpu, "primaries": len(node.p_list),
            "secondaries": len(node.s_list), "offline": bool(node.offline),
            "n1_fail": bool(node.fail_n1) and not node.offline, "over_capacity": False,
            "down": False}


def _summary(number, problems, over, failing, stopped):
    stops = "; %d instance(s) stopped meanwhile" % len(stopped) if stopped else ""
    if not problems:
        return "wave %d fits: every instance has a place while its nodes are down, no node " \
               "over capacity or failing N+1%s" % (number, stops)
    parts = []
    if over:
        parts.append("over capacity: %s" % ", ".join(over))
    if failing:
        parts.append("failing N+1: %s" % ", ".join(failing))
    return "wave %d does not fit while its nodes are down (%s); first: %s%s" % (
        number, "; ".join(parts), problems[0]["text"].partition(": ")[2], stops)
