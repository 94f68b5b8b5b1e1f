# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-ins for the HTTP layer under the collection's RapiClient.

``ScriptedSession`` takes the place of a ``requests.Session``: it answers
each request with the next entry of its script (a ``Reply``, or an exception
to raise) and records what was asked.
"""

from __future__ import annotations

import json

NOT_JSON = object()     # a Reply body that is not JSON

_REASONS = {200: "OK", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            500: "Internal Server Error", 502: "Bad Gateway"}


class Reply:
    """An HTTP answer: status code, reason phrase and a JSON body (or NOT_JSON)."""

    def __init__(self, status, body):
        self.status_code = status
        self.reason = _REASONS.get(status, "?")
        self._body = body

    def json(self):
        if self._body is NOT_JSON:
            raise ValueError("not json")
        return self._body


class ScriptedSession:
    """Scripted answers: each entry is a Reply or an exception to raise.

    ``calls`` records every request as a dict (method, url, params, the
    decoded JSON body as ``data``, verify).
    """

    def __init__(self, script):
        self.script = list(script)
        self.calls = []
        self.headers = {}
        self.auth = None

    def request(self, method, url, params=None, data=None, timeout=None, verify=None):
        self.calls.append(dict(method=method, url=url, params=params,
                               data=json.loads(data) if data else None, verify=verify))
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step
