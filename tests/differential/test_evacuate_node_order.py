# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Equally good targets: a node evacuation read from a cluster (RAPI data)
picks among them as hail does for the request Ganeti sends, whose nodes are
in Ganeti's configuration order (by node UUID), not RAPI's (by name).

A cluster of identical nodes gets random node and instance UUIDs; its saved
RAPI responses are planned by the module's read (node_order "config") and
compared with hail's answer to the request Ganeti would build from the same
cluster. Reading the nodes in name order instead must give another answer on
some of the clusters: the order decides, the test can tell.
"""

from __future__ import annotations

import json
import random
import uuid

import pytest

from kit.ansible_cli import run_with
from kit.backend_docs import model_to_ialloc, model_to_rapi, write_rapi_dir
from oracle.hail import run_hail

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import evacuate

NODES = 5
CLUSTER = '\n'.join(
    ['default|uuid-g1|preferred|', '']
    + ['node%d|8192|1024|7168|0|0|2|%s|uuid-g1|1|' % (k, 'M' if k == 1 else 'N')
       for k in range(1, NODES + 1)]
    + ['']
    + ['instance%d|512|0|1|running|Y|%s||sharedfile||1' % (k, 'node2' if k % 2 else 'node1')
       for k in range(1, 8)]
    + ['', '']) + '\n'
CASES = 24
MODULE = 'ganeti.htools.ganeti_evacuate_group'


def _cluster(seed, tmp_path):
    """(saved RAPI directory, the request document Ganeti would send to
    evacuate node2's primaries) for one random set of UUIDs."""
    rng = random.Random(seed)
    text = load_text(CLUSTER, source='t')
    docs = model_to_rapi(text, rng)
    for entry in docs['nodes'] + docs['instances']:
        entry['uuid'] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    directory = write_rapi_dir(docs, str(tmp_path / ('rapi-%d' % seed)))
    request = model_to_ialloc(text, rng, omit_up=False)
    uuids = {entry['name']: entry['uuid'] for entry in docs['nodes'] + docs['instances']}
    request['nodes'] = dict(sorted(request['nodes'].items(), key=lambda kv: uuids[kv[0]]))
    request['instances'] = dict(sorted(request['instances'].items(), key=lambda kv: uuids[kv[0]]))
    on_node2 = [name for name, inst in request['instances'].items() if inst['nodes'][0] == 'node2']
    request['request'] = {'type': 'node-evacuate', 'instances': on_node2,
                          'evac_mode': 'primary-only'}
    return directory, request


def _moves(answer):
    return [(name, nodes) for name, _group, nodes in answer['result'][0]]


def _hail(tmp_path, seed, request):
    path = tmp_path / ('request-%d.json' % seed)
    path.write_text(json.dumps(request))
    code, out, err = run_hail(str(path))
    assert code == 0, err
    answer = json.loads(out)
    assert answer['success'] and len(_moves(answer)) == 4, answer
    return _moves(answer)


@pytest.mark.usefixtures('hail')
def test_ties_between_targets_go_as_hail_decides_them_for_ganetis_request(tmp_path):
    differ_by_name = 0
    for seed in range(CASES):
        directory, request = _cluster(seed, tmp_path)
        theirs = _hail(tmp_path, seed, request)

        plans = {}
        for order in ('config', 'name'):
            data, _fmt = load_data_file(directory, node_order=order)
            plan = evacuate(data, {'nodes': ['node2'], 'mode': 'primary-only'})
            plans[order] = [(m['instance'], [m['new_primary']]) for m in plan['moves']]
        assert plans['config'] == theirs, seed
        differ_by_name += plans['name'] != theirs
    # the name order breaks the ties otherwise on some clusters
    assert differ_by_name >= CASES // 4, differ_by_name


@pytest.mark.usefixtures('hail')
def test_the_module_reads_saved_rapi_nodes_in_ganetis_order(tmp_path):
    for seed in range(CASES):
        directory, request = _cluster(seed, tmp_path)
        data, _fmt = load_data_file(directory)      # RAPI's order: by name
        by_name = evacuate(data, {'nodes': ['node2'], 'mode': 'primary-only'})
        theirs = _hail(tmp_path, seed, request)
        if [(m['instance'], [m['new_primary']]) for m in by_name['moves']] != theirs:
            break
    else:
        pytest.fail('no cluster where the order of the nodes decides')
    status, result, output = run_with(tmp_path, MODULE, {
        'data_file': directory, 'nodes': ['node2'], 'mode': 'primary-only'}, '--check')
    assert status == 'CHANGED', output
    assert [(m['instance'], [m['new_primary']]) for m in result['moves']] == theirs
