# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where things are: the checkout, the test data and the real Ganeti htools.

This is the only place that names the real htools binaries (the reference of
the differential tests).  ``HBAL`` follows the environment (``HTOOLS_HBAL``,
else ``HBAL`` as the Makefile exports it); the other tools are the same
multi-call binary, found next to it.  Every value is a ``str``, so it can go
into an environment or an argv as it is.
"""

from __future__ import annotations

import os

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TESTS_DIR)

# ansible and Python find the collection through this directory (tests/conftest.py, `make link`)
COLLECTIONS_DIR = os.path.join(REPO_ROOT, '.cache', 'collections')

DATA_DIR = os.path.join(TESTS_DIR, 'data')
SPEC_DATA = os.path.join(DATA_DIR, 'spec')        # hand-made and Ganeti-style cluster files
LAB_DIR = os.path.join(TESTS_DIR, 'lab')          # the integration lab's scripts
EXAMPLE = os.path.join(REPO_ROOT, 'playbooks', 'files', 'example.data')

# -- the real htools (Debian package ganeti-htools-3.0) -----------------------
# a lab on another Ganeti version (GNTLAB_GANETI=3.1, tests/lab/up.sh) is
# checked against that version's htools
HTOOLS_ROOT = '/usr/lib/ganeti/' + (os.environ.get('GNTLAB_GANETI') or '3.0')
DEFAULT_HBAL = HTOOLS_ROOT + '/usr/bin/hbal'
HBAL = os.environ.get('HTOOLS_HBAL') or os.environ.get('HBAL') or DEFAULT_HBAL
HTOOLS_BIN = os.path.dirname(HBAL)
HROLLER = os.path.join(HTOOLS_BIN, 'hroller')
HSPACE = os.path.join(HTOOLS_BIN, 'hspace')
HINFO = os.path.join(HTOOLS_BIN, 'hinfo')
HCHECK = os.path.join(HTOOLS_BIN, 'hcheck')
HAIL = os.environ.get('HAIL') or HTOOLS_ROOT + '/usr/lib/ganeti/iallocators/hail'
