# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Instance policies (ispecs, ratios) and node groups."""

from __future__ import annotations

from .vocabulary import DISK_TEMPLATES


class ISpec:
    __slots__ = ("mem_size", "cpu_count", "disk_size", "disk_count", "nic_count", "spindle_use")

    def __init__(self, mem_size, cpu_count, disk_size, disk_count, nic_count, spindle_use):
        self.mem_size = mem_size
        self.cpu_count = cpu_count
        self.disk_size = disk_size
        self.disk_count = disk_count
        self.nic_count = nic_count
        self.spindle_use = spindle_use

    def as_tuple(self):
        return (self.mem_size, self.cpu_count, self.disk_size, self.disk_count,
                self.nic_count, self.spindle_use)

    def as_dict(self):
        return dict(zip(self.__slots__, self.as_tuple()))


class IPolicy:
    """Instance policy; hbal only uses vcpu_ratio and spindle_ratio."""

    def __init__(self, std, minmax, disk_templates, vcpu_ratio, spindle_ratio):
        self.std = std
        self.minmax = minmax            # list of (min ISpec, max ISpec)
        self.disk_templates = list(disk_templates)
        self.vcpu_ratio = vcpu_ratio
        self.spindle_ratio = spindle_ratio

    @classmethod
    def default(cls):
        return cls(ISpec(128, 1, 1024, 1, 1, 1),
                   [(ISpec(128, 1, 1024, 1, 1, 1), ISpec(32768, 8, 1048576, 16, 8, 12))],
                   DISK_TEMPLATES, 4.0, 32.0)

    def copy(self):
        return IPolicy(self.std, list(self.minmax), self.disk_templates,
                       self.vcpu_ratio, self.spindle_ratio)

    def as_dict(self):
        return {
            "std": self.std.as_dict(),
            "minmax": [{"min": lo.as_dict(), "max": hi.as_dict()} for lo, hi in self.minmax],
            "disk_templates": list(self.disk_templates),
            "vcpu_ratio": self.vcpu_ratio,
            "spindle_ratio": self.spindle_ratio,
        }


class Group:
    __slots__ = ("idx", "name", "uuid", "alloc_policy", "tags", "networks", "ipolicy")

    def __init__(self, idx, name, uuid, alloc_policy, tags=(), networks=(), ipolicy=None):
        self.idx = idx
        self.name = name
        self.uuid = uuid
        self.alloc_policy = alloc_policy
        self.tags = list(tags)
        self.networks = list(networks)
        self.ipolicy = ipolicy or IPolicy.default()
