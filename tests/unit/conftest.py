"""Fixtures for the unit tests: the case generators and the balancer API.

The generators in ``tests/gen/`` are loaded by file path under the same
private module names as in ``tests/differential/conftest.py``.
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
    spec = importlib.util.spec_from_file_location(modname, TESTS_DIR / relpath)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod   # dataclasses need the module registered
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[modname]
        raise
    return mod


@pytest.fixture(scope="session")
def balance_gen():
    """``tests/gen/balance_options.py`` (it loads ``cluster_gen.py`` itself)."""
    _load("htools_difftest_cluster_gen", "gen/cluster_gen.py")
    return _load("htools_difftest_balance_options", "gen/balance_options.py")


@pytest.fixture(scope="session")
def htools_balance():
    """``(plan_balance, BalanceOptions)`` from the collection."""
    try:
        from ansible_collections.ganeti.htools.plugins.module_utils.balance_plan import (  # noqa: E501
            plan_balance)
        from ansible_collections.ganeti.htools.plugins.module_utils.balancer import (
            BalanceOptions)
    except ImportError as exc:
        pytest.fail(f"cannot import the ganeti.htools balancer: {exc!r}", pytrace=False)
    return plan_balance, BalanceOptions


# -- loader tests (test_roundtrip, test_fuzz_loaders, test_loader_*, test_util_file) --

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
        pytest.skip("hbal not available at %s (apt-get install -y ganeti-htools-3.0)"
                    % hbal_oracle.HBAL_PATH)
    return hbal_oracle.HBAL_PATH
