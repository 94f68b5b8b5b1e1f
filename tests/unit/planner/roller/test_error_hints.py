# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hroller's bare failures keep hroller's words (str(), compared by the parity
tests) and carry what the operator needs besides them (hint, shown by the module)."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.errors import explained
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller import errors
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.errors import (
    RollerError)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    plan_reboots)

NODE = '%s|32768|1024|%d|200000|190000|16|%s|uuid-g1|1|%s'
INSTANCE = '%s|%d|1024|1|running|Y|%s|%s|drbd||1'


def cluster(free=(29000, 29000, 29000), tags=('rack:a', 'rack:b', ''), master=0, mem=512):
    nodes = [NODE % ('n%d' % k, free[k], 'M' if k == master else 'N', tags[k])
             for k in range(3)]
    instances = [INSTANCE % ('big', mem, 'n0', 'n1'), INSTANCE % ('small', 512, 'n1', 'n2')]
    text = '\n'.join(['g1|uuid-g1|preferred|', 'g2|uuid-g2|preferred|', ''] + nodes + ['']
                     + instances + ['', '']) + '\n'
    return load_text(text, source='test')


def failure(data, **opts):
    options = dict(force=False)
    options.update(opts)
    with pytest.raises(RollerError) as caught:
        plan_reboots(data, options)
    return caught.value


def test_tags_matching_nothing_are_named_with_the_tags_there_are():
    err = failure(cluster(), node_tags=['green', 'blue'])
    assert str(err) == errors.NO_GRAPH
    assert err.hint == ('no node carries the node_tags blue, green; the nodes\' tags are '
                        'rack:a, rack:b')
    assert explained(err) == '%s (%s)' % (errors.NO_GRAPH, err.hint)


def test_tags_outside_the_selection_say_so():
    err = failure(cluster(), node_tags=['rack:a'], group='g1', nodes=['n1', 'n2'])
    assert str(err) == errors.NO_GRAPH
    assert 'no online node of the selection carries any of the node_tags rack:a' in err.hint
    assert 'selected nodes\' tags are rack:b' in err.hint


def test_an_unplaceable_instance_is_named_with_its_reason():
    # n1 has no memory left for "big" (8 GiB) when it migrates off n0
    err = failure(cluster(free=(29000, 1000, 29000), mem=8192), full_evacuation=True)
    assert str(err) == errors.NO_MIGRATION
    assert err.hint.endswith('instance big cannot migrate from n0 to n1, as n1 cannot take '
                             'it as primary: not enough free memory (FailMem)'), err.hint


def test_a_missing_master_points_at_the_m_column():
    err = failure(cluster(master=None))
    assert str(err) == errors.NO_MASTER
    assert 'M in its 8th field' in err.hint and 'IAllocator' in err.hint
    assert 'force' in err.hint


def test_an_unknown_group_lists_the_groups():
    err = failure(cluster(), group='nosuch')
    assert str(err) == errors.NO_GROUP
    assert err.hint == 'no node group is named or has the UUID nosuch; the groups are g1, g2'
