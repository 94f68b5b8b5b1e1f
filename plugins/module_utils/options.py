# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Options declared as data: name, type, default and valid range.

Tables of these feed the module argument specs and the planners' defaults,
and `validate` checks values up front, so that a bad value is refused with
its valid range instead of failing deep inside a library.
"""

from __future__ import annotations

import math

from .errors import HtoolsError


class OptionError(HtoolsError):
    """An option value is outside its valid range."""


class Option:
    """One option: Ansible type, default (None: none), bounds, choices, secrecy."""

    __slots__ = ("name", "type", "default", "elements", "minimum", "maximum", "above",
                 "no_log", "choices", "suboptions")

    def __init__(self, name, type_, default=None, elements=None, minimum=None, maximum=None,
                 no_log=False, above=None, choices=None, suboptions=None):
        self.name = name
        self.type = type_
        self.default = default
        self.elements = elements
        self.minimum = minimum
        self.maximum = maximum
        self.above = above          # exclusive lower bound (hbal's "expected >0")
        self.no_log = no_log
        self.choices = choices
        self.suboptions = suboptions    # an Ansible argument spec of a dict's keys

    def valid_range(self):
        """The valid values in words, e.g. 'a finite number >= 0'."""
        what = "an integer" if self.type == "int" else "a finite number"
        bounds = []
        if self.above is not None:
            bounds.append("> %s" % self.above)
        if self.minimum is not None:
            bounds.append(">= %s" % self.minimum)
        if self.maximum is not None:
            bounds.append("<= %s" % self.maximum)
        return " ".join([what] + (["and ".join(b + " " for b in bounds).strip()]
                                  if bounds else []))

    def problem(self, value):
        """Why `value` is not valid for this option, or None."""
        if value is None or self.type not in ("int", "float"):
            return None
        bad = (isinstance(value, float) and not math.isfinite(value)) \
            or (self.above is not None and value <= self.above) \
            or (self.minimum is not None and value < self.minimum) \
            or (self.maximum is not None and value > self.maximum)
        if bad:
            return "%s must be %s, got %r" % (self.name, self.valid_range(), value)
        return None


def defaults(options):
    """{name: default} of `options`."""
    return {opt.name: opt.default for opt in options}


def validate(options, values):
    """Raise OptionError naming every value of `values` outside its option's range."""
    problems = [p for p in (opt.problem(values.get(opt.name)) for opt in options) if p]
    if problems:
        raise OptionError("; ".join(problems))
    return values


def argument_spec(options):
    """The Ansible argument spec of an option table (plain dicts, no Ansible import)."""
    spec = {}
    for opt in options:
        entry = dict(type=opt.type)
        if opt.elements:
            entry["elements"] = opt.elements
        if opt.choices:
            entry["choices"] = list(opt.choices)
        if opt.default is not None:
            entry["default"] = list(opt.default) if opt.type == "list" else opt.default
        if opt.no_log:
            entry["no_log"] = True
        if opt.suboptions:
            entry["options"] = opt.suboptions
        spec[opt.name] = entry
    return spec
