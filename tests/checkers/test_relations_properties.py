"""Relations between answers that must hold on every space (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from exactdp import ChangeDistance, IntegerRange, Multisets, SubMultisets, SymmetricDistance, sensitivity
from exactdp.numeric.decide import compare
from exactdp.queries import mean, median, percentile, std, sum_, variance

QUERIES = st.sampled_from([sum_, mean, median, percentile(90), variance(0), std(0)])


@st.composite
def spaces(draw):
    if draw(st.booleans()):
        top = draw(st.integers(0, 3))
        lo = draw(st.integers(1, 3))
        return Multisets(IntegerRange(-1, top), sizes=(lo, draw(st.integers(lo, 4))))
    pool = draw(st.lists(st.integers(-2, 4), min_size=2, max_size=7))
    lo = draw(st.integers(1, len(pool)))
    return SubMultisets(pool, sizes=(lo, draw(st.integers(lo, len(pool)))))


@settings(max_examples=60, deadline=None)
@given(spaces(), QUERIES, st.sampled_from([SymmetricDistance(), ChangeDistance()]), st.integers(1, 2))
def test_monotone_in_d_in_and_scope_and_exact_k(space, query, metric, d):
    opts = dict(undefined="exclude")
    at_d = sensitivity(query, space, metric, d, **opts).value
    at_next = sensitivity(query, space, metric, d + 1, **opts).value
    assert compare(at_d, at_next) <= 0  # more distance, never less sensitivity
    centred = sensitivity(query, space, metric, d, scope="release-centred", **opts).value
    assert compare(at_d, centred) <= 0  # release-centred pairs include the standard ones
    exact = sensitivity(query, space, metric, d, exact_k=True, **opts).value
    assert compare(exact, at_d) <= 0  # exactly-k pairs are a subset of <= k pairs
