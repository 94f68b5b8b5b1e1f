#!/usr/bin/python
# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
module: ganeti_instance_migrate
short_description: Migrate every primary instance off Ganeti nodes, and back again later
version_added: 0.1.0
description:
  - O(away_from) empties nodes of primary instances before maintenance - DRBD
    instances migrate to their secondary, instances on shared storage (C(sharedfile),
    C(rbd), C(ext), C(blockdev), C(diskless)) to the node O(targets) names for them,
    as a plan of M(ganeti.htools.ganeti_rolling_reboot) gives it. Stopped instances
    are failed over instead (nothing runs that could migrate).
  - Plain and file instances cannot move over RAPI; when one is on the nodes (unless
    O(keep_non_redundant)), or a DRBD secondary or a target is among the nodes too,
    the module fails before anything moves, naming every such instance.
  - With O(run_id), each node is first marked with every instance taken off it,
    C(ganeti.htools:away:RUN_ID:INSTANCE) - a run mark, which Ganeti keeps as the
    cluster tag C(ganeti.htools:away:RUN_ID:NODE:INSTANCE), all nodes' in one tag
    job; the modules of this collection show it among the node's tags.
    O(back_to) then migrates exactly those instances back to their node and removes
    the marks - also after an interrupted run, from the marks alone. Instances
    already home are left alone, so both directions are idempotent.
  - All migrations are submitted at once (Ganeti's node locks order them) and
    waited for; a failed one fails the task, listing what moved and what did not.
author:
  - Ganeti htools collection contributors (@ganeti-htools)
extends_documentation_fragment:
  - ganeti.htools.data_source.live_only
  - ganeti.htools.rapi
  - ganeti.htools.jobs
  - ganeti.htools.lock_owner
options:
  away_from:
    description: Nodes to take every primary instance off.
    type: list
    elements: str
  targets:
    description:
      - Target node per instance (instance name to node name), for instances that do
        not simply migrate to their DRBD secondary.
    type: dict
    default: {}
  keep_non_redundant:
    description:
      - With O(away_from) - instances without a DRBD secondary and without a target in
        O(targets) stay where they are and go down with their node, as
        C(hroller --ignore-non-redundant) plans it. They are listed in RV(staying).
    type: bool
    default: false
  back_to:
    description: Nodes to bring back the instances that O(run_id) took off them. Needs O(run_id).
    type: list
    elements: str
  keep_moved:
    description:
      - With O(back_to) - a DRBD instance whose secondary is no longer the node it left
        (a full evacuation gave it a new secondary) stays where it is instead of failing
        the task; its tag is dropped and it is listed in RV(staying).
    type: bool
    default: false
  remove_tags_when_home:
    description:
      - With O(back_to) - tags removed from each O(back_to) node that carries them, only
        when every migration back succeeded (a failed one leaves them all in place).
        Run marks among them go in the job that removes the C(away) marks of every
        node; the C(ganeti.htools.rolling_reboot) role ends a wave this way - its
        nodes' wave marks go without a tag job of their own.
    type: list
    elements: str
    default: []
  run_id:
    description:
      - Name of the run (1-40 letters, digits and C(. _ @ + -)) under which the moves
        away are recorded in run marks (see the description).
    type: str
  migration_mode:
    description: C(live) or C(non-live); omitted - the instance's hypervisor default.
    type: str
    choices: [live, non-live]
  job_timeout:
    description: Seconds to wait for each migration job.
    type: int
    default: 1800
attributes:
  check_mode:
    description: Reports the migrations it would submit; nothing is changed.
    support: full
  diff_mode:
    description: Not applicable.
    support: none
seealso:
  - module: ganeti.htools.ganeti_rolling_reboot
  - module: ganeti.htools.ganeti_node
'''

EXAMPLES = r'''
- name: Take every instance off node3, remembering them
  ganeti.htools.ganeti_instance_migrate:
    away_from: [node3]
    run_id: kernel-2026-11
  register: away

- name: Bring them back after the maintenance
  ganeti.htools.ganeti_instance_migrate:
    back_to: [node3]
    run_id: kernel-2026-11

- name: Empty the nodes of a reboot wave, shared-storage instances where the plan says
  ganeti.htools.ganeti_instance_migrate:
    away_from: "{{ reboot.waves[0].nodes }}"
    targets: "{{ reboot.moves | items2dict(key_name='instance', value_name='new_primary') }}"
'''

RETURN = r'''
moves:
  description:
    - The migrations submitted (in check mode, that would be), each with C(instance),
      C(from), C(to), C(target_node) (what RAPI was told; C(null) for DRBD, which
      goes to its secondary), C(template), C(action) (C(migrate) or C(failover)) and,
      when run, C(job) and C(status).
  returned: success
  type: list
  elements: dict
  sample: [{instance: web1, from: node3, to: node1, target_node: null, template: drbd,
            action: migrate, job: 812, status: success}]
staying:
  description:
    - The instances left on the O(away_from) nodes (O(keep_non_redundant)), or with
      O(back_to) the DRBD instances that stay on their new nodes (O(keep_moved)).
  returned: success
  type: list
  elements: str
tags_removed:
  description:
    - Per node, the tags removed after bringing the instances back - its C(away) tags,
      and those of O(remove_tags_when_home) it carried.
  returned: success
  type: dict
summary:
  description:
    - What moved (or would), in one line. After a failure, how many migrations failed
      (named) and only those that succeeded.
  returned: always
  type: str
  sample: "2 instance(s) migrated: web1 node3->node1, db2 node3->node2"
'''

from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils import run_tags
from ansible_collections.ganeti.htools.plugins.module_utils.live import migration_runs
from ansible_collections.ganeti.htools.plugins.module_utils.module import argspecs
from ansible_collections.ganeti.htools.plugins.module_utils.module.runner import HtoolsModule


def main():
    argument_spec = argspecs.combine(
        argspecs.live_only(), argspecs.jobs(), argspecs.lock_owner(), argspecs.run_id(),
        argspecs.job_timeout(1800),     # a live migration copies the instance's memory
        away_from=dict(type="list", elements="str"),
        targets=dict(type="dict", default={}),
        keep_non_redundant=dict(type="bool", default=False),
        back_to=dict(type="list", elements="str"),
        keep_moved=dict(type="bool", default=False),
        remove_tags_when_home=dict(type="list", elements="str", default=[]),
        migration_mode=dict(type="str", choices=["live", "non-live"]),
    )
    module = HtoolsModule(argument_spec, mutually_exclusive=[("away_from", "back_to")],
                          required_one_of=[("away_from", "back_to")])
    client, preview = module.live_only_client()
    try:
        if module.params["run_id"] is not None:
            run_tags.valid_run_id(module.params["run_id"])
        run = migration_runs.away if module.params["away_from"] is not None \
            else migration_runs.back
        result = run(client, module.params, module.ansible.check_mode)
    except migration_runs.MigrationsFailed as err:
        module.fail(err, **err.result)
    except HtoolsError as err:
        module.fail(err, summary="nothing migrated: %s" % err)
    if preview:
        result["summary"] += " (a preview from data_file: the saved cluster's instances)"
    module.ansible.exit_json(**result)


if __name__ == "__main__":
    main()
