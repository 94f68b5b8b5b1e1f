# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hspace's main: which groups may take instances, then the tiered and the
standard allocation, and the HTS_* keys of `hspace --machine-readable`."""

from __future__ import annotations

from ...errors import HtoolsError
from ...model.vocabulary import fdiv
from ...numfmt import hs_fixed
from .alloc import alloc_nodes
from .cstats import CStats, cluster_keys, delta_keys, phase_keys
from .globaln1 import Checker
from .hspace import Allocator, RSpec, State, inst_from_spec, spec_of, with_depth

DEFAULTS = dict(disk_template=None, spindle_use=None, standard_spec=None, tiered_spec=None,
                independent_groups=False, accept_existing_errors=False,
                no_capacity_checks=False, max_length=-1)


def _spec_keys(prefix, spec, template):
    return [("%s_MEM" % prefix, "%d" % spec.mem), ("%s_DSK" % prefix, "%d" % spec.dsk),
            ("%s_CPU" % prefix, "%d" % spec.cpu), ("%s_SPN" % prefix, "%d" % spec.spn),
            ("%s_RQN" % prefix, "%d" % (2 if template == "drbd" else 1)),
            ("%s_DISK_TEMPLATE" % prefix, template)]


def spec_map(ixes):
    """tieredSpecMap: runs of equal specs, in allocation order, with counts."""
    out = []
    for inst in ixes:
        spec = spec_of(inst)
        if out and out[-1][0] == spec:
            out[-1][1] += 1
        else:
            out.append([spec, 1])
    return [tuple(item) for item in out]


def sort_reasons(counts):
    return sorted(counts, key=lambda item: -item[1])


class Outcome:
    """What one allocation run gave: reasons (sorted), final state, spec map."""

    def __init__(self, reasons, state):
        self.reasons = sort_reasons(reasons)
        self.state = state
        self.spec_map = spec_map(state.ixes)


def hspace(data, options):
    """Everything hspace computes: the key/value pairs and the runs behind them."""
    opts = dict(DEFAULTS, **{k: v for k, v in options.items() if v is not None})
    nodes, insts = list(data.nodes), list(data.instances)
    policy = data.ipolicy
    if not policy.disk_templates:
        raise HtoolsError("null list of disk templates received from cluster")
    template = opts["disk_template"] or policy.disk_templates[0]
    required = 2 if template == "drbd" else 1
    su = opts["spindle_use"] if opts["spindle_use"] is not None else policy.std.spindle_use
    keys = []
    ini = CStats(nodes)
    keys += cluster_keys(ini, len(nodes))
    keys += phase_keys("INI", ini)

    bad_nodes = [n for n in nodes if not n.offline and n.fail_n1]
    accept = opts["accept_existing_errors"]
    checker = Checker(data, skip_offline=accept)
    allocable = {g.idx: g.alloc_policy != "unallocable" for g in data.groups}
    if not accept:
        for node in bad_nodes:
            allocable[node.group] = False
    bad_groups = []
    if opts["independent_groups"]:
        bad_groups = [g.idx for g in data.groups
                      if not checker.group_redundant(nodes, insts, g.idx)]
        for gdx in bad_groups:
            allocable[gdx] = False
        checker = Checker(data, skip_offline=accept, ignore_groups=bad_groups)
    remaining = any(allocable.values())
    stop = not (accept or (opts["independent_groups"] and remaining) or not bad_nodes)
    limit = None if opts["max_length"] == -1 else opts["max_length"]
    targets = alloc_nodes(nodes, lambda g: allocable[g], required)
    alloc = Allocator(data, targets, required, not opts["no_capacity_checks"], checker)
    start = State([], nodes, insts, [])

    if opts["tiered_spec"] is not None:
        tspecs = [RSpec(*opts["tiered_spec"])]
    else:
        tspecs = [RSpec.from_ispec(hi) for _lo, hi in policy.minmax]
    if not tspecs:
        raise HtoolsError("Empty list of specs received from the cluster")
    if stop:
        tiered = Outcome([("FailN1", 1)], start)
    else:
        state = start
        for spec in tspecs:
            count = len(state.ixes)
            if limit is not None and limit <= count:
                continue
            sub = None if limit is None else limit - count
            state = with_depth(alloc.tiered, state, sub,
                               inst_from_spec(spec, template, su))
        tiered = Outcome(state.errs, state)
    keys += _spec_keys("TSPEC_INI", tspecs[0], template)
    trl = CStats(tiered.state.nodes)
    keys += phase_keys("TRL", trl)
    keys.append(("TSPEC", " ".join("%d,%d,%d,%d=%d" % (s.mem, s.dsk, s.cpu, s.spn, c)
                                   for s, c in tiered.spec_map)))
    keys += delta_keys(ini, trl)

    if opts["standard_spec"] is not None:
        sspec = RSpec(*opts["standard_spec"])
    else:
        sspec = RSpec.from_ispec(policy.std)
    if stop:
        standard = Outcome([("FailN1", 1)], start)
    else:
        res = alloc.iterate(start, limit, inst_from_spec(sspec, template, su))
        standard = Outcome(res.errs, res)
    keys += _spec_keys("SPEC", sspec, template)
    fin = CStats(standard.state.nodes)
    allocs = len(standard.state.ixes)
    if len(insts) + allocs != fin.ninst:
        raise HtoolsError("internal inconsistency, allocated (%d) != counted (%d)"
                          % (len(insts) + allocs, fin.ninst))
    if not standard.reasons:
        raise HtoolsError("Internal error, no failure reasons?!")
    keys += phase_keys("FIN", fin)
    total = len(insts) + allocs
    keys += [("ALLOC_USAGE", hs_fixed(fdiv(float(len(insts)), float(total)), 8)),
             ("ALLOC_INSTANCES", "%d" % allocs),
             ("ALLOC_FAIL_REASON", standard.reasons[0][0].upper())]
    keys += [("ALLOC_%s_CNT" % mode.upper(), "%d" % count) for mode, count in standard.reasons]
    keys.append(("OK", "1"))
    return dict(keys=[("HTS_" + k, v) for k, v in keys], tiered=tiered, standard=standard,
                template=template, tiered_spec=tspecs[0], standard_spec=sspec,
                bad_nodes=[n.name for n in bad_nodes],
                bad_groups=[data.groups[g].name for g in bad_groups], stopped=stop)
