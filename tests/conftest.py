# -*- coding: utf-8 -*-
# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make ``import ansible_collections.ganeti.htools...`` work under plain pytest.

The repository root is the collection root. Python and Ansible find it through
the symlink ``.cache/collections/ansible_collections/ganeti/htools`` -> the
repository root (the same one ``make link`` creates). This file creates the
symlink when it is missing, puts ``.cache/collections`` first on ``sys.path``
and first in ``ANSIBLE_COLLECTIONS_PATH`` (for tests that run ansible).
"""

from __future__ import annotations

import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS_DIR = os.path.join(REPO_ROOT, '.cache', 'collections')
COLLECTION_LINK = os.path.join(COLLECTIONS_DIR, 'ansible_collections', 'ganeti', 'htools')


def _ensure_collection_link():
    if os.path.realpath(COLLECTION_LINK) == os.path.realpath(REPO_ROOT):
        return
    os.makedirs(os.path.dirname(COLLECTION_LINK), exist_ok=True)
    if os.path.islink(COLLECTION_LINK):
        os.unlink(COLLECTION_LINK)  # stale link, e.g. from a moved checkout
    try:
        # relative, like `make link`: .cache/collections/ansible_collections/ganeti/htools -> ../../../..
        os.symlink(os.path.join(os.pardir, os.pardir, os.pardir, os.pardir), COLLECTION_LINK)
    except FileExistsError:  # created concurrently (e.g. pytest-xdist workers)
        pass
    if os.path.realpath(COLLECTION_LINK) != os.path.realpath(REPO_ROOT):
        raise RuntimeError('%s does not point to %s; remove it (make clean)' % (COLLECTION_LINK, REPO_ROOT))


_ensure_collection_link()

if COLLECTIONS_DIR not in sys.path:
    sys.path.insert(0, COLLECTIONS_DIR)

_paths = [p for p in os.environ.get('ANSIBLE_COLLECTIONS_PATH', '').split(os.pathsep) if p and p != COLLECTIONS_DIR]
os.environ['ANSIBLE_COLLECTIONS_PATH'] = os.pathsep.join([COLLECTIONS_DIR] + _paths)
