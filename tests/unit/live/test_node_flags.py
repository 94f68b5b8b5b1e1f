# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_node's logic: which flags and tags change, what the node looks like after."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.node_flags import (
    describe, expected_view, node_changes, node_view, wait_live)


def _node(**fields):
    node = {"name": "node2", "role": "C", "drained": False, "offline": False,
            "master_candidate": True, "tags": ["a"], "mfree": 1024, "group": "default"}
    node.update(fields)
    return node_view(node)


def test_only_what_differs_changes():
    view = _node()
    flags, add, remove = node_changes(view, {"drained": True, "offline": False,
                                             "master_candidate": None}, ["a", "b", "b"], ["c"])
    assert flags == {"drained": True} and add == ["b"] and remove == []
    after = expected_view(view, flags, add, remove)
    assert after["drained"] and not after["master_candidate"] and after["tags"] == ["a", "b"]
    assert describe(view, after) == \
        "node2: drained false -> true, master_candidate true -> false, tags +b"
    assert describe(view, view) == "node2: unchanged"
    assert node_changes(after, {"drained": True}) == ({}, [], [])


@pytest.mark.parametrize("view, wanted, tags, message", [
    (_node(role="M"), {"drained": True}, ((), ()), "is the master node"),
    (_node(), {"master_candidate": True, "offline": True}, ((), ()), "cannot be a master candidate"),
    (_node(drained=True, master_candidate=False), {"master_candidate": True}, ((), ()),
     "cannot be a master candidate"),
    (_node(), {}, (["x"], ["x"]), "both to add and to remove: x"),
])
def test_impossible_requests_are_refused(view, wanted, tags, message):
    with pytest.raises(HtoolsError, match=message):
        node_changes(view, wanted, *tags)


def test_the_masters_tags_may_change():
    assert node_changes(_node(role="M"), {"drained": None}, ["t"]) == ({}, ["t"], [])


def test_waiting_for_the_node_to_answer():
    answers = [_raw(offline=True), _raw(mfree=None), _raw()]

    class Client:
        def node(self, name):
            assert name == "node2"
            return answers.pop(0)

    clock = iter(range(100))
    view = wait_live(Client(), "node2", 10, clock=lambda: next(clock), sleep=lambda s: None)
    assert view["live"] and not answers
    answers[:] = [_raw(offline=True)] * 20
    with pytest.raises(HtoolsError, match="did not answer the master within 3s"):
        wait_live(Client(), "node2", 3, clock=lambda: next(clock), sleep=lambda s: None)


def _raw(**fields):
    node = {"name": "node2", "role": "R", "drained": False, "offline": False,
            "master_candidate": False, "tags": [], "mfree": 512}
    node.update(fields)
    return node
