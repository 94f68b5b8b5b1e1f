"""Fixtures for the differential tests against the real hbal.

The shared ones (generators, oracles, require_hbal, htools_balance) live in
tests/conftest.py.
"""

from __future__ import annotations

import os

import pytest

from kit.paths import HSPACE
from oracle.hail import HAIL_PATH, hail_available


@pytest.fixture(scope="session")
def htools_core():
    """``(cluster_info, hs_fixed)`` from the collection under test.

    An import failure is reported as a test error (not a skip): the parity
    tests must not pass silently without the implementation.
    """
    try:
        from kit.plans import cluster_info
        from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import (
            hs_fixed)
    except ImportError as exc:
        pytest.fail("cannot import the ganeti.htools core "
                    f"(cluster_info / numfmt.hs_fixed): {exc!r}",
                    pytrace=False)
    return cluster_info, hs_fixed


@pytest.fixture(scope="module")
def hail():
    """The real hail's path; the module's tests skip, saying why, without it."""
    if not hail_available():
        pytest.skip("hail not available at %s (apt-get install -y ganeti-htools-3.0)"
                    % HAIL_PATH)
    return HAIL_PATH


@pytest.fixture(scope="module")
def hspace():
    """The real hspace's path; the module's tests skip, saying why, without it."""
    if not os.access(HSPACE, os.X_OK):
        pytest.skip("hspace not available at %s" % HSPACE)
    return HSPACE
