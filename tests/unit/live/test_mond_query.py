# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Asking the nodes' MonDs: real HTTP on loopback addresses, one per "node".

127.0.0.2 answers with a report, 127.0.0.3 accepts connections and never
answers, 127.0.0.4 refuses them, 127.0.0.5 answers 404 and 127.0.0.6 answers
something that is not a report.  Every node is asked at once, so the silent
nodes cost one timeout in all, not one each.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.live.mond import (
    query_monds, report_url)

REPORT = {"name": "cpu-avg-load", "version": "B", "format_version": 1, "timestamp": 1,
          "category": None, "kind": 0,
          "data": {"cpu_number": 2, "cpus": [0.25, 0.5], "cpu_total": 0.75}}


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.2", 0))
        return sock.getsockname()[1]


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):           # noqa: N802 - the http.server name
        host = self.server.server_address[0]
        self.server.paths.append(self.path)
        if host == "127.0.0.5":
            self.send_error(404)
            return
        body = json.dumps(REPORT if host == "127.0.0.2" else {"busy": True}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args):
        pass


@pytest.fixture
def monds():
    port = _free_port()
    servers = []
    for host in ("127.0.0.2", "127.0.0.5", "127.0.0.6"):
        server = http.server.ThreadingHTTPServer((host, port), _Handler)
        server.paths = []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    silent = socket.socket()          # listens, never accepts: the query hangs
    silent.bind(("127.0.0.3", port))
    silent.listen(8)
    yield port, servers[0]
    for server in servers:
        server.shutdown()
        server.server_close()
    silent.close()


def test_every_node_is_asked_at_once_and_the_silent_ones_cost_one_timeout(monds):
    port, good = monds
    nodes = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"]
    started = time.monotonic()
    reports, failures = query_monds(nodes, "cpu-avg-load", port=port, timeout=1.5)
    took = time.monotonic() - started
    assert reports == {"127.0.0.2": [REPORT]}
    assert good.paths == ["/1/report/default/cpu-avg-load"]
    assert failures["127.0.0.3"] == "no answer within 1.5s"
    assert "refused" in failures["127.0.0.4"].lower()
    assert failures["127.0.0.5"].startswith("HTTP 404")
    assert "no 'name'" in failures["127.0.0.6"]
    assert list(failures) == nodes[1:]
    assert took < 1.5 + 1.5, "a round took %.1fs" % took


def test_many_silent_nodes_still_cost_one_timeout():
    calls = []

    def hang(url, timeout):
        calls.append(url)
        time.sleep(timeout)
        raise TimeoutError("timed out")

    names = ["node%d" % i for i in range(40)]
    started = time.monotonic()
    reports, failures = query_monds(names, "cpu-avg-load", timeout=0.5, fetch=hang)
    assert time.monotonic() - started < 2.0
    assert reports == {} and sorted(failures) == sorted(names) and len(calls) == 40


def test_report_urls_name_node_port_and_collector():
    assert report_url("node1.example.com", "cpu-avg-load") == \
        "http://node1.example.com:1815/1/report/default/cpu-avg-load"
    assert report_url("::1", "xen-cpu-avg-load", 9) == \
        "http://[::1]:9/1/report/default/xen-cpu-avg-load"
