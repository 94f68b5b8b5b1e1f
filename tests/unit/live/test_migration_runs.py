# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_instance_migrate's runs (live/migration_runs.py) on a fake cluster:
the run's marks first (one cluster tag job), then the migrations on the
executor; failures keep what ran."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live import migration_runs
from ansible_collections.ganeti.htools.plugins.module_utils.live.run_marks import onto_nodes
from ansible_collections.ganeti.htools.plugins.module_utils.run_tags import away_tag, cluster_tag


class FakeCluster:
    """Nodes, instances, tags and jobs; a job of a listed instance fails."""

    def __init__(self, failing=()):
        self.node_list = [{"name": n, "tags": []} for n in ("n1", "n2", "n3")]
        self.instance_list = [
            {"name": "a", "pnode": "n1", "snodes": ["n2"], "disk_template": "drbd",
             "admin_state": "up"},
            {"name": "b", "pnode": "n1", "snodes": ["n3"], "disk_template": "drbd",
             "admin_state": "down"}]
        self.failing = set(failing)
        self.jobs, self.log = {}, []
        self.tags = []

    def nodes(self):
        """As the real clients give them: the marks kept as cluster tags shown."""
        return onto_nodes([dict(n) for n in self.node_list], self.tags)

    def instances(self):
        return self.instance_list

    def cluster_tags(self):
        return list(self.tags)

    def add_cluster_tags(self, tags, reason=None):
        del reason
        self.tags += [t for t in tags if t not in self.tags]
        return self._job(("ctag", tuple(tags)))

    def delete_cluster_tags(self, tags, reason=None):
        del reason
        self.tags = [t for t in self.tags if t not in tags]
        return self._job(("cuntag", tuple(tags)))

    def _job(self, what, ok=True):
        number = len(self.jobs) + 1
        self.jobs[number] = ok
        self.log.append(what)
        return number

    def add_node_tags(self, node, tags, reason=None):
        del reason
        return self._job(("tag", node, tuple(tags)))

    def delete_node_tags(self, node, tags, reason=None):
        del reason
        return self._job(("untag", node, tuple(tags)))

    def migrate_instance(self, name, target_node=None, reason=None, **extra):
        del target_node, reason, extra
        return self._move("migrate", name)

    def failover_instance(self, name, target_node=None, reason=None):
        del target_node, reason
        return self._move("failover", name)

    def _move(self, action, name):
        ok = name not in self.failing
        if ok:
            inst = next(i for i in self.instance_list if i["name"] == name)
            inst["pnode"], inst["snodes"] = inst["snodes"][0], [inst["pnode"]]
        return self._job((action, name), ok)

    def wait_job(self, job, timeout=None):
        del timeout
        if not self.jobs[job]:
            raise HtoolsError("job %d failed" % job)


PARAMS = {"away_from": ["n1"], "back_to": ["n1"], "targets": {}, "keep_non_redundant": False,
          "keep_moved": False, "run_id": "r1", "migration_mode": None, "job_timeout": 60,
          "lock_owner": None, "remove_tags_when_home": []}
WAVE_MARK = "ganeti.htools:rolling:r1"


def kept(node, *marks):
    return tuple(cluster_tag(node, m) for m in marks)


def test_away_marks_the_node_before_anything_moves_then_migrates():
    cluster = FakeCluster()
    result = migration_runs.away(cluster, dict(PARAMS), check_mode=False)
    assert cluster.log[0] == ("ctag", kept("n1", away_tag("r1", "a"), away_tag("r1", "b")))
    assert cluster.tags == ["ganeti.htools:away:r1:n1:a", "ganeti.htools:away:r1:n1:b"]
    assert cluster.log[1:] == [("migrate", "a"), ("failover", "b")]
    assert [m["status"] for m in result["moves"]] == ["success", "success"]
    assert result["changed"] and result["summary"].startswith("2 instance(s) migrated")


def test_check_mode_moves_nothing():
    cluster = FakeCluster()
    result = migration_runs.away(cluster, dict(PARAMS), check_mode=True)
    assert cluster.log == [] and len(result["moves"]) == 2
    assert result["summary"].startswith("2 instance(s) to migrate")


def test_a_failed_migration_fails_the_run_with_what_ran():
    cluster = FakeCluster(failing={"b"})
    with pytest.raises(migration_runs.MigrationsFailed) as caught:
        migration_runs.away(cluster, dict(PARAMS), check_mode=False)
    assert str(caught.value).startswith("1 of 2 migration(s) failed: b n1->n3")
    assert caught.value.result["summary"].startswith("1 of 2 migration(s) failed (b)")


def test_back_brings_home_what_the_run_took_and_forgets_only_those():
    cluster = FakeCluster()
    migration_runs.away(cluster, dict(PARAMS), check_mode=False)
    cluster.failing = {"b"}
    with pytest.raises(migration_runs.MigrationsFailed) as caught:
        migration_runs.back(cluster, dict(PARAMS), check_mode=False)
    assert caught.value.result["tags_removed"] == {"n1": [away_tag("r1", "a")]}
    assert cluster.tags == ["ganeti.htools:away:r1:n1:b"]


def _taken_away(cluster):
    """`cluster` after a run took n1's instances away; n1 and n3 carry WAVE_MARK."""
    migration_runs.away(cluster, dict(PARAMS), check_mode=False)
    cluster.tags += [cluster_tag("n1", WAVE_MARK), cluster_tag("n3", WAVE_MARK)]
    del cluster.log[:]
    return cluster


def test_back_removes_the_callers_marks_with_the_away_marks_once_all_are_home():
    cluster = _taken_away(FakeCluster())
    cluster.tags.append("site-a")
    params = dict(PARAMS, back_to=["n1", "n2", "n3"], remove_tags_when_home=[WAVE_MARK])
    result = migration_runs.back(cluster, params, check_mode=False)
    untags = [entry for entry in cluster.log if entry[0] in ("untag", "cuntag")]
    # one job for every node: n1 forgets its instances and loses the mark;
    # n3 only carries the mark; n2 carries neither
    assert untags == [("cuntag", kept("n1", away_tag("r1", "a"), away_tag("r1", "b"), WAVE_MARK)
                       + kept("n3", WAVE_MARK))]
    assert result["tags_removed"]["n3"] == [WAVE_MARK]
    assert cluster.tags == ["site-a"]


def test_back_keeps_the_callers_marks_everywhere_when_a_migration_failed():
    cluster = _taken_away(FakeCluster())
    cluster.failing = {"b"}
    params = dict(PARAMS, back_to=["n1", "n3"], remove_tags_when_home=[WAVE_MARK])
    with pytest.raises(migration_runs.MigrationsFailed):
        migration_runs.back(cluster, params, check_mode=False)
    untags = [entry for entry in cluster.log if entry[0] in ("untag", "cuntag")]
    assert untags == [("cuntag", kept("n1", away_tag("r1", "a")))]


def test_back_with_only_marks_to_remove_is_a_change_and_check_mode_keeps_them():
    cluster = FakeCluster()
    cluster.tags = [cluster_tag("n2", WAVE_MARK)]
    params = dict(PARAMS, back_to=["n2"], remove_tags_when_home=[WAVE_MARK])
    preview = migration_runs.back(cluster, params, check_mode=True)
    assert preview["changed"] and cluster.log == []
    migration_runs.back(cluster, params, check_mode=False)
    assert cluster.log == [("cuntag", kept("n2", WAVE_MARK))]


def test_marks_an_older_release_left_on_the_node_go_from_the_node():
    cluster = FakeCluster()
    migration_runs.away(cluster, dict(PARAMS), check_mode=False)
    # the run's marks as node tags (an older release), a plain tag of the caller's
    cluster.tags = []
    cluster.node_list[0]["tags"] = [away_tag("r1", "a"), away_tag("r1", "b"), WAVE_MARK, "keep"]
    del cluster.log[:]
    params = dict(PARAMS, remove_tags_when_home=[WAVE_MARK, "keep"])
    result = migration_runs.back(cluster, params, check_mode=False)
    untags = [entry for entry in cluster.log if entry[0] in ("untag", "cuntag")]
    assert sorted(untags) == [("untag", "n1", (away_tag("r1", "a"), away_tag("r1", "b"), WAVE_MARK)),
                              ("untag", "n1", ("keep",))]
    assert result["tags_removed"]["n1"][-1] == "keep"


def test_back_needs_the_run_id():
    with pytest.raises(HtoolsError, match="needs the run_id"):
        migration_runs.back(FakeCluster(), dict(PARAMS, run_id=None), check_mode=False)
