# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The integration lab (tests/lab/up.sh) as seen by the tests.

`Lab` reads the facts up.sh wrote to $BASE/lab.env and talks to the cluster
with its own small RAPI client (plain requests, independent of the
collection's RapiClient, so that a bug there cannot hide itself), runs the
real hbal and the collection's modules through the ansible CLI, and puts the
cluster back into its seeded state between tests (`reset`).

The tests' own requests and hbal go through the lab's helper relay; only the
collection uses the main URL.  The RAPI log shows the peer address of every
request, so it tells which calls the collection made (`collection_calls`),
and stopping the main relay does not blind the tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import time

import requests

from kit.ansible_cli import ansible_settings, parse_result, tool as _tool
from kit.paths import HBAL, LAB_DIR

LOCK_PREFIX = 'ganeti.htools:lock:'
FINAL = ('success', 'error', 'canceled')


def lab_settings():
    """Namespace, base directory and port of the lab (the harness' defaults)."""
    return {
        'GNTLAB_NS': os.environ.get('GNTLAB_NS', 'htools-lab'),
        'GNTLAB_BASE': os.environ.get('GNTLAB_BASE', '/tmp/htools-lab'),
        'GNTLAB_RAPI_PORT': os.environ.get('GNTLAB_RAPI_PORT', '5090'),
    }


def read_env_file(path):
    facts = {}
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            key, sep, value = line.strip().partition('=')
            if sep and not key.startswith('#'):
                facts[key] = value
    return facts


class RapiFailure(Exception):
    pass


class Lab:
    """One running lab."""

    def __init__(self, facts):
        self.facts = facts
        self.ns = facts['GNTLAB_NS']
        self.base = facts['GNTLAB_BASE']
        self.url = facts['GNTLAB_RAPI_URL']            # what the collection is given
        self.helper_url = facts['GNTLAB_HELPER_URL']   # the tests' own requests and hbal
        self.helper_source = facts['GNTLAB_HELPER_SOURCE']
        self.cluster_ip = facts['GNTLAB_CLUSTER_IP']
        self.user = facts['GNTLAB_RAPI_USER']
        self.password = facts['GNTLAB_RAPI_PASS']
        self.ro_user = facts['GNTLAB_RAPI_RO_USER']
        self.ro_password = facts['GNTLAB_RAPI_RO_PASS']
        self.ca = facts['GNTLAB_CA']
        self.seed = int(facts['GNTLAB_SEED'])
        self.nodes_count = int(facts['GNTLAB_NODES'])
        self.ganeti = facts.get('GNTLAB_GANETI', '3.0')     # the Ganeti version it runs
        self.session = requests.Session()
        self.session.auth = (self.user, self.password)
        self.session.headers['Content-Type'] = 'application/json'
        self.seeded = ['instance%d' % i for i in range(1, self.seed + 1)]

    # ------------------------------------------------------------------ RAPI
    def call(self, method, path, body=None, query=None, timeout=60):
        response = self.session.request(method, self.helper_url + path, params=query,
                                        data=None if body is None else json.dumps(body),
                                        verify=self.ca, timeout=timeout)
        if response.status_code != 200:
            raise RapiFailure('%s %s: HTTP %s %s'
                              % (method, path, response.status_code, response.text[:300]))
        return response.json()

    def get(self, path, **query):
        return self.call('GET', path, query=query or None)

    def nodes(self):
        return {n['name']: n for n in self.get('/2/nodes', bulk=1)}

    def instances(self):
        return {i['name']: i for i in self.get('/2/instances', bulk=1)}

    def placement(self):
        return {name: inst['pnode'] for name, inst in self.instances().items()}

    def tags(self):
        return self.get('/2/tags')

    def lock_tags(self):
        return [t for t in self.tags() if t.startswith(LOCK_PREFIX)]

    def jobs(self):
        return sorted(self.get('/2/jobs', bulk=1), key=lambda j: j['id'])

    def job(self, job_id):
        return self.get('/2/jobs/%s' % job_id)

    def wait(self, job_id, timeout=180, expect='success'):
        deadline = time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job['status'] in FINAL:
                break
            if time.monotonic() > deadline:
                raise RapiFailure('job %s still %s after %ss' % (job_id, job['status'], timeout))
            time.sleep(0.25)
        if expect and job['status'] != expect:
            raise RapiFailure('job %s ended %s: %s' % (job_id, job['status'], job.get('opresult')))
        return job

    def submit(self, method, path, body=None, **query):
        return self.call(method, path, body=body, query=query or None)

    def run_job(self, method, path, body=None, expect='success', **query):
        return self.wait(self.submit(method, path, body, **query), expect=expect)

    def set_role(self, node, role, force=True):
        return self.run_job('PUT', '/2/nodes/%s/role' % node, role, force=int(force))

    def migrate(self, instance, target):
        return self.run_job('PUT', '/2/instances/%s/migrate' % instance,
                            {'target_node': target, 'mode': 'live'})

    def wait_idle(self, timeout=180):
        """Wait until no job of the queue is still pending or running."""
        deadline = time.monotonic() + timeout
        while True:
            busy = [j['id'] for j in self.jobs() if j['status'] not in FINAL]
            if not busy:
                return
            if time.monotonic() > deadline:
                raise RapiFailure('jobs still running after %ss: %s' % (timeout, busy))
            time.sleep(0.25)

    def jobs_with_reason(self, text, jobs=None):
        """Jobs whose reason trail mentions `text`, in id order."""
        found = []
        for job in self.jobs() if jobs is None else jobs:
            trail = [entry[1] for op in job.get('ops') or [] for entry in op.get('reason') or []
                     if len(entry) > 1]
            if any(text in str(r) for r in trail):
                found.append(job)
        return found

    @staticmethod
    def reasons(job):
        return [entry[1] for op in job.get('ops') or [] for entry in op.get('reason') or []
                if len(entry) > 1 and entry[0] == 'gnt:user']

    # ------------------------------------------------------------------ relay
    def relay(self, action):
        env = dict(os.environ, GNTLAB_BASE=self.base,
                   GNTLAB_RAPI_PORT=self.facts['GNTLAB_RAPI_PORT'])
        return subprocess.run([os.path.join(LAB_DIR, 'relay.sh'), action], env=env,
                              capture_output=True, text=True, timeout=30, check=False)

    def relay_pid(self):
        try:
            with open(os.path.join(self.base, 'relay-host.pid'), encoding='ascii') as handle:
                return int(handle.read().strip())
        except (OSError, ValueError):
            return None

    def collection_calls(self):
        """(method, path, query, status) of every request that came through the
        main relay, from the master's RAPI log (the tests' own requests come
        from the helper relay's address)."""
        log = os.path.join(self.base, 'vc', 'node1', 'var', 'log', 'ganeti', 'rapi-daemon.log')
        pattern = re.compile(r' INFO %s:\d+ (GET|PUT|POST|DELETE) (\S+) HTTP/1\.[01] (\d+)$'
                             % re.escape(self.cluster_ip))
        calls = []
        with open(log, encoding='utf-8', errors='replace') as handle:
            for line in handle:
                match = pattern.search(line.rstrip('\n'))
                if match:
                    path, _sep, query = match.group(2).partition('?')
                    calls.append((match.group(1), path, query, int(match.group(3))))
        return calls

    # ------------------------------------------------------------------ state
    def reset(self):
        """Back to the seeded state: relay up, no job running, every node online,
        no lock tag or run mark kept as a cluster tag, every seeded instance
        running on node1."""
        if self.relay('status').returncode != 0:
            proc = self.relay('start')
            assert proc.returncode == 0, proc.stderr
        self.wait_idle()
        for name, node in sorted(self.nodes().items()):
            if node['offline'] or node['drained']:
                self.set_role(name, 'master-candidate')
        stale = [t for t in self.tags() if t.startswith('ganeti.htools:')]
        if stale:
            self.run_job('DELETE', '/2/tags', tag=stale)
        insts = self.instances()
        assert sorted(insts) == self.seeded, 'unexpected instances: %s' % sorted(insts)
        for name, inst in sorted(insts.items()):
            if inst['admin_state'] != 'up':
                self.run_job('PUT', '/2/instances/%s/startup' % name, {})
        # Ganeti runs these one after the other anyway (node1's lock)
        moving = [self.submit('PUT', '/2/instances/%s/migrate' % name,
                              {'target_node': 'node1', 'mode': 'live'})
                  for name, inst in sorted(insts.items()) if inst['pnode'] != 'node1']
        for job_id in moving:
            self.wait(job_id)
        placement = self.placement()
        assert set(placement.values()) == {'node1'}, placement
        assert not self.lock_tags()

    # ------------------------------------------------------------------ CLI
    def gnt(self, *args):
        """A Ganeti command on the master (inside the lab's namespace)."""
        proc = subprocess.run([os.path.join(self.base, 'gnt')] + list(args), capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout + proc.stderr     # --submit prints the job id on stderr

    @contextlib.contextmanager
    def hold_node(self, node, seconds=90):
        """Hold `node`'s lock with a running job until `release()` is called (or
        the block ends): an interruptible TEST_DELAY.  Jobs that need the node
        wait meanwhile, which makes "while that job runs" deterministic."""
        out = self.gnt('gnt-debug', 'delay', '--submit', '--interruptible', '-n', node,
                       str(seconds))
        match = re.search(r'JobID: (\d+)', out)
        assert match, 'no job id from gnt-debug delay: %r' % out
        job_id = int(match.group(1))
        deadline = time.monotonic() + 60
        path = None
        while path is None:
            job = self.job(job_id)
            assert job['status'] not in FINAL, 'the delay job ended early: %s' % job
            for entry in (job.get('oplog') or [[]])[0]:
                if entry[2] == 'delay-test':
                    path = entry[3][0]
            if path is None:
                assert time.monotonic() < deadline, 'the delay job did not start'
                time.sleep(0.2)

        def release():
            if self.job(job_id)['status'] in FINAL:
                return
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.connect(path)
            except OSError:   # it ended meanwhile
                pass
            self.wait(job_id, timeout=60)

        try:
            yield release
        finally:
            release()

    # ------------------------------------------------------------------ hbal
    def hbal(self, *args):
        """The real hbal, reading the cluster through the helper relay."""
        proc = subprocess.run([HBAL, '-m', self.helper_url] + list(args), capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout + proc.stderr   # the -p table and the warnings go to stderr

    @property
    def luxi_socket(self):
        """The master's LUXI query socket, seen from the host through the lab's files."""
        return os.path.join(self.base, 'vc', 'node1', 'var', 'run', 'ganeti', 'socket',
                            'ganeti-query')

    def hbal_luxi(self, *args):
        """The real hbal, reading the cluster through the master's LUXI socket (-L)."""
        proc = subprocess.run([HBAL, '-L' + self.luxi_socket] + list(args), capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout + proc.stderr

    # ------------------------------------------------------------------ ansible
    def luxi_env(self):
        """Environment for an ansible run that has no RAPI settings at all."""
        return {k: v for k, v in self.env().items() if not k.startswith('GANETI_RAPI_')}

    def env(self, user=None, password=None, ca=True, **extra):
        """Environment for an ansible run: credentials via GANETI_RAPI_* only."""
        foreign = ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE')
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('GANETI_RAPI_') and k not in foreign}
        env.update(ansible_settings())
        env.update(
            GANETI_RAPI_URL=self.url,
            GANETI_RAPI_USER=self.user if user is None else user,
            GANETI_RAPI_PASSWORD=self.password if password is None else password,
        )
        if ca:
            env['GANETI_RAPI_CA_PATH'] = self.ca
        env.update(extra)
        return env

    def module_cmd(self, module, args=None, check=False, verbose=False):
        cmd = [tool('ansible'), 'localhost', '-m', 'ganeti.htools.' + module]
        if args:
            cmd += ['-a', json.dumps(args)]
        if check:
            cmd.append('--check')
        if verbose:
            cmd.append('-vvv')
        return cmd

    def start_module(self, tmp_path, module, args=None, check=False, env=None, verbose=False):
        """Start a module run in the background; finish it with `result()`."""
        return subprocess.Popen(self.module_cmd(module, args, check, verbose), cwd=str(tmp_path),
                                env=env or self.env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run_module(self, tmp_path, module, args=None, check=False, env=None, verbose=False):
        """Run a module ad hoc; returns (status, result, output)."""
        return result(self.start_module(tmp_path, module, args, check, env, verbose))

    def run_playbook(self, tmp_path, playbook, *args, env=None):
        env = dict(env or self.env())
        env['ANSIBLE_CALLBACK_RESULT_FORMAT'] = 'yaml'
        proc = subprocess.run([tool('ansible-playbook'), playbook] + list(args),
                              cwd=str(tmp_path), env=env, capture_output=True, text=True,
                              timeout=600, check=False)
        return proc.returncode, proc.stdout + proc.stderr


def result(proc, timeout=600):
    """(status, result dict, combined output) of a finished `ansible` ad hoc run."""
    out, err = proc.communicate(timeout=timeout)
    output = out + err
    status, value = parse_result(out, output)
    return status.rstrip('!'), value, output


def tool(name):
    """The ansible CLI next to the running Python (the venv), else on PATH."""
    return _tool(name, skip=False)
