# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cluster resource totals (htools' CStats) and hspace's printed figures.

Integers stay integers and doubles are summed node by node in node order,
so every printed figure is hspace's to the last digit."""

from __future__ import annotations

from ...model.vocabulary import fdiv
from ...numfmt import hs_fixed, hs_show_double
from ..metrics import cluster_score


def _avail_disk(node):
    return 0 if node.f_dsk < node.lo_dsk else node.f_dsk - node.lo_dsk


def _avail_cpu(node):
    return node.hi_cpu - node.u_cpu if node.hi_cpu >= node.u_cpu else 0


class CStats:
    """totalResources of a node list."""

    def __init__(self, nodes):
        self.fmem = self.fdsk = self.fspn = self.amem = self.adsk = self.acpu = 0
        self.mmem = self.mdsk = self.mcpu = 0
        self.imem = self.idsk = self.ispn = self.icpu = 0
        self.tmem = self.tdsk = self.tspn = self.tcpu = 0.0
        self.vcpu = 0
        self.ncpu = 0.0
        self.xmem = self.nmem = self.ninst = 0
        for node in nodes:
            amem, adsk, acpu = node.avail_mem(), _avail_disk(node), _avail_cpu(node)
            self.fmem += node.unallocated_mem()
            self.fdsk += node.f_dsk
            self.fspn += node.f_spindles
            self.amem += amem
            self.adsk += adsk
            self.acpu += acpu
            self.mmem = max(self.mmem, amem)
            self.mdsk = max(self.mdsk, adsk)
            self.mcpu = max(self.mcpu, acpu)
            self.imem += node.i_mem
            self.idsk += int(node.t_dsk) - node.f_dsk
            self.ispn += node.t_spindles - node.f_spindles
            self.icpu += node.u_cpu
            self.tmem += node.t_mem
            self.tdsk += node.t_dsk
            self.tspn += float(node.t_spindles)
            self.tcpu += node.t_cpu
            self.vcpu += node.hi_cpu
            self.ncpu += fdiv(float(node.u_cpu), node.vcpu_ratio)
            self.xmem += node.x_mem
            self.nmem += node.n_mem
            self.ninst += len(node.p_list)
        self.score = cluster_score(nodes)


def _eff(used, total):
    return fdiv(float(used), float(total))


def phase_keys(prefix, cs):
    """hspace's statsData under INI_, TRL_ or FIN_."""
    rows = [
        ("SCORE", hs_fixed(cs.score, 8)),
        ("INST_CNT", "%d" % cs.ninst),
        ("MEM_FREE", "%d" % cs.fmem),
        ("MEM_AVAIL", "%d" % cs.amem),
        ("MEM_RESVD", "%d" % (cs.fmem - cs.amem)),
        ("MEM_INST", "%d" % cs.imem),
        ("MEM_OVERHEAD", "%d" % (cs.xmem + cs.nmem)),
        ("MEM_EFF", hs_fixed(_eff(cs.imem, cs.tmem), 8)),
        ("DSK_FREE", "%d" % cs.fdsk),
        ("DSK_AVAIL", "%d" % cs.adsk),
        ("DSK_RESVD", "%d" % (cs.fdsk - cs.adsk)),
        ("DSK_INST", "%d" % cs.idsk),
        ("DSK_EFF", hs_fixed(_eff(cs.idsk, cs.tdsk), 8)),
        ("SPN_FREE", "%d" % cs.fspn),
        ("SPN_INST", "%d" % cs.ispn),
        ("SPN_EFF", hs_fixed(_eff(cs.ispn, cs.tspn), 8)),
        ("CPU_INST", "%d" % cs.icpu),
        ("CPU_EFF", hs_fixed(_eff(cs.icpu, cs.vcpu), 8)),
        ("MNODE_MEM_AVAIL", "%d" % cs.mmem),
        ("MNODE_DSK_AVAIL", "%d" % cs.mdsk),
    ]
    return [("%s_%s" % (prefix, key), value) for key, value in rows]


def cluster_keys(cs, node_count):
    return [("CLUSTER_MEM", hs_fixed(cs.tmem, 0)), ("CLUSTER_DSK", hs_fixed(cs.tdsk, 0)),
            ("CLUSTER_CPU", hs_fixed(cs.tcpu, 0)), ("CLUSTER_VCPU", "%d" % cs.vcpu),
            ("CLUSTER_SPN", hs_fixed(cs.tspn, 0)), ("CLUSTER_NODES", "%d" % node_count)]


def delta_keys(ini, fin):
    """computeAllocationDelta as KM_USED_*, KM_POOL_*, KM_UNAV_*."""
    used = (ini.icpu, ini.ncpu, ini.imem, ini.idsk, ini.ispn)
    pool = (fin.icpu - ini.icpu, fin.ncpu - ini.ncpu, fin.imem - ini.imem,
            fin.idsk - ini.idsk, fin.ispn - ini.ispn)
    unav = (fin.vcpu - fin.icpu, fin.tcpu - fin.ncpu, int(fin.tmem) - fin.imem,
            int(fin.tdsk) - fin.idsk, int(fin.tspn) - fin.ispn)
    out = []
    for name, info in (("USED", used), ("POOL", pool), ("UNAV", unav)):
        out += [("KM_%s_CPU" % name, "%d" % info[0]), ("KM_%s_NPU" % name, hs_show_double(info[1])),
                ("KM_%s_MEM" % name, "%d" % info[2]), ("KM_%s_DSK" % name, "%d" % info[3]),
                ("KM_%s_SPN" % name, "%d" % info[4])]
    return out
