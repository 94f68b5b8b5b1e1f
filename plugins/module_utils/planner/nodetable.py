# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hbal's node table (`-p[FIELDS]`): values, formatting and layout.

`-p` alone prints DEFAULT_FIELDS, `-pF1,F2` exactly those fields, `-p+F1,F2`
the defaults followed by them.  Nodes in index order; each cell padded to its
column's widest entry (header included), numbers right-aligned, text
left-aligned.
"""

from __future__ import annotations

from ..numfmt import hs_fixed_w, hs_show_double, hs_show_list

DEFAULT_FIELDS = ("status", "name", "tmem", "nmem", "imem", "xmem", "fmem", "umem", "rmem",
                  "tdsk", "fdsk", "tcpu", "ucpu", "pcnt", "scnt", "pfmem", "pfdsk", "rcpu",
                  "cload", "mload", "dload", "nload")


def _status(node):
    if node.offline:
        return "-"
    return "*" if node.fail_n1 else " "


def _ptags(node):
    return ",".join("%s=%d" % (k, node.p_tags[k]) for k in sorted(node.p_tags))


def _peermap(node):
    return "[" + ",".join("(%d,%d)" % kv for kv in node.peer_list()) + "]"


# field -> (header, numeric, raw value getter, text formatter)
FIELDS = {
    "idx": ("Index", True, lambda n: n.idx, lambda v: "%4d" % v),
    "name": ("Name", False, lambda n: n.alias, str),
    "fqdn": ("Name", False, lambda n: n.name, str),
    "status": ("F", False, _status, str),
    "tmem": ("t_mem", True, lambda n: n.t_mem, lambda v: hs_fixed_w(v, 0, 5)),
    "nmem": ("n_mem", True, lambda n: n.n_mem, lambda v: "%5d" % v),
    "xmem": ("x_mem", True, lambda n: n.x_mem, lambda v: "%5d" % v),
    "fmem": ("f_mem", True, lambda n: n.f_mem, lambda v: "%5d" % v),
    "umem": ("u_mem", True, lambda n: n.unallocated_mem(), lambda v: "%5d" % v),
    "imem": ("i_mem", True, lambda n: n.i_mem, lambda v: "%5d" % v),
    "rmem": ("r_mem", True, lambda n: n.r_mem, lambda v: "%5d" % v),
    "amem": ("a_mem", True, lambda n: n.avail_mem(), lambda v: "%5d" % v),
    "tdsk": ("t_dsk", True, lambda n: n.t_dsk, lambda v: hs_fixed_w(v / 1024, 0, 5)),
    "fdsk": ("f_dsk", True, lambda n: n.f_dsk, lambda v: "%5d" % (v // 1024)),
    "tcpu": ("pcpu", True, lambda n: n.t_cpu, lambda v: hs_fixed_w(v, 0, 4)),
    "ucpu": ("vcpu", True, lambda n: n.u_cpu, lambda v: "%4d" % v),
    "pcnt": ("pcnt", True, lambda n: len(n.p_list), lambda v: "%3d" % v),
    "scnt": ("scnt", True, lambda n: len(n.s_list), lambda v: "%3d" % v),
    "plist": ("primaries", True, lambda n: list(n.p_list), hs_show_list),
    "slist": ("secondaries", True, lambda n: list(n.s_list), hs_show_list),
    "pfmem": ("p_fmem", True, lambda n: n.p_mem, lambda v: hs_fixed_w(v, 4, 6)),
    "pfdsk": ("p_fdsk", True, lambda n: n.p_dsk, lambda v: hs_fixed_w(v, 4, 6)),
    "rcpu": ("r_cpu", True, lambda n: n.p_cpu, lambda v: hs_fixed_w(v, 2, 5)),
    "cload": ("lCpu", True, lambda n: n.util_load[0], lambda v: hs_fixed_w(v, 3, 5)),
    "mload": ("lMem", True, lambda n: n.util_load[1], lambda v: hs_fixed_w(v, 3, 5)),
    "dload": ("lDsk", True, lambda n: n.util_load[2], lambda v: hs_fixed_w(v, 3, 5)),
    "nload": ("lNet", True, lambda n: n.util_load[3], lambda v: hs_fixed_w(v, 3, 5)),
    "ptags": ("PrimaryTags", False, _ptags, str),
    "peermap": ("PeerMap", False, _peermap, str),
    "spindle_count": ("NodeSpindles", True, lambda n: n.t_spindles, str),
    "hi_spindles": ("MaxSpindles", True, lambda n: n.hi_spindles, hs_show_double),
    "inst_spindles": ("InstSpindles", True, lambda n: n.inst_spindles, hs_show_double),
}


def node_row(node, field):
    """(text, raw value) of one cell; unknown fields print as hbal does."""
    entry = FIELDS.get(field)
    if entry is None:
        return "<unknown field>", None
    raw = entry[2](node)
    return entry[3](raw), raw


def format_table(nodes, fields=DEFAULT_FIELDS):
    """The table text: header and one line per node, each starting with a space."""
    header = [FIELDS[f][0] if f in FIELDS else "<unknown field>" for f in fields]
    numeric = [FIELDS[f][1] if f in FIELDS else False for f in fields]
    rows = [header] + [[node_row(n, f)[0] for f in fields] for n in nodes]
    widths = [max(len(row[c]) for row in rows) for c in range(len(fields))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if num else cell.ljust(w)
                 for cell, w, num in zip(row, widths, numeric)]
        lines.append(" " + " ".join(cells))
    return "\n".join(lines)


def node_record(node):
    """Every -p field's raw value for one node, plus role flags, as a dict."""
    record = {field: node_row(node, field)[1] for field in FIELDS}
    record.update(offline=node.offline, master=node.is_master, failn1=node.fail_n1)
    return record
