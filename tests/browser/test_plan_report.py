# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HTML report of the bundled example's balance plan, in a real browser.

ganeti_balance plans playbooks/files/example.data in check mode and writes
report_file; chromium (Debian's package, driven by playwright) opens the
page.  What the browser shows must equal the plan: one bar per node before
and after in every usage chart, one point of the score line per step and
one for the start, and the moves table cell for cell.

Chromium comes from the system (`apt-get install chromium`; make unit and
.ci/run install it as root), never downloaded by playwright.  Without it the
test skips, saying why - except under CI (CI=true, or HTOOLS_REQUIRE_BROWSER=1
as .ci/run sets), where it fails.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil

import pytest

from kit.ansible_cli import run_with
from kit.paths import EXAMPLE
from kit.report_page import ROW_KEYS, expected_rows

CHROMIUM = os.environ.get('HTOOLS_CHROMIUM') or shutil.which('chromium') or '/usr/bin/chromium'
METRICS = ('mem', 'disk', 'cpu', 'instances')


def _unavailable(reason):
    if os.environ.get('CI', '').lower() == 'true' or os.environ.get('HTOOLS_REQUIRE_BROWSER') == '1':
        pytest.fail('%s; under CI (CI=true or HTOOLS_REQUIRE_BROWSER) the browser test must '
                    'run' % reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope='module')
def browser():
    try:
        from playwright.sync_api import sync_playwright  # pylint: disable=import-outside-toplevel
    except ImportError:
        _unavailable('playwright is not installed (pip install -r requirements-test.txt)')
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable('chromium is not installed at %s (as root: apt-get install -y chromium, '
                     'or make unit)' % CHROMIUM)
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope='module')
def plan(tmp_path_factory):
    """The balance module's result for the example, with its report written.

    Planned once per session: under xdist the workers share the run through a
    file in the session's common temporary directory, taken under a lock.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get('PYTEST_XDIST_WORKER'):
        base = base.parent          # the session's directory, above the workers' own
    shared = base / 'browser-plan'
    shared.mkdir(exist_ok=True)
    with open(shared / 'lock', 'w', encoding='utf-8') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = shared / 'result.json'
        if not saved.exists():
            status, result, output = run_with(
                shared, 'ganeti.htools.ganeti_balance',
                dict(data_file=EXAMPLE, report_file=str(shared / 'plan.html')), '--check')
            assert status == 'CHANGED' and result['moves'], output
            saved.write_text(json.dumps(result), encoding='utf-8')
        return json.loads(saved.read_text(encoding='utf-8'))


@pytest.fixture(scope='module')
def page(browser, plan):
    tab = browser.new_page(viewport={'width': 1280, 'height': 900})
    problems, requests = [], []
    tab.on('console', lambda msg: problems.append(msg.text) if msg.type == 'error' else None)
    tab.on('pageerror', lambda err: problems.append(str(err)))
    tab.on('request', lambda req: requests.append(req.url))
    tab.goto('file://' + plan['report_file'])
    tab.wait_for_load_state('load')
    tab.problems, tab.requests = problems, requests
    yield tab
    tab.close()


def test_the_page_renders_offline_without_errors(page, plan, tmp_path):
    assert page.title() == 'Balance plan'
    assert page.locator('h1').inner_text() == 'Balance plan'
    assert not page.problems
    assert page.requests == ['file://' + plan['report_file']]     # nothing fetched
    shot = os.environ.get('HTOOLS_REPORT_SCREENSHOT') or str(tmp_path / 'plan.png')
    page.screenshot(path=shot, full_page=True)
    assert os.path.getsize(shot) > 10000


@pytest.mark.parametrize('metric', METRICS)
def test_every_chart_has_one_bar_per_node_before_and_after(page, plan, metric):
    names = sorted(n['fqdn'] for n in plan['nodes_before'])
    chart = page.locator('svg.chart.usage[data-metric="%s"]' % metric)
    assert chart.count() == 1 and chart.is_visible()
    for state in ('before', 'after'):
        bars = chart.locator('g.bar[data-state="%s"]' % state)
        assert bars.count() == len(names), (metric, state)
        assert sorted(bars.evaluate_all('gs => gs.map(g => g.dataset.node)')) == names
        # every bar is drawn, and its length (from the chart's axis to its
        # end) is its value on one scale
        drawn = bars.evaluate_all(
            'gs => gs.map(g => { const boxes = Array.from(g.querySelectorAll("rect"),'
            ' r => r.getBoundingClientRect());'
            ' return [Number(g.dataset.value), Math.max(...boxes.map(b => b.right))'
            ' - Math.min(...boxes.map(b => b.left))]; })')
        ratios = {round(width / value, 3) for value, width in drawn if value >= 1}
        assert ratios and max(ratios) - min(ratios) < 0.02 * max(ratios), drawn


def test_bar_values_are_the_plans(page, plan):
    for state, records in (('before', plan['nodes_before']), ('after', plan['nodes_after'])):
        shown = dict(page.locator('g.bar[data-metric="instances"][data-state="%s"]' % state)
                     .evaluate_all('gs => gs.map(g => [g.dataset.node, Number(g.dataset.value)])'))
        assert shown == {n['fqdn']: n['pcnt'] + n['scnt'] for n in records}


def test_the_score_line_has_a_point_per_step(page, plan):
    points = page.locator('svg.chart.score circle.point')
    assert points.count() == len(plan['moves']) + 1
    scores = points.evaluate_all('cs => cs.map(c => Number(c.dataset.score))')
    assert scores == [plan['initial_score']] + [m['score'] for m in plan['moves']]
    line = page.locator('svg.chart.score polyline.line')
    assert line.evaluate('l => l.points.numberOfItems') == len(plan['moves']) + 1


def test_the_moves_table_equals_the_plan(page, plan):
    keys = ROW_KEYS + ('score_text',)
    rows = page.locator('table.moves tr.move').evaluate_all(
        'rows => rows.map(r => Array.from(r.querySelectorAll("td"),'
        ' td => [td.dataset.col, td.innerText.trim()]))')
    assert [[col for col, _text in row] for row in rows] == [list(keys)] * len(rows)
    in_table_order = [plan['moves'][i - 1] for jobset in plan['jobsets'] for i in jobset]
    assert [[text for _col, text in row] for row in rows] == expected_rows(in_table_order, keys)
    groups = page.locator('table.moves th.group').all_inner_texts()
    assert len(groups) == len(plan['jobsets'])
    for number, (label, jobset) in enumerate(zip(groups, plan['jobsets']), start=1):
        assert label.startswith('jobset %d: %d move' % (number, len(jobset)))


def test_n1_failures_are_highlighted(page, plan):
    assert plan['n1_failures']
    flagged = page.locator('svg.chart.usage[data-metric="mem"] text.node.n1').evaluate_all(
        'ts => ts.map(t => t.dataset.node)')
    assert sorted(flagged) == sorted(plan['n1_failures'])
    colour = page.locator('svg.chart.usage[data-metric="mem"] text.node.n1').first.evaluate(
        't => getComputedStyle(t).fill')
    assert colour == 'rgb(185, 28, 28)'
    assert page.locator('#warnings li.failed').first.is_visible()


@pytest.fixture(scope='module')
def reboot_page(browser, tmp_path_factory):
    """The rolling-reboot report of the example, open in the browser."""
    where = tmp_path_factory.mktemp('reboot')
    status, result, output = run_with(
        where, 'ganeti.htools.ganeti_rolling_reboot',
        dict(data_file=EXAMPLE, report_file=str(where / 'reboot.html')), '--check')
    assert status == 'SUCCESS', output
    tab = browser.new_page(viewport={'width': 1400, 'height': 900})
    tab.goto('file://' + result['report_file'])
    tab.wait_for_load_state('load')
    tab.result = result
    yield tab
    tab.close()


def test_the_reboot_report_shows_each_wave_while_its_nodes_are_down(reboot_page):
    """node1 takes node2's DRBD primaries (108 GiB) and scratch01 in wave 1: its
    memory bar then passes 100 %, drawn longer than the axis's 100 % tick, in red."""
    result = reboot_page.result
    mem = reboot_page.locator('svg.chart.usage[data-metric="mem"]')
    node1 = mem.locator('g.bar[data-state="wave 1"][data-node="node1.example.com"]')
    assert 109 <= float(node1.get_attribute('data-value')) < 112
    assert node1.locator('rect').first.get_attribute('stroke') == '#dc2626'
    assert 'over capacity' in node1.locator('title').text_content()
    label = mem.locator('text.node[data-node="node1.example.com"]')
    assert 'n1' in label.get_attribute('class')
    # dashed: the wave's own nodes, down
    down = mem.locator('g.bar[data-state="wave 1"][data-node="node2.example.com"] rect').first
    assert down.get_attribute('stroke-dasharray') == '3 2'
    warnings = reboot_page.locator('#warnings li.failed.wave').all_inner_texts()
    assert warnings[0] == result['waves'][0]['down']['problems'][0]['text']
    groups = reboot_page.locator('table.moves th.group').all_inner_texts()
    assert 'DOES NOT FIT while down' in groups[0]
    row = reboot_page.locator('table.moves tr.move').first
    assert row.locator('td[data-col="size"]').inner_text() == '4 GiB memory, 200 GiB disk'
    assert row.locator('td[data-col="note"]').inner_text().startswith('stops; its 200 GiB')
    shot = os.environ.get('HTOOLS_REBOOT_REPORT_SCREENSHOT')
    if shot:
        reboot_page.screenshot(path=shot, full_page=True)
