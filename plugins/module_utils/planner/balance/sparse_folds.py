# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sequential floating-point sums of many copies of one vector, each with a few
entries replaced, without summing each copy from scratch.

hbal adds a metric's node values one after the other in node order, so the
last bits of a candidate's score depend on where its changed nodes sit, and
exactly tied candidates are told apart by those bits.  A candidate changes at
most three nodes.  Its running sum leaves the base vector's running sum at its
first changed node and then follows a trajectory of its own; candidates whose
running sums meet at the same position with the same value (and, for the
squared deviations, the same mean) continue identically.  So the sums are
computed in at most four rounds - up to the first, second and third change,
then to the end - and in each round every distinct (start position, running
value, mean) is folded once, in lockstep with all others, with the same IEEE
additions in the same order as a plain loop.
"""

from __future__ import annotations

from ...deps import numpy as np


# Below this many numbers (rows x vector length), writing the vectors out is
# cheaper than folding them sparsely.
DENSE_LIMIT = 1 << 21


def sequential_sums(base, pos, val, mean=None):
    """For each row r: the left-to-right float sum of `base` with base[pos[r, j]]
    replaced by val[r, j], or with `mean`: of (x - mean[r]) ** 2 over that vector.

    base: (n,) floats.  pos: (m, w) ints, ascending along each row, -1 for
    "no change" (only at the end of a row).  val: (m, w) floats.  mean: None
    or (m,) floats.  Returns (m,) floats, bit-identical to the plain loops
    `total = total + x` and `diff = x - mean; total = total + diff * diff`.
    """
    base = np.asarray(base, dtype=np.float64)
    if not base.size or not pos.shape[0]:
        return np.zeros(pos.shape[0])
    with np.errstate(all="ignore"):        # inf - inf is NaN, as in the plain loop
        return _dedup_sums(base, pos, val, mean)


def deviation_sums(base, pos, val):
    """(sums, sums of squared deviations from each row's mean) of the same
    changed vectors, as two sequential_sums calls give them, deduplicated once:
    rows with the same changes have the same mean."""
    base = np.asarray(base, dtype=np.float64)
    m = pos.shape[0]
    if not base.size or not m:
        return np.zeros(m), np.zeros(m)
    with np.errstate(all="ignore"):
        first, inverse = unique_rows(np.column_stack([pos, val.view(np.int64)]))
        pos, val = pos[first], val[first]
        zeros = np.zeros(first.size)
        sums = _dense_sums if first.size * base.size <= DENSE_LIMIT else _sums
        total = sums(base, pos, val, zeros, False)
        mean = total / float(base.size)
        squares = sums(base, pos, val, mean, True)
    return total[inverse], squares[inverse]


def _dedup_sums(base, pos, val, mean):
    squared = mean is not None
    means = np.asarray(mean, dtype=np.float64) if squared else np.zeros(pos.shape[0])
    # Rows with the same changes (and mean) have the same sum: one of each.
    first, inverse = unique_rows(np.column_stack([pos, val.view(np.int64),
                                                  means.view(np.int64)]))
    sums = _dense_sums if first.size * base.size <= DENSE_LIMIT else _sums
    return sums(base, pos[first], val[first], means[first], squared)[inverse]


def _dense_sums(base, pos, val, means, squared):
    """The same sums for a small batch: every changed vector written out and
    summed with numpy's cumulative sum, which adds left to right."""
    m, n = pos.shape[0], base.size
    matrix = np.repeat(base[None, :], m, axis=0)
    rows, cols = np.nonzero(pos >= 0)
    matrix[rows, pos[rows, cols]] = val[rows, cols]
    if squared:
        matrix = matrix - means[:, None]
        matrix = matrix * matrix
    return np.cumsum(matrix, axis=1)[:, n - 1]


def _sums(base, pos, val, means, squared):
    n = base.size
    m = pos.shape[0]
    if squared:
        val = val - means[:, None]
        val = val * val
    # Round 0: every row starts at position 0 with 0.0.
    start = np.zeros(m, dtype=np.int64)
    state = np.zeros(m, dtype=np.float64)
    for j in range(pos.shape[1] + 1):
        if j < pos.shape[1]:
            target = pos[:, j]
            rows = np.nonzero(target >= 0)[0]
            upto = target[rows] - 1          # sum up to just before the change
        else:
            rows = np.arange(m)
            upto = np.full(m, n - 1, dtype=np.int64)
        if not rows.size:
            continue
        folded = _fold(base, start[rows], state[rows], means[rows], upto, squared)
        if j < pos.shape[1]:
            state[rows] = folded + val[rows, j]
            start[rows] = target[rows] + 1
        else:
            state = folded
    return state


def _fold(base, start, state, means, upto, squared):
    """state + base[start..upto] (or its squared deviations), per row; distinct
    (start, state, mean) triples are folded once, all in lockstep."""
    first, inverse = unique_rows(np.column_stack([start, state.view(np.int64),
                                                  means.view(np.int64)]))
    e_start = start[first]
    e_state = state[first]
    e_mean = means[first]
    out = e_state[inverse].copy()
    walk = upto >= start                     # rows that add at least one term
    if not walk.any():
        return out
    # Entries sorted by start: at position k the active ones are a prefix.
    order = np.argsort(e_start, kind="stable")
    slot = np.empty_like(order)
    slot[order] = np.arange(order.size)
    starts = e_start[order]
    running = e_state[order].copy()
    run_mean = e_mean[order]
    q_rows = np.nonzero(walk)[0]
    q_upto = upto[q_rows]
    q_order = np.argsort(q_upto, kind="stable")
    q_rows = q_rows[q_order]
    q_upto = q_upto[q_order]
    q_slot = slot[inverse[q_rows]]
    first, last = int(starts[0]), int(q_upto[-1])
    positions = np.arange(first, last + 1)
    active = np.searchsorted(starts, positions, side="right")
    bounds = np.searchsorted(q_upto, np.arange(first, last + 2), side="left")
    for i, k in enumerate(range(first, last + 1)):
        count = active[i]
        if squared:
            diff = base[k] - run_mean[:count]
            running[:count] += diff * diff
        else:
            running[:count] += base[k]
        lo, hi = bounds[i], bounds[i + 1]
        if hi > lo:
            out[q_rows[lo:hi]] = running[q_slot[lo:hi]]
    return out


def unique_rows(keys):
    """(first, inverse) for the distinct rows of an int64 matrix: keys[first] are
    the distinct rows (in no particular order) and keys[first][inverse] == keys.

    Rows are hashed to one int64 and the hashes sorted; hash collisions are
    detected and then the rows are sorted column by column instead."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    m = keys.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    mixed = _row_hashes(keys)
    order = np.argsort(mixed)
    ordered = mixed[order]
    new = np.ones(m, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = order[new]
    if (keys[first][inverse] == keys).all():
        return first, inverse
    return _unique_rows_sorted(keys)


def _row_hashes(keys):
    mixed = np.zeros(keys.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in range(keys.shape[1]):
            mixed ^= keys[:, col].view(np.uint64) + np.uint64(_MIX[col % len(_MIX)])
            mixed *= np.uint64(0x9E3779B97F4A7C15)
            mixed ^= mixed >> np.uint64(29)
    return mixed


# Per-column offsets of the row hash (plain ints: numpy may be missing at import).
_MIX = (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0,
        0x082EFA98EC4E6C89, 0x452821E638D01377, 0xBE5466CF34E90C6C)


def _unique_rows_sorted(keys):
    m = keys.shape[0]
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.ones(m, dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = group
    return order[new], inverse
