# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Node evacuation and group change, planned exactly as Ganeti 3.0.2's hail does.

Entry points (plan.py):

``evacuate(data, request_or_options, prepared=False) -> report``
    ``data``: a freshly loaded ClusterData (any backend; ``prepare`` runs here
    unless ``prepared``).  ``request_or_options`` is one of
      * an IAllocator ``request`` dict (``type`` node-evacuate, change-group
        or relocate), as ``backend.ialloc.load_ialloc`` returns it;
      * ``{"request": <that dict>, "ignore_soft_errors": b, "no_capacity_checks": b}``;
      * module options: ``nodes`` + ``mode`` (primary-only | secondary-only |
        all, default all), or ``instances`` + ``target_groups`` (names or
        UUIDs, empty = any other group), with ``ignore_soft_errors``,
        ``no_capacity_checks``.  With ``nodes``, the instances are the ones
        on those nodes for that mode, in cluster order.
    The report (plain JSON data):
      kind ("node-evacuate" | "change-group" | "relocate"), mode, target_groups,
      ignore_soft_errors, no_capacity_checks, warnings;
      iallocator_result: the document hail prints for the same request;
      moves: [{index, instance, move, jobset, old_primary, old_secondary, old_group,
               new_primary, new_secondary, new_group, opcodes}]
        (hail's moved list: one per moved instance, request order, with the
        opcodes of its hail job; ``index`` = that job's number);
      failed_instances: [{instance, reason}] (hail's message, word for word; a
        module result cannot carry them as `failed`, which Ansible reserves);
      jobs: [{job, move, instance, opcode, depends}]: the RAPI jobs that run
        the plan, one per opcode; within a move each depends on the previous
        one's success (the executor submits each once that one succeeded);
      jobsets: [[all move indices]] (one parallel set, for the executor);
      scores: {group name: {before, after}} for every group involved;
      score_before / score_after: the whole cluster's; changed.
    Ganeti itself refuses the whole operation when ``failed_instances`` is not empty.

``iallocator_result(request_doc, ignore_soft_errors=False, no_capacity_checks=False)``
    the (parsed) document ``hail`` prints for an IAllocator request (JSON
    text or dict); ``iallocator_text`` gives the printed line.  Input errors
    raise DataError / LookupFailure with hail's message where hail has one
    (hail prints ``Error: <message>`` and exits 1).

``EVACUATE``: the ``planner.base.Planner`` for ``HtoolsModule.run_plan``.

Layout: request (names → indices), node_evac (modes, templates), single
(best single target), pair (best DRBD pair: numpy incremental scoring with
exact re-scoring of near-ties), change_group + choose_group (allocation
simulation) + stats (hail's incremental statistics) + capacity (global N+1)
+ policy (instance policy check), haskell_show (one Haskell-shown message),
state (the scalar moves on node lists).
"""
