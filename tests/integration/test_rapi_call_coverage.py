# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(h) Every RAPI call the collection makes was made against the real cluster.

Runs last (see conftest.py).  Evidence comes from the master's RAPI log, which
shows each request with its peer address: the collection's requests arrive
through the main relay, the tests' own checks and hbal through the helper
relay.  RAPI_CALLS.md lists which test makes which call (and, separately, the LUXI calls).
Under pytest-xdist each worker has a lab of its own: conftest.py sends this
test and the files of its PROVIDERS to the same worker.
"""

from __future__ import annotations

import pytest

from kit.rapi_calls import EXPECTED, matches, unexpected_calls

# the tests that make the calls of EXPECTED (RAPI_CALLS.md); without them this
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


def test_every_rapi_call_of_the_collection_was_exercised(lab, request):
    selected = {item.name for item in request.session.items}
    missing_tests = [name for name in PROVIDERS if name not in selected]
    if missing_tests:
        pytest.skip('needs the whole integration suite; not selected: %s' % missing_tests)

    calls = lab.collection_calls()
    assert calls, 'no request of the collection in the RAPI log'
    unexpected = unexpected_calls(calls)
    assert not unexpected, 'calls not listed in RAPI_CALLS.md: %s' % unexpected
    never = [e for e in EXPECTED
             if not any(matches(c, e) and c[3] == 200 for c in calls)]
    assert not never, 'never made successfully: %s' % never
