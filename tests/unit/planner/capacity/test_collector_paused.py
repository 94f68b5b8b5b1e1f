# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cyclic collector is off while hspace plans and as it was after,
also when the planning fails."""

from __future__ import annotations

import gc

import pytest

from kit.paths import EXAMPLE

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.collector import collector_paused
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity import report


def test_off_while_planning_and_back_on_after(monkeypatch):
    seen = []
    planner = report.hspace

    def watched(data, opts):
        seen.append(gc.isenabled())
        return planner(data, opts)
    monkeypatch.setattr(report, "hspace", watched)
    data, _fmt = load_data_file(EXAMPLE)
    assert gc.isenabled()
    report.capacity_report(data, {})
    assert seen == [False] and gc.isenabled()


def test_back_on_after_a_failure_and_left_off_when_it_was():
    with pytest.raises(HtoolsError):
        with collector_paused():
            assert not gc.isenabled()
            raise HtoolsError("no")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
