# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the loader unit tests (helpers live in htools_unit_support.py)."""

from __future__ import annotations

import pytest

import htools_unit_support as support


@pytest.fixture(scope="session")
def cluster_gen():
    """The ``tests/gen/cluster_gen.py`` module."""
    return support.cluster_gen()


@pytest.fixture(scope="session")
def hbal_oracle():
    """The ``tests/oracle/hbal.py`` module."""
    return support.hbal_oracle()


@pytest.fixture(scope="session")
def require_hbal(hbal_oracle):
    """Skip when the real hbal binary is not installed."""
    if not hbal_oracle.hbal_available():
        pytest.skip("hbal not available at %s (apt-get install -y ganeti-htools-3.0)"
                    % hbal_oracle.HBAL_PATH)
    return hbal_oracle.HBAL_PATH
