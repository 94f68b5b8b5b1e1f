# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(b) balancing the live cluster with the example playbook, (c) stale plans."""

from __future__ import annotations

import os
import re
import subprocess
import threading

from kit.paths import REPO_ROOT

from ansible_collections.ganeti.htools.plugins.module_utils.plan.envelope import plan_state

PLAYBOOK = os.path.join(REPO_ROOT, 'playbooks', 'balance_live.yml')
DONE = ('No solution found', 'already well balanced')


class ProcessWatch:
    """Samples the process list (`ps`) while a run is under way."""

    def __init__(self):
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            proc = subprocess.run(['ps', '-eww', '-o', 'pid=,args='], capture_output=True,
                                  text=True, check=False)
            self.samples.append(proc.stdout)
            self._stop.wait(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def mentioning(self, text):
        return [line for sample in self.samples for line in sample.splitlines() if text in line]

    def saw(self, text):
        return any(text in sample for sample in self.samples)


def _balanced(lab):
    out = lab.hbal()
    return any(marker in out for marker in DONE), out


def test_playbook_balances_the_live_cluster(fresh, tmp_path):
    lab = fresh
    placement = lab.placement()
    jobs = [(j['id'], j['status']) for j in lab.jobs()]
    done, hbal_before = _balanced(lab)
    assert not done, hbal_before

    # check mode first: the plan is shown, nothing changes (credentials from
    # the GANETI_RAPI_* environment)
    with ProcessWatch() as watch:
        rc, out = lab.run_playbook(tmp_path, PLAYBOOK, '--check', '-vvv')
    assert rc == 0, out
    # hbal's failover to any node (a=fa:nodeN), in the result's plain words
    assert 'Cluster score improved from' in out
    # the run prints its results as YAML (ansible.cfg, kit.lab): description: ...
    assert re.search(r'description"?: "?(migrate|failover) to node\d', out), out
    assert lab.placement() == placement
    assert [(j['id'], j['status']) for j in lab.jobs()] == jobs
    assert not lab.lock_tags()
    outputs, watches = [out], [watch]

    # for real, until hbal has nothing left to do; this time the credentials
    # and the URL come as extra variables from a file (not on the command line)
    creds = tmp_path / 'ganeti-credentials.yml'
    creds.write_text('ganeti_rapi_url: %s\nganeti_rapi_user: %s\nganeti_rapi_password: %s\n'
                     'ganeti_rapi_ca_path: %s\n' % (lab.url, lab.user, lab.password, lab.ca))
    env = {k: v for k, v in lab.env().items() if not k.startswith('GANETI_RAPI_')}
    runs = 0
    while not done:
        assert runs < 3, 'still not balanced after %d runs:\n%s' % (runs, hbal_before)
        with ProcessWatch() as watch:
            rc, out = lab.run_playbook(tmp_path, PLAYBOOK, '-vvv', '-e', '@%s' % creds, env=env)
        assert rc == 0, out
        outputs.append(out)
        watches.append(watch)
        runs += 1
        done, hbal_before = _balanced(lab)
    assert runs >= 1
    assert 'moves done' in outputs[1]
    counts = {}
    for node in lab.placement().values():
        counts[node] = counts.get(node, 0) + 1
    assert sorted(counts) == sorted(lab.nodes()) and max(counts.values()) - min(counts.values()) <= 1
    assert not lab.lock_tags()

    # (f) the password never shows: not in -vvv output, not in the process list
    assert all(watch.samples for watch in watches)
    for text in outputs:
        assert lab.password not in text
        assert 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER' in text     # -vvv did print the args
    for watch in watches:
        assert not watch.saw(lab.password), watch.mentioning(lab.password)
    assert any(watch.saw('ansible-playbook') for watch in watches)


def test_a_stale_plan_is_refused_and_replanned_on_request(fresh, tmp_path):
    lab = fresh
    status, proposal, output = lab.run_module(tmp_path, 'ganeti_balance', check=True)
    assert status == 'CHANGED', output
    plan = proposal['plan']
    moved = {m['instance'] for m in plan['moves']}
    bystander = sorted(set(lab.seeded) - moved)[0]

    # the cluster changes after the plan was made
    lab.migrate(bystander, 'node3')
    jobs = [(j['id'], j['status']) for j in lab.jobs()]
    placement = lab.placement()

    status, result, output = lab.run_module(tmp_path, 'ganeti_balance', {'plan': plan})
    assert status == 'FAILED', output
    assert 'the plan is stale' in result['msg'] and 'nothing was executed' in result['msg']
    assert any(line.startswith('instance %s: primary node1 -> node3' % bystander)
               for line in result['drift']), result['drift']
    assert result['replanned'] is False and 'execution' not in result
    assert [(j['id'], j['status']) for j in lab.jobs()] == jobs
    assert lab.placement() == placement and not lab.lock_tags()

    # the same plan with replan_on_drift: a fresh plan is computed and executed
    status, result, output = lab.run_module(tmp_path, 'ganeti_balance',
                                            {'plan': plan, 'replan_on_drift': True})
    assert status == 'CHANGED', output
    assert result['replanned'] is True
    assert any(bystander in line for line in result['drift'])
    fresh_plan = result['plan']
    assert fresh_plan['plan_id'] != plan['plan_id']
    assert plan_state(fresh_plan)['instances'][bystander][0] == 'node3'
    execution = result['execution']
    assert execution['succeeded'] == [m['index'] for m in fresh_plan['moves']]
    assert not execution['failed'] and not execution['unknown']
    after = lab.placement()
    for move in fresh_plan['moves']:
        assert after[move['instance']] == move['new_primary']
    # every job of the run carries the fresh plan's id, none the stale one's
    assert not lab.jobs_with_reason(plan['plan_id'])
    ran = lab.jobs_with_reason(fresh_plan['plan_id'])
    assert len(ran) == len(fresh_plan['moves']) + 2          # + lock take and release
    assert all(j['status'] == 'success' for j in ran)
    assert not lab.lock_tags()
