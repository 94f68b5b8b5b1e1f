# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every job the collection submits says about itself: reason and priority.

A job's reason text starts with its unique tag (how a job whose submission
answer was lost is found again, and how a resumed run finds its own jobs),
then names the module, the collection version, the plan's fingerprint and
the user's own reason:

    ganeti.htools:PLAN:m2:o1 (ganeti.htools.ganeti_balance 0.1.0,
    plan sha256:...): https://awx.example.org/#/jobs/42

Over LUXI the text is one entry of the opcode's reason trail, with the
module as its source (as hbal -X adds an "hbal" entry); over RAPI it is the
`reason` parameter, which Ganeti records with the source "gnt:user".
"""

from __future__ import annotations

import time

from ..errors import HtoolsError
from ..version import COLLECTION, COLLECTION_VERSION

# Ganeti's job priorities that a client may submit (hbal --priority takes the names).
PRIORITIES = {"low": 10, "normal": 0, "high": -10}


def priority_value(priority):
    """Ganeti's number for a priority name (None: leave Ganeti's default)."""
    if priority is None:
        return None
    if priority not in PRIORITIES:
        raise HtoolsError("priority must be one of %s, not %r"
                          % (", ".join(PRIORITIES), priority))
    return PRIORITIES[priority]


class JobAudit:
    """The audit fields of one module run; `text(tag)` is one job's reason."""

    def __init__(self, module, user_reason=None, priority=None, fingerprint=None):
        self.module = module
        self.user_reason = user_reason or None
        self.priority = priority_value(priority)
        self.fingerprint = fingerprint

    @property
    def source(self):
        """The reason trail source: ganeti.htools.MODULE."""
        return "%s.%s" % (COLLECTION, self.module)

    def for_plan(self, fingerprint):
        """The same audit, naming the plan's fingerprint too."""
        audit = JobAudit(self.module, self.user_reason, None, fingerprint)
        audit.priority = self.priority
        return audit

    def text(self, tag):
        about = "%s %s" % (self.source, COLLECTION_VERSION)
        if self.fingerprint:
            about += ", plan %s" % self.fingerprint
        text = "%s (%s)" % (tag or self.source, about)
        if self.user_reason:
            text += ": %s" % self.user_reason
        return text

    def trail_entry(self, tag, clock=time.time):
        """One LUXI reason trail entry: [source, text, nanoseconds since the epoch]."""
        return [self.source, self.text(tag), int(clock() * 1e9)]


def carries_tag(text, tag):
    """Whether a reason text is that of the job tagged `tag` (exactly that tag:
    ...:m1:o1 is not ...:m1:o10)."""
    return isinstance(text, str) and (text == tag or text.startswith(tag + " "))


def reason_text(audit, tag):
    """The reason to submit a job with: the audit's text, or the bare tag."""
    return audit.text(tag) if audit is not None else tag
