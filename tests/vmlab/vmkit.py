# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vm lab (tests/vmlab/up.sh) as the tests see it.

`VmLab` reads the facts up.sh wrote to $VMLAB_BASE/lab.env.  It talks to the
cluster with its own few RAPI requests, runs commands on the master
($BASE/gnt) and on single nodes ($BASE/ssh), runs the real hbal, and runs
the collection only through the ansible CLI, never by importing it, so that
the tests see what a user sees.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse

import requests

from kit.ansible_cli import ansible_settings, parse_result
from kit.lab import LOCK_PREFIX, tool
from kit.paths import HBAL

HERE = os.path.dirname(os.path.abspath(__file__))
# hbal's last line when it has nothing to do
BALANCED = ('No solution found', 'already well balanced')
# a gnt-* command whose job luxid failed to start: sent again after 10, 20... s
JOB_START_TRIES = 5
JOB_START_PAUSE = 10


def settings():
    """Namespace, base directory and port of the lab: up.sh's defaults."""
    return {
        'VMLAB_NS': os.environ.get('VMLAB_NS', 'htools-vmlab'),
        'VMLAB_BASE': os.environ.get('VMLAB_BASE', '/tmp/htools-vmlab'),
        'VMLAB_RAPI_PORT': os.environ.get('VMLAB_RAPI_PORT', '5190'),
    }


def wait_for(check, timeout, what, interval=3):
    """Poll `check()` until it returns something true; that value is returned."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('%s: still not the case after %ss' % (what, timeout))
        time.sleep(interval)


def verify_disks_clean(out):
    """gnt-cluster verify-disks found nothing to do: no node it could not ask,
    no missing volume, no degraded disk it had to activate."""
    lowered = out.lower()
    return 'no disks need to be activated.' in lowered and not any(
        trouble in lowered for trouble in ('missing', 'error', 'activating', 'could not'))


def node_number(name):
    return int(name[len('node'):])


DRBD_SHOW = re.compile(r'device\s+minor (\d+);\s*disk\s+"([^"]+)"')
# drbdsetup 8.4 show: "_this_host {\n address ipv4 198.51.100.12:11001;" (and _remote_host)
DRBD_ENDPOINT = re.compile(r'(_this_host|_remote_host)\s*\{\s*address\s+(\w+)\s+([^;\s]+);')
DRBD_RESOURCE = re.compile(r'^resource\s+(\S+)\s*\{', re.M)
DRBD_LINE = re.compile(r'^\s*(\d+): cs:(\S+) ro:(\S+) ds:(\S+)')
OOS = re.compile(r'\boos:(\d+)')


def parse_proc_drbd(text):
    """{minor: {'cs', 'ro', 'ds', 'oos'}} from DRBD 8.4's /proc/drbd (oos in KiB)."""
    devices, current = {}, None
    for line in text.splitlines():
        match = DRBD_LINE.match(line)
        if match:
            current = {'cs': match.group(2), 'ro': match.group(3), 'ds': match.group(4), 'oos': 0}
            devices[int(match.group(1))] = current
            continue
        match = OOS.search(line)
        if match and current is not None:
            current['oos'] = int(match.group(1))
    return devices


class VmLab:
    """One running vm lab."""

    def __init__(self, facts):
        self.facts = facts
        self.base = facts['VMLAB_BASE']
        self.url = facts['VMLAB_RAPI_URL']
        self.user = facts['VMLAB_RAPI_USER']
        self.password = facts['VMLAB_RAPI_PASS']
        self.ca = facts['VMLAB_CA']
        self.inventory = facts['VMLAB_INVENTORY']
        self.nodes_count = int(facts['VMLAB_NODES'])
        self.session = requests.Session()
        self.session.auth = (self.user, self.password)

    # ------------------------------------------------------------------ RAPI
    def get(self, path, **query):
        response = self.session.get(self.url + path, params=query or None, verify=self.ca,
                                    timeout=60)
        assert response.status_code == 200, \
            '%s: HTTP %s %s' % (path, response.status_code, response.text[:300])
        return response.json()

    def instances(self):
        return {i['name']: i for i in self.get('/2/instances', bulk=1)}

    def nodes(self):
        return {n['name']: n for n in self.get('/2/nodes', bulk=1)}

    def job(self, job_id):
        return self.get('/2/jobs/%s' % job_id)

    def layout(self, template='drbd'):
        """{instance: (primary, secondary)} of the instances of `template`."""
        return {name: (inst['pnode'], (inst['snodes'] or [None])[0])
                for name, inst in self.instances().items() if inst['disk_template'] == template}

    def master(self):
        return self.get('/2/info')['master']

    # ------------------------------------------------------------------ commands
    def _run(self, cmd, timeout):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        assert proc.returncode == 0, '%s failed (%s):\n%s%s' % (
            ' '.join(cmd), proc.returncode, proc.stdout, proc.stderr)
        return proc.stdout + proc.stderr   # gnt-* --submit and hbal -p write to stderr

    def gnt(self, *args, timeout=900):
        """A command on the master (one argument: a shell command line).

        Under emulation the master's luxid sometimes fails to start a job (its
        forked job process does not report within 30 s: "job N failed to
        start").  Such a job ran nothing, and every command the tests send is
        safe to send again, so it is, as live/jobs.py does for the collection.
        """
        cmd = [os.path.join(self.base, 'gnt')] + list(args)
        for attempt in range(1, JOB_START_TRIES + 1):
            try:
                return self._run(cmd, timeout)
            except AssertionError as failure:
                if 'failed to start' not in str(failure) or attempt == JOB_START_TRIES:
                    raise
                time.sleep(JOB_START_PAUSE * attempt)
        raise AssertionError('unreachable')

    def on(self, node, command, timeout=300):
        """A shell command line on `node` (name or number)."""
        number = node if isinstance(node, int) else node_number(node)
        return self._run([os.path.join(self.base, 'ssh'), str(number), command], timeout)

    def reachable(self, node):
        number = node if isinstance(node, int) else node_number(node)
        proc = subprocess.run([os.path.join(self.base, 'ssh'), str(number), 'true'],
                              capture_output=True, timeout=60, check=False)
        return proc.returncode == 0

    def boot_id(self, node):
        return self.on(node, 'cat /proc/sys/kernel/random/boot_id').strip()

    def verify_disks(self):
        return self.gnt('gnt-cluster', 'verify-disks')

    def drbd(self, node):
        return parse_proc_drbd(self.on(node, 'cat /proc/drbd'))

    def data_volume(self, node, instance):
        """The logical volume under disk 0 of a DRBD instance on `node`, found by
        the tag Ganeti gives the volumes of an instance (no Ganeti job needed)."""
        out = self.on(node, 'lvs --noheadings -o lv_path,lv_tags xenvg')
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 2 and 'originstname+' + instance in fields[1].split(',') \
                    and fields[0].endswith('.disk0_data'):
                return fields[0]
        raise AssertionError('no data volume of %s on %s:\n%s' % (instance, node, out))

    def drbd_minor(self, node, instance):
        """The DRBD minor of disk 0 of `instance` on `node`: the one whose
        backing disk is the instance's data volume."""
        volume = self.data_volume(node, instance)
        show = self.on(node, 'drbdsetup show')
        minors = [int(minor) for minor, disk in DRBD_SHOW.findall(show) if disk == volume]
        assert len(minors) == 1, 'DRBD device of %s on %s:\n%s' % (instance, node, show)
        return minors[0]

    def drbd_disconnect(self, node, minor):
        """Cut the replication link of a DRBD device on `node` (it keeps its
        disk and waits for its peer).  drbdsetup 8.4 names a connection by its
        two endpoints, read from the device's configuration."""
        show = self.on(node, 'drbdsetup show %d' % minor)
        ends = {side: '%s:%s' % (family, address)
                for side, family, address in DRBD_ENDPOINT.findall(show)}
        assert set(ends) == {'_this_host', '_remote_host'}, show
        self.on(node, 'drbdsetup disconnect %s %s' % (ends['_this_host'], ends['_remote_host']))

    def drbd_down(self, node, minor):
        """Take a DRBD device down on `node`, as a reboot leaves it (no device
        at all); drbdsetup 8.4 takes the resource name Ganeti gives it."""
        show = self.on(node, 'drbdsetup show %d' % minor)
        resource = DRBD_RESOURCE.search(show)
        assert resource, show
        self.on(node, 'drbdsetup down %s' % resource.group(1))

    def clear_locks(self):
        """Remove the collection's lock tags: a run that failed may leave one
        behind, which would make the next run wait for it to expire."""
        tags = [t for t in self.get('/2/tags') if t.startswith(LOCK_PREFIX)]
        if tags:
            self.gnt('gnt-cluster', 'remove-tags', *tags)

    def restore_drbd_layout(self, primary='node1', secondary='node2'):
        """Put every DRBD instance back on PRIMARY:SECONDARY (up.sh's unbalanced
        layout) with migrations and secondary replacements; a no-op on a fresh
        lab, needed when a reused lab was balanced before."""
        for name in sorted(self.layout()):
            for _attempt in range(4):
                pnode, snode = self.layout()[name]
                if (pnode, snode) == (primary, secondary):
                    break
                if pnode == primary:
                    self.gnt('gnt-instance', 'replace-disks', '-n', secondary, name)
                elif snode == primary:
                    self.gnt('gnt-instance', 'migrate', '-f', name)
                else:
                    self.gnt('gnt-instance', 'replace-disks', '-n', primary, name)
            assert self.layout()[name] == (primary, secondary), self.layout()[name]

    def hbal(self, *args):
        """The real hbal reading the cluster over RAPI.  Debian's RAPI wants
        authentication even for reads; hbal has no credential option, but its
        HTTP client takes them from the URL."""
        parts = urllib.parse.urlsplit(self.url)
        auth_url = '%s://%s:%s@%s' % (parts.scheme, urllib.parse.quote(self.user),
                                      urllib.parse.quote(self.password), parts.netloc)
        return self._run([HBAL, '-m', auth_url] + list(args), timeout=300)

    # ------------------------------------------------------------------ ansible
    def ansible_env(self, inventory=None):
        """Environment for the ansible CLI: the collection from .cache/collections
        (make link), results as JSON, credentials only through GANETI_RAPI_*."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(('GANETI_RAPI_', 'ANSIBLE_'))}
        env.update(ansible_settings())
        env.update(
            ANSIBLE_HOST_KEY_CHECKING='1',
            GANETI_RAPI_URL=self.url,
            GANETI_RAPI_USER=self.user,
            GANETI_RAPI_PASSWORD=self.password,
            GANETI_RAPI_CA_PATH=self.ca,
        )
        if inventory:   # the nodes' own Python, not the venv's
            del env['ANSIBLE_PYTHON_INTERPRETER']
        return env

    def start_ansible(self, cwd, host, module, args=None, check=False, inventory=None):
        """Start an ad hoc `ansible HOST -m MODULE` run; finish it with `ansible_result`."""
        cmd = [tool('ansible'), host, '-m', module]
        if inventory:
            cmd += ['-i', inventory]
        if args:
            cmd += ['-a', json.dumps(args)]
        if check:
            cmd.append('--check')
        return subprocess.Popen(cmd, cwd=str(cwd), env=self.ansible_env(inventory), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def run_module(self, cwd, module, args=None, check=False, timeout=3600):
        """A module of the collection on localhost: (status, result, output)."""
        proc = self.start_ansible(cwd, 'localhost', 'ganeti.htools.' + module, args, check)
        return ansible_result(proc, timeout)


def ansible_result(proc, timeout=3600):
    """(status, result, output) of a finished ad hoc ansible run of one host."""
    out, err = proc.communicate(timeout=timeout)
    output = out + err
    status, value = parse_result(out, output)
    return status.rstrip('!'), value, output


# ------------------------------------------------------------------ DRBD layouts
def spread_ok(layout, nodes):
    """Every node holds DRBD primaries and secondaries."""
    primaries = {p for p, _s in layout.values()}
    secondaries = {s for _p, s in layout.values()}
    return set(nodes) <= primaries and set(nodes) <= secondaries


def move_steps(current, target):
    """The gnt-instance commands taking a DRBD instance from (primary,
    secondary) `current` to `target`: migrations and secondary replacements."""
    steps, (pnode, snode) = [], current
    for _attempt in range(4):
        if (pnode, snode) == target:
            return steps
        if pnode == target[0]:
            steps.append(('replace-disks', '-n', target[1]))
            snode = target[1]
        elif snode == target[0]:
            steps.append(('migrate', '-f'))
            pnode, snode = snode, pnode
        else:
            steps.append(('replace-disks', '-n', target[0]))
            snode = target[0]
    raise AssertionError('no way from %s to %s' % (current, target))


def spread_targets(layout, nodes):
    """{instance: (primary, secondary)} with every node holding primaries and
    secondaries, as few moves away from `layout` as can be found (the node
    pairs of up.sh's VMLAB_DRBD_SPREAD, in any order of nodes and instances)."""
    if spread_ok(layout, nodes):
        return dict(layout)
    names, count = sorted(layout), len(nodes)
    pairs = [(i % count, ((i % count) + (i // count) % (count - 1) + 1) % count)
             for i in range(len(names))]
    best = None
    for order in itertools.permutations(nodes):
        slots = [(order[p], order[s]) for p, s in pairs]
        for assignment in itertools.permutations(slots):
            cost = sum(len(move_steps(layout[n], t)) for n, t in zip(names, assignment))
            if best is None or cost < best[0]:
                best = (cost, dict(zip(names, assignment)))
    return best[1]


# ------------------------------------------------------------------ the sampler
class DrbdSampler(threading.Thread):
    """Every `interval` seconds, reads every node's boot id, systemd state and
    /proc/drbd (each node in a thread of its own) and checks that no node is
    down or going down while a DRBD disk it holds is not UpToDate on its peer.

    `minors` is {instance: {node: minor}} (DRBD minors are fixed in Ganeti's
    configuration); a node that does not answer within `answer_timeout` counts
    as down.  `on_sample(sample)` runs after each round (the writer)."""

    def __init__(self, lab, minors, interval=5.0, answer_timeout=15.0, on_sample=None):
        super().__init__(daemon=True)
        self.lab, self.minors = lab, minors
        self.interval, self.answer_timeout = interval, answer_timeout
        self.on_sample = on_sample
        self.stop_event = threading.Event()
        self.samples, self.errors = [], []
        self.nodes = sorted({n for by_node in minors.values() for n in by_node})
        self.boot_ids = collections.defaultdict(list)   # node -> distinct boot ids seen

    def run(self):
        while not self.stop_event.is_set():
            started = time.monotonic()
            try:
                self.sample()
            except Exception as err:    # pylint: disable=broad-except  # reported by stop()
                self.errors.append(repr(err))
            self.stop_event.wait(max(0.0, self.interval - (time.monotonic() - started)))

    def stop(self):
        self.stop_event.set()
        self.join(120)
        assert not self.errors, self.errors

    def _read(self, node):
        cmd = [os.path.join(self.lab.base, 'ssh'), str(node_number(node)),
               'cat /proc/sys/kernel/random/boot_id; systemctl is-system-running; cat /proc/drbd']
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  timeout=self.answer_timeout)
        except subprocess.TimeoutExpired:
            return None
        lines = proc.stdout.splitlines()
        if len(lines) < 2 or not re.match(r'^[0-9a-f-]{36}$', lines[0]):
            return None
        return {'boot_id': lines[0], 'state': lines[1].strip(),
                'drbd': parse_proc_drbd('\n'.join(lines[2:]))}

    def sample(self):
        threads, seen = [], {}
        for node in self.nodes:
            thread = threading.Thread(target=lambda n=node: seen.__setitem__(n, self._read(n)))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        for node in self.nodes:
            if seen[node] and seen[node]['boot_id'] not in self.boot_ids[node]:
                self.boot_ids[node].append(seen[node]['boot_id'])
        sample = {'time': time.time(), 'seen': seen}
        self.samples.append(sample)
        if self.on_sample:
            self.on_sample(sample)

    def _down(self):
        """{sample index: nodes down or going down}.  A node that did not answer
        was down only if it came back with another boot id (or never came
        back): on a busy host a running node can miss the answer timeout."""
        down = collections.defaultdict(set)
        for node in self.nodes:
            gap, last_boot = [], None
            for pos, sample in enumerate(self.samples):
                seen = sample['seen'].get(node)
                if seen is None:
                    gap.append(pos)
                    continue
                if gap and seen['boot_id'] != last_boot and last_boot is not None:
                    for missed in gap:
                        down[missed].add(node)
                gap, last_boot = [], seen['boot_id']
                if seen['state'] == 'stopping':
                    down[pos].add(node)
            for missed in gap:          # never answered again
                down[missed].add(node)
        return down

    def verdict(self):
        """(violations, unverified): samples where a node was down or going down
        while a DRBD disk it holds was not UpToDate on its peer, and those where
        the peer did not answer (its state unknown)."""
        violations, unverified = [], []
        for pos, nodes in sorted(self._down().items()):
            sample = self.samples[pos]
            for node in sorted(nodes):
                for instance, by_node in sorted(self.minors.items()):
                    if node not in by_node:
                        continue
                    peer = next(n for n in by_node if n != node)
                    if peer in nodes:
                        violations.append((sample['time'], node, instance, peer, 'both down'))
                        continue
                    seen = sample['seen'].get(peer)
                    if seen is None:
                        unverified.append((sample['time'], node, instance, peer))
                        continue
                    device = seen.get('drbd', {}).get(by_node[peer])
                    if device is None or not device['ds'].startswith('UpToDate/'):
                        violations.append((sample['time'], node, instance, peer, device))
        return violations, unverified

    def figures(self):
        violations, unverified = self.verdict()
        silent = sum(1 for s in self.samples for seen in s['seen'].values() if seen is None)
        return {'samples': len(self.samples), 'with_a_node_down': len(self._down()),
                'violations': len(violations), 'unverified': len(unverified),
                'silent_answers': silent,
                'seconds': round(self.samples[-1]['time'] - self.samples[0]['time'], 1)
                if self.samples else 0}
