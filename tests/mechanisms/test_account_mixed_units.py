"""Lists whose losses share no usable unit (issue 27, item 4): randomized response given by p
beside a discrete Laplace, float epsilons at their exact values. They were refused
("incommensurable losses", or ~10^17 lattice points); they are composed on one certified loss
grid, and the enclosure holds the true epsilon computed here independently."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest

from exactdp.errors import TooLarge
from exactdp.mechanisms.accounting.accountant import account


def _binary_pair(eps) -> list:
    """The privacy loss of a pair with two outputs at ``+-eps`` (randomized response with two
    values; the discrete Laplace at sensitivity 1, eps = 1/scale): ``[(loss, P-mass)]``."""
    e = mpmath.exp(eps)
    return [(eps, e / (1 + e)), (-eps, 1 / (1 + e))]


def _epsilon(parts: list, k: int, delta) -> mpmath.mpf:
    """epsilon(delta) of ``parts`` (loss distributions) composed ``k`` times: delta(eps) =
    E_P[(1 - e^(eps - L))_+] summed over every outcome, solved by bisection (60 digits)."""
    with mpmath.workdps(60):
        dist = {mpmath.mpf(0): mpmath.mpf(1)}
        for _ in range(k):
            for part in parts:
                new: dict = {}
                for (l1, p1), (l2, p2) in product(dist.items(), part):
                    key = l1 + l2
                    new[key] = new.get(key, 0) + p1 * p2
                dist = new

        def d(eps):
            return sum(p * (1 - mpmath.exp(eps - l)) for l, p in dist.items() if l > eps)

        lo, hi = mpmath.mpf(0), max(dist)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
        return hi


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def test_randomized_response_by_p_beside_a_discrete_laplace():
    got = account([("randomized-response", {"p": "3/4"}), ("discrete-laplace", {"scale": 10})], 10, delta="1e-6")
    with mpmath.workdps(60):
        truth = _epsilon([_binary_pair(mpmath.log(3)), _binary_pair(mpmath.mpf(1) / 10)], 10, mpmath.mpf(10) ** -6)
    assert got.width_met and _mp(got.lower) <= truth <= _mp(got.upper)
    assert "loss grid" in got.notes


def test_float_epsilons_at_their_exact_values():
    e1, e2 = Fraction(0.1), Fraction(0.3)  # what a library spends: 0x1.999999999999ap-4, ...
    with pytest.raises(TooLarge):  # the exact lattice: a unit of 2**-55, about 10^17 points
        account([("randomized-response", {"epsilon": e1}), ("randomized-response", {"epsilon": e2})], 10,
                delta="1e-6", max_slots=100_000)
    got = account([("randomized-response", {"epsilon": e1}), ("randomized-response", {"epsilon": e2})], 10,
                  delta="1e-6")
    truth = _epsilon([_binary_pair(_mp(e1)), _binary_pair(_mp(e2))], 10, mpmath.mpf(10) ** -6)
    assert got.width_met and _mp(got.lower) <= truth <= _mp(got.upper)
