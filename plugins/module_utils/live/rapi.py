# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A small Ganeti RAPI client (version 2) on top of requests.

* Reads are idempotent and retried with jittered exponential backoff.
* Job submissions are never retried: if the answer is lost, the job is
  looked up by its unique reason text instead of being sent again.
* Every failure is a typed `RapiError` with the server's message.
"""

from __future__ import annotations

import json
import random
import ssl
import time
from urllib.parse import urlsplit, urlunsplit

from .. import deps
from ..errors import HtoolsError
from .audit import carries_tag, reason_text
from .parallel import run_parallel
from .run_marks import onto_nodes

FINAL_JOB_STATUSES = ("success", "error", "canceled")
RETRY_STATUSES = (502, 503, 504)


class RapiError(HtoolsError):
    """A call to the cluster failed; `status` is the HTTP status when there was one.

    The base of the LUXI client's errors too: the executor, the lock and the
    modules handle a failed call the same way whichever way it went."""

    def __init__(self, message, status=None, explain=None):
        self.status = status
        self.explain = explain
        super().__init__(message)


class RapiUnauthorized(RapiError):
    """401: missing or wrong credentials."""


class RapiForbidden(RapiError):
    """403: the user lacks the write permission."""


class RapiNotFound(RapiError):
    """404: no such resource (node, instance, job)."""


class RapiServerError(RapiError):
    """5xx: the daemon or the master failed."""


class RapiTimeout(RapiError):
    """No answer within the timeout."""


class RapiUnreachable(RapiError):
    """No connection could be made (refused, DNS, TLS)."""


class RapiCertificateError(RapiUnreachable):
    """The server's TLS certificate was refused; retrying cannot help."""


class RapiSubmissionUnknown(RapiError):
    """A job submission's answer was lost and the job could not be found.

    `may_exist` is true when the job queue could not be searched either: the
    job may well have been queued and be running."""

    def __init__(self, message, may_exist=False):
        self.may_exist = may_exist
        super().__init__(message)


class JobFailed(RapiError):
    """A job ended in error or was cancelled."""

    def __init__(self, job_id, job):
        self.job_id = job_id
        self.job = job
        self.job_status = job.get("status")
        self.op_result = job.get("opresult")
        self.op_log = job.get("oplog")
        self.never_started = job_never_started(job)
        super().__init__("job %s ended with status %s: %s"
                         % (job_id, self.job_status, job_error_text(job)))


def reason_trail(job):
    """The reasons of every opcode of a job (RAPI bulk job), in order."""
    return [entry[1] for op in job.get("ops") or [] for entry in (op or {}).get("reason") or []
            if isinstance(entry, list) and len(entry) > 1]


def job_never_started(job):
    """Whether a failed job never ran: the master's luxid could not start it (as
    just after a master failover) and failed every opcode with a plain message.
    Submitting it again is safe: none of its opcodes did anything."""
    results = job.get("opresult") or []
    return (job.get("status") == "error" and not job.get("start_ts") and bool(results)
            and all(isinstance(r, str) for r in results))


def job_error_text(job):
    """The error messages of a failed job's opcodes, as one line."""
    texts = []
    for result in job.get("opresult") or []:
        if isinstance(result, str) and result:      # a job that could not start
            texts.append(result)
        elif isinstance(result, list) and len(result) == 2 and isinstance(result[0], str):
            detail = result[1]
            if isinstance(detail, list) and detail:
                detail = detail[0]
            texts.append("%s: %s" % (result[0], detail))
    return "; ".join(texts) or "no error message"


_STATUS_ERRORS = {401: RapiUnauthorized, 403: RapiForbidden, 404: RapiNotFound}


RAPI_PORT = 5080


def rapi_base_url(url):
    """`url` with https:// when it names no scheme, and RAPI's port when it names
    none either: `host`, `host:5080` and `https://host:5080/` are the same cluster."""
    if "?" in url or "#" in url:
        # it would be sent with every request path; never echoed: it may hold a password
        raise HtoolsError("rapi_url must not have a query string or fragment")
    if "://" not in url:
        url = "https://" + url
        try:
            port = urlsplit(url).port
        except ValueError as err:
            raise HtoolsError("rapi_url %r: %s" % (url[len("https://"):], err)) from None
        if port is None:
            parts = urlsplit(url)
            url = urlunsplit(parts._replace(netloc="%s:%d" % (parts.netloc, RAPI_PORT)))
    return url.rstrip("/")


class RapiClient:
    """RAPI v2 client bound to one cluster."""

    kind = "rapi"
    # RAPI has a resource per opcode and none for a job of several: each
    # opcode of a move is its own job
    ops_per_job = 1

    def __init__(self, url, user=None, password=None, validate_certs=True, ca_path=None,
                 timeout=60.0, retries=4, backoff=0.5, session=None, sleep=time.sleep,
                 clock=time.monotonic):
        if session is None and deps.requests is None:
            raise HtoolsError("the requests Python package is required to talk to RAPI")
        self.url = rapi_base_url(url)
        # the bound of one call, its retries included: what the operator waits at most
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        self.clock = clock
        self.session = session or deps.requests.Session()
        if user is not None:
            self.session.auth = (user, password or "")
        # TLS verification is on unless explicitly disabled; a CA file narrows it.
        # Passed with every request: a session-level setting would lose against
        # REQUESTS_CA_BUNDLE and friends.
        self.verify = (ca_path or True) if validate_certs else False
        self.session.headers.update({"Content-Type": "application/json",
                                     "Accept": "application/json"})
        # the module, version, plan and user reason every job names (live.audit)
        self.audit = None

    @property
    def source(self):
        """Where the cluster was read from, for the model and messages."""
        return self.url

    # -- transport ---------------------------------------------------------
    def _request(self, method, path, query=None, body=None, timeout=None):
        data = None if body is None else json.dumps(body)
        timeout = self.timeout if timeout is None else timeout
        try:
            response = self.session.request(method, self.url + path, params=query, data=data,
                                            timeout=timeout, verify=self.verify)
        except deps.requests.exceptions.Timeout as err:
            raise RapiTimeout("%s %s: no answer within %ss (%s)"
                              % (method, path, _seconds(timeout), err.__class__.__name__))
        except deps.requests.exceptions.SSLError as err:
            if _certificate_refused(err):
                raise RapiCertificateError(
                    "%s %s: TLS verification failed (%s); give the cluster's CA with ca_path, "
                    "or set validate_certs=false knowingly" % (method, path, _short(err)))
            # e.g. the connection was cut during the handshake: a transport failure
            raise RapiUnreachable("%s %s: TLS connection to %s failed (%s)"
                                  % (method, path, self.url, _short(err)))
        except deps.requests.exceptions.ConnectionError as err:
            raise RapiUnreachable("%s %s: cannot connect to %s (%s)"
                                  % (method, path, self.url, _short(err)))
        except deps.requests.exceptions.RequestException as err:
            raise RapiError("%s %s: %s" % (method, path, _short(err)))
        if response.status_code == 200:
            try:
                return response.json()
            except ValueError:
                raise RapiError("%s %s: the answer is not JSON" % (method, path), status=200)
        raise _http_error(method, path, response)

    def get(self, path, query=None, body=None):
        """An idempotent read, retried on connection problems and 502/503/504 with
        jittered backoff, at most `retries` times and only while `timeout`, which
        bounds the whole call, leaves time for another attempt."""
        start = self.clock()
        attempts = 0
        while True:
            left = self.timeout - (self.clock() - start)
            attempts += 1
            try:
                return self._request("GET", path, query, body, timeout=max(left, 0.001))
            except (RapiUnreachable, RapiTimeout, RapiServerError) as err:
                retryable = not isinstance(err, RapiServerError) or err.status in RETRY_STATUSES
                pause = self.backoff * (2 ** (attempts - 1)) * (0.5 + random.random())
                left = self.timeout - (self.clock() - start)
                if not retryable or attempts > self.retries or pause >= left \
                        or isinstance(err, RapiCertificateError):
                    raise _gave_up(err, attempts, self.clock() - start, self.timeout)
                self.sleep(pause)

    def submit(self, method, path, body=None, query=None, reason=None):
        """Submit a job once; returns its id.  `reason` must be unique per submission:
        it is how a job whose answer got lost is found again.  The audit's
        module, version, plan and user reason follow it in the job's reason;
        its priority goes into the opcode (RAPI takes it from a dict body only)."""
        query = dict(query or {})
        if reason:
            query["reason"] = reason_text(self.audit, reason)
        if self.audit is not None and self.audit.priority is not None \
                and isinstance(body, dict):
            body = dict(body, priority=self.audit.priority)
        try:
            job_id = self._request(method, path, query, body)
        except (RapiUnreachable, RapiTimeout) as err:
            if not reason:
                raise
            try:
                found = self._find_job_by_reason(reason)
            except RapiError as lookup_err:
                raise RapiSubmissionUnknown(
                    "%s %s: the answer was lost (%s) and the job queue could not be searched "
                    "for reason %r (%s); the job may have been queued; nothing more is submitted"
                    % (method, path, err, reason, lookup_err), may_exist=True)
            if found is None:
                raise RapiSubmissionUnknown(
                    "%s %s: the answer was lost (%s) and no job with reason %r was found; "
                    "nothing more is submitted" % (method, path, err, reason))
            return found
        return _job_id(job_id, method, path)

    def jobs(self):
        return self.get("/2/jobs", {"bulk": 1})

    def _find_job_by_reason(self, reason):
        for job in self.jobs() or []:
            if any(carries_tag(text, reason) for text in reason_trail(job)):
                return job.get("id")
        return None

    def unfinished_jobs(self, reason_prefix):
        """Ids of queued or running jobs whose reason trail starts with `reason_prefix`."""
        found = []
        for job in self.jobs() or []:
            if job.get("status") in FINAL_JOB_STATUSES:
                continue
            if any(isinstance(r, str) and r.startswith(reason_prefix) for r in reason_trail(job)):
                found.append(job.get("id"))
        return found

    # -- reads ---------------------------------------------------------------
    def version(self):
        return self.get("/version")

    def info(self):
        return self.get("/2/info")

    def nodes(self, cluster_tags=None):
        """Every node, a run's marks (kept as cluster tags) among its tags;
        `cluster_tags` when the caller has just read them."""
        return onto_nodes(self.get("/2/nodes", {"bulk": 1}),
                          self.cluster_tags() if cluster_tags is None else cluster_tags)

    def instances(self):
        return self.get("/2/instances", {"bulk": 1})

    def node(self, name):
        return onto_nodes([self.get("/2/nodes/%s" % name)], self.cluster_tags())[0]

    def groups(self):
        return self.get("/2/groups", {"bulk": 1})

    def cluster_tags(self):
        return self.get("/2/tags")

    def job(self, job_id):
        job = self.get("/2/jobs/%s" % job_id)
        # Ganeti 3.0 answers an unknown job id with 200 and every field null
        if not isinstance(job, dict) or job.get("status") is None:
            raise RapiNotFound("GET /2/jobs/%s: no such job" % job_id, status=404)
        return job

    # -- jobs --------------------------------------------------------------
    def _move_instance(self, action, name, target_node, reason, depends, extra):
        body = dict(extra)
        if target_node:
            body["target_node"] = target_node
        if depends:
            body["depends"] = depends
        return self.submit("PUT", "/2/instances/%s/%s" % (name, action), body, reason=reason)

    def migrate_instance(self, name, target_node=None, reason=None, depends=None, **extra):
        return self._move_instance("migrate", name, target_node, reason, depends, extra)

    def failover_instance(self, name, target_node=None, reason=None, depends=None, **extra):
        return self._move_instance("failover", name, target_node, reason, depends, extra)

    def replace_disks(self, name, remote_node, reason=None, depends=None, **extra):
        body = dict(extra, mode="replace_new_secondary", remote_node=remote_node)
        body.setdefault("disks", [])
        if depends:
            body["depends"] = depends
        return self.submit("POST", "/2/instances/%s/replace-disks" % name, body, reason=reason)

    def query_instance_data(self, names, reason=None):
        """Ganeti's live instance data, disk status included (OpInstanceQueryData):
        [(instances, job id)] - RAPI takes one instance per job."""
        def submit(index, name):
            return [name], self.submit("GET", "/2/instances/%s/info" % name, query={"static": 0},
                                       reason=reason and "%s:%d" % (reason, index))
        # side by side: each submission takes about a second on a busy master
        return run_parallel([(lambda i=i, n=n: submit(i, n)) for i, n in enumerate(names)])

    def activate_disks(self, name, reason=None):
        return self.submit("PUT", "/2/instances/%s/activate-disks" % name, reason=reason)

    def set_node_role(self, node, role, force=False, reason=None):
        return self.submit("PUT", "/2/nodes/%s/role" % node, role,
                           query={"force": int(bool(force))}, reason=reason)

    def modify_node(self, node, reason=None, **fields):
        """OpNodeSetParams fields (drained, offline, master_candidate, auto_promote...)."""
        return self.submit("POST", "/2/nodes/%s/modify" % node, fields, reason=reason)

    def add_node_tags(self, node, tags, reason=None):
        return self.submit("PUT", "/2/nodes/%s/tags" % node, query={"tag": list(tags)},
                           reason=reason)

    def delete_node_tags(self, node, tags, reason=None):
        return self.submit("DELETE", "/2/nodes/%s/tags" % node, query={"tag": list(tags)},
                           reason=reason)

    def add_cluster_tags(self, tags, reason=None):
        return self.submit("PUT", "/2/tags", query={"tag": list(tags)}, reason=reason)

    def delete_cluster_tags(self, tags, reason=None):
        return self.submit("DELETE", "/2/tags", query={"tag": list(tags)}, reason=reason)

    def wait_job(self, job_id, timeout=3600.0, poll=1.0, clock=time.monotonic):
        """Wait for a job to end; returns the job, raises JobFailed or RapiTimeout.

        Uses /2/jobs/ID/wait (server-side long poll, needs write access) and
        falls back to polling /2/jobs/ID.
        """
        deadline = clock() + timeout
        info = None
        long_poll = True
        while True:
            if clock() >= deadline:
                raise RapiTimeout("job %s did not finish within %ss" % (job_id, timeout))
            if long_poll:
                try:
                    change = self.get("/2/jobs/%s/wait" % job_id,
                                      body={"fields": ["status"], "previous_job_info": info,
                                            "previous_log_serial": None})
                except RapiForbidden:
                    long_poll = False
                    continue
                if isinstance(change, dict) and change.get("job_info"):
                    info = change["job_info"]
                    if info[0] in FINAL_JOB_STATUSES:
                        break
                continue
            if self.job(job_id).get("status") in FINAL_JOB_STATUSES:
                break
            self.sleep(poll)
        job = self.job(job_id)
        if job.get("status") != "success":
            raise JobFailed(job_id, job)
        return job


def _seconds(value):
    return ("%.1f" % value).rstrip("0").rstrip(".")


def _gave_up(err, attempts, waited, timeout):
    """`err` saying how many attempts were made, and how long was waited in all."""
    return err.__class__("%s; gave up after %d attempt%s in %ss (timeout %ss bounds each call, "
                         "its retries included)"
                         % (err, attempts, "" if attempts == 1 else "s", _seconds(waited),
                            _seconds(timeout)), status=err.status, explain=err.explain)


def _job_id(value, method, path):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise RapiError("%s %s: expected a job id, got %r" % (method, path, value))
    return int(value)


def _certificate_refused(err):
    """Whether an SSL error means the certificate was refused (as opposed to a
    connection that broke during the handshake, which is worth retrying)."""
    seen, todo = set(), [err]
    while todo:
        exc = todo.pop()
        if not isinstance(exc, BaseException) or id(exc) in seen:
            continue
        seen.add(id(exc))
        if isinstance(exc, ssl.SSLCertVerificationError):
            return True
        todo.extend((exc.__cause__, exc.__context__, getattr(exc, "reason", None)) + exc.args)
    return "certificate verify failed" in str(err).lower()


def _short(err):
    text = str(err)
    return text if len(text) < 300 else text[:297] + "..."


def _http_error(method, path, response):
    message, explain = response.reason, None
    try:
        body = response.json()
        if isinstance(body, dict):
            message = body.get("message") or message
            explain = body.get("explain")
    except ValueError:
        pass
    status = response.status_code
    cls = _STATUS_ERRORS.get(status, RapiServerError if status >= 500 else RapiError)
    hint = ""
    if status == 401:
        hint = " (check rapi_user and rapi_password)"
    elif status == 403:
        hint = " (the RAPI user needs the 'write' option)"
    return cls("%s %s: HTTP %d %s%s" % (method, path, status, message, hint),
               status=status, explain=explain)
