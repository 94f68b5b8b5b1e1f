# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's removals as htools' (Data.List.delete): the first listing of
the instance goes, none when there is none, and the node's figures change
all the same - hail's change-group of a cross-group DRBD instance relies on
it (tests/differential/test_hail_parity.py keeps the request)."""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import merge_data
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text

CLUSTER = """g|uuid-1|preferred||

a|8192|512|7168|102400|92160|4|N|uuid-1|1
b|8192|512|8192|102400|92160|4|N|uuid-1|1
c|8192|512|8192|102400|102400|4|N|uuid-1|1

inst1|512|10240|1|running|Y|a|b|drbd||1


"""


def _cluster():
    data = load_text(CLUSTER)
    merge_data(data)            # the nodes list their instances
    nodes = {n.name: n for n in data.nodes}
    return nodes, data.instances[0]


def test_a_listed_instance_is_removed_once():
    nodes, inst = _cluster()
    sec = nodes["b"].copy()
    assert sec.s_list == [inst.idx]
    sec.s_list.append(inst.idx)         # listed twice, as a replace onto itself leaves it
    before = sec.f_dsk
    sec.remove_sec(inst)
    assert sec.s_list == [inst.idx]
    assert sec.f_dsk == before + inst.dsk


def test_an_unlisted_instance_changes_the_figures_only():
    nodes, inst = _cluster()
    other = nodes["c"].copy()
    free_dsk, i_mem = other.f_dsk, other.i_mem
    other.remove_sec(inst)
    assert other.s_list == [] and other.f_dsk == free_dsk + inst.dsk
    other.remove_pri(inst)
    assert other.p_list == [] and other.i_mem == i_mem - inst.mem
