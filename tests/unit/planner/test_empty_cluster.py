# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cluster without instances: hbal says it is empty and writes no state file.

hbal 3.0.2 checks for instances before it saves `-S FILE.original` and
before it chooses a node group, so neither a missing -G on a cluster of
several groups nor an unknown group is an error there.  Ours must agree.
"""

from __future__ import annotations

import subprocess

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import (
    CLUSTER_EMPTY)
from kit.plans import plan_balance

TWO_GROUPS = """g1|uuid-1|preferred|
g2|uuid-2|preferred|

n1.x|16384|512|15000|100000|90000|8|N|uuid-1
n2.x|32768|512|30000|100000|50000|8|N|uuid-1
n3.x|16384|512|15000|100000|90000|8|N|uuid-2


"""


@pytest.fixture
def empty_cluster(tmp_path):
    path = tmp_path / "empty.data"
    path.write_text(TWO_GROUPS)
    return path


@pytest.mark.parametrize("group", [None, "g1", "no-such-group"])
def test_an_empty_cluster_is_reported_and_nothing_is_written(empty_cluster, tmp_path, group):
    state = tmp_path / "state"
    res = plan_balance(str(empty_cluster), save_state=str(state), group=group)
    assert res["stop_reason"] == CLUSTER_EMPTY
    assert res["cluster_empty"] is True
    assert res["moves"] == [] and res["commands"] == [] and not res["changed"]
    assert res["group"] == ("g1" if group == "g1" else None)
    assert not list(tmp_path.glob("state*"))


def test_a_cluster_with_an_instance_is_not_empty(empty_cluster, tmp_path):
    text = TWO_GROUPS.rstrip("\n") + "\n\ni1.x|1024|10240|1|running|Y|n1.x||plain||1|-|N\n\n"
    empty_cluster.write_text(text)
    state = tmp_path / "state"
    res = plan_balance(str(empty_cluster), save_state=str(state), group="g1")
    assert res["cluster_empty"] is False and res["stop_reason"] != CLUSTER_EMPTY
    assert (tmp_path / "state.original").exists()


@pytest.mark.parametrize("group", [None, "no-such-group"])
def test_hbal_agrees(empty_cluster, tmp_path, group, require_hbal):
    argv = [require_hbal, "-t", str(empty_cluster), "-S", str(tmp_path / "hb"), "-C"]
    if group:
        argv += ["-G", group]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == CLUSTER_EMPTY
    assert not list(tmp_path.glob("hb*"))
