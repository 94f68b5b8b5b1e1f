# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TLS failures: a refused certificate is final, a handshake cut short is retried.

Found with the integration lab: stopping the RAPI relay while a request was in
its TLS handshake gave SSLEOFError, which was reported as "TLS verification
failed ... give the cluster's CA" and never retried.
"""

from __future__ import annotations

import ssl

import pytest
import requests
from urllib3.exceptions import MaxRetryError, SSLError as Urllib3SSLError

from ansible_collections.ganeti.htools.plugins.module_utils.live import rapi
from kit.fakes import Reply, ScriptedSession


def requests_ssl_error(cause):
    """What requests raises, wrapping urllib3's errors, for an ssl-module error."""
    wrapped = MaxRetryError(None, "/2/info", reason=Urllib3SSLError(cause))
    return requests.exceptions.SSLError(wrapped)


def client(script):
    session = ScriptedSession(script)
    return rapi.RapiClient("https://cluster.example.com:5080", session=session,
                           sleep=lambda _s: None), session


def test_a_refused_certificate_fails_at_once_and_names_ca_path():
    refused = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate "
                                              "verify failed: unable to get local issuer")
    cli, session = client([requests_ssl_error(refused)])
    with pytest.raises(rapi.RapiCertificateError) as err:
        cli.info()
    assert len(session.calls) == 1
    assert "TLS verification failed" in str(err.value) and "ca_path" in str(err.value)
    assert isinstance(err.value, rapi.RapiUnreachable)


def test_a_handshake_cut_short_is_a_connection_failure_and_is_retried():
    eof = ssl.SSLEOFError(8, "[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation "
                             "of protocol")
    cli, session = client([requests_ssl_error(eof), requests_ssl_error(eof),
                           Reply(200, {"name": "cluster"})])
    assert cli.info() == {"name": "cluster"}
    assert len(session.calls) == 3

    cli, session = client([requests_ssl_error(eof)] * 5)
    with pytest.raises(rapi.RapiUnreachable) as err:
        cli.info()
    assert len(session.calls) == 5 and not isinstance(err.value, rapi.RapiCertificateError)
    assert "TLS connection to https://cluster.example.com:5080 failed" in str(err.value)
    assert "ca_path" not in str(err.value)
