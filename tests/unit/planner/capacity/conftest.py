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
def prepared_cluster(tmp_path):
    """prepared_cluster(seed): the model of capacity_gen's cluster `seed`."""
    def load(seed):
        path = tmp_path / ("c%d.data" % seed)
        path.write_text(capacity_gen.generate(seed)[0], encoding="utf-8")
        data, _fmt = load_data_file(str(path))
        prepare_model(data, {}, ("offline_nodes", "min_disk", "max_cpu"))
        return data
    return load
