#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_lock
short_description: Hold the ganeti.htools cluster lock across several tasks
version_added: 0.1.0
description:
  - Takes or gives back the cluster-wide lock that every executing module of this
    collection honours - a cluster tag C(ganeti.htools:lock:OWNER:TAKEN:EXPIRY).
  - C(ganeti.htools.ganeti_balance) and C(ganeti.htools.ganeti_evacuate_group) take it
    for one run by themselves. A run of many tasks - a rolling reboot, a maintenance
    play - takes it here once, passes the same O(owner) as C(lock_owner) to
    C(ganeti.htools.ganeti_node) and C(ganeti.htools.ganeti_instance_migrate), and
    gives it back in an C(always) section. Meanwhile every other run of the
    collection is refused.
  - Taking a lock that O(owner) already holds changes nothing, so a play that was
    interrupted can be run again with the same owner.
  - In check mode nothing is written; the module still fails when another run holds
    the lock, so a dry run shows that the real run would be refused.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source.live_only
  - ganeti.htools.rapi
  - ganeti.htools.jobs
options:
  owner:
    description:
      - Who holds the lock - 1 to 60 letters, digits and C(. _ @ + -). Use a name
        that identifies the run, such as C(rolling-reboot.2026-11) or the AWX job id.
    type: str
    required: true
  state:
    description:
      - C(present) takes the lock (unchanged when O(owner) holds it already);
        C(absent) removes every lock tag of O(owner), expired ones too.
    type: str
    choices: [present, absent]
    default: present
  ttl:
    description:
      - Seconds after which the lock expires by itself, should the run be lost
        without giving it back (at least 60).
    type: int
    default: 7200
  force:
    description:
      - Take the lock over even when another run holds it and it has not expired.
        Make sure that run is really over first; the refusal names its owner and age.
    type: bool
    default: false
  job_timeout:
    description: Seconds to wait for each tag job.
    type: int
    default: 300
attributes:
  check_mode:
    description: Reports what would change; fails as the real run would when the lock is held.
    support: full
  diff_mode:
    description: Not applicable.
    support: none
seealso:
  - module: ganeti.htools.ganeti_node
  - module: ganeti.htools.ganeti_instance_migrate
'''

EXAMPLES = r'''
- name: Maintenance under one lock
  block:
    - name: Take the cluster lock for this run
      ganeti.htools.ganeti_lock:
        owner: maintenance.{{ tower_job_id | default('manual') }}

    - name: Drain node3 under that lock
      ganeti.htools.ganeti_node:
        name: node3
        drained: true
        lock_owner: maintenance.{{ tower_job_id | default('manual') }}
  always:
    - name: Give the lock back
      ganeti.htools.ganeti_lock:
        owner: maintenance.{{ tower_job_id | default('manual') }}
        state: absent
'''

RETURN = r'''
owner:
  description: The owner asked for.
  returned: success
  type: str
tag:
  description: The lock tag O(owner) holds after the run (C(null) after O(state=absent)).
  returned: success
  type: str
  sample: ganeti.htools:lock:rolling-reboot.7:1795000000:1795007200
expires:
  description: When the held lock expires (seconds since the epoch), or C(null).
  returned: success
  type: int
summary:
  description: What happened, in one line.
  returned: always
  type: str
  sample: "lock taken by rolling-reboot.7 for 7200 s"
'''

import time

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.live import lock as cluster_lock
from ansible_collections.ganeti.htools.plugins.module_utils.live.jobs import run_job
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule

REASON = "ganeti.htools:ganeti_lock"
PREVIEW = " (a preview from data_file: the live cluster's locks were not seen)"


def _own_tags(client, owner):
    return [tag for tag in client.cluster_tags()
            if (cluster_lock.parse(tag) or (None,))[0] == owner]


def take(module, client, owner):
    params = module.params
    now = int(time.time())
    tags = client.cluster_tags()
    live = cluster_lock.live_locks(tags, now)
    mine = [lk for lk in live if lk[1] == owner]
    if mine and not params["force"]:
        return {"changed": False, "tag": mine[0][0], "expires": mine[0][2],
                "summary": "lock already held by %s" % owner}
    if module.ansible.check_mode:
        others = [lk for lk in live if lk[1] != owner]
        if others and not params["force"]:
            raise cluster_lock.LockHeld(cluster_lock.held_message(others[0], now))
        return {"changed": True, "tag": None, "expires": now + params["ttl"],
                "summary": "lock would be taken by %s for %d s" % (owner, params["ttl"])}
    lock = cluster_lock.ClusterLock(client, ttl=params["ttl"], owner=owner, reason=REASON,
                                    job_timeout=params["job_timeout"])
    lock.acquire(force=params["force"])
    expiry = cluster_lock.parse(lock.tag)[1]
    return {"changed": True, "tag": lock.tag, "expires": expiry,
            "summary": "lock taken by %s for %d s" % (owner, params["ttl"])}


def give_back(module, client, owner):
    tags = _own_tags(client, owner)
    if tags and not module.ansible.check_mode:
        run_job(client, lambda: client.delete_cluster_tags(tags, reason=REASON + ":release"),
                module.params["job_timeout"])
    verb = "would be" if module.ansible.check_mode else "was"
    return {"changed": bool(tags), "tag": None, "expires": None,
            "summary": ("lock of %s %s released" % (owner, verb)) if tags
            else "no lock of %s held" % owner}


def main():
    argument_spec = argspecs.combine(
        argspecs.live_only(), argspecs.jobs(), argspecs.lock_ttl(),
        argspecs.job_timeout(300),      # a tag job is quick
        owner=dict(type="str", required=True),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        force=dict(type="bool", default=False),
    )
    module = HtoolsModule(argument_spec)
    params = module.params
    try:
        owner = cluster_lock.valid_owner(params["owner"])
        client, preview = module.live_only_client()
        step = take if params["state"] == "present" else give_back
        result = step(module, client, owner)
        if preview:
            result["summary"] += PREVIEW
    except HtoolsError as err:
        module.fail(err, summary="lock not changed: %s" % err)
    result["owner"] = owner
    module.ansible.exit_json(**result)


if __name__ == "__main__":
    main()
