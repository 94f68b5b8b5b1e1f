"""Fixtures for the differential tests against the real hbal.

The generator (``tests/gen/cluster_gen.py``) and the oracle
(``tests/oracle/hbal.py``) are loaded by file path under private module
names, so nothing depends on ``tests/`` being on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

TESTS_DIR = pathlib.Path(__file__).resolve().parent.parent


def _load(modname, relpath):
    if modname in sys.modules:
        return sys.modules[modname]
    path = TESTS_DIR / relpath
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod   # dataclasses need the module registered
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[modname]
        raise
    return mod


@pytest.fixture(scope="session")
def cluster_gen():
    """The ``tests/gen/cluster_gen.py`` module."""
    return _load("htools_difftest_cluster_gen", "gen/cluster_gen.py")


@pytest.fixture(scope="session")
def hbal_oracle():
    """The ``tests/oracle/hbal.py`` module."""
    return _load("htools_difftest_hbal_oracle", "oracle/hbal.py")


@pytest.fixture(scope="session")
def require_hbal(hbal_oracle):
    """Skip when the real hbal binary is not installed."""
    if not hbal_oracle.hbal_available():
        pytest.skip(f"hbal not available at {hbal_oracle.HBAL_PATH} "
                    "(apt-get install -y ganeti-htools-3.0)")
    return hbal_oracle.HBAL_PATH


@pytest.fixture(scope="session")
def htools_core():
    """``(cluster_info, hs_fixed)`` from the collection under test.

    An import failure is reported as a test error (not a skip): the parity
    tests must not pass silently without the implementation.
    """
    try:
        from ansible_collections.ganeti.htools.plugins.module_utils.cluster_info import (  # noqa: E501
            cluster_info)
        from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import (
            hs_fixed)
    except ImportError as exc:
        pytest.fail("cannot import the ganeti.htools core "
                    f"(cluster_info / numfmt.hs_fixed): {exc!r}",
                    pytrace=False)
    return cluster_info, hs_fixed


@pytest.fixture(scope="session")
def balance_gen(cluster_gen):
    """The ``tests/gen/balance_options.py`` module (random hbal options)."""
    return _load("htools_difftest_balance_options", "gen/balance_options.py")


@pytest.fixture(scope="session")
def balance_oracle():
    """The ``tests/oracle/hbal_balance.py`` module (balancing runs)."""
    return _load("htools_difftest_hbal_balance", "oracle/hbal_balance.py")


@pytest.fixture(scope="session")
def htools_balance():
    """``(plan_balance, BalanceOptions, hs_fixed)`` from the collection.

    An import failure is a test error, not a skip.
    """
    try:
        from ansible_collections.ganeti.htools.plugins.module_utils.balance_plan import (  # noqa: E501
            plan_balance)
        from ansible_collections.ganeti.htools.plugins.module_utils.balancer import (
            BalanceOptions)
        from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import (
            hs_fixed)
    except ImportError as exc:
        pytest.fail("cannot import the ganeti.htools balancer "
                    f"(plan_balance / BalanceOptions): {exc!r}", pytrace=False)
    return plan_balance, BalanceOptions, hs_fixed
