"""Sampler-level models: counts on the uniform grid against brute-force enumeration, the
true epsilon of float randomized response, seed 002's float exponential sampler (a
candidate with probability 0 next door: infinite epsilon) and the porous outputs of a
reduced-precision float Laplace sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.distribution import INFINITY, pure_epsilon
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.models.samplers import (
    float_exponential_cdf,
    float_exponential_sampler_distribution,
    float_laplace_distribution,
    float_laplace_noise,
    float_threshold_rr_distribution,
    grid_sampler_counts,
    grid_sampler_distribution,
)
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import from_float
from exactdp.numeric.floatformat import FloatFormat

TOP = 2**53


def _brute(sample, bits):
    counts: dict = {}
    for k in range(2**bits):
        o = sample(Fraction(k, 2**bits))
        counts[o] = counts.get(o, 0) + 1
    return counts


@pytest.mark.parametrize("cuts", [
    [Fraction(1, 3)], [Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10**6), Fraction(5, 7)],
    [Fraction(0), Fraction(1, 2)], [Fraction(255, 256), Fraction(1)], [Fraction(1, 512)],
])
@pytest.mark.parametrize("bits", [1, 5, 9])
def test_grid_counts_against_enumeration(cuts, bits):
    def sample(u):
        return sum(1 for c in cuts if u >= c)

    outs = list(range(len(cuts) + 1))
    expected = {o: c for o, c in _brute(sample, bits).items()}
    assert grid_sampler_counts(sample, outs, bits) == expected
    d = grid_sampler_distribution(sample, outs, bits)
    assert all(d.p(o) == Fraction(expected.get(o, 0), 2**bits) for o in outs)


def test_a_non_monotone_sampler_is_caught_at_an_interval_end():
    with pytest.raises(InvalidArgument, match="not monotone"):
        grid_sampler_counts(lambda u: 1 if u < Fraction(1, 4) else 0, [0, 1], bits=8)


def test_float_randomized_response_exact_epsilon():
    # a float that is exactly 3/4: the intended epsilon, log 3
    P, Q = float_threshold_rr_distribution(0.75, 0), float_threshold_rr_distribution(0.75, 1)
    assert P.p(0) == Fraction(3, 4) and pure_epsilon(P, Q).value == sympy.log(3)
    # p = e/(1+e) in float64 (meant: epsilon = 1): P(truth) is the float's exact value
    p_float = math.exp(1.0) / (1 + math.exp(1.0))
    p = from_float(p_float)
    P, Q = float_threshold_rr_distribution(p_float, 0), float_threshold_rr_distribution(p_float, 1)
    assert P.p(0) == p == Q.p(1)
    loss = pure_epsilon(P, Q)
    assert loss.value == sympy.log(p.numerator) - sympy.log(p.denominator - p.numerator)
    assert compare(loss.value, 1) != 0  # a rational odds ratio is never e
    if p == Fraction(6584790284608189, 2**53):  # the correctly rounded float of e/(1+e)
        assert compare(loss.value, 1) > 0
        assert compare(loss.value, 1 + Fraction(1, 10**16)) < 0
    # spot check at the threshold: the last grid point below p reports the truth
    k = math.ceil(p * TOP)
    assert Fraction(k - 1, TOP) < p <= Fraction(k, TOP)
    assert P.p(0) == Fraction(k, TOP)


def test_float_randomized_response_model():
    rr = make_mechanism("float-randomized-response", p="0.75")
    assert rr.epsilon(0, 1).value == sympy.log(3)
    # 0.7 is not a float: the stored p is the nearest one, and so is its epsilon
    rr7 = make_mechanism("float-randomized-response", p="0.7")
    p = from_float(0.7)
    assert p != Fraction(7, 10)
    assert rr7.distribution(1).p(1) == math.ceil(p * TOP) / Fraction(TOP)


def test_float_exponential_sampler_gives_a_candidate_probability_zero_next_door():
    # seed 002's sampler, epsilon = 1, sensitivity 1, two candidates
    near = float_exponential_sampler_distribution((0, -73), 1.0, 1.0)
    far = float_exponential_sampler_distribution((0, -74), 1.0, 1.0)
    assert near.p(1) == Fraction(1, TOP)  # the ideal: exp(-36.5)/(1+exp(-36.5)), about 1.4e-16
    assert far.p(1) == 0 and far.p(0) == 1
    loss = pure_epsilon(near, far)
    assert loss.value is INFINITY and loss.output == 1
    # the float cdf, at the grid points either side
    assert float_exponential_cdf((0, -73), 1.0, 1.0)[0] == 1 - Fraction(2, TOP)
    assert float_exponential_cdf((0, -74), 1.0, 1.0)[0] == 1  # 1 + exp(-37) rounds to 1
    # the exact mechanism on the same neighbours: finite, below epsilon
    em = make_mechanism("exponential", epsilon=1, sensitivity=1)
    assert compare(em.epsilon((0, -73), (0, -74)).value, 1) < 0
    m = make_mechanism("exponential-float-sampler", epsilon=1, sensitivity=1)
    assert m.epsilon((0, -73), (0, -74)) == loss


def test_float_exponential_sampler_fallback_to_candidate_zero():
    # the float cdf ends at 1 - 2^-52: u = 1 - 2^-53 meets no cdf >= u, and argmax of an
    # all-False array is candidate 0
    u = (0, -1, -3)
    cdf = float_exponential_cdf(u, 0.1, 1.0)
    assert cdf[-1] == 1 - Fraction(2, TOP)
    d = float_exponential_sampler_distribution(u, 0.1, 1.0)

    def points_at_most(c):  # grid points k/2^53 <= c
        return math.floor(c * TOP) + 1

    assert d.p(0) == Fraction(points_at_most(cdf[0]) + 1, TOP)  # + the fallback point
    assert d.p(1) == Fraction(points_at_most(cdf[1]) - points_at_most(cdf[0]), TOP)
    assert d.p(2) == Fraction(points_at_most(cdf[2]) - points_at_most(cdf[1]), TOP)


def test_float_laplace_porous_outputs_give_infinite_epsilon():
    fmt = FloatFormat.toy(12, -14, 15)
    noise = float_laplace_noise(fmt, 1, 10)
    P = float_laplace_distribution(0, fmt, 1, noise=noise)
    Q = float_laplace_distribution(1, fmt, 1, noise=noise)
    loss = pure_epsilon(P, Q)
    assert loss.value is INFINITY
    o = loss.output
    assert o == Fraction(-1597, 256)
    assert P.p(o) == Fraction(1, 1023) and Q.p(o) == 0
    # the witness is an output reachable from 0 only: no grid point lands there from 1
    assert all(fmt.round(1 + y) != o for y in noise.values())
    assert any(fmt.round(0 + y) == o for y in noise.values())
    m = make_mechanism("float-laplace", scale=1, precision=12, grid_bits=10)
    assert m.epsilon(0, 1) == loss


BAD = [
    (lambda: grid_sampler_counts(lambda u: 0, [0], bits=0), InvalidArgument),
    (lambda: grid_sampler_counts(lambda u: 0, [0], bits=100), TooLarge),
    (lambda: grid_sampler_counts(lambda u: 0, [], bits=4), InvalidArgument),
    (lambda: grid_sampler_counts(lambda u: 0, [0, 0], bits=4), InvalidArgument),
    (lambda: grid_sampler_counts(lambda u: 2, [0, 1], bits=4), InvalidArgument),
    (lambda: float_threshold_rr_distribution(1.5, 0), InvalidArgument),
    (lambda: float_threshold_rr_distribution(0.5, 2), InvalidArgument),
    (lambda: make_mechanism("float-randomized-response", p=0.75), InexactInput),
    (lambda: make_mechanism("float-randomized-response", p="3/2"), InvalidArgument),
    (lambda: make_mechanism("float-randomized-response"), InvalidArgument),
    (lambda: make_mechanism("exponential-float-sampler", epsilon=1).distribution(()), InvalidArgument),
    (lambda: make_mechanism("exponential-float-sampler", epsilon="-1"), InvalidArgument),
    (lambda: make_mechanism("float-laplace", scale=1, precision=8, grid_bits=10).distribution(0),
     InvalidArgument),
    (lambda: make_mechanism("float-laplace", scale=1, grid_bits=20), TooLarge),
]


@pytest.mark.parametrize("call,error", BAD)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()
