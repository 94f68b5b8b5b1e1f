# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node tags that record how far a run of many steps (a rolling reboot) got.

Ganeti keeps tags durably and shows them to everyone, so a run that was
interrupted - its controller lost, a step failed - is continued from the tags
alone, by the same run id:

    ganeti.htools:rolling:RUN            the node is in this run's current wave
    ganeti.htools:rebooted:RUN           the node was rebooted by this run
    ganeti.htools:skipped:RUN            the run left the node out (the master)
    ganeti.htools:candidate:RUN          the node was a master candidate before
    ganeti.htools:away:RUN:INSTANCE      the instance was moved off the node
"""

from __future__ import annotations

import re

from .errors import HtoolsError
from .options import Option

PREFIX = "ganeti.htools:"
MARKS = ("rolling", "rebooted", "skipped", "candidate")
MAX_TAG = 128           # Ganeti's limit on the length of a tag
# The option naming a run (ganeti_rolling_reboot, ganeti_instance_migrate).
RUN_ID = Option("run_id", "str")
_RUN_ID = re.compile(r"^[A-Za-z0-9._@+-]{1,40}$")


def valid_run_id(run_id):
    """`run_id` if it can be part of a tag, else a clear error."""
    if not run_id or not _RUN_ID.match(run_id):
        raise HtoolsError("run id %r: use 1-40 letters, digits and . _ @ + -" % (run_id,))
    return run_id


def mark(what, run_id):
    """The tag marking a node as `what` (one of MARKS) for `run_id`."""
    if what not in MARKS:
        raise HtoolsError("unknown run mark %r" % (what,))
    return "%s%s:%s" % (PREFIX, what, run_id)


def away_tag(run_id, instance):
    tag = "%saway:%s:%s" % (PREFIX, run_id, instance)
    if len(tag) > MAX_TAG:
        raise HtoolsError("the tag recording that %s moved away would be longer than Ganeti "
                          "allows (%d characters); use a shorter run id" % (instance, MAX_TAG))
    return tag


def away_instances(tags, run_id):
    """The instances that a node's tags record as moved off it by `run_id`."""
    prefix = "%saway:%s:" % (PREFIX, run_id)
    return sorted(t[len(prefix):] for t in tags if t.startswith(prefix))


def run_marks(tags, run_id):
    """Those of `tags` that belong to `run_id`: its marks (and the role's
    master:RUN), and the ones that carry a value after it (away:RUN:INSTANCE,
    rebooting:RUN:BOOT_ID).  A run id holds no colon, so no other run's tag
    matches."""
    exact = {"%s%s:%s" % (PREFIX, what, run_id) for what in MARKS + ("master",)}
    valued = tuple("%s%s:%s:" % (PREFIX, what, run_id) for what in ("away", "rebooting"))
    return sorted(t for t in tags if t in exact or t.startswith(valued))


def progress(nodes, run_id):
    """Which nodes (objects with .name, .tags) carry each mark of `run_id`,
    and every tag of the run on each node that carries any (`marks`: what a
    finished run clears, without reading the nodes again)."""
    found = {what: [n.name for n in nodes if mark(what, run_id) in n.tags]
             for what in ("rolling", "rebooted", "skipped")}
    marks = ((n.name, run_marks(n.tags, run_id)) for n in nodes)
    found["marks"] = {name: tags for name, tags in marks if tags}
    return found
