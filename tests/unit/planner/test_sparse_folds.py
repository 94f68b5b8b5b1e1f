"""``sparse_folds.sequential_sums`` against the plain loops hbal's score uses.

Random base vectors (few distinct values, so that many running sums meet;
random magnitudes; NaN and infinities), random rows of up to three changes:
every sum and every sum of squared deviations must be bit-identical to
``total = total + x`` and ``diff = x - mean; total = total + diff * diff``
over the changed vector.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.sparse_folds import (
    _unique_rows_sorted, deviation_sums, sequential_sums, unique_rows)

SPECIAL = (math.nan, math.inf, -math.inf, 0.0, -0.0)


def _vector(rnd, n, shape):
    if shape == "few":
        pool = [0.1, 0.3, 1 / 3, 0.7, 2 / 7, 1e-9]
        return [rnd.choice(pool) for _pos in range(n)], pool
    if shape == "special":
        pool = [0.5, 1 / 3] + list(SPECIAL)
        return [rnd.choice(pool) for _pos in range(n)], pool
    scale = rnd.choice([1.0, 1e3, 1e-3, 1e12])
    return [rnd.random() * scale for _pos in range(n)], None


def _plain(values, mean=None):
    total = 0.0
    for x in values:
        if mean is None:
            total = total + x
        else:
            diff = x - mean
            total = total + diff * diff
    return total


def _same(a, b):
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
@pytest.mark.parametrize("seed", range(40))
def test_sums_are_those_of_the_plain_loop(seed, dense, monkeypatch):
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import sparse_folds
    monkeypatch.setattr(sparse_folds, "DENSE_LIMIT", 1 << 40 if dense else 0)
    rnd = random.Random(seed)
    shape = ("few", "special", "random")[seed % 3]
    n = rnd.randint(1, 80)
    base, pool = _vector(rnd, n, shape)
    m = rnd.randint(1, 300)
    pos = np.full((m, 3), -1, dtype=np.int64)
    val = np.zeros((m, 3))
    vectors = []
    for r in range(m):
        k = rnd.randint(0, min(3, n))
        where = sorted(rnd.sample(range(n), k))
        new = [rnd.choice(pool) if pool else rnd.random() for _pos in where]
        pos[r, :k] = where
        val[r, :k] = new
        vector = list(base)
        for p, x in zip(where, new):
            vector[p] = x
        vectors.append(vector)
    sums = sequential_sums(np.array(base), pos, val)
    want = [_plain(v) for v in vectors]
    assert all(_same(float(g), w) for g, w in zip(sums, want))
    means = np.array([w / n for w in want])
    squares = sequential_sums(np.array(base), pos, val, means)
    want2 = [_plain(v, mean) for v, mean in zip(vectors, means.tolist())]
    assert all(_same(float(g), w) for g, w in zip(squares, want2))
    totals, squares = deviation_sums(np.array(base), pos, val)
    assert all(_same(float(g), w) for g, w in zip(totals, want))
    assert all(_same(float(g), w) for g, w in zip(squares, want2))


def test_no_rows_and_empty_base():
    assert sequential_sums(np.zeros(0), np.full((4, 3), -1), np.zeros((4, 3))).tolist() == [0.0] * 4
    assert sequential_sums(np.ones(3), np.zeros((0, 3), dtype=np.int64), np.zeros((0, 3))).size == 0


def test_unique_rows():
    rnd = np.random.default_rng(3)
    keys = rnd.integers(0, 3, size=(500, 3))
    first, inverse = unique_rows(keys)
    assert (keys[first][inverse] == keys).all()
    assert len({tuple(row) for row in keys.tolist()}) == first.size


def test_unique_rows_survives_hash_collisions(monkeypatch):
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance import sparse_folds
    keys = np.array([[1, 2], [3, 4], [1, 2], [5, 6]], dtype=np.int64)
    # every row hashes alike: the sorted fallback must still tell them apart
    monkeypatch.setattr(sparse_folds, "_row_hashes",
                        lambda keys: np.zeros(keys.shape[0], dtype=np.uint64))
    first, inverse = unique_rows(keys)
    assert (keys[first][inverse] == keys).all() and first.size == 3
    first2, _inverse2 = _unique_rows_sorted(keys)
    assert first2.size == 3
