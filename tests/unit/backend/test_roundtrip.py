# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text format round trip: load -> dump_text -> load.

The text format is sections separated by empty lines (groups, nodes,
instances, cluster tags, optional policies); ``hbal -S P`` writes the cluster as
loaded (every group, ``-O`` not yet applied) in that format to ``P.original``.

For every generated cluster (seeds 1..HTOOLS_ROUNDTRIP_CASES, default 300)
and every file in tests/data/spec/:

* the model loaded from the original text and the one loaded from our dump
  are identical, slot by slot, after the same pipeline ran on both;
* dump(load(dump(x))) == dump(x), byte for byte;
* our dump of the freshly loaded file is byte-identical to what the real
  ``hbal -t FILE -S P -l 0`` writes to ``P.original`` (the -S format is the
  reference).
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.errors import LookupFailure
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.dynutil import parse_util
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare, select_group
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text_save import dump_text

from kit.model_snapshot import snapshot, snapshot_diff
from kit.paths import SPEC_DATA

N_CASES = int(os.environ.get("HTOOLS_ROUNDTRIP_CASES", "300"))
SEEDS = list(range(1, N_CASES + 1))
SPEC_DATA_DIR = pathlib.Path(SPEC_DATA)
SPEC_FILES = sorted(p.name for p in SPEC_DATA_DIR.glob("*.data"))


def _first_difference(ours, theirs):
    a, b = ours.split("\n"), theirs.split("\n")
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "<missing>"
        y = b[k] if k < len(b) else "<missing>"
        if x != y:
            return "line %d:\n  ours: %r\n  hbal: %r" % (k + 1, x, y)
    return "no line differs (trailing newline?)"


def _pipeline(text, source, options, util):
    data = load_text(text, source)
    prepare(data, util=util, ignore_dynu=options.get("ignore_dynu", False),
            exclusion_tags=options.get("exclusion_tags", ()),
            offline_nodes=options.get("offline_nodes", ()), util_source="<util>")
    return data


def _check_roundtrip(text, source, options, util, what):
    first = load_text(text, source)
    dumped = dump_text(first)
    second = load_text(dumped, source + " (dumped)")
    redumped = dump_text(second)
    assert redumped == dumped, "%s: dump(load(dump(x))) != dump(x); %s" % (
        what, _first_difference(redumped, dumped))

    data_a = _pipeline(text, source, options, util)
    data_b = _pipeline(dumped, source, options, util)
    diff = snapshot_diff(snapshot(data_a), snapshot(data_b))
    assert not diff, "%s: model differs after load -> dump -> load:\n  %s" % (
        what, "\n  ".join(diff))

    # the selected group holds the same nodes and instances too
    try:
        sel_a = select_group(data_a, options.get("group"))
    except LookupFailure:
        with pytest.raises(LookupFailure):
            select_group(data_b, options.get("group"))
        return dumped
    sel_b = select_group(data_b, options.get("group"))
    assert [n.idx for n in sel_a.nodes] == [n.idx for n in sel_b.nodes]
    assert [i.idx for i in sel_a.instances] == [i.idx for i in sel_b.instances]
    return dumped


def _hbal_original(hbal_path, data_path, prefix, group):
    """Run hbal -S; return (P.original text or None, CompletedProcess)."""
    argv = [hbal_path, "-t", str(data_path), "-S", str(prefix), "-l", "0"]
    if group is not None:
        argv += ["-G", group]
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C.UTF-8")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env,
                          check=False)
    original = str(prefix) + ".original"
    if not os.path.exists(original):
        return None, proc
    with open(original, encoding="utf-8") as handle:
        return handle.read(), proc


def _first_populated_group(text):
    data = load_text(text, "<probe>")
    try:
        select_group(prepare(data), None)
        return None
    except LookupFailure:
        return data.groups[min(n.group for n in data.nodes)].name


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_generated_roundtrip(seed, cluster_gen):
    case = cluster_gen.generate(seed)
    util = parse_util(case.util, "<util>") if case.util is not None else None
    _check_roundtrip(case.data, "c%d.data" % seed, case.options, util, "seed %d" % seed)


@pytest.mark.parametrize("name", SPEC_FILES)
def test_spec_file_roundtrip(name):
    path = SPEC_DATA_DIR / name
    text = path.read_text(encoding="utf-8")
    util = None
    upath = SPEC_DATA_DIR / ("u" + name[1:-5] + ".txt")
    if name.startswith("c") and upath.exists():
        util = parse_util(upath.read_text(encoding="utf-8"), str(upath))
    _check_roundtrip(text, str(path), {}, util, name)


def test_dump_of_dump_is_stable_for_lossy_columns():
    """Columns with defaults, `?` nodes and fractional sizes survive a second round trip."""
    text = ("g|u1|preferred||\n\n"
            "a|4096.5|0|2048|100000.25|90000|8.5|M|u1\n"
            "b|?|0|2048|100000|90000|8|N|u1|1|t:x\n"
            "c|4096|0|4096|100000|100000|8|N|u1|3|x,y|Y|2|2|1.5\n\n"
            "i1|1024|10000|1|running|Y|a|c|drbd|\n"
            "i2|512|0|1|ADMIN_down|N|c||diskless||0|-|Y\n\n"
            "tag1\n\n")
    dumped = dump_text(load_text(text, "<t>"))
    assert dump_text(load_text(dumped, "<d>")) == dumped
    a = snapshot(prepare(load_text(text, "<t>")))
    b = snapshot(prepare(load_text(dumped, "<d>")))
    assert not snapshot_diff(a, b)


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_dump_matches_hbal_save(seed, tmp_path, cluster_gen, require_hbal):
    case = cluster_gen.generate(seed)
    dpath = tmp_path / ("c%d.data" % seed)
    dpath.write_text(case.data, encoding="utf-8")
    reference, proc = _hbal_original(require_hbal, dpath, tmp_path / "saved",
                                     case.options["group"])
    if reference is None:
        if "Cluster is empty, exiting." in proc.stdout:
            pytest.skip("seed %d: hbal exits on an empty cluster before writing -S files" % seed)
        pytest.fail("seed %d: hbal wrote no .original (exit %d)\n%s%s"
                    % (seed, proc.returncode, proc.stdout, proc.stderr))
    ours = dump_text(load_text(case.data, str(dpath)), hbal_compat=True)
    assert ours == reference, (
        "seed %d: dump_text differs from hbal -S P.original; first difference at %s\n"
        "  reproduce: python tests/gen/cluster_gen.py --seed %d --out /tmp/htools-rt && "
        "%s -t /tmp/htools-rt/c%d.data -S /tmp/htools-rt/P -l 0%s"
        % (seed, _first_difference(ours, reference), seed, require_hbal, seed,
           " -G %s" % case.options["group"] if case.options["group"] else ""))


@pytest.mark.parametrize("name", SPEC_FILES)
def test_spec_dump_matches_hbal_save(name, tmp_path, require_hbal):
    path = SPEC_DATA_DIR / name
    text = path.read_text(encoding="utf-8")
    reference, proc = _hbal_original(require_hbal, path, tmp_path / "saved",
                                     _first_populated_group(text))
    assert reference is not None, "hbal wrote no .original:\n%s%s" % (proc.stdout, proc.stderr)
    ours = dump_text(load_text(text, str(path)), hbal_compat=True)
    assert ours == reference, "%s: %s" % (name, _first_difference(ours, reference))
