# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling_reboot role on the real cluster: check mode, a whole roll, a
refused migration stopping the roll, the same run resumed, the master skipped.

"Reboot" is tests/lab/reboot-node.sh: the node's Ganeti daemons stop and start
again; it logs what the master saw of the node as it went down."""

from __future__ import annotations

import json
import os
import re

from kit.paths import LAB_DIR

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

    def run(self, *args, **role_vars):
        env = self.lab.env(GNTLAB_NS=self.lab.ns, GNTLAB_BASE=self.lab.base,
                           GNTLAB_REBOOT_SCRIPT=os.path.join(LAB_DIR, 'reboot-node.sh'),
                           ROLLING_REBOOT_REPORT=self.report_file)
        if os.path.exists(self.report_file):
            os.remove(self.report_file)
        rc, output = self.lab.run_playbook(self.tmp_path, PLAYBOOK, '-e', json.dumps(role_vars),
                                           *args, env=env)
        report = None
        if os.path.exists(self.report_file):
            with open(self.report_file, encoding='utf-8') as handle:
                report = json.load(handle)
        return rc, report, output

    def reboots(self):
        """[(node, drained, primaries)] of the reboots since this object was made."""
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding='utf-8') as handle:
            handle.seek(self.offset)
            found = re.findall(r' start (\S+) drained=(\S) primaries=(\d+)', handle.read())
        return [(node, drained, int(count)) for node, drained, count in found]

    def run_tags(self):
        """Every ganeti.htools tag left on a node, and the cluster's lock tags."""
        left = {name: [t for t in node['tags'] if RUN_TAG.match(t)]
                for name, node in self.lab.nodes().items()}
        return {name: tags for name, tags in left.items() if tags}, self.lab.lock_tags()


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
        assert ops == ['OP_TAGS_SET', 'OP_TAGS_DEL'], ops
        assert _flags(lab) == flags and roll.run_tags() == ({}, [])
        assert roll.reboots() == [] and lab.placement() == placement
    finally:
        with open(meminfo, 'w', encoding='utf-8') as handle:
            handle.write(memory)
        _untag(lab)


def test_the_master_is_skipped_without_failover_tasks(fresh, tmp_path):
    lab = fresh
    try:
        placement = _spread_and_tag(lab, tmp_path, [])
        roll = Roll(lab, tmp_path)
        rc, report, output = roll.run(rolling_reboot_run_id='all')
        assert rc == 0, output
        assert report['status'] == 'done' and report['skipped'] == ['node1'], report
        assert 'skipped: node1' in report['summary']
        assert sorted(node for node, _d, _p in roll.reboots()) == ['node2', 'node3']
        assert all(d == 'Y' and p == 0 for _n, d, p in roll.reboots()), roll.reboots()
        _assert_back_to_normal(lab, roll, placement)
    finally:
        _untag(lab)
