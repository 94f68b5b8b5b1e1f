# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Instance migrations off nodes and back again, remembered in node tags.

Taking the primaries off a node for maintenance: a DRBD instance migrates to
its secondary; an instance on shared storage (sharedfile, rbd, ext, ...)
needs a target node (a plan names it); plain and file instances cannot move
over RAPI at all.  Before moving anything, the node gets one tag per
instance, `ganeti.htools:away:<run id>:<instance>`, so that bringing them
back works after an interruption too, from the tags alone.
"""

from __future__ import annotations

from ..errors import HtoolsError
from ..run_tags import away_instances, away_tag

# templates whose disks every node of the group reaches: migrate to any node
SHARED = ("sharedfile", "rbd", "ext", "blockdev", "diskless", "gluster")


def _migration(inst, to, target_node):
    """One move: `to` is where the instance ends up; `target_node` what RAPI is
    told (None for DRBD: it always goes to its secondary)."""
    return {"instance": inst["name"], "from": inst["pnode"], "to": to,
            "target_node": target_node, "template": inst["disk_template"],
            # a stopped instance is failed over: nothing runs that could migrate
            "action": "migrate" if inst.get("admin_state") == "up" else "failover"}


def migrations_away(instances, nodes, targets=None, keep_non_redundant=False):
    """(moves, staying): how every primary instance of `nodes` leaves them.

    `instances`: RAPI instances by name (bulk fields); `targets`: instance ->
    node for instances that do not go to their DRBD secondary.  With
    `keep_non_redundant`, non-DRBD instances without a target stay (they go
    down with their node, as hroller --ignore-non-redundant plans it).
    Raises an error naming every instance that cannot leave, before anything
    is done."""
    targets = targets or {}
    leaving = set(nodes)
    out, staying, problems = [], [], []
    for name in sorted(instances):
        inst = instances[name]
        if inst["pnode"] not in leaving:
            continue
        template = inst["disk_template"]
        if template == "drbd":      # always to its secondary, whatever a target says
            secondary = (inst.get("snodes") or [None])[0]
            if secondary is None or secondary in leaving:
                problems.append("%s (drbd): its secondary %s is in maintenance too"
                                % (name, secondary))
            else:
                out.append(_migration(inst, secondary, None))
        elif keep_non_redundant and name not in targets:
            staying.append(name)
        elif template in SHARED:
            target = targets.get(name)
            if target is None:
                problems.append("%s (%s): no target node given" % (name, template))
            elif target in leaving:
                problems.append("%s (%s): its target %s is in maintenance too"
                                % (name, template, target))
            else:
                out.append(_migration(inst, target, target))
        else:
            problems.append("%s (%s): Ganeti cannot migrate this disk template over RAPI; "
                            "keep it on its node (keep_non_redundant) or move it by hand"
                            % (name, template))
    if problems:
        raise HtoolsError("cannot take every instance off %s: %s"
                          % (", ".join(sorted(leaving)), "; ".join(problems)))
    return out, staying


def migrations_back(instances, node_tags, run_id, keep_moved=False):
    """(migrations, tags to drop per node, staying) to bring back what `run_id`
    took off each node of `node_tags` ({node: its tags}).

    Instances that are home already, or no longer exist, need no migration;
    their tags are dropped all the same.  A DRBD instance whose secondary is no
    longer its old node cannot migrate back: an error, or with `keep_moved`
    (after a full evacuation gave it a new secondary) it stays where it is."""
    out, drop, staying = [], {}, []
    for node in sorted(node_tags):
        for name in away_instances(node_tags[node], run_id):
            drop.setdefault(node, []).append(away_tag(run_id, name))
            inst = instances.get(name)
            if inst is None or inst["pnode"] == node:
                continue
            drbd = inst["disk_template"] == "drbd"
            if drbd and node not in (inst.get("snodes") or []) and keep_moved:
                staying.append(name)
                continue
            if drbd and node not in (inst.get("snodes") or []):
                raise HtoolsError("%s cannot go back to %s: that node is no longer its "
                                  "secondary (it is on %s)" % (name, node, ", ".join(
                                      [inst["pnode"]] + list(inst.get("snodes") or []))))
            out.append(_migration(inst, node, None if drbd else node))
    return out, drop, sorted(staying)


def submit(client, move, reason, mode=None):
    """Submit one migration (or failover of a stopped instance); the job id."""
    target = move["target_node"]
    if move["action"] == "migrate":
        extra = {"mode": mode} if mode else {}
        return client.migrate_instance(move["instance"], target_node=target, reason=reason,
                                       **extra)
    return client.failover_instance(move["instance"], target_node=target, reason=reason)


def describe_failure(moves):
    """What a run in which some moves failed did: the failed ones named, and
    only the moves that succeeded counted as done."""
    failed = [m["instance"] for m in moves if m.get("status") == "failed"]
    done = [m for m in moves if m.get("status") == "success"]
    return "%d of %d migration(s) failed (%s); %s" % (
        len(failed), len(moves), ", ".join(failed),
        describe(done) if done else "none succeeded")


def describe(moves, verb="migrated"):
    if not moves:
        return "nothing to move"
    return "%d instance(s) %s: %s" % (len(moves), verb, ", ".join(
        "%s %s->%s" % (m["instance"], m["from"], m["to"]) for m in moves))
