# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load the test-side tools (generators, oracles) by file path, once.

They are plain scripts under tests/, not a package; every test suite gets the
same module objects under the same private names.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

TESTS_DIR = pathlib.Path(__file__).resolve().parent

MODULES = {
    "cluster_gen": ("htools_difftest_cluster_gen", "gen/cluster_gen.py"),
    "balance_options": ("htools_difftest_balance_options", "gen/balance_options.py"),
    "hbal_oracle": ("htools_difftest_hbal_oracle", "oracle/hbal.py"),
    "hbal_balance": ("htools_difftest_hbal_balance", "oracle/hbal_balance.py"),
    "score_parity": ("htools_unit_score_parity", "differential/test_score_parity.py"),
}


def load(name):
    """The tests/ module registered as `name` in MODULES."""
    modname, relpath = MODULES[name]
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
