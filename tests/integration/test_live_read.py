# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(a) ganeti_cluster_info reads the live cluster over RAPI as the real hbal -m does."""

from __future__ import annotations

import contextlib
import os
import re
import time

import pytest


def _raw_sizes(lab):
    """The node sizes RAPI reports, which a live cluster may change at any time."""
    return {name: (n['mtotal'], n['mnode'], n['mfree'], n['dtotal'], n['dfree'],
                   n['ctotal'], n['pinst_cnt'], n['sinst_cnt'])
            for name, n in lab.nodes().items()}


def _hbal_table(output):
    lines = output.splitlines()
    start = lines.index('Initial cluster status:') + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return [line.rstrip() for line in lines[start:end]]


def _steady_sizes(lab, deadline):
    """The node sizes once two reads 2 s apart agree (or at the deadline)."""
    sizes = _raw_sizes(lab)
    while time.monotonic() < deadline:
        time.sleep(2)
        again = _raw_sizes(lab)
        if again == sizes:
            break
        sizes = again
    return sizes


@contextlib.contextmanager
def _disk_taken_outside_ganeti(lab, node, mib):
    """A file that no instance owns, in `node`'s storage directory (a tmpfs,
    tests/lab/up.sh): the node then reports less free disk than its
    instances explain, which hbal warns about as inconsistent data."""
    path = os.path.join(lab.base, 'vc', node, 'file-storage', 'not-ganetis')
    with open(path, 'wb') as handle:
        os.posix_fallocate(handle.fileno(), 0, mib << 20)
    try:
        yield
    finally:
        os.remove(path)


def test_cluster_info_scores_the_live_cluster_like_hbal(lab, tmp_path):
    # hbal warns when a node's used disk exceeds its instances' disks by more
    # than a GiB: take 1.5 GiB more than the primaries of the node with the
    # fewest of them hold (earlier tests may have moved instances anywhere)
    insts = lab.instances().values()
    node = min(sorted(lab.nodes()), key=lambda n: sum(i['pnode'] == n for i in insts))
    held = sum(sum(i['disk.sizes']) for i in insts if i['pnode'] == node)
    with _disk_taken_outside_ganeti(lab, node, held + 1536):
        _scores_like_hbal(lab, tmp_path)


def _scores_like_hbal(lab, tmp_path):
    # Node memory comes from the hypervisor and may move between two reads
    # (the lab fixes it, a "host" lab does not), and so may free disk on a
    # lab whose storage is not its own: accept a round only if RAPI reported
    # the same sizes before the module's read and after hbal's, starting
    # each round once the sizes hold still.
    rounds = []
    deadline = time.monotonic() + 600
    while True:
        before = _steady_sizes(lab, deadline)
        status, result, output = lab.run_module(
            tmp_path, 'ganeti_cluster_info',
            {'rapi_url': lab.url, 'rapi_user': lab.user, 'ca_path': lab.ca, 'details': 'full'})
        hbal = lab.hbal('--print-nodes')
        after = _raw_sizes(lab)
        if before == after:
            break
        rounds.append((before, after))
        if time.monotonic() >= deadline:
            pytest.fail('node sizes never stayed stable across a module run and an hbal run '
                        'in 10 minutes: %s' % rounds[-3:])

    assert status == 'SUCCESS', output
    assert result['changed'] is False
    loaded = 'Loaded %d nodes, %d instances' % (len(result['nodes']), len(result['instances']))
    assert re.search('^%s$' % loaded, hbal, re.M)
    assert len(result['nodes']) == lab.nodes_count
    assert sorted(i['name'] for i in result['instances']) == sorted(lab.instances())
    assert result['group'] == re.search(r'^Selected node group: (\S+)$', hbal, re.M).group(1)
    score = re.search(r'^Initial score: (\S+)$', hbal, re.M).group(1)
    assert '%.8f' % result['score'] == score
    assert [line.rstrip() for line in result['node_table'].splitlines()] == _hbal_table(hbal)
    # hbal's "inconsistent data" warnings (the disk taken outside Ganeti) are
    # reported too
    hbal_warnings = re.findall(r'^  - (node .*)$', hbal, re.M)
    assert hbal_warnings and set(hbal_warnings) <= set(result['data_warnings'])
    # besides them, only the live values RAPI left null, which hbal -m takes as 0 silently
    extra = [w for w in result['data_warnings'] if w not in hbal_warnings]
    assert all('taken as 0 as hbal -m does' in w for w in extra), extra
