# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Field parsers with Haskell `reads` semantics and located error messages."""

from __future__ import annotations

import re

from ..errors import DataError

# The flags of the text format.
YES_NO = ("Y", "N")
_INT_RE = re.compile(r"\s*-?[0-9]+\Z")
# Sizes beyond 2**53 MiB are nonsense and would lose precision as floats.
LIMIT = 2 ** 53
_DOUBLE_RE = re.compile(r"\s*-?(?:[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)\Z")


def read_text(path, what="file"):
    """A whole text file (UTF-8, a byte-order mark is dropped), or a DataError."""
    try:
        with open(path, "r", encoding="utf-8-sig") as handle:
            return handle.read()
    except UnicodeDecodeError as err:
        raise DataError("not UTF-8 text: %s" % err, source=path)
    except OSError as err:
        raise DataError("cannot read %s: %s" % (what, err.strerror), source=path)


def hs_lines(text):
    """Haskell `lines`: a final newline does not start an extra empty line."""
    if text == "":
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def sep_split(sep, text):
    """Ganeti's sepSplit for strings: '' gives [], 'a,' gives ['a', '']."""
    return [] if text == "" else text.split(sep)


class FieldReader:
    """Reads the `|`-separated fields of one line, reporting where a field is bad."""

    def __init__(self, source, lineno, fields, kind):
        self.source = source
        self.lineno = lineno
        self.fields = fields
        self.kind = kind

    def error(self, message, field=None, expected=None, got=None):
        return DataError("%s: %s" % (self.kind, message), source=self.source, line=self.lineno,
                         field=field, expected=expected, got=got)

    def has(self, pos):
        return len(self.fields) > pos

    def raw(self, pos):
        return self.fields[pos]

    def int(self, pos, label):
        value = self.fields[pos]
        number = parse_int_text(value)
        if number is None:
            raise self.error("bad %s" % label, field="%d (%s)" % (pos + 1, label),
                             expected="an integer of at most 16 digits", got=_clip(value))
        return number

    def double(self, pos, label):
        value = self.fields[pos]
        number = parse_double_text(value)
        if number is None:
            raise self.error("bad %s" % label, field="%d (%s)" % (pos + 1, label),
                             expected="a finite number below 2**53", got=_clip(value))
        return number

    def yes_no(self, pos, label):
        value = self.fields[pos]
        if value not in YES_NO:
            raise self.error("bad %s" % label, field="%d (%s)" % (pos + 1, label),
                             expected="'Y' or 'N'", got=value)
        return value == "Y"

    def choice(self, pos, label, choices):
        value = self.fields[pos]
        if value not in choices:
            raise self.error("bad %s" % label, field="%d (%s)" % (pos + 1, label),
                             expected="one of " + ", ".join(choices), got=value)
        return value


def parse_int_text(text):
    """An integer as Haskell reads it, or None; absurd magnitudes count as bad."""
    if text.isascii() and text.isdigit() and len(text) <= 16:     # the common case, fast
        number = int(text)
        return number if number <= LIMIT else None
    if not _INT_RE.match(text) or len(text.strip().lstrip("-")) > 16:
        return None
    number = int(text)
    return number if abs(number) <= LIMIT else None


def parse_double_text(text, finite=True):
    """A number as Haskell reads it (finite and below 2**53 unless `finite` is
    false), or None."""
    if not _DOUBLE_RE.match(text):
        return None
    number = float(text.strip())
    if finite and not abs(number) <= LIMIT:   # also rejects NaN and the infinities
        return None
    return number


def _clip(text):
    return text if len(text) <= 40 else text[:37] + "..."
