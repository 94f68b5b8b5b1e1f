# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A submission whose answer is lost while the cluster becomes unreachable.

Found with the integration lab (RAPI relay stopped right after a job was
queued): the job existed and ran, but the move was reported "failed" and the
lookup failure was reported as "no job ... was found".
"""

from __future__ import annotations

import pytest
import requests

from ansible_collections.ganeti.htools.plugins.module_utils.live import executor
from ansible_collections.ganeti.htools.plugins.module_utils.live import rapi

PLAN = {
    "moves": [{"index": 1, "instance": "inst1",
               "opcodes": [{"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": "inst1",
                            "target_node": "node2"}]},
              {"index": 2, "instance": "inst2",
               "opcodes": [{"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": "inst2",
                            "target_node": "node3"}]}],
    "jobsets": [[1], [2]],
}


class Session:
    """Every request fails to connect (the PUT may have reached the server)."""

    def __init__(self):
        self.headers = {}
        self.auth = None
        self.calls = []

    def request(self, method, url, **_kwargs):
        self.calls.append((method, url))
        raise requests.exceptions.ConnectionError("connection reset")


def test_the_client_says_when_the_job_queue_could_not_be_searched():
    session = Session()
    client = rapi.RapiClient("https://cluster:5080", session=session, sleep=lambda _s: None)
    with pytest.raises(rapi.RapiSubmissionUnknown) as err:
        client.migrate_instance("inst1", "node2", reason="ganeti.htools:p:m1:o1")
    assert err.value.may_exist is True
    assert "could not be searched" in str(err.value) and "may have been queued" in str(err.value)
    assert [m for m, _u in session.calls] == ["PUT"] + ["GET"] * 5     # never re-submitted


def test_a_move_whose_submission_is_unknown_is_reported_unknown_not_failed():
    client = rapi.RapiClient("https://cluster:5080", session=Session(), sleep=lambda _s: None)
    with pytest.raises(executor.ExecutionError) as err:
        executor.execute_plan(client, PLAN, "ganeti.htools:p", sleep=lambda _s: None)
    report = err.value.report
    assert report["unknown"] == [1] and report["failed"] == [] and report["not_started"] == [2]
    assert report["moves"][0]["jobs"] == []
    assert "the cluster became unreachable" in str(err.value)
    assert "submitted, answer lost: move 1 (inst1)" in str(err.value)
