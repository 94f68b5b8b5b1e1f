# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""index_clash.clashing_index: the index hail numbers a new instance with, in
a named group's own instance list, when an instance of the group has it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.allocate.index_clash import (
    clashing_index)


def _insts(pnodes):
    return [SimpleNamespace(idx=k, pnode=p) for k, p in enumerate(pnodes)]


@pytest.mark.parametrize("pnodes, members, expected", [
    # the group (nodes 2, 3) holds instances 1 and 2: the new one is number 2
    ([0, 2, 3, 0], [2, 3], 2),
    # it holds 0 and 3: number 2 is free, the check is the usual one
    ([2, 0, 0, 3], [2, 3], None),
    # every instance of the cluster is in the group: the size is never taken
    ([2, 3, 2], [2, 3], None),
    # an empty group: number 0 is the first instance's, but not the group's
    ([0, 1], [2, 3], None),
])
def test_the_clash_is_an_index_of_the_groups_own_instances(pnodes, members, expected):
    assert clashing_index(_insts(pnodes), members) == expected
