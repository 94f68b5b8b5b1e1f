# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reader for dynamic utilisation files (`hbal -U`).

One line per instance, `name cpu mem dsk net`, split on single spaces; the
four loads are numbers.  Instances not listed keep the load 1.0 each.
"""

from __future__ import annotations

from ..errors import DataError
from .parsing import hs_lines, parse_double_text, read_text

UTIL_FIELDS = ("cpu", "mem", "dsk", "net")


def parse_util(text, source="<util>"):
    """Return {instance name: (cpu, mem, dsk, net)}; a later line wins."""
    result = {}
    for lineno, line in enumerate(hs_lines(text), start=1):
        parts = line.split(" ")
        if len(parts) != 5:
            raise DataError("utilisation line needs 5 space-separated fields, has %d"
                            % len(parts), source=source, line=lineno,
                            expected="'name cpu mem dsk net' separated by single spaces",
                            got=line)
        values = []
        for pos, label in enumerate(UTIL_FIELDS, start=1):
            # hbal reads loads with Haskell's `read`, NaN and Infinity included
            value = parse_double_text(parts[pos], finite=False)
            if value is None:
                raise DataError("bad %s utilisation of %s" % (label, parts[0]), source=source,
                                line=lineno, field="%d (%s)" % (pos + 1, label),
                                expected="a number", got=parts[pos])
            values.append(value)
        result[parts[0]] = tuple(values)
    return result


def load_util_file(path):
    return parse_util(read_text(path, "utilisation file"), source=path)
