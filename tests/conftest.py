# -*- coding: utf-8 -*-
# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make ``import ansible_collections.ganeti.htools...`` and ``import kit`` work under plain pytest.

The repository root is the collection root. Python and Ansible find it through
the symlink ``.cache/collections/ansible_collections/ganeti/htools`` -> the
repository root (the same one ``make link`` creates). This file creates the
symlink when it is missing, puts ``.cache/collections`` first on ``sys.path``
and first in ``ANSIBLE_COLLECTIONS_PATH`` (for tests that run ansible).

tests/ itself is on ``sys.path`` too (pytest puts it there for this file;
it is made sure of below): the test kit (``kit``), the generators (``gen``)
and the oracles (``oracle``) are imported from there.
"""

from __future__ import annotations

import os
import sys

_TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

from kit.paths import COLLECTIONS_DIR, REPO_ROOT  # noqa: E402  pylint: disable=wrong-import-position

COLLECTION_LINK = os.path.join(COLLECTIONS_DIR, 'ansible_collections', 'ganeti', 'htools')


def _ensure_collection_link():
    if os.path.realpath(COLLECTION_LINK) == os.path.realpath(REPO_ROOT):
        return
    os.makedirs(os.path.dirname(COLLECTION_LINK), exist_ok=True)
    if os.path.islink(COLLECTION_LINK):
        os.unlink(COLLECTION_LINK)  # stale link, e.g. from a moved checkout
    try:
        # relative, like `make link`: .cache/collections/ansible_collections/ganeti/htools -> ../../../..
        os.symlink(os.path.join(os.pardir, os.pardir, os.pardir, os.pardir), COLLECTION_LINK)
    except FileExistsError:  # created concurrently (e.g. pytest-xdist workers)
        pass
    if os.path.realpath(COLLECTION_LINK) != os.path.realpath(REPO_ROOT):
        raise RuntimeError('%s does not point to %s; remove it (make clean)' % (COLLECTION_LINK, REPO_ROOT))


_ensure_collection_link()

if COLLECTIONS_DIR not in sys.path:
    sys.path.insert(0, COLLECTIONS_DIR)

_paths = [p for p in os.environ.get('ANSIBLE_COLLECTIONS_PATH', '').split(os.pathsep) if p and p != COLLECTIONS_DIR]
os.environ['ANSIBLE_COLLECTIONS_PATH'] = os.pathsep.join([COLLECTIONS_DIR] + _paths)


# -- fixtures shared by the unit and differential suites ---------------------

import pytest  # noqa: E402

from kit import tools  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(scope="session")
def cluster_gen():
    """The ``tests/gen/cluster_gen.py`` module."""
    return tools.cluster_gen


@pytest.fixture(scope="session")
def balance_gen(cluster_gen):
    """The ``tests/gen/balance_options.py`` module (random hbal options)."""
    return tools.balance_gen


@pytest.fixture(scope="session")
def hbal_oracle():
    """The ``tests/oracle/hbal.py`` module."""
    return tools.hbal_oracle


@pytest.fixture(scope="session")
def balance_oracle():
    """The ``tests/oracle/hbal_balance.py`` module (balancing runs)."""
    return tools.balance_oracle


@pytest.fixture(scope="session")
def require_hbal(hbal_oracle):
    """Skip when the real hbal binary is not installed; a test using this is `differential`."""
    if not hbal_oracle.hbal_available():
        pytest.skip("hbal not available at %s (apt-get install -y ganeti-htools-3.0)"
                    % hbal_oracle.HBAL_PATH)
    return hbal_oracle.HBAL_PATH


@pytest.fixture(scope="session")
def htools_balance():
    """``(plan_balance, BalanceOptions, hs_fixed)`` from the collection.

    An import failure is a test error, not a skip.
    """
    try:
        from kit.plans import plan_balance
        from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.options import (
            BalanceOptions)
        from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import hs_fixed
    except ImportError as exc:
        pytest.fail("cannot import the ganeti.htools balancer: %r" % (exc,), pytrace=False)
    return plan_balance, BalanceOptions, hs_fixed


# -- markers by folder, file and fixture (declared in pytest.ini) ---------------

_FOLDER_MARKERS = {
    "differential": ("differential", "slow"),
    "integration": ("lab",),
    "vmlab": ("vmlab",),
    "browser": ("browser",),
}
_SLOW_FILES = ("unit/backend/test_fuzz_loaders.py", "unit/planner/test_avoid_disk_moves.py")
_HBAL_FIXTURE = "require_hbal"      # a test that runs the real hbal compares with it


def pytest_collection_modifyitems(items):
    for item in items:
        rel = os.path.relpath(str(item.fspath), _TESTS_DIR).split(os.sep)
        for name in _FOLDER_MARKERS.get(rel[0], ()):
            item.add_marker(name)
        if "/".join(rel) in _SLOW_FILES:
            item.add_marker("slow")
        if _HBAL_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker("differential")
