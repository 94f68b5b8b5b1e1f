# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The clusters the cost-aware balance's tests share (data and duration budgets)."""

from __future__ import annotations

import os
import sys

import pytest

from kit.paths import EXAMPLE
from kit.plans import plan_balance

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench"))
from gen_drbd import generate  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(scope="session")
def drbd_12(tmp_path_factory):
    """A 12-node DRBD cluster like the benchmark's (20 % new, empty nodes)."""
    path = str(tmp_path_factory.mktemp("cost") / "drbd-12.data")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(generate(12, seed=3))
    return path


@pytest.fixture(scope="session", params=["example", "drbd-12"])
def cost_cluster(request):
    """(data file, hbal's plan, the cost-aware plan) of the example cluster and of drbd_12."""
    path = EXAMPLE if request.param == "example" else request.getfixturevalue("drbd_12")
    return path, plan_balance(path), plan_balance(path, cost_aware=True)
