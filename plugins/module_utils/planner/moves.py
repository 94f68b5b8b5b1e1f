# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Instance moves: which are tried, how they change nodes, what they run.

`apply_move` is the exact (scalar) semantics of hbal's applyMove: the
primary and secondary are first stripped of the instance, then the nodes of the
new placement take it in a fixed order, each step can fail (which discards the
candidate), and the input nodes are never modified.  The bulk evaluator in
`balance/bulk_search.py` must agree with it.
"""

from __future__ import annotations

from ..model.node import check_migration
from ..model.vocabulary import MIRROR_EXTERNAL, MIRROR_INTERNAL, NO_NODE

FAILOVER = "failover"                   # f
FAILOVER_TO_ANY = "failover_to_any"     # fa:T
REPLACE_SECONDARY = "replace_secondary"  # r:T
REPLACE_PRIMARY = "replace_primary"     # f r:T f
REPLACE_AND_FAILOVER = "replace_and_failover"   # r:T f
FAILOVER_AND_REPLACE = "failover_and_replace"   # f r:T

# Per move: the steps, "f" (failover/migrate) or "r" (replace the secondary by the target).
MOVE_STEPS = {
    FAILOVER: ("f",),
    FAILOVER_TO_ANY: ("fa",),
    REPLACE_SECONDARY: ("r",),
    REPLACE_PRIMARY: ("f", "r", "f"),
    REPLACE_AND_FAILOVER: ("r", "f"),
    FAILOVER_AND_REPLACE: ("f", "r"),
}
# Every move kind.  possible_moves returns distinct kinds other than FAILOVER,
# so a move's position in its per-target list is below len(MOVE_KINDS).
MOVE_KINDS = tuple(MOVE_STEPS)


def possible_moves(mirror, use_sec, inst_moves, disk_moves, restricted, drained):
    """The move types tried per target node, in hbal's order.

    The first matching rule wins.  Mirror-less instances never move; external
    mirrors only fail over to any node, and only with instance moves.  DRBD
    needs disk moves; without instance moves, or with restricted migration
    while the primary is online, it only replaces its secondary.  With a usable
    (online, in-group) secondary it may also replace-and-failover,
    replace the primary (not under restricted migration) and
    failover-and-replace; without one, only replace the secondary or
    replace-and-failover.  The plain failover to the secondary is not listed:
    the enumeration tries it first, before any target.
    """
    if mirror == MIRROR_EXTERNAL:
        return (FAILOVER_TO_ANY,) if inst_moves else ()
    if mirror != MIRROR_INTERNAL or not disk_moves:
        return ()
    if not inst_moves or (restricted and not drained):
        return (REPLACE_SECONDARY,)
    if use_sec:
        if not restricted:
            return (REPLACE_SECONDARY, REPLACE_AND_FAILOVER, REPLACE_PRIMARY,
                    FAILOVER_AND_REPLACE)
        return (REPLACE_SECONDARY, REPLACE_AND_FAILOVER, FAILOVER_AND_REPLACE)
    return (REPLACE_SECONDARY, REPLACE_AND_FAILOVER)


def loc_score(node_a, node_b):
    return len(node_a.location_tags & node_b.location_tags)


def apply_move(nodes, inst, move, target, force):
    """Try `move` of `inst` on the node list `nodes` (not modified).

    Returns (changed nodes {idx: Node}, moved instance, new pnode, new snode)
    or a FailMode string.
    """
    if move == FAILOVER:
        return _failover(nodes, inst, force)
    if move == FAILOVER_TO_ANY:
        return _failover_to_any(nodes, inst, target, force)
    replace = _REPLACING.get(move)
    if replace is None:
        raise ValueError("unknown move %r" % move)
    # the moves that copy disks start from both nodes without the instance
    P, S = nodes[inst.pnode], nodes[inst.snode]
    int_p = P.copy()
    int_p.remove_pri(inst)
    int_s = S.copy()
    int_s.remove_sec(inst)
    return replace(inst, target, force, (P, S, nodes[target]), int_p, int_s, inst.copy())


def _failover(nodes, inst, force):
    p, s = inst.pnode, inst.snode
    P, S = nodes[p], nodes[s]
    fail = check_migration(P, S)
    if fail:
        return fail
    new_p = S.copy()
    new_p.remove_sec(inst)
    fail = new_p.add_pri(inst, P.offline or force)
    if fail:
        return fail
    new_s = P.copy()
    new_s.remove_pri(inst)
    fail = new_s.add_sec(inst, s, P.offline or force, ignore_disks=P.offline)
    if fail:
        return fail
    moved = inst.copy()
    moved.pnode, moved.snode = s, p
    return {s: new_p, p: new_s}, moved, s, p


def _failover_to_any(nodes, inst, target, force):
    p, s = inst.pnode, inst.snode
    P, T = nodes[p], nodes[target]
    fail = check_migration(P, T)
    if fail:
        return fail
    new_t = T.copy()
    fail = new_t.add_pri(inst, P.offline or force)
    if fail:
        return fail
    new_p = P.copy()
    new_p.remove_pri(inst)
    moved = inst.copy()
    moved.pnode = target
    return {target: new_t, p: new_p}, moved, target, s


def _replace_primary(inst, target, force, old, int_p, int_s, moved):
    P, S, T = old
    p, s = inst.pnode, inst.snode
    moved.location_score = loc_score(T, int_s)
    moved.pnode = target
    fp = P.offline or force
    fail = check_migration(P, S) or check_migration(S, T)
    if fail:
        return fail
    tmp = int_s.copy()
    fail = tmp.add_pri(moved, fp)
    if fail:
        return fail
    tmp.remove_pri(moved)
    new_p = T.copy()
    fail = new_p.add_pri(moved, fp)
    if fail:
        return fail
    fail = tmp.add_sec(moved, target, fp)
    if fail:
        return fail
    return {p: int_p, s: tmp, target: new_p}, moved, target, s


def _replace_secondary(inst, target, force, old, int_p, int_s, moved):
    P, S, T = old
    p, s = inst.pnode, inst.snode
    moved.location_score = loc_score(P, T)
    moved.snode = target
    fs = S.offline or force
    new_t = T.copy()
    fail = new_t.add_sec(moved, p, fs)
    if fail:
        return fail
    fail = int_p.add_pri(moved, True)
    if fail:
        return fail
    return {s: int_s, target: new_t, p: int_p}, moved, p, target


def _replace_and_failover(inst, target, force, old, int_p, int_s, moved):
    P, S, T = old
    p, s = inst.pnode, inst.snode
    moved.location_score = loc_score(T, int_p)
    moved.pnode, moved.snode = target, p
    fs = S.offline or force
    fail = check_migration(P, T)
    if fail:
        return fail
    new_p = T.copy()
    fail = new_p.add_pri(moved, force)
    if fail:
        return fail
    fail = int_p.add_sec(moved, target, fs)
    if fail:
        return fail
    return {s: int_s, p: int_p, target: new_p}, moved, target, p


def _failover_and_replace(inst, target, force, old, int_p, int_s, moved):
    P, S, T = old
    p, s = inst.pnode, inst.snode
    moved.location_score = loc_score(int_s, T)
    moved.pnode, moved.snode = s, target
    fp = P.offline or force
    fail = check_migration(P, S)
    if fail:
        return fail
    fail = int_s.add_pri(moved, fp)
    if fail:
        return fail
    new_s = T.copy()
    fail = new_s.add_sec(moved, s, fp)
    if fail:
        return fail
    return {p: int_p, s: int_s, target: new_s}, moved, s, target


_REPLACING = {REPLACE_PRIMARY: _replace_primary, REPLACE_SECONDARY: _replace_secondary,
              REPLACE_AND_FAILOVER: _replace_and_failover,
              FAILOVER_AND_REPLACE: _failover_and_replace}


def short_code(move, new_p_alias, new_s_alias):
    """The a= code of hbal's step line; it names the node that was the target."""
    if move == FAILOVER:
        return "f"
    if move == FAILOVER_TO_ANY:
        return "fa:%s" % new_p_alias
    if move == REPLACE_SECONDARY:
        return "r:%s" % new_s_alias
    if move == REPLACE_PRIMARY:
        return "f r:%s f" % new_p_alias
    if move == REPLACE_AND_FAILOVER:
        return "r:%s f" % new_p_alias
    return "f r:%s" % new_s_alias


def move_target(move, new_p, new_s):
    """The node a move names (for replace-disks -n / migrate -n)."""
    if move in (FAILOVER_TO_ANY, REPLACE_PRIMARY, REPLACE_AND_FAILOVER):
        return new_p
    if move in (REPLACE_SECONDARY, FAILOVER_AND_REPLACE):
        return new_s
    return NO_NODE
