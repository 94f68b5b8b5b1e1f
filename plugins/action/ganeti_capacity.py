# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity: run in Ansible's own process on a local connection (plugin_utils/in_process.py)."""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.plugin_utils.in_process import InProcessAction


class ActionModule(InProcessAction):
    """ganeti_capacity's action: plugin_utils/in_process.py."""
