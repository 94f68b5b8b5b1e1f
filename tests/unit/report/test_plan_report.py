# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HTML report of a plan (report/html.py): what it shows equals the plan.

Read back without a browser (kit/report_page.py); tests/browser checks the
same page in chromium.
"""

from __future__ import annotations

import copy
import re

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.plan.cost import duration_text, size_text
from ansible_collections.ganeti.htools.plugins.module_utils.plan.envelope import make_plan, plan_report
from kit.plans import plan_balance
from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import evacuate
from ansible_collections.ganeti.htools.plugins.module_utils.planner.roller.planner import (
    USAGE_WAVES_SHOWN)
from kit.plans import plan_rolling_reboot
from ansible_collections.ganeti.htools.plugins.module_utils.report import svg
from ansible_collections.ganeti.htools.plugins.module_utils.report.html import render_plan_html
from ansible_collections.ganeti.htools.plugins.module_utils.report.plan_view import (
    NotAPlan, plan_view)
from ansible_collections.ganeti.htools.plugins.module_utils.plan.usage import (
    from_node_record)

from kit.paths import EXAMPLE
from kit.report_page import bars_by, expected_rows, read_page

METRICS = [m[0] for m in svg.METRICS]


@pytest.fixture(scope='module')
def balance():
    return plan_balance(EXAMPLE)


@pytest.fixture(scope='module')
def reboot():
    return plan_rolling_reboot(EXAMPLE)


@pytest.fixture(scope='module')
def evacuation():
    data, _fmt = load_data_file(EXAMPLE)
    return evacuate(data, {'nodes': ['node3.example.com'], 'mode': 'all', 'drain': True})


def _used_pct(record):
    return 100.0 * (record['mem_total'] - record['mem_free']) / record['mem_total']


def test_balance_page_has_a_bar_per_node_and_state_equal_to_the_plan(balance):
    page = read_page(render_plan_html(balance))
    names = [n['fqdn'] for n in balance['nodes_before']]
    for metric in METRICS:
        for state in ('before', 'after'):
            assert sorted(bars_by(page, metric, state)) == sorted(names), (metric, state)
    for state, records in (('before', balance['nodes_before']), ('after', balance['nodes_after'])):
        mem = bars_by(page, 'mem', state)
        count = bars_by(page, 'instances', state)
        for record in records:
            usage = from_node_record(record)
            assert mem[usage['name']] == pytest.approx(_used_pct(usage), abs=1e-4)
            assert count[usage['name']] == record['pcnt'] + record['scnt']


def test_balance_page_has_a_score_per_step(balance):
    page = read_page(render_plan_html(balance))
    assert [int(p['data-step']) for p in page.points] == list(range(len(balance['moves']) + 1))
    scores = [float(p['data-score']) for p in page.points]
    assert scores == [balance['initial_score']] + [m['score'] for m in balance['moves']]


def test_balance_moves_table_equals_the_plan_grouped_by_jobset(balance):
    page = read_page(render_plan_html(balance))
    in_table_order = [balance['moves'][i - 1] for js in balance['jobsets'] for i in js]
    keys = ('index', 'instance', 'description', 'old_primary', 'old_secondary', 'new_primary',
            'new_secondary', 'jobset', 'score_text')
    assert [[row[k] for k in keys] for row in page.rows] == expected_rows(in_table_order, keys)
    assert len(page.groups) == len(balance['jobsets'])
    for number, (label, jobset) in enumerate(zip(page.groups, balance['jobsets']), start=1):
        assert label.startswith('jobset %d: %d move' % (number, len(jobset)))


def test_balance_page_says_what_the_plan_copies_and_how_long_it_takes(balance):
    page = read_page(render_plan_html(balance))
    copied = [row['data_copied'] for row in page.rows]
    in_table_order = [balance['moves'][i - 1] for js in balance['jobsets'] for i in js]
    assert copied == [size_text(m['data_copied_mib']) if m['data_copied_mib'] else 'none'
                      for m in in_table_order]
    text = render_plan_html(balance)
    cost = balance['cost']
    assert 'data-fact="disk data copied"><b>%s (%d disk copies)<' % (
        size_text(cost['data_copied_mib']), cost['disk_copies']) in text
    assert 'about %s at 60 MiB/s' % duration_text(cost['estimated_seconds']) in text


def test_balance_page_draws_the_share_of_gain_against_the_data_copied(balance):
    page = read_page(render_plan_html(balance))
    copied = 0
    initial, final = balance['initial_score'], balance['final_score']
    expected = [(0.0, 0.0)]
    for move in balance['moves']:
        copied += move['data_copied_mib']
        expected.append((copied / 1024.0, 100.0 * (initial - move['score']) / (initial - final)))
    gained = [(float(p['data-gib']), float(p['data-gain'])) for p in page.gain_points]
    assert [d for d, _g in gained] == pytest.approx([d for d, _g in expected])
    assert [g for _d, g in gained] == pytest.approx([g for _d, g in expected])
    assert gained[-1][1] == pytest.approx(100.0)
    # the budget table the result carries is read off the same curve
    for row in balance['cost']['gain_by_budget']:
        within = [g for d, g in expected if d * 1024.0 <= row['data_copied_mib']]
        assert row['gain_fraction'] == pytest.approx(max(within) / 100.0, abs=1e-4)


def test_n1_failures_and_warnings_are_highlighted(balance):
    result = dict(balance, data_warnings=['node9 reports <odd> memory'])
    text = render_plan_html(result)
    assert 'node9 reports &lt;odd&gt; memory' in text
    failing = ', '.join(balance['n1_failures'])
    assert failing and 'N+1 fails before the plan on: %s' % failing in text
    assert re.search(r'class="fact alert" data-fact="N\+1 failing nodes before"><b>%d<'
                     % len(balance['n1_failures']), text)


def test_a_plan_document_alone_gives_the_same_page_as_its_result(balance):
    plan = make_plan('balance', balance, {'nodes': {}}, {})
    result = dict(plan_report(plan), moves=plan['moves'], jobsets=plan['jobsets'], plan=plan)
    assert render_plan_html(plan) == render_plan_html(result)
    assert 'plan id:</b> %s' % plan['plan_id'] in render_plan_html(plan)


def test_the_page_is_self_contained_and_escapes_the_plan(balance):
    hostile = copy.deepcopy(balance)
    hostile['moves'][0]['instance'] = '<script>alert(1)</script>'
    hostile['nodes_before'][0]['fqdn'] = 'node"><img src=x onerror=alert(1)>'
    text = render_plan_html(hostile)
    page = read_page(text)
    assert not {'script', 'img', 'link', 'iframe', 'object'} & page.tags
    assert page.rows[0]['instance'] == '<script>alert(1)</script>'
    # no resource from elsewhere: inline SVG in HTML needs no namespace URL either
    assert not re.search(r'(?:https?:)?//', text)
    assert 'url(' not in text and '@import' not in text


def test_reboot_page_groups_moves_by_wave_with_a_state_per_wave(reboot):
    page = read_page(render_plan_html(reboot))
    assert len(page.groups) == len(reboot['waves'])
    for label, wave in zip(page.groups, reboot['waves']):
        assert label.startswith('wave %d: reboots %s' % (wave['wave'], ', '.join(wave['nodes'])))
        assert label.endswith('fits while down') == wave['down']['fits']
    rows = [[row[k] for k in ('index', 'instance', 'new_primary', 'jobset', 'note')]
            for row in page.rows]
    assert rows == expected_rows(reboot['moves'], ('index', 'instance', 'new_primary', 'jobset',
                                                   'note'))
    states = [s['state'] for s in reboot['node_usage']]
    shown = reboot['waves'][:USAGE_WAVES_SHOWN]
    assert shown and states == ['before'] + ['wave %d' % w['wave'] for w in shown]
    names = [n['name'] for n in reboot['node_usage'][0]['nodes']]
    for state in states:
        assert sorted(bars_by(page, 'cpu', state)) == sorted(names)
    assert not page.points                  # a reboot plan has no score


def test_reboot_rows_give_the_size_and_what_an_instance_move_does(reboot):
    page = read_page(render_plan_html(reboot))
    moved = [r for r in page.rows
             if reboot['moves'][int(r['index']) - 1]['move'] == 'instance_move']
    assert moved
    for row in moved:
        move = reboot['moves'][int(row['index']) - 1]
        assert row['size'] == '%g GiB memory, %g GiB disk' % (
            round(move['memory_mib'] / 1024.0, 1), round(move['disk_mib'] / 1024.0, 1))
        assert row['note'].startswith('stops; its ') and 'downtime' in row['note']
        assert move['new_primary'] in row['note']


def test_reboot_wave_state_is_the_cluster_while_the_wave_is_down(reboot):
    before = {n['name']: n for n in reboot['node_usage'][0]['nodes']}
    for wave, state in zip(reboot['waves'], reboot['node_usage'][1:]):
        during = {n['name']: n for n in state['nodes']}
        for name in wave['nodes']:
            assert during[name]['down'] and during[name]['primaries'] == 0
        for index in wave['moves']:
            move = reboot['moves'][index - 1]
            assert during[move['new_primary']]['primaries'] > before[move['new_primary']]['primaries']
        flagged = {n for n, r in during.items() if r['over_capacity']}
        assert flagged == set(wave['down']['over_capacity'])
        assert {n for n, r in during.items() if r['n1_fail'] and not r['down']} >= set(
            wave['down']['n1_failing'])


def test_reboot_page_flags_node1_over_capacity_while_wave_1_is_down(reboot):
    text = render_plan_html(reboot)
    page = read_page(text)
    mem = bars_by(page, 'mem', 'wave 1')
    assert 109 <= float(mem['node1.example.com']) < 112
    assert 'Over capacity while wave 1 is down: node1.example.com' in text
    assert reboot['waves'][0]['down']['problems'][0]['text'] in text
    assert 'data-fact="waves that do not fit while down"><b>4</b>' in text


def test_evacuation_page_shows_failed_instances_and_the_groups_scores(evacuation):
    assert evacuation['failed_instances'] and evacuation['moves']
    text = render_plan_html(evacuation)
    page = read_page(text)
    for failed in evacuation['failed_instances']:
        assert 'data-instance="%s"' % failed['instance'] in text
    # no cross-group score line: each group's own score, in its table
    assert not page.points
    (group,) = evacuation['scores']
    assert re.search(r'<tr data-group="%s"><td>%s</td><td>source and target</td>'
                     r'<td class="num">%.8f</td><td class="num">%.8f</td></tr>' % (
                         group, group, evacuation['scores'][group]['before'],
                         evacuation['scores'][group]['after']), text)
    # the evacuated node is marked in every chart
    assert text.count('class="node evacuated" x=') + text.count('class="node n1 evacuated" x=') \
        == len(svg.METRICS)
    assert '<tspan class="label">node3 (evacuated)</tspan>' in text
    assert [row['instance'] for row in page.rows] == [m['instance'] for m in evacuation['moves']]
    after = bars_by(page, 'instances', 'after')
    usage = {n['name']: n for n in evacuation['node_usage'][1]['nodes']}
    assert after == {k: v['primaries'] + v['secondaries'] for k, v in usage.items()}
    assert after['node3.example.com'] == len(evacuation['failed_instances'])


def test_a_plan_without_moves_says_so():
    quiet = plan_balance(EXAMPLE, max_length=0)
    text = render_plan_html(quiet)
    assert 'The plan has no moves.' in text
    assert 'id="scores"' not in text        # a single score makes no line
    assert len(read_page(text).bars) == 2 * len(METRICS) * len(quiet['nodes_before'])


def test_usage_from_the_model_equals_usage_from_balance_node_records(balance, evacuation):
    # two ways to the same records: the evacuation's model nodes, the balance's -p rows
    from_model = evacuation['node_usage'][0]['nodes']
    from_rows = [from_node_record(n) for n in balance['nodes_before']]
    assert sorted(from_model, key=lambda n: n['name']) == sorted(from_rows,
                                                                 key=lambda n: n['name'])


@pytest.mark.parametrize('value', [None, [], 'text', {}, {'moves': []}])
def test_what_is_not_a_plan_is_refused(value):
    with pytest.raises(NotAPlan):
        plan_view(value)


@pytest.mark.parametrize('values,unit,top,step', [
    ([53.0, 74.0], '%', 100.0, 25.0),
    ([102.0], '%', 125.0, 25.0),
    ([180.0], '%', 200.0, 50.0),
    ([19.0, 20.0], '', 20.0, 5.0),
    ([22.0], '', 25.0, 5.0),
    ([0.0], '', 1.0, 1.0),
    ([3.0], '', 3.0, 1.0),
])
def test_usage_axes_end_on_round_ticks(values, unit, top, step):
    assert svg.axis(values, unit) == (top, step)


ONE_MOVE_CLUSTER = '\n'.join([
    'g1|uuid-g1|preferred|', '',
    'n1|32768|1024|29000|200000|190000|16|M|uuid-g1|1|',
    'n2|32768|1024|29000|200000|190000|16|N|uuid-g1|1|',
    'n3|32768|1024|29000|200000|190000|16|N|uuid-g1|1|', '',
    'd0|512|1024|1|running|Y|n2|n3|drbd||1', '', '']) + '\n'


def test_jobset_labels_say_in_parallel_only_of_several_moves(balance, tmp_path):
    path = tmp_path / 'one.data'
    path.write_text(ONE_MOVE_CLUSTER)
    data, _fmt = load_data_file(str(path))
    single = evacuate(data, {'nodes': ['n2'], 'mode': 'primary-only'})
    assert single['jobsets'] == [[1]]
    labels = {len(g['moves']): g['label']
              for result in (balance, single) for g in plan_view(result)['groups']}
    assert labels[1].endswith(': 1 move')
    assert labels[2].endswith(': 2 moves, run in parallel')
