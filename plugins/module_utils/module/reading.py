# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The read-only modules' flow: check → load → report → result.

Kept apart from the planning flow (runner.py) so that a read-only module
ships and imports neither the plan record nor the executor: Ansible sends a
module every file its imports reach, and reads them all on each run.
"""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
# the arguments as passed, to tell an option given as null from one not given
from ansible.module_utils.basic import _load_params
from ansible.module_utils.common.text.converters import to_native

from .. import deps
from ..errors import HtoolsError, explained
from ..options import validate
from ..live.audit import JobAudit
from ..live.source import (client_from_params, live_kind, plain_http_problem, read_cluster,
                           unreadable, url_credentials)
from ..plan.record import brief
from .argspecs import CHECKED_OPTIONS

_PATH_OPTIONS = ("data_file", "util_file", "mond_data")
# Where the cluster is read from: one of them at most.
SOURCE_OPTIONS = ("data_file", "simulate", "luxi_socket", "rapi_url")


class ReadingModule:
    """An AnsibleModule with the collection's checks and the cluster read: all a
    read-only module needs (module/runner.py's HtoolsModule adds the plans)."""

    def __init__(self, argument_spec, needs=(), checked=(), module_class=None, **module_options):
        """`checked`: the module's own range-checked options (its planner's table).
        `module_class`: AnsibleModule, or a stand-in with its interface and the
        options as passed (`given`): the in-process run of plugin_utils/in_process.py."""
        self.ansible = (module_class or AnsibleModule)(argument_spec=argument_spec,
                                                       supports_check_mode=True, **module_options)
        self.params = self.ansible.params
        # the options the task (or module_defaults) passed, even as null
        self.given = frozenset(self.ansible.given if module_class else _load_params())
        self._refuse_url_credentials()
        self._refuse_two_sources()
        # requests only for RAPI: a play on the master over LUXI needs numpy alone
        over_rapi = live_kind(self.params) in ("rapi", None)
        self._require(tuple(needs) + (("requests",) if over_rapi else ()))
        try:
            validate([o for o in CHECKED_OPTIONS + tuple(checked) if o.name in argument_spec],
                     self.params)
            # what every job this run submits says about itself (live.audit)
            self.audit = JobAudit(module_name(self.ansible._name), self.params.get("reason"),
                                  self.params.get("priority"))
        except HtoolsError as err:
            self.fail(err)
        inputs = _PATH_OPTIONS + (("ca_path",) if live_kind(self.params) == "rapi" else ())
        for option in inputs:
            problem = unreadable(self.params, option)
            if problem:
                self.fail(problem)

    # -- plumbing

    def fail(self, msg, **result):
        self.ansible.fail_json(msg=to_native(explained(msg)), **result)

    def _refuse_url_credentials(self):
        # A password in the URL would be echoed by every message and result:
        # mask it in all output first, then refuse it.
        secrets = url_credentials(self.params.get("rapi_url"))
        if secrets:
            self.ansible.no_log_values.update(secrets)
            self.fail("rapi_url must not contain credentials, nor any query string or fragment; "
                      "give them as rapi_user and rapi_password (or GANETI_RAPI_USER and "
                      "GANETI_RAPI_PASSWORD)")
        if live_kind(self.params) == "rapi":
            problem = plain_http_problem(self.params)
            if problem:
                self.fail(problem)

    def _refuse_two_sources(self):
        # Only one source is read: the others would be ignored without a word.
        # GANETI_RAPI_URL from the environment is a default, not a choice: data_file
        # and luxi_socket take precedence over it.
        sources = [o for o in SOURCE_OPTIONS if o in self.given and self.params.get(o)]
        if len(sources) > 1:
            known = [o for o in SOURCE_OPTIONS if o in self.params]
            self.fail("%s are given: give only one of %s and %s, the one the cluster is read "
                      "from" % (" and ".join(sources), ", ".join(known[:-1]), known[-1]))

    def _require(self, names):
        for name, trace in deps.missing(names):
            self.fail(missing_required_lib(name, reason=deps.PURPOSE[name]), exception=trace)

    def _warn_data(self, result):
        # Ansible reserves a result's "warnings" key for its own warnings.
        data_warnings = list(result.pop("warnings", None) or [])
        for warning in data_warnings:
            self.ansible.warn(to_native(warning))
        result["data_warnings"] = data_warnings
        return result

    def client(self):
        """A LUXI or RAPI client for the module's connection options (live-only modules)."""
        try:
            return client_from_params(self.params, self.audit)
        except HtoolsError as err:
            self.fail(err)

    def _read(self, node_order="name"):
        try:
            return read_cluster(self.params, self.audit, node_order)
        except HtoolsError as err:
            self.fail(err)

    # -- read-only reports

    def run_report(self, report, details=()):
        """Exit with report(data, params): a dict describing the cluster; its
        `details` keys only with `details: full`."""
        data, _snapshot, _client = self._read()
        try:
            result = dict(report(data, self.params))
        except HtoolsError as err:
            self.fail(err)
        self.ansible.exit_json(changed=False, **self._warn_data(self._brief(result, details)))

    def _full(self):
        return self.params.get("details") == "full"

    def _brief(self, result, details):
        """The result as returned: everything with `details: full`, else without the
        detail keys and with the moves in brief (the plan keeps them whole)."""
        return result if self._full() else brief(result, details)


def module_name(name):
    """The module's short name (ganeti_balance) from Ansible's, which may be the
    fully qualified one."""
    name = name or "module"
    if name.endswith(".py"):
        name = name[:-3]
    return name.rpartition(".")[2]
