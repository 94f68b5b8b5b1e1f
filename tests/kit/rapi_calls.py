# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The RAPI calls the collection may make (tests/integration/RAPI_CALLS.md).

The coverage test checks that each was made against the real cluster; every
lab's fixture checks, before the lab goes down, that the collection made no
other call (with two labs, one per pytest-xdist worker, the coverage test sees
only its own lab's log).
"""

from __future__ import annotations

import re

# method, path, a query parameter the collection always sends with it
EXPECTED = [
    ('GET', r'/version', None),
    ('GET', r'/2/info', None),
    ('GET', r'/2/nodes', 'bulk=1'),
    ('GET', r'/2/nodes/[^/]+', None),
    ('GET', r'/2/instances', 'bulk=1'),
    ('GET', r'/2/groups', 'bulk=1'),
    ('GET', r'/2/tags', None),
    ('GET', r'/2/jobs/\d+', None),
    ('GET', r'/2/jobs/\d+/wait', None),
    ('GET', r'/2/jobs', 'bulk=1'),
    ('GET', r'/2/nodes/[^/]+/storage', 'storage_type='),
    ('GET', r'/2/instances/[^/]+/info', 'static=0'),
    ('PUT', r'/2/instances/[^/]+/activate-disks', 'reason='),
    ('PUT', r'/2/instances/[^/]+/migrate', 'reason='),
    ('PUT', r'/2/instances/[^/]+/failover', 'reason='),
    ('POST', r'/2/instances/[^/]+/replace-disks', 'reason='),
    ('PUT', r'/2/nodes/[^/]+/role', 'force=1'),
    ('POST', r'/2/nodes/[^/]+/modify', 'reason='),
    ('PUT', r'/2/nodes/[^/]+/tags', 'tag='),
    ('DELETE', r'/2/nodes/[^/]+/tags', 'tag='),
    ('PUT', r'/2/tags', 'tag='),
    ('DELETE', r'/2/tags', 'tag='),
]


def matches(call, expected):
    method, path, query, _status = call
    want_method, want_path, want_query = expected
    return (method == want_method and re.fullmatch(want_path, path) is not None
            and (want_query is None or want_query in query.split('&')
                 or any(part.startswith(want_query) for part in query.split('&'))))


def unexpected_calls(calls):
    """The (method, path) of the calls that match no EXPECTED entry."""
    return sorted({(c[0], c[1]) for c in calls if not any(matches(c, e) for e in EXPECTED)})
