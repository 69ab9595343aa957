"""The sparse table (universes of more than DENSE_MAX_VALUES values) against the dense one.

The sparse form keys a dataset by its sorted value indices and finds neighbours by
removing some of its own records and adding universe values; on small spaces, where both
forms run, it must find the same exact sensitivity over the same number of pairs, and a
witness pair that attains it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from exactdp import IntegerRange, Multisets, SubMultisets, local_sensitivity, sensitivity
from exactdp.engine import tables as _engine
from exactdp.queries import mean, median, std, sum_, variance
from exactdp.queries.builtin import histogram

QUERIES = [sum_, mean, median, variance(0), std(0), histogram([0, 2, 4], "L2")]


def _both(monkeypatch, fn):
    dense = fn()
    monkeypatch.setattr(_engine, "DENSE_MAX_VALUES", 0)
    try:
        sparse = fn()
    finally:
        monkeypatch.undo()
    return dense, sparse


@settings(max_examples=150, deadline=None)
@given(
    q=st.sampled_from(QUERIES),
    m=st.integers(1, 4),
    lo=st.integers(0, 2),
    extra=st.integers(0, 2),
    d_in=st.integers(1, 3),
    change=st.booleans(),
    exact_k=st.booleans(),
    release=st.booleans(),
    pooled=st.booleans(),
)
def test_sparse_matches_dense(q, m, lo, extra, d_in, change, exact_k, release, pooled):
    hi = lo + extra
    if pooled:
        pool = [v for v in range(m) for _ in range(1 + v % 2)]
        if hi > len(pool):
            return
        space = SubMultisets(pool, sizes=(lo, hi))
    else:
        space = Multisets(IntegerRange(0, m - 1), sizes=(lo, hi))
    opts = dict(exact_k=exact_k, scope="release-centred" if release else "standard",
                undefined="exclude")
    metric = "substitute" if change else "add-remove"
    mp = pytest.MonkeyPatch()
    dense, sparse = _both(mp, lambda: sensitivity(q, space, metric, d_in, **opts))
    assert sparse.value == dense.value
    assert sparse.scope.pairs == dense.scope.pairs
    assert sparse.scope.excluded == dense.scope.excluded
    assert (sparse.witness is None) == (dense.witness is None)
    if sparse.witness is not None:
        w = sparse.witness
        assert q(w.x) == w.fx if w.x else True
        assert w.distance == dense.value


def test_sparse_local_sensitivity_matches_dense():
    space = Multisets(IntegerRange(0, 5), sizes=(1, 3))
    mp = pytest.MonkeyPatch()
    dense, sparse = _both(mp, lambda: local_sensitivity(mean, [1, 4], space, "add-remove", 2))
    assert (sparse.value, sparse.scope.pairs) == (dense.value, dense.scope.pairs)
    assert sparse.witness.x == dense.witness.x


def test_a_universe_of_100001_values_with_sizes_0_to_1():
    # Was a RecursionError (one recursion level per universe value) from 1,000 values on.
    r = sensitivity(sum_, Multisets(IntegerRange(0, 100_000), sizes=(0, 1)))
    assert r.value == 100_000
    assert (list(r.witness.x), list(r.witness.x_prime)) == ([], [100_000])
    assert r.scope.pairs == 100_001


def test_a_universe_of_1001_values_and_a_pool_of_1200_distinct_values():
    r = sensitivity(sum_, Multisets(IntegerRange(0, 1000), sizes=(0, 1)))
    assert (r.value, r.scope.pairs) == (1000, 1001)
    r = sensitivity(sum_, SubMultisets(range(1200), sizes=(0, 1)))
    assert (r.value, r.scope.pairs) == (1199, 1200)
    r = sensitivity(sum_, SubMultisets(range(1500), size=1500), "substitute")
    assert (r.value, r.scope.pairs) == (0, 0)  # one dataset: the whole pool
