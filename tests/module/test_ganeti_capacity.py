# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_capacity's `simulate` through the ansible CLI: an empty cluster from
group specs (hspace --simulate), refused beside another source, and a bad
spec named."""

from __future__ import annotations

from kit.ansible_cli import run_with
from kit.paths import EXAMPLE

MODULE = 'ganeti.htools.ganeti_capacity'


def test_a_simulated_cluster_is_answered(tmp_path):
    status, result, output = run_with(tmp_path, MODULE, dict(
        simulate=['a,2,512g,32g,8', 'p,3,1t,64g,16,4'], max_length=0))
    assert status == 'SUCCESS', output
    keys = result['machine_readable']
    # the last spec is group 1: 3 x 64 GiB, then 2 x 32 GiB
    assert keys['HTS_CLUSTER_NODES'] == '5'
    assert keys['HTS_CLUSTER_MEM'] == str(3 * 65536 + 2 * 32768)
    assert keys['HTS_CLUSTER_SPN'] == str(3 * 4 + 2 * 1)
    assert result['summary'].startswith('5 nodes, 0 instances')


def test_simulate_and_a_data_file_are_refused_together(tmp_path):
    status, result, output = run_with(tmp_path, MODULE, dict(
        simulate=['p,2,1t,64g,16'], data_file=EXAMPLE))
    assert status == 'FAILED!', output
    assert 'data_file and simulate are given' in result['msg']
    assert 'give only one of data_file, simulate' in result['msg']


def test_a_bad_spec_is_named(tmp_path):
    status, result, output = run_with(tmp_path, MODULE, dict(simulate=['p,2,1q,64g,16']))
    assert status == 'FAILED!', output
    assert "unknown unit 'q'" in result['msg'] and 'p,2,1q,64g,16' in result['msg']
