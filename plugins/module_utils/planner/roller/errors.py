# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The failures of a rolling-reboot plan, worded exactly as hroller words them."""

from __future__ import annotations

from ...errors import HtoolsError

NO_MASTER = "No master node found (maybe not supported by backend)."
NO_GROUP = "Cannot find target group."
NO_GRAPH = "Cannot create node graph"
NO_ROOM_NONREDUNDANT = "Not enough capacity to move non-redundant instances"
NO_MIGRATION = "Failed to migrate instances off nodes"
NO_ROOM_SECONDARIES = "Not enough capacity to move secondaries"


class RollerError(HtoolsError):
    """hroller's `Error: MSG`; str() is MSG (without hroller's trailing newline)."""


def hs_show_strings(names):
    """Haskell's `show` of a list of strings: ["a","b"] with Haskell escapes."""
    return "[" + ",".join(_hs_show_string(n) for n in names) + "]"


_ESCAPES = {'"': '\\"', '\\': '\\\\', '\a': '\\a', '\b': '\\b', '\f': '\\f',
            '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\x7f': '\\DEL'}
# Haskell names the other control characters (and numbers the non-ASCII ones).
_CONTROL_NAMES = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 "
                  "DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US").split()


def _hs_show_string(text):
    out = []
    for pos, char in enumerate(text):
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 32:
            out.append("\\" + _CONTROL_NAMES[code])
            # "\SO" followed by "H" would read as "\SOH": Haskell separates them
            if _CONTROL_NAMES[code] == "SO" and text[pos + 1:pos + 2] == "H":
                out.append("\\&")
        elif code > 126:
            out.append("\\%d" % code)
            # Haskell separates a numeric escape from a following digit with \&
            if pos + 1 < len(text) and text[pos + 1].isdigit():
                out.append("\\&")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
