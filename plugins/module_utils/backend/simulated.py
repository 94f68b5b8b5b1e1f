# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An empty cluster described by group specs, as `hspace --simulate` builds it.

Each spec is `policy,nodes,disk,memory,cpus[,spindles[,exclusive]]` and
makes one group of identical empty nodes.  hspace collects its repeated
--simulate options last first, so the last spec is group 1, whose first
node is the master; the nodes are named node-GG-NNN, the groups group-GG
(uuid fake-uuid-GG), every policy Ganeti's default.  The cluster is built
as the htools text it amounts to and loaded like any other: the same model,
then the same checks.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import DataError
from .text import load_text

SOURCE = "simulate"
# policy abbreviations hspace takes beside the full names
POLICIES = {"p": "preferred", "a": "last_resort", "u": "unallocable",
            "preferred": "preferred", "last_resort": "last_resort",
            "unallocable": "unallocable"}
_SIZE_RE = re.compile(r"\s*(-?[0-9]+) *(.*)\Z", re.DOTALL)
# MiB per unit: lower case (and MiB, GiB, TiB) binary, upper case decimal
_BINARY = {"": 1, "m": 1, "mib": 1, "g": 1024, "gib": 1024, "t": 1024 ** 2, "tib": 1024 ** 2}
_DECIMAL = {"M": 1, "MB": 1, "G": 1000, "GB": 1000, "T": 1000 ** 2, "TB": 1000 ** 2}
_MIB_PER_MB = Fraction(1000, 1024) ** 2       # exact, as hspace's rational arithmetic


def size_mib(text, what):
    """hspace's reading of a size: an integer and an optional unit, in MiB
    (truncated); `what` names it in the error."""
    match = _SIZE_RE.match(text)
    if not match:
        raise DataError("%s: cannot read %r as a size (a number, then an optional unit: "
                        "m, g, t, MiB, GiB, TiB binary; M, G, T, MB, GB, TB decimal)"
                        % (what, text), source=SOURCE)
    number, unit = int(match.group(1)), match.group(2)
    binary = _BINARY.get(unit, _BINARY.get(unit.lower()) if unit.lower().endswith("ib") else None)
    if binary is not None:
        return number * binary
    decimal = _DECIMAL.get(unit.upper() if len(unit) == 2 else unit)
    if decimal is None:
        raise DataError("%s: unknown unit %r in %r" % (what, unit, text), source=SOURCE)
    return int(number * decimal * _MIB_PER_MB)        # truncated, as hspace does


def _count(text, what, least):
    if not re.match(r"\s*-?[0-9]+\Z", text):
        raise DataError("%s: %r is not an integer" % (what, text), source=SOURCE)
    value = int(text)
    if value < least:
        raise DataError("%s: %d is below %d" % (what, value, least), source=SOURCE)
    return value


def parse_spec(spec):
    """(policy, node count, disk, memory, cpus, spindles, exclusive storage) of
    one spec, or a DataError naming what is wrong."""
    fields = spec.split(",")
    if not 5 <= len(fields) <= 7:
        raise DataError("group spec %r: %d comma-separated fields instead of 5 to 7 (allocation "
                        "policy, node count, disk, memory, cpus[, spindles[, exclusive "
                        "storage]])" % (spec, len(fields)), source=SOURCE)
    fields += ["1", "False"][len(fields) - 5:]
    policy = POLICIES.get(fields[0])
    if policy is None:
        raise DataError("group spec %r: allocation policy %r is none of %s"
                        % (spec, fields[0], ", ".join(sorted(POLICIES))), source=SOURCE)
    fields[6] = fields[6].lstrip()
    if fields[6] not in ("True", "False"):
        raise DataError("group spec %r: exclusive storage %r is neither True nor False"
                        % (spec, fields[6]), source=SOURCE)
    sizes = [size_mib(fields[pos], "group spec %r: %s" % (spec, what))
             for pos, what in ((2, "disk"), (3, "memory"))]
    if min(sizes) < 0:
        raise DataError("group spec %r: a negative size" % spec, source=SOURCE)
    return (policy, _count(fields[1], "group spec %r: node count" % spec, 0), sizes[0],
            sizes[1], _count(fields[4], "group spec %r: cpus" % spec, 0),
            _count(fields[5], "group spec %r: spindles" % spec, 0), fields[6] == "True")


def simulated_text(specs):
    """The htools text of the empty cluster `specs` describe."""
    if not specs:
        raise DataError("no group spec to simulate", source=SOURCE)
    groups, nodes = [], []
    for gdx, spec in enumerate(reversed(specs), start=1):
        policy, count, disk, mem, cpus, spindles, exclusive = parse_spec(spec)
        groups.append("group-%02d|fake-uuid-%02d|%s||" % (gdx, gdx, policy))
        for ndx in range(1, count + 1):
            flag = "M" if gdx == 1 and ndx == 1 else "N"
            nodes.append("node-%02d-%03d|%d|0|%d|%d|%d|%d|%s|fake-uuid-%02d|%d||%s|0|1|1.0"
                         % (gdx, ndx, mem, mem, disk, disk, cpus, flag, gdx, spindles,
                            "Y" if exclusive else "N"))
    return "\n".join(groups) + "\n\n" + "\n".join(nodes) + "\n\n\n\n"


def load_simulated(specs):
    """The ClusterData of the empty cluster `specs` describe (not merged yet,
    as backend.text.load_text leaves it)."""
    return load_text(simulated_text(specs), source=SOURCE)
