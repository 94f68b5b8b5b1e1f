# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Does an instance fit a group's instance policy (used when hail simulates an allocation)."""

from __future__ import annotations


def _compare(inst, spec, excl, too_small):
    """First limit of `spec` the instance is beyond (below min or above max)."""
    def beyond(value, limit):
        return value < limit if too_small else value > limit

    if beyond(inst.mem, spec.mem_size):
        return "FailMem"
    if any(beyond(size, spec.disk_size) for size, _sp in inst.disks):
        return "FailDisk"
    if beyond(inst.vcpus, spec.cpu_count):
        return "FailCPU"
    if excl:
        total = inst.total_spindles
        if total is None or beyond(total, spec.spindle_use):
            return "FailSpindles"
    elif beyond(inst.spindle_use, spec.spindle_use):
        return "FailSpindles"
    if inst.template != "diskless" and beyond(len(inst.disks), spec.disk_count):
        return "FailDiskCount"
    return None


def policy_failure(inst, policy, excl):
    """None when `inst` matches `policy`, else the FailMode.

    Some min/max pair must hold the instance; when none does, the first
    pair's failure is the answer.  Then the disk template must be allowed.
    """
    if policy.minmax:
        first = None
        for lo, hi in policy.minmax:
            fail = _compare(inst, lo, excl, True) or _compare(inst, hi, excl, False)
            if fail is None:
                break
            if first is None:
                first = fail
        else:
            return first
    if inst.template not in policy.disk_templates:
        return "FailDisk"
    return None
