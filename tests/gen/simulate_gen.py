# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Random `hspace --simulate` group specs and hspace options.

One to three groups of one to five empty nodes each: every allocation policy
(full names and abbreviations), sizes in every unit hspace reads (binary
lower case, decimal upper case, MiB/GiB/TiB, MB/GB/TB, none), optional
spindles and exclusive storage; the options are capacity_gen's.

Public API: ``generate(seed) -> ([spec, ...], [hspace argv], module options dict)``.
"""

from __future__ import annotations

import random

from gen.capacity_gen import _options

POLICIES = ("p", "a", "u", "preferred", "last_resort", "unallocable")


def _size(rnd, mib):
    """`mib` MiB written in one of hspace's units (decimal ones round it)."""
    gib = mib // 1024
    return rnd.choice(("%d" % mib, "%dm" % mib, "%dg" % gib, "%dGiB" % gib, "%dG" % gib,
                       "%dGB" % gib, "%d MB" % mib, "%dM" % mib,
                       "%dt" % max(1, gib // 1024) if gib >= 1024 else "%dg" % gib))


def _spec(rnd):
    fields = [rnd.choice(POLICIES), str(rnd.randint(1, 5)),
              _size(rnd, rnd.choice((102400, 512000, 1048576, 2097152))),
              _size(rnd, rnd.choice((4096, 8192, 16384, 32768, 65536))),
              str(rnd.choice((2, 4, 8, 16)))]
    extra = rnd.random()
    if extra < 0.5:
        fields.append(str(rnd.choice((1, 2, 4, 12))))
        if extra < 0.2:
            fields.append(rnd.choice(("True", "False")))
    return ",".join(fields)


def generate(seed):
    rnd = random.Random(seed)
    specs = [_spec(rnd) for _group in range(rnd.choice((1, 1, 2, 3)))]
    if all(s.split(",")[0] in ("u", "unallocable") for s in specs):
        specs[0] = "p" + specs[0][specs[0].index(","):]
    names = ["node-%02d-%03d" % (g, n) for g, spec in enumerate(reversed(specs), start=1)
             for n in range(1, int(spec.split(",")[1]) + 1)]
    argv, opts = _options(rnd, [{"name": name} for name in names])
    return specs, argv, opts
