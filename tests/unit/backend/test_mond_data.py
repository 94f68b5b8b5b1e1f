# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""MonD data files: what is refused (naming the file and entry), what counts as missing.

The figures themselves are held to hbal by tests/differential/test_mond_parity.py.
"""

from __future__ import annotations

import json

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend.mond import (
    MondDataMissing, parse_mond_data)
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError, HtoolsError

CLUSTER = """g1|uuid-1|preferred|

n1.x|16384|512|12800|100000|79520|8|N|uuid-1
n2.x|16384|512|14848|100000|89760|4|N|uuid-1

i1.x|2048|10240|2|running|Y|n1.x||plain||1|-|N
i2.x|1024|10240|1|running|Y|n1.x||plain||1|-|N
i3.x|1024|10240|3|running|Y|n2.x||plain||1|-|N


"""


def _report(total, name="cpu-avg-load"):
    return {"name": name, "version": "B", "format_version": 1, "timestamp": 5,
            "category": None, "kind": 0,
            "data": {"cpu_number": 1, "cpus": [total], "cpu_total": total}}


def _write(tmp_path, entries):
    path = tmp_path / "mond.json"
    path.write_text(json.dumps(entries))
    return str(path)


def _prepared(mond_data, **opts):
    return prepare(load_text(CLUSTER, "<t>"), mond=True, mond_data=mond_data, **opts)


def test_node_and_instance_cpu_loads(tmp_path):
    path = _write(tmp_path, [{"node": "n1.x", "reports": [_report(3.0)]},
                             {"node": "n2.x", "reports": [_report(6.0)]}])
    data = _prepared(path)
    assert [n.util_load[0] for n in data.nodes] == [3.0, 6.0]
    # the node's load spread by VCPUs over its used CPUs: the instances' 3 VCPUs
    # plus the node's own CPU (the text format's default of 1), 4 on either node
    assert [i.util[0] for i in data.instances] == [3.0 / 4 * 2, 3.0 / 4 * 1, 6.0 / 4 * 3]
    assert data.warnings == []


@pytest.mark.parametrize("entries, why", [
    ([{"node": "n1.x", "reports": [_report(3.0)]}], "from node(s) n2.x"),
    ([{"node": "n1.x", "reports": [_report(3.0)]},
      {"node": "n2.x", "reports": [_report(1.0, "diskstats")]}], "from node(s) n2.x"),
    ([{"node": "n1.x", "reports": [dict(_report(3.0), data={"cpu_total": 1})]},
      {"node": "n2.x", "reports": [_report(1.0)]}], "from node(s) n1.x"),
])
def test_a_node_without_a_usable_report_voids_the_data(tmp_path, entries, why):
    data = _prepared(_write(tmp_path, entries))
    assert [i.util[0] for i in data.instances] == [1.0, 1.0, 1.0]
    assert len(data.warnings) == 1 and why in data.warnings[0]
    assert "cpu-avg-load data ignored" in data.warnings[0]
    with pytest.raises(MondDataMissing, match="exit_on_missing_mond_data.*n[12].x"):
        _prepared(_write(tmp_path, entries), exit_on_missing_mond_data=True)


def test_xen_needs_every_instance(tmp_path):
    xen = [{"node": "n1.x", "reports": [dict(_report(0), name="xen-cpu-avg-load",
                                             data={"i1.x": 0.5, "i2.x": 0.25})]},
           {"node": "n2.x", "reports": [dict(_report(0), name="xen-cpu-avg-load",
                                             data={"i3.x": 2})]}]
    data = _prepared(_write(tmp_path, xen), mond_xen=True)
    assert [i.util[0] for i in data.instances] == [0.5, 0.25, 2.0]
    assert [n.util_load[0] for n in data.nodes] == [0.75, 2.0]
    del xen[1]["reports"][0]["data"]["i3.x"]
    data = _prepared(_write(tmp_path, xen), mond_xen=True)
    assert "no CPU information for instance(s) i3.x" in data.warnings[0]


@pytest.mark.parametrize("text, message", [
    ("{", "invalid JSON"),
    ('{"node": "n1.x"}', "must be a JSON list"),
    ('[{"node": "n1.x"}]', "entry #0 must be an object"),
    ('[{"node": "n1.x", "reports": [{"name": "cpu-avg-load"}]}]',
     "entry #0 (node n1.x), report #0: the report has no 'version'"),
    ('[{"node": "n1.x", "reports": [%s]}]' % json.dumps(dict(_report(1), kind=2)),
     "report #0: the report's 'kind' must be 0 or 1, got 2"),
    ('[{"node": "n1.x", "reports": [%s]}]' % json.dumps(dict(_report(1), category="x")),
     "the report's 'category' must be null or one of"),
])
def test_a_malformed_file_is_refused_naming_the_entry(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(DataError) as err:
        _prepared(str(path))
    assert str(path) in str(err.value) and message in str(err.value)


def test_a_later_entry_wins_and_unknown_nodes_are_ignored():
    doc = parse_mond_data(json.dumps([{"node": "a", "reports": [_report(1)]},
                                      {"node": "a", "reports": [_report(2)]}]))
    assert doc["a"][0]["data"]["cpu_total"] == 2


def test_mond_data_without_mond_is_an_error(tmp_path):
    path = _write(tmp_path, [])
    with pytest.raises(HtoolsError, match="mond_data is only read with mond: true"):
        prepare(load_text(CLUSTER, "<t>"), mond_data=path)


def test_ignore_dynu_ignores_mond_too(tmp_path):
    data = _prepared(_write(tmp_path, []), ignore_dynu=True)
    assert data.warnings == [] and [i.util[0] for i in data.instances] == [0.0] * 3
