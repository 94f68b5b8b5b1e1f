# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Two runs take the cluster lock at the same time: exactly one may go ahead.

Found with the integration lab (two `ansible` runs started together both
executed the plan): run B's tag job finished first and B read the tags before
A's tag existed, so B went ahead; A then saw both tags, had the smaller one
and went ahead too.  The smallest tag must wait for its rivals to withdraw.
"""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.live import lock

A = "ganeti.htools:lock:a:1000:1600"   # owner:taken:expiry
B = "ganeti.htools:lock:b:1000:1600"


class Tags:
    """Cluster tags; `on_read` may change them between reads (the other run)."""

    def __init__(self, on_read=None):
        self.tags = []
        self.reads = 0
        self.on_read = on_read or (lambda _tags, _n: None)

    def cluster_tags(self):
        self.reads += 1
        self.on_read(self.tags, self.reads)
        return list(self.tags)

    def add_cluster_tags(self, tags, reason=None):
        self.tags.extend(tags)
        return 1

    def delete_cluster_tags(self, tags, reason=None):
        self.tags = [t for t in self.tags if t not in tags]
        return 2

    def wait_job(self, job_id, timeout=None):
        return {"id": job_id, "status": "success"}


def take(cluster, owner, **kw):
    return lock.ClusterLock(cluster, ttl=600, owner=owner, clock=lambda: 1000,
                            sleep=lambda _s: None, **kw).acquire()


def test_the_smallest_tag_does_not_go_ahead_while_a_rival_holds_on():
    # b already read the tags before a's tag existed and went ahead: its tag stays
    def rival(tags, reads):
        if reads == 2 and B not in tags:
            tags.append(B)
    cluster = Tags(rival)
    with pytest.raises(lock.LockHeld) as err:
        take(cluster, "a", settle=5, poll=1)
    assert "(b)" in str(err.value)
    assert cluster.tags == [B]           # a withdrew; b keeps running
    assert cluster.reads == 2 + 5         # the first check, then 1 + 5 looks at the rivals


def test_the_smallest_tag_goes_ahead_once_the_rivals_withdrew():
    def rival(tags, reads):
        if reads == 2:
            tags.append(B)                # b raced ...
        if reads == 4:
            tags.remove(B)                # ... saw a's smaller tag and withdrew
    cluster = Tags(rival)
    held = take(cluster, "a", settle=5, poll=1)
    assert held.tag == A and cluster.tags == [A]
    held.release()
    assert cluster.tags == []


def test_a_larger_tag_withdraws_at_once():
    def rival(tags, reads):
        if reads == 2:
            tags.insert(0, A)
    cluster = Tags(rival)
    with pytest.raises(lock.LockHeld):
        take(cluster, "b", settle=5, poll=1)
    assert cluster.tags == [A] and cluster.reads == 2
