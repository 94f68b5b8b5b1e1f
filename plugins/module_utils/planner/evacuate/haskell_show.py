# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one hail message that embeds Haskell's `show` of node groups
("no groups for evacuation: ..."), written the way the derived Show
instances print records."""

from __future__ import annotations

from ...numfmt import hs_show_double

_POLICY = {"preferred": "AllocPreferred", "last_resort": "AllocLastResort",
           "unallocable": "AllocUnallocable"}
_TEMPLATE = {"diskless": "DTDiskless", "file": "DTFile", "sharedfile": "DTSharedFile",
             "plain": "DTPlain", "blockdev": "DTBlock", "drbd": "DTDrbd8", "rbd": "DTRbd",
             "ext": "DTExt", "gluster": "DTGluster"}
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\\": "\\\\", '"': '\\"', "\r": "\\r"}


def show_string(text):
    out = []
    for pos, char in enumerate(text):
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append("\\%d" % ord(char))
            # a digit right after a numeric escape needs the empty escape
            if pos + 1 < len(text) and text[pos + 1].isdigit():
                out.append("\\&")
    return '"' + "".join(out) + '"'


def _list(items):
    return "[" + ",".join(items) + "]"


def _ispec(spec):
    return ("ISpec {iSpecMemorySize = %d, iSpecCpuCount = %d, iSpecDiskSize = %d, "
            "iSpecDiskCount = %d, iSpecNicCount = %d, iSpecSpindleUse = %d}"
            % (spec.mem_size, spec.cpu_count, spec.disk_size, spec.disk_count,
               spec.nic_count, spec.spindle_use))


def _ipolicy(policy):
    minmax = _list(["MinMaxISpecs {minMaxISpecsMinSpec = %s, minMaxISpecsMaxSpec = %s}"
                    % (_ispec(lo), _ispec(hi)) for lo, hi in policy.minmax])
    return ("IPolicy {iPolicyMinMaxISpecs = %s, iPolicyStdSpec = %s, iPolicyDiskTemplates = %s, "
            "iPolicyVcpuRatio = %s, iPolicySpindleRatio = %s}"
            % (minmax, _ispec(policy.std), _list([_TEMPLATE.get(t, t) for t in policy.disk_templates]),
               hs_show_double(policy.vcpu_ratio), hs_show_double(policy.spindle_ratio)))


def show_group(group):
    return ("Group {name = %s, uuid = %s, idx = %d, allocPolicy = %s, networks = %s, "
            "iPolicy = %s, allTags = %s}"
            % (show_string(group.name), show_string(group.uuid), group.idx,
               _POLICY[group.alloc_policy], _list([show_string(n) for n in group.networks]),
               _ipolicy(group.ipolicy), _list([show_string(t) for t in group.tags])))


def show_group_list(groups):
    return _list([show_group(g) for g in groups])
