# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The documentation site that `make docs` builds (HTOOLS_DOCS_SITE=its html dir).

Every module of the action group and the role has its page, and each page
carries what the module's own documentation says: its short description and
every option (the role: every entry-point option).
"""

from __future__ import annotations

import html
import os
import re

import pytest
import yaml

from kit.paths import REPO_ROOT

SITE = os.environ.get('HTOOLS_DOCS_SITE')
pytestmark = pytest.mark.skipif(not SITE, reason='HTOOLS_DOCS_SITE is not set (make docs)')
PAGES = os.path.join(SITE or '', 'collections', 'ganeti', 'htools')


def _modules():
    with open(os.path.join(REPO_ROOT, 'meta', 'runtime.yml'), encoding='utf-8') as handle:
        return yaml.safe_load(handle)['action_groups']['ganeti']


def _page_text(name):
    path = os.path.join(PAGES, name + '.html')
    assert os.path.isfile(path), 'no page %s' % path
    with open(path, encoding='utf-8') as handle:
        return html.unescape(re.sub(r'<[^>]+>', ' ', handle.read()))


def _module_doc(name):
    path = os.path.join(REPO_ROOT, 'plugins', 'modules', name + '.py')
    with open(path, encoding='utf-8') as handle:
        source = handle.read()
    block = re.search(r"DOCUMENTATION = r'''\n(.*?)'''", source, re.S).group(1)
    return yaml.safe_load(block)


@pytest.mark.parametrize('module', _modules())
def test_every_module_has_its_page(module):
    text = ' '.join(_page_text(module + '_module').split())
    doc = _module_doc(module)
    assert ' '.join(doc['short_description'].split()) in text
    for option in doc.get('options', {}):
        assert option in text, (module, option)


def test_the_role_has_its_page_with_every_option():
    text = _page_text('rolling_reboot_role')
    with open(os.path.join(REPO_ROOT, 'roles', 'rolling_reboot', 'meta', 'argument_specs.yml'),
              encoding='utf-8') as handle:
        specs = yaml.safe_load(handle)['argument_specs']
    options = [name for spec in specs.values() for name in spec.get('options', {})]
    assert options
    for option in options:
        assert option in text, option


def test_the_filter_has_its_page():
    text = ' '.join(_page_text('plan_report_html_filter').split())
    assert 'A plan as a self-contained HTML page' in text
    assert 'ganeti.htools.plan_report_html' in text


def test_the_site_has_an_index_linking_the_collection():
    with open(os.path.join(SITE, 'index.html'), encoding='utf-8') as handle:
        assert 'collections/ganeti/htools/index.html' in handle.read()
