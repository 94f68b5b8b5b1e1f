# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Integration tests against a real Ganeti 3.0.2 cluster (tests/lab/up.sh);
GNTLAB_GANETI=3.1 runs them against Ganeti 3.1 (`make integration-3.1`).

The `lab` fixture brings the lab up once per session and tears it down at the
end.  Without root or without `ip netns` the tests are skipped, unless
HTOOLS_REQUIRE_LAB=1 (then they fail).  HTOOLS_LAB_REUSE=1 uses a lab that
is already up (started by hand with the same settings) and leaves it up.

Under pytest-xdist (`make integration-tests LAB_WORKERS=2`) each worker
brings up a lab of its own: the first with the harness' defaults, the others
in namespaces, directories and ports of their own (`_worker_lab_settings`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from kit.lab import Lab, lab_settings, read_env_file
from kit.paths import LAB_DIR
from kit.rapi_calls import unexpected_calls

NODES = 3
SEED = 5
# the RAPI call coverage test reads one lab's log: it and the files of the
# tests that make the calls run on one worker
RAPI_CALLS_GROUP = 'rapi-calls'


def _worker_lab_settings():
    """A lab per pytest-xdist worker: gw0 keeps the defaults (and CI's clean-up
    of a lab left behind); gwN gets htools-lab-gwN, /tmp/htools-lab-gwN and
    RAPI port 5090 + 20 * N (and the next one for the tests' helper relay).
    Set in the environment, so that every tool the tests start sees it."""
    worker = os.environ.get('PYTEST_XDIST_WORKER', '')
    if not worker.startswith('gw') or worker == 'gw0' or 'GNTLAB_NS' in os.environ:
        return
    number = int(worker[2:])
    os.environ.update(GNTLAB_NS='htools-lab-%s' % worker, GNTLAB_BASE='/tmp/htools-lab-%s' % worker,
                      GNTLAB_RAPI_PORT=str(5090 + 20 * number))


# GNTLAB_NS set by hand (not by _worker_lab_settings): a lab of one's own,
# whose fleet test gets a second lab of its own too (see SECOND_LAB)
_OWN_LAB = 'GNTLAB_NS' in os.environ
_worker_lab_settings()


def _unavailable():
    """Why this machine cannot run the lab, or None."""
    if os.geteuid() != 0:
        return 'the Ganeti lab needs root'
    if not shutil.which('ip'):
        return "the Ganeti lab needs 'ip' (iproute2)"
    proc = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return "'ip netns' does not work here: %s" % proc.stderr.strip()
    if not shutil.which('apt-get') and not shutil.which('gnt-cluster'):
        return 'Ganeti is not installed and apt-get is not available'
    return None


def _ns_exists(name):
    proc = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True, check=False)
    return name in [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


def _skip_or_fail(reason):
    if os.environ.get('HTOOLS_REQUIRE_LAB') == '1':
        pytest.fail('HTOOLS_REQUIRE_LAB=1 but %s' % reason, pytrace=False)
    pytest.skip(reason)


def _running_lab(settings, nodes, reuse=False):
    """A lab with these GNTLAB_* settings for as long as the generator runs:
    brought up (or, with `reuse`, a running one taken as it is) and torn down
    again; then every RAPI call the collection made to it must be listed in
    RAPI_CALLS.md."""
    env = dict(os.environ, **settings)
    env.setdefault('GNTLAB_SEED', str(SEED))
    name = settings['GNTLAB_NS']
    facts_file = os.path.join(settings['GNTLAB_BASE'], 'lab.env')
    started = False
    if reuse and _ns_exists(name) and os.path.exists(facts_file):
        sys.stderr.write('\n[lab] reusing the running lab %s\n' % name)
    else:
        if _ns_exists(name):
            pytest.fail('a lab %s is already up; run tests/lab/down.sh (GNTLAB_NS=%s GNTLAB_BASE=%s), '
                        'or set HTOOLS_LAB_REUSE=1 to use it' % (name, name, settings['GNTLAB_BASE']),
                        pytrace=False)
        start = time.monotonic()
        proc = subprocess.run([os.path.join(LAB_DIR, 'up.sh'), str(nodes)], env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        started = True
        if proc.returncode != 0:
            subprocess.run([os.path.join(LAB_DIR, 'down.sh')], env=env, capture_output=True,
                           timeout=300, check=False)
            pytest.fail('tests/lab/up.sh (%s) failed:\n%s%s' % (name, proc.stdout, proc.stderr[-6000:]),
                        pytrace=False)
        sys.stderr.write('\n[lab] %s up in %.1fs\n' % (name, time.monotonic() - start))
    the_lab = Lab(read_env_file(facts_file))
    try:
        yield the_lab
    finally:
        try:        # before the lab and its RAPI log go
            unexpected = unexpected_calls(the_lab.collection_calls())
        except OSError as err:
            unexpected = ['(the RAPI log could not be read: %s)' % err]
        if started and not reuse:
            start = time.monotonic()
            proc = subprocess.run([os.path.join(LAB_DIR, 'down.sh')], env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            took = time.monotonic() - start
            sys.stderr.write('[lab] %s down in %.1fs: %s%s\n' % (name, took, proc.stdout.strip(),
                                                                 proc.stderr))
            assert proc.returncode == 0, 'down.sh left traces of %s:\n%s' % (name, proc.stderr)
    assert not unexpected, 'calls not listed in RAPI_CALLS.md (kit/rapi_calls.py): %s' % unexpected


@pytest.fixture(scope='session')
def lab():
    reason = _unavailable()
    if reason:
        _skip_or_fail(reason)
    yield from _running_lab(lab_settings(), NODES, reuse=os.environ.get('HTOOLS_LAB_REUSE') == '1')


# A second cluster beside the default one (tests/integration/test_live_fleet.py),
# apart from the gwN labs of LAB_WORKERS (RAPI port 5090 + 20 * N); .ci/run
# clears it if it is left behind.
SECOND_LAB = {'GNTLAB_NS': 'htools-lab-fleet', 'GNTLAB_BASE': '/tmp/htools-lab-fleet',
              'GNTLAB_RAPI_PORT': '5150'}
if _OWN_LAB:    # beside a lab of one's own settings: NS-fleet, BASE-fleet, its port + 2
    _OWN = lab_settings()
    SECOND_LAB = {'GNTLAB_NS': _OWN['GNTLAB_NS'] + '-fleet', 'GNTLAB_BASE': _OWN['GNTLAB_BASE'] + '-fleet',
                  'GNTLAB_RAPI_PORT': str(int(_OWN['GNTLAB_RAPI_PORT']) + 2)}


@pytest.fixture(scope='module')
def second_lab(lab):      # the default lab first: it decides whether a lab can run here
    yield from _running_lab(SECOND_LAB, lab.nodes_count)


@pytest.fixture
def fresh(lab):
    """The lab in its seeded state: every seeded instance on node1, nothing locked."""
    lab.reset()
    return lab


def pytest_collection_modifyitems(config, items):  # pylint: disable=unused-argument
    """The RAPI call coverage check looks at what all the other tests did: last,
    and (under pytest-xdist --dist loadgroup) on the worker that runs the
    files of its providers."""
    last = [item for item in items if item.name == 'test_every_rapi_call_of_the_collection_was_exercised']
    providers = set()
    for item in last:
        items.remove(item)
        items.append(item)
        providers.update(item.module.PROVIDERS)
    grouped = {item.path for item in items if item.name in providers} | {item.path for item in last}
    for item in items:
        if item.path in grouped:
            item.add_marker(pytest.mark.xdist_group(RAPI_CALLS_GROUP))
