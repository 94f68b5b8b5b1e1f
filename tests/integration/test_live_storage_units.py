# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Storage units read over RAPI (rapi_storage_units) from the real cluster.

The lab enables the file template: every node reports its file storage
directory as one unit.  The units must be what the nodes report
(`gnt-node list-storage`), and a plan made with them must honour them: the
lab's instances are sharedfile (shared storage takes no unit), so the plan
is the one made without units.
"""

from __future__ import annotations

# The lab's file storage lives on the host's file system: its free space
# moves with whatever else the host writes between two reads.
FREE_DRIFT_MIB = 256


def _listed_storage(lab):
    out = lab.gnt('gnt-node', 'list-storage', '-t', 'file', '--no-headers', '--units=m',
                  '--separator=,', '--output=node,name,size,free')
    rows = [line.split(',') for line in out.splitlines() if line.count(',') == 3]
    return {node: (name, int(size), int(free)) for node, name, size, free in rows}


def test_units_read_over_rapi_are_what_the_nodes_report(lab, tmp_path):
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info',
                                            {'rapi_storage_units': True, 'details': 'full'})
    assert status == 'SUCCESS', output
    listed = _listed_storage(lab)
    assert sorted(listed) == sorted(n['name'] for n in result['nodes'])
    for node in result['nodes']:
        name, size, free = listed[node['name']]
        assert [(u['type'], u['key'], u['total']) for u in node['storage_units']] == [
            ('file', name, size)], node
        assert abs(node['storage_units'][0]['free'] - free) <= FREE_DRIFT_MIB, node
    units = result['storage_unit_metrics']
    assert [(u['type'], u['key'], u['nodes']) for u in units] == [
        ('file', listed['node1'][0], len(listed))]

    # without the option, no units (hbal's model)
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info', {'details': 'full'})
    assert status == 'SUCCESS', output
    assert all(node['storage_units'] == [] for node in result['nodes'])


def test_a_plan_with_units_honours_them(fresh, tmp_path):
    lab = fresh
    status, with_units, output = lab.run_module(tmp_path, 'ganeti_balance',
                                                {'rapi_storage_units': True}, check=True)
    assert status == 'CHANGED', output
    status, without, output = lab.run_module(tmp_path, 'ganeti_balance', check=True)
    assert status == 'CHANGED', output
    moves = [(m['instance'], m['move'], m['new_primary'], m['new_secondary'])
             for m in with_units['plan']['moves']]
    assert moves == [(m['instance'], m['move'], m['new_primary'], m['new_secondary'])
                     for m in without['plan']['moves']]
    # the units are part of what the plan depends on
    assert with_units['plan']['fingerprint'] != without['plan']['fingerprint']
