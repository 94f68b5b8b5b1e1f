# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one flow every module runs: check → load → plan or report → (execute) → result.

A planning module goes: load the cluster → plan (or take the plan given back
and check it against the cluster: unchanged, stale, or replanned) → in check
mode stop there → lock the cluster → re-read and re-check → execute → release
→ report.  Every failure ends in fail_json with a message meant for the user.
"""

from __future__ import annotations

from ansible.module_utils.common.text.converters import to_native

from ..errors import HtoolsError
from ..live.preview import LIVE_ONLY, SavedCluster
from ..plan.envelope import check_plan, make_plan, plan_report, plan_result, plan_state
from ..plan.resume import progress
from ..plan.state import drift, fingerprint, model_state
from ..plan.record import MOVE_DETAILS, brief
from ..report.diff import placement_diff
from ..plan.move_words import describe_moves
from .outputs import SAVE_STATE_SUFFIXES, output_problem, resolve, write_atomically
from .plan_rules import check_plan_cluster, plan_request_problem
from .reading import ReadingModule, module_name

# hbal's text of a move (step line, action codes, commands): in a plan document only
# with `details: full`; the opcodes, which execute, always
MOVE_TEXTS = tuple(k for k in MOVE_DETAILS if k != "opcodes")


class HtoolsModule(ReadingModule):
    """A ReadingModule that also plans, checks given plans and executes them."""

    def live_only_client(self):
        """(client, preview) for a module that acts on a live cluster.

        With data_file such a module only previews, in check mode: the client
        then answers reads from the saved cluster (preview True).  Without
        check mode data_file is refused, naming what to give instead."""
        if not self.params.get("data_file"):
            return self.client(), False
        if not self.ansible.check_mode:
            self.fail(LIVE_ONLY % module_name(self.ansible._name))
        data, _snapshot, _client = self._read()
        return SavedCluster(data), True

    # -- plans

    def run_plan(self, planner):
        """Plan (or take the plan given back), then execute it unless in check mode."""
        params = self.params
        self._check_outputs()
        given = self._check_plan_request(planner)
        if planner.executes and params["data_file"] and not self.ansible.check_mode:
            self.fail("Executing the %s plan needs a live cluster, reached over LUXI on the "
                      "master (luxi_socket) or over RAPI (rapi_url); with data_file the plan can only be computed in check mode (--check or "
                      "check_mode: true)" % planner.kind)
        data, snapshot, client = self._read(planner.node_order)
        state = snapshot.state() if snapshot is not None else model_state(data)
        cluster = snapshot.info.get("name") if snapshot is not None else None
        self._progress = None
        self._details = {}
        try:
            if given is not None:
                result = self._given_plan(planner, given, data, state, cluster, client)
            else:
                result = self._fresh_plan(planner, data, state, cluster,
                                          {k: params[k] for k in planner.options},
                                          {k: params.get(k) for k in planner.writes})
        except HtoolsError as err:
            self.fail(err)
        except OSError as err:
            self.fail("cannot write the state files: %s" % to_native(err))
        plan = result["plan"]
        if params.get("report_file"):
            # before anything runs: the report is of the plan, whatever execution does;
            # drawn from everything the planner reported, before the result is trimmed
            self._write_report(params["report_file"], dict(result, **self._details), planner)
            result["report_file"] = params["report_file"]
        result = self._brief(result, planner.details)
        if not planner.executes:
            result["changed"] = False       # a plan for others to execute; nothing ran
            self.ansible.exit_json(**result)
        drains = _pending_drains(plan, state)
        if self.ansible.check_mode or not (plan["moves"] or drains):
            self.ansible.exit_json(**result)
        refusal = planner.refuse(plan_report(plan), params)
        if refusal:
            self.fail(refusal, **result)
        self._execute(client, plan, state, result, drains)

    def _fresh_plan(self, planner, data, state, cluster, options, outputs=None, **extra):
        # the files a fresh plan writes (save_state) are no option the plan records
        report = self._warn_data(dict(planner.compute(data, dict(options, **(outputs or {})))))
        describe_moves(report["moves"])
        # the plan document keeps the detail keys only when they are asked for: a
        # 200-node group's tables would make it megabytes (the HTML report gets them)
        self._details = {k: report[k] for k in planner.details if k in report}
        kept = report if self._full() else dict(
            brief(report, planner.details + ("moves",)),
            moves=[{k: v for k, v in m.items() if k not in MOVE_TEXTS} for m in report["moves"]])
        plan = make_plan(planner.kind, kept, state, options, cluster,
                         signing_key=self.params.get("plan_signing_key"))
        return self._result(plan, **extra)

    def _check_outputs(self):
        """Resolve report_file and save_state once, and refuse any that would
        overwrite an input of this run or each other, before anything is read."""
        outputs = []
        for option in ("save_state", "report_file"):
            if self.params.get(option):
                self.params[option] = resolve(self.params[option])
        if self.params.get("save_state"):
            outputs += [("save_state", self.params["save_state"] + suffix)
                        for suffix in SAVE_STATE_SUFFIXES]
        if self.params.get("report_file"):
            outputs.append(("report_file", self.params["report_file"]))
        for pos, (option, path) in enumerate(outputs):
            problem = output_problem(option, path, self.params, outputs[:pos])
            if problem:
                self.fail(problem + "; nothing was computed or executed")

    def _check_plan_request(self, planner):
        """The plan given back, checked (None: compute one); fails, before anything
        is read, on every way an unreviewed plan could run instead."""
        problem = plan_request_problem(planner, self.params, self.given,
                                       self.ansible.check_mode)
        if problem:
            self.fail(problem)
        if not self.params.get("plan"):
            return None
        try:
            return check_plan(self.params["plan"], planner.kind, planner.module,
                              signing_key=self.params.get("plan_signing_key"))
        except HtoolsError as err:
            self.fail(err)

    def _given_plan(self, planner, given, data, state, cluster, client):
        check_plan_cluster(given, cluster)
        if fingerprint(state) == given["fingerprint"]:
            return self._result(given, replanned=False)
        done, unexplained = progress(given, state)
        if not unexplained:
            # An earlier run of this plan stopped part-way: continue it.
            self._refuse_running_jobs(client, given)
            self._progress = done
            return self._result(given, replanned=False, resumed=_resume_summary(given, done))
        changes = drift(plan_state(given), state)
        if not self.params["replan_on_drift"]:
            self.fail("the plan is stale: the cluster changed since it was computed; nothing "
                      "was executed", drift=changes, replanned=False, plan=given)
        return self._fresh_plan(planner, data, state, cluster, given["options"],
                                replanned=True, drift=changes)

    def _write_report(self, path, result, planner):
        """The plan's HTML page at `path` (resolved by _check_outputs), replaced
        atomically (a local artefact: written in check mode too, and `changed`
        stays as it is)."""
        # imported when asked for: most runs write no page (start-up time)
        from ..report.html import render_plan_html  # pylint: disable=import-outside-toplevel
        try:
            write_atomically(path, render_plan_html(result, planner).encode("utf-8"))
        except OSError as err:
            self.fail("cannot write report_file %s: %s; nothing was executed"
                      % (path, to_native(err.strerror or err)), **result)
        result["report_file"] = path

    def _refuse_running_jobs(self, client, plan):
        # A job the interrupted run submitted may still be queued or running:
        # going on now could submit its opcode a second time.
        running = client.unfinished_jobs("ganeti.htools:%s:" % plan["plan_id"]) if client else []
        if running:
            self.fail("jobs of an earlier run of this plan are still queued or running (%s); "
                      "nothing was executed; run again once they have finished"
                      % ", ".join(str(j) for j in running), plan=plan)

    def _result(self, plan, **extra):
        result = plan_result(plan)
        result.update(extra)
        if self.ansible._diff:
            result["diff"] = placement_diff(result)
        return result

    def _execute(self, client, plan, state, result, drains=()):
        """Lock, re-check the cluster is still in `state`, drain the nodes the plan
        drains, run the plan, unlock; exits."""
        # the executor is loaded only by runs that execute (start-up time)
        from ..live.executor import (  # pylint: disable=import-outside-toplevel
            ExecutionError, execute_plan)
        from ..live.lock import ClusterLock  # pylint: disable=import-outside-toplevel
        params = self.params
        reason = "ganeti.htools:%s" % plan["plan_id"]
        client.audit = self.audit.for_plan(plan.get("fingerprint"))
        if params.get("lock_owner"):      # a step of a longer run that holds the lock
            lock = _BorrowedLock(client, params["lock_owner"])
        else:
            lock = ClusterLock(client, ttl=params["lock_ttl"], reason=reason,
                               job_timeout=params["job_timeout"])
        try:
            lock.acquire(force=params["force_unlock"])
        except HtoolsError as err:
            self.fail(err, **result)
        failure, report = None, None
        try:
            # the live read only where a plan executes (data-file runs start faster)
            from ..live.snapshot import Snapshot  # pylint: disable=import-outside-toplevel
            now = Snapshot.read(client).state()
            if fingerprint(now) != fingerprint(state):
                failure = dict(msg="the cluster changed while the run was starting; nothing "
                                   "was executed", drift=drift(state, now))
            else:
                self._drain(client, drains, reason, result)
                report = execute_plan(client, plan, reason, max_parallel=params["max_parallel"],
                                      max_duration=params["max_duration"],
                                      job_timeout=params["move_timeout"],
                                      progress=self._progress)
        except ExecutionError as err:
            report = err.report
            failure = dict(msg=to_native(err))
        except HtoolsError as err:
            failure = dict(msg=to_native(err))
        finally:
            self._release(lock)
        if report is not None:
            result["changed"] = bool(report["succeeded"] or report["unknown"]
                                     or result.get("drained"))
            result["execution"] = report
        if failure:
            result.update(failure)
            self.ansible.fail_json(**result)
        self.ansible.exit_json(**result)

    def _drain(self, client, nodes, reason, result):
        """Drain `nodes`, one job each, before any move: nothing lands on them meanwhile."""
        from ..live.jobs import run_job  # pylint: disable=import-outside-toplevel
        result["drained"] = []
        for node in nodes:
            try:
                # a drained node is no master candidate: let Ganeti promote
                # another one rather than refuse when candidates run short
                run_job(client, lambda node=node: client.modify_node(
                    node, drained=True, auto_promote=True, reason="%s:drain" % reason),
                    self.params["job_timeout"])
            except HtoolsError as err:
                raise HtoolsError("draining %s failed, no instance was moved: %s"
                                  % (node, to_native(err))) from None
            result["drained"].append(node)
            result["changed"] = True

    def _release(self, lock):
        tag = lock.tag      # release() forgets it before trying
        try:
            lock.release()
        except HtoolsError as err:
            self.ansible.warn(
                "could not release the cluster lock %s: %s; it expires by itself after "
                "lock_ttl, or remove that cluster tag once this run is known to be over"
                % (tag, to_native(err)))


class _BorrowedLock:
    """The cluster lock of a longer run (lock_owner): only checked to be held by
    that owner, and left to it."""

    tag = None

    def __init__(self, client, owner):
        self.client, self.owner = client, owner

    def acquire(self, force=False):  # pylint: disable=unused-argument
        from ..live.lock import require_lock  # pylint: disable=import-outside-toplevel
        require_lock(self.client, self.owner)

    def release(self):
        pass


def _pending_drains(plan, state):
    """The nodes the plan drains that are not drained yet (in plan order)."""
    fields = state.get("fields", {}).get("nodes", [])
    if "drained" not in fields:
        return []
    pos = fields.index("drained")
    nodes = state.get("nodes", {})
    return [name for name in plan_report(plan).get("drain_nodes") or ()
            if name in nodes and not nodes[name][pos]]


def _resume_summary(plan, done):
    """Which moves an interrupted run finished, and which it left half-way."""
    lengths = {m["index"]: len(m["opcodes"]) for m in plan["moves"]}
    return {
        "moves_done": sorted(i for i, k in done.items() if k >= lengths[i]),
        "moves_partly_done": [{"index": i, "opcodes_done": k} for i, k in sorted(done.items())
                              if 0 < k < lengths[i]],
    }
