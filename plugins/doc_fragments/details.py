# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """How much a planning or reporting module returns."""

    # Use as: extends_documentation_fragment: [ganeti.htools.details]
    DOCUMENTATION = r'''
options:
  details:
    description:
      - How much the result holds.
      - V(summary) returns what a person reads and what executing needs - the summary,
        the scores, the moves in plain words and the plan document - a few kilobytes
        whatever the size of the cluster (every byte of a result is stored by AWX and
        handled value by value by Ansible).
      - V(full) adds the per-node and per-instance tables, the moves' opcodes and
        commands and everything else marked C(returned - with details=full) below. A
        plan computed with V(full) carries them too, so that they come back with it when
        it is given back (C(plan), on the planning modules).
      - The HTML report (C(report_file), on the planning modules) always shows
        everything, whatever this option says.
    type: str
    choices: [summary, full]
    default: summary
    version_added: 0.2.0
'''
