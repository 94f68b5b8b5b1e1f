# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/in_process.py's rules: which tasks may run in Ansible's own
process, and InProcessModule's answers where AnsibleModule's would differ
(tests/module/test_in_process.py runs both paths through the ansible CLI)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ansible_collections.ganeti.htools.plugins.action.ganeti_capacity import ActionModule
from ansible_collections.ganeti.htools.plugins.plugin_utils.in_process import (
    Fallback, Finished, InProcessModule)


def _action(transport='local', become=False, async_val=0, environment=None):
    action = object.__new__(ActionModule)
    action._connection = SimpleNamespace(transport=transport)
    action._play_context = SimpleNamespace(become=become)
    action._task = SimpleNamespace(async_val=async_val, environment=environment or [{}],
                                   args={}, action='ganeti.htools.ganeti_capacity')
    return action


def test_a_local_task_runs_in_process():
    assert _action().in_process_allowed({})
    assert _action(environment=[{}, {}]).in_process_allowed({'ganeti_htools_in_process': 'yes'})


@pytest.mark.parametrize('action,task_vars', [
    (_action(transport='ssh'), {}),
    (_action(become=True), {}),
    (_action(async_val=60), {}),
    (_action(environment=[{}, {'GANETI_RAPI_URL': 'https://127.0.0.1:5080'}]), {}),
    (_action(), {'ganeti_htools_in_process': False}),
    (_action(), {'ganeti_htools_in_process': 'no'}),
], ids=['ssh', 'become', 'async', 'environment', 'switched-off', 'switched-off-string'])
def test_other_tasks_run_the_module(action, task_vars):
    assert not action.in_process_allowed(task_vars)


SPEC = dict(size=dict(type='int', default=1), secret=dict(type='str', no_log=True),
            old=dict(type='str', removed_in_version='9.0.0',
                     removed_from_collection='ganeti.htools'))


def _module(args):
    return InProcessModule(args, 'ganeti.htools.ganeti_capacity', False, argument_spec=SPEC,
                           supports_check_mode=True)


def test_arguments_are_validated_as_the_module_does():
    module = _module({'size': '3'})
    assert module.params == {'size': 3, 'secret': None, 'old': None}
    assert module.given == frozenset(['size'])


@pytest.mark.parametrize('args', [{'size': 'many'}, {'unknown': 1}, {'old': 'x'}],
                         ids=['bad-type', 'unknown-option', 'deprecated-option'])
def test_what_ansible_module_reports_goes_to_the_module(args):
    with pytest.raises(Fallback):
        _module(args)


def test_results_keep_the_invocation_and_mask_secrets():
    module = _module({'secret': 'hunter2-long'})
    module.warn('careful')
    with pytest.raises(Finished) as done:
        module.exit_json(changed=False, said='the key is hunter2-long')
    result = done.value.result
    assert result['warnings'] == ['careful']
    assert 'hunter2-long' not in repr(result)
    assert result['invocation']['module_args']['size'] == 1


def test_a_failure_is_returned_and_a_traceback_left_to_the_module():
    with pytest.raises(Finished) as done:
        _module({}).fail_json(msg='no such file')
    assert done.value.result['failed'] is True and done.value.result['msg'] == 'no such file'
    with pytest.raises(Fallback):
        _module({}).fail_json(msg='numpy is missing', exception='Traceback ...')
