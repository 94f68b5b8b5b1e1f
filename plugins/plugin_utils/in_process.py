# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read-only modules run inside Ansible's own process when the task runs on
the controller anyway.

A module normally reaches its host as a payload Ansible builds on every run
(every file its imports reach, parsed), and runs in a new Python that
imports it all again from source.  For a task on a local connection
(``hosts: localhost``, an AWX job reading RAPI, ``ansible localhost -m``)
that host is this machine, so the same code can run here, in the worker
process Ansible forked for the task: about a second sooner.

The module's own main() runs, with InProcessModule in place of AnsibleModule:
the same argument spec, checks, report and result.  Whatever this path
cannot reproduce exactly goes to the module as usual: another connection,
become, async, a task environment, arguments the spec warns about or
refuses, a failure carrying a traceback (a missing library among them), or
the variable ``ganeti_htools_in_process: false``.
"""

from __future__ import annotations

import importlib

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action.normal import ActionModule as NormalAction

SWITCH = "ganeti_htools_in_process"


class Fallback(Exception):
    """This run cannot be reproduced here: run the module."""


class Finished(Exception):
    """The module exited; `result` is what it returned."""

    def __init__(self, result):
        Exception.__init__(self, "module finished")
        self.result = result


class InProcessModule:
    """What ReadingModule uses of AnsibleModule, for task arguments already
    given: validated by the same spec, the exits raised as Finished."""

    def __init__(self, args, name, check_mode, argument_spec, supports_check_mode=True,
                 **constraints):
        del supports_check_mode         # read-only modules: every one supports it
        checked = ArgumentSpecValidator(argument_spec, **constraints).validate(dict(args))
        # where AnsibleModule would warn, deprecate or fail, it answers
        if checked.error_messages or getattr(checked, "_warnings", None) or \
                getattr(checked, "_deprecations", None):
            raise Fallback()
        self.params = checked.validated_parameters
        self.no_log_values = set(getattr(checked, "_no_log_values", ()))
        self.given = frozenset(args)
        self.check_mode = check_mode
        self._name = name
        self._warnings = []

    def warn(self, warning):
        self._warnings.append(warning)

    def exit_json(self, **result):
        raise Finished(self._returned(result))

    def fail_json(self, msg, **result):
        if "exception" in result:       # the traceback is the module's to format
            raise Fallback()
        result.update(failed=True, msg=str(msg))
        raise Finished(self._returned(result))

    def _returned(self, result):
        # as AnsibleModule returns: with its arguments and warnings, secrets masked
        result.setdefault("invocation", {"module_args": self.params})
        if self._warnings:
            result["warnings"] = list(self._warnings)
        return remove_values(result, self.no_log_values)


class InProcessAction(NormalAction):
    """The action of a read-only module: its main() here when the task's host
    is this machine, else the module as usual.  The module is the one of the
    action's own name (plugins/modules/<name>.py, with main(module_class))."""

    def run(self, tmp=None, task_vars=None):
        if self.in_process_allowed(task_vars or {}):
            result = self._run_here()
            if result is not None:
                return result
        return super().run(tmp, task_vars)

    def in_process_allowed(self, task_vars):
        """Whether the task may run here: on a local connection, as this user,
        synchronously, in this environment, and not switched off."""
        task = self._task
        if getattr(self._connection, "transport", None) != "local":
            return False
        # the environment keyword: a list of mappings, one per level that sets it
        if self._play_context.become or task.async_val or any(task.environment or ()):
            return False
        return boolean(task_vars.get(SWITCH, True), strict=False)

    def _run_here(self):
        """The module's result, or None where only the module can answer."""
        task = self._task

        def module_class(**spec):
            # check mode as ActionBase passes it to a module (_ansible_check_mode)
            return InProcessModule(task.args, task.action, bool(task.check_mode), **spec)

        try:
            # imported here: a task on another host does not need it loaded
            module = importlib.import_module(
                type(self).__module__.replace(".plugins.action.", ".plugins.modules."))
            module.main(module_class=module_class)
        except Finished as done:
            return done.result
        except Exception:  # pylint: disable=broad-except
            # Fallback, a library missing here, or a fault: the module answers as it would
            return None
        return None
