# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_rolling_reboot's run_id, nodes and exclude_node_tags (ours, not hroller's):
what the rolling_reboot role relies on to go wave by wave and to resume."""

from __future__ import annotations

import os

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils import run_tags
from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.errors import RollerError
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    plan_reboots)

DATA = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'data', 'spec', 'c142.data')


def plan(tags=None, drained=(), kept_in_cluster=False, **opts):
    """The plan with `tags` ({node: marks}) on the nodes, or with
    `kept_in_cluster` as the cluster tags that keep them."""
    data, _fmt = load_data_file(DATA)
    for node in data.nodes:
        marks = list((tags or {}).get(node.name, ()))
        node.tags = [] if kept_in_cluster else marks
        if kept_in_cluster:
            data.cluster_tags += [run_tags.cluster_tag(node.name, m) for m in marks]
        if node.name in drained:        # as the RAPI loader models a drained node
            node.drained, node.offline = True, True
    return plan_reboots(data, dict(force=True, **opts))


def test_without_the_extensions_the_plan_is_hrollers():
    assert plan()['reboot_groups'] == plan(run_id='r1')['reboot_groups']
    assert plan()['run'] is None


@pytest.mark.parametrize('kept_in_cluster', [False, True], ids=['node-tags', 'cluster-tags'])
def test_a_run_leaves_out_what_it_rebooted_or_skipped(kept_in_cluster):
    first = plan(run_id='r1')['reboot_groups']
    done = first[0]
    later = plan({n: ['ganeti.htools:rebooted:r1'] for n in done[:-1]}
                 | {done[-1]: ['ganeti.htools:skipped:r1']}, run_id='r1',
                 kept_in_cluster=kept_in_cluster)
    assert not set(done) & set(sum(later['reboot_groups'], []))
    assert later['run']['rebooted'] == done[:-1] and later['run']['skipped'] == done[-1:]
    # another run's marks do not count
    assert plan({n: ['ganeti.htools:rebooted:r2'] for n in done}, run_id='r1')['reboot_groups'] \
        == first


def test_the_run_lists_every_tag_of_its_own_on_each_node_and_no_other_runs():
    mine = ['ganeti.htools:rebooted:r1', 'ganeti.htools:rebooting:r1:3f2a-boot',
            'ganeti.htools:master:r1', 'ganeti.htools:away:r1:inst1', 'ganeti.htools:skipped:r1',
            'ganeti.htools:rolling:r1', 'ganeti.htools:candidate:r1']
    others = ['ganeti.htools:rebooted:r10', 'ganeti.htools:rebooting:r1x:b', 'owner:r1',
              'ganeti.htools:rebooted:r1:extra', 'ganeti.htools:lock:r1']
    names = sum(plan()['reboot_groups'], [])
    run = plan({names[0]: mine + others, names[1]: others}, run_id='r1')['run']
    # what the role's finish clears, read with the plan: no node read again
    assert run['marks'] == {names[0]: sorted(mine)}


def test_when_every_node_is_done_the_plan_is_empty_not_an_error():
    names = sum(plan()['reboot_groups'], [])
    everything = {n: ['ganeti.htools:rebooted:r1'] for n in names}
    assert plan(everything, run_id='r1')['reboot_groups'] == []
    with pytest.raises(RollerError, match='Cannot create node graph'):
        plan(everything, exclude_node_tags=['ganeti.htools:rebooted:r1'])


@pytest.mark.parametrize('kept_in_cluster', [False, True], ids=['node-tags', 'cluster-tags'])
def test_a_wave_in_progress_is_planned_alone_although_drained(kept_in_cluster):
    first = plan()['reboot_groups'][0]
    rolling = {n: ['ganeti.htools:rolling:r1'] for n in first}
    resumed = plan(rolling, drained=first, run_id='r1', kept_in_cluster=kept_in_cluster)
    assert resumed['run']['rolling'] == first
    assert sorted(sum(resumed['reboot_groups'], [])) == sorted(first)


def test_nodes_narrow_the_selection_and_unknown_ones_are_named():
    assert plan(nodes=['node1', 'node3'])['reboot_groups'] == [['node1', 'node3']]
    with pytest.raises(RollerError, match='unknown node.*nodeX'):
        plan(nodes=['node1', 'nodeX'])


def _renamed(node_name, length):
    """The data with an instance whose primary is `node_name` renamed to `length` characters."""
    data, _fmt = load_data_file(DATA)
    inst = next(i for i in data.instances if data.nodes[i.pnode].name == node_name)
    inst.name = 'i' * length
    return data, inst


def test_a_run_id_too_long_for_an_away_mark_is_refused_before_any_wave():
    node = plan()['reboot_groups'][0][0]
    # the cluster tag ganeti.htools:away:RUN:NODE:INSTANCE may not pass Ganeti's 128 characters
    length = 128 - len('ganeti.htools:away:::') - len(node) - 10
    data, _inst = _renamed(node, length)
    assert plan_reboots(data, {'force': True, 'run_id': 'r' * 10})['run']['id'] == 'r' * 10
    data, _inst = _renamed(node, length)
    with pytest.raises(HtoolsError, match='longer than Ganeti allows'):
        plan_reboots(data, {'force': True, 'run_id': 'r' * 11})
    # a node the run does not reboot may hold any instance
    data, inst = _renamed(node, 120)
    others = [n.name for n in data.nodes if n.idx not in (inst.pnode, inst.snode)]
    assert plan_reboots(data, {'force': True, 'run_id': 'r1', 'nodes': others[:1]})['run']['id'] == 'r1'


def test_a_node_name_too_long_for_the_reboot_mark_is_refused_before_any_wave():
    node = plan()['reboot_groups'][0][0]
    data, _fmt = load_data_file(DATA)
    target = next(n for n in data.nodes if n.name == node)
    # ganeti.htools:rebooting:RUN:NODE:BOOT_ID, with a boot id of 36 characters
    target.name = 'n' * (128 - len('ganeti.htools:rebooting:r1::') - 36 + 1)
    with pytest.raises(HtoolsError, match='rebooting:r1.*longer than Ganeti allows'):
        plan_reboots(data, {'force': True, 'run_id': 'r1', 'nodes': [target.name]})
    target.name = target.name[1:]
    assert plan_reboots(data, {'force': True, 'run_id': 'r1', 'nodes': [target.name]})['run']
