# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input files through the ansible CLI: only regular files of a bounded size are
read (issue 23, item 5), and a placement no planner can model is refused by
every module, naming the instance (item 11)."""

from __future__ import annotations

import os
import time

import pytest

from kit.ansible_cli import run_with
from kit.paths import EXAMPLE

BALANCE = 'ganeti.htools.ganeti_balance'
MAX_MIB = 256


def test_dev_zero_as_data_file_is_refused_at_once(tmp_path):
    start = time.monotonic()
    status, result, output = run_with(tmp_path, BALANCE, dict(data_file='/dev/zero'), '--check')
    elapsed = time.monotonic() - start
    assert status == 'FAILED!', output
    assert result['msg'] == 'data_file: /dev/zero is not a regular file but a character device'
    # the whole ansible process; it used to run until the OOM killer stopped it
    assert elapsed < 60, elapsed


@pytest.mark.parametrize('option, kind', [('data_file', 'fifo'), ('util_file', 'fifo'),
                                          ('mond_data', 'fifo'), ('util_file', 'directory'),
                                          ('mond_data', 'directory')])
def test_special_files_are_refused_for_every_file_option(tmp_path, option, kind):
    path = tmp_path / 'input'
    if kind == 'fifo':
        os.mkfifo(path)
    else:
        path.mkdir()
    params = {'data_file': EXAMPLE, option: str(path)}
    if option == 'mond_data':
        params['mond'] = True
    status, result, output = run_with(tmp_path, BALANCE, params, '--check')
    assert status == 'FAILED!', output
    words = 'a FIFO' if kind == 'fifo' else 'a directory'
    assert result['msg'] == '%s: %s is not a regular file but %s' % (option, path, words)


def test_a_data_file_over_the_bound_is_refused(tmp_path):
    path = tmp_path / 'huge.data'
    with open(path, 'wb') as handle:        # sparse: takes no disk
        handle.truncate((MAX_MIB << 20) + 1)
    status, result, output = run_with(tmp_path, 'ganeti.htools.ganeti_cluster_info',
                                      dict(data_file=str(path)))
    assert status == 'FAILED!', output
    assert result['msg'] == ('data_file: %s is larger than %d MiB, the most an input file '
                             'may hold' % (path, MAX_MIB))


MODULES = [(BALANCE, {}), ('ganeti.htools.ganeti_cluster_info', {}),
           ('ganeti.htools.ganeti_rolling_reboot', {}),
           ('ganeti.htools.ganeti_evacuate_group', {'nodes': ['node3.example.com']})]


@pytest.mark.parametrize('module, params', MODULES, ids=[m.rsplit('.', 1)[-1] for m, _p in MODULES])
def test_a_drbd_instance_without_secondary_is_refused_by_every_module(tmp_path, module, params):
    with open(EXAMPLE, encoding='utf-8') as handle:
        text = handle.read()
    line = next(ln for ln in text.split('\n') if ln.startswith('web01.'))
    path = tmp_path / 'nosec.data'
    path.write_text(text.replace(line, line.replace('|node2.example.com|drbd', '||drbd')))
    status, result, output = run_with(tmp_path, module, dict(params, data_file=str(path)),
                                      '--check')
    assert status == 'FAILED!', output
    assert result['msg'] == ('%s: instance web01.example.com: disk template drbd needs a '
                             'secondary node, and none is given (expected a secondary node '
                             'for every DRBD instance)' % path)
    assert 'Traceback' not in output
