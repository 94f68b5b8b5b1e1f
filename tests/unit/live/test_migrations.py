# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Taking instances off nodes and bringing them back (ganeti_instance_migrate's logic)."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils import run_tags
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live.migrations import (
    describe_failure, migrations_away, migrations_back)


def inst(name, template, pnode, snodes=(), state="up"):
    return {"name": name, "disk_template": template, "pnode": pnode, "snodes": list(snodes),
            "admin_state": state}


def cluster(*instances):
    return {i["name"]: i for i in instances}


def test_drbd_goes_to_its_secondary_shared_storage_to_its_target():
    moves, staying = migrations_away(cluster(
        inst("d1", "drbd", "n2", ["n3"]), inst("s1", "sharedfile", "n2"),
        inst("s2", "sharedfile", "n1"), inst("x", "drbd", "n3", ["n2"])),
        ["n2"], {"s1": "n1", "d1": "n9"})
    assert staying == []
    assert [(m["instance"], m["from"], m["to"], m["target_node"], m["action"]) for m in moves] \
        == [("d1", "n2", "n3", None, "migrate"), ("s1", "n2", "n1", "n1", "migrate")]


def test_a_stopped_instance_is_failed_over():
    moves, _staying = migrations_away(cluster(inst("d1", "drbd", "n2", ["n3"], state="down")), ["n2"])
    assert moves[0]["action"] == "failover"


def test_every_instance_that_cannot_leave_is_named_before_anything_moves():
    with pytest.raises(HtoolsError) as err:
        migrations_away(cluster(
            inst("d1", "drbd", "n2", ["n3"]), inst("p1", "plain", "n2"),
            inst("s1", "sharedfile", "n2"), inst("s2", "sharedfile", "n3"),
            inst("ok", "drbd", "n2", ["n1"])), ["n2", "n3"], {"s2": "n2"})
    text = str(err.value)
    for part in ("d1 (drbd): its secondary n3 is in maintenance too",
                 "p1 (plain): Ganeti cannot migrate", "s1 (sharedfile): no target node given",
                 "s2 (sharedfile): its target n2 is in maintenance too"):
        assert part in text
    assert "ok" not in text.replace("no target", "")


def test_non_redundant_instances_may_stay_with_their_node():
    moves, staying = migrations_away(cluster(
        inst("p1", "plain", "n2"), inst("s1", "sharedfile", "n2"),
        inst("s2", "sharedfile", "n2")), ["n2"], {"s2": "n1"}, keep_non_redundant=True)
    assert staying == ["p1", "s1"] and [m["instance"] for m in moves] == ["s2"]


def test_back_home_from_the_tags_alone():
    tags = {"n2": [run_tags.away_tag("r1", "d1"), run_tags.away_tag("r1", "s1"),
                   run_tags.away_tag("r1", "home"), run_tags.away_tag("r1", "gone"),
                   run_tags.away_tag("other", "d9"), "reboot"]}
    moves, drop, staying = migrations_back(cluster(
        inst("d1", "drbd", "n3", ["n2"]), inst("s1", "sharedfile", "n1"),
        inst("home", "sharedfile", "n2"), inst("d9", "drbd", "n3", ["n2"])), tags, "r1")
    assert staying == []
    assert [(m["instance"], m["to"], m["target_node"]) for m in moves] \
        == [("d1", "n2", None), ("s1", "n2", "n2")]
    assert drop == {"n2": [run_tags.away_tag("r1", n) for n in ("d1", "gone", "home", "s1")]}


def test_a_drbd_instance_whose_secondary_changed_cannot_go_back():
    tags = {"n2": [run_tags.away_tag("r1", "d1")]}
    with pytest.raises(HtoolsError, match="d1 cannot go back to n2"):
        migrations_back(cluster(inst("d1", "drbd", "n3", ["n4"])), tags, "r1")


def test_after_a_full_evacuation_a_drbd_instance_with_a_new_secondary_stays():
    tags = {"n2": [run_tags.away_tag("r1", "d1"), run_tags.away_tag("r1", "s1")]}
    moves, drop, staying = migrations_back(cluster(
        inst("d1", "drbd", "n3", ["n4"]), inst("s1", "sharedfile", "n1")), tags, "r1",
        keep_moved=True)
    assert staying == ["d1"] and [m["instance"] for m in moves] == ["s1"]
    assert drop == {"n2": [run_tags.away_tag("r1", "d1"), run_tags.away_tag("r1", "s1")]}


def test_a_failure_summary_counts_only_what_succeeded():
    moves = [{"instance": "d1", "from": "n3", "to": "n2", "status": "failed"}]
    assert describe_failure(moves) == "1 of 1 migration(s) failed (d1); none succeeded"
    moves.append({"instance": "s1", "from": "n1", "to": "n2", "status": "success"})
    assert describe_failure(moves) \
        == "1 of 2 migration(s) failed (d1); 1 instance(s) migrated: s1 n1->n2"


def test_run_ids_and_tag_lengths_are_checked():
    with pytest.raises(HtoolsError, match="run id"):
        run_tags.valid_run_id("a:b")
    with pytest.raises(HtoolsError, match="longer than Ganeti allows"):
        run_tags.cluster_tag("n" * 6, run_tags.away_tag("r" * 40, "i" * 80))
