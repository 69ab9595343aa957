"""The engine's exact helpers, checked against independent references."""

from __future__ import annotations


import sympy
from hypothesis import given, settings, strategies as st

from exactdp import IntegerRange, Multisets, SubMultisets, SymmetricDistance, ChangeDistance
from exactdp.engine.scan import _cmp_sqrt_sums
from exactdp.engine.tables import Table
from exactdp.queries import mean

ints = st.integers(min_value=0, max_value=10**30)


@settings(max_examples=2000, deadline=None)
@given(ints, ints, ints, ints)
def test_cmp_sqrt_sums_matches_sympy(p1, p2, q1, q2):
    expected = sympy.sign(sympy.sqrt(p1) + sympy.sqrt(p2) - sympy.sqrt(q1) - sympy.sqrt(q2))
    assert _cmp_sqrt_sums(p1, p2, q1, q2) == int(expected)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 10**12), st.integers(0, 10**12), st.integers(1, 10**6))
def test_cmp_sqrt_sums_decides_near_ties(a, b, c):
    # sqrt(a*c^2) + sqrt(b*c^2) == c*(sqrt(a) + sqrt(b)) exactly: a tie, then off by one
    assert _cmp_sqrt_sums(a * c * c, b * c * c, a * c * c, b * c * c) == 0
    assert _cmp_sqrt_sums(a * c * c + 1, b * c * c, a * c * c, b * c * c) == 1
    assert _cmp_sqrt_sums(4 * a, 0, a, a) == 0  # 2 sqrt(a) == sqrt(a) + sqrt(a)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(0, 4), st.integers(1, 3), st.booleans(), st.booleans())
def test_key_arithmetic_finds_exactly_the_related_datasets(m, max_size, d_in, pooled, change):
    """``key + delta`` hits a dataset of the table iff it is the move's neighbour."""
    if pooled:
        space = SubMultisets([v for v in range(m) for _ in range(2)], sizes=(0, min(max_size, 2 * m)))
    else:
        space = Multisets(IntegerRange(0, m - 1), sizes=(0, max_size))
    metric = ChangeDistance() if change else SymmetricDistance()
    table = Table(mean, space, space, d_in, "exclude")
    datasets = list(space)
    keys = {table.key(c): c for c in datasets}
    moves = metric.moves(m, d_in)
    for c in datasets:
        k = table.key(c)
        for removed, added in moves:
            y = list(c)
            for i in removed:
                y[i] -= 1
            for i in added:
                y[i] += 1
            delta = table.deltas([(removed, added)], halve=False)[0]
            hit = keys.get(k + delta)
            genuine = all(v >= 0 for v in y) and space.contains(y)
            assert (hit is not None) == genuine
            if genuine:
                assert hit == tuple(y)
