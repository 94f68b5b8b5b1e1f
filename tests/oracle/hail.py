# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Oracle: run the real ``hail`` (Ganeti 3.0.2's IAllocator) on a request file.

Public API::

    HAIL_PATH                       the binary (env HAIL overrides, kit/paths.py)
    hail_available() -> bool
    run_hail(path, argv=(), timeout=600) -> (returncode, stdout, stderr)
    hail_error(stderr) -> str       the message hail printed after ``Error:``

hail prints its answer document as one line of JSON on stdout (exit 0), or
refuses the input with ``Error: MESSAGE`` on stderr (exit 1).
"""

from __future__ import annotations

import os
import subprocess

from kit.paths import HAIL

HAIL_PATH = HAIL


def hail_available():
    return os.access(HAIL_PATH, os.X_OK)


def run_hail(path, argv=(), timeout=600):
    """`hail ARGV PATH`: (exit code, stdout, stderr)."""
    proc = subprocess.run([HAIL_PATH] + list(argv) + [path], capture_output=True, text=True,
                          timeout=timeout, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def hail_error(stderr):
    """What hail refused the input with: its last line without ``Error: ``."""
    return stderr.strip().splitlines()[-1].replace("Error: ", "", 1)
