"""One table of invalid arguments across the public API (valid cases live beside
each module's tests). Every error names the value and says what to do."""

from __future__ import annotations

import pytest

from exactdp import (
    ChangeDistance, ExactSet, InexactInput, IntegerRange, InvalidArgument, Multisets,
    SubMultisets, SymmetricDistance, local_sensitivity, sensitivity, sensitivity_curve,
    verify_claim,
)
from exactdp.queries import clipped, histogram, mean, parse_query, percentile, quantile, sum_, user_query, variance

U = IntegerRange(0, 3)
S = Multisets(U, sizes=(1, 3))

BAD = [
    # (callable, exception, fragment of the message)
    (lambda: IntegerRange(3, 1), InvalidArgument, "upper=1 < lower=3"),
    (lambda: IntegerRange(0.0, 3), InvalidArgument, "lower=0.0 is not an int"),
    (lambda: ExactSet([]), InvalidArgument, "empty"),
    (lambda: ExactSet([0.5]), InexactInput, "0.5 is a float"),
    (lambda: Multisets(U, sizes=(-1, 2)), InvalidArgument, "negative"),
    (lambda: Multisets(U, sizes=(3, 1)), InvalidArgument, "max size=1 < min size=3"),
    (lambda: Multisets(U), InvalidArgument, "no size given"),
    (lambda: Multisets(U, size=2, sizes=(1, 2)), InvalidArgument, "both given"),
    (lambda: Multisets([0, 1], size=2), InvalidArgument, "not a ValueUniverse"),
    (lambda: SubMultisets([], size=0), InvalidArgument, "pool=[] is empty"),
    (lambda: SubMultisets([1, 2], size=3), InvalidArgument, "exceeds the pool"),
    (lambda: sensitivity(mean, S, d_in=-1), InvalidArgument, "d_in=-1 is negative"),
    (lambda: sensitivity(mean, S, d_in=1.0), InvalidArgument, "d_in=1.0 is not an int"),
    (lambda: sensitivity(mean, S, d_in=0, exact_k=True), InvalidArgument, "exact_k"),
    (lambda: sensitivity("mode", S), InvalidArgument, "'mode' is not a known query"),
    (lambda: sensitivity(42, S), InvalidArgument, "not a Query"),
    (lambda: sensitivity(mean, [1, 2]), InvalidArgument, "not a dataset space"),
    (lambda: sensitivity(mean, S, "swap"), InvalidArgument, "not a known relation"),
    (lambda: sensitivity(mean, S, scope="global"), InvalidArgument, "not a scope"),
    (lambda: sensitivity(mean, S, undefined="skip"), InvalidArgument, "not a policy"),
    (lambda: sensitivity(mean, S, undefined=0.5), InexactInput, "undefined=0.5 is a float"),
    (lambda: sensitivity_curve(mean, S, d_ins=[]), InvalidArgument, "empty"),
    (lambda: local_sensitivity(mean, [7], S), InvalidArgument, "not in the universe"),
    (lambda: verify_claim(0.5, mean, S), InexactInput, "claim=0.5 is a float"),
    (lambda: verify_claim("U - L +", mean, S), InvalidArgument, "not a formula"),
    (lambda: verify_claim("open('x')", mean, S), InvalidArgument, "not allowed"),
    (lambda: verify_claim("Q * 2", mean, S), InvalidArgument, "unknown name 'Q'"),
    (lambda: clipped(sum_, 5, 1), InvalidArgument, "Cannot have upper='1' < lower='5'"),
    (lambda: clipped(sum_, 0.1, 1), InexactInput, "lower=0.1 is a float"),
    (lambda: percentile(101), InvalidArgument, "outside [0, 100]"),
    (lambda: percentile(50, "weird"), InvalidArgument, "not a quantile method"),
    (lambda: quantile("3/2"), InvalidArgument, "outside [0, 1]"),
    (lambda: variance(2), InvalidArgument, "ddof=2"),
    (lambda: histogram([1]), InvalidArgument, "at least two edges"),
    (lambda: histogram([2, 1]), InvalidArgument, "increase strictly"),
    (lambda: histogram([0, 1], "L3"), InvalidArgument, "norm='L3'"),
    (lambda: user_query(3), InvalidArgument, "not callable"),
    (lambda: user_query(lambda xs: 0, min_size=-1), InvalidArgument, "min_size=-1"),
    (lambda: sensitivity(user_query(lambda xs: 0.5, name="half"), S), InexactInput, "returned the float 0.5"),
    (lambda: parse_query("percentile"), InvalidArgument, "not a known query"),
    (lambda: ChangeDistance.to_symmetric(-1), InvalidArgument, "negative"),
    (lambda: sensitivity(mean, S, SymmetricDistance(), d_in=True), InvalidArgument, "d_in=True is not an int"),
]


@pytest.mark.parametrize("make, exc, fragment", BAD, ids=[f"case{i}" for i in range(len(BAD))])
def test_invalid_arguments(make, exc, fragment):
    with pytest.raises(exc) as info:
        make()
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)
