"""Storage units in plans (issue 12): fit per unit, the per-unit metric.

* one unit per node, mirroring the node's disk pool, plans exactly as the
  same cluster without units (the design's invariant), with the bulk search
  and the exhaustive one;
* with several units per node, no plan puts a disk into a unit of another
  kind or beyond its free space (checked from the final placement alone,
  tests/gen/units_gen.py), and the bulk search equals the exhaustive one;
* the seed's own case: two 10 GiB units refuse a 15 GiB disk that the 3.0.2
  pool (20 GiB) takes, and the other way round.
"""

from __future__ import annotations

import os

import pytest

from gen import units_gen
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.planner import metrics
from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.options import (
    BalanceOptions)
from kit.plans import plan_balance

N_CASES = int(os.environ.get("HTOOLS_UNIT_CASES", "40"))
SEEDS = list(range(1, N_CASES + 1))
COMPARED = ("step_lines", "commands", "stop_reason", "solution_length", "jobsets")


def _plan(balance_gen, opts, text, tmp_path, name, search="bulk", save_state=None):
    path = tmp_path / name
    path.write_text(text)
    upath = None
    if opts["case"].util is not None:
        upath = tmp_path / "util.txt"
        upath.write_text(opts["case"].util)
    try:
        return balance_gen.run_plan(plan_balance, BalanceOptions, opts, str(path),
                                    str(upath) if upath else None, search=search,
                                    save_state=save_state)
    except Exception as exc:     # noqa: BLE001 - compared by the callers
        return exc


def _same(left, right, where):
    if isinstance(left, Exception) or isinstance(right, Exception):
        assert type(left) is type(right) and str(left) == str(right), (where, left, right)
        return
    for key in COMPARED:
        assert left[key] == right[key], (where, key, left[key], right[key])
    assert [m["score"] for m in left["moves"]] == [m["score"] for m in right["moves"]], where


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_one_unit_per_node_plans_as_without_units(seed, tmp_path, balance_gen):
    opts = balance_gen.balance_options(seed)
    data = units_gen.load(opts["case"].data)
    if not units_gen.comparable(data):
        pytest.skip("exclusive storage or file instances: 3.0.2's pool is not one unit")
    # both through the same writer, so that they differ only in the units
    plain = units_gen.dump_text(units_gen.load(opts["case"].data))
    with_units = units_gen.one_unit_per_node(data)
    assert with_units != plain
    reloaded = units_gen.load(with_units)
    assert all(len(n.storage_units) == 1 for n in reloaded.nodes)
    without = _plan(balance_gen, opts, plain, tmp_path, "plain.data")
    bulk = _plan(balance_gen, opts, with_units, tmp_path, "units.data")
    _same(without, bulk, f"seed {seed}: without units vs one unit per node")
    if seed % 4 == 0:
        exhaustive = _plan(balance_gen, opts, with_units, tmp_path, "units.data", "exhaustive")
        _same(bulk, exhaustive, f"seed {seed}: bulk vs exhaustive, one unit per node")


@pytest.fixture
def searches(monkeypatch):
    """The search statistics of every balance run (bulk fallbacks must be 0)."""
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import loop
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import planner
    stats = []

    def recording(*args, **kwargs):
        result = loop.balance(*args, **kwargs)
        stats.append(result.search_stats)
        return result

    monkeypatch.setattr(planner, "balance", recording)
    return stats


@pytest.mark.parametrize("file_units", [True, False], ids=["some-file-units", "two-vgs-everywhere"])
@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_several_units_plans_keep_disks_in_their_units(seed, file_units, tmp_path, balance_gen,
                                                       searches):
    """With file units on some nodes only the exhaustive search runs; with the
    same two volume groups everywhere the bulk search runs unit by unit."""
    opts = balance_gen.balance_options(seed)
    text = units_gen.several_units(units_gen.load(opts["case"].data), seed, file_units)
    before = units_gen.load(text)
    used_before, misplaced_before = units_gen.unit_usage(before)
    # without file units, file disks sit outside any unit from the start
    assert all(not file_units and inst_is_file(before, name)
               for name, _node in misplaced_before), "the generator misplaced disks"
    result = _plan(balance_gen, opts, text, tmp_path, "units.data",
                   save_state=str(tmp_path / "state"))
    final = tmp_path / "state.balanced"     # hbal -S names
    if isinstance(result, Exception):
        pytest.skip(f"the case is refused: {result}")
    if not file_units or seed % 2 == 0:
        assert not any(st.fallbacks for st in searches), searches
        _same(result, _plan(balance_gen, opts, text, tmp_path, "units.data", "exhaustive"),
              f"seed {seed}: bulk vs exhaustive, several units")
    if not final.exists():
        assert result["solution_length"] == 0
        return
    after = units_gen.load(final.read_text())
    used_after, misplaced = units_gen.unit_usage(after)
    new = set(misplaced) - set(misplaced_before)
    assert not new, f"seed {seed}: disks moved outside their units: {sorted(new)}"
    free = {(n.name, (u.type, u.key)): u.free for n in before.nodes for u in n.storage_units}
    for key, amount in used_after.items():
        grown = amount - used_before.get(key, 0)
        if grown > 0:
            assert free[key] - grown > 0, (f"seed {seed}: {key} holds {grown} MiB more "
                                           f"than its {free[key]} MiB free")


def test_the_bulk_search_runs_on_two_volume_groups(tmp_path, balance_gen, searches):
    """The equivalence above means something only if the bulk search ran."""
    ran = 0
    for seed in SEEDS:
        opts = balance_gen.balance_options(seed)
        text = units_gen.several_units(units_gen.load(opts["case"].data), seed, False)
        del searches[:]
        _plan(balance_gen, opts, text, tmp_path, "units.data")
        ran += sum(st.bulk_scored for st in searches) > 0
    assert ran >= len(SEEDS) // 4, "the bulk search ran on %d of %d clusters" % (ran, len(SEEDS))


def inst_is_file(data, name):
    return any(i.name == name and i.template == "file" for i in data.instances)


# The seed's case: a 15 GiB DRBD disk, primary node1, secondary node2 (whose
# disk is nearly full); node3 is empty, so moving the secondary there is the
# move that balances the disks, if node3 can take the disk.
GROUP = "default|uuid-g|preferred||\n"
NODE = "%s|65536|1024|60000|%d|%d|16|N|uuid-g|1||N|0|1|1.0"
INST = "big|4096|15360|2|running|Y|node1|node2|drbd||1|-|N"


def _cluster(pools, units=None, wanted=None):
    """pools: (t_dsk, f_dsk) per node; units: the storage column per node."""
    lines = []
    for pos, (total, free) in enumerate(pools):
        line = NODE % ("node%d" % (pos + 1), total, free)
        lines.append(line + ("|" + units[pos] if units else "") + "\n")
    inst = INST + ("|" + wanted if wanted else "") + "\n"
    return GROUP + "\n" + "".join(lines) + "\n" + inst + "\n\n"


def _to_node3(lines):
    return [line for line in lines if "node3" in line]


@pytest.mark.parametrize("search", ["bulk", "exhaustive"])
def test_two_small_units_refuse_what_the_pool_accepts(search, tmp_path):
    pools = [(40960, 25600), (20480, 5120), (30720, 30720)]
    # node3 as one pool: 30 GiB free; as units: two volume groups of 10 GiB
    units = ["25600,40960,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "5120,20480,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "10240,10240,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg"]
    assert _to_node3(_plan_moves(_cluster(pools), tmp_path, search))
    assert not _to_node3(_plan_moves(_cluster(pools, units, "lvm-vg,ssdvg"), tmp_path, search))


@pytest.mark.parametrize("search", ["bulk", "exhaustive"])
def test_a_roomy_unit_takes_what_the_pool_refuses(search, tmp_path):
    # node3's pool (its default VG, xenvg) has 10 GiB free; the disk wants
    # ssdvg, which has 30 GiB free there
    pools = [(40960, 25600), (20480, 5120), (10240, 10240)]
    units = ["10240,10240,lvm-vg,xenvg;25600,40960,lvm-vg,ssdvg",
             "10240,10240,lvm-vg,xenvg;5120,20480,lvm-vg,ssdvg",
             "10240,10240,lvm-vg,xenvg;30720,30720,lvm-vg,ssdvg"]
    assert not _to_node3(_plan_moves(_cluster(pools), tmp_path, search))
    assert _to_node3(_plan_moves(_cluster(pools, units, "lvm-vg,ssdvg"), tmp_path, search))


def _plan_moves(text, tmp_path, search):
    path = tmp_path / "seed-case.data"
    path.write_text(text)
    result = plan_balance(str(path), search=search, options=BalanceOptions())
    return result["step_lines"]


def test_unit_metric_averages_the_units_deviations():
    units = ["10240,10240,lvm-vg,ssdvg;5120,10240,lvm-vg,hddvg",
             "0,10240,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg"]
    text = _cluster([(40960, 20480), (40960, 20480)], units).replace(INST + "\n", "")
    data = load_text(text, "metric.data")
    rows = metrics.unit_metrics(data.nodes)
    # free fractions: ssd 1.0 and 0.0 (deviation 0.5), hdd 0.5 and 1.0 (0.25)
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("lvm-vg", "ssdvg", 2, 0.5), ("lvm-vg", "hddvg", 2, 0.25)]
    values = metrics.metric_values(data.nodes)
    assert values[metrics.FREE_DISK] == 0.375
    assert metrics.needs_unit_metric(data.nodes)


def _evacuate_secondary(text):
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.evacuate.plan import (
        evacuate)
    report = evacuate(load_text(text, "evac.data"), {"mode": "secondary-only",
                                                     "nodes": ["node2"]})
    return [(m["instance"], m["new_secondary"]) for m in report["moves"]], [
        f["instance"] for f in report["failed_instances"]]


def test_evacuation_targets_fit_the_disk_into_its_unit():
    """node2's secondary must go to node3 or node4: by the pool both could take
    it (node3 has more free space, hail prefers it); by units only node4's
    ssdvg can."""
    pools = [(40960, 25600), (20480, 5120), (40960, 40960), (20480, 20480)]
    units = ["25600,40960,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "5120,20480,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "10240,10240,lvm-vg,ssdvg;30720,30720,lvm-vg,hddvg",
             "20480,20480,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg"]
    moved, failed = _evacuate_secondary(_cluster(pools))
    assert moved == [("big", "node3")] and not failed
    moved, failed = _evacuate_secondary(_cluster(pools, units, "lvm-vg,ssdvg"))
    assert moved == [("big", "node4")] and not failed
    # no unit anywhere can take it: the evacuation fails instead of overfilling
    units[3] = "10240,20480,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg"
    moved, failed = _evacuate_secondary(_cluster(pools, units, "lvm-vg,ssdvg"))
    assert moved == [] and failed == ["big"]


@pytest.mark.parametrize("role", ["primary", "secondary"])
def test_even_forced_placements_keep_within_units(role):
    """The roller and evacuation place with force: the hard rule (free space
    left > 0) holds per unit, and a refused placement changes nothing."""
    pools = [(40960, 25600), (20480, 5120), (30720, 30720)]
    units = ["25600,40960,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "5120,20480,lvm-vg,ssdvg;10240,10240,lvm-vg,hddvg",
             "10240,10240,lvm-vg,ssdvg;20480,20480,lvm-vg,hddvg"]
    for text, expected in ((_cluster(pools), None),
                           (_cluster(pools, units, "lvm-vg,ssdvg"), "FailDisk")):
        data = load_text(text, "force.data")
        node3, inst = data.nodes[2].copy(), data.instances[0]
        before = (node3.unit_free, node3.f_dsk, list(node3.p_list), list(node3.s_list))
        if role == "primary":
            assert node3.add_pri(inst, True) == expected
        else:
            assert node3.add_sec(inst, inst.pnode, True) == expected
        if expected:
            assert (node3.unit_free, node3.f_dsk, node3.p_list, node3.s_list) == before
