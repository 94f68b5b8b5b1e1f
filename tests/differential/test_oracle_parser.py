"""Tests of the hbal oracle (``tests/oracle/hbal.py``) itself.

The canned output below was produced by the real hbal 3.0.2 on DATA with
``-v -v -v -p -l 0`` (the ``Loaded cluster ipolicy`` line is shortened; the
parser ignores it).  The negative tests make sure that a damaged output is
rejected instead of silently yielding empty or partial results.
"""

from __future__ import annotations

import pytest

DATA = """\
grp-a|uuid-aaaa|preferred||

alpha.lab|8192|512|5120|200000|180000|8|M|uuid-aaaa|2
beta.lab|8192|512|2000|200000|170000|8|N|uuid-aaaa|2
gamma.lab|8192|512|7680|200000|200000|8|Y|uuid-aaaa|2

vm1.lab|1024|10240|2|running|Y|alpha.lab|beta.lab|drbd|svc:a|1
vm2.lab|2048|10240|1|ADMIN_down|Y|beta.lab|alpha.lab|drbd||1
vm3.lab|512|0|1|running|Y|gamma.lab||ext|svc:a|1

htools:iextags:svc
"""

STDOUT = """\
Loaded cluster tags: htools:iextags:svc
Loaded cluster ipolicy: IPolicy {...}
Loaded 3 nodes, 3 instances
Note: Stripping common suffix of '.lab' from names
Group size 3 nodes, 3 instances
Selected node group: grp-a
Initial check done: 0 bad nodes, 0 bad instances.
Initial coefficients: overall 20.49667969
   Field                         Value Weight
   free_mem_cv              0.19042969  x0.50
   free_disk_cv             0.02500000  x0.50
   n1_cnt                   0.00000000  x1.00
   reserved_mem_cv          0.06250000  x1.00
   offline_all_cnt          1.00000000  x4.00
   offline_pri_cnt          1.00000000 x16.00
   vcpu_ratio_cv            0.06250000  x0.50
   cpu_load_cv              0.00000000  x1.00
   mem_load_cv              0.00000000  x1.00
   disk_load_cv             0.00000000  x1.00
   net_load_cv              0.00000000  x1.00
   pri_tags_score           0.00000000  x2.00
   spindles_cv              0.00000000  x0.50
   free_mem_cv_forth        0.31542969  x0.50
   free_disk_cv_forth       0.02500000  x0.50
   vcpu_ratio_cv_forth      0.06250000  x0.50
   spindles_cv_forth        0.00000000  x0.50
   location_score           0.00000000  x1.00
   location_exclusion_score 0.00000000  x1.00
   reserved_mem_rtotal      0.37500000  x0.25
Trying to minimize the CV...
No solution found
Solution length=0
Original: mem=14288 disk=550000
Final:    mem=14288 disk=550000
"""

HEADER = (" F Name  t_mem n_mem i_mem x_mem f_mem u_mem r_mem t_dsk f_dsk pcpu"
          " vcpu pcnt scnt p_fmem p_fdsk r_cpu  lCpu  lMem  lDsk  lNet")
ROWS = [
    "   alpha  8192   512  1024  1536  5120  5120  2048   195   175    8    3"
    "    1    1 0.6250 0.9000  0.38 1.000 1.000 2.000 1.000",
    "   beta   8192   512     0  5680  2000  2000  1024   195   166    8    2"
    "    1    1 0.2441 0.8500  0.25 1.000 1.000 2.000 1.000",
    " - gamma  8192   512   512  -512  7680  7168     0   195   195    8    2"
    "    1    0 0.8750 1.0000  0.25 1.000 1.000 1.000 1.000",
]
TABLE = "\n".join([HEADER] + ROWS) + "\n"
STDERR = (
    "Warning: cluster has inconsistent data:\n"
    "  - node beta.lab is missing 5680 MB ram and 9 GB disk\n"
    "  - node alpha.lab is missing 1536 MB ram and -1 GB disk\n"
    "\n\nInitial cluster status:\n" + TABLE + "\n\n"
    "Final cluster status:\n" + TABLE + "\n")


def test_parse_canned(hbal_oracle):
    r = hbal_oracle.parse_output(STDOUT, STDERR)
    assert r.parsed and not r.cluster_empty and not r.well_balanced
    assert (r.loaded_nodes, r.loaded_instances) == (3, 3)
    assert (r.group_nodes, r.group_instances) == (3, 3)
    assert r.group_name == "grp-a"
    assert r.stripped_suffix == ".lab"
    assert (r.bad_nodes, r.bad_instances, r.n1_unhappy) == (0, 0, False)
    assert r.policy_violating is None
    assert r.initial_score_text == "20.49667969"
    assert [m[0] for m in r.metrics_text] == list(hbal_oracle.METRIC_NAMES)
    assert r.metrics_text[5] == ("offline_pri_cnt", "1.00000000", "x16.00")
    assert r.metrics_dict["free_mem_cv_forth"] == "0.31542969"
    assert r.node_table_lines == [HEADER] + ROWS
    assert r.warnings == ["node beta.lab is missing 5680 MB ram and 9 GB disk",
                          "node alpha.lab is missing 1536 MB ram and -1 GB disk"]
    assert r.warning_lines[0].startswith("  - node beta.lab")


def _broken_variants():
    out_lines = STDOUT.split("\n")
    yield "no metric row", STDOUT.replace(
        "   n1_cnt                   0.00000000  x1.00\n", ""), STDERR
    yield "no score", STDOUT.replace(
        "Initial coefficients: overall 20.49667969\n", ""), STDERR
    yield "bad score", STDOUT.replace("overall 20.49667969", "overall 20.5"), \
        STDERR
    yield "no group", "\n".join(x for x in out_lines
                                if not x.startswith("Selected")), STDERR
    yield "twice group", STDOUT.replace(
        "Selected node group: grp-a\n",
        "Selected node group: grp-a\nSelected node group: grp-a\n"), STDERR
    yield "no check", STDOUT.replace(
        "Initial check done: 0 bad nodes, 0 bad instances.\n", ""), STDERR
    yield "no table", STDOUT, STDERR.replace("Initial cluster status:",
                                             "Initial cluster state:")
    yield "missing row", STDOUT, STDERR.replace(ROWS[1] + "\n", "", 1)
    yield "misaligned row", STDOUT, STDERR.replace(ROWS[1], ROWS[1] + " ", 1)
    yield "unterminated", STDOUT, STDERR[:STDERR.index("\n\n\nFinal")]
    yield "truncated", STDOUT[:STDOUT.index("Trying")], STDERR
    yield "stray warning", STDOUT, STDERR.replace(
        "Warning: cluster has inconsistent data:\n", "")
    yield "n1 mismatch", STDOUT.replace("0 bad nodes", "2 bad nodes"), STDERR


@pytest.mark.parametrize("variant", list(_broken_variants()),
                         ids=lambda v: v[0])
def test_parse_rejects_broken_output(hbal_oracle, variant):
    _name, out, err = variant
    with pytest.raises(hbal_oracle.HbalParseError):
        hbal_oracle.parse_output(out, err)


def test_parse_cluster_empty(hbal_oracle):
    r = hbal_oracle.parse_output("Cluster is empty, exiting.\n", "")
    assert r.cluster_empty and r.initial_score_text is None
    with pytest.raises(hbal_oracle.HbalParseError):
        hbal_oracle.parse_output(
            "Cluster is empty, exiting.\n", "\nInitial cluster status:\n")


def test_argv(hbal_oracle):
    argv = hbal_oracle.hbal_argv("c.data", "u.txt", group="g1",
                                 offline_nodes=["a", "b"],
                                 exclusion_tags=["x", "y"], ignore_dynu=True,
                                 extra_args=["-C"], hbal_path="hbal")
    assert argv == ["hbal", "-t", "c.data", "-v", "-v", "-v", "-p", "-l", "0",
                    "-U", "u.txt", "-G", "g1", "-O", "a", "-O", "b",
                    "--exclusion-tags=x,y", "--ignore-dynu", "-C"]
    with pytest.raises(TypeError):
        hbal_oracle.hbal_argv("c.data", offline_nodes="abc")


def test_run_hbal_live(hbal_oracle, require_hbal, tmp_path):
    path = tmp_path / "mine.data"
    path.write_text(DATA)
    r = hbal_oracle.run_hbal(path)
    expected = hbal_oracle.parse_output(STDOUT, STDERR)
    for attr in ("group_name", "initial_score_text", "metrics_text",
                 "node_table_lines", "warnings", "bad_nodes", "bad_instances",
                 "stripped_suffix", "well_balanced", "policy_violating"):
        assert getattr(r, attr) == getattr(expected, attr), attr
    assert "-l" in r.argv and r.command.endswith("-p -l 0")

    # a group whose nodes are all offline: well balanced, no metric rows
    r = hbal_oracle.run_hbal(path, offline_nodes=["alpha", "beta.lab"])
    assert r.well_balanced and r.metrics_text == []
    assert r.initial_score_text == "0.00000000"
    assert len(r.node_table_lines) == 4

    with pytest.raises(hbal_oracle.HbalError):
        hbal_oracle.run_hbal(path, group="no-such-group")
    r = hbal_oracle.run_hbal(path, offline_nodes=["nope"], check=False)
    assert r.returncode == 1 and not r.parsed
