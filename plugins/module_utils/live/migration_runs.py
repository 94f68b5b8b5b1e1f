# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Take the primary instances off nodes, or bring them back (ganeti_instance_migrate).

`away` marks each node with the instances it gives up (under a run id; run
marks are kept as cluster tags, live/run_marks.py) before anything moves, so
that `back` finds them after any interruption; both check the run's lock,
submit the migrations on the executor and say what moved.  The moves
themselves come from live/migrations.py.
"""

from __future__ import annotations

from ..errors import HtoolsError
from ..run_tags import away_tag
from .executor import submit_then_wait
from .jobs import run_job
from .lock import require_lock
from .migrations import describe, describe_failure, migrations_away, migrations_back, submit
from . import run_marks
from .parallel import run_parallel
from .preview import SavedCluster

REASON = "ganeti.htools:ganeti_instance_migrate"


class MigrationsFailed(HtoolsError):
    """Some migrations failed or left instances behind; `result` says what ran."""

    def __init__(self, message, result):
        self.result = result
        super().__init__(message)


def _known_nodes(client, names):
    nodes = {n["name"]: n for n in client.nodes()}
    unknown = sorted(set(names) - set(nodes))
    if unknown:
        raise HtoolsError("unknown node(s): %s" % ", ".join(unknown))
    return nodes


def _run_all(client, moves, params):
    """Submit every move, wait for each; the failed ones as (move, error)."""
    return submit_then_wait(
        client, moves, lambda move: submit(client, move, REASON, params["migration_mode"]),
        params["job_timeout"])


def _failure(failed, result):
    result["summary"] = describe_failure(result["moves"])
    return MigrationsFailed("%d of %d migration(s) failed: %s" % (
        len(failed), len(result["moves"]),
        "; ".join("%s %s->%s: %s" % (m["instance"], m["from"], m["to"], e) for m, e in failed)),
        result)


def _check_lock(client, params, check_mode):
    """The run's lock, when one is named; a saved cluster (a preview) holds no lock."""
    if not (check_mode and isinstance(client, SavedCluster)):
        require_lock(client, params["lock_owner"])


def _remember(client, nodes, moves, params):
    """Mark each node with the instances it gives up (one job for every node),
    before any of them moves."""
    by_node = {}
    for move in moves:
        tag = away_tag(params["run_id"], move["instance"])
        if tag not in (nodes[move["from"]].get("tags") or []):
            by_node.setdefault(move["from"], []).append(tag)
    run_parallel([(lambda job=job: run_job(client, job, params["job_timeout"]))
                  for job in run_marks.add_jobs(client, by_node, REASON)])


def away(client, params, check_mode):
    """Migrate the primaries off params["away_from"]; the module result."""
    nodes = _known_nodes(client, params["away_from"])
    instances = {i["name"]: i for i in client.instances()}
    moves, staying = migrations_away(instances, params["away_from"], params["targets"],
                                     params["keep_non_redundant"])
    result = {"moves": moves, "staying": staying, "tags_removed": {}, "changed": bool(moves),
              "summary": describe(moves, "to migrate" if check_mode else "migrated")}
    if not moves:
        return result
    _check_lock(client, params, check_mode)
    if check_mode:
        return result
    if params["run_id"]:      # remember first: a run interrupted later still knows
        _remember(client, nodes, moves, params)
    failed = _run_all(client, moves, params)
    if failed:
        raise _failure(failed, result)
    leaving = set(params["away_from"])
    left = sorted(i["name"] for i in client.instances()
                  if i["pnode"] in leaving and i["name"] not in staying)
    if left:
        raise MigrationsFailed("%s still hold primary instances after the migrations: %s"
                               % (", ".join(params["away_from"]), ", ".join(left)), result)
    return result


def back(client, params, check_mode):
    """Migrate back onto params["back_to"] what a run took away; the module result."""
    if not params["run_id"]:
        raise HtoolsError("back_to needs the run_id the instances were taken away under")
    nodes = _known_nodes(client, params["back_to"])
    instances = {i["name"]: i for i in client.instances()}
    node_tags = {n: nodes[n].get("tags") or [] for n in params["back_to"]}
    moves, drop, staying = migrations_back(instances, node_tags, params["run_id"],
                                           params["keep_moved"])
    when_home = _present(node_tags, params["remove_tags_when_home"])
    result = {"moves": moves, "staying": staying, "tags_removed": drop,
              "changed": bool(moves or drop or when_home),
              "summary": describe(moves, "to migrate back" if check_mode else "migrated back")}
    if not result["changed"]:
        return result
    _check_lock(client, params, check_mode)
    if check_mode:
        return result
    failed = _run_all(client, moves, params)
    # forget only the instances that are home now; the caller's own marks go
    # only when every instance is, in the same job per node
    stuck = {away_tag(params["run_id"], m["instance"]) for m, _error in failed}
    marks = {} if failed else when_home
    for node in sorted(set(drop) | set(marks)):
        drop[node] = [t for t in drop.get(node, []) if t not in stuck] + marks.get(node, [])
    _forget(client, nodes, drop, params)
    if failed:
        raise _failure(failed, result)
    return result


def _forget(client, nodes, drop, params):
    """Remove the tags of `drop` ({node: tags}): the run's marks in one job
    (run_marks), any other tag of the caller's in a job per node."""
    removing, others = {}, []
    for node, tags in sorted(drop.items()):
        marks, plain = run_marks.split(tags)
        removing[node] = marks
        if plain:
            others.append(lambda node=node, plain=plain: client.delete_node_tags(
                node, plain, reason=REASON))
    jobs = run_marks.remove_jobs(client, nodes, removing, REASON) + others
    run_parallel([(lambda job=job: run_job(client, job, params["job_timeout"])) for job in jobs])


def _present(node_tags, tags):
    """{node: those of `tags` it carries}, for the nodes that carry any."""
    present = {node: [t for t in tags if t in carried] for node, carried in node_tags.items()}
    return {node: found for node, found in present.items() if found}
