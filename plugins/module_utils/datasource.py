# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pick the right loader for a data file: text, IAllocator JSON or saved RAPI."""

from __future__ import annotations

import os

from .errors import DataError
from .loader_ialloc import load_ialloc_text
from .loader_rapi import load_rapi_dir
from .loader_text import load_text


def _read(path):
    try:
        with open(path, "r", encoding="utf-8-sig") as handle:
            return handle.read()
    except UnicodeDecodeError as err:
        raise DataError("not UTF-8 text: %s" % err, source=path)
    except OSError as err:
        raise DataError("cannot read data file: %s" % err.strerror, source=path)


def load_data_file(path):
    """Return (ClusterData, format name)."""
    if os.path.isdir(path):
        return load_rapi_dir(path), "rapi"
    text = _read(path)
    if text.lstrip().startswith("{"):
        data, _request = load_ialloc_text(text, source=path)
        return data, "iallocator"
    return load_text(text, source=path), "text"
