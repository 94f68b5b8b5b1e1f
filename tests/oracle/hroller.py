# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Oracle: run the real ``hroller`` (Ganeti 3.0.2) on a cluster file.

Public API::

    HROLLER_PATH                    the binary, beside hbal (kit/paths.py)
    hroller_available() -> bool
    hroller_argv(path, opts) -> list[str]
                                    ``hroller --print-moves -t PATH`` and the flags of
                                    `opts` (our option names, gen/roller_gen.py)
    run_hroller(path, opts, timeout=120) -> (returncode, stdout lines, stderr)
    hroller_error(stderr) -> str or None
                                    the message after ``Error: ``, None without one
"""

from __future__ import annotations

import os
import subprocess

from gen import roller_gen
from kit.paths import HROLLER

HROLLER_PATH = HROLLER


def hroller_available():
    return os.access(HROLLER_PATH, os.X_OK)


def hroller_argv(path, opts):
    return [HROLLER_PATH, "--print-moves", "-t", path] + roller_gen.hroller_argv(opts)


def run_hroller(path, opts, timeout=120):
    """hroller's (exit code, stdout lines, stderr) on the cluster file `path`."""
    proc = subprocess.run(hroller_argv(path, opts), capture_output=True, text=True,
                          timeout=timeout, check=False)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def hroller_error(stderr):
    """The message hroller failed with (after ``Error: ``, to the end), or None."""
    marker = stderr.find("Error: ")
    if marker < 0:
        return None
    return stderr[marker + len("Error: "):].rstrip("\n")
