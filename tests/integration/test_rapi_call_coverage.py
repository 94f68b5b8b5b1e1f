# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(h) Every RAPI call the collection makes was made against the real cluster.

Runs last (see conftest.py).  Evidence comes from the master's RAPI log, which
shows each request with its peer address: the collection's requests arrive
through the main relay, the tests' own checks and hbal through the helper
relay.  RAPI_CALLS.md lists which test makes which call (and, separately, the LUXI calls).
"""

from __future__ import annotations

import re

import pytest

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

# the tests that make the calls above (RAPI_CALLS.md); without them this
# check means nothing
PROVIDERS = (
    'test_cluster_info_scores_the_live_cluster_like_hbal',
    'test_playbook_balances_the_live_cluster',
    'test_a_failed_job_stops_the_plan',
    'test_reads_and_version',
    'test_failover_and_wait_job',
    'test_replace_disks_refusal_surfaces_as_job_failed',
    'test_a_lost_submission_answer_is_recovered_without_resubmitting',
    'test_evacuating_a_node_drains_it_and_empties_it',
    'test_drain_tag_undrain_and_wait_for_the_node',
    'test_units_read_over_rapi_are_what_the_nodes_report',
    'test_disks_in_sync_reads_and_reattaches_on_the_real_cluster[rapi]',
)


def _matches(call, expected):
    method, path, query, _status = call
    want_method, want_path, want_query = expected
    return (method == want_method and re.fullmatch(want_path, path) is not None
            and (want_query is None or want_query in query.split('&')
                 or any(part.startswith(want_query) for part in query.split('&'))))


def test_every_rapi_call_of_the_collection_was_exercised(lab, request):
    selected = {item.name for item in request.session.items}
    missing_tests = [name for name in PROVIDERS if name not in selected]
    if missing_tests:
        pytest.skip('needs the whole integration suite; not selected: %s' % missing_tests)

    calls = lab.collection_calls()
    assert calls, 'no request of the collection in the RAPI log'
    unexpected = sorted({(c[0], c[1]) for c in calls if not any(_matches(c, e) for e in EXPECTED)})
    assert not unexpected, 'calls not listed in RAPI_CALLS.md: %s' % unexpected
    never = [e for e in EXPECTED
             if not any(_matches(c, e) and c[3] == 200 for c in calls)]
    assert not never, 'never made successfully: %s' % never
