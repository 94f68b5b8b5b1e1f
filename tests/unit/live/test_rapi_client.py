# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RapiClient against a stubbed HTTP session: retries, typed errors, no double submission.

The same calls run against a real Ganeti cluster in tests/integration.
"""

from __future__ import annotations

import pytest
import requests

from ansible_collections.ganeti.htools.plugins.module_utils.live import audit, rapi
from ansible_collections.ganeti.htools.plugins.module_utils.version import COLLECTION_VERSION
from kit.fakes import NOT_JSON, Reply, ScriptedSession
from kit.fake_clock import FakeClock


def client(script, **kw):
    session = ScriptedSession(script)
    kw.setdefault("sleep", lambda _s: None)
    return rapi.RapiClient("https://cluster.example.com:5080", "user", "secret", session=session,
                           **kw), session


def test_tls_verification_is_on_by_default_and_sent_with_every_request():
    cli, session = client([Reply(200, {"name": "c"})])
    cli.info()
    assert session.calls[0]["verify"] is True
    cli, session = client([Reply(200, {})], ca_path="/etc/ca.pem")
    cli.info()
    assert session.calls[0]["verify"] == "/etc/ca.pem"
    cli, session = client([Reply(200, {})], validate_certs=False)
    cli.info()
    assert session.calls[0]["verify"] is False


def test_bare_host_gets_https_and_the_rapi_port():
    cli = rapi.RapiClient("cluster.example.com", session=ScriptedSession([]))
    assert cli.url == "https://cluster.example.com:5080"


@pytest.mark.parametrize("given, url", [
    ("cluster:5080", "https://cluster:5080"),           # once read as cluster:5080:5080
    ("cluster:9443", "https://cluster:9443"),
    ("[::1]", "https://[::1]:5080"),
    ("[::1]:5081", "https://[::1]:5081"),
    ("10.1.2.3/prefix/", "https://10.1.2.3:5080/prefix"),
    ("http://cluster", "http://cluster"),               # a scheme means: as written
])
def test_a_port_is_added_only_when_the_url_names_none(given, url):
    assert rapi.RapiClient(given, session=ScriptedSession([])).url == url


def test_a_bad_port_in_rapi_url_is_named():
    with pytest.raises(rapi.HtoolsError, match="rapi_url 'cluster:http'"):
        rapi.RapiClient("cluster:http", session=ScriptedSession([]))


def test_reads_are_retried_on_connection_errors_and_gateway_errors():
    cli, session = client([requests.exceptions.ConnectionError("refused"), Reply(502, {}),
                           Reply(200, [{"name": "node1"}]), Reply(200, [])])
    nodes = cli.nodes()
    assert [n["name"] for n in nodes] == ["node1"] and nodes[0]["tags"] == []
    assert len(session.calls) == 4
    assert session.calls[2]["params"] == {"bulk": 1}
    assert session.calls[3]["url"].endswith("/2/tags")


def test_nodes_show_the_run_marks_kept_as_cluster_tags_among_their_tags():
    cli, _session = client([Reply(200, [{"name": "node1", "tags": ["rack1"]}, {"name": "node2"}]),
                            Reply(200, ["ganeti.htools:rebooted:r1:node2", "site-a"])])
    nodes = {n["name"]: n["tags"] for n in cli.nodes()}
    assert nodes == {"node1": ["rack1"], "node2": ["ganeti.htools:rebooted:r1"]}


def test_reads_give_up_after_the_retries_with_a_typed_error():
    cli, session = client([requests.exceptions.ConnectionError("refused")] * 3, retries=2)
    with pytest.raises(rapi.RapiUnreachable) as err:
        cli.info()
    assert "cannot connect" in str(err.value)
    assert len(session.calls) == 3


@pytest.mark.parametrize("status, error, hint", [
    (401, rapi.RapiUnauthorized, "rapi_user"),
    (403, rapi.RapiForbidden, "write"),
    (404, rapi.RapiNotFound, "no such"),
    (500, rapi.RapiServerError, "boom"),
])
def test_http_errors_are_typed_and_not_retried(status, error, hint):
    body = {"code": status, "message": "no such thing" if status == 404 else "boom"}
    cli, session = client([Reply(status, body)])
    with pytest.raises(error) as err:
        cli.info()
    assert hint in str(err.value)
    assert len(session.calls) == 1


def test_submissions_are_never_retried():
    cli, session = client([Reply(502, {"message": "master unreachable"})])
    with pytest.raises(rapi.RapiServerError):
        cli.migrate_instance("inst1", reason="ganeti.htools:p1:m1:o1", allow_failover=True)
    assert [c["method"] for c in session.calls] == ["PUT"]


def test_a_lost_submission_answer_is_recovered_by_reason_not_resubmitted():
    reason = "ganeti.htools:plan1:m2:o1"
    jobs = [{"id": 41, "ops": [{"reason": [["gnt", "other", 1]]}]},
            {"id": 42, "ops": [{"reason": [["rapi", reason, 123]]}]}]
    cli, session = client([requests.exceptions.ReadTimeout("lost"), Reply(200, jobs)])
    assert cli.replace_disks("inst1", "node3", reason=reason) == 42
    assert [c["method"] for c in session.calls] == ["POST", "GET"]
    assert session.calls[0]["params"]["reason"] == reason
    assert session.calls[0]["data"]["remote_node"] == "node3"


def test_a_lost_submission_that_cannot_be_found_stops_with_a_clear_error():
    cli, session = client([requests.exceptions.ConnectionError("reset"), Reply(200, [])])
    with pytest.raises(rapi.RapiSubmissionUnknown) as err:
        cli.failover_instance("inst1", reason="ganeti.htools:p:m1:o1")
    assert "nothing more is submitted" in str(err.value)
    assert [c["method"] for c in session.calls] == ["PUT", "GET"]


def test_wait_job_long_polls_then_reports_the_failure_with_ganetis_message():
    failed = {"id": 7, "status": "error",
              "opresult": [["OpPrereqError", ["Node node3 is offline", "wrong_state"]]]}
    cli, session = client([Reply(200, None), Reply(200, {"job_info": ["running"]}),
                           Reply(200, {"job_info": ["error"]}), Reply(200, failed)])
    with pytest.raises(rapi.JobFailed) as err:
        cli.wait_job(7)
    assert "Node node3 is offline" in str(err.value)
    assert err.value.job_status == "error"
    assert [c["url"].rsplit("/", 1)[-1] for c in session.calls] == ["wait", "wait", "wait", "7"]


def test_wait_job_falls_back_to_polling_without_write_access():
    cli, session = client([Reply(403, {"message": "Forbidden"}), Reply(200, {"status": "running"}),
                           Reply(200, {"status": "success"}), Reply(200, {"status": "success"})])
    assert cli.wait_job(9)["status"] == "success"
    assert len(session.calls) == 4


def test_a_non_json_answer_is_a_clear_error():
    cli, _session = client([Reply(200, NOT_JSON)])
    with pytest.raises(rapi.RapiError) as err:
        cli.info()
    assert "not JSON" in str(err.value)


def test_node_role_and_tag_bodies():
    cli, session = client([Reply(200, 1), Reply(200, 2), Reply(200, "3")])
    assert cli.set_node_role("node2", "offline", force=True) == 1
    assert cli.add_cluster_tags(["a:b"]) == 2
    assert cli.delete_cluster_tags(["a:b"]) == 3
    role, add, delete = session.calls
    assert (role["method"], role["data"], role["params"]) == ("PUT", "offline", {"force": 1})
    assert (add["method"], add["params"]) == ("PUT", {"tag": ["a:b"]})
    assert delete["method"] == "DELETE"


def test_disk_status_is_a_job_per_instance_and_activation_a_put():
    cli, session = client([Reply(200, 11), Reply(200, 12), Reply(200, 13)])
    assert cli.query_instance_data(["i1", "i2"], reason="q") == [(["i1"], 11), (["i2"], 12)]
    assert cli.activate_disks("i2", reason="a") == 13
    first, second, activate = session.calls
    assert (first["method"], first["url"].rsplit("/2/", 1)[1]) == ("GET", "instances/i1/info")
    assert first["params"] == {"static": 0, "reason": "q:0"}
    assert second["params"]["reason"] == "q:1"          # unique per submission
    assert (activate["method"], activate["url"].rsplit("/2/", 1)[1], activate["data"]) == \
        ("PUT", "instances/i2/activate-disks", None)


def test_the_audit_names_the_run_in_the_reason_and_sets_the_priority():
    cli, session = client([Reply(200, 7), Reply(200, 8)])
    cli.audit = audit.JobAudit("ganeti_balance", "AWX 42", "low").for_plan("sha256:f00")
    cli.migrate_instance("inst1", reason="ganeti.htools:p1:m1:o1", allow_failover=True)
    cli.add_cluster_tags(["t"], reason="ganeti.htools:p1:lock-take:1")
    move, tag = session.calls
    assert move["params"]["reason"] == (
        "ganeti.htools:p1:m1:o1 (ganeti.htools.ganeti_balance %s, plan sha256:f00): AWX 42"
        % COLLECTION_VERSION)
    assert move["data"]["priority"] == 10
    # a tag job has no body for RAPI to take a priority from
    assert tag["data"] is None and tag["params"]["reason"].startswith(
        "ganeti.htools:p1:lock-take:1 (ganeti.htools.ganeti_balance")


def test_timeout_bounds_a_read_with_its_retries_and_the_error_says_so():
    clock = FakeClock()

    class SlowSession(ScriptedSession):
        timeouts = []

        def request(self, method, url, params=None, data=None, timeout=None, verify=None):
            self.timeouts.append(timeout)
            clock.now += timeout                # each attempt waits all it is given
            return super().request(method, url, params, data, timeout, verify)

    session = SlowSession([requests.exceptions.ConnectionError("refused")] * 10)
    cli = rapi.RapiClient("https://cluster.example.com:5080", session=session, timeout=5.0,
                          sleep=clock.sleep, clock=clock)
    with pytest.raises(rapi.RapiUnreachable) as err:
        cli.info()
    assert clock.now <= 5.0 + 1e-9
    assert session.timeouts == [5.0]
    assert "gave up after 1 attempt in 5s (timeout 5s" in str(err.value)


def test_quick_failures_are_retried_within_the_timeout_and_counted():
    clock = FakeClock()
    cli, session = client([requests.exceptions.ConnectionError("refused")] * 10,
                          timeout=60.0, sleep=clock.sleep, clock=clock)
    with pytest.raises(rapi.RapiUnreachable) as err:
        cli.info()
    assert len(session.calls) == 5                     # the first try and 4 retries
    assert "gave up after 5 attempts in" in str(err.value)
    assert clock.now < 60.0


def test_a_query_string_in_the_url_is_refused_and_not_echoed():
    with pytest.raises(rapi.HtoolsError) as err:
        rapi.RapiClient("https://cluster:5080/?password=S3cr3t", session=ScriptedSession([]))
    assert "S3cr3t" not in str(err.value)
