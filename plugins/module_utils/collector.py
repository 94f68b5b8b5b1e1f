# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Python's cyclic garbage collector, paused while a planner runs.

hspace's search makes millions of short-lived objects (node and instance
copies, offers) that reference counting frees as they go; the few cycles
among them (an offer's builder and its planner) live as long as the run.
The collector's passes over them and the long-lived model find nothing to
free, and cost a tenth of the planning time: they wait for the end.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """Run the block with the cyclic collector off (as it was after)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
