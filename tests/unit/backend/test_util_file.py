# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Dynamic utilisation files (``hbal -U``: one ``name cpu mem dsk net`` line per instance).

* lines split on single spaces into exactly 5 fields, Haskell number syntax;
* a later line for the same instance wins;
* unknown instance names are an error here (the issue's requirement), where
  hbal 3.0.2 silently ignores them;
* ``ignore_dynu`` zeroes every utilisation and load;
* with known names only, our score equals hbal's with the same ``-U`` file.
"""

from __future__ import annotations

import os
import random

import pytest

from kit.plans import cluster_info
from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.dynutil import (
    load_util_file, parse_util)
from ansible_collections.ganeti.htools.plugins.module_utils.numfmt import hs_fixed
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare

from kit.report_parity import compare

SRC = "/data/util.txt"
N_CASES = int(os.environ.get("HTOOLS_UTIL_CASES", "80"))
SEEDS = list(range(1, N_CASES + 1))

DATA = ("g|uuid-1|preferred||\n\n"
        "nodeA|8192|0|5120|100000|80000|8|M|uuid-1|2\n"
        "nodeB|8192|0|6144|100000|80000|8|N|uuid-1|2\n"
        "nodeC|8192|0|8192|100000|100000|8|N|uuid-1|2\n\n"
        "i1|1024|10000|1|running|Y|nodeA|nodeB|drbd|\n"
        "i2|2048|10000|2|running|Y|nodeB|nodeA|drbd|\n"
        "i3|512|0|1|running|Y|nodeA||ext|\n\n\n")


def test_basic_parse():
    got = parse_util("i1 1 2 3 4\ni2 0.5 1e3 0 -2\n", SRC)
    assert got == {"i1": (1.0, 2.0, 3.0, 4.0), "i2": (0.5, 1000.0, 0.0, -2.0)}
    assert all(isinstance(v, float) for values in got.values() for v in values)
    assert parse_util("", SRC) == {}
    assert parse_util("i1 1 1 1 1", SRC) == {"i1": (1.0,) * 4}    # no final newline


def test_later_line_wins():
    got = parse_util("i1 1 1 1 1\ni2 5 5 5 5\ni1 2 3 4 5\n", SRC)
    assert got["i1"] == (2.0, 3.0, 4.0, 5.0) and got["i2"] == (5.0,) * 4


@pytest.mark.parametrize("line,count", [
    ("i1 1 1 1", 4),
    ("i1 1 1 1 1 1", 6),
    ("i1  1 1 1 1", 6),          # two spaces: an empty field
    (" i1 1 1 1 1", 6),          # leading space
    ("i1 1 1 1 1 ", 6),          # trailing space
    ("i1\t1 1 1 1", 4),          # a tab is not a separator
    ("i1", 1),
])
def test_single_space_split_exactly_five_fields(line, count):
    with pytest.raises(DataError) as err:
        parse_util("i0 1 1 1 1\n" + line + "\n", SRC)
    message = str(err.value)
    assert message.startswith(SRC + ":2: ")
    assert "has %d" % count in message and "5" in message


def test_empty_line_is_an_error():
    with pytest.raises(DataError) as err:
        parse_util("i1 1 1 1 1\n\ni2 1 1 1 1\n", SRC)
    assert str(err.value).startswith(SRC + ":2: ")


@pytest.mark.parametrize("value,expected", [
    ("4", 4.0), ("4.0", 4.0), ("-4", -4.0), ("1e3", 1000.0), ("1E-2", 0.01), ("2.5e+1", 25.0),
    ("0", 0.0), ("Infinity", float("inf")), ("-Infinity", float("-inf")),
])
def test_number_syntax_accepted(value, expected):
    assert parse_util("i1 %s 1 1 1\n" % value, SRC)["i1"][0] == expected


def test_nan_accepted():
    assert parse_util("i1 NaN 1 1 1\n", SRC)["i1"][0] != parse_util("i1 NaN 1 1 1\n", SRC)["i1"][0]


@pytest.mark.parametrize("value", [".5", "5.", "+5", "1,5", "abc", "", "0x10", "1_0", "five",
                                   "1e", "nan", "inf", "\u0663", "1\r"])
@pytest.mark.parametrize("column", [1, 2, 3, 4])
def test_number_syntax_rejected(value, column):
    fields = ["vm1", "1", "1", "1", "1"]
    fields[column] = value
    with pytest.raises(DataError) as err:
        parse_util("i1 1 1 1 1\n" + " ".join(fields) + "\n", SRC)
    message = str(err.value)
    assert message.startswith(SRC + ":2: ") and "vm1" in message
    assert "field %d" % (column + 1) in message and repr(value) in message


def test_crlf_is_rejected():
    with pytest.raises(DataError) as err:
        parse_util("i1 1 1 1 1\r\n", SRC)
    assert SRC in str(err.value)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "u.txt"
    path.write_bytes(b"i1 1 1 1 1\n\xff\xfe 1 1 1 1\n")
    with pytest.raises(DataError) as err:
        load_util_file(str(path))
    assert str(path) in str(err.value)
    with pytest.raises(DataError) as err:
        load_util_file(str(tmp_path / "missing.txt"))
    assert "missing.txt" in str(err.value)


# ---------------------------------------------------------------------------
# merging into the model


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_utilisation_applied_by_exact_name():
    data = prepare(load_text(DATA, "<d>"), util=parse_util("i1 1 2 3 4\ni3 0.5 0 0 8\n", SRC))
    util = {i.name: i.util for i in data.instances}
    assert util == {"i1": (1.0, 2.0, 3.0, 4.0), "i2": (1.0, 1.0, 1.0, 1.0),
                    "i3": (0.5, 0.0, 0.0, 8.0)}
    node_a = data.nodes[0]           # primaries i1 and i3, secondary of i2
    assert node_a.util_load == [1.5, 2.0, 3.0 + 0.0 + 1.0, 12.0]


UNKNOWN_UTIL = "i1 1 1 1 1\nnosuch 2 2 2 2\ni1.example 1 1 1 1\n"


def test_unknown_instance_is_an_error(tmp_path):
    dpath = _write(tmp_path, "c.data", DATA)
    upath = _write(tmp_path, "u.txt", UNKNOWN_UTIL)
    with pytest.raises(DataError) as err:
        prepare(load_text(DATA, dpath), util=parse_util(UNKNOWN_UTIL, upath), util_source=upath)
    assert upath in str(err.value) and "nosuch" in str(err.value)
    with pytest.raises(DataError) as err:
        cluster_info(dpath, util_file=upath)
    message = str(err.value)
    assert upath in message and "nosuch" in message and "i1.example" in message


def test_hbal_ignores_unknown_instances(tmp_path, hbal_oracle, require_hbal):
    """hbal 3.0.2 silently ignores unknown names in a -U file: a deliberate difference."""
    dpath = _write(tmp_path, "c.data", DATA)
    upath = _write(tmp_path, "u.txt", UNKNOWN_UTIL)
    hb = hbal_oracle.run_hbal(dpath, upath, check=False, parse=False)
    assert hb.returncode == 0, hb.stderr


def test_ignore_dynu_zeroes_everything(tmp_path):
    data = prepare(load_text(DATA, "<d>"), util=parse_util("i1 9 9 9 9\n", SRC),
                   ignore_dynu=True)
    assert all(i.util == (0.0, 0.0, 0.0, 0.0) for i in data.instances)
    assert all(n.util_load == [0.0] * 4 and n.util_load_forth == [0.0] * 4 for n in data.nodes)
    dpath = _write(tmp_path, "c.data", DATA)
    upath = _write(tmp_path, "u.txt", "i1 9 9 9 9\ni2 3 3 3 3\n")
    res = cluster_info(dpath, util_file=upath, ignore_dynu=True)
    for name in ("cpu_load_cv", "mem_load_cv", "disk_load_cv", "net_load_cv"):
        assert res["metrics"][name] == 0.0
    assert all(r["cload"] == 0.0 and r["nload"] == 0.0 for r in res["nodes"])
    assert all(i["util"] == [0.0] * 4 for i in res["instances"])


def test_ignore_dynu_matches_hbal(tmp_path, require_hbal, hbal_oracle):
    dpath = _write(tmp_path, "c.data", DATA)
    upath = _write(tmp_path, "u.txt", "i1 9 9 9 9\ni2 3 3 3 3\n")
    hb = hbal_oracle.run_hbal(dpath, upath, ignore_dynu=True)
    res = cluster_info(dpath, util_file=upath, ignore_dynu=True)
    assert hs_fixed(res["score"], 8) == hb.initial_score_text


# ---------------------------------------------------------------------------
# parity with hbal -U on generated clusters (known names only)

VALUES = ("0", "0.5", "1", "1.0", "2", "2.5", "3.75", "10", "1e2", "0.125", "1E-1", "7")


def _util_for(case, rng):
    names = [i.name for i in load_text(case.data, "<gen>").instances]
    if not names:
        return None
    chosen = rng.sample(names, rng.randint(1, len(names)))
    lines = [" ".join([n] + [rng.choice(VALUES) for _k in range(4)]) for n in chosen]
    for _dup in range(rng.choice((0, 0, 1, 3))):     # later lines win
        lines.append(" ".join([rng.choice(chosen)] + [rng.choice(VALUES) for _k in range(4)]))
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_util_parity_with_hbal(seed, tmp_path, cluster_gen, hbal_oracle, require_hbal):
    case = cluster_gen.generate(seed)
    rng = random.Random("util-%d" % seed)
    util = _util_for(case, rng)
    if util is None:
        pytest.skip("seed %d has no instances" % seed)
    dpath = _write(tmp_path, "c%d.data" % seed, case.data)
    upath = _write(tmp_path, "u%d.txt" % seed, util)
    opts = dict(case.options, ignore_dynu=False)
    hb = hbal_oracle.run_hbal(dpath, upath, **opts)
    if hb.cluster_empty:
        pytest.skip("seed %d: hbal says the cluster is empty" % seed)
    res = cluster_info(dpath, util_file=upath, group=opts["group"],
                       offline_nodes=list(opts["offline_nodes"]),
                       exclusion_tags=list(opts["exclusion_tags"]))
    problems = compare(case, hb, res, hs_fixed)
    assert not problems, "seed %d with -U %s: %d difference(s)\n  %s\n  hbal: %s" % (
        seed, upath, len(problems), "\n  ".join(problems), hb.command)
