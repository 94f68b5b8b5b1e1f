# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""MonD CPU loads on the lab, where every node runs ganeti-mond (port 1815).

Node names resolve only inside the lab's network namespace, so the
collection's live query (files/mond_live_plan.py) and hbal both run in there
(`ip netns exec`), against RAPI on the namespace's 127.0.0.1:5080.

The CPU loads drift (MonD recomputes its averages every few seconds), so a
run compares three things: ours on what it read live; `hbal --mond=yes
--mond-data` on exactly those reports; and `hbal --mond=yes` reading the
nodes itself, started at the same moment as ours.  hbal reads the cluster
again for both, and loads and free disk drift, so an attempt that differs is
made again; some attempt must match both ways.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kit.paths import COLLECTIONS_DIR, HBAL, TESTS_DIR
from kit.plan_compare import plan_differences
from oracle.hbal_balance import run_balance

SCRIPT = os.path.join(TESTS_DIR, "integration", "files", "mond_live_plan.py")
# Each node's MonD recomputes its average every ~5 s, each at its own moment:
# the two reads see the same loads about half the time.
ATTEMPTS = 10
NS_RAPI = "https://127.0.0.1:5080"      # RAPI as seen inside the namespace


def _ours_argv(lab, *extra):
    return ["ip", "netns", "exec", lab.ns, sys.executable, SCRIPT, COLLECTIONS_DIR, NS_RAPI,
            lab.ro_user, lab.ro_password, lab.ca] + [str(a) for a in extra]


def _finish(proc):
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr[-3000:]
    return json.loads(stdout)


def _ours(lab, *extra):
    return _finish(subprocess.Popen(_ours_argv(lab, *extra), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True))


def _hbal_argv(lab, *args):
    return ["ip", "netns", "exec", lab.ns, HBAL, "-m", "127.0.0.1", "--mond=yes"] + \
        list(args) + ["-C"]


def _hbal(lab, *args):
    return run_balance(_hbal_argv(lab, *args))


def _both_live(lab):
    """(ours, hbal's run), both reading the MonDs at about the same moment."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        hbal = pool.submit(run_balance, _hbal_argv(lab))
        ours = _ours(lab)
        return ours, hbal.result(timeout=300)


def _wait_for_every_monds_load(lab, seconds=90):
    """A MonD started moments ago has no CPU average yet: wait until all do."""
    deadline = time.monotonic() + seconds
    while True:
        ours = _ours(lab)
        ignored = [w for w in ours["plan"]["warnings"] if "ignored" in w]
        if not ignored or time.monotonic() > deadline:
            return
        time.sleep(3)


@pytest.mark.usefixtures("require_hbal")
def test_live_mond_plan_equals_hbal(lab, tmp_path):
    _wait_for_every_monds_load(lab)
    drift = []
    for attempt in range(1, ATTEMPTS + 1):
        ours, live = _both_live(lab)
        assert ours["failures"] == {}, "a lab MonD did not answer: %s" % ours["failures"]
        assert not [w for w in ours["plan"]["warnings"] if "MonD" in w or "ignored" in w]
        assert len(ours["reports"]) == lab.nodes_count
        saved = tmp_path / ("mond%d.json" % attempt)
        saved.write_text(json.dumps(ours["reports"]))
        same_data = _hbal(lab, "--mond-data", str(saved))
        # hbal reads RAPI again: the lab's free disk (the host's file system)
        # may have moved since ours read it, so a difference is retried too; a
        # real one repeats on every attempt and fails below
        problems = ["same reports (%s, %s): %s" % (saved, same_data.command, p)
                    for p in plan_differences(same_data, ours["plan"])]
        if not problems:
            problems = plan_differences(live, ours["plan"])
            if not problems:
                return
        drift.append(problems)
        time.sleep(1.3)         # another moment within the nodes' 5 s cycles
    pytest.fail("no attempt of %d gave hbal's plan, on the same MonD reports and live:\n  %s"
                % (ATTEMPTS, drift))


@pytest.mark.usefixtures("require_hbal")
def test_silent_monds_are_ignored_like_hbal(lab):
    # nothing listens on port 9 in the lab: every node refuses, fast
    ours = _ours(lab, 9, 2.0)
    assert sorted(ours["failures"]) == sorted("node%d" % i
                                              for i in range(1, lab.nodes_count + 1))
    assert ours["seconds"] < 30
    assert any("cpu-avg-load data ignored" in w for w in ours["plan"]["warnings"])
    # hbal reads the cluster again, and the lab's free disk (the host's file
    # system) drifts between the two reads: a difference is retried, a real
    # one repeats on every attempt
    drift = []
    for _attempt in range(ATTEMPTS):
        without = run_balance(["ip", "netns", "exec", lab.ns, HBAL, "-m", "127.0.0.1", "-C"])
        problems = plan_differences(without, ours["plan"])
        if not problems:
            return
        drift.append(problems)
        ours = _ours(lab, 9, 2.0)
    pytest.fail("no attempt of %d gave hbal's plan without MonD data:\n  %s" % (ATTEMPTS, drift))
