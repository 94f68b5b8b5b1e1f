# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The third-party libraries the collection needs, imported in one place.

A missing library must not break the import of a module (Ansible could not
report anything then): it is recorded here, and `missing()` tells the module
layer what to ask the user to install.  Every other import error is a real
bug and is left to surface.
"""

from __future__ import annotations

import ctypes
import importlib
import sys
import traceback

_ERRORS = {}
_LOADED = {}
_OPTIONAL = ("numpy", "requests")


def _optional(name):
    if name not in _LOADED:
        try:
            _LOADED[name] = importlib.import_module(name)
        except ImportError:
            _ERRORS[name] = traceback.format_exc()
            _LOADED[name] = None
        if name == "numpy" and _LOADED[name] is not None:
            keep_freed_memory()
    return _LOADED[name]


# glibc's mallopt parameters
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEEP_BELOW = 1 << 30


def keep_freed_memory():
    """Let glibc keep the memory numpy frees, for the life of this process.

    The searches allocate and free large temporary arrays many times a step;
    by default glibc maps each one anew and unmaps it on free, and every page
    is faulted in again: a sixth of a balance's time went to the kernel.  A
    module's process is short-lived, so holding its peak until it exits costs
    nothing.  Elsewhere than glibc (or without ctypes' libc) nothing changes.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _KEEP_BELOW)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _KEEP_BELOW))


def __getattr__(name):
    # Imported on first use (`deps.numpy`, `from .deps import numpy`): a module
    # that never touches a library does not pay for importing it.
    if name in _OPTIONAL:
        return _optional(name)
    raise AttributeError(name)


# What each library is for, for the error message.
# Said on the host that runs the module: on a master node run over LUXI, that
# host is the master, and the Debian package is the usual way to get it there.
PURPOSE = {
    "numpy": "to plan (bulk candidate scoring); on Debian or Ubuntu install the "
             "python3-numpy package there (apt-get install python3-numpy), elsewhere "
             "pip install numpy",
    "requests": "to talk to a cluster over RAPI; on Debian or Ubuntu install the "
                "python3-requests package there, elsewhere pip install requests",
}


def missing(names):
    """[(library, traceback)] of the libraries in `names` that cannot be imported."""
    return [(name, _ERRORS[name]) for name in names if _optional(name) is None]
