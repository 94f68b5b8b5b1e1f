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
from ansible_collections.ganeti.htools.plugins.module_utils.plan.cost import size_text

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
                dict(data_file=EXAMPLE, report_file=str(shared / 'plan.html'), details='full'),
                '--check')
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


def test_the_gain_curve_has_a_point_per_move_and_ends_at_the_whole_gain(page, plan):
    chart = page.locator('svg.chart.gain')
    assert chart.is_visible()
    points = chart.locator('circle.point')
    assert points.count() == len(plan['moves']) + 1
    shown = points.evaluate_all('cs => cs.map(c => [Number(c.dataset.gib), Number(c.dataset.gain)])')
    copied = [sum(m['data_copied_mib'] for m in plan['moves'][:k]) / 1024.0
              for k in range(len(plan['moves']) + 1)]
    assert [gib for gib, _gain in shown] == pytest.approx(copied)
    assert shown[0][1] == 0 and shown[-1][1] == pytest.approx(100.0)
    box = chart.bounding_box()
    assert box['width'] > 600 and box['height'] > 150


def test_the_moves_table_equals_the_plan(page, plan):
    keys = ROW_KEYS + ('score_text', 'data_copied')
    rows = page.locator('table.moves tr.move').evaluate_all(
        'rows => rows.map(r => Array.from(r.querySelectorAll("td"),'
        ' td => [td.dataset.col, td.innerText.trim()]))')
    assert [[col for col, _text in row] for row in rows] == [list(keys)] * len(rows)
    in_table_order = [dict(plan['moves'][i - 1], data_copied=size_text(
        plan['moves'][i - 1]['data_copied_mib']) if plan['moves'][i - 1]['data_copied_mib']
        else 'none') for jobset in plan['jobsets'] for i in jobset]
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


# -- long node names (issue 23, items 7 and 8): real FQDN clusters, no common suffix

DOMAINS = ('fra1.prod.example.org', 'ams2.prod.example.net', 'corp.example.com',
           'dc3.storage.internal', 'lon.backup.example.co.uk')


def long_names(count, prefix='hypervisor-rack'):
    """`count` long names over mixed domains that share no suffix, and differ only
    near their start when read from the right (what clipping from the left hid)."""
    return ['%s%02d-slot%02d.%s' % (prefix, i // 4, i % 4, DOMAINS[i % len(DOMAINS)])
            for i in range(count)]


def text_cluster(groups, instances):
    """An htools text file: groups {name: [node names]}, instances as (name, p, s, mem)."""
    lines = ['%s|uuid-%s|preferred|' % (g, g) for g in groups] + ['']
    for group, nodes in groups.items():
        for pos, node in enumerate(nodes):
            lines.append('%s|65536|1024|%d|800000|%d|16|%s|uuid-%s|1|' % (
                node, 64000, 700000, 'M' if pos == 0 and group == list(groups)[0] else 'N',
                group))
    lines.append('')
    lines += ['%s|%d|20480|1|running|Y|%s|%s|drbd||1' % (name, mem, pnode, snode)
              for name, pnode, snode, mem in instances]
    return '\n'.join(lines + ['', '']) + '\n'


def _open(browser, path, width):
    tab = browser.new_page(viewport={'width': width, 'height': 900})
    tab.goto('file://' + path)
    tab.wait_for_load_state('load')
    return tab


# For every node label of every usage chart: its box, the chart's box, the box of
# the panel that shows the chart, where the bars start, and the text shown.
LABEL_BOXES = '''svgs => svgs.flatMap(svg => {
    const chart = svg.getBoundingClientRect();
    const panel = svg.closest(".panel").getBoundingClientRect();
    const plot = Math.min(...Array.from(svg.querySelectorAll("g.bar rect"),
                                        r => r.getBoundingClientRect().left));
    return Array.from(svg.querySelectorAll("text.node"), t => {
        const box = t.getBoundingClientRect();
        const span = t.querySelector("tspan.label"), title = t.querySelector("title");
        return {node: t.dataset.node, label: (span || t).textContent,
                tip: title && title.textContent, left: box.left, right: box.right,
                top: box.top, bottom: box.bottom, chart_left: chart.left,
                chart_right: chart.right, panel_left: panel.left, panel_right: panel.right,
                plot: plot, metric: svg.dataset.metric};
    });
})'''


def _assert_labels_readable(tab, names, shot):
    tab.screenshot(path=shot, full_page=True)
    labels = tab.locator('svg.chart.usage').evaluate_all(LABEL_BOXES)
    assert len(labels) == len(names) * len(METRICS)
    suffix = tab.locator('#usage li.suffix').all_inner_texts()
    for label in labels:
        where = (label['metric'], label['node'])
        # fully inside the chart and the panel showing it, left of the bars
        assert label['left'] >= label['chart_left'] - 0.5, (where, label)
        assert label['left'] >= label['panel_left'] - 0.5, (where, label)
        assert label['right'] <= label['plot'] + 0.5, (where, label)
        assert label['right'] <= label['panel_right'] + 0.5, (where, label)
        assert label['bottom'] > label['top']
        # the whole name, or the name less the suffix every name shares (said once)
        shown = label['label'].split(' (')[0]
        assert label['node'] == shown or (suffix and label['node'] == shown + suffix[0].split()[-1])
        assert label['tip'] == label['node']
    for metric in METRICS:
        shown = [lab['label'] for lab in labels if lab['metric'] == metric]
        assert len(set(shown)) == len(names), metric


@pytest.fixture(scope='module')
def long_named_balance(tmp_path_factory):
    """A balance report of 40 nodes with long names over five domains."""
    work = tmp_path_factory.mktemp('long-names')
    names = long_names(40)
    loaded = names[:30]         # the last ten are new and empty
    instances = [('vm%03d.%s' % (k, DOMAINS[k % len(DOMAINS)]), loaded[k % 30],
                  loaded[(k * 7 + 1) % 30], 2048 + 1024 * (k % 3)) for k in range(120)]
    instances = [i for i in instances if i[1] != i[2]]
    data = work / 'long.data'
    data.write_text(text_cluster({'default': names}, instances))
    status, result, output = run_with(
        work, 'ganeti.htools.ganeti_balance',
        dict(data_file=str(data), report_file=str(work / 'plan.html'), max_length=4), '--check')
    assert status == 'CHANGED' and result['moves'], output
    return names, result


def test_long_node_names_from_mixed_domains_are_fully_visible(browser, long_named_balance,
                                                              tmp_path):
    names, result = long_named_balance
    tab = _open(browser, result['report_file'], 1280)
    try:
        shot = os.environ.get('HTOOLS_LONG_NAMES_SCREENSHOT') or str(tmp_path / 'long.png')
        _assert_labels_readable(tab, names, shot)
    finally:
        tab.close()


@pytest.fixture(scope='module')
def change_group(tmp_path_factory):
    """A change-group report: instances of one group of long-named nodes to another."""
    work = tmp_path_factory.mktemp('change-group')
    source = long_names(6, 'frankfurt-hypervisor-rack')
    target = long_names(6, 'amsterdam-hypervisor-rack')
    instances = [('database-%02d.customers.%s' % (k, DOMAINS[k % len(DOMAINS)]),
                  source[k % 6], source[(k + 1) % 6], 4096) for k in range(8)]
    data = work / 'groups.data'
    data.write_text(text_cluster({'prod-frankfurt-a': source, 'prod-amsterdam-b': target},
                                 instances))
    moved = [i[0] for i in instances[:4]]
    status, result, output = run_with(
        work, 'ganeti.htools.ganeti_evacuate_group',
        dict(data_file=str(data), instances=moved, target_groups=['prod-amsterdam-b'],
             report_file=str(work / 'plan.html')), '--check')
    assert status == 'CHANGED' and len(result['moves']) == 4, output
    return result


def test_change_group_report_names_groups_and_fits_1400px(browser, change_group, tmp_path):
    tab = _open(browser, change_group['report_file'], 1400)
    try:
        tab.screenshot(path=str(tmp_path / 'change-group.png'), full_page=True)
        meta = tab.locator('p.meta').inner_text()
        assert 'target groups: prod-amsterdam-b' in meta
        rows = tab.locator('#group-scores tbody tr').evaluate_all(
            'rows => rows.map(r => Array.from(r.querySelectorAll("td"), td => td.innerText))')
        assert [r[0] for r in rows] == ['prod-frankfurt-a', 'prod-amsterdam-b']
        assert [r[1] for r in rows] == ['source', 'target']
        for group, _role, before, after in rows:
            scores = change_group['scores'][group]
            assert (float(before), float(after)) == (round(scores['before'], 8),
                                                     round(scores['after'], 8))
        # the moves table fits: nothing to scroll, nothing past the window
        table = tab.locator('table.moves').evaluate(
            't => [t.getBoundingClientRect().right, t.parentElement.scrollWidth,'
            ' t.parentElement.clientWidth, document.documentElement.scrollWidth]')
        assert table[0] <= 1400 and table[1] <= table[2] and table[3] <= 1400, table
        headers = tab.locator('table.moves thead th').all_inner_texts()
        assert 'Old group' in headers and 'New group' in headers
        cells = tab.locator('table.moves td[data-col="description"]').all_inner_texts()
        assert cells and all('_' not in c for c in cells), cells
    finally:
        tab.close()


def test_evacuated_nodes_are_marked_in_every_chart(browser, tmp_path):
    names = long_names(8)
    instances = [('vm%02d.%s' % (k, DOMAINS[k % 5]), names[k % 4], names[(k + 1) % 4], 2048)
                 for k in range(8)]
    data = tmp_path / 'evac.data'
    data.write_text(text_cluster({'default': names}, instances))
    status, result, output = run_with(
        tmp_path, 'ganeti.htools.ganeti_evacuate_group',
        dict(data_file=str(data), nodes=[names[1]], report_file=str(tmp_path / 'e.html')),
        '--check')
    assert status == 'CHANGED', output
    tab = _open(browser, result['report_file'], 1400)
    try:
        marked = tab.locator('svg.chart.usage text.node.evacuated').evaluate_all(
            'ts => ts.map(t => [t.dataset.node, t.textContent])')
        assert [m[0] for m in marked] == [names[1]] * len(METRICS)
        assert all('(evacuated)' in m[1] for m in marked)
        _assert_labels_readable(tab, names, str(tmp_path / 'evac.png'))
    finally:
        tab.close()


def test_an_allocation_report_shows_where_the_new_instances_go(browser, tmp_path):
    """ganeti_allocate's plan: one row per new instance with its nodes, the nodes'
    usage before and after, long names readable."""
    names = long_names(12)
    instances = [('vm%02d.%s' % (k, DOMAINS[k % 5]), names[k % 6], names[(k + 1) % 6], 2048)
                 for k in range(12)]
    data = tmp_path / 'alloc.data'
    data.write_text(text_cluster({'default': names}, instances))
    spec = dict(name='web', memory=4096, vcpus=2, disks=[20480], disk_template='drbd', count=6)
    status, result, output = run_with(
        tmp_path, 'ganeti.htools.ganeti_allocate',
        dict(data_file=str(data), instances=[spec], report_file=str(tmp_path / 'a.html')))
    assert status == 'SUCCESS' and len(result['moves']) == 6, output
    tab = _open(browser, result['report_file'], 1400)
    try:
        assert tab.locator('h1').inner_text() == 'Allocation plan'
        rows = tab.locator('table.moves tbody tr:not(.jobset)').evaluate_all(
            'rows => rows.map(r => Object.fromEntries(Array.from(r.querySelectorAll("td[data-col]"),'
            ' td => [td.dataset.col, td.innerText.trim()])))')
        rows = [r for r in rows if r.get('instance')]
        assert [(r['instance'], r['new_primary'], r['new_secondary']) for r in rows] == [
            (p['instance'], p['primary'], p['secondary']) for p in result['placements']]
        assert all(r['description'].startswith('create on ') for r in rows), rows
        _assert_labels_readable(tab, names, str(tmp_path / 'alloc.png'))
    finally:
        tab.close()
