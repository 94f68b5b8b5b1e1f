# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a plan's HTML report back without a browser, and what it must show.

``read_page()`` parses the page with the standard library's HTML parser and
returns its bars, score points, move rows and group headers through the
data attributes the renderer puts on them.  ``expected_rows()`` is what the
moves table must hold for a plan: the browser test checks the same.
"""

from __future__ import annotations

from html.parser import HTMLParser

from ansible_collections.ganeti.htools.plugins.module_utils.plan.move_words import describe_move

# the cells every kind of plan shows for a move (report/plan_view.py MOVE_COLUMNS)
ROW_KEYS = ('index', 'instance', 'description', 'old_primary', 'old_secondary', 'new_primary',
            'new_secondary', 'jobset')


def expected_rows(moves, keys=ROW_KEYS):
    """The moves table's cells for `moves`, as text, in plan order (the move in words)."""
    moves = [dict(m, description=m.get('description') or describe_move(m)) for m in moves]
    return [[('' if move.get(k) is None else str(move[k])) for k in keys] for move in moves]


class _Page(HTMLParser):

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bars, self.points, self.rows, self.groups, self.tags = [], [], [], [], set()
        self.gain_points = []       # the points of the gain-per-data chart
        self._chart = ''
        self._cell = None
        self._group = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        classes = (attrs.get('class') or '').split()
        if tag == 'svg':
            self._chart = 'gain' if 'gain' in classes else ''
        if tag == 'g' and 'bar' in classes:
            self.bars.append(attrs)
        elif tag == 'circle' and 'point' in classes:
            (self.gain_points if self._chart == 'gain' else self.points).append(attrs)
        elif tag == 'tr' and 'move' in classes:
            self.rows.append({})
        elif tag == 'td' and self.rows and 'data-col' in attrs:
            self._cell = attrs['data-col']
            self.rows[-1][self._cell] = ''
        elif tag == 'th' and 'group' in classes:
            self._group = ''

    def handle_endtag(self, tag):
        if tag == 'td':
            self._cell = None
        elif tag == 'th' and self._group is not None:
            self.groups.append(self._group)
            self._group = None

    def handle_data(self, data):
        if self._cell is not None:
            self.rows[-1][self._cell] += data
        elif self._group is not None:
            self._group += data


def read_page(text):
    """The page's bars, points, rows (dicts by column), group headers and tag names."""
    page = _Page()
    page.feed(text)
    page.close()
    return page


def bars_by(page, metric, state):
    """{node name: value} of one chart's bars in one state (each node once)."""
    found = [b for b in page.bars if b['data-metric'] == metric and b['data-state'] == state]
    names = [b['data-node'] for b in found]
    assert len(names) == len(set(names)), 'a node has two bars in %s/%s' % (metric, state)
    return {b['data-node']: float(b['data-value']) for b in found}
