# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hroller's own options, declared once: the module argument spec is built from here."""

from __future__ import annotations

from ...options import Option
from ...run_tags import RUN_ID

# The hroller flags by their module names (--node-tags, --skip-non-redundant, ...).
ROLLER_OPTIONS = (
    Option("node_tags", "list", (), elements="str"),
    Option("skip_non_redundant", "bool", False),
    Option("ignore_non_redundant", "bool", False),
    Option("offline_maintenance", "bool", False),
    Option("full_evacuation", "bool", False),
    Option("one_step_only", "bool", False),
    Option("force", "bool", False),
    # Not hroller's: narrow the selection for a run that goes wave by wave
    # (the rolling_reboot role leaves out the nodes it has done).
    Option("nodes", "list", (), elements="str"),
    Option("exclude_node_tags", "list", (), elements="str"),
    RUN_ID,
    # Not hroller's: judge one given wave (the role's pre-flight) instead of planning.
    Option("wave_targets", "dict"),
)
