# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Number formatting exactly as Haskell's Text.Printf and show print it.

hbal's printed numbers are the reference for parity.  Haskell's `%.Nf`
rounds the shortest round-trip decimal digits of the double (Python's repr),
half to even, to N decimals, not the exact binary value as C does: 7.015159375
prints as 7.01515938 at 8 decimals where C gives 7.01515937.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal, ROUND_HALF_EVEN

# Enough digits for any double printed in fixed notation.
_WIDE = Context(prec=800)


def _special(x):
    if math.isnan(x):
        return "NaN"
    if x == math.inf:
        return "Infinity"
    if x == -math.inf:
        return "-Infinity"
    return None


def hs_fixed(x, decimals):
    """Haskell printf "%.Nf" without padding."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    quantum = Decimal(1).scaleb(-decimals)
    return format(Decimal(repr(x)).quantize(quantum, rounding=ROUND_HALF_EVEN, context=_WIDE), "f")


def hs_fixed_w(x, decimals, width):
    """Haskell printf "%W.Nf": right-justified in the field width."""
    return hs_fixed(x, decimals).rjust(width)


def _shortest_digits(x):
    """(digits, exponent) with |x| = 0.d1d2... * 10**exponent, shortest round-trip."""
    digits, exp = Decimal(repr(abs(x))).as_tuple()[1:]
    ds = "".join(str(d) for d in digits).lstrip("0") or "0"
    # Decimal value = int(digits) * 10**exp; strip trailing zeros for shortest form.
    stripped = ds.rstrip("0")
    exp += len(ds) - len(stripped)
    ds = stripped or "0"
    return ds, exp + len(ds)


def hs_g6(x):
    """Haskell printf "%.6g" (GHC showGFloat (Just 6)).

    Fixed notation with six decimals for 0 and for 0.1 <= |x| < 10**7;
    otherwise scientific with seven significant digits, half to even, and an
    exponent with neither sign nor padding (1.000000e-9, 1.000000e8).
    """
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    if x == 0:
        return "0.000000"
    e = _shortest_digits(x)[1]
    if 0 <= e <= 7:
        return hs_fixed(x, 6)
    mant = Decimal(repr(abs(x))).scaleb(-(e - 1))
    mant = mant.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)
    if mant >= 10:
        mant = (mant / 10).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)
        e += 1
    sign = "-" if x < 0 else ""
    return "%s%se%d" % (sign, format(mant, "f"), e - 1)


def hs_show_double(x):
    """Haskell `show` of a Double: 128.0, 1.0e-2, 1.2345678e7."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    ds, e = _shortest_digits(x)
    if 0 < e <= 7:
        return "%s%s.%s" % (sign, ds[:e].ljust(e, "0"), ds[e:] or "0")
    if e == 0:  # 0.1 <= |x| < 1 stays in fixed notation
        return "%s0.%s" % (sign, ds)
    return "%s%s.%se%d" % (sign, ds[0], ds[1:] or "0", e - 1)


def hs_show_list(items):
    """Haskell `show` of a list of Ints: [1,0]."""
    return "[" + ",".join(str(i) for i in items) + "]"


def hs_printf_f(x):
    """Haskell printf "%f" (no precision): all shortest digits, at least one decimal."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    text = format(Decimal(repr(x)), "f")
    return text if "." in text else text + ".0"
