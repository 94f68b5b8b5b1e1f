# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Field parsers with Haskell `reads` semantics and located error messages."""

from __future__ import annotations

import io
import os
import re
import stat

from ..errors import DataError

# The most an input file (data_file, util_file, mond_data, a saved RAPI
# response) may hold: a 20 000-instance cluster takes a few MiB.
MAX_INPUT_BYTES = 256 << 20
_FILE_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
               stat.S_IFLNK: "a symbolic link"}
# The flags of the text format.
YES_NO = ("Y", "N")
_INT_RE = re.compile(r"\s*-?[0-9]+\Z")
# Sizes beyond 2**53 MiB are nonsense and would lose precision as floats.
LIMIT = 2 ** 53
_DOUBLE_RE = re.compile(r"\s*-?(?:[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)\Z")


def read_text(path, what="file"):
    """A whole text file (UTF-8, a byte-order mark is dropped, newlines as
    open() reads them), or a DataError."""
    blob = read_bytes(path, what)
    try:
        return io.TextIOWrapper(io.BytesIO(blob), encoding="utf-8-sig").read()
    except UnicodeDecodeError as err:
        raise DataError("not UTF-8 text: %s" % err, source=path)


def read_bytes(path, what="file"):
    """A whole regular file of at most MAX_INPUT_BYTES, or a DataError.

    Opened without blocking (a FIFO must not hang the run) and read with a
    bound (a file growing meanwhile, or /dev/zero, must not fill the memory)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        raise DataError("cannot read %s: %s" % (what, err.strerror), source=path)
    try:
        problem = input_file_problem(os.fstat(fd))
        if problem:
            raise DataError("%s %s" % (what, problem), source=path)
        chunks, size = [], 0
        while size <= MAX_INPUT_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_INPUT_BYTES + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise DataError("%s %s" % (what, _too_large()), source=path)
    except OSError as err:
        raise DataError("cannot read %s: %s" % (what, err.strerror), source=path)
    finally:
        os.close(fd)


def input_file_problem(st, directory_ok=False):
    """Why a file of stat result `st` is no input the loaders read, or None."""
    if stat.S_ISDIR(st.st_mode) and directory_ok:
        return None
    if not stat.S_ISREG(st.st_mode):
        kind = _FILE_KINDS.get(stat.S_IFMT(st.st_mode), "a special file")
        return "is not a regular file but %s" % kind
    if st.st_size > MAX_INPUT_BYTES:
        return _too_large()
    return None


def _too_large():
    return "is larger than %d MiB, the most an input file may hold" % (MAX_INPUT_BYTES >> 20)


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
