# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the collection's modules and playbooks through the ansible CLI, as users do.

``ansible_settings()`` is the one place of the ANSIBLE_* environment every
test run of ansible uses (the module tests here, the lab in kit/lab.py);
``parse_result()`` reads the result of an ad hoc ``ansible localhost -m``.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from kit.paths import COLLECTIONS_DIR

# `HOST | STATUS => {json}`: localhost for the modules, inventory hosts in the vm lab
RESULT_RE = re.compile(r'^\S+ \| (SUCCESS|CHANGED|FAILED!|UNREACHABLE!) => ', re.M)


def tool(name, skip=True):
    """The ansible CLI next to the running Python (the venv), else on PATH.

    A missing tool skips the test, or with ``skip=False`` raises RuntimeError.
    """
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(name)
    if not found:
        if skip:
            pytest.skip('%s is not installed' % name)
        raise RuntimeError('%s is not installed (make deps)' % name)
    return found


def ansible_settings():
    """The ANSIBLE_* settings of a test run: this checkout's collection, JSON
    results, no colours and no warnings that are not about the collection."""
    return dict(
        ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_DIR,
        ANSIBLE_CALLBACK_RESULT_FORMAT='json',
        ANSIBLE_NOCOLOR='1',
        ANSIBLE_FORCE_COLOR='0',
        ANSIBLE_LOCALHOST_WARNING='0',
        ANSIBLE_INVENTORY_UNPARSED_WARNING='0',
        ANSIBLE_DEPRECATION_WARNINGS='0',
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )


def ansible_env():
    env = dict(os.environ)
    env.update(ansible_settings())
    return env


def parse_result(stdout, output):
    """(status as printed: SUCCESS, CHANGED or FAILED!, result dict) of an ad hoc run;
    ``output`` (all that was printed) is shown when there is no result."""
    match = RESULT_RE.search(stdout)
    assert match, 'no module result in the ansible output:\n' + output
    result, _end = json.JSONDecoder().raw_decode(stdout[match.end():])
    return match.group(1), result


def run_module(tmp_path, module, *args, extra_env=None):
    """Run a module ad hoc; return (status, result dict, combined output)."""
    cmd = [tool('ansible'), 'localhost', '-m', module] + list(args)
    env = ansible_env()
    env.update(extra_env or {})
    # cwd=tmp_path: no ansible.cfg from the checkout, only the settings above
    proc = subprocess.run(cmd, cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    status, result = parse_result(proc.stdout, output)
    return status, result, output


def run_with(tmp_path, module, params, *flags):
    """run_module with the module's arguments as one JSON mapping."""
    return run_module(tmp_path, module, *(list(flags) + ['-a', json.dumps(params)]))


def run_playbook(tmp_path, playbook, *args):
    """Run a playbook with YAML results; return (returncode, combined output, stdout)."""
    env = ansible_env()
    env['ANSIBLE_CALLBACK_RESULT_FORMAT'] = 'yaml'
    proc = subprocess.run([tool('ansible-playbook'), playbook] + list(args), cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr, proc.stdout


FAILED_TASK_RE = re.compile(r'^(?:fatal|failed): \[', re.M)


def failure_first(output, tail=6000, context=40):
    """A playbook's output for an assertion message: each failed task (its
    TASK line and the lines after `fatal:`) first, then the end of the run.
    CI shows a long message cut in the middle, where the failure usually is."""
    lines = output.splitlines()
    parts = []
    for match in FAILED_TASK_RE.finditer(output):
        at = output.count('\n', 0, match.start())
        task = next((i for i in range(at, -1, -1) if lines[i].startswith('TASK [')), at)
        parts.append('\n'.join(lines[task:at + context]))
    head = '\n...\n'.join(parts) if parts else '(no failed task in the output)'
    return 'failed tasks:\n%s\n\n... the end of the output:\n%s' % (head, output[-tail:])


LOG_TASK_RE = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) .*?\| (TASK \[.*?\]|PLAY RECAP)',
                         re.M)


def slowest_tasks(log_text, count=8):
    """[(seconds, task)] of the `count` slowest tasks of an ANSIBLE_LOG_PATH
    log, slowest first (a task lasts until the next one starts)."""
    marks = [(datetime.datetime.strptime(m.group(1), '%Y-%m-%d %H:%M:%S').timestamp()
              + int(m.group(2)) / 1000.0, m.group(3)) for m in LOG_TASK_RE.finditer(log_text)]
    spans = [(round(end[0] - start[0], 1), start[1][6:-1])
             for start, end in zip(marks, marks[1:]) if start[1] != 'PLAY RECAP']
    return sorted(spans, key=lambda s: -s[0])[:count]
