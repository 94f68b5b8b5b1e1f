# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hspace's unchecked one-node steps run to the end, without ranking a try.

Without the N+1 predicate, whether a node takes one more instance of a size
depends on that node alone (its policy and its own room), and a node that
refuses stays as it is, so it refuses again.  A run that goes on until no
node takes another therefore ends with every node filled as far as it goes,
whatever order the tries chose: the same nodes (the same operations on each,
in the same order) and the same failures at the end.  Only the order of the
new instances differs; here they are listed node by node.
"""

from __future__ import annotations

from ..evacuate.state import copy_node
from .alloc import Solution


def fill_to_end(policy, state, newinst, targets, limit, state_type):
    """`state_type`(errs, nodes, insts, ixes) after unchecked steps of `newinst`
    on one node each of `targets` until none takes another; None when
    `limit` (a count, None for none) would end the run first, or there are
    no targets (tryAlloc's refusal is the caller's).  `policy(inst, node)`:
    why the node's group policy refuses the instance, or None
    (SingleTries.policy)."""
    if not targets:
        return None
    nodes, insts, ixes = list(state.nodes), list(state.insts), list(state.ixes)
    failures = []
    for t_idx in targets:
        node = nodes[t_idx]
        fail = policy(newinst, node)
        work, took = None, 0
        while fail is None:
            probe = newinst.copy()
            probe.name, probe.idx = "new-%d" % len(ixes), len(insts)
            probe.pnode, probe.snode = t_idx, -1
            work = work or copy_node(node)
            fail = work.add_pri(probe, False)
            if fail is None:
                if limit is not None and len(ixes) - len(state.ixes) >= limit:
                    return None
                insts.append(probe)
                ixes.append(probe)
                took += 1
        if took:
            nodes[t_idx] = work
        failures.append(fail)
    sol = Solution()
    sol.failures = failures
    if len(ixes) == len(state.ixes):
        # nothing taken: the same cluster, as the same objects (Allocator.try_alloc
        # remembers its answers per nodes object)
        nodes, insts = state.nodes, state.insts
    return state_type(sol.counts(), nodes, insts, ixes)
