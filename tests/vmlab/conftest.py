# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests on the vm lab: a Ganeti cluster of QEMU virtual machines with real
DRBD, LVM and reboots (tests/vmlab/up.sh).

The `vmlab` fixture boots the cluster once per session (3 nodes, 2 DRBD
instances on node1:node2; VMLAB_DRBD=4, as make vmlab-long and vmlab-roll
set, lets hbal balance them with the three compound DRBD moves, and 6 gives
one move of every type, in more time) and tears it
down at the end; booting is the expensive part, so every test shares it.  Without root
the tests are skipped, unless HTOOLS_REQUIRE_VMLAB=1 (then they fail).
HTOOLS_VMLAB_REUSE=1 uses a lab that is already up (started by hand with the
same VMLAB_* settings) and leaves it up.  HTOOLS_VMLAB_LOGS=DIR keeps the
consoles' logs there when the lab is torn down.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kit.lab import read_env_file  # noqa: E402  pylint: disable=wrong-import-position
from vmkit import HERE, VmLab, settings  # noqa: E402  pylint: disable=wrong-import-position

NODES = 3
# 2 DRBD instances (make vmlab: the master's wave; each one costs minutes to
# create and to migrate under emulation); make vmlab-long and vmlab-roll boot
# 4, for the DRBD balance's compound moves and the spread over every node
LAB_DEFAULTS = {'VMLAB_DRBD': '2', 'VMLAB_PLAIN': '0'}
UP_TIMEOUT = 2700
REPORT = []          # (what, seconds) for the terminal summary
FIGURES = []         # lines the tests measured (the sampler's figures...)


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.section('vm lab timings')
        for what, seconds in REPORT:
            terminalreporter.write_line('%-50s %7.1fs' % (what, seconds))
    if FIGURES:
        terminalreporter.section('vm lab figures')
        for line in FIGURES:
            terminalreporter.write_line(line)


def _unavailable():
    """Why this machine cannot run the vm lab, or None."""
    if os.geteuid() != 0:
        return 'the vm lab needs root'
    if not shutil.which('ip'):
        return "the vm lab needs 'ip' (iproute2)"
    proc = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return "'ip netns' does not work here: %s" % proc.stderr.strip()
    if not os.path.exists('/dev/net/tun'):
        return 'the vm lab needs /dev/net/tun'
    return None


def _ns_exists(name):
    proc = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True, check=False)
    return name in [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


def _skip_or_fail(reason):
    if os.environ.get('HTOOLS_REQUIRE_VMLAB') == '1':
        pytest.fail('HTOOLS_REQUIRE_VMLAB=1 but %s' % reason, pytrace=False)
    pytest.skip(reason)


def _script(name, env, timeout):
    return subprocess.run([os.path.join(HERE, name)], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _up(env):
    start = time.monotonic()
    proc = subprocess.run([os.path.join(HERE, 'up.sh'), str(NODES)], env=env,
                          capture_output=True, text=True, timeout=UP_TIMEOUT, check=False)
    if proc.returncode != 0:
        _script('down.sh', env, 600)
        pytest.fail('tests/vmlab/up.sh failed:\n%s%s' % (proc.stdout, proc.stderr[-8000:]),
                    pytrace=False)
    REPORT.append(('up.sh (whole)', time.monotonic() - start))
    timings = os.path.join(env['VMLAB_BASE'], 'timings')
    with open(timings, encoding='utf-8') as handle:
        for line in handle:
            what, _sep, seconds = line.strip().rpartition(' ')
            REPORT.append(('  ' + what, float(seconds)))


def _down(env):
    start = time.monotonic()
    proc = _script('down.sh', env, 600)
    REPORT.append(('down.sh', time.monotonic() - start))
    assert proc.returncode == 0, 'down.sh left traces:\n' + proc.stdout + proc.stderr


@pytest.fixture(scope='session')
def vmlab():
    reason = _unavailable()
    if reason:
        _skip_or_fail(reason)
    env = dict(os.environ, **settings())
    for key, value in LAB_DEFAULTS.items():
        env.setdefault(key, value)
    if os.environ.get('HTOOLS_VMLAB_LOGS'):    # up.sh's cleanup after a failure, and down.sh
        env['VMLAB_KEEP_LOGS'] = os.environ['HTOOLS_VMLAB_LOGS']
    facts_file = os.path.join(env['VMLAB_BASE'], 'lab.env')
    reuse = os.environ.get('HTOOLS_VMLAB_REUSE') == '1'
    started = False
    if reuse and _ns_exists(env['VMLAB_NS']) and os.path.exists(facts_file):
        sys.stderr.write('\n[vmlab] reusing the running lab %s\n' % env['VMLAB_NS'])
    else:
        if _ns_exists(env['VMLAB_NS']):
            pytest.fail('a vm lab %s is already up; run tests/vmlab/down.sh, or set '
                        'HTOOLS_VMLAB_REUSE=1 to use it' % env['VMLAB_NS'], pytrace=False)
        _up(env)
        started = True
    lab = VmLab(read_env_file(facts_file))
    try:
        yield lab
    finally:
        if started and not reuse:
            _down(env)


@pytest.fixture
def timed():
    """timed(what) as a context manager: adds a line to the timings summary."""
    class _Timer:
        def __init__(self, what):
            self.what = what
            self.start = None

        def __enter__(self):
            self.start = time.monotonic()
            return self

        def __exit__(self, *exc):
            REPORT.append((self.what, time.monotonic() - self.start))

    return _Timer


@pytest.fixture
def figures():
    """A list: lines appended to it are printed at the end of the run."""
    return FIGURES
