# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One lock held across several modules: the owner's steps go ahead, others are refused."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live import lock
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import _BorrowedLock

from .test_lock_race import Tags

ROLL = "ganeti.htools:lock:rolling-reboot.r1:900:4000"
OTHER = "ganeti.htools:lock:host.1.abc:900:4000"
EXPIRED = "ganeti.htools:lock:host.2.def:100:500"


def cluster(*tags):
    found = Tags()
    found.tags = list(tags)
    return found


def test_a_step_under_its_owners_lock_goes_ahead():
    lock.require_lock(cluster(ROLL, EXPIRED), "rolling-reboot.r1", clock=lambda: 1000)


def test_a_step_is_refused_while_another_run_holds_the_lock():
    with pytest.raises(lock.LockHeld) as err:
        lock.require_lock(cluster(ROLL, OTHER), "rolling-reboot.r1", clock=lambda: 1000)
    assert "host.1.abc" in str(err.value)
    with pytest.raises(lock.LockHeld):
        lock.require_lock(cluster(ROLL), None, clock=lambda: 1000)


def test_a_step_of_a_run_whose_lock_is_gone_is_refused():
    with pytest.raises(HtoolsError, match="lock of rolling-reboot.r1 is not held"):
        lock.require_lock(cluster(EXPIRED), "rolling-reboot.r1", clock=lambda: 1000)


def test_without_owner_and_without_locks_a_step_goes_ahead():
    lock.require_lock(cluster(EXPIRED, "other-tag"), None, clock=lambda: 1000)


def test_a_second_tag_of_the_same_owner_is_no_rival():
    # ganeti_balance run under the role's lock owner: its own older tag must not
    # make it withdraw
    tags = cluster("ganeti.htools:lock:rolling-reboot.r1:990:4000")
    held = lock.ClusterLock(tags, ttl=600, owner="rolling-reboot.r1", clock=lambda: 1000,
                            sleep=lambda _s: None, settle=2, poll=1).acquire()
    assert held.tag in tags.tags and len(tags.tags) == 2
    held.release()
    assert tags.tags == ["ganeti.htools:lock:rolling-reboot.r1:990:4000"]


@pytest.mark.parametrize("owner", ["", "a:b", "with space", "x" * 61, None])
def test_unusable_owner_names_are_refused(owner):
    with pytest.raises(HtoolsError, match="lock owner"):
        lock.valid_owner(owner)


def test_an_executing_module_given_a_lock_owner_borrows_that_lock():
    # ganeti_evacuate_group under the rolling_reboot role's lock: checked, never
    # taken a second time nor released
    tags = cluster("ganeti.htools:lock:rolling-reboot.r1:990:%d" % 10 ** 10)
    borrowed = _BorrowedLock(tags, "rolling-reboot.r1")
    borrowed.acquire(force=True)
    borrowed.release()
    assert tags.tags == ["ganeti.htools:lock:rolling-reboot.r1:990:%d" % 10 ** 10]
    with pytest.raises(HtoolsError, match="lock of rolling-reboot.r2 is not held"):
        _BorrowedLock(cluster(), "rolling-reboot.r2").acquire()
