# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A run's marks: node tags to the collection, cluster tags to Ganeti
(run_tags' two forms, live/run_marks' reading and writing)."""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils import run_tags
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live import run_marks

MARKS = ['ganeti.htools:rolling:r1', 'ganeti.htools:candidate:r1', 'ganeti.htools:rebooted:r1',
         'ganeti.htools:skipped:r1', 'ganeti.htools:master:r1',
         'ganeti.htools:rebooting:r1:0c3a9f4e-6d1b-4f0e-9a53-6b7e2c1d8f00',
         'ganeti.htools:away:r1:web1.example.com']
NOT_MARKS = ['reboot', 'ganeti.htools:lock:owner:1:2', 'ganeti.htools:rolling:r1:extra',
             'ganeti.htools:away:r1', 'ganeti.htools:rebooting:r1', 'ganeti.htools:rolling:',
             'htools:migration:a']


def test_every_mark_goes_to_its_cluster_tag_and_back_to_its_node():
    node = 'node17.rack3.example.com'
    kept = [run_tags.cluster_tag(node, m) for m in MARKS]
    assert kept[0] == 'ganeti.htools:rolling:r1:node17.rack3.example.com'
    assert kept[-1] == 'ganeti.htools:away:r1:node17.rack3.example.com:web1.example.com'
    assert all(run_tags.is_mark(m) and run_tags.is_kept_mark(k) for m, k in zip(MARKS, kept))
    assert run_tags.project(kept + ['site-a', 'ganeti.htools:lock:o:1:2']) == {node: MARKS}


@pytest.mark.parametrize('tag', NOT_MARKS)
def test_other_tags_are_no_marks(tag):
    assert not run_tags.is_mark(tag)


@pytest.mark.parametrize('tag', NOT_MARKS[:2] + NOT_MARKS[3:] + MARKS[:6])
def test_other_cluster_tags_keep_no_marks(tag):
    # a node's mark in its node form is no cluster tag of a mark, but
    # rebooting:r1:BOOT_ID reads as node BOOT_ID's mark without a boot id: none
    assert not run_tags.is_kept_mark(tag)


def test_a_mark_too_long_for_a_cluster_tag_is_a_clear_error():
    mark = run_tags.away_tag('r' * 40, 'i' * 40)
    assert len(run_tags.cluster_tag('n' * 27, mark)) == 128
    with pytest.raises(HtoolsError, match='longer than Ganeti allows.*shorter run id'):
        run_tags.cluster_tag('n' * 28, mark)


def test_nodes_show_their_kept_marks_after_their_own_tags():
    rows = [{'name': 'n1', 'tags': ['rack1', 'ganeti.htools:rebooted:r0']}, {'name': 'n2'}]
    shown = run_marks.onto_nodes(rows, ['site-a', 'ganeti.htools:rolling:r1:n1'])
    assert shown[0]['tags'] == ['rack1', 'ganeti.htools:rebooted:r0', 'ganeti.htools:rolling:r1']
    assert run_marks.origins(shown[0]) == {run_marks.FROM_CLUSTER: ['ganeti.htools:rolling:r1'],
                                           run_marks.ON_NODE: ['ganeti.htools:rebooted:r0']}
    assert shown[1]['tags'] == []


class Recorder:
    def __init__(self, tags=()):
        self.jobs, self.tags = [], list(tags)

    def cluster_tags(self):
        return self.tags

    def add_cluster_tags(self, tags, reason=None):
        self.jobs.append(('cluster+', tuple(tags), reason))

    def add_node_tags(self, node, tags, reason=None):
        self.jobs.append(('node+', node, tuple(tags), reason))

    def delete_cluster_tags(self, tags, reason=None):
        self.jobs.append(('cluster-', tuple(tags), reason))

    def delete_node_tags(self, node, tags, reason=None):
        self.jobs.append(('node-', node, tuple(tags), reason))


def test_all_nodes_marks_go_in_one_job_and_each_is_removed_where_it_is_kept():
    client = Recorder()
    assert run_marks.add_jobs(client, {'n1': [], 'n2': []}, 'why') == []
    [job] = run_marks.add_jobs(client, {'n2': MARKS[:1], 'n1': MARKS[:2]}, 'why')
    job()
    assert client.jobs == [('cluster+', ('ganeti.htools:rolling:r1:n1', 'ganeti.htools:candidate:r1:n1',
                                         'ganeti.htools:rolling:r1:n2'), 'why')]
    rows = {'n1': {run_marks.FROM_CLUSTER: MARKS[:1], run_marks.ON_NODE: MARKS[1:2]},
            'n2': {run_marks.FROM_CLUSTER: MARKS[:1], run_marks.ON_NODE: MARKS[:1]}}
    del client.jobs[:]
    for job in run_marks.remove_jobs(client, rows, {'n1': MARKS[:3], 'n2': MARKS[:1]}, 'why'):
        job()
    # a mark kept in both places (a run resumed across an upgrade) goes from both
    assert client.jobs == [('cluster-', ('ganeti.htools:rolling:r1:n1', 'ganeti.htools:rolling:r1:n2'), 'why'),
                           ('node-', 'n1', ('ganeti.htools:candidate:r1',), 'why'),
                           ('node-', 'n2', ('ganeti.htools:rolling:r1',), 'why')]


def test_marks_the_cluster_has_no_room_for_go_on_their_nodes():
    room = run_marks.MAX_TAGS - run_marks.KEEP_FREE
    client = Recorder(['t%d' % i for i in range(room - 3)])
    [job] = run_marks.add_jobs(client, {'n1': MARKS[:2], 'n2': MARKS[:1]}, 'why')
    client.tags.append('one-more')
    jobs = run_marks.add_jobs(client, {'n1': MARKS[:2], 'n2': MARKS[:1]}, 'why')
    for job in jobs:
        job()
    assert client.jobs == [('node+', 'n1', tuple(MARKS[:2]), 'why'), ('node+', 'n2', tuple(MARKS[:1]), 'why')]
