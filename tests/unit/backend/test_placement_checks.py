# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Placements no planner can model are refused by every loader, naming the instance:
a DRBD instance without a secondary (hbal 3.0.2 crashes on it), or with its
primary as secondary, and duplicate names."""

from __future__ import annotations

import copy
import random

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.ialloc import load_ialloc
from ansible_collections.ganeti.htools.plugins.module_utils.backend.rapi_json import load_rapi
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError

from kit.backend_docs import model_to_ialloc, model_to_rapi
from kit.paths import EXAMPLE

NO_SECONDARY = 'instance web01.example.com: disk template drbd needs a secondary node'
SAME_NODES = 'instance web01.example.com has the same primary and secondary node'


def _example_text():
    with open(EXAMPLE, encoding='utf-8') as handle:
        return handle.read()


def _text_with(line_edit):
    lines = _example_text().split('\n')
    return '\n'.join(line_edit(line) if line.startswith('web01.') else line for line in lines)


def _rapi_docs():
    return model_to_rapi(load_text(_example_text()), random.Random(1))


def _ialloc_doc():
    return model_to_ialloc(load_text(_example_text()), random.Random(1))


def test_text_drbd_without_secondary_is_refused(tmp_path):
    path = tmp_path / 'nosec.data'
    path.write_text(_text_with(lambda line: line.replace('|node2.example.com|drbd', '||drbd')))
    with pytest.raises(DataError) as err:
        load_data_file(str(path))
    assert NO_SECONDARY in str(err.value)
    assert str(path) in str(err.value)


def _rapi_web01(docs):
    return next(i for i in docs['instances'] if i['name'] == 'web01.example.com')


def test_rapi_drbd_without_secondary_is_refused():
    docs = _rapi_docs()
    _rapi_web01(docs)['snodes'] = []
    with pytest.raises(DataError, match=NO_SECONDARY):
        load_rapi(docs['info'], docs['nodes'], docs['instances'], docs['groups'])


def test_rapi_drbd_on_one_node_twice_is_refused():
    docs = _rapi_docs()
    inst = _rapi_web01(docs)
    inst['snodes'] = [inst['pnode']]
    with pytest.raises(DataError, match=SAME_NODES):
        load_rapi(docs['info'], docs['nodes'], docs['instances'], docs['groups'])


def test_rapi_duplicate_instance_names_are_refused():
    docs = _rapi_docs()
    docs['instances'].append(copy.deepcopy(_rapi_web01(docs)))
    with pytest.raises(DataError, match="duplicate instance name 'web01.example.com'"):
        load_rapi(docs['info'], docs['nodes'], docs['instances'], docs['groups'])


@pytest.mark.parametrize('nodes, message', [
    (lambda placement: placement[:1], NO_SECONDARY),
    (lambda placement: [placement[0], placement[0]], SAME_NODES),
], ids=['no-secondary', 'primary-twice'])
def test_ialloc_bad_drbd_placement_is_refused(nodes, message):
    doc = _ialloc_doc()
    inst = doc['instances']['web01.example.com']
    inst['nodes'] = nodes(inst['nodes'])
    with pytest.raises(DataError, match=message):
        load_ialloc(doc)


def test_a_good_placement_still_loads():
    assert len(load_text(_example_text()).instances) == len(_rapi_docs()['instances'])
