# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""report_file of the planning modules, and the plan_report_html filter, through ansible."""

from __future__ import annotations

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
    assert 'plan_report_html: expected the result of ganeti_balance' in output
