"""OpenDP's CKS20 samplers followed step by step (models_opendp_samplers): each step's law
against an independent computation at exact values, a biased division caught, the
discrete Laplace / Gaussian equal to the ideal ones, and OpenDP's own draws (a loose
frequency check, fixed sample sizes)."""

from __future__ import annotations

import math
import struct
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.models._exppoly import ExpPoly
from exactdp.mechanisms.models.opendp_samplers import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GeometricFastLaw,
    UniformBelow,
    bernoulli_exp,
    bernoulli_exp1_steps,
    bernoulli_float_probability,
    bernoulli_rational,
    dashu_div_by_integer,
    standard_bernoulli,
    verify_discrete_gaussian,
    verify_discrete_laplace,
)

SMALL_SCALES = [Fraction(1), Fraction(3, 2), Fraction(2, 5), Fraction(7, 3), Fraction(5, 4)]


def _value(n: ExpPoly, d: ExpPoly) -> mpmath.mpf:
    with mpmath.workdps(40):
        return mpmath.mpf(str(n.to_sympy().evalf(40))) / mpmath.mpf(str(d.to_sympy().evalf(40)))


# -- bytes, uniform, Bernoulli(n/d) -------------------------------------------------------------

def test_standard_bernoulli_is_a_fair_bit():
    assert standard_bernoulli() == Fraction(1, 2)


def _brute_uniform(upper: int) -> Counter:
    """Every byte string of one draw, read big endian, kept below OpenDP's threshold."""
    n_bytes = (upper.bit_length() + 7) // 8
    top = 256 ** n_bytes - 1
    threshold = top - top % upper
    return Counter(s % upper for s in range(256 ** n_bytes) if s < threshold)


@pytest.mark.parametrize("upper", list(range(1, 256)))
def test_uniform_below_one_byte_counts_every_draw(upper):
    u, brute = UniformBelow(upper), _brute_uniform(upper)
    kept = sum(brute.values())
    assert u.byte_len == 1 and u.threshold == kept and u.is_uniform
    assert all(u.count(v) == brute[v] for v in range(upper))
    assert all(u.probability(v) == Fraction(1, upper) for v in range(upper))
    assert [u.probability_below(n) for n in range(upper + 1)] == [Fraction(n, upper) for n in range(upper + 1)]


@pytest.mark.parametrize("upper", [256, 257, 1000, 40_000, 65_535])
def test_uniform_below_two_bytes_counts_every_draw(upper):
    u, brute = UniformBelow(upper), _brute_uniform(upper)
    assert u.byte_len == 2 and u.is_uniform
    assert {u.count(v) for v in range(upper)} == set(brute.values()) == {u.threshold // upper}


@pytest.mark.parametrize("upper", [2**52, 7656119366529843, 2**64 + 1, 3**200, 2**1074 - 1])
def test_uniform_below_large_uppers_stay_uniform(upper):
    u = UniformBelow(upper)
    assert u.is_uniform and u.threshold == (u.draws - 1) // upper * upper
    assert u.probability(0) == u.probability(upper - 1) == Fraction(1, upper)
    assert u.probability_below(upper // 3) == Fraction(upper // 3, upper)


def test_uniform_below_wastes_draws_but_not_fairness():
    # 128 fits one byte: 255 % 128 = 127, so half of the draws are redrawn
    assert UniformBelow(128).accept == Fraction(1, 2)
    assert UniformBelow(255).accept == Fraction(255, 256)


def test_bernoulli_rational_on_a_grid():
    for d in range(1, 41):
        for n in range(d + 1):
            assert bernoulli_rational(n, d) == Fraction(n, d)


def test_dashu_division_is_exact_on_a_grid():
    for a in range(30):
        for b in range(1, 30):
            if math.gcd(a, b) != 1:
                continue
            for k in range(1, 30):
                n, d = dashu_div_by_integer(a, b, k)
                assert Fraction(n, d) == Fraction(a, b * k)


# -- Bernoulli(exp(-x)) -------------------------------------------------------------------------

@pytest.mark.parametrize("x", [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(1),
                               Fraction(7656119366529843, 2**53)])
def test_exp1_stops_are_the_exponential_series(x):
    s = bernoulli_exp1_steps(x, steps=12)
    for k, p in enumerate(s.stops, start=1):
        assert p == x ** (k - 1) / math.factorial(k - 1) - x ** k / math.factorial(k)
    assert s.looping == x ** 12 / math.factorial(12) and s.mismatch() is None
    with mpmath.workdps(50):
        e = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(s.lower.numerator) / s.lower.denominator <= e
        assert e <= mpmath.mpf(s.upper.numerator) / s.upper.denominator


@pytest.mark.parametrize("x, ones, rest", [(Fraction(0), 0, Fraction(0)), (Fraction(1, 2), 0, Fraction(1, 2)),
                                           (Fraction(1), 0, Fraction(1)), (Fraction(2), 1, Fraction(1)),
                                           (Fraction(7, 3), 2, Fraction(1, 3)), (Fraction(10**6 + 1, 2), 500_000, Fraction(1, 2))])
def test_bernoulli_exp_loop_splits_into_exp1_calls(x, ones, rest):
    law = bernoulli_exp(x)
    assert (law.ones, law.rest) == (ones, rest)
    assert law.value == ExpPoly.monomial(-x)


def test_bernoulli_exp_encloses_exp():
    law = bernoulli_exp(Fraction(5, 2))
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(-5) / 2)
        assert mpmath.mpf(law.lower.numerator) / law.lower.denominator <= e <= mpmath.mpf(law.upper.numerator) / law.upper.denominator


def _division_before_dashu_57(numerator: int, denominator: int, k: int) -> tuple[int, int]:
    """dashu-ratio's ``RBig / UBig`` before cmpute/dashu#57: ``(d / g) * k``, ``d / g``
    truncated (the bias behind OpenDP issue #2638)."""
    g = math.gcd(numerator, k)
    return numerator // g, (denominator // g) * k


def test_a_biased_division_shows_up_in_every_layer():
    # x = 2/3: trial 2 draws Bernoulli(1/2) instead of Bernoulli(1/3)
    s = bernoulli_exp1_steps(Fraction(2, 3), divide=_division_before_dashu_57)
    assert s.mismatch() == 2 and s.trials[1] == Fraction(1, 2)
    assert bernoulli_exp(Fraction(2, 3), divide=_division_before_dashu_57).value is None
    # scale 3/2: 1/scale = 2/3, the acceptance of u = 2 (x = 2/3) is biased
    assert "sample_bernoulli_exp1(2/3)" in GeometricFastLaw(Fraction(2, 3), divide=_division_before_dashu_57).sound()
    lap = verify_discrete_laplace(Fraction(3, 2), divide=_division_before_dashu_57)
    assert not lap.equal and "2/3" in lap.witness
    gau = verify_discrete_gaussian(Fraction(5, 2), divide=_division_before_dashu_57)   # t = 3: x = 1/3 ok; bias
    assert not gau.equal
    # the division OpenDP 0.16 uses: no mismatch
    assert verify_discrete_laplace(Fraction(3, 2)).equal


# -- geometric, Laplace, Gaussian ----------------------------------------------------------------

@pytest.mark.parametrize("x", [Fraction(1, 3), Fraction(2, 5), Fraction(3, 2), Fraction(5, 7), Fraction(2), Fraction(1, 1)])
def test_geometric_fast_term_by_term_equals_closed_form_and_ideal(x):
    g = GeometricFastLaw(x)
    assert g.sound() is None
    for j in range(5):
        summed, closed, ideal = g.probability_enumerated(j), g.probability(j), g.ideal(j)
        assert summed[0] * closed[1] == closed[0] * summed[1]
        assert closed[0] * ideal[1] == ideal[0] * closed[1]


def test_geometric_fast_refuses_large_enumeration():
    with pytest.raises(TooLarge):
        GeometricFastLaw(Fraction(1, 10**6)).probability_enumerated(0)


@pytest.mark.parametrize("scale", SMALL_SCALES)
def test_discrete_laplace_term_by_term_is_the_ideal(scale):
    law = DiscreteLaplaceLaw(scale)
    for z in range(-4, 5):
        n, d = law.probability(z, enumerate_terms=True)
        i_n, i_d = law.ideal(z)
        assert n * i_d == i_n * d
    q = math.exp(-1 / scale)
    assert float(_value(*law.probability(3))) == pytest.approx((1 - q) / (1 + q) * q ** 3, rel=1e-12)


@pytest.mark.parametrize("scale", SMALL_SCALES + [Fraction(1.7), Fraction(0.7) * 2**1073, Fraction(1.0) / 2**3])
def test_verify_discrete_laplace_and_gaussian(scale):
    lap, gau = verify_discrete_laplace(scale, window=6), verify_discrete_gaussian(scale, window=6)
    assert (lap.equal, lap.checked, lap.witness) == (True, 13, None)
    assert (gau.equal, gau.checked, gau.witness) == (True, 13, None)


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(13, 10), Fraction(5, 2)])
def test_discrete_gaussian_weights_are_the_ideal(scale):
    law = DiscreteGaussianLaw(scale)
    assert law.t == math.floor(scale) + 1 and law.linear_coefficient() == 0
    # weight(z) / exp(-z^2/(2 s^2)) is one constant: P(z) = exp(-z^2/(2 s^2)) / Z
    ratios = [_value(*law.weight(z, enumerate_terms=True)) / _value(law.ideal_weight(z), ExpPoly.constant(1))
              for z in range(-4, 5)]
    assert all(abs(r / ratios[0] - 1) < mpmath.mpf(10) ** -30 for r in ratios)
    assert all(law.proportional_to_ideal(z) for z in range(-4, 5))


def test_discrete_gaussian_kept_probability_is_the_code_bias():
    law = DiscreteGaussianLaw(Fraction(13, 10))   # t = 2, sigma2 = 169/100
    assert law.bias(3) == (3 - Fraction(169, 200)) ** 2 / Fraction(169, 50)


# -- sample_bernoulli_float ----------------------------------------------------------------------

def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


@pytest.mark.parametrize("prob", [0.0, 0.5, 0.75, 0.7, 0.1, 1e-300, 2.0**-1022, math.nextafter(1.0, 0.0), 1.0])
def test_bernoulli_float_normal_probabilities_are_exact(prob):
    assert bernoulli_float_probability(prob) == Fraction(prob)


@pytest.mark.parametrize("prob", [5e-324, 2.0**-1023, math.nextafter(2.0**-1022, 0.0), 1e-310])
def test_bernoulli_float_subnormal_probabilities_are_halved(prob):
    assert _bits(prob) >> 52 == 0
    assert bernoulli_float_probability(prob) == Fraction(prob) / 2


# -- arguments -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda: UniformBelow(0), InvalidArgument),
    (lambda: UniformBelow(True), InvalidArgument),
    (lambda: UniformBelow(3).count(3), InvalidArgument),
    (lambda: UniformBelow(3).probability_below(4), InvalidArgument),
    (lambda: bernoulli_rational(4, 3), InvalidArgument),
    (lambda: bernoulli_rational(-1, 3), InvalidArgument),
    (lambda: dashu_div_by_integer(1, 2, 0), InvalidArgument),
    (lambda: bernoulli_exp1_steps(Fraction(3, 2)), InvalidArgument),
    (lambda: bernoulli_exp1_steps(Fraction(1, 2), steps=0), InvalidArgument),
    (lambda: bernoulli_exp(0.5), InexactInput),
    (lambda: bernoulli_exp(Fraction(-1)), InvalidArgument),
    (lambda: GeometricFastLaw(Fraction(0)), InvalidArgument),
    (lambda: GeometricFastLaw(Fraction(1)).probability(-1), InvalidArgument),
    (lambda: DiscreteLaplaceLaw(1.7), InexactInput),
    (lambda: DiscreteGaussianLaw("1"), InvalidArgument),
    (lambda: verify_discrete_laplace(Fraction(1), window=-1), InvalidArgument),
    (lambda: bernoulli_float_probability(1.5), InvalidArgument),
    (lambda: bernoulli_float_probability(Fraction(1, 2)), InvalidArgument),
])
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()


# -- OpenDP's own draws --------------------------------------------------------------------------

DRAWS = 2000
RELEASE_DRAWS = 6000


def _hoeffding(cells: int, draws: int = DRAWS, alarm: float = 1e-9) -> float:
    """Hoeffding's deviation for ``cells`` frequencies at once, false alarm ``alarm``."""
    return math.sqrt(math.log(2 * cells / alarm) / (2 * draws))


def _assert_frequencies(seen: Counter, probs: dict, draws: int = DRAWS) -> None:
    t = _hoeffding(len(probs), draws)
    for y, p in probs.items():
        assert abs(seen[y] / draws - p) <= t, (y, seen[y] / draws, p, t)


@pytest.fixture(scope="module")
def opendp():
    dp = pytest.importorskip("opendp.prelude")
    from exactdp.adapters import opendp as od
    with od.features("contrib"):
        yield dp


def test_opendp_integer_laplace_draws_match_the_model(opendp):
    dp = opendp
    m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.5)
    seen = Counter(m(0) for _ in range(DRAWS))
    law = DiscreteLaplaceLaw(Fraction(1.5))
    _assert_frequencies(seen, {z: float(_value(*law.probability(z))) for z in range(-4, 5)})


def test_opendp_integer_gaussian_draws_match_the_model(opendp):
    dp = opendp
    m = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.3)
    seen = Counter(m(0) for _ in range(DRAWS))
    law = DiscreteGaussianLaw(Fraction(1.3))
    weights = {z: _value(*law.weight(z)) for z in range(-12, 13)}   # beyond 12: below 1e-18
    total = sum(weights.values())
    _assert_frequencies(seen, {z: float(w / total) for z, w in weights.items() if abs(z) <= 4})


def test_opendp_float_release_rounds_once(opendp):
    """make_laplace on floats at k = -60, x = 1.0, integer scale 200: the noisy integer
    n = 2**60 + Z is released as n * 2**-60 rounded to a float. Rounded once (ties to even),
    1 + 2**-52 takes Z in [129, 383]; dashu-ratio 0.4's RBig::to_f64 rounded twice and gave
    it Z in [192, 320] only (about half the mass): OpenDP 0.16.0 rounds once, as
    models_opendp.FloatDiscreteLaplace assumes."""
    from exactdp.mechanisms.models.opendp import FloatDiscreteLaplace
    dp = opendp
    k = -60
    m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                          scale=200 * 2.0**k, k=k)
    model = FloatDiscreteLaplace(k, Fraction(200 * 2.0**k))
    assert model.preimage(1.0 + 2**-52) == (2**60 + 129, 2**60 + 383)
    assert DiscreteLaplaceLaw(Fraction(200)).matches_ideal(129)
    q = mpmath.exp(mpmath.mpf(-1) / 200)

    def mass(a, b):   # the discrete Laplace at integer scale 200 (the law above), summed
        return float((1 - q) / (1 + q) * (q ** a - q ** (b + 1)) / (1 - q))
    once, twice = mass(129, 383), mass(192, 320)
    assert once - twice > 2 * _hoeffding(1, RELEASE_DRAWS)    # the check tells them apart
    seen = Counter(m(1.0) for _ in range(RELEASE_DRAWS))
    _assert_frequencies(seen, {1.0 + 2**-52: once}, RELEASE_DRAWS)
