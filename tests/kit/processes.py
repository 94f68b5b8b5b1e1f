# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The processes below a process (Linux /proc): ansible's forked workers and
module processes start sessions of their own, so a process group misses them."""

from __future__ import annotations

import os


def descendants(pid):
    """Every process below `pid`, parents before their children."""
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry, encoding='utf-8') as handle:
                    parent = int(handle.read().rsplit(')', 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found
