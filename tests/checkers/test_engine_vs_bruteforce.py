"""The engine against an independent, deliberately naive brute force.

The brute force shares nothing with the engine but the query functions: it lists
datasets as sorted tuples with itertools, measures distances with Counter, and
compares every ordered pair. Hypothesis draws small universes, pools, sizes,
relations, scopes and queries; both must give the same exact maximum, and the
engine's witness must be a genuine neighbouring pair attaining it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import sympy
from hypothesis import given, settings, strategies as st

from exactdp.numeric.decide import to_sympy
from exactdp import (
    ChangeDistance, ExactSet, Multisets, SubMultisets, SymmetricDistance, local_sensitivity, sensitivity,
)
from exactdp.queries import (
    clipped, count, histogram, mean, median, percentile, std, sum_, user_query, variance,
)

QUERIES = [
    count, sum_, mean, median, percentile(25), percentile(90, "nearest"),
    percentile("12.5", "midpoint"), percentile(75, "lower"), percentile(60, "higher"),
    variance(0), variance(1), std(0), std(1), clipped(sum_, 0, 2), clipped(mean, -1, 1),
    histogram([-2, 0, 1, 3], "L1"), histogram([-2, 0, 1, 3], "L2"), histogram([-2, 0, 3], "Linf"),
    user_query(lambda xs: xs[-1] - xs[0], name="range", min_size=1),
]


def naive_datasets(universe, caps, lo, hi):
    out = set()
    pool = []
    for v, c in zip(universe, caps):
        pool.extend([v] * c)
    for n in range(lo, hi + 1):
        for combo in itertools.combinations(pool, n):
            out.add(tuple(sorted(combo)))
    return out


def related(x, y, metric, d, exact_k):
    cx, cy = Counter(x), Counter(y)
    removed = sum((cx - cy).values())
    added = sum((cy - cx).values())
    if isinstance(metric, SymmetricDistance):
        if exact_k:
            return (removed == d and added == 0) or (added == d and removed == 0)
        return 0 < removed + added <= d
    if len(x) != len(y):
        return False
    return removed == d if exact_k else 0 < removed <= d


def distance(query, fx, fy):
    if query.output == "vector":
        diffs = [a - b for a, b in zip(fx, fy)]
        if query.norm == "L1":
            return sympy.Rational(sum(abs(t) for t in diffs))
        if query.norm == "Linf":
            return sympy.Rational(max(abs(t) for t in diffs))
        return sympy.sqrt(sympy.Rational(sum(t * t for t in diffs)))
    return sympy.Abs(to_sympy(fx) - to_sympy(fy))


def brute_force(query, universe, caps, sizes, metric, d, exact_k, scope):
    space = naive_datasets(universe, caps, *sizes)
    shift = d if isinstance(metric, SymmetricDistance) else 0
    if scope == "standard":
        ambient = space
    else:
        ambient = naive_datasets(universe, caps, max(0, sizes[0] - shift), sizes[1] + shift)
    best = None
    for x in space:
        if len(x) < query.min_size:
            continue
        fx = query(x)
        for y in ambient:
            if len(y) < query.min_size or not related(x, y, metric, d, exact_k):
                continue
            dist = distance(query, fx, query(y))
            if best is None or (dist - best).is_positive:
                best = dist
    return best


@st.composite
def problems(draw):
    values = draw(st.lists(st.sampled_from([-2, -1, 0, "1/2", 1, 2, 3]), min_size=1, max_size=4, unique=True))
    universe = sorted(Fraction(v) for v in values)
    pooled = draw(st.booleans())
    if pooled:
        caps = [draw(st.integers(1, 3)) for _ in universe]
    else:
        caps = None
    top = sum(caps) if caps else 4
    hi = draw(st.integers(0, min(top, 4)))
    lo = draw(st.integers(0, hi))
    metric = draw(st.sampled_from([SymmetricDistance(), ChangeDistance()]))
    d = draw(st.integers(1, 3))
    exact_k = draw(st.booleans())
    scope = draw(st.sampled_from(["standard", "release-centred"]))
    query = draw(st.sampled_from(QUERIES))
    return universe, caps, (lo, hi), metric, d, exact_k, scope, query


@settings(max_examples=200, deadline=None)
@given(problems())
def test_engine_matches_brute_force(problem):
    universe, caps, sizes, metric, d, exact_k, scope, query = problem
    if caps is None:
        space = Multisets(ExactSet(universe), sizes=sizes)
        naive_caps = [sizes[1] + d] * len(universe)
    else:
        pool = [v for v, c in zip(universe, caps) for _ in range(c)]
        space = SubMultisets(pool, sizes=sizes)
        naive_caps = caps
    result = sensitivity(query, space, metric, d, exact_k=exact_k, scope=scope, undefined="exclude")
    expected = brute_force(query, universe, naive_caps, sizes, metric, d, exact_k, scope)
    got = to_sympy(result.value)
    if expected is None:  # no pair at all
        assert result.witness is None
        assert got == 0
        assert result.scope.pairs == 0
        return
    assert sympy.simplify(got - expected) == 0, (got, expected)
    w = result.witness
    assert w is not None
    assert related(w.x, w.x_prime, metric, d, exact_k)
    assert Counter(w.x) != Counter(w.x_prime)
    assert sympy.simplify(distance(query, query(w.x), query(w.x_prime)) - got) == 0
    assert sizes[0] <= len(w.x) <= sizes[1]
    if scope == "standard":
        assert sizes[0] <= len(w.x_prime) <= sizes[1]


@settings(max_examples=100, deadline=None)
@given(problems(), st.randoms(use_true_random=False))
def test_local_sensitivity_matches_brute_force(problem, rnd):
    universe, caps, sizes, metric, d, exact_k, scope, query = problem
    if caps is None:
        space = Multisets(ExactSet(universe), sizes=sizes)
        naive_caps = [sizes[1] + d] * len(universe)
    else:
        space = SubMultisets([v for v, c in zip(universe, caps) for _ in range(c)], sizes=sizes)
        naive_caps = caps
    candidates = sorted(x for x in naive_datasets(universe, naive_caps, *sizes) if len(x) >= query.min_size)
    if not candidates:
        return
    x = rnd.choice(candidates)
    result = local_sensitivity(query, x, space, metric, d, exact_k=exact_k, scope=scope, undefined="exclude")
    shift = d if isinstance(metric, SymmetricDistance) else 0
    pool = naive_datasets(universe, naive_caps, max(0, sizes[0] - shift), sizes[1] + shift)
    if scope == "standard":
        pool = {y for y in pool if sizes[0] <= len(y) <= sizes[1]}
    fx = query(x)
    dists = [distance(query, fx, query(y)) for y in pool
             if len(y) >= query.min_size and related(x, y, metric, d, exact_k)]
    expected = max(dists, key=lambda t: float(t), default=None)
    got = to_sympy(result.value)
    if expected is None:
        assert got == 0 and result.witness is None
        return
    assert sympy.simplify(got - expected) == 0, (x, got, expected)
    assert result.witness.x == tuple(x)
    assert result.scope.pairs == len(dists)
