# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pick the right loader for a data file: text, IAllocator JSON or saved RAPI."""

from __future__ import annotations

import os

from .text import load_text
from .parsing import read_text
from ..model.node import STATIC_KVM_MEMORY


def load_data_file(path, static_kvm_memory=STATIC_KVM_MEMORY, node_order="name"):
    """Return (ClusterData, format name).

    `static_kvm_memory` (hbal --static-kvm-node-memory) replaces the node memory of
    KVM nodes (None: hbal's default); only RAPI and IAllocator data name a
    hypervisor, text has none.  `node_order`: see rapi_json.load_rapi (saved
    RAPI responses only: an IAllocator request is in Ganeti's order already,
    htools text in its own)."""
    if static_kvm_memory is None:
        static_kvm_memory = STATIC_KVM_MEMORY
    # the JSON loaders are imported for their formats only (start-up time)
    if os.path.isdir(path):
        from .rapi_json import load_rapi_dir  # pylint: disable=import-outside-toplevel
        return load_rapi_dir(path, static_kvm_memory, node_order), "rapi"
    text = read_text(path, "data file")
    if text.lstrip().startswith("{"):
        from .ialloc import load_ialloc_text  # pylint: disable=import-outside-toplevel
        data, request = load_ialloc_text(text, source=path, static_kvm_memory=static_kvm_memory)
        data.request = request
        return data, "iallocator"
    return load_text(text, source=path), "text"
