# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the collection's modules and playbooks through the ansible CLI, as users do."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTIONS_DIR = os.path.join(REPO_ROOT, '.cache', 'collections')
EXAMPLE = os.path.join(REPO_ROOT, 'playbooks', 'files', 'example.data')
HBAL = os.environ.get('HBAL', '/usr/lib/ganeti/3.0/usr/bin/hbal')
RESULT_RE = re.compile(r'^localhost \| (SUCCESS|CHANGED|FAILED!) => ', re.M)


def tool(name):
    """The ansible CLI next to the running Python (the venv), else on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(name)
    if not found:
        pytest.skip('%s is not installed' % name)
    return found


def ansible_env():
    env = dict(os.environ)
    env.update(
        ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_DIR,
        ANSIBLE_CALLBACK_RESULT_FORMAT='json',
        ANSIBLE_NOCOLOR='1',
        ANSIBLE_FORCE_COLOR='0',
        ANSIBLE_LOCALHOST_WARNING='0',
        ANSIBLE_INVENTORY_UNPARSED_WARNING='0',
        ANSIBLE_DEPRECATION_WARNINGS='0',
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    return env


def run_module(tmp_path, module, *args, extra_env=None):
    """Run a module ad hoc; return (status, result dict, combined output)."""
    cmd = [tool('ansible'), 'localhost', '-m', module] + list(args)
    env = ansible_env()
    env.update(extra_env or {})
    # cwd=tmp_path: no ansible.cfg from the checkout, only the settings above
    proc = subprocess.run(cmd, cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    match = RESULT_RE.search(proc.stdout)
    assert match, 'no module result in the ansible output:\n' + output
    result, _end = json.JSONDecoder().raw_decode(proc.stdout[match.end():])
    return match.group(1), result, output


def run_playbook(tmp_path, playbook, *args):
    """Run a playbook with YAML results; return (returncode, combined output, stdout)."""
    env = ansible_env()
    env['ANSIBLE_CALLBACK_RESULT_FORMAT'] = 'yaml'
    proc = subprocess.run([tool('ansible-playbook'), playbook] + list(args), cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr, proc.stdout


def need_hbal():
    if not os.access(HBAL, os.X_OK):
        pytest.skip('the real hbal (%s) is not installed; run make deps' % HBAL)
