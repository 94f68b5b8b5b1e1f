# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The read-only modules run in Ansible's own process on a local connection
(plugin_utils/in_process.py): through the real ansible CLI, each case runs
twice, in process and as a module (``ganeti_htools_in_process=false``), and
both must print the same result, invocation included (-vvv keeps it), and
the same warnings.  Which path ran is read off the -vvv output: only a
module is sent to its host as an AnsiballZ payload."""

from __future__ import annotations

import pytest

from kit.ansible_cli import run_playbook, run_with
from kit.paths import EXAMPLE

CAPACITY = 'ganeti.htools.ganeti_capacity'
INFO = 'ganeti.htools.ganeti_cluster_info'
PAYLOAD = 'AnsiballZ_'


def _run(tmp_path, module, params, *flags):
    status, result, output = run_with(tmp_path, module, params, '-vvv', *flags)
    warnings = [line for line in output.splitlines() if line.startswith('[WARNING]')]
    return status, result, warnings, output


def _both(tmp_path, module, params):
    """(in-process run, module run): each (status, result, warnings, output)."""
    here = _run(tmp_path, module, params)
    there = _run(tmp_path, module, params, '-e', 'ganeti_htools_in_process=false')
    assert PAYLOAD in there[3], 'the switch did not send the module'
    return here, there


def _missing_memory(tmp_path):
    """The example with node2 reporting 2 GiB less free memory than its
    instances leave: hbal's "missing ... ram" data warning."""
    with open(EXAMPLE, encoding='utf-8') as handle:
        lines = handle.read().split('\n')
    at = next(i for i, line in enumerate(lines) if line.startswith('node2.'))
    fields = lines[at].split('|')
    fields[3] = str(int(fields[3]) - 2048)
    lines[at] = '|'.join(fields)
    path = tmp_path / 'missing.data'
    path.write_text('\n'.join(lines), encoding='utf-8')
    return str(path)


SAME_CASES = [
    ('capacity', CAPACITY, lambda tmp: dict(data_file=EXAMPLE)),
    ('capacity-full', CAPACITY, lambda tmp: dict(data_file=EXAMPLE, details='full',
                                                 tiered_spec=dict(memory=4096, disk=40960,
                                                                  vcpus=2))),
    ('capacity-down', CAPACITY, lambda tmp: dict(data_file=EXAMPLE,
                                                 down_nodes=['node1.example.com'])),
    ('hcheck', INFO, lambda tmp: dict(data_file=EXAMPLE, hcheck=True)),
    ('info-data-warning', INFO, lambda tmp: dict(data_file=_missing_memory(tmp))),
    # failures the modules' own checks find
    ('no-such-file', CAPACITY, lambda tmp: dict(data_file=str(tmp / 'none.data'))),
    ('two-sources', CAPACITY, lambda tmp: dict(data_file=EXAMPLE, simulate=['p,2,1t,64g,16'])),
    ('bad-spec', CAPACITY, lambda tmp: dict(simulate=['p,2,1q,64g,16'])),
    ('plain-http', INFO, lambda tmp: dict(rapi_url='http://127.0.0.1:9', rapi_user='u',
                                          rapi_password='s3cret-word')),
]


@pytest.mark.parametrize('name,module,params', SAME_CASES, ids=[c[0] for c in SAME_CASES])
def test_in_process_answers_as_the_module(tmp_path, name, module, params):
    here, there = _both(tmp_path, module, params(tmp_path))
    assert PAYLOAD not in here[3], '%s: the task was not run in process' % name
    assert here[:3] == there[:3]
    assert 's3cret-word' not in here[3]
    if name.endswith('data-warning'):
        assert any('is missing 2048 MB ram' in w for w in here[2]), here[2]
        assert here[1]['data_warnings'], here[1]


# What only AnsibleModule answers as it does: these go to the module.
MODULE_CASES = [
    ('unknown-option', CAPACITY, dict(data_file=EXAMPLE, no_such_option=1)),
    ('bad-type', CAPACITY, dict(data_file=EXAMPLE, max_length='many')),
    ('bad-choice', CAPACITY, dict(data_file=EXAMPLE, disk_template='floppy')),
]


@pytest.mark.parametrize('name,module,params', MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_what_only_the_module_answers_goes_to_it(tmp_path, name, module, params):
    here, there = _both(tmp_path, module, params)
    assert PAYLOAD in here[3], name
    assert here[0] == there[0] == 'FAILED!'
    assert here[1]['msg'] == there[1]['msg']


PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: With an environment, the module runs
      ganeti.htools.ganeti_capacity:
        data_file: %(example)s
      environment:
        GANETI_HTOOLS_SOMETHING: "1"
      register: with_environment
    - name: In check mode, in process
      ganeti.htools.ganeti_capacity:
        data_file: %(example)s
      check_mode: true
      register: checked
    - name: From module_defaults, in process
      ganeti.htools.ganeti_cluster_info:
      module_defaults:
        group/ganeti.htools.ganeti:
          data_file: %(example)s
      register: defaulted
    - name: The same answers
      ansible.builtin.assert:
        that:
          - with_environment.machine_readable == checked.machine_readable
          - defaulted.summary is string
"""


def test_environment_check_mode_and_module_defaults(tmp_path):
    book = tmp_path / 'book.yml'
    book.write_text(PLAYBOOK % dict(example=EXAMPLE), encoding='utf-8')
    code, output, _stdout = run_playbook(tmp_path, str(book), '-vvv')
    assert code == 0, output
    # one payload: the task with an environment, and none for the others
    assert output.count('PUT ') == 1 and 'AnsiballZ_ganeti_capacity.py' in output, output
