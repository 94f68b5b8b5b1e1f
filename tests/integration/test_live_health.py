# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_health against the real cluster."""

from __future__ import annotations

MODULE = 'ganeti_cluster_health'


def test_a_quiet_cluster_is_healthy_and_problems_are_named(fresh, tmp_path):
    lab = fresh
    status, result, output = lab.run_module(tmp_path, MODULE)
    assert status == 'SUCCESS', output
    assert result['healthy'] is True and result['summary'] == 'healthy (6 checks)', result

    lab.set_role('node3', 'drained')
    with lab.hold_node('node2') as release:
        status, result, output = lab.run_module(tmp_path, MODULE)
        assert status == 'FAILED', output
        assert result['checks']['nodes_undrained']['problems'] == ['node3 is drained']
        (job,) = result['checks']['no_jobs']['problems']
        assert job.startswith('job ') and ' is running (' in job, job
        assert 'not healthy' in result['msg'] and 'node3 is drained' in result['msg']
        # node3 under maintenance, the running job is ours
        status, result, output = lab.run_module(tmp_path, MODULE, {
            'ignore_nodes': ['node3'], 'checks': ['nodes_undrained', 'nodes_answer', 'n1'],
            'fail_on_problems': False})
        assert status == 'SUCCESS' and result['healthy'] is True, output
        release()
