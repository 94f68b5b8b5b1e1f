# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the capacity tests share: capacity_gen's clusters, loaded and prepared
as ganeti_capacity prepares them."""

from __future__ import annotations

import pytest

from gen import capacity_gen

from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare_model


@pytest.fixture
def prepared_text(tmp_path):
    """prepared_text(text): the model of the cluster data `text` (text format)."""
    def load(text):
        path = tmp_path / "c.data"
        path.write_text(text, encoding="utf-8")
        data, _fmt = load_data_file(str(path))
        prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
        return data
    return load


@pytest.fixture
def prepared_cluster(prepared_text):
    """prepared_cluster(seed): the model of capacity_gen's cluster `seed`."""
    def load(seed):
        return prepared_text(capacity_gen.generate(seed)[0])
    return load
