# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_node's logic: which flags and tags change, what the node looks like after."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.parallel import run_parallel
from ansible_collections.ganeti.htools.plugins.module_utils.live.node_flags import (
    apply_node_plans, auto_promote_needed, describe, expected_view, node_changes, node_view,
    plan_node, stages, wait_live)


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


class _Recorder:
    """A client whose jobs end at once; records each node's calls in order and
    how many chains were running at the same time."""

    def __init__(self, fail_on=()):
        import threading
        self.lock = threading.Lock()
        self.calls = []
        self.fail_on = set(fail_on)
        self.running = self.most = 0

    def _call(self, what, node):
        import time
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.calls.append((node, what))
        time.sleep(0.05)        # long enough for the chains to overlap
        with self.lock:
            self.running -= 1
        if (node, what) in self.fail_on:
            raise HtoolsError("%s of %s failed" % (what, node))

    def add_node_tags(self, node, tags, reason=None):
        self._call("add", node)

    def modify_node(self, node, reason=None, auto_promote=None, **flags):
        self._call("modify auto_promote=%s" % auto_promote, node)

    def delete_node_tags(self, node, tags, reason=None):
        self._call("remove", node)


def _plans():
    return [plan_node(_node(name="node%d" % i), {"drained": True}, ["mark"], ["a"])
            for i in range(2, 6)]


def test_several_nodes_change_side_by_side_each_in_order():
    client = _Recorder()
    promote = {"node2": True, "node3": False, "node4": True, "node5": False}
    apply_node_plans(client, _plans(), lambda submit: submit(), "r", promote)
    for i in range(2, 6):
        name = "node%d" % i
        assert [what for node, what in client.calls if node == name] == \
            ["add", "modify auto_promote=%s" % promote[name], "remove"]
    assert client.most > 1      # the chains overlapped


def test_a_node_that_needs_nothing_submits_nothing():
    client = _Recorder()
    plans = [plan_node(_node(name="node2"), {"drained": False}),
             plan_node(_node(name="node3"), {"drained": True})]
    apply_node_plans(client, plans, lambda submit: submit(), "r", {"node2": True, "node3": True})
    assert client.calls == [("node3", "modify auto_promote=True")]


def test_every_chain_ends_before_a_failure_is_raised():
    client = _Recorder(fail_on={("node2", "add")})
    with pytest.raises(HtoolsError, match="add of node2 failed"):
        apply_node_plans(client, _plans(), lambda submit: submit(), "r",
                         dict.fromkeys(("node2", "node3", "node4", "node5"), True))
    # node2 stopped at its failure; the others went on to the end
    assert [what for node, what in client.calls if node == "node2"] == ["add"]
    for name in ("node3", "node4", "node5"):
        assert [node for node, _what in client.calls].count(name) == 3


def test_run_parallel_keeps_the_order_of_the_results():
    assert run_parallel([(lambda i=i: i * i) for i in range(25)]) == [i * i for i in range(25)]
    assert run_parallel([]) == []


def _rapi_node(name, **fields):
    node = {"name": name, "master_candidate": True, "drained": False, "offline": False,
            "master_capable": True}
    node.update(fields)
    return node


def _names(stage):
    return [p["before"]["name"] for p in stage]


@pytest.mark.parametrize("others, needed", [
    # every eligible node is a candidate already: nobody to promote
    ([_rapi_node("node1"), _rapi_node("node6")], False),
    ([_rapi_node("node1"), _rapi_node("node6", master_candidate=False, drained=True)], False),
    ([_rapi_node("node1"), _rapi_node("node6", master_candidate=False, master_capable=False)], False),
    # an eligible node outside the candidates: Ganeti must be let promote it
    ([_rapi_node("node1"), _rapi_node("node6", master_candidate=False)], True),
])
def test_auto_promote_only_when_someone_can_be_promoted(others, needed):
    plans = [plan_node(_node(name="node%d" % i), {"drained": True}) for i in range(2, 6)]
    cluster = others + [_rapi_node("node%d" % i) for i in range(2, 6)]
    promote = auto_promote_needed(plans, cluster)
    assert promote == dict.fromkeys(("node2", "node3", "node4", "node5"), needed)
    assert [_names(stage) for stage in stages(plans, promote)] == [_names(plans)]


def test_demotions_that_promote_run_after_the_other_nodes_drains():
    plans = [plan_node(_node(name="node2"), {"drained": True}),
             plan_node(_node(name="node3", master_candidate=False), {"drained": True}),
             plan_node(_node(name="node4"), {}, ["mark"])]
    cluster = [_rapi_node("node1", master_candidate=False), _rapi_node("node2"),
               _rapi_node("node3", master_candidate=False), _rapi_node("node4")]
    promote = auto_promote_needed(plans, cluster)
    assert promote == {"node2": True, "node3": False, "node4": False}
    # node3 is out of the pool before node2's demotion lets Ganeti pick a candidate
    assert [_names(stage) for stage in stages(plans, promote)] == [["node3", "node4"], ["node2"]]
    # a node the run drains itself is nobody to promote; its drain still goes
    # first, or Ganeti would count it against node2's demotion
    without = auto_promote_needed(plans, cluster[1:])
    assert without == {"node2": False, "node3": False, "node4": False}
    assert [_names(stage) for stage in stages(plans, without)] == [["node3", "node4"], ["node2"]]
    # nothing but candidates drained, nobody to promote: one stage, side by side
    candidates = [plans[0], plan_node(_node(name="node5"), {"drained": True}), plans[2]]
    assert [_names(stage) for stage in stages(candidates, dict.fromkeys(
        ("node2", "node5", "node4"), False))] == [["node2", "node5", "node4"]]


def test_a_node_undrained_in_the_same_run_counts_as_promotable():
    plans = [plan_node(_node(name="node2"), {"drained": True}),
             plan_node(_node(name="node3", drained=True, master_candidate=False), {"drained": False})]
    cluster = [_rapi_node("node2"), _rapi_node("node3", master_candidate=False, drained=True)]
    assert auto_promote_needed(plans, cluster) == {"node2": True, "node3": False}
