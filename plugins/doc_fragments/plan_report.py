# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The HTML report a planning module writes of its plan."""

    # Use as: extends_documentation_fragment: [ganeti.htools.plan_report]
    DOCUMENTATION = r'''
options:
  report_file:
    description:
      - Write the plan as a self-contained HTML page to this path - per-node usage
        (memory, disk, CPU, instance counts) before and after as bar charts, the score
        per step as a line, the moves in a table grouped by jobset or wave, warnings
        and N+1 failures highlighted. Inline CSS and SVG, no script, no external URL.
      - The path is on the host where the module runs. The file is replaced
        atomically; its directory must exist. A new file gets mode C(0666) less the
        umask, an existing one keeps its mode.
      - A relative path is taken from the module's working directory (with the local
        connection, the directory C(ansible) was started in) and returned resolved.
      - Refused before anything is read when it is a directory or a special file, or
        names an input of the run (C(data_file), C(util_file), C(mond_data), C(ca_path),
        C(luxi_socket), also through a symbolic or hard link) or C(save_state)'s files.
      - It is a local report, not a cluster change - written in check mode too, and
        before anything is executed (a plan given back as O(plan) gets its report
        too). It does not make the task C(changed).
      - The same page is available in templates through the
        P(ganeti.htools.plan_report_html#filter) filter.
    type: path
    version_added: 0.2.0
'''
