# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity's own parts: down_nodes, shrinking, spec maps, requests."""

from __future__ import annotations

import pytest

from gen import capacity_gen
from kit.paths import EXAMPLE

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import LookupFailure
from ansible_collections.ganeti.htools.plugins.module_utils.planner.allocate.request import (
    build_request, disk_space_total)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.hspace import (
    RSpec, inst_from_spec, shrink)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.report import (
    capacity_report)
from ansible_collections.ganeti.htools.plugins.module_utils.planner.capacity.run import spec_map


def test_down_nodes_empty_the_node_and_report_groups(tmp_path):
    path = tmp_path / "c.data"
    path.write_text(capacity_gen.generate(2)[0], encoding="utf-8")
    data, _fmt = load_data_file(str(path))
    result = capacity_report(data, {"down_nodes": ["node01"], "max_length": 3})
    down = result["down"]
    assert down["nodes"] == ["node01"]
    node3 = [n for n in data.nodes if n.name == "node01"][0]
    assert node3.offline
    # what did not leave is still on the node, and said so
    left = {data.instances[i].name for i in node3.p_list}
    assert {u["instance"] for u in down["unplaced"]} == left
    assert [g["group"] for g in down["groups"]] == sorted({g.name for g in data.groups
                                                           if any(n.group == g.idx
                                                                  for n in data.nodes)})
    assert "node01 down" in result["summary"]


def test_down_nodes_unknown_name():
    data, _fmt = load_data_file(EXAMPLE)
    with pytest.raises(LookupFailure):
        capacity_report(data, {"down_nodes": ["nosuchnode"]})


def test_shrink_by_unit_and_stop():
    inst = inst_from_spec(RSpec(100, 512, 2, 2), "diskless", 1)
    assert shrink(inst, "FailMem") is None                  # 36 left < one unit
    assert shrink(inst, "FailCPU").vcpus == 1
    assert shrink(shrink(inst, "FailCPU"), "FailCPU") is None
    assert shrink(inst, "FailDisk").disks == [(256, 2)]
    assert shrink(inst, "FailDisk", 2) is None
    assert shrink(inst, "FailSpindles").disks == [(512, 1)]
    assert shrink(inst, "FailN1") is None


def test_spec_map_counts_runs_in_order():
    a = inst_from_spec(RSpec(128, 1024, 1, 1), "plain", 1)
    b = inst_from_spec(RSpec(64, 1024, 1, 1), "plain", 1)
    assert spec_map([a, a, b, a]) == [(RSpec(128, 1024, 1, 1), 2), (RSpec(64, 1024, 1, 1), 1),
                                      (RSpec(128, 1024, 1, 1), 1)]


def test_requests_from_options():
    spec = {"memory": 4096, "vcpus": 2, "disks": [40960], "disk_template": "drbd", "count": 2}
    req = build_request({"instances": [spec]})
    assert req["type"] == "multi-allocate"
    assert [r["name"] for r in req["instances"]] == ["new1-1", "new1-2"]
    assert req["instances"][0]["disk_space_total"] == 40960 + 128
    one = build_request({"instances": [dict(spec, count=1, name="web", group="g1")]})
    assert (one["type"], one["name"], one["group_name"]) == ("allocate", "web", "g1")
    assert build_request({"secondary_for": "x"}) == {"type": "allocate-secondary", "name": "x"}
    assert disk_space_total("diskless", [100]) == 0
