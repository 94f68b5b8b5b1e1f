# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """A step that changes the cluster under the lock of a longer run."""

    # Use as: extends_documentation_fragment: [ganeti.htools.lock_owner]
    DOCUMENTATION = r'''
options:
  lock_owner:
    description:
      - Run this step under the cluster lock that this owner took with
        M(ganeti.htools.ganeti_lock) for a longer run (a rolling reboot, a maintenance
        play). The step is refused when that lock is not held, or when another run
        holds a lock.
      - Omitted - the step is refused only while some run of this collection holds
        the lock (a balance or evacuation in progress).
    type: str
'''
