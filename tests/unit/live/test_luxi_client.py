# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The LUXI client against a scripted master (a socket pair), and its refusals.

tests/integration/test_live_luxi.py runs it against the real luxid.
"""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest
import yaml

from kit.paths import REPO_ROOT

from ansible_collections.ganeti.htools.plugins.module_utils.live import audit, luxi, rapi, source
from ansible_collections.ganeti.htools.plugins.module_utils.live.executor import execute_plan
from ansible_collections.ganeti.htools.plugins.module_utils.version import COLLECTION_VERSION


class ScriptedMaster:
    """Answers each connection with the next scripted result; records the requests."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def connect(self, _path, _timeout):
        ours, theirs = socket.socketpair()
        answer = self.answers.pop(0)

        def serve():
            data = b''
            while not data.endswith(luxi.ETX):
                data += theirs.recv(65536)
            self.requests.append(json.loads(data[:-1].decode('utf-8')))
            if isinstance(answer, bytes):
                theirs.sendall(answer)
            else:
                theirs.sendall(json.dumps(answer).encode('utf-8') + luxi.ETX)
            theirs.close()

        threading.Thread(target=serve, daemon=True).start()
        return ours


def ok(result):
    return {'success': True, 'result': result}


def client(*answers, audit_=None):
    master = ScriptedMaster(answers)
    cli = luxi.LuxiClient('/run/test/ganeti-query', connect=master.connect,
                          sleep=lambda _s: None)
    cli.audit = audit_
    return cli, master


def test_a_query_becomes_rapi_shaped_dicts_with_none_for_missing_data():
    answer = ok({'fields': [], 'data': [
        [[0, 'node1'], [0, 8192], [2, None]] + [[0, None]] * (len(luxi.NODE_FIELDS) - 3)]})
    cli, master = client(answer, ok([]))
    nodes = cli.nodes()
    assert nodes[0]['name'] == 'node1' and nodes[0]['offline'] == 8192
    assert nodes[0]['master_candidate'] is None          # status 2: no data
    assert master.requests == [{'method': 'Query', 'args': ['node', luxi.NODE_FIELDS, None]},
                               {'method': 'QueryTags', 'args': ['cluster', '']}]


def test_nodes_show_the_run_marks_kept_as_cluster_tags_among_their_tags():
    tags = luxi.NODE_FIELDS.index('tags')
    rows = [[[0, name]] + [[0, None]] * (len(luxi.NODE_FIELDS) - 1) for name in ('node1', 'node2')]
    rows[0][tags] = [0, ['rack1']]
    answer = ok({'fields': [], 'data': rows})
    cli, _master = client(answer, ok(['ganeti.htools:rolling:r1:node1', 'site-a',
                                      'ganeti.htools:away:r1:node1:web1']))
    nodes = {n['name']: n for n in cli.nodes()}
    assert nodes['node1']['tags'] == ['rack1', 'ganeti.htools:rolling:r1',
                                      'ganeti.htools:away:r1:web1']
    assert nodes['node2']['tags'] == []


def test_instances_carry_be_memory_in_beparams_as_rapi_does():
    fields = luxi.INSTANCE_FIELDS + luxi.HBAL_INSTANCE_FIELDS
    row = [[0, None]] * len(fields)
    row[fields.index('name')] = [0, 'inst1']
    row[fields.index('beparams')] = [0, {'maxmem': 1024}]
    row[fields.index('be/memory')] = [0, 1024]
    row[fields.index('oper_ram')] = [0, 700]
    cli, _master = client(ok({'fields': [], 'data': [row]}))
    inst = cli.instances()[0]
    assert inst['beparams'] == {'maxmem': 1024, 'memory': 1024} and 'be/memory' not in inst


def test_a_move_is_one_job_with_the_audit_on_every_opcode():
    trail = audit.JobAudit('ganeti_balance', 'AWX 42', 'high').for_plan('sha256:abc')
    cli, master = client(ok(17), audit_=trail)
    ops = [{'OP_ID': 'OP_INSTANCE_MIGRATE', 'instance_name': 'i1'},
           {'OP_ID': 'OP_INSTANCE_REPLACE_DISKS', 'instance_name': 'i1', 'mode': 'x'}]
    assert cli.submit_job(ops, 'ganeti.htools:p1:m1:o1') == 17
    method, args = master.requests[0]['method'], master.requests[0]['args']
    assert method == 'SubmitJob' and len(args[0]) == 2
    for op in args[0]:
        assert op['priority'] == -10
        source_, text, stamp = op['reason'][-1]
        assert source_ == 'ganeti.htools.ganeti_balance' and stamp > 0
        assert text == ('ganeti.htools:p1:m1:o1 (ganeti.htools.ganeti_balance %s, plan '
                        'sha256:abc): AWX 42' % COLLECTION_VERSION)
    assert 'reason' not in ops[0]          # the plan's opcodes are left as they were


def test_tags_and_roles_are_the_opcodes_rapi_builds():
    cli, master = client(ok(1), ok(2), ok(3))
    cli.add_cluster_tags(['a'], reason='t1')
    cli.delete_node_tags('node2', ['b'], reason='t2')
    cli.set_node_role('node3', 'drained', reason='t3')
    ops = [r['args'][0][0] for r in master.requests]
    assert (ops[0]['OP_ID'], ops[0]['kind'], ops[0]['name'], ops[0]['tags']) == \
        ('OP_TAGS_SET', 'cluster', None, ['a'])
    assert (ops[1]['OP_ID'], ops[1]['kind'], ops[1]['name']) == ('OP_TAGS_DEL', 'node', 'node2')
    assert ops[2]['OP_ID'] == 'OP_NODE_SET_PARAMS' and ops[2]['drained'] is True
    assert 'priority' not in ops[0]        # no audit priority: Ganeti's default


def test_disk_status_is_one_job_for_all_and_activation_one_per_instance():
    cli, master = client(ok(7), ok(8))
    assert cli.query_instance_data(['i1', 'i2'], reason='q1') == [(['i1', 'i2'], 7)]
    assert cli.activate_disks('i2', reason='a1') == 8
    query, activate = [r['args'][0] for r in master.requests]
    assert len(query) == 1 and len(activate) == 1
    assert (query[0]['OP_ID'], query[0]['instances'], query[0]['static']) == \
        ('OP_INSTANCE_QUERY_DATA', ['i1', 'i2'], False)
    assert (activate[0]['OP_ID'], activate[0]['instance_name']) == \
        ('OP_INSTANCE_ACTIVATE_DISKS', 'i2')
    assert 'q1' in query[0]['reason'][-1][1] and 'a1' in activate[0]['reason'][-1][1]


def test_a_refusal_carries_the_masters_message():
    cli, _master = client({'success': False,
                           'result': ['OpPrereqError', ['Instance i9 not known', 'unknown']]})
    with pytest.raises(luxi.LuxiError) as err:
        cli.submit_job([{'OP_ID': 'OP_INSTANCE_MIGRATE', 'instance_name': 'i9'}], 't')
    assert 'OpPrereqError: Instance i9 not known' in str(err.value)


def test_an_unknown_job_is_not_found_and_a_failed_wait_raises():
    cli, _master = client(ok([[5, None]]), ok([[6, [], 'error', None, ['error'], 1, 2, 3, [],
                                              [['OpExecError', ['disk gone']]]]]))
    with pytest.raises(rapi.RapiNotFound):
        cli.job(5)
    with pytest.raises(rapi.JobFailed) as err:
        cli.wait_job(6)
    assert 'disk gone' in str(err.value)


def test_a_lost_answer_is_found_by_its_reason_not_resubmitted():
    lost = b'{"success": tr'      # the connection ends mid-answer
    jobs = ok({'fields': [], 'data': [
        [[0, 41], [0, [{'reason': [['x', 'ganeti.htools:p:m1:o10 (...)', 1]]}]]] + [[0, None]] * 6,
        [[0, 42], [0, [{'reason': [['x', 'ganeti.htools:p:m1:o1 (...)', 1]]}]]] + [[0, None]] * 6,
    ]})
    cli, master = client(lost, jobs)
    assert cli.submit_job([{'OP_ID': 'OP_INSTANCE_MIGRATE'}], 'ganeti.htools:p:m1:o1') == 42
    assert [r['method'] for r in master.requests] == ['SubmitJob', 'Query']


def test_the_executor_submits_a_whole_move_as_one_job():
    class Queue:
        ops_per_job = None

        def __init__(self):
            self.jobs = []

        def submit_job(self, ops, reason):
            self.jobs.append((len(ops), reason))
            return len(self.jobs)

        def job(self, job_id):
            if job_id == 2:     # move 2: its first opcode succeeded, the second failed
                return {'status': 'error', 'opstatus': ['success', 'error'],
                        'opresult': [None, ['OpExecError', ['no space']]]}
            return {'status': 'success'}

    ops = [{'OP_ID': 'OP_INSTANCE_MIGRATE'}, {'OP_ID': 'OP_INSTANCE_REPLACE_DISKS'}]
    plan = {'moves': [{'index': 1, 'instance': 'i1', 'opcodes': ops},
                      {'index': 2, 'instance': 'i2', 'opcodes': ops}], 'jobsets': [[1], [2]]}
    queue = Queue()
    with pytest.raises(Exception) as err:
        execute_plan(queue, plan, 'ganeti.htools:p', sleep=lambda _s: None)
    report = err.value.report
    assert queue.jobs == [(2, 'ganeti.htools:p:m1:o1'), (2, 'ganeti.htools:p:m2:o1')]
    assert report['succeeded'] == [1] and report['failed'] == [2]
    assert report['moves'][1]['opcodes_done'] == 1 and 'no space' in report['moves'][1]['error']


def _dead_socket(tmp):
    path = str(tmp / 'dead.sock')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.close()                 # the file stays, nobody listens: ECONNREFUSED
    return path


@pytest.mark.parametrize('make, expected', [
    (lambda tmp: str(tmp / 'missing'), 'does not exist: run on the Ganeti master'),
    (_dead_socket, 'nothing listens on the LUXI socket'),
])
def test_connection_failures_say_what_to_do(tmp_path, make, expected):
    cli = luxi.LuxiClient(make(tmp_path), timeout=2)
    with pytest.raises(luxi.LuxiUnreachable) as err:
        cli.info()
    assert expected in str(err.value)


def test_permission_denied_names_the_socket_owner(tmp_path):
    def refuse(_path, _timeout):
        raise PermissionError(13, 'Permission denied')
    path = str(tmp_path / 'sock')
    open(path, 'w', encoding='utf-8').close()
    cli = luxi.LuxiClient(path, connect=refuse)
    with pytest.raises(luxi.LuxiPermissionDenied) as err:
        cli.cluster_tags()
    assert 'permission denied' in str(err.value) and 'become' in str(err.value)
    assert 'group' in str(err.value)


def test_the_source_is_luxi_when_asked_or_on_a_master():
    params = {'data_file': None, 'luxi_socket': None, 'rapi_url': None}
    assert source.live_kind(params, exists=lambda _p: False) is None
    assert source.live_kind(params, exists=lambda p: p == luxi.DEFAULT_SOCKET) == 'luxi'
    assert source.live_kind(dict(params, rapi_url='https://c:5080'),
                            exists=lambda _p: True) == 'rapi'
    assert source.live_kind(dict(params, rapi_url='https://c:5080', luxi_socket='/s')) == 'luxi'
    cli = source.client_from_params(dict(params, timeout=5), exists=lambda _p: True)
    assert isinstance(cli, luxi.LuxiClient) and cli.path == luxi.DEFAULT_SOCKET
    with pytest.raises(Exception) as err:
        source.client_from_params(params, exists=lambda _p: False)
    assert 'luxi_socket' in str(err.value) and 'rapi_url' in str(err.value)


def test_audit_text_and_priorities():
    plain = audit.JobAudit('ganeti_node')
    assert plain.text('ganeti.htools:ganeti_node') == \
        'ganeti.htools:ganeti_node (ganeti.htools.ganeti_node %s)' % COLLECTION_VERSION
    assert plain.priority is None
    assert audit.carries_tag('t:m1:o1 (x)', 't:m1:o1') and not audit.carries_tag('t:m1:o10', 't:m1:o1')
    with pytest.raises(Exception):
        audit.JobAudit('m', priority='urgent')


def test_the_version_is_galaxy_ymls():
    with open(os.path.join(REPO_ROOT, 'galaxy.yml'), encoding='utf-8') as handle:
        assert yaml.safe_load(handle)['version'] == COLLECTION_VERSION
