# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RAPI connections through the ansible CLI against listeners on 127.0.0.1: no
credentials in clear text, none in the URL, and `timeout` as the whole wait."""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest

from kit.ansible_cli import run_module, run_playbook, run_with

INFO = 'ganeti.htools.ganeti_cluster_info'
SECRET = 'Pl4inS3cretPw'


class Listener:
    """A TCP listener on 127.0.0.1 that records what each connection sends
    and when it is opened and closed; it answers `reply` (None: never)."""

    def __init__(self, reply=None):
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = []           # [opened, closed, bytes received]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                return
            record = [time.monotonic(), None, b'']
            with self._lock:
                self.connections.append(record)
            threading.Thread(target=self._serve, args=(conn, record), daemon=True).start()

    def _serve(self, conn, record):
        with conn:
            while True:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    chunk = b''
                if not chunk:
                    record[1] = time.monotonic()
                    return
                record[2] += chunk
                if self.reply is not None and b'\r\n\r\n' in record[2]:
                    conn.sendall(self.reply)

    def received(self):
        with self._lock:
            return b''.join(c[2] for c in self.connections)

    def close(self):
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener(reply=b'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n'
                            b'Content-Length: 2\r\nConnection: close\r\n\r\n{}')
    yield server
    server.close()


def test_credentials_are_not_sent_over_plain_http(tmp_path, listener):
    params = dict(rapi_url='http://127.0.0.1:%d' % listener.port, rapi_user='admin',
                  rapi_password=SECRET, timeout=5)
    status, result, output = run_with(tmp_path, INFO, params)
    assert status == 'FAILED!', output
    assert 'rapi_url is plain http:// and RAPI credentials are set' in result['msg']
    assert 'rapi_allow_plain_http' in result['msg']
    assert SECRET not in output
    assert listener.connections == []           # nothing at all was sent
    # ... and the same test sees the credentials when the operator accepts plain HTTP
    status, result, output = run_with(tmp_path, INFO, dict(params, rapi_allow_plain_http=True))
    assert status == 'FAILED!', output
    assert b'Authorization: Basic ' in listener.received()


def test_credentials_from_the_environment_are_not_sent_over_plain_http(tmp_path, listener):
    status, result, output = run_module(
        tmp_path, INFO, '-a', 'rapi_url=http://127.0.0.1:%d timeout=5' % listener.port,
        extra_env={'GANETI_RAPI_USER': 'admin', 'GANETI_RAPI_PASSWORD': SECRET})
    assert status == 'FAILED!', output
    assert 'GANETI_RAPI_USER/GANETI_RAPI_PASSWORD' in result['msg']
    assert SECRET not in output
    assert listener.connections == []


def test_plain_http_without_credentials_is_accepted(tmp_path, listener):
    status, result, output = run_with(tmp_path, INFO, dict(
        rapi_url='http://127.0.0.1:%d' % listener.port, timeout=5))
    assert status == 'FAILED!', output          # the listener answers 401 to everything
    assert 'HTTP 401' in result['msg']
    assert b'Authorization' not in listener.received()


@pytest.mark.parametrize('url', ['https://127.0.0.1:{port}/?password=%s' % SECRET,
                                 'https://127.0.0.1:{port}/#%s' % SECRET,
                                 '127.0.0.1:{port}?user=admin&password=%s' % SECRET])
def test_credentials_in_the_query_are_refused_and_never_shown(tmp_path, listener, url):
    # (ansible-core 2.19's ad hoc CLI echoes the task's raw arguments itself
    # when a task fails, cut at some width: a play is how secrets are given,
    # see the README's Security section; the module's result never holds it)
    status, result, output = run_with(tmp_path, INFO, dict(
        rapi_url=url.format(port=listener.port), timeout=5))
    assert status == 'FAILED!', output
    assert 'rapi_url must not contain credentials, nor any query string' in result['msg']
    assert SECRET not in json.dumps(result)
    assert listener.connections == []


def test_credentials_in_the_query_never_shown_by_a_play(tmp_path, listener):
    playbook = tmp_path / 'query.yml'
    playbook.write_text(PLAY % ('https://127.0.0.1:%d/?password=%s' % (listener.port, SECRET)))
    returncode, output, _stdout = run_playbook(tmp_path, str(playbook), '-vvvv')
    assert returncode != 0, output
    assert 'rapi_url must not contain credentials' in output
    assert SECRET not in output
    assert listener.connections == []


PLAY = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ganeti.htools.ganeti_cluster_info:
        rapi_url: "%s"
"""


def test_timeout_bounds_the_whole_wait_on_a_silent_master(tmp_path):
    silent = Listener(reply=None)           # accepts TCP, never answers
    try:
        status, result, output = run_with(tmp_path, INFO, dict(
            rapi_url='https://127.0.0.1:%d' % silent.port, timeout=3))
        waited = max(c[1] or time.monotonic() for c in silent.connections) \
            - min(c[0] for c in silent.connections)
    finally:
        silent.close()
    assert status == 'FAILED!', output
    assert 'no answer within 3s' in result['msg']
    assert re.search(r'gave up after 1 attempt in 3(\.[0-9])?s \(timeout 3s bounds each call',
                     result['msg']), result['msg']
    assert len(silent.connections) == 1
    assert 2.5 <= waited <= 4.5, waited
