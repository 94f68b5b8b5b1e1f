# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Ganeti LUXI client: the master's query socket, as `hbal -L` and `gnt-*` use it.

It offers what the rest of the collection uses of RapiClient (reads shaped
like RAPI's bulk answers, tag and node jobs, job status, waiting), so the
snapshot, the executor and the lock run unchanged over either.  Differences:

* a request is one JSON object {"method", "args"} ended by ETX (0x03), and
  so is the answer {"success", "result"}; one connection per call;
* the reads ask for the fields RAPI's bulk answers carry, plus what hbal -L
  reads that RAPI has not (`forthcoming`, `be/memory`); `kind` tells the
  model to read them as hbal -L does (see backend.rapi_json.load_rapi);
* a job may hold several opcodes: a move's opcodes go as one job, as
  hbal -X submits them (`ops_per_job`);
* each opcode carries the audit's reason trail entry and priority itself.
"""

from __future__ import annotations

import errno
import grp
import json
import os
import pwd
import socket
import time

from .audit import carries_tag, reason_text
from .endpoints import DEFAULT_SOCKET
from .run_marks import onto_nodes
from .rapi import (FINAL_JOB_STATUSES, JobFailed, RapiError, RapiForbidden, RapiNotFound,
                   RapiSubmissionUnknown, RapiTimeout, RapiUnreachable, reason_trail)

ETX = b"\x03"

# The fields RAPI's bulk answers carry (lib/rapi/rlib2.py, Ganeti 3.0), so the
# dicts built from them read like RAPI's; plus hbal -L's `forthcoming`.
_COMMON = ["ctime", "mtime", "uuid", "serial_no", "tags"]
NODE_FIELDS = ["name", "offline", "master_candidate", "drained", "dtotal", "dfree", "sptotal",
               "spfree", "mtotal", "mnode", "mfree", "pinst_cnt", "sinst_cnt", "ctotal", "cnos",
               "cnodes", "csockets", "pip", "sip", "role", "pinst_list", "sinst_list",
               "master_capable", "vm_capable", "ndparams", "group.uuid"] + _COMMON
INSTANCE_FIELDS = ["name", "admin_state", "os", "pnode", "snodes", "disk_template",
                   "nic.ips", "nic.macs", "nic.modes", "nic.uuids", "nic.names", "nic.links",
                   "nic.networks", "nic.networks.names", "nic.bridges", "network_port",
                   "disk.sizes", "disk.spindles", "disk_usage", "disk.uuids", "disk.names",
                   "beparams", "hvparams", "oper_state", "oper_ram", "oper_vcpus", "status",
                   "custom_hvparams", "custom_beparams", "custom_nicparams"] + _COMMON
# what hbal -L reads that RAPI's answer has not (be/memory lands in beparams, as
# RAPI puts it there)
HBAL_INSTANCE_FIELDS = ["forthcoming", "be/memory"]
GROUP_FIELDS = ["alloc_policy", "name", "node_cnt", "node_list", "ipolicy", "custom_ipolicy",
                "diskparams", "custom_diskparams", "ndparams", "custom_ndparams"] + _COMMON
JOB_FIELDS_BULK = ["id", "ops", "status", "summary", "opstatus", "received_ts", "start_ts",
                   "end_ts"]
JOB_FIELDS = JOB_FIELDS_BULK + ["oplog", "opresult"]

# A query field's status: only "normal" has a value (RAPI gives None otherwise).
_RS_NORMAL = 0


class LuxiError(RapiError):
    """A LUXI call failed (the socket, the protocol, or the master's refusal)."""


class LuxiUnreachable(RapiUnreachable):
    """The socket is missing, refused the connection, or cut it."""


class LuxiPermissionDenied(LuxiUnreachable):
    """The socket exists but this user may not connect to it."""


class LuxiClient:
    """LUXI client bound to one master socket."""

    kind = "luxi"
    ops_per_job = None        # a whole move in one job

    def __init__(self, path=DEFAULT_SOCKET, timeout=60.0, sleep=time.sleep,
                 connect=None):
        self.path = path
        self.timeout = timeout
        self.sleep = sleep
        self._connect = connect or _unix_connect
        self.audit = None

    @property
    def source(self):
        return "luxi:%s" % self.path

    # -- transport ---------------------------------------------------------
    def call(self, method, args):
        """One request, one answer; raises LuxiError with the master's message."""
        try:
            sock = self._connect(self.path, self.timeout)
        except OSError as err:
            raise _connect_error(self.path, err)
        try:
            sock.sendall(json.dumps({"method": method, "args": args}).encode("utf-8") + ETX)
            raw = _read_message(sock)
        except socket.timeout:
            raise RapiTimeout("LUXI %s: no answer from %s within %ss"
                              % (method, self.path, self.timeout))
        except OSError as err:
            raise LuxiUnreachable("LUXI %s: connection to %s lost (%s)"
                                  % (method, self.path, err.strerror or err))
        finally:
            sock.close()
        try:
            answer = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise LuxiError("LUXI %s: the answer from %s is not JSON" % (method, self.path))
        if not isinstance(answer, dict) or "success" not in answer or "result" not in answer:
            raise LuxiError("LUXI %s: malformed answer from %s" % (method, self.path))
        if not answer["success"]:
            raise _refusal(method, answer["result"])
        return answer["result"]

    def query(self, what, fields, qfilter=None):
        """Query rows as dicts {field: value}; a value Ganeti could not give is None."""
        result = self.call("Query", [what, fields, qfilter])
        rows = []
        for row in result.get("data") or []:
            rows.append({field: (cell[1] if isinstance(cell, list) and len(cell) == 2
                                 and cell[0] == _RS_NORMAL else None)
                         for field, cell in zip(fields, row)})
        return rows

    # -- reads ---------------------------------------------------------------
    def info(self):
        return self.call("QueryClusterInfo", [])

    def nodes(self, cluster_tags=None):
        """Every node, a run's marks (kept as cluster tags) among its tags;
        `cluster_tags` when the caller has just read them."""
        return onto_nodes(self.query("node", NODE_FIELDS),
                          self.cluster_tags() if cluster_tags is None else cluster_tags)

    def node(self, name):
        found = self.query("node", NODE_FIELDS, ["=", "name", name])
        if not found:
            raise RapiNotFound("LUXI: no node %s" % name, status=404)
        return onto_nodes(found[:1], self.cluster_tags())[0]

    def instances(self):
        rows = self.query("instance", INSTANCE_FIELDS + HBAL_INSTANCE_FIELDS)
        for row in rows:
            memory = row.pop("be/memory")
            if isinstance(row.get("beparams"), dict) and memory is not None:
                row["beparams"] = dict(row["beparams"], memory=memory)
        return rows

    def groups(self):
        return self.query("group", GROUP_FIELDS)

    def cluster_tags(self):
        return self.call("QueryTags", ["cluster", ""])

    def jobs(self):
        return self.query("job", JOB_FIELDS_BULK)

    def job(self, job_id):
        rows = self.call("QueryJobs", [[int(job_id)], JOB_FIELDS])
        row = rows[0] if isinstance(rows, list) and rows else None
        job = dict(zip(JOB_FIELDS, row)) if isinstance(row, list) else {}
        if job.get("status") is None:       # Ganeti's answer for an unknown id
            raise RapiNotFound("LUXI: no job %s" % job_id, status=404)
        return job

    def unfinished_jobs(self, reason_prefix):
        """Ids of queued or running jobs whose reason trail starts with `reason_prefix`."""
        return [job.get("id") for job in self.jobs() or []
                if job.get("status") not in FINAL_JOB_STATUSES
                and any(isinstance(r, str) and r.startswith(reason_prefix)
                        for r in reason_trail(job))]

    # -- jobs ----------------------------------------------------------------
    def submit_job(self, ops, reason=None):
        """Submit the opcodes (dicts with OP_ID) as one job; returns its id.

        Each opcode gets the audit's reason trail entry and priority.  If the
        answer is lost, the job is looked up by its reason tag, never sent twice."""
        prepared = [self._annotate(op, reason) for op in ops]
        try:
            job_id = self.call("SubmitJob", [prepared])
        except (LuxiUnreachable, RapiTimeout) as err:
            if not reason:
                raise
            return self._find_lost(reason, err)
        if isinstance(job_id, bool) or not isinstance(job_id, (int, str)) \
                or not str(job_id).isdigit():
            raise LuxiError("LUXI SubmitJob: expected a job id, got %r" % (job_id,))
        return int(job_id)

    def _annotate(self, op, reason):
        op = dict(op)
        if reason:
            entry = self.audit.trail_entry(reason) if self.audit is not None \
                else ["ganeti.htools", reason_text(None, reason), int(time.time() * 1e9)]
            op["reason"] = list(op.get("reason") or []) + [entry]
        if self.audit is not None and self.audit.priority is not None:
            op["priority"] = self.audit.priority
        return op

    def _find_lost(self, reason, err):
        try:
            for job in self.jobs() or []:
                if any(carries_tag(text, reason) for text in reason_trail(job)):
                    return int(job["id"])
        except RapiError as lookup_err:
            raise RapiSubmissionUnknown(
                "LUXI SubmitJob: the answer was lost (%s) and the job queue could not be "
                "searched for reason %r (%s); the job may have been queued; nothing more is "
                "submitted" % (err, reason, lookup_err), may_exist=True)
        raise RapiSubmissionUnknown(
            "LUXI SubmitJob: the answer was lost (%s) and no job with reason %r was found; "
            "nothing more is submitted" % (err, reason))

    def _one(self, op, reason, depends=None):
        if depends:
            op["depends"] = depends
        return self.submit_job([op], reason)

    # The same operations as RapiClient's, as the opcodes RAPI builds for them.
    def migrate_instance(self, name, target_node=None, reason=None, depends=None, **extra):
        op = dict(extra, OP_ID="OP_INSTANCE_MIGRATE", instance_name=name)
        if target_node:
            op["target_node"] = target_node
        return self._one(op, reason, depends)

    def failover_instance(self, name, target_node=None, reason=None, depends=None, **extra):
        op = dict(extra, OP_ID="OP_INSTANCE_FAILOVER", instance_name=name)
        if target_node:
            op["target_node"] = target_node
        return self._one(op, reason, depends)

    def replace_disks(self, name, remote_node, reason=None, depends=None, **extra):
        op = dict(extra, OP_ID="OP_INSTANCE_REPLACE_DISKS", instance_name=name,
                  mode="replace_new_secondary", remote_node=remote_node)
        op.setdefault("disks", [])
        return self._one(op, reason, depends)

    def query_instance_data(self, names, reason=None):
        """Ganeti's live instance data, disk status included: [(instances, job id)],
        one job for all."""
        return [(list(names), self.submit_job([{"OP_ID": "OP_INSTANCE_QUERY_DATA",
                                                "instances": list(names), "static": False}],
                                              reason))]

    def activate_disks(self, name, reason=None):
        return self._one({"OP_ID": "OP_INSTANCE_ACTIVATE_DISKS", "instance_name": name}, reason)

    def set_node_role(self, node, role, force=False, reason=None):
        flags = _ROLES.get(role)
        if flags is None:
            raise LuxiError("cannot set node role %r" % (role,))
        return self._one(dict(flags, OP_ID="OP_NODE_SET_PARAMS", node_name=node,
                              force=bool(force), auto_promote=False), reason)

    def modify_node(self, node, reason=None, **fields):
        return self._one(dict(fields, OP_ID="OP_NODE_SET_PARAMS", node_name=node), reason)

    def _tags(self, op_id, kind, name, tags, reason):
        return self._one({"OP_ID": op_id, "kind": kind, "name": name, "tags": list(tags)},
                         reason)

    def add_node_tags(self, node, tags, reason=None):
        return self._tags("OP_TAGS_SET", "node", node, tags, reason)

    def delete_node_tags(self, node, tags, reason=None):
        return self._tags("OP_TAGS_DEL", "node", node, tags, reason)

    def add_cluster_tags(self, tags, reason=None):
        return self._tags("OP_TAGS_SET", "cluster", None, tags, reason)

    def delete_cluster_tags(self, tags, reason=None):
        return self._tags("OP_TAGS_DEL", "cluster", None, tags, reason)

    def wait_job(self, job_id, timeout=3600.0, poll=1.0, clock=time.monotonic):
        """Wait for a job to end; returns the job, raises JobFailed or RapiTimeout."""
        deadline = clock() + timeout
        while True:
            job = self.job(job_id)
            if job.get("status") in FINAL_JOB_STATUSES:
                break
            if clock() >= deadline:
                raise RapiTimeout("job %s did not finish within %ss" % (job_id, timeout))
            self.sleep(poll)
        if job.get("status") != "success":
            raise JobFailed(job_id, job)
        return job


# RAPI's node roles as OpNodeSetParams flags (as lib/rapi/rlib2.py maps them).
_ROLES = {
    "regular": {"master_candidate": False, "offline": False, "drained": False},
    "master-candidate": {"master_candidate": True},
    "drained": {"drained": True},
    "offline": {"offline": True},
}


def _unix_connect(path, timeout):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    return sock


def _read_message(sock):
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            raise OSError(errno.ECONNRESET, "the master closed the connection mid-answer")
        end = chunk.find(ETX)
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks)
        chunks.append(chunk)


def _connect_error(path, err):
    """A connection failure, said so that the user knows what to do."""
    if err.errno in (errno.ENOENT, errno.ENOTDIR):
        return LuxiUnreachable(
            "LUXI socket %s does not exist: run on the Ganeti master node (where "
            "ganeti-luxid runs), or reach the cluster over RAPI with rapi_url" % path)
    if err.errno in (errno.EACCES, errno.EPERM):
        return LuxiPermissionDenied(
            "permission denied on the LUXI socket %s (%s): run as root (become: true) or as "
            "a member of its group" % (path, _owner(path)))
    if err.errno == errno.ECONNREFUSED:
        return LuxiUnreachable(
            "nothing listens on the LUXI socket %s: is ganeti-luxid running on this master "
            "(gnt-cluster verify, or restart the ganeti services)?" % path)
    if err.errno == errno.ENOTSOCK or isinstance(err, socket.timeout):
        return LuxiUnreachable("cannot use %s as the LUXI socket: %s"
                               % (path, err.strerror or err))
    return LuxiUnreachable("cannot connect to the LUXI socket %s: %s"
                           % (path, err.strerror or err))


def _owner(path):
    try:
        info = os.stat(path)
    except OSError:
        return "owner unknown"
    try:
        user = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        user = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    return "owner %s, group %s, mode %o" % (user, group, info.st_mode & 0o777)


def _refusal(method, result):
    """The master's refusal as an error: Ganeti sends [error class, [message, kind]]."""
    message = result
    if isinstance(result, list) and len(result) == 2 and isinstance(result[0], str):
        detail = result[1]
        if isinstance(detail, list) and detail:
            detail = detail[0]
        message = "%s: %s" % (result[0], detail)
        if result[0] in ("OpPrereqError",) and "not found" in str(detail).lower():
            return RapiNotFound("LUXI %s: %s" % (method, message), status=404)
        if result[0] == "PermissionError":
            return RapiForbidden("LUXI %s: %s" % (method, message), status=403)
    return LuxiError("LUXI %s: %s" % (method, message))
