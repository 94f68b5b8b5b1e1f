# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Differential test: our rolling-reboot plan vs the real hroller 3.0.2.

Generated clusters (tests/gen/roller_gen.py) x option sets: N clusters
(env ``HTOOLS_ROLLER_CLUSTERS``, default 200) with ``HTOOLS_ROLLER_OPTIONS``
option sets each (default 3).  Each case runs ``hroller --print-moves -t FILE
<options>`` and our planner on the same file, and requires:

* hroller succeeded: we succeed, and `report` equals hroller's stdout, line for line;
  "missing master" is a warning of ours exactly when hroller warns it (--force);
* hroller failed: we fail with the message hroller printed after ``Error:``.

Also hand-made clusters reproducing the quirks the spec lists (§6.10-6.12,
§10.4) and a check that the generator reaches every outcome.
"""

from __future__ import annotations

import collections
import os
import subprocess

import pytest

from gen import roller_gen
from oracle.hroller import HROLLER_PATH, hroller_argv, hroller_available, hroller_error
from oracle.hroller import run_hroller as oracle_hroller

N_CLUSTERS = int(os.environ.get("HTOOLS_ROLLER_CLUSTERS", "200"))
N_OPTIONS = int(os.environ.get("HTOOLS_ROLLER_OPTIONS", "3"))
NO_MASTER = "No master node found (maybe not supported by backend)."


@pytest.fixture(scope="module")
def require_hroller():
    if not hroller_available():
        pytest.skip("hroller not available at %s (apt-get install -y ganeti-htools-3.0)"
                    % HROLLER_PATH)
    return HROLLER_PATH


@pytest.fixture(scope="module")
def planner():
    try:
        from kit.plans import plan_rolling_reboot
        from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
    except ImportError as exc:
        pytest.fail("cannot import the rolling-reboot planner: %r" % (exc,), pytrace=False)
    return plan_rolling_reboot, HtoolsError


def run_hroller(path, opts):
    """(stdout lines or None, error message or None, stderr)."""
    code, lines, stderr = oracle_hroller(path, opts)
    if code == 0:
        return lines, None, stderr
    error = hroller_error(stderr)
    assert code == 1 and error is not None, (hroller_argv(path, opts), code, stderr)
    return None, error, stderr


def run_ours(planner, path, opts):
    plan, error_class = planner
    try:
        return plan(path, **opts), None
    except error_class as err:
        return None, str(err)


def compare(planner, path, opts):
    """'' when identical, else what differs (with the command to reproduce)."""
    lines, error, stderr = run_hroller(path, opts)
    ours, our_error = run_ours(planner, path, opts)
    where = "hroller --print-moves -t %s %s" % (path, " ".join(roller_gen.hroller_argv(opts)))
    if error is not None:
        if our_error != error:
            return "%s\n  hroller error: %r\n  ours: %r" % (
                where, error, our_error if ours is None else ours["report"])
        return ""
    if ours is None:
        return "%s\n  hroller succeeded, ours failed: %r" % (where, our_error)
    if ours["report"] != lines:
        return "%s\n  hroller: %r\n  ours:    %r" % (where, lines, ours["report"])
    if (NO_MASTER in stderr) != (NO_MASTER in ours["warnings"]):
        return "%s\n  missing-master warning differs: %r" % (where, ours["warnings"])
    return ""


def outcome(planner, path, opts):
    ours, error = run_ours(planner, path, opts)
    if ours is None:
        return "error: " + error.split(":", maxsplit=1)[0]
    return "moves" if any(line.startswith("  ") for line in ours["report"]) else "plain"


@pytest.mark.usefixtures("require_hroller")
@pytest.mark.parametrize("first", range(1, N_CLUSTERS + 1, 25))
def test_generated_clusters(planner, tmp_path, first):
    """25 clusters x N_OPTIONS option sets per test; every case identical."""
    problems = []
    for seed in range(first, min(first + 25, N_CLUSTERS + 1)):
        case = roller_gen.generate(seed)
        path = str(tmp_path / ("r%d.data" % seed))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(case.data)
        for opts in roller_gen.options_for(seed, case, N_OPTIONS):
            problem = compare(planner, path, opts)
            if problem:
                problems.append("seed %d: %s" % (seed, problem))
    assert not problems, "%d case(s) differ from hroller:\n%s" % (
        len(problems), "\n".join(problems[:10]))


def test_generator_reaches_every_outcome(planner, tmp_path):
    """The generated cases are not all alike: successes with and without moves, and
    each of hroller's failures, appear among them."""
    seen = collections.Counter()
    for seed in range(1, 201):
        case = roller_gen.generate(seed)
        path = str(tmp_path / "c.data")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(case.data)
        for opts in roller_gen.options_for(seed, case, N_OPTIONS):
            seen[outcome(planner, path, opts)] += 1
    for kind in ("moves", "plain", "error: Not enough capacity to move non-redundant instances",
                 "error: Not enough capacity to move secondaries", "error: No master node found (maybe not supported by backend).",
                 "error: Cannot find target group.", "error: Cannot create node graph",
                 "error: wrong node name(s) set as offline"):
        assert seen[kind] >= 2, (kind, seen)


# -- hand-made clusters for the quirks (spec §6.10-6.12, §10.4) -----------------

def _cluster(nodes, instances, groups=("g1",)):
    """Text-format cluster: nodes (name, free mem, free disk, flag, group),
    instances (name, mem, dsk, pnode, snode or '', template)."""
    lines = ["%s|uuid-%s|preferred|" % (g, g) for g in groups] + [""]
    lines += ["%s|8192|0|%d|4000|%d|16|%s|uuid-%s|1" % n for n in nodes] + [""]
    lines += ["%s|%d|%d|1|running|Y|%s|%s|%s||1" % i for i in instances]
    return "\n".join(lines + ["", ""]) + "\n"


def _pairs_cluster():
    # four pairs of nodes, two DRBD instances each way inside every pair, disk for
    # only two more secondaries per node: full evacuation splits every class
    nodes = [("node-%d%d" % (k, j), 8000, 1052, "M" if (k, j) == (3, 1) else "N", "g1")
             for k in range(4) for j in range(2)]
    insts = []
    for k in range(4):
        a, b = "node-%d0" % k, "node-%d1" % k
        insts += [("inst-%d0" % k, 128, 1024, a, b, "drbd"),
                  ("inst-%d1" % k, 128, 1024, b, a, "drbd")]
    return _cluster(nodes, insts)


def _interleaved_cluster():
    # a node of another group sits between the selected ones; its plain instance
    # has nowhere to go in its own group
    nodes = [("n1-0", 8000, 1052, "N", "g1"), ("n2-0", 8000, 1052, "M", "g2"),
             ("n1-1", 8000, 1052, "N", "g1"), ("n1-2", 8000, 3100, "N", "g1")]
    insts = [("i0", 128, 1024, "n1-0", "", "plain"), ("i1", 128, 1024, "n1-1", "", "plain"),
             ("ix", 128, 1024, "n2-0", "", "plain")]
    return _cluster(nodes, insts, ("g1", "g2"))


def _crossed_cluster():
    # unselected nodes (group g2) in the index range, with DRBD pairs among them:
    # same colour class, so full evacuation migrates and re-homes between them
    nodes = [("a0", 8000, 3000, "N", "g1"), ("b0", 8000, 3000, "N", "g2"),
             ("b1", 8000, 3000, "N", "g2"), ("a1", 8000, 3000, "M", "g1"),
             ("b2", 8000, 3000, "N", "g2"), ("a2", 8000, 3000, "N", "g1")]
    insts = [("x0", 128, 512, "b0", "b1", "drbd"), ("x1", 128, 512, "b1", "b0", "drbd"),
             ("x2", 128, 512, "b2", "b0", "drbd"), ("y0", 128, 512, "a0", "a1", "drbd"),
             ("y1", 128, 512, "a2", "b1", "drbd"), ("p0", 128, 256, "b1", "", "plain"),
             ("r0", 128, 256, "a1", "", "rbd")]
    return _cluster(nodes, insts, ("g1", "g2"))


def _empty_line_cluster():
    # an -O node inside the range is still planned: an empty group line
    nodes = [("node-A", 8000, 1100, "N", "g1"), ("node-B", 8000, 1100, "N", "g1"),
             ("node-C", 8000, 1100, "M", "g1")]
    insts = [("inst-%s" % x, 128, 1024, "node-" + x.upper(), "", "plain") for x in "abc"]
    return _cluster(nodes, insts)


HAND_MADE = {
    "pairs": (_pairs_cluster, [{}, {"full_evacuation": True}, {"offline_maintenance": True},
                               {"one_step_only": True, "full_evacuation": True}]),
    "interleaved": (_interleaved_cluster, [{"group": "g1"}, {"group": "g1",
                                                             "ignore_non_redundant": True},
                                           {}, {"group": "g2"}]),
    "crossed": (_crossed_cluster, [{"group": "g1", "full_evacuation": True},
                                   {"group": "g1", "full_evacuation": True,
                                    "ignore_non_redundant": True},
                                   {"full_evacuation": True, "offline_nodes": ["b0"]},
                                   {"group": "g1"}, {"node_tags": ["none"], "force": True}]),
    "empty-line": (_empty_line_cluster, [{"offline_nodes": ["node-B"]},
                                         {"offline_nodes": ["node-B", "node-X"]},
                                         {"skip_non_redundant": True}]),
}


@pytest.mark.usefixtures("require_hroller")
@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_quirks(planner, tmp_path, name):
    make, option_sets = HAND_MADE[name]
    path = str(tmp_path / (name + ".data"))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(make())
    problems = [p for p in (compare(planner, path, opts) for opts in option_sets) if p]
    assert not problems, "\n".join(problems)


# -- Ganeti's own hroller test data, read at test time (never copied here) -------

GANETI_FILES = ("hroller-full.data", "hroller-nodegroups.data", "hroller-nonredundant.data",
                "hroller-online.data", "multiple-tags.data", "unique-reboot-order.data")
GANETI_OPTION_SETS = ([{}, {"full_evacuation": True}, {"ignore_non_redundant": True},
                       {"skip_non_redundant": True}, {"offline_maintenance": True},
                       {"one_step_only": True}, {"node_tags": ["red", "blue"]},
                       {"group": "group-01"}, {"group": "group-02", "force": True},
                       {"offline_nodes": ["node-01-002"]},
                       {"full_evacuation": True, "ignore_non_redundant": True},
                       {"full_evacuation": True, "offline_maintenance": True}])


def _ganeti_test_file(name):
    """Text of Ganeti's test/data/htools/NAME: from $GANETI_TESTDATA (a directory),
    else from a Ganeti git checkout at $GANETI_SRC (tag v3.0.2); None if neither."""
    folder = os.environ.get("GANETI_TESTDATA")
    if folder and os.path.exists(os.path.join(folder, name)):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            return handle.read()
    source = os.environ.get("GANETI_SRC")
    if source:
        proc = subprocess.run(["git", "-C", source, "show", "v3.0.2:test/data/htools/" + name],
                              capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return proc.stdout
    return None


def _unique_instance_names(text):
    """Rename repeated instance names (NAME-dup2, ...): two of these files repeat one,
    which hroller accepts and the collection's loader refuses as an error.  Both
    tools get the renamed file."""
    sections = text.split("\n\n")
    seen = collections.Counter()
    lines = []
    for line in sections[2].split("\n"):
        name, sep, rest = line.partition("|")
        seen[name] += 1
        lines.append("%s-dup%d%s%s" % (name, seen[name], sep, rest) if seen[name] > 1 else line)
    sections[2] = "\n".join(lines)
    return "\n\n".join(sections)


@pytest.mark.usefixtures("require_hroller")
@pytest.mark.parametrize("name", GANETI_FILES)
def test_ganeti_test_data(planner, tmp_path, name):
    text = _ganeti_test_file(name)
    if text is None:
        pytest.skip("Ganeti's test data not available (set GANETI_TESTDATA or GANETI_SRC)")
    path = str(tmp_path / name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_unique_instance_names(text))
    problems = [p for p in (compare(planner, path, opts) for opts in GANETI_OPTION_SETS) if p]
    assert not problems, "\n".join(problems)
