# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_allocate through the ansible CLI: specs as options, the restriction
to given nodes (hail's --restrict-allocation-to) and its bad input."""

from __future__ import annotations

from kit.ansible_cli import run_with

MODULE = 'ganeti.htools.ganeti_allocate'

# four empty nodes of one group; node4 has the most memory, so hail puts a
# single new instance there unless told otherwise
CLUSTER = '\n'.join([
    'default|uuid-g1|preferred|', '',
    'node1|32768|1024|29000|200000|190000|16|M|uuid-g1|1|',
    'node2|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'node3|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'node4|65536|1024|61000|200000|190000|16|N|uuid-g1|1|', '', '', '']) + '\n'
SPEC = {'name': 'web', 'memory': 4096, 'vcpus': 2, 'disks': [10240], 'disk_template': 'plain'}


def _run(tmp_path, **params):
    path = tmp_path / 'cluster.data'
    path.write_text(CLUSTER)
    return run_with(tmp_path, MODULE, dict(params, data_file=str(path), instances=[SPEC]))


def test_a_restriction_keeps_the_instance_on_the_given_nodes(tmp_path):
    status, free, output = _run(tmp_path)
    assert status == 'SUCCESS' and free['success'], output
    unrestricted = free['placements'][0]['primary']
    others = sorted({'node2', 'node3', 'node4'} - {unrestricted})
    status, result, output = _run(tmp_path, restrict_allocation_to=others)
    assert status == 'SUCCESS' and result['success'], output
    assert result['placements'][0]['primary'] in others, result['placements']
    assert result['commands'] and result['placements'][0]['primary'] in result['commands'][0]


def test_an_unknown_node_in_the_restriction_is_refused(tmp_path):
    status, result, output = _run(tmp_path, restrict_allocation_to=['node2', 'node9'])
    assert status == 'FAILED!', output
    assert 'restrict_allocation_to: no such node: node9' in result['msg'], result['msg']
    assert 'Traceback' not in output


def test_the_answer_is_a_plan_given_back_unchanged_with_its_report_and_diff(tmp_path):
    path = tmp_path / 'cluster.data'
    path.write_text(CLUSTER)
    spec = dict(SPEC, disk_template='drbd', count=2)
    report = tmp_path / 'allocation.html'
    status, first, output = run_with(tmp_path, MODULE, dict(
        data_file=str(path), instances=[spec], report_file=str(report)), '--diff')
    assert status == 'SUCCESS' and first['kind'] == 'multi-allocate', output
    plan = first['plan']
    assert plan['kind'] == 'allocate' and [m['instance'] for m in plan['moves']] == ['web-1', 'web-2']
    for move, placement in zip(first['moves'], first['placements']):
        assert move['move'] == 'create' and move['old_primary'] is None
        assert (move['new_primary'], move['new_secondary']) == (placement['primary'],
                                                                placement['secondary'])
        assert move['description'] == 'create on %s (secondary %s)' % (
            placement['primary'], placement['secondary'])
        assert 'opcodes' not in move            # in the plan document only
    opcode = plan['moves'][0]['opcodes'][0]
    assert opcode['OP_ID'] == 'OP_INSTANCE_CREATE' and opcode['pnode'] == first['placements'][0]['primary']
    assert '\n web-1\n-  not created yet\n+  on %s' % first['placements'][0]['primary'] in output
    html = report.read_text()
    assert 'Allocation plan' in html and 'web-2' in html
    # given back: the same plan, nothing recomputed
    status, again, output = run_with(tmp_path, MODULE, dict(data_file=str(path), plan=plan))
    assert status == 'SUCCESS' and again['replanned'] is False, output
    assert again['placements'] == first['placements'] and again['plan']['plan_id'] == plan['plan_id']
