# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_node against the real cluster: drain, undrain and promote, tags, waiting."""

from __future__ import annotations

MODULE = 'ganeti_node'


def _flags(lab, name):
    node = lab.nodes()[name]
    return {k: node[k] for k in ('drained', 'offline', 'master_candidate')}, sorted(node['tags'])


def test_drain_tag_undrain_and_wait_for_the_node(fresh, tmp_path):
    lab = fresh
    before = _flags(lab, 'node3')
    assert before == ({'drained': False, 'offline': False, 'master_candidate': True}, [])
    jobs = [j['id'] for j in lab.jobs()]
    args = {'name': 'node3', 'drained': True, 'add_tags': ['reboot']}
    status, result, output = lab.run_module(tmp_path, MODULE, args, check=True)
    assert status == 'CHANGED', output
    assert result['node']['drained'] and not result['node']['master_candidate']
    assert result['node']['tags'] == ['reboot'] and result['jobs'] == []
    assert _flags(lab, 'node3') == before and [j['id'] for j in lab.jobs()] == jobs

    status, result, output = lab.run_module(tmp_path, MODULE, args)
    assert status == 'CHANGED', output
    assert result['summary'] == \
        'node3: drained false -> true, master_candidate true -> false, tags +reboot'
    assert _flags(lab, 'node3') == \
        ({'drained': True, 'offline': False, 'master_candidate': False}, ['reboot'])
    assert len(result['jobs']) == 2
    assert all(lab.job(j)['status'] == 'success' for j in result['jobs'])
    status, again, output = lab.run_module(tmp_path, MODULE, args)       # idempotent
    assert status == 'SUCCESS' and again['jobs'] == [], output

    undo = {'name': 'node3', 'drained': False, 'master_candidate': True,
            'remove_tags': ['reboot'], 'wait_for_live': True, 'wait_timeout': 120}
    status, result, output = lab.run_module(tmp_path, MODULE, undo)
    assert status == 'CHANGED', output
    assert result['node']['live'] is True
    assert _flags(lab, 'node3') == before


def test_the_masters_role_is_refused(fresh, tmp_path):
    lab = fresh
    master = lab.get('/2/info')['master']
    status, result, output = lab.run_module(tmp_path, MODULE, {'name': master, 'drained': True})
    assert status == 'FAILED', output
    assert 'is the master node' in result['msg']
    assert not lab.nodes()[master]['drained']


def test_several_nodes_drained_and_restored_in_one_run(fresh, tmp_path):
    lab = fresh
    before = {name: _flags(lab, name) for name in ('node2', 'node3')}
    jobs = [j['id'] for j in lab.jobs()]
    unknown = {'nodes': [{'name': 'node2'}, {'name': 'no-such-node'}], 'drained': True}
    status, result, output = lab.run_module(tmp_path, MODULE, unknown)
    assert status == 'FAILED' and 'no such node: no-such-node' in result['msg'], output
    assert [j['id'] for j in lab.jobs()] == jobs

    drain = {'nodes': [{'name': 'node2'}, {'name': 'node3', 'add_tags': ['reboot', 'was-candidate']}],
             'drained': True, 'add_tags': ['reboot']}
    status, result, output = lab.run_module(tmp_path, MODULE, drain)
    assert status == 'CHANGED', output
    assert [n['name'] for n in result['nodes']] == ['node2', 'node3']
    assert _flags(lab, 'node2') == \
        ({'drained': True, 'offline': False, 'master_candidate': False}, ['reboot'])
    assert _flags(lab, 'node3') == \
        ({'drained': True, 'offline': False, 'master_candidate': False}, ['reboot', 'was-candidate'])
    # two nodes, each a tag job and a flag job
    assert len(result['jobs']) == 4
    assert all(lab.job(j)['status'] == 'success' for j in result['jobs'])
    status, again, output = lab.run_module(tmp_path, MODULE, drain)
    assert status == 'SUCCESS' and again['jobs'] == [], output
    assert again['summary'] == '2 node(s) unchanged'

    undo = {'nodes': [{'name': 'node2'}, {'name': 'node3', 'remove_tags': ['reboot', 'was-candidate']}],
            'drained': False, 'master_candidate': True, 'remove_tags': ['reboot'],
            'wait_for_live': True, 'wait_timeout': 120}
    status, result, output = lab.run_module(tmp_path, MODULE, undo)
    assert status == 'CHANGED', output
    assert all(n['live'] for n in result['nodes'])
    assert {name: _flags(lab, name) for name in ('node2', 'node3')} == before


def _auto_promote(lab, job_ids):
    """The auto_promote of each node flag job ({node: bool}), as Ganeti ran it."""
    ops = [op for j in job_ids for op in lab.job(j)['ops'] if op['OP_ID'] == 'OP_NODE_SET_PARAMS']
    return {op['node_name']: op['auto_promote'] for op in ops}


def test_auto_promote_is_asked_only_when_a_node_can_be_promoted(fresh, tmp_path):
    lab = fresh
    before = {name: _flags(lab, name) for name in ('node2', 'node3')}
    # every other eligible node is a candidate: nobody to promote, no lock on every node
    status, result, output = lab.run_module(
        tmp_path, MODULE, {'nodes': [{'name': 'node3'}], 'master_candidate': False})
    assert status == 'CHANGED', output
    assert _auto_promote(lab, result['jobs']) == {'node3': False}

    # node3 is now an eligible non-candidate: draining node2 must let Ganeti promote it
    status, result, output = lab.run_module(tmp_path, MODULE, {'name': 'node2', 'drained': True})
    assert status == 'CHANGED', output
    assert _auto_promote(lab, result['jobs']) == {'node2': True}
    assert _flags(lab, 'node3')[0]['master_candidate'] is True

    status, result, output = lab.run_module(
        tmp_path, MODULE, {'name': 'node2', 'drained': False, 'master_candidate': True})
    assert status == 'CHANGED', output
    assert {name: _flags(lab, name) for name in ('node2', 'node3')} == before


def test_run_marks_of_several_nodes_are_one_cluster_tag_job_each_way(fresh, tmp_path):
    lab = fresh
    rolling, away = 'ganeti.htools:rolling:t1', 'ganeti.htools:away:t1:inst1'
    mark = {'nodes': [{'name': 'node2', 'add_tags': [rolling, away, 'reboot']},
                      {'name': 'node3', 'add_tags': [rolling]}]}
    status, result, output = lab.run_module(tmp_path, MODULE, mark)
    assert status == 'CHANGED', output
    # the marks are node tags to the module, cluster tags to Ganeti
    assert {n['name']: n['tags'] for n in result['nodes']} == \
        {'node2': sorted([rolling, away, 'reboot']), 'node3': [rolling]}
    assert _flags(lab, 'node2')[1] == ['reboot'] and _flags(lab, 'node3')[1] == []
    assert sorted(lab.tags()) == ['ganeti.htools:away:t1:node2:inst1',
                                  'ganeti.htools:rolling:t1:node2', 'ganeti.htools:rolling:t1:node3']
    # one job for both nodes' marks, one for node2's own tag
    ops = sorted(op['OP_ID'] + ':' + op['kind'] for j in result['jobs'] for op in lab.job(j)['ops'])
    assert ops == ['OP_TAGS_SET:cluster', 'OP_TAGS_SET:node'], ops
    status, again, output = lab.run_module(tmp_path, MODULE, mark)
    assert status == 'SUCCESS' and again['jobs'] == [], output

    undo = {'nodes': [{'name': 'node2', 'remove_tags': [rolling, away, 'reboot']},
                      {'name': 'node3', 'remove_tags': [rolling]}]}
    status, result, output = lab.run_module(tmp_path, MODULE, undo)
    assert status == 'CHANGED', output
    assert len(result['jobs']) == 2 and lab.tags() == []
    assert _flags(lab, 'node2')[1] == [] and _flags(lab, 'node3')[1] == []
