# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed access to JSON objects with errors that name the object and key."""

from __future__ import annotations

import json

from ..errors import DataError
from .parsing import LIMIT, read_text

_MISSING = object()


class JsonObject:
    """Wraps one JSON object (a node, an instance...) for checked field access."""

    def __init__(self, value, source, what):
        if not isinstance(value, dict):
            raise DataError("%s is not a JSON object" % what, source=source,
                            expected="an object", got=type(value).__name__)
        self.value = value
        self.source = source
        self.what = what

    def _fail(self, key, expected, got=_MISSING):
        return DataError("%s: bad key %r" % (self.what, key), source=self.source,
                         expected=expected,
                         got=None if got is _MISSING else got)

    def get(self, key, kind, default=_MISSING):
        """kind: 'int', 'float', 'bool', 'str', 'list', 'dict', 'str_list', 'any'."""
        if key not in self.value or (self.value[key] is None and default is not _MISSING):
            if default is _MISSING:
                raise DataError("%s: missing key %r" % (self.what, key), source=self.source)
            return default
        value = self.value[key]
        checker = _CHECKS[kind]
        ok, converted = checker(value)
        if not ok:
            raise self._fail(key, _EXPECTED[kind], value)
        return converted

    def obj(self, key, what=None):
        return JsonObject(self.get(key, "dict"), self.source, what or "%s.%s" % (self.what, key))


def _int(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= LIMIT:
        return False, None
    if isinstance(v, float) and not v.is_integer():
        return False, None
    return True, int(v)


def _float(v):
    # abs(v) <= LIMIT also rejects NaN and the infinities
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= LIMIT:
        return False, None
    return True, float(v)


def _str_list(v):
    ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
    return ok, list(v) if ok else None


_CHECKS = {
    "int": _int,
    "float": _float,
    "bool": lambda v: (isinstance(v, bool), v),
    "str": lambda v: (isinstance(v, str), v),
    "list": lambda v: (isinstance(v, list), v),
    "dict": lambda v: (isinstance(v, dict), v),
    "str_list": _str_list,
    "any": lambda v: (True, v),
}
_EXPECTED = {
    "int": "an integer below 2**53", "float": "a finite number below 2**53", "bool": "true or false", "str": "a string",
    "list": "a list", "dict": "an object", "str_list": "a list of strings", "any": "a value",
}


def load_json_file(path):
    text = read_text(path)
    try:
        return json.loads(text)
    except ValueError as err:
        raise DataError("invalid JSON: %s" % err, source=path)
