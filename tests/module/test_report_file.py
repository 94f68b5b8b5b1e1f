# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""report_file of the planning modules, and the plan_report_html filter, through ansible."""

from __future__ import annotations

import hashlib
import os
import re
import shutil

import pytest

from kit.ansible_cli import run_playbook, run_with
from kit.paths import EXAMPLE
from kit.report_page import expected_rows, read_page

PLANNERS = [
    ('ganeti.htools.ganeti_balance', {}, 'CHANGED'),
    ('ganeti.htools.ganeti_evacuate_group', {'nodes': ['node3']}, 'CHANGED'),
    ('ganeti.htools.ganeti_rolling_reboot', {}, 'SUCCESS'),
]


@pytest.mark.parametrize('module,params,status', PLANNERS, ids=lambda v: str(v).rsplit('.', maxsplit=1)[-1])
def test_report_file_is_written_in_check_mode(tmp_path, module, params, status):
    path = tmp_path / 'plan.html'
    found, result, output = run_with(tmp_path, module,
                                     dict(params, data_file=EXAMPLE, report_file=str(path)),
                                     '--check')
    assert found == status, output          # the report changes nothing by itself
    assert result['report_file'] == str(path)
    # the charts' per-node usage travels packed in the plan, not as thousands of result values
    assert 'node_usage' not in result
    text = path.read_text(encoding='utf-8')
    assert read_page(text).bars
    assert text.startswith('<!DOCTYPE html>') and text.endswith('</html>\n')
    page = read_page(text)
    in_table_order = [result['moves'][i - 1] for js in result['jobsets'] for i in js]
    assert sorted(expected_rows(in_table_order)) == sorted(
        [row[k] for k in ('index', 'instance', 'description', 'old_primary', 'old_secondary',
                          'new_primary', 'new_secondary', 'jobset')] for row in page.rows)
    assert not list(tmp_path.glob('.plan.html.*'))      # no temporary file left behind


def test_an_unwritable_report_file_fails_the_task(tmp_path):
    path = tmp_path / 'missing' / 'plan.html'
    found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_balance',
                                     dict(data_file=EXAMPLE, report_file=str(path)), '--check')
    assert found == 'FAILED!', output
    assert result['msg'].startswith('cannot write report_file %s: No such file' % path)


def test_an_existing_report_file_is_replaced(tmp_path):
    path = tmp_path / 'plan.html'
    path.write_text('old report')
    path.chmod(0o640)
    found, _result, output = run_with(tmp_path, 'ganeti.htools.ganeti_rolling_reboot',
                                      dict(data_file=EXAMPLE, report_file=str(path)), '--check')
    assert found == 'SUCCESS', output
    assert path.read_text(encoding='utf-8').startswith('<!DOCTYPE html>')
    assert path.stat().st_mode & 0o777 == 0o640


PLAYBOOK = '''
- hosts: localhost
  gather_facts: false
  check_mode: true
  tasks:
    - ganeti.htools.ganeti_balance:
        data_file: {data}
        report_file: {written}
      register: plan
    - ansible.builtin.copy:
        content: "{{{{ plan | ganeti.htools.plan_report_html }}}}"
        dest: {from_result}
        mode: "0644"
      check_mode: false
    - ansible.builtin.copy:
        content: "{{{{ plan.plan | ganeti.htools.plan_report_html }}}}"
        dest: {from_plan}
        mode: "0644"
      check_mode: false
    - ansible.builtin.debug:
        msg: "{{{{ {{'moves': 1}} | ganeti.htools.plan_report_html }}}}"
      ignore_errors: true
'''


def test_the_filter_renders_the_same_page_as_report_file(tmp_path):
    files = {k: tmp_path / (k + '.html') for k in ('written', 'from_result', 'from_plan')}
    playbook = tmp_path / 'report.yml'
    playbook.write_text(PLAYBOOK.format(data=EXAMPLE, **files))
    code, output, _stdout = run_playbook(tmp_path, str(playbook))
    assert code == 0, output
    written = files['written'].read_text(encoding='utf-8')
    assert files['from_result'].read_text(encoding='utf-8') == written
    assert files['from_plan'].read_text(encoding='utf-8') == written
    # a value that is no plan: the filter names every planning module it knows
    refusal = re.search(r'plan_report_html: expected the result of ([^(]*) \(or its plan\)',
                        output)
    assert refusal, output
    assert set(re.split(r', | or ', refusal.group(1))) == {
        'ganeti_allocate', 'ganeti_balance', 'ganeti_evacuate_group', 'ganeti_rolling_reboot'}


# -- report_file never overwrites an input, and leaves nothing behind (issue 23, item 3)

def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def data_copy(tmp_path):
    path = tmp_path / 'cluster.data'
    shutil.copy(EXAMPLE, path)
    return path


@pytest.mark.parametrize('link', ['same', 'symlink', 'hardlink', 'dotted'])
def test_report_file_naming_the_data_file_is_refused(tmp_path, data_copy, link):
    target = {'same': data_copy, 'symlink': tmp_path / 'report.html',
              'hardlink': tmp_path / 'hard.html',
              'dotted': tmp_path / '.' / 'sub' / '..' / 'cluster.data'}[link]
    (tmp_path / 'sub').mkdir()
    if link == 'symlink':
        target.symlink_to(data_copy)
    elif link == 'hardlink':
        os.link(data_copy, target)
    before = _sha256(data_copy)
    found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_balance',
                                     dict(data_file=str(data_copy), report_file=str(target)),
                                     '--check')
    assert found == 'FAILED!', output
    assert 'is the data_file of this run' in result['msg']
    assert 'nothing was computed or executed' in result['msg']
    assert _sha256(data_copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ['cluster.data', 'sub'] + ([target.name] if link in ('symlink', 'hardlink') else []))


def test_report_file_naming_another_input_or_output_is_refused(tmp_path, data_copy):
    util = tmp_path / 'util.txt'
    util.write_text('web01.example.com 1 1 1 1\n')
    cases = [(dict(util_file=str(util), report_file=str(util)), 'is the util_file of this run'),
             (dict(save_state=str(tmp_path / 'st'), report_file=str(tmp_path / 'st.balanced')),
              'is the save_state'),
             (dict(data_file=str(tmp_path / 'c.original'), save_state=str(tmp_path / 'c')),
              'is the data_file of this run')]
    shutil.copy(EXAMPLE, tmp_path / 'c.original')
    for params, message in cases:
        found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_balance',
                                         dict(dict(data_file=str(data_copy)), **params),
                                         '--check')
        assert found == 'FAILED!', output
        assert message in result['msg'], result['msg']
    assert util.read_text() == 'web01.example.com 1 1 1 1\n'
    assert not (tmp_path / 'st.original').exists()


def test_a_directory_as_report_file_is_refused_without_a_stray_file(tmp_path):
    found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_rolling_reboot',
                                     dict(data_file=EXAMPLE, report_file=str(tmp_path)),
                                     '--check')
    assert found == 'FAILED!', output
    assert result['msg'] == ('report_file %s is a directory; give the path of a file; nothing '
                             'was computed or executed' % tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_relative_report_file_is_resolved_once_against_the_working_directory(tmp_path):
    # run_with starts ansible in tmp_path: with the local connection the module runs there
    found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_balance',
                                     dict(data_file=EXAMPLE, report_file='plan.html'), '--check')
    assert found == 'CHANGED', output
    assert result['report_file'] == str(tmp_path / 'plan.html')
    assert (tmp_path / 'plan.html').read_text(encoding='utf-8').startswith('<!DOCTYPE html>')
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / 'plan.html').stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ['plan.html']


def test_nothing_is_written_when_the_run_is_refused_early(tmp_path):
    path = tmp_path / 'plan.html'
    found, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_balance',
                                     dict(data_file=EXAMPLE, report_file=str(path), plan={}),
                                     '--check')
    assert found == 'FAILED!', output
    assert 'plan is given but empty' in result['msg']
    assert list(tmp_path.iterdir()) == []
