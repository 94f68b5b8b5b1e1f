# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cluster-wide lock held as a cluster tag: ganeti.htools:lock:<owner>:<expiry>.

Ganeti has no advisory lock over RAPI, but cluster tags are shared, durable
and changed by jobs, which is enough for "one balancing run at a time":
take the lock by adding a tag, then re-read the tags.  Only a run that then
sees no other live lock goes ahead.  If other live locks are there too, the
larger tags withdraw at once and the smallest waits a little (`settle`) for
them to go away: a rival that stays may have read the tags before this tag
existed and gone ahead, so the smallest then withdraws too.  At most one of
several racing runs proceeds.
"""

from __future__ import annotations

import os
import re
import socket
import time
import uuid

from ..errors import HtoolsError
from .jobs import run_job

_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")


# Every lock tag starts with this; nothing else of ours or Ganeti's does.
LOCK_TAG_PREFIX = "ganeti.htools:lock:"


def is_lock_tag(tag):
    """Whether a cluster tag is a lock of ours (it must not make a plan look stale)."""
    return tag.startswith(LOCK_TAG_PREFIX)


class LockHeld(HtoolsError):
    """Another run holds the cluster lock."""


def new_owner():
    """A unique owner name: host, process and a random part (tag-safe characters)."""
    host = _UNSAFE.sub("-", socket.gethostname())[:40]
    return "%s.%d.%s" % (host, os.getpid(), uuid.uuid4().hex[:12])


def parse(tag):
    """(owner, expiry) of a lock tag, or None."""
    parsed = parse_full(tag)
    return (parsed[0], parsed[2]) if parsed else None


def parse_full(tag):
    """(owner, taken or None, expiry) of a lock tag (OWNER[:TAKEN]:EXPIRY), or None."""
    if not tag.startswith(LOCK_TAG_PREFIX):
        return None
    rest, sep, expiry = tag[len(LOCK_TAG_PREFIX):].rpartition(":")
    if not sep or not expiry.isdigit():
        return None
    owner, sep, taken = rest.rpartition(":")
    if sep and taken.isdigit():
        return owner, int(taken), int(expiry)
    return rest, None, int(expiry)


class ClusterLock:
    """Acquire with `acquire()`, give back with `release()` (also on failure)."""

    def __init__(self, client, ttl=3600, owner=None, reason=None, clock=time.time,
                 job_timeout=300.0, settle=None, poll=1.0, sleep=time.sleep):
        self.client = client
        self.ttl = int(ttl)
        self.owner = owner or new_owner()
        self.reason = reason
        self.clock = clock
        self.job_timeout = job_timeout
        # how long the smallest of rival tags waits for the others to withdraw;
        # default: twice what our own tag job took, 5 to 120 seconds
        self.settle = settle
        self.poll = poll
        self.sleep = sleep
        self.tag = None

    def _locks(self):
        found = []
        for tag in self.client.cluster_tags():
            parsed = parse(tag)
            if parsed:
                found.append((tag, parsed[0], parsed[1]))
        return found

    def _run(self, submit, tags, what):
        reason = self._reason(what)
        run_job(self.client, lambda: submit(tags, reason=reason), self.job_timeout)

    def _reason(self, what):
        return "%s:lock-%s:%s" % (self.reason or "ganeti.htools", what, uuid.uuid4().hex[:8])

    def acquire(self, force=False):
        """Take the lock; `force` takes over live locks of other runs too."""
        now = int(self.clock())
        locks = self._locks()
        live = [lk for lk in locks if lk[2] > now and lk[1] != self.owner]
        if live and not force:
            raise LockHeld(held_message(live[0], now))
        stale = [lk[0] for lk in locks if lk[2] <= now or force]
        if stale:   # locks whose holder did not release them in time, or forced
            self._run(self.client.delete_cluster_tags, stale, "takeover")
        # the owner name carries the time the lock was taken, to report its age
        tag = "%s%s:%d:%d" % (LOCK_TAG_PREFIX, self.owner, now, now + self.ttl)
        started = self.clock()
        self._run(self.client.add_cluster_tags, [tag], "take")
        self.tag = tag
        settle = self.settle
        if settle is None:    # a rival withdraws with one read and one tag job
            settle = min(120.0, max(5.0, 2 * (self.clock() - started) + 1))
        # Rival tags: the larger ones withdraw; the smallest waits until they are
        # gone.  It must not go ahead while one is there: that run may have read
        # the tags before this tag existed and gone ahead itself.
        waits = int(settle / self.poll) if self.poll > 0 else 0
        while True:
            now = int(self.clock())
            # another tag of the same owner is this run's own (a lock held across
            # several modules), never a rival
            rivals = sorted(lk[0] for lk in self._locks()
                            if lk[2] > now and lk[0] != tag and lk[1] != self.owner)
            if not rivals:
                return self
            if rivals[0] < tag or waits <= 0:
                self.release()
                raise LockHeld(held_message((rivals[0],) + parse(rivals[0]), now))
            waits -= 1
            self.sleep(self.poll)

    def release(self):
        if self.tag is None:
            return
        tag, self.tag = self.tag, None
        self._run(self.client.delete_cluster_tags, [tag], "release")

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
        return False


def valid_owner(owner):
    """`owner` if it can name a lock (tag-safe, no colon), else a clear error."""
    if not owner or _UNSAFE.search(owner) or len(owner) > 60:
        raise HtoolsError("lock owner %r: use 1-60 letters, digits and . _ @ + -" % (owner,))
    return owner


def live_locks(tags, now):
    """[(tag, owner, expiry)] of the lock tags among `tags` that have not expired."""
    found = []
    for tag in tags:
        parsed = parse(tag)
        if parsed and parsed[1] > now:
            found.append((tag, parsed[0], parsed[1]))
    return found


def require_lock(client, owner=None, clock=time.time):
    """Refuse a change while another run holds the cluster lock.

    With `owner`, the step runs under that owner's lock (taken by
    ganeti_lock for a whole run of several modules): the lock must be held
    by it, and by no one else."""
    now = int(clock())
    live = live_locks(client.cluster_tags(), now)
    others = [lk for lk in live if lk[1] != owner]
    if others:
        raise LockHeld(held_message(others[0], now))
    if owner is not None and not live:
        raise HtoolsError("the cluster lock of %s is not held (it expired or was released); "
                          "take it again with ganeti.htools.ganeti_lock" % owner)


def held_message(lock, now):
    tag = lock[0]
    owner, taken, expiry = parse_full(tag)
    age = "taken %d seconds ago, " % max(0, now - taken) if taken is not None else ""
    return ("the cluster is locked by another ganeti.htools run (%s), %sfor %d more seconds "
            "(cluster tag %r); wait for it, or, if that run is known to be over (its "
            "controller was lost), take the lock over with force_unlock: true"
            % (owner, age, max(0, expiry - now), tag))
