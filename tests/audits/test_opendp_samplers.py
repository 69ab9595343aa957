"""OpenDP's float Laplace and Gaussian samplers (make_laplace / make_gaussian on
atom_domain(T=float)) modelled bit for bit from its Rust source (issue 18, part 2): the
input's rounding to a multiple of 2**k (ties up), the float each noisy integer is released
as (ties to even, runs of integers above 2**(53 + k)), each float's exact (Laplace) or
enclosed (Gaussian) probability, the epsilon between rounded inputs, and the two audits."""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction as F

import pytest

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.models.opendp import MIN_K, FloatDiscreteGaussian, FloatDiscreteLaplace

MAX = sys.float_info.max
TINY = 2.0 ** -1074

# -- the model (no OpenDP needed) ------------------------------------------------------------------


@pytest.mark.parametrize("k, x, c", [
    (-2, 0.375, 2), (-2, 0.374, 1), (-2, -0.375, -1), (-2, -0.376, -2),  # ties go up
    (0, 0.5, 1), (0, -0.5, 0), (0, 2.5, 3), (3, 4.0, 1), (3, 3.9999999999999996, 0),
    (MIN_K, TINY, 1), (MIN_K, 1.0, 2 ** 1074), (-1073, 3 * TINY, 2),
    (0, math.inf, int(MAX)), (0, -math.inf, -int(MAX)), (0, 2.0 ** 60, 2 ** 60),
])
def test_round_input_ties_up(k, x, c):
    assert FloatDiscreteLaplace(k, F(1)).round_input(x) == c


def test_rounding_moves_a_float_by_at_most_the_allowance():
    """c * 2**k - x lies in [-(2**(k-1) - 2**-1074), 2**(k-1)]: two inputs move apart by at
    most 2**k - 2**-1074, OpenDP's get_rounding_distance."""
    rng = random.Random(1810)
    for _ in range(400):
        k = rng.choice((MIN_K, -1073, -1030, -60, -2, 0, 5, 40))
        x = rng.choice((rng.uniform(-10, 10), rng.uniform(-1, 1) * 2.0 ** rng.randint(-1074, 60),
                        (rng.randint(-9, 9) + 0.5) * 2.0 ** k))
        K = F(2) ** k
        moved = FloatDiscreteLaplace(k, F(1)).round_input(x) * K - F(x)
        assert moved == 0 if k == MIN_K else -(K / 2 - F(TINY)) <= moved <= K / 2


@pytest.mark.parametrize("y, span", [
    (2.0 ** 51, (2 ** 53, 2 ** 53 + 1)),             # even: takes the tie above (below: spacing 1/4)
    (2.0 ** 51 + 0.5, (2 ** 53 + 2, 2 ** 53 + 2)),   # odd significand: only itself
    (2.0 ** 51 + 1.0, (2 ** 53 + 3, 2 ** 53 + 5)),   # even: both ties
    (2.0 ** 51 - 0.25, (2 ** 53 - 1, 2 ** 53 - 1)),  # below 2**(53 + k): one integer each
    (-1.25, (-5, -5)), (0.0, (0, 0)), (-0.0, None), (0.1, None),
])
def test_preimage_at_k_minus_2(y, span):
    assert FloatDiscreteLaplace(-2, F(1)).preimage(y) == span


def test_output_and_preimage_agree():
    for k in (MIN_K, -2, 0, 970):
        model = FloatDiscreteLaplace(k, F(1))
        for base in (0, 2 ** 53 - 3, -(2 ** 54), 2 ** 60 + 7):
            for n in range(base - 4, base + 5):
                y = model.output(n)
                if math.isinf(y):                    # k = 970: beyond the largest float
                    assert k == 970 and abs(n) > 2 ** 53
                    continue
                lo, hi = model.preimage(y)
                assert lo <= n <= hi and model.output(lo) == model.output(hi) == y
    top = FloatDiscreteLaplace(970, F(1))
    lo, hi = top.preimage(math.inf)
    assert hi is None and top.output(lo) == math.inf and top.output(lo - 1) == MAX
    assert top.preimage(MAX)[1] == lo - 1 and top.preimage(-math.inf) == (None, -lo)


def test_laplace_mass_exact():
    """Below 2**(53 + k) a float is one integer: (1 - q)/(1 + q) q^|n - c|; at 2**51 (k = -2)
    the float 2**51 takes n = c and c + 1: (1 - q)/(1 + q) (1 + q); the tail beyond the
    largest float goes to inf. Exact: numerators over 1 + q, q = exp(-1/4)."""
    from exactdp.mechanisms.models._exppoly import ExpPoly
    lap = FloatDiscreteLaplace(-2, F(1))       # integer scale 4
    one, q = ExpPoly.constant(1), ExpPoly.monomial(F(-1, 4))
    num, den = lap.mass(0.3, 0.5)               # c = 1, n = 2
    assert den == one + q and num == (one - q) * q
    num, den = lap.mass(2.0 ** 51, 2.0 ** 51)
    assert num == (one - q) * (one + q)
    assert lap.mass(0.3, 0.1) is None
    inf_lo = lap.preimage(MAX)[1] + 1
    assert lap.preimage(math.inf)[0] == inf_lo
    assert lap.mass(0.3, math.inf)[0].terms == {F(-(inf_lo - 1), 4): 1}         # q^(inf_lo - 1)


def test_laplace_epsilon_is_the_rounded_distance():
    """The tight case: k = -1073, two floats 2**-1074 apart round 2**-1073 apart, which is
    d_in + OpenDP's whole rounding allowance 2**-1073 - 2**-1074."""
    lap = FloatDiscreteLaplace(-1073, F(1))
    x = -4.450147717014403e-308
    x2 = math.nextafter(x, 0)
    assert F(x2) - F(x) == F(TINY)
    eps, y = lap.epsilon(x, x2)
    assert eps == F(2) ** -1073 == F(TINY) + lap.rounding_distance
    assert lap.preimage(y)[0] >= max(lap.round_input(x), lap.round_input(x2))
    # where integers collapse the witness float moves past the shared run
    eps, y = FloatDiscreteLaplace(-2, F(1)).epsilon(2.0 ** 51 - 0.25, 2.0 ** 51 - 0.5)
    assert eps == F(1, 4) and y == 2.0 ** 51 - 0.25


def test_gaussian_mass_enclosure_and_rho():
    g = FloatDiscreteGaussian(0, F(1))
    import mpmath
    with mpmath.workdps(40):
        Z = mpmath.fsum(mpmath.exp(-mpmath.mpf(m) ** 2 / 2) for m in range(-60, 61))
        p0 = 1 / Z
    p0 = F(mpmath.nstr(p0, 35))                # 1/Z, Z = 2.50662827... (theta function at s = 1)
    lo, hi = g.mass_enclosure(0.3, 0.0)
    assert lo - F(1, 10**30) <= p0 <= hi + F(1, 10**30) and hi - lo < F(1, 10**15)
    # a collapsed float (k = -2 at 2**51) and the tails: enclosures that add up around 1
    g2 = FloatDiscreteGaussian(-2, F(1))
    x = 2.0 ** 51
    c = g2.round_input(x)
    ys = sorted({g2.output(n) for n in range(c - 60, c + 61)})
    total_lo = total_hi = F(0)
    for y in ys:
        lo, hi = g2.mass_enclosure(x, y)
        total_lo, total_hi = total_lo + lo, total_hi + hi
    assert total_lo <= 1 <= total_hi + F(1, 10**40) and total_hi - total_lo < F(1, 10**12)
    assert g2.rho_bound(0.375, 0.374) == F(1, 32)          # (1 / 4)**2 / 2
    assert g2.mass_enclosure(x, 0.1) is None


@pytest.mark.parametrize("kwargs", [
    dict(k=MIN_K - 1, scale=F(1)), dict(k=1.0, scale=F(1)), dict(k=True, scale=F(1)),
    dict(k=0, scale=F(0)), dict(k=0, scale=0.5), dict(k=0, scale=-1),
])
def test_float_model_bad_arguments(kwargs):
    with pytest.raises(InvalidArgument):
        FloatDiscreteLaplace(**kwargs)


@pytest.mark.parametrize("call", [
    lambda m: m.round_input(math.nan), lambda m: m.round_input(1), lambda m: m.preimage(math.nan),
])
def test_float_model_bad_values(call):
    with pytest.raises(InvalidArgument, match="=nan|=1"):
        call(FloatDiscreteLaplace(0, F(1)))


# -- against the installed OpenDP -------------------------------------------------------------------

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import suite_opendp as suite  # noqa: E402
from exactdp.checkers.results import Evidence, Verdict  # noqa: E402

on_016 = pytest.mark.skipif(not od.version().startswith("0.16."),
                            reason="verdicts pinned for OpenDP 0.16")


@pytest.fixture(scope="module")
def contrib():
    with od.features("contrib") as flipped:
        yield flipped


def _make(kind, scale, k):
    make = dp.m.make_laplace if kind == "laplace" else dp.m.make_gaussian
    return make(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale, k=k)


@pytest.mark.parametrize("kind, scale, k, d_in, claim", [
    ("laplace", 1.0, -1073, TINY, F(2) ** -1073),          # d_in + 2**-1073 - 2**-1074
    ("laplace", 1.0, 3, 0.5, F(17, 2)),
    ("laplace", 1.0, None, 1.0, F(1)),                     # k = -1074: no rounding charged
    ("laplace", 1.0, -2, 1.0, F(5, 4)),
    ("gaussian", 1.0, -2, 1.0, F(25, 32)),
])
def test_opendp_maps_match_the_source_formula(contrib, kind, scale, k, d_in, claim):
    assert od.exact(_make(kind, scale, k).map(d_in)) == claim


def test_opendp_draws_land_on_the_model_support(contrib):
    """A consistency check, not evidence: at 2**(53 + k) every draw is a float the model
    releases, and only floats at most 40 integers from c (scale 1 on integers of 1/4) occur."""
    lap, m = FloatDiscreteLaplace(-2, F(1)), _make("laplace", 1.0, -2)
    c = lap.round_input(2.0 ** 51)
    for _ in range(200):
        y = m(2.0 ** 51)
        lo, hi = lap.preimage(y)
        assert c - 40 * 4 <= lo <= hi <= c + 40 * 4


@pytest.fixture(scope="module")
def float_findings(contrib):
    return {kind: suite._float_noise(kind).enforced() for kind in ("laplace", "gaussian")}


@on_016
def test_float_laplace_audit_holds_on_grid(float_findings):
    f = float_findings["laplace"]
    assert (f.verdict, f.evidence, f.replay, f.witness) == (Verdict.HOLDS_ON_GRID, Evidence.BIT_EXACT_GRID, None, None)
    assert f.claim == "56 settings; map(d_in) = inf_cast((d_in + 2**k - 2**-1074) / scale) in every setting"
    assert "6 of 56 settings tight" in f.truth
    assert ("rounding added 2**-1074, 1 of OpenDP's allowance 2**k - 2**-1074, at k=-1073, scale=1.0, "
            "d_in=5e-324, x=-4.450147717014403e-308, x'=-4.4501477170144023e-308") in f.truth
    assert "modelled step by step from OpenDP 0.16.0's code" in f.note and "#2638" in f.note
    assert "CKS20 sampler followed step by step at 14 integer scales: equal to the ideal law at each" in f.note
    assert "consistency check, not evidence: 1000 draws" in f.note


@on_016
def test_float_gaussian_audit_holds_on_grid(float_findings):
    f = float_findings["gaussian"]
    assert (f.verdict, f.evidence, f.replay) == (Verdict.HOLDS_ON_GRID, Evidence.BIT_EXACT_GRID, None)
    assert "CKS20 sampler followed step by step at 14 integer scales: equal to the ideal law at each" in f.note
    assert f.claim.startswith("56 settings; map(d_in) = inf_cast(((d_in + 2**k - 2**-1074) / scale)**2 / 2)")
    assert "rho <= (|c - c'| / (scale 2**-k))**2 / 2" in f.truth and "tight" not in f.truth.split("; rounding")[0]
    assert "strictly below: far integers share floats" in f.scope


def test_float_audits_skip_before_the_sampler_fix():
    """OpenDP before 0.14.2 drew CKS20 noise with a biased division (#2638): the model's
    premise fails there, so the audits do not run."""
    from exactdp.audits.base import version_applies
    audits = {a.id: a for a in suite.audits()}
    for audit_id in ("opendp/laplace/float", "opendp/gaussian/float"):
        assert audits[audit_id].versions == ">=0.14.2"
        assert not version_applies("0.14.1", audits[audit_id].versions)
        assert audits[audit_id].expected("0.16.0") == "holds-on-grid"
