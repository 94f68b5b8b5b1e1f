# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The order of the instances in a node evacuation built from options: the
order Ganeti's own request has (its configuration's, by instance UUID) when
the data carries UUIDs, else the order of the data."""

from __future__ import annotations

import random

from kit.backend_docs import model_to_rapi, write_rapi_dir

from ansible_collections.ganeti.htools.plugins.module_utils.backend.rapi_json import load_rapi_dir
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.request import (
    from_options)

CLUSTER = '\n'.join(
    ['default|uuid-g1|preferred|', '']
    + ['node%d|32768|1024|29000|200000|190000|16|%s|uuid-g1|1|' % (k, 'M' if k == 1 else 'N')
       for k in range(1, 5)]
    + ['']
    + ['inst%02d|512|1024|1|running|Y|node2|node%d|drbd||1' % (k, 3 + k % 2) for k in range(12)]
    + ['', '']) + '\n'


def _names(data, request):
    return [data.instances[idx].name for idx in request.idxs]


def test_text_data_keeps_its_order():
    data = load_text(CLUSTER, source='t')
    request = from_options(data, {'nodes': ['node2'], 'mode': 'primary-only'})
    assert _names(data, request) == ['inst%02d' % k for k in range(12)]


def test_rapi_data_is_in_ganetis_configuration_order(tmp_path):
    docs = model_to_rapi(load_text(CLUSTER, source='t'), random.Random(1))
    shuffled = list(range(12))
    random.Random(2).shuffle(shuffled)
    for inst, key in zip(docs['instances'], shuffled):
        inst['uuid'] = '%08x-0000-4000-8000-000000000000' % (key * 7919)
    data = load_rapi_dir(write_rapi_dir(docs, str(tmp_path / 'rapi')))
    by_uuid = sorted(docs['instances'], key=lambda inst: inst['uuid'])
    for mode in ('primary-only', 'secondary-then-primary', 'all'):
        request = from_options(data, {'nodes': ['node2'], 'mode': mode})
        assert _names(data, request) == [inst['name'] for inst in by_uuid], mode
    assert [i['name'] for i in by_uuid] != sorted(i['name'] for i in by_uuid)
