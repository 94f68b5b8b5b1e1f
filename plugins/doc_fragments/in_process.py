# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """A read-only module that runs in Ansible's own process on a local connection."""

    # Use as: extends_documentation_fragment: [ganeti.htools.in_process]
    DOCUMENTATION = r'''
attributes:
  in_process:
    description: Runs in Ansible's own process on a local connection, through its action
      plugin (see the notes).
    support: full
notes:
  - >-
    On a local connection (C(hosts: localhost), C(connection: local), C(ansible localhost -m))
    the module runs inside Ansible's own process, through its action plugin - the same code,
    checks and result, without building, sending and starting the module, about a second
    sooner. It runs as a module, as usual, with any other connection, with C(become), C(async)
    or a task C(environment), where the arguments draw a warning or an error, where a library
    it needs is missing from Ansible's own Python, and where the variable
    C(ganeti_htools_in_process) is false.
'''
