# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The generators and oracles, by one name each.

They live in their own folders (tests/gen, tests/oracle: packages, also run
as command line scripts); every suite imports them from here, so there is
one module object of each (the dataclasses of a case are the same classes
everywhere).
"""

from __future__ import annotations

from gen import balance_options as balance_gen
from gen import cluster_gen
from oracle import hbal as hbal_oracle
from oracle import hbal_balance as balance_oracle

__all__ = ["balance_gen", "balance_oracle", "cluster_gen", "hbal_oracle"]
