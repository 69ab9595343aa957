"""Certified Rényi DP (exactdp.mechanisms.accounting.rdp): exact values, independent 50- and 60-digit
references (binomial sums, quadrature of both directions, explicit pair sums), dp_accounting,
the conversions, the command line and bad input."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.cli import main
from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.accounting.accountant import account
from exactdp.mechanisms.accounting.curve import PrivacyCurve
from exactdp.mechanisms.accounting.rdp import DEFAULT_ORDERS, _shorten, _subsampled_at, parse_orders, rdp
from exactdp.mechanisms.accounting.zcdp import cks_epsilon_at

DPSGD = {"sigma": 1, "sampling": "poisson", "rate": "0.01"}


def mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def exact(v) -> Fraction:
    """The exact binary value of an mpmath number (compared as a Fraction: no rounding)."""
    if not isinstance(v, mpmath.mpf):
        with mpmath.workdps(80):
            v = mpmath.mpf(v)
    man, e = int(v.man), int(v.exp)
    return Fraction(man * 2**e) if e >= 0 else Fraction(man, 2**-e)


def inside(lo: Fraction, value, hi: Fraction) -> bool:
    return lo <= exact(value) <= hi


def binomial_sum_rdp(q: Fraction, mu2: Fraction, alpha: int, dps: int):
    """log(A_alpha)/(alpha - 1) from the binomial expansion, in mpmath at ``dps`` digits."""
    with mpmath.workdps(dps + 10):
        qq, m2 = mp(q), mp(mu2)
        a = mpmath.fsum(mpmath.binomial(alpha, j) * (1 - qq) ** (alpha - j) * qq**j * mpmath.exp((j * j - j) * m2 / 2)
                        for j in range(alpha + 1))
        return mpmath.log(a) / (alpha - 1)


# --- exact values -------------------------------------------------------------------------


def test_gaussian_is_alpha_over_two_sigma_squared_exactly():
    r = rdp("gaussian", 1, params={"sigma": 3}, orders=[2, "5/2", 64])
    assert r.orders == (2, Fraction(5, 2), 64)
    assert r.lower == r.upper == (Fraction(2, 18), Fraction(5, 36), Fraction(64, 18))
    assert r.rho == Fraction(1, 18)
    s = rdp("gaussian", 4, params={"sigma": "1/2", "sensitivity": 3}, orders=[3])
    assert s.lower == s.upper == (4 * 3 * Fraction(36) / 2,) and s.rho == 4 * Fraction(36, 2)


def test_subsampled_at_rate_one_is_the_gaussian():
    # the binomial sum at q = 1 keeps only j = alpha: exp((alpha^2 - alpha) mu^2/2)
    for alpha, mu2 in ((2, Fraction(1)), (7, Fraction(1, 9)), (64, Fraction(4))):
        lo, hi = _subsampled_at(Fraction(1), mu2)(Fraction(alpha))
        assert lo <= alpha * mu2 / 2 <= hi and hi - lo < Fraction(1, 2**64) * hi
    # and rate=1 on the command surface is the plain Gaussian, exactly
    r = rdp("gaussian", 1, params={"sigma": 2, "sampling": "poisson", "rate": 1}, orders=[5])
    assert r.lower == r.upper == (Fraction(5, 8),)


def test_discrete_gaussian_integer_orders_exact_and_against_a_sum():
    r = rdp("discrete-gaussian", 1, params={"sigma": 2, "sensitivity": 2}, orders=[2, 3])
    assert r.lower == r.upper == (Fraction(2 * 4, 8), Fraction(3 * 4, 8)) and r.rho == Fraction(1, 2)
    with mpmath.workdps(50):  # sum_z P^alpha Q^(1 - alpha) over z in [-200, 200] (the rest is < 1e-1000)
        c = mpmath.mpf(1) / 8
        z_range = range(-200, 201)
        norm = mpmath.fsum(mpmath.exp(-c * z * z) for z in z_range)
        for alpha, want in ((2, r.upper[0]), (3, r.upper[1])):
            s = mpmath.fsum(mpmath.exp(-c * (alpha * z * z + (1 - alpha) * (z - 2) ** 2)) for z in z_range) / norm
            assert abs(mpmath.log(s) / (alpha - 1) - mp(want)) < mpmath.mpf(10) ** -45


def discrete_laplace_reference(t: Fraction, d: int, alpha: Fraction, dps: int = 60):
    """The explicit sum over the outputs x <= 0, 0 < x < d, x >= d of P (P/Q)^(alpha - 1)."""
    with mpmath.workdps(dps):
        r = mpmath.exp(-1 / mp(t))
        b = mp(alpha) - 1
        s = (mpmath.exp(b * d / mp(t)) + r**d * mpmath.exp(-b * d / mp(t))) / (1 + r)
        s += mpmath.fsum((1 - r) / (1 + r) * r**z * mpmath.exp(b * (d - 2 * z) / mp(t)) for z in range(1, d))
        return mpmath.log(s) / b


def randomized_response_reference(p: Fraction, k: int, alpha: Fraction, dps: int = 60):
    with mpmath.workdps(dps):
        o = (1 - mp(p)) / (k - 1)
        P = [mp(p), o] + [o] * (k - 2)
        Q = [o, mp(p)] + [o] * (k - 2)
        a = mp(alpha)
        return mpmath.log(mpmath.fsum(x**a * y ** (1 - a) for x, y in zip(P, Q))) / (a - 1)


def test_discrete_laplace_and_randomized_response_against_explicit_sums():
    r = rdp("discrete-laplace", 1, params={"scale": 10, "sensitivity": 3}, orders=[2, "5/2", 10])
    for a, lo, hi in zip(r.orders, r.lower, r.upper):
        assert inside(lo, discrete_laplace_reference(Fraction(10), 3, a), hi)
    assert r.rho is None
    r = rdp("randomized-response", 1, params={"p": "3/4", "k_values": 3}, orders=["3/2", 4])
    for a, lo, hi in zip(r.orders, r.lower, r.upper):
        assert inside(lo, randomized_response_reference(Fraction(3, 4), 3, a), hi)


def test_pure_epsilon_mechanism_gets_the_randomized_response_bound():
    # Bun & Steinke: log((e^(2 eps) + e^(-eps))/(1 + e^eps)) at order 2, eps = 1
    r = rdp("permute-and-flip", 1, params={"epsilon": 1}, orders=[2, 8])
    with mpmath.workdps(60):
        e = mpmath.e
        want = mpmath.log((e**2 + e**-1) / (1 + e))
        assert inside(r.lower[0], want, r.upper[0])
    assert r.upper_only and "sound, not tight" in r.notes and r.rho is None
    # never above min(eps, alpha eps^2 / 2)
    assert r.upper[0] <= 1 and r.upper[1] <= 1


def test_composition_adds_with_times_and_k():
    one = rdp([("gaussian", {"sigma": 2, "times": 3}), ("discrete-laplace", {"scale": 10})], 1, orders=[2, 4])
    five = rdp([("gaussian", {"sigma": 2, "times": 3}), ("discrete-laplace", {"scale": 10})], 5, orders=[2, 4])
    dl = rdp("discrete-laplace", 1, params={"scale": 10}, orders=[2, 4])
    for i, a in enumerate((2, 4)):
        assert one.lower[i] == 3 * Fraction(a, 8) + dl.lower[i] and one.upper[i] == 3 * Fraction(a, 8) + dl.upper[i]
        assert five.lower[i] == 5 * one.lower[i] and five.upper[i] == 5 * one.upper[i]
    assert one.mechanisms[0] == ("gaussian", {"sigma": "2", "sensitivity": "1", "times": "3"})


# --- the subsampled Gaussian against independent references -------------------------------


@pytest.mark.parametrize("q, sigma, orders", [
    (Fraction(1, 100), Fraction(1), (2, 8, 32, 256)),
    (Fraction(1, 1000), Fraction(4, 5), (2, 3, 64)),
    (Fraction(1, 2**8), Fraction(4, 5), (2, 16, 1024)),
])
def test_subsampled_against_a_50_digit_binomial_sum(q, sigma, orders):
    r = rdp("gaussian", 1, params={"sigma": sigma, "sampling": "poisson", "rate": q}, orders=orders)
    for a, lo, hi in zip(r.orders, r.lower, r.upper):
        assert inside(lo, binomial_sum_rdp(q, 1 / sigma**2, int(a), 50), hi)
        assert hi - lo <= Fraction(1, 2**64) * hi


def quadrature_both_directions(q: Fraction, mu: Fraction, alpha: int):
    """D_alpha(mixture || N(0,1)) (remove) and D_alpha(N(0,1) || mixture) (add), by 50-digit
    quadrature of the densities' ratio, independent of the binomial expansion."""
    with mpmath.workdps(50):
        qq, m = mp(q), mp(mu)

        def phi(x):
            return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)

        def ratio(x):  # mixture / N(0, 1)
            return 1 - qq + qq * mpmath.exp(m * x - m * m / 2)

        cuts = [-mpmath.inf, -10, 0, m, 10 + alpha * m, mpmath.inf]
        remove = mpmath.quad(lambda x: phi(x) * (ratio(x) ** alpha - 1), cuts)
        add = mpmath.quad(lambda x: phi(x) * (ratio(x) ** (1 - alpha) - 1), cuts)
        return mpmath.log1p(remove) / (alpha - 1), mpmath.log1p(add) / (alpha - 1)


def test_subsampled_contains_the_max_of_both_directions_by_quadrature():
    r = rdp("gaussian", 1, params=DPSGD, orders=[2, 8])
    for a, lo, hi in zip(r.orders, r.lower, r.upper):
        remove, add = quadrature_both_directions(Fraction(1, 100), Fraction(1), int(a))
        assert add < remove  # Mironov, Talwar and Zhang: the remove direction is the larger
        assert inside(lo, max(remove, add), hi)


def test_dp_accounting_rdp_inside_or_within_float_rounding():
    rdp_accountant = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    orders = [a for a in DEFAULT_ORDERS]
    outside = []
    for q, sigma in ((Fraction(1, 100), 1), (Fraction(1, 2**8), Fraction(4, 5))):
        r = rdp("gaussian", 1, params={"sigma": sigma, "sampling": "poisson", "rate": q}, orders=orders)
        theirs = rdp_accountant._compute_rdp_poisson_subsampled_gaussian(float(q), float(sigma),
                                                                          [float(a) for a in orders])
        for a, lo, hi, x in zip(orders, r.lower, r.upper, theirs):
            x = Fraction(float(x))
            if not lo <= x <= hi:
                outside.append((float(q), float(sigma), int(a), float((x - hi if x > hi else lo - x) / hi)))
    # dp_accounting works in float64: its values miss the (2**-64-wide) enclosures by rounding
    # only; the report lists how far
    assert all(rel < 1e-12 for *_, rel in outside), outside


# --- conversions ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dpsgd_k10():
    return account("gaussian", 10, delta="1e-6", params=DPSGD), rdp("gaussian", 10, params=DPSGD)


def test_rdp_epsilon_is_above_the_certified_lower_end(dpsgd_k10):
    pld, curve = dpsgd_k10
    cks, mironov = curve.epsilon("1e-6"), curve.epsilon("1e-6", method="mironov")
    assert cks.epsilon_upper >= pld.epsilon_lower and cks.epsilon_upper > pld.epsilon_upper
    assert mironov.epsilon_upper > cks.epsilon_upper
    assert cks.epsilon_lower <= cks.epsilon_upper < cks.epsilon_lower * (1 + Fraction(1, 10**15))
    assert cks.order in curve.orders and cks.method == "cks"
    assert cks.to_dict()["scope"].startswith("a sound upper bound")


def test_cks_conversion_matches_dp_accounting_at_k_1000():
    rdp_accountant = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    r = rdp("gaussian", 1000, params=DPSGD)
    ours = r.epsilon("1e-6")
    floats = [float(a) for a in r.orders]
    theirs_rdp = 1000 * rdp_accountant._compute_rdp_poisson_subsampled_gaussian(0.01, 1.0, floats)
    theirs, order = rdp_accountant.compute_epsilon(floats, theirs_rdp, 1e-6)
    assert order == ours.order == 8
    assert abs(Fraction(theirs) - ours.epsilon_upper) < Fraction(1, 10**12)
    assert float(ours.epsilon_upper) == pytest.approx(2.4366938030221433, rel=1e-15)


def test_conversion_on_the_gaussian_agrees_with_the_zcdp_cks_bound():
    r = rdp("gaussian", 1, params={"sigma": 2}, orders=[7])
    c = r.epsilon("1e-6")
    z = cks_epsilon_at(Fraction(1, 8), "1e-6", 7).exact
    assert c.epsilon_lower <= z[1] and z[0] <= c.epsilon_upper  # the same formula, both enclosed
    m = r.epsilon("1e-6", method="mironov")
    with mpmath.workdps(60):
        want = mpmath.mpf(7) / 8 + mpmath.log(10**6) / 6
        assert inside(m.epsilon_lower, want, m.epsilon_upper)


def test_conversion_clamps_at_zero():
    c = rdp("gaussian", 1, params={"sigma": 1000}, orders=[2]).epsilon("0.9")
    assert c.epsilon_lower == c.epsilon_upper == 0


@settings(max_examples=200, deadline=None)
@given(q=st.fractions(min_value=Fraction(1, 10**4), max_value=Fraction(9999, 10**4), max_denominator=10**4),
       sigma=st.sampled_from([Fraction(1, 2), Fraction(4, 5), Fraction(1), Fraction(3, 2), Fraction(5)]),
       alpha=st.integers(2, 64), k=st.integers(1, 1000))
def test_property_subsampled_enclosure_contains_a_60_digit_value(q, sigma, alpha, k):
    r = rdp("gaussian", k, params={"sigma": sigma, "sampling": "poisson", "rate": q}, orders=[alpha])
    with mpmath.workdps(70):
        want = k * binomial_sum_rdp(q, 1 / sigma**2, alpha, 60)
    assert inside(r.lower[0], want, r.upper[0])
    c = r.epsilon("1e-6")
    with mpmath.workdps(60):
        a = mpmath.mpf(alpha)
        eps = want + mpmath.log1p(-1 / a) - (mpmath.log(mpmath.mpf(10) ** -6) + mpmath.log(a)) / (a - 1)
        assert inside(c.epsilon_lower, max(eps, 0), c.epsilon_upper)


@settings(max_examples=50, deadline=None)
@given(t=st.fractions(min_value=Fraction(1, 10), max_value=100, max_denominator=100), d=st.integers(1, 6),
       alpha=st.fractions(min_value=Fraction(11, 10), max_value=40, max_denominator=10))
def test_property_discrete_laplace_contains_a_60_digit_value(t, d, alpha):
    r = rdp("discrete-laplace", 1, params={"scale": t, "sensitivity": d}, orders=[alpha])
    assert inside(r.lower[0], discrete_laplace_reference(t, d, alpha), r.upper[0])


@settings(max_examples=500, deadline=None)
@given(x=st.fractions(max_denominator=2**200) | st.integers(-(2**300), 2**300).map(Fraction))
def test_property_shorten_rounds_outward(x):
    down, up = _shorten(x, up=False), _shorten(x, up=True)
    assert down <= x <= up
    assert up - down <= abs(x) / 2**94


# --- the object, the command line, JSON ------------------------------------------------------


def test_privacy_curve_methods():
    curve = PrivacyCurve("gaussian", 10, params=DPSGD)
    direct = rdp("gaussian", 10, params=DPSGD, orders="2..16")
    assert curve.rdp("2..16") == direct
    assert curve.epsilon_from_rdp("1e-6", "2..16") == direct.epsilon("1e-6")
    assert curve.queries == 0  # the RDP view composes nothing on the lattice


def test_parse_orders():
    assert parse_orders("2..4, 8,2.5") == (2, Fraction(5, 2), 3, 4, 8)
    assert parse_orders([3, "2", Fraction(7, 2), 3]) == (2, 3, Fraction(7, 2))
    assert len(DEFAULT_ORDERS) == 67 and DEFAULT_ORDERS[0] == 2 and DEFAULT_ORDERS[-1] == 1024


def test_to_dict_rounds_outward():
    r = rdp("discrete-laplace", 2, params={"scale": 10}, orders=[2])
    d = r.to_dict()
    assert d["mechanism"] == "discrete-laplace" and d["k"] == 2
    [row] = d["rdp"]
    assert row["order"] == "2" and Fraction(row["lower"]) <= r.lower[0] <= r.upper[0] <= Fraction(row["upper"])


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


DPSGD_ARGS = ["account", "--mechanism", "gaussian", "--param", "sigma=1", "--param", "sampling=poisson",
              "--param", "rate=0.01"]


def test_cli_rdp_text_and_json(capsys):
    code, out, err = run(DPSGD_ARGS + ["--k", "1000", "--delta", "1e-6", "--rdp", "2..64"], capsys)
    assert code == 0 and err == ""
    assert "order      8: [" in out
    assert "epsilon at most 2.4366938030221433 at order 8" in out
    assert "(Mironov 2017)" in out
    code, out, _ = run(DPSGD_ARGS + ["--k", "10", "--delta", "1e-6", "--rdp", "2,4,8", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and [row["order"] for row in d["rdp"]] == ["2", "4", "8"]
    assert [c["method"] for c in d["epsilon_from_rdp"]] == ["cks", "mironov"]
    code, out, _ = run(["account", "--mechanism", "gaussian", "--param", "sigma=2", "--rdp", "2"], capsys)
    assert code == 0 and "order      2: [1/4" not in out and "[0.25, 0.25]" in out and "rho = 1/8 exactly" in out


@pytest.mark.parametrize("extra, message", [
    (["--mechanism", "discrete-gaussian", "--param", "sigma=1", "--rdp", "2.5"], "at integer orders"),
    (["--rdp", "1"], "alpha='1' is not > 1"),
    (["--rdp", "2..8", "--epsilon", "1"], "--epsilon='1' does not go with --rdp"),
    (["--rdp", "2..8", "--delta", "1e-6", "--check", "3"], "--check='3' does not go with --rdp"),
    (["--rdp", "2,20000"], "over max_order=10,000"),
    (["--rdp", "8..2"], "is not a range A..B"),
])
def test_cli_rdp_bad_input(extra, message, capsys):
    code, out, err = run(DPSGD_ARGS + extra, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


# --- bad input -------------------------------------------------------------------------------

BAD = [
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[1]), InvalidArgument, "alpha=1 is not > 1"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=["1/2"]), InvalidArgument, "alpha='1/2' is not > 1"),
    (dict(mechanisms="discrete-gaussian", params={"sigma": 1}, orders=["5/2"]), InvalidArgument,
     "alpha=5/2: the discrete Gaussian's RDP is exact"),
    (dict(mechanisms="gaussian", params={**DPSGD, "rate": 0}, orders=[2]), InvalidArgument, "is outside (0, 1]"),
    (dict(mechanisms="gaussian", params={**DPSGD, "rate": "3/2"}, orders=[2]), InvalidArgument, "is outside (0, 1]"),
    (dict(mechanisms="gaussian", params={"sigma": 0}, orders=[2]), InvalidArgument, "sigma"),
    (dict(mechanisms="gaussian", params={"sigma": -1}, orders=[2]), InvalidArgument, "sigma"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[]), InvalidArgument, "orders=[] is empty"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[2.5]), InexactInput, "is a float"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[20_000]), TooLarge, "over max_order=10,000"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders="2..5000"), InvalidArgument, "more than 1,000"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[2], k=0), InvalidArgument, "k=0 is not at least 1"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[2], k=10**8), TooLarge, "max_k"),
    (dict(mechanisms=[], orders=[2]), InvalidArgument, "mechanisms=[] is empty"),
    (dict(mechanisms="gaussian", params={"sigma": 1}, orders=[2], max_order=-5), InvalidArgument,
     "max_order=-5 is not a whole number >= 2"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD)
def test_bad_arguments(kwargs, error, message):
    kwargs = dict(kwargs)
    mechanisms = kwargs.pop("mechanisms")
    with pytest.raises(error) as e:
        rdp(mechanisms, **kwargs)
    assert message in str(e.value)


@pytest.mark.parametrize("delta, method, message", [
    ("0", "cks", "is not strictly between 0 and 1"),
    ("1", "cks", "is not strictly between 0 and 1"),
    ("1e-6", "pld", "method='pld' is not one of"),
])
def test_bad_conversion_arguments(delta, method, message):
    with pytest.raises(InvalidArgument, match=None) as e:
        rdp("gaussian", params={"sigma": 1}, orders=[2]).epsilon(delta, method=method)
    assert message in str(e.value)


def test_fractional_orders_of_the_subsampled_gaussian_are_enclosed_by_the_integers_around():
    """Issue 27, item 7: a fractional order of DP-SGD's RDP is enclosed from the exact integer
    orders either side (monotone in the order; (alpha - 1) D convex); the enclosure holds
    dp_accounting's own (float) computation at that order, and the exact integers are unchanged."""
    r = rdp("gaussian", 100, params=DPSGD, orders=[2, "5/2", 3, "9/2", 5])
    lo, hi = dict(zip(r.orders, r.lower)), dict(zip(r.orders, r.upper))
    two, three, five = Fraction(2), Fraction(3), Fraction(5)
    close = Fraction(1, 10**12)  # the integer orders' enclosures, each rounded on its own
    assert abs(lo[two] - hi[two]) <= close * hi[two] and abs(lo[three] - hi[three]) <= close * hi[three]
    assert abs(lo[Fraction(5, 2)] - lo[two]) <= close * lo[two]
    assert abs(hi[Fraction(5, 2)] - (hi[two] + 2 * hi[three]) / 3) <= close * hi[three]
    four_alone = rdp("gaussian", 100, params=DPSGD, orders=[4])
    assert abs(lo[Fraction(9, 2)] - four_alone.lower[0]) <= close * four_alone.lower[0]
    assert lo[Fraction(9, 2)] < hi[Fraction(9, 2)] < hi[five]
    pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as R

    q, sigma = float(Fraction(DPSGD["rate"])), float(DPSGD["sigma"])
    for order in (2.5, 4.5):
        theirs = 100 * R._compute_rdp_poisson_subsampled_gaussian(q, sigma, [order])[0]
        assert lo[Fraction(order)] * (1 - Fraction(1, 10**9)) <= Fraction(theirs) <= hi[Fraction(order)]
