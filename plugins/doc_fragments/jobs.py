# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """What the Ganeti jobs a module submits carry: reason trail and priority."""

    # Use as: extends_documentation_fragment: [ganeti.htools.jobs]
    DOCUMENTATION = r'''
options:
  reason:
    description:
      - Your own reason for the jobs this run submits, for example the URL of the
        AWX job, like C(hbal --reason). It ends the reason text of every job.
    type: str
  priority:
    description:
      - Priority of the jobs this run submits, as C(hbal --priority) takes it.
      - Over RAPI it applies to the jobs whose RAPI resource takes opcode
        parameters (migrations, failovers, disk replacements, node changes); tag
        jobs (the cluster lock) keep Ganeti's default.
      - By default Ganeti's default (C(normal)).
    type: str
    choices: [low, normal, high]
notes:
  - Every job names its origin in its reason trail (C(gnt-job info) shows it),
    as C(hbal -X) does - C(TAG (ganeti.htools.MODULE VERSION, plan FINGERPRINT)),
    then O(reason) if given. TAG is unique per job (C(ganeti.htools:PLAN_ID:mMOVE:oOPCODE)
    for a move) and is how an interrupted run finds its jobs again.
  - Over LUXI this text is a trail entry whose source is C(ganeti.htools.MODULE); over
    RAPI it is the request's reason, which Ganeti records with the source C(gnt:user).
'''
