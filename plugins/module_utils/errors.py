# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed errors of the htools core; every user-facing failure is one of these."""

from __future__ import annotations


class HtoolsError(Exception):
    """Base class: a problem the user can act on (never a programming error).

    `hint` says what the operator needs besides the message - where the message
    itself must stay word for word another tool's (hroller's), the modules show
    the hint after it."""

    hint = None


def explained(error):
    """The message of an error (or any text) with its hint, as a module reports it."""
    hint = getattr(error, "hint", None)
    return "%s (%s)" % (error, hint) if hint else str(error)


class DataError(HtoolsError):
    """Malformed or inconsistent input data, located as precisely as possible."""

    def __init__(self, message, source=None, line=None, field=None, expected=None, got=None):
        self.source = source
        self.line = line
        self.field = field
        self.expected = expected
        self.got = got
        self.detail = message
        super().__init__(self._render())

    def _render(self):
        where = ""
        if self.source is not None:
            where = str(self.source)
            if self.line is not None:
                where += ":%d" % self.line
            where += ": "
        text = where + self.detail
        if self.field is not None:
            text += " (field %s" % self.field
            if self.expected is not None:
                text += ": expected %s" % self.expected
            if self.got is not None:
                text += ", got %r" % (self.got,)
            text += ")"
        elif self.expected is not None:
            text += " (expected %s" % self.expected
            if self.got is not None:
                text += ", got %r" % (self.got,)
            text += ")"
        return text


class LookupFailure(HtoolsError):
    """An unknown node, instance or group name was given."""
