# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling_reboot role on the real cluster: check mode, a whole roll, a
refused migration stopping the roll, the same run resumed, the master skipped
or failed over, a wave's nodes down together, a node that does not come back,
the controller killed (kill -9) after the drain and during a reboot.

"Reboot" is tests/lab/reboot-node.sh, started in the background by the lab's
hooks (tests/lab/hooks): the node's Ganeti daemons stop and start again, and
its stand-in boot id (tests/lab/boot-id.sh) changes; it logs what the master
saw of the node as it went down."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

from kit.ansible_cli import tool
from kit.paths import LAB_DIR
from kit.processes import descendants
from kit.run_marks import kept_marks, marks_left

PLAYBOOK = os.path.join(os.path.dirname(__file__), 'files', 'rolling_reboot.yml')
STARVE = os.path.join(os.path.dirname(__file__), 'files', 'starve_memory.yml')
RUN_TAG = re.compile(r'^ganeti\.htools:')


class Roll:
    """Runs of the role against the lab, and what they left."""

    def __init__(self, lab, tmp_path):
        self.lab, self.tmp_path = lab, tmp_path
        self.log = os.path.join(lab.base, 'reboots.log')
        self.offset = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        self.report_file = str(tmp_path / 'report.json')

    def env(self, reboot_seconds=1, never=()):
        return self.lab.env(GNTLAB_NS=self.lab.ns, GNTLAB_BASE=self.lab.base,
                            GNTLAB_SCRIPTS=LAB_DIR, GNTLAB_REBOOT_SECONDS=str(reboot_seconds),
                            GNTLAB_REBOOT_NEVER=','.join(never),
                            ROLLING_REBOOT_REPORT=self.report_file)

    def run(self, *args, reboot_seconds=1, never=(), **role_vars):
        if os.path.exists(self.report_file):
            os.remove(self.report_file)
        env = dict(self.env(reboot_seconds, never), ANSIBLE_CALLBACK_RESULT_FORMAT='yaml')
        # a whole roll takes minutes on a loaded machine
        proc = subprocess.run([tool('ansible-playbook'), PLAYBOOK, '-e', json.dumps(role_vars)]
                              + list(args), cwd=str(self.tmp_path), env=env, capture_output=True,
                              text=True, timeout=2400, check=False)
        return proc.returncode, self.report(), proc.stdout + proc.stderr

    def report(self):
        if not os.path.exists(self.report_file):
            return None
        with open(self.report_file, encoding='utf-8') as handle:
            return json.load(handle)

    def start(self, reboot_seconds=1, **role_vars):
        """The same run in the background, to be killed."""
        env = dict(self.env(reboot_seconds), ANSIBLE_CALLBACK_RESULT_FORMAT='yaml')
        return subprocess.Popen([tool('ansible-playbook'), PLAYBOOK, '-e', json.dumps(role_vars)],
                                cwd=str(self.tmp_path), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def reboots(self):
        """[(node, drained, primaries)] of the reboots since this object was made."""
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding='utf-8') as handle:
            handle.seek(self.offset)
            found = re.findall(r' start (\S+) drained=(\S) primaries=(\d+)', handle.read())
        return [(node, drained, int(count)) for node, drained, count in found]

    def run_tags(self):
        """Every run mark left for a node (kept as a cluster tag or on the node),
        and the cluster's lock tags."""
        return marks_left(self.lab), self.lab.lock_tags()


def _spread_and_tag(lab, tmp_path, nodes):
    status, _result, output = lab.run_module(tmp_path, 'ganeti_balance', {})
    assert status == 'CHANGED', output
    for node in nodes:
        lab.run_job('PUT', '/2/nodes/%s/tags' % node, tag='reboot')
    placement = lab.placement()
    assert len(set(placement.values())) == 3, placement
    return placement


def _untag(lab):
    for name, node in lab.nodes().items():
        ours = [t for t in node['tags'] if t == 'reboot' or RUN_TAG.match(t)]
        if ours:
            lab.run_job('DELETE', '/2/nodes/%s/tags' % name, tag=ours)
    kept = kept_marks(lab)
    if kept:
        lab.run_job('DELETE', '/2/tags', tag=kept)


def _flags(lab):
    return {name: (node['drained'], node['offline'], node['master_candidate'], sorted(node['tags']))
            for name, node in lab.nodes().items()}


def _assert_back_to_normal(lab, roll, placement):
    assert lab.placement() == placement
    nodes = lab.nodes()
    assert not [n for n, node in nodes.items() if node['drained'] or node['offline']], nodes
    assert all(node['master_candidate'] for node in nodes.values())
    assert roll.run_tags() == ({}, [])
    assert all(i['status'] == 'running' for i in lab.instances().values())


def test_check_mode_changes_nothing(fresh, tmp_path):
    # the whole roll of tagged nodes is the molecule scenario's (make molecule)
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        jobs = sorted(j['id'] for j in lab.jobs())
        flags = _flags(lab)

        rc, report, output = roll.run('--check', rolling_reboot_node_tags=['reboot'])
        assert rc == 0, output
        assert report['status'] == 'check mode', report
        assert report['summary'] == 'rolling reboot default (check mode): 1 wave(s): node2+node3'
        [wave] = report['waves']
        moved = sorted(name for name, node in placement.items() if node in ('node2', 'node3'))
        assert sorted(m['instance'] for m in wave['moves_away']) == moved
        assert sorted(j['id'] for j in lab.jobs()) == jobs       # nothing submitted
        assert roll.reboots() == [] and lab.placement() == placement
        assert _flags(lab) == flags and not lab.lock_tags()
    finally:
        _untag(lab)


def test_a_refused_migration_stops_the_roll_and_the_same_run_resumes(fresh, tmp_path):
    lab = fresh
    meminfo = os.path.join(lab.base, 'meminfo')
    with open(meminfo, encoding='utf-8') as handle:
        memory = handle.read()
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        # the capacity pre-flight would refuse the starved wave before draining
        # (test_the_capacity_preflight_refuses_a_wave_that_does_not_fit): off, so
        # that Ganeti itself refuses the migrations after the drain
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='resume-1',
                                      rolling_reboot_pre_wave_tasks=STARVE,
                                      rolling_reboot_capacity_check=False)
        assert rc != 0, output
        assert report['status'] == 'failed', report
        assert report['stopped_at'].startswith('wave 1 (node2, node3), step migrate away:')
        assert 'memory' in report['stopped_at'].lower(), report['stopped_at']
        assert roll.reboots() == []
        nodes = lab.nodes()
        assert nodes['node2']['drained'] and nodes['node3']['drained']     # left drained
        tags, locks = roll.run_tags()
        assert 'ganeti.htools:rolling:resume-1' in tags['node2'] and not locks
        assert lab.placement() == placement       # every migration was refused

        with open(meminfo, 'w', encoding='utf-8') as handle:     # in place: bind-mounted
            handle.write(memory)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='resume-1')
        assert rc == 0, output
        assert report['status'] == 'done' and report['waves'][0]['resumed'] is True, report
        assert sorted(roll.reboots()) == [('node2', 'Y', 0), ('node3', 'Y', 0)]
        _assert_back_to_normal(lab, roll, placement)
    finally:
        with open(meminfo, 'w', encoding='utf-8') as handle:
            handle.write(memory)
        _untag(lab)


def test_the_capacity_preflight_refuses_a_wave_that_does_not_fit(fresh, tmp_path):
    """The pre-wave hook leaves every node 64 MiB of free memory: the 512 MiB
    instances of node2 and node3 find no room on node1 while the wave is down.
    The pre-flight reads the cluster again after the hook and stops the run
    before anything of the wave is done."""
    lab = fresh
    meminfo = os.path.join(lab.base, 'meminfo')
    with open(meminfo, encoding='utf-8') as handle:
        memory = handle.read()
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        jobs = sorted(j['id'] for j in lab.jobs())
        flags = _flags(lab)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='preflight-1',
                                      rolling_reboot_pre_wave_tasks=STARVE)
        assert rc != 0, output
        assert report['status'] == 'failed', report
        stopped = report['stopped_at']
        assert stopped.startswith('wave 1 (node2, node3), step capacity pre-flight:'), stopped
        assert 'nothing was drained' in stopped
        moving = sorted(name for name, node in placement.items() if node in ('node2', 'node3'))
        named = re.search(r'wave 1: (\S+) does not fit on (\S+) while the wave is down: it '
                          r'needs (\d+) MiB of memory, (-?\d+) MiB are left there', stopped)
        assert named, stopped
        assert named.group(1) in moving and named.group(2) == 'node1'
        assert int(named.group(3)) == 512 and int(named.group(4)) < 512
        # nothing was done: no job but the lock's (a cluster tag set and deleted), no flag, no tag
        ops = [op.get('OP_ID') for j in lab.jobs() if j['id'] not in jobs for op in j['ops']]
        # (the health gate's disks_in_sync reads disk status through query jobs)
        ops = [op for op in ops if op != 'OP_INSTANCE_QUERY_DATA']
        assert ops == ['OP_TAGS_SET', 'OP_TAGS_DEL'], ops
        assert _flags(lab) == flags and roll.run_tags() == ({}, [])
        assert roll.reboots() == [] and lab.placement() == placement
    finally:
        with open(meminfo, 'w', encoding='utf-8') as handle:
            handle.write(memory)
        _untag(lab)


# passed (issue 22), out of CI for its time: `make integration-long`
@pytest.mark.lab_long
def test_the_master_is_skipped_when_asked(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, [])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_run_id='all', rolling_reboot_skip_master=True)
        assert rc == 0, output
        assert report['status'] == 'done' and report['skipped'] == ['node1'], report
        assert 'skipped: node1' in report['summary']
        assert sorted(node for node, _d, _p in roll.reboots()) == ['node2', 'node3']
        assert all(d == 'Y' and p == 0 for _n, d, p in roll.reboots()), roll.reboots()
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


def test_a_skipped_master_is_marked_in_its_waves_drain_job(fresh, tmp_path):
    """The master shares hroller's last group with node2: the wave drains node2
    and marks the master skipped in the same tag job, not in one of its own."""
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node1', 'node2'])
        first = max([job['id'] for job in lab.jobs()] or [0])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'], rolling_reboot_run_id='skip',
                                      rolling_reboot_skip_master=True)
        assert rc == 0, output
        assert report['skipped'] == ['node1'] and [w['nodes'] for w in report['waves']] == [['node2']], report
        tag_sets = [set(job['ops'][0]['tags']) for job in lab.jobs()
                    if job['id'] > first and job['ops'][0].get('OP_ID') == 'OP_TAGS_SET']
        skipped = [tags for tags in tag_sets if 'ganeti.htools:skipped:skip:node1' in tags]
        assert len(skipped) == 1 and 'ganeti.htools:rolling:skip:node2' in skipped[0], tag_sets
        assert roll.reboots() == [('node2', 'Y', 0)]
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


def _down_intervals(report):
    """{node: (down_at, up_at)} of every reboot the report records."""
    return {r['node']: (r['down_at'], r['up_at'])
            for wave in report['waves'] for r in wave['reboots']}


def test_a_waves_nodes_go_down_together(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='together', reboot_seconds=6)
        assert rc == 0, output
        [wave] = report['waves']
        assert wave['nodes'] == ['node2', 'node3'] and wave['concurrency'] == 2, wave
        down = _down_intervals(report)
        assert sorted(down) == ['node2', 'node3'] and wave['not_back'] == []
        # both nodes were down at the same time: each went down before the other came back
        assert max(d for d, _u in down.values()) < min(u for _d, u in down.values()), down
        assert all(r['boot_id_before'] != r['boot_id_after'] for r in wave['reboots'])
        moved = sorted(name for name, node in placement.items() if node in ('node2', 'node3'))
        assert sorted(wave['moved_away']) == moved and sorted(wave['moved_back']) == moved
        assert sorted(roll.reboots()) == [('node2', 'Y', 0), ('node3', 'Y', 0)]
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


# passed (issue 22), out of CI for its time: `make integration-long`
@pytest.mark.lab_long
def test_one_at_a_time_does_not_overlap(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='single', reboot_seconds=3,
                                      rolling_reboot_wave_concurrency=1)
        assert rc == 0, output
        first, second = sorted(_down_intervals(report).values())
        assert first[1] < second[0], (first, second)
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


def _restart(lab, node):
    subprocess.run([os.path.join(LAB_DIR, 'reboot-node.sh'), node, '0'], check=True,
                   env=dict(os.environ, GNTLAB_NS=lab.ns, GNTLAB_BASE=lab.base), timeout=120)


def test_a_node_that_does_not_come_back_stops_the_run_drained(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='lost', rolling_reboot_reboot_timeout=15,
                                      never=['node3'])
        assert rc != 0, output
        assert report['status'] == 'failed', report
        assert report['stopped_at'].startswith('wave 1 (node2, node3), step wait for node3:')
        assert 'node3 did not come back with a new boot id within 15 s' in report['stopped_at']
        [wave] = report['waves']
        assert wave['status'] == 'failed' and wave['not_back'] == ['node3'], wave
        assert wave['rebooted'] == ['node2'] and wave['moved_back'] == []
        nodes = lab.nodes()
        assert nodes['node2']['drained'] and nodes['node3']['drained']
        tags, locks = roll.run_tags()
        assert [t for t in tags['node3'] if t.startswith('ganeti.htools:rebooting:lost:')]
        assert 'ganeti.htools:rebooted:lost' in tags['node2'] and not locks

        _restart(lab, 'node3')       # the operator brings it back; the same run finishes
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='lost')
        assert rc == 0, output
        [wave] = report['waves']
        assert wave['resumed'] and wave['rebooted'] == ['node3'], wave
        assert [r['resumed'] for r in wave['reboots']] == [True]
        # node2 once, node3 once (it "came back" by hand, never rebooted again)
        assert sorted(n for n, _d, _p in roll.reboots()) == ['node2', 'node3', 'node3']
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


def _kill_when(proc, ready, timeout=1500):
    """Kill -9 the controller once `ready()`; its forked workers, which outlive
    it (each in a session of its own), as [(pid, command line)]."""
    deadline = time.monotonic() + timeout
    workers = []
    try:
        while not ready():
            assert proc.poll() is None, 'the run ended before the kill point'
            assert time.monotonic() < deadline, 'the kill point was never reached'
            time.sleep(0.3)
    finally:        # the kill -9 of the controller, also when the test gives up
        if proc.poll() is None:
            workers = [(pid, _command_line(pid)) for pid in descendants(proc.pid)]
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return workers


def _command_line(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return handle.read()
    except OSError:
        return None


def _end_orphans(workers):
    """The dead controller's workers wait forever to report to it: end them
    (the same processes only, by their command lines)."""
    for pid, command in workers:
        if command is not None and _command_line(pid) == command:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _resume_after_kill(lab, tmp_path, run_id, ready, reboot_seconds):
    placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
    roll = Roll(lab, tmp_path)
    proc = roll.start(reboot_seconds, rolling_reboot_node_tags=['reboot'],
                      rolling_reboot_run_id=run_id)
    workers = _kill_when(proc, lambda: ready(roll))
    try:
        assert lab.lock_tags(), 'the killed run held the lock'
        time.sleep(reboot_seconds + 3)        # what the dead controller started runs out
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id=run_id)
    finally:
        _end_orphans(workers)
    return roll, placement, rc, report, output


def test_resume_after_kill_9_after_the_drain(fresh, tmp_path):
    lab = fresh

    def drained(_roll):
        nodes = lab.nodes()
        return all(nodes[n]['drained'] for n in ('node2', 'node3'))
    try:
        roll, placement, rc, report, output = _resume_after_kill(lab, tmp_path, 'kill-drain',
                                                                 drained, 2)
        assert rc == 0, output
        assert report['status'] == 'done' and report['waves'][0]['resumed'], report
        # every node rebooted exactly once over both runs
        assert sorted(n for n, _d, _p in roll.reboots()) == ['node2', 'node3']
        assert all(d == 'Y' and p == 0 for _n, d, p in roll.reboots()), roll.reboots()
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


def test_resume_after_kill_9_during_a_reboot(fresh, tmp_path):
    lab = fresh

    def rebooting(roll):
        return len(roll.reboots()) >= 1
    try:
        roll, placement, rc, report, output = _resume_after_kill(lab, tmp_path, 'kill-reboot',
                                                                 rebooting, 12)
        assert rc == 0, output
        assert report['status'] == 'done' and report['waves'][0]['resumed'], report
        assert sorted(n for n, _d, _p in roll.reboots()) == ['node2', 'node3']
        reboots = report['waves'][0]['reboots']
        assert any(r['resumed'] for r in reboots), reboots     # the started one was waited for
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


# passed (issue 22), out of CI for its time: `make integration-long`
@pytest.mark.lab_long
def test_the_master_is_failed_over_rebooted_last_and_restored(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, [])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_run_id='master',
                                      rolling_reboot_restore_master=True)
        assert rc == 0, output
        assert report['status'] == 'done' and report['skipped'] == [], report
        last = report['waves'][-1]
        assert 'node1' in last['rebooted'], report['waves']
        assert sorted(n for n, _d, _p in roll.reboots()) == ['node1', 'node2', 'node3']
        assert all(d == 'Y' and p == 0 for _n, d, p in roll.reboots()), roll.reboots()
        master = report['master']
        [away, home] = master['failovers']
        assert away['from'] == 'node1' and away['to'] in ('node2', 'node3'), master
        assert (home['from'], home['to']) == (away['to'], 'node1'), master
        assert master['at_start'] == 'node1' and master['at_end'] == 'node1', master
        assert 'master now node1' in report['summary']
        assert lab.get('/2/info')['master'] == 'node1'
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)


# passed (issue 22), out of CI for its time: `make integration-long`
@pytest.mark.lab_long
def test_full_evacuation_runs_under_the_runs_lock(fresh, tmp_path):
    # the namespace lab has no DRBD: hail finds no secondary to move, but the
    # secondary-only evacuation runs under the role's lock (lock_owner), and
    # the sharedfile instances come back; the moves themselves are the vm lab's
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, ['node2', 'node3'])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_node_tags=['reboot'],
                                      rolling_reboot_run_id='full',
                                      rolling_reboot_full_evacuation=True)
        assert rc == 0, output
        [wave] = report['waves']
        assert wave['secondaries_moved'] == [] and wave['kept_elsewhere'] == [], wave
        moved = sorted(name for name, node in placement.items() if node in ('node2', 'node3'))
        assert sorted(wave['moved_back']) == moved
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)
