# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the shared module layer promises every module: one result shape,
clear dependency errors, option defaults declared once."""

from __future__ import annotations

import json
import os
import re

import yaml

from kit.ansible_cli import run_module
from kit.paths import EXAMPLE, REPO_ROOT
from ansible_collections.ganeti.htools.plugins.doc_fragments.balance_options import (
    ModuleDocFragment as BalanceOptionsDoc)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.options import (
    ALGORITHM_OPTIONS)

BALANCE = 'ganeti.htools.ganeti_balance'
INFO = 'ganeti.htools.ganeti_cluster_info'


def _return_keys(module_file):
    """The RETURN keys of a module that a result without `details: full` has."""
    with open(os.path.join(REPO_ROOT, 'plugins', 'modules', module_file)) as handle:
        source = handle.read()
    documented = yaml.safe_load(re.search(r"RETURN = r'''(.*?)'''", source, re.S).group(1))
    return {key for key, doc in documented.items() if 'details=full' not in doc['returned']}


def test_a_plan_given_back_returns_the_same_fields_as_a_fresh_one(tmp_path):
    status, fresh, output = run_module(tmp_path, BALANCE, '--check', '-a',
                                       'data_file=%s' % EXAMPLE)
    assert status == 'CHANGED', output
    params = dict(data_file=EXAMPLE, plan=fresh['plan'])
    status, given, output = run_module(tmp_path, BALANCE, '--check', '-a', json.dumps(params))
    assert status == 'CHANGED', output
    assert given['replanned'] is False
    assert given['plan']['plan_id'] == fresh['plan']['plan_id']
    conditional = {'replanned', 'drift', 'execution', 'resumed', 'report_file', 'groups'}
    promised = _return_keys('ganeti_balance.py') - conditional
    assert promised <= set(fresh), promised - set(fresh)
    assert set(given) - {'replanned'} == set(fresh)
    for key in promised:
        assert given[key] == fresh[key], key


def test_a_missing_library_is_named_with_what_to_install(tmp_path):
    # A numpy that cannot be imported, first on the module's path.
    fake = tmp_path / 'fake'
    (fake / 'numpy').mkdir(parents=True)
    (fake / 'numpy' / '__init__.py').write_text("raise ImportError('No module named numpy')\n")
    status, result, output = run_module(tmp_path, BALANCE, '--check', '-a',
                                        'data_file=%s' % EXAMPLE,
                                        extra_env={'PYTHONPATH': str(fake)})
    assert status == 'FAILED!', output
    assert 'numpy' in result['msg'] and 'required' in result['msg'], result['msg']
    # a module that does not need numpy still works without it
    status, result, output = run_module(tmp_path, INFO, '-a', 'data_file=%s' % EXAMPLE,
                                        extra_env={'PYTHONPATH': str(fake)})
    assert status == 'SUCCESS', output
    assert result['score'] > 0


def test_algorithm_option_defaults_are_declared_once():
    documented = yaml.safe_load(BalanceOptionsDoc.DOCUMENTATION)['options']
    assert set(documented) == {o.name for o in ALGORITHM_OPTIONS}
    for option in ALGORITHM_OPTIONS:
        doc = documented[option.name]
        assert doc['type'] == option.type, option.name
        expected = list(option.default) if option.type == 'list' else option.default
        assert doc.get('default') == expected, option.name
        assert doc.get('elements') == option.elements, option.name
