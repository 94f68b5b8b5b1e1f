# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU loads from the monitoring daemons (hbal --mond, --mond-data, --mond-xen).

Each node's MonD serves data collector reports.  hbal reads one collector:
`cpu-avg-load` (the node's CPU load, spread over its primary instances by
their VCPUs) or, with --mond-xen, `xen-cpu-avg-load` (each instance's CPU
usage, summed per node).  The reports come from the nodes themselves (see
live/mond.py) or from a file of saved reports, a JSON list of
`{"node": NAME, "reports": [report, ...]}`.

All or nothing, as in hbal: unless every node of the cluster gave a usable
report, the collector's data is ignored and a warning says why.
"""

from __future__ import annotations

import json

from ..errors import DataError
from ..model.vocabulary import fdiv
from .parsing import read_text

CPU_AVG_LOAD = "cpu-avg-load"
XEN_CPU_AVG_LOAD = "xen-cpu-avg-load"
# Both collectors have no category: MonD serves them under "default".
CATEGORY = "default"
CATEGORIES = ("instance", "storage", "daemon", "hypervisor")


class MondDataMissing(DataError):
    """Not every node gave its report and the run was told to stop then."""


def collector_name(xen=False):
    return XEN_CPU_AVG_LOAD if xen else CPU_AVG_LOAD


# -- reading reports ---------------------------------------------------------

def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def report_problem(report):
    """Why `report` is not a data collector report, or None.

    The keys every report has: name, version, format_version, timestamp,
    kind (0 performance, 1 status), data; category may be null or absent.
    """
    if not isinstance(report, dict):
        return "a report must be a JSON object, got %s" % type(report).__name__
    checks = (("name", isinstance(report.get("name"), str), "a string"),
              ("version", isinstance(report.get("version"), str), "a string"),
              ("format_version", _is_int(report.get("format_version")), "an integer"),
              ("timestamp", _is_int(report.get("timestamp")), "an integer"),
              ("kind", report.get("kind") in (0, 1) and _is_int(report.get("kind")),
               "0 or 1"),
              ("category", report.get("category") in (None,) + CATEGORIES,
               "null or one of %s" % ", ".join(CATEGORIES)))
    for key, good, expected in checks:
        if key not in report and key != "category":
            return "the report has no %r" % key
        if not good:
            return "the report's %r must be %s, got %r" % (key, expected, report.get(key))
    if "data" not in report:
        return "the report has no 'data'"
    return None


def parse_mond_data(text, source="<mond data>"):
    """{node name: [report, ...]} from a --mond-data file (a later entry wins)."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise DataError("invalid JSON: %s" % err, source=source,
                        expected='a list of {"node": NAME, "reports": [...]}') from None
    if not isinstance(doc, list):
        raise DataError("MonD data must be a JSON list", source=source,
                        expected='a list of {"node": NAME, "reports": [...]}',
                        got=type(doc).__name__)
    by_node = {}
    for pos, entry in enumerate(doc):
        where = "entry #%d" % pos
        if not isinstance(entry, dict) or not isinstance(entry.get("node"), str) \
                or not isinstance(entry.get("reports"), list):
            raise DataError("%s must be an object with a string 'node' and a list 'reports'"
                            % where, source=source, got=json.dumps(entry)[:200])
        where = "entry #%d (node %s)" % (pos, entry["node"])
        for rpos, report in enumerate(entry["reports"]):
            problem = report_problem(report)
            if problem:
                raise DataError("%s, report #%d: %s" % (where, rpos, problem), source=source)
        by_node[entry["node"]] = entry["reports"]
    return by_node


def load_mond_file(path):
    return parse_mond_data(read_text(path, "MonD data file"), source=path)


def cpu_total(report):
    """The node's CPU load from a cpu-avg-load report, or None if unusable."""
    data = report.get("data")
    if not isinstance(data, dict):
        return None
    cpus = data.get("cpus")
    if not (_is_int(data.get("cpu_number")) and isinstance(cpus, list)
            and all(_is_number(c) for c in cpus) and _is_number(data.get("cpu_total"))):
        return None
    return float(data["cpu_total"])


def instance_cpu(report):
    """{instance name: CPU usage} from a xen-cpu-avg-load report, or None."""
    data = report.get("data")
    if not isinstance(data, dict) or not all(_is_number(v) for v in data.values()):
        return None
    return {name: float(value) for name, value in data.items()}


def node_value(reports, xen=False):
    """The collector's value in one node's reports (the first report of that
    name counts), or None when there is none or it is unusable."""
    name = collector_name(xen)
    for report in reports or ():
        if isinstance(report, dict) and report.get("name") == name:
            return (instance_cpu if xen else cpu_total)(report)
    return None


# -- using them ----------------------------------------------------------------

def _set_cpu(inst, cpu):
    inst.util = (cpu,) + tuple(inst.util[1:])


def _use_node_totals(data, totals):
    """cpu-avg-load: each node's load is its report's total; each instance on it
    as primary gets the share of its VCPUs among the node's used CPUs."""
    shares = {}
    for node, total in zip(data.nodes, totals):
        node.util_load[0] = total
        shares[node.idx] = fdiv(total, node.u_cpu)
    for inst in data.instances:
        # forthcoming primaries too; inf * 0 is NaN here as in hbal's Double
        _set_cpu(inst, shares[inst.pnode] * inst.vcpus)
    return None


def _use_instance_cpu(data, usages):
    """xen-cpu-avg-load: each instance's usage as reported; a node's load is
    the sum over its primaries.  Any instance without a value voids it all."""
    usage = {}
    for per_node in usages:       # on a name reported twice the first node wins
        for name, value in per_node.items():
            usage.setdefault(name, value)
    missing = sorted({inst.name for inst in data.instances} - set(usage))
    if missing:
        return "no CPU information for instance(s) %s" % ", ".join(missing)
    for inst in data.instances:
        _set_cpu(inst, usage[inst.name])
    for node in data.nodes:
        node.util_load[0] = sum(data.instances[i].util[0] for i in node.p_list)
    return None


def apply_mond(data, reports, xen=False, exit_on_missing=False, source="MonD"):
    """Set the CPU loads from `reports` ({node name: [report, ...]}).

    Returns the warnings (empty when the data was used).  hbal uses the
    collector only when every node of the cluster has a usable report; else
    the loads stay as they were, or with `exit_on_missing` that is an error.
    """
    name = collector_name(xen)
    values = [node_value(reports.get(node.name), xen) for node in data.nodes]
    silent = [node.name for node, value in zip(data.nodes, values) if value is None]
    if silent:
        problem = "no usable %s report from node(s) %s" % (name, ", ".join(silent))
    else:
        problem = (_use_instance_cpu if xen else _use_node_totals)(data, values)
    if problem is None:
        return []
    if exit_on_missing:
        raise MondDataMissing("not all MonD data is available (exit_on_missing_mond_data): %s"
                              % problem, source=source)
    return ["%s data ignored, as hbal does unless every node reports: %s" % (name, problem)]
