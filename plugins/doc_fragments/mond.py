# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """CPU loads from the nodes' monitoring daemons, like hbal --mond."""

    # Use as: extends_documentation_fragment: [ganeti.htools.mond]
    DOCUMENTATION = r'''
options:
  mond:
    description:
      - Take the CPU loads from the monitoring daemons (MonD) of the nodes,
        like C(hbal --mond=yes).
      - With the C(cpu-avg-load) collector (the default), a node's CPU load
        becomes the C(cpu_total) of its report, and every instance whose
        primary it is gets that load times its VCPUs divided by the node's used
        CPUs. These CPU loads replace those of O(util_file) and the default
        C(1.0).
      - Every node of the cluster, offline ones included, must give a usable
        report; otherwise, as with C(hbal), the MonD data is ignored, the loads
        stay as they were and the result's C(data_warnings) says which nodes did
        not report and why (see O(exit_on_missing_mond_data)).
      - Without O(mond_data) the module asks every node's MonD itself, at
        C(http://NODE:PORT/1/report/default/COLLECTOR), all nodes at once, so
        that nodes that do not answer cost one O(mond_timeout) in all.
      - Ignored when O(ignore_dynu=true), as in C(hbal).
    type: bool
    default: false
  mond_data:
    description:
      - Saved MonD reports to use instead of asking the nodes, like
        C(hbal --mond-data). Read only with O(mond=true); giving it without is
        an error (C(hbal) ignores the file silently then).
      - 'A JSON list of C({"node": NAME, "reports": [REPORT, ...]}), one entry
        per node (a later entry for the same node wins). A report is what MonD
        serves for one data collector, with the keys C(name), C(version),
        C(format_version), C(timestamp), C(category) (may be null), C(kind)
        and C(data); for C(cpu-avg-load), C(data) is C({"cpu_number": N,
        "cpus": [LOAD, ...], "cpu_total": LOAD}).'
      - A malformed file is an error naming the entry; a node without the
        collector's report, or with unusable C(data), counts as not reporting.
    type: path
  mond_xen:
    description:
      - Use the C(xen-cpu-avg-load) collector instead, like C(hbal --mond-xen).
        Its C(data) maps instance names to their CPU usage; every instance
        gets its value and a node's CPU load is the sum over its primary
        instances.
      - Every instance of the cluster must have a value; otherwise the data is
        ignored as for a node that does not report.
    type: bool
    default: false
  exit_on_missing_mond_data:
    description:
      - Fail instead of ignoring the MonD data when it is incomplete, like
        C(hbal --exit-on-missing-mond-data).
    type: bool
    default: false
  mond_port:
    description:
      - TCP port of the nodes' MonD (plain HTTP). C(hbal) 3.0.2 always uses
        C(1815).
    type: int
    default: 1815
  mond_timeout:
    description:
      - Seconds to wait for the MonD answers. All nodes are asked at once and
        the round ends after this time; a node that has not answered by then
        counts as not reporting.
    type: float
    default: 10.0
'''
