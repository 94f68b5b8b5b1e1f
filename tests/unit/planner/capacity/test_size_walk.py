# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The failures proved for runs of sizes (capacity/walk.py, greedy_range.py).

Every answer the walk gives instead of a check is checked here by a fresh
checker on the very same cluster, and the hspace keys must not change when
the walk is switched off.  The clusters are the benchmark's kind (DRBD
nodes, some empty; hspace tries diskless instances on them), small, and
capacity_gen's."""

from __future__ import annotations

import sys
import os

import pytest

from gen import capacity_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity import hspace
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.globaln1 import (
    Checker)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.report import (
    capacity_report)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.walk import (
    SizeWalk)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.state import (
    copy_node)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench"))
from gen_drbd import generate as drbd_cluster  # noqa: E402  pylint: disable=wrong-import-position

PARAMS = dict(offline_nodes=[], min_disk=0.0, max_cpu=None, down_nodes=[], max_length=-1)
DRBD_CASES = [(8, 1, 12), (10, 2, 16), (12, 3, 20), (9, 4, 10), (14, 5, 18), (11, 6, 20)]


def _load(tmp_path, text):
    path = tmp_path / "c.data"
    path.write_text(text, encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    return data


def _verified_answers(monkeypatch):
    """Check every answer SizeWalk.known gives against a fresh checker (a
    failure); the answers, by kind (lasting or not), are counted."""
    counted = {True: 0, False: 0}
    real = SizeWalk.known

    def known(self, nodes, insts, item, attempt=True):
        verdict = real(self, nodes, insts, item, attempt)
        if verdict is not None:
            (target, _node), = item[1].items()
            placed = item[2].copy()
            placed.pnode, placed.snode = target, -1
            node = copy_node(nodes[target])
            assert node.add_pri(placed, self.force) is None
            moved = list(nodes)
            moved[target] = node
            fresh = Checker(self.checker.data, skip_offline=self.checker.skip_offline,
                            ignore_groups=self.checker.ignore_groups)
            truth = fresh.check(moved, insts + [placed])
            assert not truth.redundant, (target, placed.mem)
            # a lasting answer may come from a cluster this one only adds
            # instances to: there the check said it for certain, here its
            # bounds may not see it (the run's keys below show that the
            # shortcut it allows changes nothing)
            counted[verdict.lasting] += 1
        return verdict
    monkeypatch.setattr(SizeWalk, "known", known)
    return counted


def _without_walk(monkeypatch):
    real = hspace.Allocator.__init__

    def no_walk(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self.walk = None
    monkeypatch.setattr(hspace.Allocator, "__init__", no_walk)


def _answer(data, params):
    """The keys, or the error hspace's run ends with."""
    try:
        return capacity_report(data, params)["machine_readable"]
    except HtoolsError as err:
        return str(err)


@pytest.mark.parametrize("nodes,seed,per_node", DRBD_CASES)
def test_proved_failures_are_failures_on_benchmark_clusters(
        tmp_path, monkeypatch, nodes, seed, per_node):
    text = drbd_cluster(nodes, seed, per_node=per_node)
    counted = _verified_answers(monkeypatch)
    keys = _answer(_load(tmp_path, text), PARAMS)
    assert counted[True] + counted[False] > 0
    monkeypatch.undo()
    _without_walk(monkeypatch)
    assert keys == _answer(_load(tmp_path, text), PARAMS)


def test_both_kinds_of_proof_answer_on_benchmark_clusters(tmp_path, monkeypatch):
    """Lasting failures and greedy_range's both answer checks (the tests
    above would pass with a walk that never answers)."""
    counted = _verified_answers(monkeypatch)
    for nodes, seed, per_node in DRBD_CASES:
        capacity_report(_load(tmp_path, drbd_cluster(nodes, seed, per_node=per_node)), PARAMS)
    assert counted[True] >= 50
    assert counted[False] >= 50


@pytest.mark.parametrize("seed", range(40))
def test_proved_failures_are_failures_on_generated_clusters(tmp_path, monkeypatch, seed):
    text, _argv, opts, _f = capacity_gen.generate(seed)
    _verified_answers(monkeypatch)
    keys = _answer(_load(tmp_path, text), opts)
    monkeypatch.undo()
    _without_walk(monkeypatch)
    assert keys == _answer(_load(tmp_path, text), opts)
