# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The text loader's quick path for instance lines reads exactly what the checked reader reads.

Every instance line of generated clusters, and of variants that sit on the
edge between the two paths (16-digit sizes, leading zeros, negative or `-`
spindles, forthcoming flags, Unicode digits...), is loaded with the quick
path and with the checked reader alone: the instances must be equal slot by
slot, or both loads must fail with the same message.
"""

from __future__ import annotations

import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.backend import text
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.model.instance import Instance

SEEDS = range(1, 61)
# (field position, replacement): each one either stays on the quick path or must leave it.
EDGE_FIELDS = [
    (1, "0042"), (1, "9" * 15), (1, "9" * 16), (1, "1" + "0" * 16), (1, "-5"), (1, " 5"),
    (1, "\u0665"), (2, "0"), (3, "+2"), (4, "running"), (4, "ERROR_up"), (4, "bogus"),
    (5, "N"), (5, "y"), (7, ""), (8, "plain"), (8, "diskless"), (8, "drbd"), (8, "nope"),
    (9, ""), (9, "a,,b"), (10, "-1"), (10, "3"), (10, "x"), (11, "-"), (11, "2"),
    (11, "-2"), (11, ""), (12, "Y"), (12, "N"), (12, "yes"),
]


def _load(data_text, quick):
    saved = text._quick_instance
    if not quick:
        text._quick_instance = lambda *args: None
    try:
        return text.load_text(data_text, source="case.data"), None
    except HtoolsError as err:
        return None, str(err)
    finally:
        text._quick_instance = saved


def _same(data_text):
    quick, quick_error = _load(data_text, True)
    checked, checked_error = _load(data_text, False)
    assert quick_error == checked_error
    if quick is None:
        return
    assert len(quick.instances) == len(checked.instances)
    for a, b in zip(quick.instances, checked.instances):
        for slot in Instance.__slots__:
            assert getattr(a, slot) == getattr(b, slot), (a.name, slot)
            assert type(getattr(a, slot)) is type(getattr(b, slot)), (a.name, slot)


def _instance_section(data_text):
    sections = data_text.split("\n\n")
    return sections, 2


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_clusters_load_the_same(seed, cluster_gen, monkeypatch):
    taken = []
    quick = text._quick_instance

    def counting(*args):
        inst = quick(*args)
        taken.append(inst is not None)
        return inst

    monkeypatch.setattr(text, "_quick_instance", counting)
    _same(cluster_gen.generate(seed).data)
    # the generated lines are ordinary: the quick path read them (else this proves nothing)
    assert sum(taken) >= len(taken) / 2


@pytest.mark.parametrize("pos, value", EDGE_FIELDS)
def test_edge_fields_load_the_same(pos, value, cluster_gen):
    for seed in (3, 7, 11):
        sections, at = _instance_section(cluster_gen.generate(seed).data)
        lines = sections[at].split("\n")
        if not lines or not lines[0]:
            continue
        fields = lines[0].split("|")
        fields += ["1", "-", "N"][max(0, len(fields) - 10):] if pos >= len(fields) else []
        fields[pos] = value
        lines[0] = "|".join(fields)
        sections[at] = "\n".join(lines)
        _same("\n\n".join(sections))
