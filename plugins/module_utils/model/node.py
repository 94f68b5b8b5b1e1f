# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node and the add/remove algebra that keeps its derived figures exact.

Every arithmetic step keeps Haskell's operand types and order, because
hbal's scores are reproduced to the last printed digit."""

from __future__ import annotations

import math

from .group import IPolicy
from .storage import metric_unit_positions, unit_charges
from .vocabulary import LOCAL_STORAGE_TEMPLATES, MEMORY_USING_STATUSES, compute_pdsk, fdiv

# hbal --static-kvm-node-memory's default (MiB): KVM reports no memory of its
# own, so the node's memory is taken as this much.
STATIC_KVM_MEMORY = 4096


def kvm_node_memory(reported, hypervisor, static_kvm_memory):
    """The node memory hbal uses: the static value on KVM nodes when it is
    positive (0 or less keeps what the node reports)."""
    if hypervisor == "kvm" and static_kvm_memory is not None and static_kvm_memory > 0:
        return static_kvm_memory
    return reported


def _add_tags(counts, tags):
    for tag in tags:
        counts[tag] = counts.get(tag, 0) + 1


def _delete(indices, idx):
    """Data.List.delete: the first `idx` out of `indices`, if it is there.
    An inconsistent move (hail's change-group of an instance whose
    secondary is in another group replaces its secondary by its primary)
    removes an instance a node does not list; htools goes on."""
    try:
        indices.remove(idx)
    except ValueError:
        pass


def _del_tags(counts, tags):
    for tag in tags:
        left = counts.get(tag, 0) - 1
        if left > 0:
            counts[tag] = left
        else:
            counts.pop(tag, None)


class Node:
    """A node and every derived quantity hbal keeps for it.

    The mutators below implement hbal's add/remove algebra: unchecked
    placement while loading, and checked add / plain remove while balancing,
    where an add reports the first limit it breaks.  Balancing works on copies
    (`copy()`), so a failed candidate never touches the state it was tried on.
    """

    __slots__ = (
        "idx", "name", "alias", "group", "t_mem", "n_mem", "f_mem", "i_mem", "x_mem",
        "f_mem_forth", "t_dsk", "f_dsk", "f_dsk_forth", "t_cpu", "n_cpu", "u_cpu",
        "u_cpu_forth", "t_cpu_speed", "t_spindles", "f_spindles", "f_spindles_forth",
        "excl_storage", "p_list", "s_list", "p_list_forth", "s_list_forth", "peers",
        "r_mem", "fail_n1", "p_mem", "p_mem_forth", "p_dsk", "p_dsk_forth", "p_rem",
        "p_cpu", "p_cpu_forth", "m_dsk", "lo_dsk", "hi_cpu", "hi_spindles",
        "inst_spindles", "inst_spindles_forth", "offline", "is_master", "tags",
        "util_load", "util_load_forth", "p_tags", "location_tags", "mig_tags",
        "rmig_tags", "location_score", "instance_map", "vcpu_ratio", "spindle_ratio",
        "drained", "hypervisor", "storage_units", "unit_free", "unit_free_forth",
        "pdsk_unit",
    )

    def __init__(self, idx, name, t_mem, n_mem, f_mem, t_dsk, f_dsk, t_cpu, n_cpu,
                 offline, is_master, group, t_spindles=1, f_spindles=0,
                 excl_storage=False, tags=(), t_cpu_speed=1.0):
        self.idx = idx
        self.name = name
        self.alias = name
        self.group = group
        self.t_mem = float(t_mem)
        self.n_mem = n_mem
        self.f_mem = f_mem
        self.i_mem = 0
        self.x_mem = 0
        self.f_mem_forth = f_mem
        self.t_dsk = float(t_dsk)
        self.f_dsk = f_dsk
        self.f_dsk_forth = f_dsk
        self.t_cpu = float(t_cpu)
        self.n_cpu = n_cpu
        self.u_cpu = n_cpu
        self.u_cpu_forth = n_cpu
        self.t_cpu_speed = float(t_cpu_speed)
        self.t_spindles = t_spindles
        self.f_spindles = f_spindles
        self.f_spindles_forth = f_spindles
        self.excl_storage = excl_storage
        self.p_list = []
        self.s_list = []
        self.p_list_forth = []
        self.s_list_forth = []
        self.peers = {}
        self.r_mem = 0
        self.fail_n1 = True
        self.p_mem = 0.0
        self.p_mem_forth = fdiv(f_mem, self.t_mem)
        self.p_dsk = self._new_pdsk(f_spindles, f_dsk)
        self.p_dsk_forth = self.p_dsk
        self.p_rem = 0.0
        self.p_cpu = fdiv(n_cpu, self.t_cpu)
        self.p_cpu_forth = self.p_cpu
        self.m_dsk = 0.0
        self.lo_dsk = 0
        policy = IPolicy.default()
        self.vcpu_ratio = policy.vcpu_ratio
        self.spindle_ratio = policy.spindle_ratio
        self.hi_cpu = math.floor(policy.vcpu_ratio * self.t_cpu) if math.isfinite(self.t_cpu) else 0
        self.hi_spindles = policy.spindle_ratio * float(t_spindles)
        self.inst_spindles = 0.0
        self.inst_spindles_forth = 0.0
        self.offline = offline
        self.drained = False
        self.is_master = is_master
        self.tags = list(tags)
        self.util_load = [0.0, 0.0, 0.0, 0.0]
        self.util_load_forth = [0.0, 0.0, 0.0, 0.0]
        self.p_tags = {}
        self.location_tags = frozenset()
        self.mig_tags = frozenset()
        self.rmig_tags = frozenset()
        self.location_score = 0
        self.instance_map = {}
        self.hypervisor = None
        # StorageUnit records as loaded (model/storage.py) and the current free
        # space of each, now and with forthcoming instances: tuples, replaced on
        # change, so copies share them
        self.storage_units = ()
        self.unit_free = ()
        self.unit_free_forth = ()
        # the unit whose free fraction is the node's p_dsk (one metric unit), or -1
        self.pdsk_unit = -1

    def copy(self):
        new = Node.__new__(Node)
        for slot in Node.__slots__:
            setattr(new, slot, getattr(self, slot))
        new.p_list = list(self.p_list)
        new.s_list = list(self.s_list)
        new.p_list_forth = list(self.p_list_forth)
        new.s_list_forth = list(self.s_list_forth)
        new.peers = dict(self.peers)
        new.util_load = list(self.util_load)
        new.util_load_forth = list(self.util_load_forth)
        new.p_tags = dict(self.p_tags)
        new.instance_map = dict(self.instance_map)
        return new

    # -- derived quantities: free/unallocated memory, ratios to the totals --
    def recorded_free_mem(self, i_mem=None):
        return int(self.t_mem) - self.n_mem - (self.i_mem if i_mem is None else i_mem)

    def unallocated_mem(self, i_mem=None):
        # recorded_free_mem less the unaccounted memory, written out: the N+1
        # checks ask it of every node, many times a check
        x_mem = self.x_mem
        return int(self.t_mem) - self.n_mem - (self.i_mem if i_mem is None else i_mem) - \
            (x_mem if x_mem > 0 else 0)

    def avail_mem(self):
        return max(0, self.unallocated_mem() - self.r_mem)

    def _new_pdsk(self, free_spindles, free_dsk):
        if self.excl_storage:
            return compute_pdsk(free_spindles, float(self.t_spindles))
        return compute_pdsk(free_dsk, self.t_dsk)

    def set_storage_units(self, units):
        """Give the node its storage units (at load time, before placement)."""
        self.storage_units = tuple(units)
        self.unit_free = self.unit_free_forth = tuple(unit.free for unit in units)
        metric = metric_unit_positions(self.storage_units)
        self.pdsk_unit = metric[0] if len(metric) == 1 else -1
        self._unit_pdsk()

    def current_units(self):
        """The storage units with their current free space."""
        return tuple(unit._replace(free=free)
                     for unit, free in zip(self.storage_units, self.unit_free))

    def unit_lo(self, pos):
        """The reserved free space of unit `pos` (--min-disk, as lo_dsk is)."""
        limit = self.m_dsk * self.storage_units[pos].total
        return math.floor(limit) if math.isfinite(limit) else 0

    def unit_fractions(self, pos):
        """The free fraction of unit `pos`: now, and with forthcoming instances."""
        total = float(self.storage_units[pos].total)
        return (compute_pdsk(self.unit_free[pos], total),
                compute_pdsk(self.unit_free_forth[pos], total))

    def _unit_pdsk(self):
        # With exactly one metric unit, p_dsk is its free fraction: the group's
        # free-disk metric is then the plain standard deviation of p_dsk.
        if self.pdsk_unit >= 0:
            self.p_dsk, self.p_dsk_forth = self.unit_fractions(self.pdsk_unit)

    def _units_after(self, frees, charges):
        """(free space after the charges or None, hard failure, strict failure).

        Per unit, as 3.0.2's rule for the per-node pool: the free space left
        must stay above 0 (hard), and strictly also not fall below the
        reserve.  `charges` None (a disk without its unit here) fails hard;
        {} charges nothing."""
        if charges is None:
            return None, True, False
        if not charges:
            return None, False, False
        after = _units_minus(frees, charges)
        hard = any(after[pos] <= 0 for pos in charges)
        strict = hard or any(after[pos] < self.unit_lo(pos) for pos in charges)
        return after, hard, strict

    def set_policy(self, vcpu_ratio, spindle_ratio):
        self.vcpu_ratio = vcpu_ratio
        self.spindle_ratio = spindle_ratio
        self.hi_cpu = _floor_or_zero(vcpu_ratio * self.t_cpu)
        self.hi_spindles = spindle_ratio * float(self.t_spindles)

    def spindle_use(self, add, inst, forth=False):
        """calcSpindleUse: instance spindles after adding/removing `inst`."""
        if self.excl_storage:
            return 0.0
        current = self.inst_spindles_forth if forth else self.inst_spindles
        if not inst.uses_local_storage:
            return current
        return current + inst.spindle_use if add else current - inst.spindle_use

    def free_spindles_after(self, add, inst, forth=False):
        """calcNewFreeSpindles."""
        if not self.excl_storage:
            return 0
        current = self.f_spindles_forth if forth else self.f_spindles
        total = inst.total_spindles
        if total is None:
            return -1 if add else current
        return current - total if add else current + total

    def dsrd_loc_score(self, inst):
        return len(inst.dsrd_loc_tags) - len(inst.dsrd_loc_tags & self.location_tags)

    def loc_excl_pairs(self, inst):
        if not (inst.excl_tags and self.location_tags):     # the usual case, asked per add
            return []
        return [(loc, excl) for loc in sorted(self.location_tags) for excl in inst.excl_tags]

    # -- load-time placement: no checks, every instance is accepted -------
    def load_placed(self, placed):
        """Place (instance, as_primary) pairs, in the data's instance order.

        One pass with the running figures in locals: the same figures, summed
        in the same order, as placing them one by one (the loaders call this
        once per node on 20 000+ instances, so per-instance calls matter)."""
        p_new, s_new, p_forth_new, s_forth_new = [], [], [], []
        u_cpu, u_cpu_forth = self.u_cpu, self.u_cpu_forth
        l0, l1, l2, l3 = self.util_load
        f0, f1, f2, f3 = self.util_load_forth
        spindles, spindles_forth = self.inst_spindles, self.inst_spindles_forth
        count_spindles = not self.excl_storage   # else spindle_use stays 0.0
        f_mem_forth = self.f_mem_forth
        location_score = self.location_score
        location_tags = self.location_tags
        for inst, as_primary in placed:
            forthcoming = inst.forthcoming
            local = inst.template in LOCAL_STORAGE_TEMPLATES
            util = inst.util
            if as_primary:
                counts_cpu = inst.run_status != "ADMIN_offline"
                if not forthcoming:
                    p_new.append(inst.idx)
                    if counts_cpu:
                        u_cpu += inst.vcpus
                    l0 += util[0]
                    l1 += util[1]
                    l2 += util[2]
                    l3 += util[3]
                    if count_spindles and local:
                        spindles += inst.spindle_use
                    location_score += inst.location_score
                    if inst.dsrd_loc_tags:
                        location_score += self.dsrd_loc_score(inst)
                    if location_tags and inst.excl_tags:
                        _add_tags(self.instance_map, self.loc_excl_pairs(inst))
                if inst.excl_tags:
                    _add_tags(self.p_tags, inst.excl_tags)
                p_forth_new.append(inst.idx)
                if counts_cpu:
                    u_cpu_forth += inst.vcpus
                f0 += util[0]
                f1 += util[1]
                f2 += util[2]
                f3 += util[3]
                if forthcoming or inst.run_status not in MEMORY_USING_STATUSES:
                    f_mem_forth -= inst.mem
            else:
                if not forthcoming:
                    s_new.append(inst.idx)
                    l2 += util[2]
                    if count_spindles and local:
                        spindles += inst.spindle_use
                s_forth_new.append(inst.idx)
                f2 += util[2]
            if count_spindles and local:
                spindles_forth += inst.spindle_use
            if forthcoming:
                self._forth_take_disk(inst)
        # newest first, as hbal's lists are built
        self.p_list[:0] = p_new[::-1]
        self.s_list[:0] = s_new[::-1]
        self.p_list_forth[:0] = p_forth_new[::-1]
        self.s_list_forth[:0] = s_forth_new[::-1]
        self.u_cpu, self.u_cpu_forth = u_cpu, u_cpu_forth
        self.p_cpu = fdiv(u_cpu, self.t_cpu)
        self.p_cpu_forth = fdiv(u_cpu_forth, self.t_cpu)
        self.util_load = [l0, l1, l2, l3]
        self.util_load_forth = [f0, f1, f2, f3]
        self.inst_spindles = 0.0 if self.excl_storage else spindles
        self.inst_spindles_forth = 0.0 if self.excl_storage else spindles_forth
        self.f_mem_forth = f_mem_forth
        self.p_mem_forth = fdiv(f_mem_forth, self.t_mem)
        self.location_score = location_score

    def _forth_take_disk(self, inst):
        if inst.uses_local_storage:
            self.f_dsk_forth -= inst.dsk
        self.f_spindles_forth = self.free_spindles_after(True, inst, forth=True)
        self.p_dsk_forth = self._new_pdsk(self.f_spindles_forth, self.f_dsk_forth)
        if self.storage_units:
            charges = unit_charges(inst, self.storage_units)
            if charges:
                self.unit_free_forth = _units_minus(self.unit_free_forth, charges)
                self._unit_pdsk()

    def _units_give_back(self, inst, now):
        """Return the unit space of a removed instance (now: also the current
        free space, not only the forthcoming one)."""
        charges = unit_charges(inst, self.storage_units)
        if charges:
            if now:
                self.unit_free = _units_plus(self.unit_free, charges)
            self.unit_free_forth = _units_plus(self.unit_free_forth, charges)
        self._unit_pdsk()

    def build_peers(self, instances):
        """Secondary memory reservations per primary node (load time only)."""
        peers = {}
        for idx in reversed(self.s_list):   # oldest first, as the list was built
            inst = instances[idx]
            amount = inst.mem if (inst.uses_sec_mem and not inst.forthcoming) else 0
            peers[inst.pnode] = peers.get(inst.pnode, 0) + amount
        self.peers = peers
        self.r_mem = max(peers.values(), default=0)
        self.p_rem = fdiv(self.r_mem, self.t_mem)
        # 3.0.2 uses the reported free memory and a strict comparison here.
        self.fail_n1 = self.f_mem < self.r_mem

    def update_missing(self, instances):
        """Compute i_mem/x_mem/p_mem; return (x_mem, missing disk) for warnings."""
        self.i_mem = sum(instances[i].mem for i in self.p_list if instances[i].uses_memory)
        self.x_mem = (int(self.t_mem) - self.n_mem - self.i_mem) - self.f_mem
        self.p_mem = fdiv(self.unallocated_mem(), self.t_mem)
        used_dsk = sum(instances[i].dsk for i in self.p_list + self.s_list)
        return self.x_mem, int(self.t_dsk) - self.f_dsk - used_dsk

    # -- balancing-time updates: removals always succeed (an instance the
    #    node does not list is taken off its figures all the same, as
    #    htools' Data.List.delete-based removals do); adds check limits,
    #    soft ones only when not forced ----------------------------------
    def remove_pri(self, inst):
        if not inst.forthcoming:
            _delete(self.p_list, inst.idx)
            if inst.uses_memory:
                self.i_mem -= inst.mem
            new_free = self.unallocated_mem()
            self.p_mem = fdiv(new_free, self.t_mem)
            self.fail_n1 = new_free <= self.r_mem
            if inst.uses_local_storage:
                self.f_dsk += inst.dsk
            self.f_spindles = self.free_spindles_after(False, inst)
            self.inst_spindles = self.spindle_use(False, inst)
            self.p_dsk = self._new_pdsk(self.f_spindles, self.f_dsk)
            if inst.not_offline:
                self.u_cpu -= inst.vcpus
            self.p_cpu = fdiv(self.u_cpu, self.t_cpu)
            self.util_load = _util_sub(self.util_load, inst.util)
            self.location_score -= inst.location_score + self.dsrd_loc_score(inst)
            _del_tags(self.instance_map, self.loc_excl_pairs(inst))
        _del_tags(self.p_tags, inst.excl_tags)
        _delete(self.p_list_forth, inst.idx)
        self.f_mem_forth += inst.mem
        if inst.uses_local_storage:
            self.f_dsk_forth += inst.dsk
        self.f_spindles_forth = self.free_spindles_after(False, inst, forth=True)
        self.inst_spindles_forth = self.spindle_use(False, inst, forth=True)
        self.p_mem_forth = fdiv(self.f_mem_forth, self.t_mem)
        self.p_dsk_forth = self._new_pdsk(self.f_spindles_forth, self.f_dsk_forth)
        if inst.not_offline:
            self.u_cpu_forth -= inst.vcpus
        self.p_cpu_forth = fdiv(self.u_cpu_forth, self.t_cpu)
        self.util_load_forth = _util_sub(self.util_load_forth, inst.util)
        if self.storage_units:
            self._units_give_back(inst, not inst.forthcoming)

    def remove_sec(self, inst):
        if not inst.forthcoming:
            _delete(self.s_list, inst.idx)
            if inst.uses_local_storage:
                self.f_dsk += inst.dsk
            self.f_spindles = self.free_spindles_after(False, inst)
            self.inst_spindles = self.spindle_use(False, inst)
            old = self.peers.get(inst.pnode, 0)
            new = old - inst.mem if inst.uses_sec_mem else old
            if new > 0:
                _peer_store(self.peers, inst.pnode, new)
            else:
                self.peers.pop(inst.pnode, None)
            if old >= self.r_mem:
                self.r_mem = max(self.peers.values(), default=0)
            self.p_rem = fdiv(self.r_mem, self.t_mem)
            self.fail_n1 = self.unallocated_mem() <= self.r_mem
            self.p_dsk = self._new_pdsk(self.f_spindles, self.f_dsk)
            self.util_load = _util_sub_dsk(self.util_load, inst.util[2])
        _delete(self.s_list_forth, inst.idx)
        if inst.uses_local_storage:
            self.f_dsk_forth += inst.dsk
        self.f_spindles_forth = self.free_spindles_after(False, inst, forth=True)
        self.inst_spindles_forth = self.spindle_use(False, inst, forth=True)
        self.p_dsk_forth = self._new_pdsk(self.f_spindles_forth, self.f_dsk_forth)
        self.util_load_forth = _util_sub_dsk(self.util_load_forth, inst.util[2])
        if self.storage_units:
            self._units_give_back(inst, not inst.forthcoming)

    def add_pri(self, inst, force):
        """addPriEx: place `inst` as primary; return None or the FailMode name."""
        local = inst.uses_local_storage
        mem_f = self.f_mem_forth - inst.mem
        dsk_f = self.f_dsk_forth - inst.dsk if local else self.f_dsk_forth
        sp_f = self.free_spindles_after(True, inst, forth=True)
        isp_f = self.spindle_use(True, inst, forth=True)
        ucpu_f = self.u_cpu_forth + inst.vcpus if inst.not_offline else self.u_cpu_forth
        pcpu_f = fdiv(ucpu_f, self.t_cpu)
        lcpu = self.vcpu_ratio
        by_units = bool(self.storage_units)   # then the per-node totals are not consulted
        if by_units:
            charges = unit_charges(inst, self.storage_units)
            units_f, hard_f, strict_f = self._units_after(self.unit_free_forth, charges)
            disk_f_fail = hard_f or strict_f
        else:
            units_f = None
            disk_f_fail = local and (dsk_f <= 0 or dsk_f < self.lo_dsk)
        forth_fail = None
        if mem_f <= 0:
            forth_fail = "FailMem"
        elif disk_f_fail:
            forth_fail = "FailDisk"
        elif local and self.excl_storage and sp_f < 0:
            forth_fail = "FailSpindles"
        elif local and isp_f > self.hi_spindles:
            forth_fail = "FailDisk"
        elif lcpu >= 0 and lcpu < pcpu_f:
            forth_fail = "FailCPU"
        strict = not force

        if inst.forthcoming:
            if strict and forth_fail:
                return forth_fail
        else:
            i_mem = self.i_mem + inst.mem if inst.uses_memory else self.i_mem
            new_free = self.unallocated_mem(i_mem)
            new_n1 = new_free <= self.r_mem
            new_dsk = self.f_dsk - inst.dsk if local else self.f_dsk
            new_sp = self.free_spindles_after(True, inst)
            new_isp = self.spindle_use(True, inst)
            new_ucpu = self.u_cpu + inst.vcpus if inst.not_offline else self.u_cpu
            new_pcpu = fdiv(new_ucpu, self.t_cpu)
            if by_units:
                units_new, disk_hard, disk_soft = self._units_after(self.unit_free, charges)
            else:
                units_new = None
                disk_hard = local and new_dsk <= 0
                disk_soft = local and new_dsk < self.lo_dsk
            if new_free <= 0:
                return "FailMem"
            if disk_hard:
                return "FailDisk"
            if strict and disk_soft:
                return "FailDisk"
            if local and self.excl_storage and new_sp < 0:
                return "FailSpindles"
            if strict and local and new_isp > self.hi_spindles:
                return "FailDisk"
            if strict and new_n1 and not self.fail_n1:
                return "FailMem"
            if strict and lcpu >= 0 and lcpu < new_pcpu:
                return "FailCPU"
            if strict and inst.excl_tags and any(tag in self.p_tags for tag in inst.excl_tags):
                return "FailTags"
            if strict and forth_fail:
                return forth_fail
            self.p_list.insert(0, inst.idx)
            self.i_mem = i_mem
            self.f_dsk = new_dsk
            self.fail_n1 = new_n1
            self.p_mem = fdiv(new_free, self.t_mem)
            self.p_dsk = self._new_pdsk(new_sp, new_dsk)
            self.u_cpu = new_ucpu
            self.p_cpu = new_pcpu
            self.util_load = _util_add(self.util_load, inst.util)
            self.inst_spindles = new_isp
            self.f_spindles = new_sp
            self.location_score += inst.location_score + self.dsrd_loc_score(inst)
            _add_tags(self.instance_map, self.loc_excl_pairs(inst))
            if units_new is not None:
                self.unit_free = units_new
        if inst.excl_tags:
            _add_tags(self.p_tags, inst.excl_tags)
        self.p_list_forth.insert(0, inst.idx)
        self.f_mem_forth = mem_f
        self.f_dsk_forth = dsk_f
        self.p_mem_forth = fdiv(mem_f, self.t_mem)
        self.p_dsk_forth = self._new_pdsk(sp_f, dsk_f)
        self.u_cpu_forth = ucpu_f
        self.p_cpu_forth = pcpu_f
        self.util_load_forth = _util_add(self.util_load_forth, inst.util)
        self.inst_spindles_forth = isp_f
        self.f_spindles_forth = sp_f
        if units_f is not None:
            self.unit_free_forth = units_f
        if by_units:
            self._unit_pdsk()
        return None

    def add_sec(self, inst, pdx, force, ignore_disks=False):
        """addSecExEx: place `inst` as secondary of primary node `pdx`."""
        need = inst.mem if inst.uses_sec_mem else 0
        new_peem = self.peers.get(pdx, 0) + need
        dsk_f = self.f_dsk_forth - inst.dsk
        sp_f = self.free_spindles_after(True, inst, forth=True)
        isp_f = self.spindle_use(True, inst, forth=True)
        by_units = bool(self.storage_units)   # then the per-node totals are not consulted
        if by_units:
            charges = unit_charges(inst, self.storage_units)
            units_f, hard_f, strict_f = self._units_after(self.unit_free_forth, charges)
            disk_f_fail = hard_f or strict_f
        else:
            units_f = None
            disk_f_fail = dsk_f <= 0 or dsk_f < self.lo_dsk
        forth_fail = None
        if not inst.has_secondary:
            forth_fail = "FailDisk"
        elif disk_f_fail:
            forth_fail = "FailDisk"
        elif self.excl_storage and sp_f < 0:
            forth_fail = "FailSpindles"
        elif isp_f > self.hi_spindles:
            forth_fail = "FailDisk"
        elif need >= self.f_mem_forth:
            forth_fail = "FailMem"
        strict = not force

        if inst.forthcoming:
            if strict and forth_fail:
                return forth_fail
        else:
            old_mem = self.unallocated_mem()
            new_dsk = self.f_dsk - inst.dsk
            new_sp = self.free_spindles_after(True, inst)
            new_isp = self.spindle_use(True, inst)
            new_rmem = max(self.r_mem, new_peem)
            new_n1 = old_mem <= new_rmem
            if by_units:
                units_new, disk_hard, disk_soft = self._units_after(self.unit_free, charges)
            else:
                units_new = None
                disk_hard = new_dsk <= 0
                disk_soft = new_dsk < self.lo_dsk
            if not inst.has_secondary:
                return "FailDisk"
            if not ignore_disks and disk_hard:
                return "FailDisk"
            if strict and disk_soft:
                return "FailDisk"
            if self.excl_storage and new_sp < 0:
                return "FailSpindles"
            if strict and new_isp > self.hi_spindles:
                return "FailDisk"
            if strict and need >= old_mem:
                return "FailMem"
            if strict and new_n1 and not self.fail_n1:
                return "FailMem"
            if strict and forth_fail:
                return forth_fail
            self.s_list.insert(0, inst.idx)
            self.f_dsk = new_dsk
            _peer_store(self.peers, pdx, new_peem)
            self.fail_n1 = new_n1
            self.r_mem = new_rmem
            self.p_rem = fdiv(new_rmem, self.t_mem)
            self.p_dsk = self._new_pdsk(new_sp, new_dsk)
            self.util_load = _util_add_dsk(self.util_load, inst.util[2])
            self.inst_spindles = new_isp
            self.f_spindles = new_sp
            if units_new is not None:
                self.unit_free = units_new
        self.s_list_forth.insert(0, inst.idx)
        self.f_dsk_forth = dsk_f
        self.p_dsk_forth = self._new_pdsk(sp_f, dsk_f)
        self.util_load_forth = _util_add_dsk(self.util_load_forth, inst.util[2])
        self.inst_spindles_forth = isp_f
        self.f_spindles_forth = sp_f
        if units_f is not None:
            self.unit_free_forth = units_f
        if by_units:
            self._unit_pdsk()
        return None

    def policy_health(self):
        """getPolicyHealth: None when fine, else the FailMode.

        FailDisk when the instances' spindles exceed the node's limit, else
        FailCPU when the vCPU ratio exceeds the policy's.  Only used for a message.
        """
        if self.inst_spindles > self.hi_spindles:
            return "FailDisk"
        if self.p_cpu > self.vcpu_ratio:
            return "FailCPU"
        return None

    def peer_list(self):
        """Peers as hbal shows them: by value descending, newest first on ties."""
        newest_first = list(self.peers.items())[::-1]
        return sorted(newest_first, key=lambda kv: -kv[1])


def _floor_or_zero(value):
    return math.floor(value) if math.isfinite(value) else 0


def _units_minus(frees, charges):
    out = list(frees)
    for pos, amount in charges.items():
        out[pos] -= amount
    return tuple(out)


def _units_plus(frees, charges):
    out = list(frees)
    for pos, amount in charges.items():
        out[pos] += amount
    return tuple(out)


def _peer_store(peers, key, value):
    # Re-insert so that dict order tracks insertion recency (display ties).
    peers.pop(key, None)
    peers[key] = value


def _util_add(load, util):
    return [load[0] + util[0], load[1] + util[1], load[2] + util[2], load[3] + util[3]]


def _util_sub(load, util):
    return [load[0] - util[0], load[1] - util[1], load[2] - util[2], load[3] - util[3]]


def _util_add_dsk(load, dsk):
    return [load[0], load[1], load[2] + dsk, load[3]]


def _util_sub_dsk(load, dsk):
    return [load[0], load[1], load[2] - dsk, load[3]]


def check_migration(src, dst):
    """Migration tags: every tag of the source must be accepted by the target."""
    return None if src.mig_tags <= dst.rmig_tags else "FailMig"
