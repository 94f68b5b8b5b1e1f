"""Self-check of the random cluster generator (``tests/gen/cluster_gen.py``).

* Seeds 1..300 together must cover every feature the differential tests
  rely on.  Features are detected from the generated text and options with
  an independent mini-parser, not from the generator's own feature list.
* Every case must avoid the degenerate inputs whose hbal behaviour nobody
  has characterised (duplicate names, a DRBD instance without a secondary, a
  secondary on a non-DRBD instance, an online node with no memory, CPUs or
  spindles) and be well-formed (-U names exist, -G given when needed, -O
  names resolve).
* hbal must accept every case (exit 0) and the strict oracle parser must
  understand its output.  ``HTOOLS_GEN_HBAL_STEP=k`` checks only every k-th
  seed (default 1: all 300, run in parallel, a few seconds).
"""

from __future__ import annotations

import collections
import concurrent.futures
import json
import os
import re

import pytest

COVERAGE_SEEDS = range(1, 301)

TEMPLATES = ("drbd", "plain", "file", "sharedfile", "blockdev", "rbd", "ext",
             "diskless", "gluster")
STATUSES = ("running", "ADMIN_down", "ADMIN_offline", "ERROR_up",
            "ERROR_down", "ERROR_nodedown", "ERROR_nodeoffline", "USER_down",
            "ERROR_wrongnode")
MEM_STATUSES = {"running", "ERROR_up", "ERROR_nodedown", "ERROR_nodeoffline",
                "ERROR_wrongnode"}

# every feature that seeds 1..300 must cover (checked by test_coverage)
REQUIRED = (
    [f"template_{t}" for t in TEMPLATES]
    + [f"status_{s}" for s in STATUSES]
    + [f"qmark_col_{c}" for c in range(2, 8)]
    + [f"node_cols_{c}" for c in range(9, 16)]
    + [f"inst_cols_{c}" for c in range(10, 14)]
    + [
        "node_offline_Y", "node_master_M", "instance_on_offline_node",
        "forthcoming", "autobalance_N", "instance_tags",
        "iextags_cluster_tag", "exclusion_tags_cli",
        "nlocation", "desired_location", "migration_tags", "allowmigration",
        "excl_storage_spindles", "inst_spindles_dash", "inst_spindles_num",
        "cpu_speed", "ncpu",
        "ipolicy_missing", "ipolicy_present", "ipolicy_custom_group_ratios",
        "ipolicy_by_uuid", "ipolicy_quirk_as_tags",
        "multi_group_with_G", "group_without_nodes", "G_on_single_group",
        "multi_node_sizes", "xmem_positive_warn", "xmem_negative",
        "disk_warning", "cli_offline", "cli_offline_partial_name",
        "ignore_dynu", "util_file", "symmetric", "name_suffix",
        "nodes_2_12", "nodes_13_30", "instances_0", "instances_30_40",
        "four_field_group_line", "G_on_group_without_nodes",
        "fractional_sizes",
    ]
)


# ---------------------------------------------------------------------------
# independent mini-parser of the htools text format: sections separated by
# empty lines (groups, nodes, instances, cluster tags, optional policies),
# fields by "|"


def hs_lines(text):
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def split_sections(lines):
    sections, cur = [], []
    for line in lines:
        if line == "":
            sections.append(cur)
            cur = []
        else:
            cur.append(line)
    sections.append(cur)
    return sections


def parse_case(case):
    secs = split_sections(hs_lines(case.data))
    assert len(secs) >= 4, f"seed {case.seed}: {len(secs)} sections"
    groups = [ln.split("|") for ln in secs[0]]
    nodes = [ln.split("|") for ln in secs[1]]
    insts = [ln.split("|") for ln in secs[2]]
    ctags = list(secs[3])
    policies = [ln.split("|") for ln in secs[4]] if len(secs) > 4 else []
    return dict(groups=groups, nodes=nodes, insts=insts, ctags=ctags,
                policies=policies, nsections=len(secs))


def _num(x):
    return float(x)


def node_group_uuid(node):
    return node[8]


def detect(case):
    """Set of features present in ``case`` (independent of the generator)."""
    p = parse_case(case)
    opts = case.options
    feats = set()
    groups, nodes, insts = p["groups"], p["nodes"], p["insts"]
    ctags = p["ctags"]
    by_name = {n[0]: n for n in nodes}

    for g in groups:
        if len(g) == 4:
            feats.add("four_field_group_line")

    qmark = {n[0] for n in nodes if "?" in n[1:7]}
    for n in nodes:
        feats.add(f"node_cols_{len(n)}")
        for c in range(2, 8):
            if n[c - 1] == "?":
                feats.add(f"qmark_col_{c}")
        if n[7] == "Y" and n[0] not in qmark:
            feats.add("node_offline_Y")
        if n[7] == "M":
            feats.add("node_master_M")
        if len(n) >= 13 and n[11] == "Y" and int(n[9]) > 1:
            feats.add("excl_storage_spindles")
        if len(n) >= 14 and n[13] != "1":
            feats.add("ncpu")
        if len(n) >= 15 and float(n[14]) != 1.0:
            feats.add("cpu_speed")

    offline = {n[0] for n in nodes if n[7] == "Y"} | qmark
    for i in insts:
        feats.add(f"inst_cols_{len(i)}")
        feats.add(f"template_{i[8]}")
        feats.add(f"status_{i[4]}")
        if i[5] == "N":
            feats.add("autobalance_N")
        if i[6] in offline:
            feats.add("instance_on_offline_node")
        if len(i) >= 13 and i[12] == "Y":
            feats.add("forthcoming")
        if len(i) >= 12:
            feats.add("inst_spindles_dash" if i[11] == "-"
                      else "inst_spindles_num")
        if i[9]:
            feats.add("instance_tags")

    itags = [t for i in insts for t in (i[9].split(",") if i[9] else [])]
    ntags = [t for n in nodes if len(n) >= 11 and n[0] not in qmark
             for t in (n[10].split(",") if n[10] else [])]
    for t in ctags:
        if t.startswith("htools:iextags:") and len(t) > 15:
            if any(x.startswith(t[15:]) for x in itags):
                feats.add("iextags_cluster_tag")
        if t.startswith("htools:nlocation:"):
            if any(x.startswith(t[17:] + ":") for x in ntags):
                feats.add("nlocation")
        if t.startswith("htools:desiredlocation:"):
            if any(x.startswith(t[23:]) for x in itags):
                feats.add("desired_location")
        if t.startswith("htools:migration:"):
            if any(x.startswith(t[17:] + ":") for x in ntags):
                feats.add("migration_tags")
        if t.startswith("htools:allowmigration:") and "::" in t:
            feats.add("allowmigration")
        if "|" in t:
            feats.add("ipolicy_quirk_as_tags")
    if opts["exclusion_tags"] and any(
            x.startswith(pfx + ":") for pfx in opts["exclusion_tags"]
            for x in itags):
        feats.add("exclusion_tags_cli")

    pols = p["policies"]
    if not pols:
        feats.add("ipolicy_missing")
    else:
        feats.add("ipolicy_present")
    uuids = {g[1] for g in groups}
    for pol in pols:
        if pol[0] and (float(pol[4]) != 4.0 or float(pol[5]) != 32.0):
            feats.add("ipolicy_custom_group_ratios")
        if pol[0] in uuids:
            feats.add("ipolicy_by_uuid")

    full = {node_group_uuid(n) for n in nodes}
    if len(full) > 1 and opts["group"] is not None:
        feats.add("multi_group_with_G")
    if len(full) == 1 and opts["group"] is not None:
        feats.add("G_on_single_group")
    if any(g[1] not in full for g in groups):
        feats.add("group_without_nodes")
    for uuid in full:
        sizes = {n[1] for n in nodes if n[8] == uuid and n[0] not in qmark}
        if len(sizes) > 1:
            feats.add("multi_node_sizes")

    # memory / disk consistency: hbal warns about a node whose total memory less
    # node, free and primary-instance memory is above 512 MiB, or whose total disk
    # less free disk and its instances' disks is above 1024 MiB; online-or-not,
    # '?' excluded
    for n in nodes:
        if n[0] in qmark:
            continue
        i_mem = sum(int(i[1]) for i in insts if i[6] == n[0]
                    and i[4] in MEM_STATUSES
                    and not (len(i) >= 13 and i[12] == "Y"))
        x_mem = int(_num(n[1])) - int(n[2]) - i_mem - int(n[3])
        if x_mem > 512:
            feats.add("xmem_positive_warn")
        if x_mem < 0:
            feats.add("xmem_negative")
        dsk = sum(int(i[2]) for i in insts
                  if (i[6] == n[0] or i[7] == n[0])
                  and not (len(i) >= 13 and i[12] == "Y"))
        if int(_num(n[4])) - int(n[5]) - dsk > 1024:
            feats.add("disk_warning")

    if opts["offline_nodes"]:
        feats.add("cli_offline")
        if any(o not in by_name for o in opts["offline_nodes"]):
            feats.add("cli_offline_partial_name")
    if opts["ignore_dynu"]:
        feats.add("ignore_dynu")
    if case.util is not None:
        feats.add("util_file")

    names = [n[0] for n in nodes] + [i[0] for i in insts]
    m = re.match(r"^[^.]*(\..+)$", names[0])
    if m and all(x.endswith(m.group(1)) for x in names):
        feats.add("name_suffix")

    sel = opts["group"]
    sel_uuids = [g[1] for g in groups if sel in (g[0], g[1])] if sel else \
        sorted(full)
    gnodes = [n for n in nodes if n[8] in sel_uuids]
    if sel is not None and not gnodes:
        feats.add("G_on_group_without_nodes")
    if any(not float(x).is_integer() for n in nodes if n[0] not in qmark
           for x in (n[1], n[4], n[6])):
        feats.add("fractional_sizes")
    if 2 <= len(gnodes) <= 12:
        feats.add("nodes_2_12")
    if 13 <= len(gnodes) <= 30:
        feats.add("nodes_13_30")
    if not insts:
        feats.add("instances_0")
    if 30 <= len(insts) <= 40:
        feats.add("instances_30_40")
    if is_symmetric(gnodes, insts):
        feats.add("symmetric")
    return feats


def is_symmetric(gnodes, insts):
    """All group nodes identical (but name) and carrying identical loads."""
    if len(gnodes) < 2 or not insts:
        return False
    # the master flag does not enter the score: M and N count as equal
    if len({tuple(n[1:7] + n[8:]) for n in gnodes}) != 1 or \
            any(n[7] not in ("N", "M") for n in gnodes):
        return False
    names = {n[0] for n in gnodes}
    ginsts = [i for i in insts if i[6] in names]
    if len(ginsts) != len(insts):
        return False
    # instance columns 11..13 may be omitted: compare with the defaults
    defaults = ["1", "-", "N"]
    norm = {tuple(i[1:6] + i[8:] + defaults[len(i) - 10:]) for i in ginsts}
    if len(norm) != 1:
        return False
    pcnt = collections.Counter(i[6] for i in ginsts)
    scnt = collections.Counter(i[7] for i in ginsts if i[7])
    return (len({pcnt[n] for n in names}) == 1
            and (not scnt or len({scnt[n] for n in names}) == 1))


def check_well_formed(case):
    """Problems that would make a case degenerate (an input whose hbal behaviour is
    not characterised, see the module docstring) or rejected."""
    p = parse_case(case)
    probs = []
    nodes, insts, groups = p["nodes"], p["insts"], p["groups"]
    node_names = [n[0] for n in nodes]
    inst_names = [i[0] for i in insts]
    all_names = node_names + inst_names + [g[0] for g in groups]
    if len(set(all_names)) != len(all_names):
        probs.append("duplicate names")
    uuids = [g[1] for g in groups]
    if len(set(uuids)) != len(uuids):
        probs.append("duplicate group uuids")
    for n in nodes:
        if not 9 <= len(n) <= 15:
            probs.append(f"node {n[0]}: {len(n)} columns")
        if n[8] not in uuids:
            probs.append(f"node {n[0]}: unknown group")
        if "?" not in n[1:7] and n[7] != "Y":
            if _num(n[1]) <= 0 or _num(n[6]) <= 0:
                probs.append(f"online node {n[0]} with t_mem/t_cpu 0")
            if len(n) >= 10 and int(n[9]) <= 0:
                probs.append(f"online node {n[0]} with 0 spindles")
    for i in insts:
        if not 10 <= len(i) <= 13:
            probs.append(f"instance {i[0]}: {len(i)} columns")
        if i[6] not in node_names:
            probs.append(f"instance {i[0]}: unknown primary")
        if i[8] == "drbd":
            if not i[7] or i[7] == i[6] or i[7] not in node_names:
                probs.append(f"drbd instance {i[0]}: bad secondary {i[7]!r}")
        elif i[7]:
            probs.append(f"non-drbd instance {i[0]} with a secondary")
        if i[8] not in TEMPLATES or i[4] not in STATUSES:
            probs.append(f"instance {i[0]}: bad template/status")
    for pol in p["policies"]:
        if pol[0] and pol[0] not in uuids and pol[0] not in \
                [g[0] for g in groups]:
            probs.append(f"policy for unknown group {pol[0]}")
        if float(pol[5]) <= 0:
            probs.append("spindle_ratio <= 0")
    if case.util is not None:
        if not case.util.endswith("\n") or "\n\n" in case.util:
            probs.append("util file: empty line / no final newline")
        for line in hs_lines(case.util):
            f = line.split(" ")
            if len(f) != 5 or f[0] not in inst_names:
                probs.append(f"util line {line!r}")
            else:
                for x in f[1:]:
                    float(x)
    opts = case.options
    full = {n[8] for n in nodes}
    if len(full) > 1 and opts["group"] is None:
        probs.append("several groups with nodes but no -G")
    if opts["group"] is not None and opts["group"] not in \
            [g[0] for g in groups] + uuids:
        probs.append("unknown -G group")
    for o in opts["offline_nodes"]:
        if o not in node_names and \
                len([x for x in node_names if x.startswith(o + ".")]) != 1:
            probs.append(f"-O {o} does not resolve")
    return probs


# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cases(cluster_gen):
    return {s: cluster_gen.generate(s) for s in COVERAGE_SEEDS}


def test_deterministic(cluster_gen):
    for s in (1, 2, 77):
        a, b = cluster_gen.generate(s), cluster_gen.generate(s)
        assert (a.data, a.util, a.options, a.argv) == \
            (b.data, b.util, b.options, b.argv)
    assert cluster_gen.generate(1).data != cluster_gen.generate(2).data


def test_coverage(cases):
    seen = collections.defaultdict(list)
    for seed, case in cases.items():
        for f in detect(case):
            seen[f].append(seed)
    missing = [f for f in REQUIRED if not seen.get(f)]
    summary = ", ".join(f"{f}={len(seen.get(f, []))}" for f in REQUIRED)
    assert not missing, f"features not covered by seeds 1..300: {missing}\n" \
                        f"counts: {summary}"
    # the bulk of the cases is small, some are large
    assert len(seen["nodes_2_12"]) > len(seen["nodes_13_30"]) >= 10


def test_well_formed(cases):
    bad = {s: probs for s, c in cases.items() if (probs := check_well_formed(c))}
    assert not bad, f"degenerate/ill-formed cases: {bad}"


def test_argv_matches_options(cases, hbal_oracle):
    for seed, case in cases.items():
        full = hbal_oracle.hbal_argv("F", None, **case.options)
        assert full[len(full) - len(case.argv):] == list(case.argv), seed


def test_cli_writes_files(cluster_gen, tmp_path):
    assert cluster_gen.main(["--seed", "5", "--out", str(tmp_path)]) == 0
    case = cluster_gen.generate(5)
    assert (tmp_path / "c5.data").read_text() == case.data
    opts = json.loads((tmp_path / "opts5.json").read_text())
    for key in ("group", "offline_nodes", "exclusion_tags", "ignore_dynu"):
        assert opts[key] == case.options[key]
    assert opts["argv"] == list(case.argv)
    if case.util is None:
        assert not (tmp_path / "u5.txt").exists()
    else:
        assert (tmp_path / "u5.txt").read_text() == case.util


def test_hbal_accepts_all(cases, hbal_oracle, require_hbal, tmp_path):
    step = max(1, int(os.environ.get("HTOOLS_GEN_HBAL_STEP", "1")))
    seeds = [s for s in cases if (s - 1) % step == 0]

    def run(seed):
        case = cases[seed]
        d, u = case.write(tmp_path / f"s{seed}")[:2]
        try:
            r = hbal_oracle.run_hbal(d, u, **case.options)
        except Exception as exc:  # HbalError / HbalParseError
            return seed, None, f"{exc}"[:3000]
        return seed, r, None

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(run, seeds))
    errors = {s: e for s, _r, e in results if e}
    assert not errors, f"hbal rejected/unparsable: {errors}"
    if step != 1:
        return
    reports = [r for _s, r, _e in results if r is not None and not r.cluster_empty]
    # the initial reports must exercise the interesting paths
    assert sum(r.bad_nodes > 0 for r in reports) >= 5
    assert sum(bool(r.warnings) for r in reports) >= 10
    assert sum(r.well_balanced for r in reports) >= 3
    assert sum(not r.metrics_text for r in reports) >= 1
    assert sum(r.policy_violating is not None for r in reports) >= 5
    assert sum(r.stripped_suffix is not None for r in reports) >= 10
