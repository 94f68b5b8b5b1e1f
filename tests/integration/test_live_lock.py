# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(g) the cluster lock: concurrent runs, and a stale lock left by a dead run."""

from __future__ import annotations

from kit.lab import LOCK_PREFIX, result


def test_of_two_concurrent_runs_exactly_one_balances(fresh, tmp_path):
    lab = fresh
    first = tmp_path / 'a'
    second = tmp_path / 'b'
    first.mkdir()
    second.mkdir()
    procs = [lab.start_module(first, 'ganeti_balance'), lab.start_module(second, 'ganeti_balance')]
    outcomes = [result(proc) for proc in procs]

    won = [o for o in outcomes if o[0] == 'CHANGED']
    lost = [o for o in outcomes if o[0] == 'FAILED']
    assert len(won) == 1 and len(lost) == 1, [(o[0], o[1].get('msg')) for o in outcomes]
    _status, winner, _output = won[0]
    _status, loser, output = lost[0]
    assert 'the cluster is locked by another ganeti.htools run' in loser['msg'], output
    assert LOCK_PREFIX in loser['msg']
    assert 'execution' not in loser and 'Traceback' not in output
    assert winner['execution']['succeeded'] == [m['index'] for m in winner['moves']]

    # only the winner's plan moved instances; no lock is left behind
    assert not [j for j in lab.jobs_with_reason(loser['plan']['plan_id'])
                if ':m' in ' '.join(lab.reasons(j))]
    assert not lab.lock_tags()
    assert 'No solution found' in lab.hbal()


def test_an_expired_lock_is_taken_over(fresh, tmp_path):
    lab = fresh
    stale = '%sdead-host.4242.0123456789ab:1000000000' % LOCK_PREFIX     # expired in 2001
    lab.run_job('PUT', '/2/tags', tag=[stale])
    assert lab.lock_tags() == [stale]

    status, outcome, output = lab.run_module(tmp_path, 'ganeti_balance')
    assert status == 'CHANGED', output
    assert outcome['execution']['succeeded'] == [m['index'] for m in outcome['moves']]
    assert not lab.lock_tags()
    takeover = [j for j in lab.jobs_with_reason(outcome['plan']['plan_id'])
                if any(':lock-takeover:' in r for r in lab.reasons(j))]
    assert len(takeover) == 1 and takeover[0]['summary'] == ['TAGS_DEL']
    assert takeover[0]['status'] == 'success'


def test_a_live_lock_is_respected(fresh, tmp_path):
    lab = fresh
    held = '%sother-host.4242.0123456789ab:4102444800' % LOCK_PREFIX     # expires in 2100
    lab.run_job('PUT', '/2/tags', tag=[held])
    jobs = [(j['id'], j['status']) for j in lab.jobs()]
    status, outcome, output = lab.run_module(tmp_path, 'ganeti_balance')
    assert status == 'FAILED', output
    assert 'locked by another ganeti.htools run (other-host.4242.0123456789ab)' in outcome['msg']
    assert [(j['id'], j['status']) for j in lab.jobs()] == jobs     # nothing submitted at all
    assert lab.lock_tags() == [held]
