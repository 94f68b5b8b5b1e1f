# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_node through the ansible CLI, previewing from a saved cluster (check
mode): several nodes in one run, and the requests it refuses before reading
anything.  The live runs are tests/integration/test_live_node.py's."""

from __future__ import annotations

import json

from kit.ansible_cli import run_module
from kit.paths import EXAMPLE

NODE = 'ganeti.htools.ganeti_node'


def _preview(tmp_path, **params):
    return run_module(tmp_path, NODE, '--check', '-a', json.dumps(dict(params, data_file=EXAMPLE)))


def test_several_nodes_preview_each_with_its_own_changes(tmp_path):
    status, result, output = _preview(
        tmp_path, nodes=[{'name': 'node2.example.com'},
                         {'name': 'node3.example.com', 'add_tags': ['rack-b'], 'drained': False}],
        drained=True, add_tags=['maintenance'])
    assert status == 'CHANGED', output
    first, second = result['nodes']
    assert first['name'] == 'node2.example.com' and first['drained']
    assert first['tags'] == ['maintenance', 'rack:a'] and not first['master_candidate']
    # an entry's own options win over the top-level ones
    assert second['name'] == 'node3.example.com' and not second['drained']
    assert second['tags'] == ['rack-b', 'rack:a']
    assert result['jobs'] == [] and 'node' not in result and 'before' not in result
    assert result['summary'].startswith('node2.example.com: drained false -> true')
    assert 'node3.example.com: tags +rack-b' in result['summary']


def test_a_node_named_twice_or_unknown_is_refused(tmp_path):
    twice = [{'name': 'node2.example.com'}, {'name': 'node2.example.com'}]
    status, result, output = _preview(tmp_path, nodes=twice, drained=True)
    assert status == 'FAILED!', output
    assert 'more than once: node2.example.com' in result['msg']
    unknown = [{'name': 'node2.example.com'}, {'name': 'node99.example.com'}]
    status, result, output = _preview(tmp_path, nodes=unknown, drained=True)
    assert status == 'FAILED!', output
    assert 'no such node: node99.example.com' in result['msg']


def test_name_and_nodes_together_are_refused(tmp_path):
    status, result, output = _preview(tmp_path, name='node2.example.com',
                                      nodes=[{'name': 'node3.example.com'}])
    assert status == 'FAILED!', output
    assert 'mutually exclusive' in result['msg']
