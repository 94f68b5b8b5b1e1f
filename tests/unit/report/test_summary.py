# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The short plans of ganeti_balance and ganeti_rolling_reboot (`summary`)."""

from __future__ import annotations

import re

import pytest

from kit.plans import plan_balance
from kit.plans import plan_rolling_reboot
from ansible_collections.ganeti.htools.plugins.module_utils.plan import lines as summary
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.summary import (
    balance_summary)

from kit.paths import EXAMPLE

JOBSET_LINE = re.compile(r'^  jobset (\d+) \((\d+) moves?\): (.*?)( and (\d+) more)?$')


def _words_of_action(move):
    """The plain words of a balance move, derived from hbal's own notation
    (`f r:node7 f`), independently of plan/move_words.py."""
    primary, secondary = move['old_primary'], move['old_secondary']
    domain = '.' + primary.split('.', 1)[1] if '.' in primary else ''
    words = []
    for code in move['action'].split():
        if code == 'f':
            primary, secondary = secondary, primary
            words.append('migrate to ' + primary)
        elif code.startswith('fa:'):
            primary = code[3:] + domain
            words.append('migrate to ' + primary)
        else:
            assert code.startswith('r:'), code
            secondary = code[2:] + domain
            words.append('new secondary ' + secondary)
    assert (primary, secondary) == (move['new_primary'], move['new_secondary'])
    return ', then '.join(words)


def test_balance_summary_tells_the_plan():
    plan = plan_balance(EXAMPLE)
    lines = plan['summary'].split('\n')
    assert lines[0] == 'group %s: score %.8f -> %.8f, %d moves in %d jobsets' % (
        plan['group'], plan['initial_score'], plan['final_score'], len(plan['moves']),
        len(plan['jobsets']))
    shown = [JOBSET_LINE.match(line) for line in lines if line.startswith('  jobset ')]
    assert len(shown) == min(len(plan['jobsets']), summary.LINES_SHOWN)
    for match in shown:
        jobset = plan['jobsets'][int(match.group(1)) - 1]
        assert int(match.group(2)) == len(jobset)
        listed = match.group(3).split('; ')
        assert len(listed) == min(len(jobset), summary.MOVES_SHOWN)
        for text, index in zip(listed, jobset):
            move = plan['moves'][index - 1]
            # the move in plain words, the names without the cluster's domain
            expected = '%s: %s' % (move['instance'], _words_of_action(move))
            assert text == expected.replace('.example.com', '')
            assert '[' not in text and 'replace_' not in text
    more = len(plan['jobsets']) - summary.LINES_SHOWN
    assert ('  ... and %d more jobsets' % more in lines) == (more > 0)
    assert plan['stop_reason'] in lines


def test_a_balanced_group_says_so(tmp_path):
    plan = plan_balance(EXAMPLE, max_length=0)
    assert plan['summary'].split('\n')[0].endswith(', 0 moves in 0 jobsets')


def test_reboot_summary_counts_nodes_waves_and_moves():
    plan = plan_rolling_reboot(EXAMPLE)
    assert plan['moves'] and any(w['has_master'] for w in plan['waves'])
    lines = plan['summary'].split('\n')
    nodes = sum(len(w['nodes']) for w in plan['waves'])
    assert lines[0].startswith('%d nodes in %d waves (reboot groups), %d instance moves' % (
        nodes, len(plan['waves']), len(plan['moves'])))
    for wave, line in zip(plan['waves'], lines[1:]):
        assert line.startswith('  wave %d: ' % wave['wave'])
        shown = wave['nodes'][:summary.NODES_SHOWN]
        assert ', '.join(n.replace('.example.com', '') for n in shown) in line
        assert ('(the master)' in line) == wave['has_master']
        if wave['moves']:
            assert ('; %d move%s' % (len(wave['moves']), '' if len(wave['moves']) == 1 else 's')
                    ) in line
        # every wave of the example overloads a node or fails N+1 while it is down
        assert not wave['down']['fits'] and line.endswith(')')
        assert '; does not fit while down (' in line
        for name in wave['down']['over_capacity']:
            assert name.replace('.example.com', '') in line.partition('over capacity: ')[2]


@pytest.mark.parametrize('names,suffix', [
    (['node1.example.com', 'inst1.example.com'], '.example.com'),
    (['node1.a.example.com', 'node2.b.example.com'], '.example.com'),
    (['node1', 'node2.example.com'], ''),
    (['node1.example.com', 'node2.example.org'], ''),
    (['.example.com', 'node1.example.com'], '.com'),    # something must be left of a name
    ([], ''),
])
def test_the_common_domain_is_cut_only_when_every_name_has_it(names, suffix):
    assert summary.domain_suffix(names) == suffix


def test_long_jobsets_are_cut_with_a_count():
    plan = plan_balance(EXAMPLE)
    plan['jobsets'] = [[m['index'] for m in plan['moves']]]      # all in one jobset
    line = next(text for text in balance_summary(plan).split('\n')
                if text.startswith('  jobset '))
    match = JOBSET_LINE.match(line)
    assert match and int(match.group(2)) == len(plan['moves'])
    assert len(match.group(3).split('; ')) == summary.MOVES_SHOWN
    assert int(match.group(5)) == len(plan['moves']) - summary.MOVES_SHOWN
