"""Issue 20, "seed code modelled": NumPy's Laplace sampler, seed 002's float64 softmax,
Python's decimal contexts and int64 sums, each as a built-in claim with its exact witness."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from exactdp import registry
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.models.numpy_laplace import (
    GRID_POINTS,
    numpy_laplace_count,
    numpy_laplace_noise,
    numpy_laplace_output,
    numpy_laplace_scale,
    numpy_laplace_witness,
)
from exactdp.mechanisms.models.softmax import (
    first_departure,
    numpy_pairwise_sum,
    quantile_scores,
    round_exp,
    seed_softmax,
)
from exactdp.numeric.decimal_context import (
    DecimalContext,
    decimal_chain,
    decimal_mean,
    decimal_quotient,
    decimal_sum,
    decimal_value,
)
from exactdp.numeric.exact import from_float
from exactdp.numeric.fixedwidth import overflow_witness
from exactdp.registry.seed_code import _softmax_family

OUR_IDS = ["s000/laplace-mech/numpy-float64", "s002/softmax/omit-shift", "s000/decimal/0.1+0.2",
           "s000/decimal/arbitrary-precision", "s000/integer-overflow/int64-sum"]


@pytest.fixture(scope="module")
def results():
    return {i: registry.claim(i).check() for i in OUR_IDS}


# -- the claims -----------------------------------------------------------------------

def test_the_claims_are_registered_as_privacy_claims_with_their_expectations(results):
    found = {c.id: c for c in registry.claims("privacy") if c.id in OUR_IDS}
    assert list(found) == OUR_IDS
    assert [found[i].expect for i in OUR_IDS] == ["violated", "violated", "holds-tight", "violated",
                                                  "violated"]
    assert all(found[i].meets_expectation(results[i]) for i in OUR_IDS)
    assert all(results[i].evidence.value == "bit-exact" for i in OUR_IDS)
    assert found["s000/laplace-mech/numpy-float64"].source.endswith("section Clipping")
    assert "Avoiding Sensitivity Underestimation" in found["s000/decimal/0.1+0.2"].source


def test_laplace_mech_witness_is_exact(results):
    r = results["s000/laplace-mech/numpy-float64"]
    w = r.data["witness"]
    assert r.verdict is Verdict.VIOLATED and w["kind"] == "porous"
    assert (w["x"], w["x_prime"], w["scale"], w["draw"]) == ("1000000", "1000080", "8000", 2**20)
    assert w["output_exact"] == "7065687822428379/8589934592" and w["output"] == "822554.321776654"
    assert (w["count_x"], w["count_x_prime"], w["bracket"]) == (1, 0, [1038142, 1038143])
    assert w["neighbour_range"] == ["711730.7728870627", "1293974.4045574167"]
    assert w["libm_agrees"] is True
    edge = r.data["edge"]
    assert (edge["kind"], edge["draw"], edge["output"], edge["count_x_prime"]) == (
        "edge", 1, "711650.7728870627", 0)
    # the neighbour really steps over the output between the two draws of the bracket
    o = Fraction(7065687822428379, 2**33)
    assert numpy_laplace_output(1000080, 1038142, 8000) < o < numpy_laplace_output(1000080, 1038143, 8000)
    assert numpy_laplace_output(1000000, 2**20, 8000) == o


def test_softmax_first_departure_and_first_nan(results):
    r = results["s002/softmax/omit-shift"]
    assert r.verdict is Verdict.VIOLATED
    assert (r.data["first_departure"], r.data["first_nan"], r.data["scanned"]) == (1438, 1493, 1493)
    assert r.data["shifted_departs_at"] == [] and r.data["exp_disagreements"] == []
    assert r.data["at_departure"]["scores"] == ["-719", "-719", "-718"]
    assert r.data["at_departure"]["unshifted"] == ["0.2119415576176371", "0.2119415576176371",
                                                   "0.5761168847647258"]
    assert r.data["at_nan"]["unshifted"] == ["nan", "nan", "nan"]
    assert r.data["at_nan"]["shifted"] == ["0.21194155761708544", "0.21194155761708544",
                                           "0.5761168847658291"]
    # the family is the seed's scorer on one record at 3 and n - 1 at 4
    for n in (1, 2, 7, 1438):
        assert _softmax_family(n) == quantile_scores([3] + [4] * (n - 1), [1, 2, 3])


def test_decimal_claims(results):
    ok = results["s000/decimal/0.1+0.2"]
    assert ok.verdict is Verdict.HOLDS_TIGHT and ok.data["sum"]["decimal"] == "0.3"
    bad = results["s000/decimal/arbitrary-precision"]
    assert bad.verdict is Verdict.VIOLATED
    assert [(w["decimal"], w["exact"], w["error"]) for w in bad.data["witnesses"]] == [
        ("0.9999999999999999999999999999", "1", "-1/10000000000000000000000000000"),
        ("0.3333333333333333333333333333", "1/3", "-1/30000000000000000000000000000"),
        ("0", "1", "-1"),
        ("0.3333333333333333333333333333", "1/3", "-1/30000000000000000000000000000")]
    assert bad.data["true_epsilon"] == "10000000000000000000000000000/3333333333333333333333333333"


def test_int64_claim_against_numpy(results):
    r = results["s000/integer-overflow/int64-sum"]
    w = r.data["witness"]
    assert r.verdict is Verdict.VIOLATED
    assert (w["sum_x"], w["sum_x_prime"], w["exact_x_prime"], w["change"]) == (
        2**62, -2**63, 2**63, 3 * 2**62)
    assert r.data["ages"]["copies"] == 73786976294838206
    np = pytest.importorskip("numpy")
    assert int(np.array([2**62, 2**62], dtype=np.int64).sum()) == -2**63
    assert int(np.array([2**62], dtype=np.int64).sum()) == 2**62


def test_verify_prints_the_claims_and_exits_0(capsys):
    assert main(["verify", "--only", "s000/decimal", "--no-catalogue"]) == 0
    out = capsys.readouterr().out
    assert "HOLDS-TIGHT s000/decimal/0.1+0.2:" in out
    assert "VIOLATED    s000/decimal/arbitrary-precision:" in out
    assert out.rstrip().endswith("2 built-in privacy claims checked: 1 holds-tight, 1 violated; "
                                 "0 departed from what was expected")
    assert main(["verify", "--only", "s000/integer-overflow", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["verdict"], r["evidence"], r["as_expected"]) for r in rows] == [
        ("s000/integer-overflow/int64-sum", "violated", "bit-exact", True)]


# -- NumPy's Laplace sampler ------------------------------------------------------------

@pytest.mark.parametrize("scale", [8000.0, 1.0, 0.3, 123.456])
def test_model_matches_numpy_generator_draw_by_draw(scale):
    np = pytest.importorskip("numpy")
    bg = np.random.PCG64(20260820)
    g = np.random.Generator(bg)
    for _ in range(40):
        state = bg.state
        k = int(bg.random_raw()) >> 11
        bg.state = state
        y = g.laplace(0.0, scale)
        if k == 0:  # rejected and redrawn: not comparable draw by draw
            continue
        assert from_float(float(y)) == numpy_laplace_noise(k, scale)
        assert from_float(float(1e6 + y)) == numpy_laplace_output(10**6, k, scale)


def test_model_matches_legacy_random_state_draw_by_draw():
    np = pytest.importorskip("numpy")
    mt = np.random.MT19937(7)
    rs = np.random.RandomState(mt)
    for _ in range(40):
        state = mt.state
        r1, r2 = (int(v) for v in mt.random_raw(2))
        mt.state = state
        k = (r1 >> 5) * 2**26 + (r2 >> 6)
        y = rs.laplace(loc=0, scale=80 / 0.01)
        if k:
            assert from_float(float(y)) == numpy_laplace_noise(k, 8000)


def test_noise_is_monotone_across_the_seam_and_the_ties():
    ks = [1, 2, 3, 2**52 - 2, 2**52 - 1, 2**52, 2**52 + 1, 2**52 + 2, 2**52 + 3,
          GRID_POINTS - 2, GRID_POINTS - 1, GRID_POINTS]
    ys = [numpy_laplace_noise(k, 1) for k in ks]
    assert ys == sorted(ys) and ys[5] == 0
    # the least noise ln(2^-52); the largest -ln(2^-53): 2.0 - U at the last draw is a tie
    # rounded down to 1.0, so t = 1.0 - U = 2^-53 (the support is not symmetric)
    assert ys[0] == Fraction(math.log(2**-52)) and ys[-1] == -Fraction(math.log(2**-53))
    assert numpy_laplace_noise(1, 8000) == Fraction(8000 * math.log(2**-52)) == Fraction(-619225250138471, 2**31)


def test_counts_are_exact_and_sum_over_a_coarse_output():
    # at x = 2**60 float64 spacing is 256: the 2**52 draws below the median land on few outputs
    x = 2**60
    c0 = numpy_laplace_count(x, x, 1)
    assert c0.count > 2**52 and c0.first < 2**52
    assert numpy_laplace_count(x, x + 256, 1).count + c0.count + numpy_laplace_count(x, x - 256, 1).count \
        == GRID_POINTS
    assert numpy_laplace_count(0, "1/3", 1).count == 0  # not a float: never an output


def test_scale_is_divided_in_float64():
    assert numpy_laplace_scale(80, "0.01") == 8000
    assert numpy_laplace_scale(1, "0.3") == from_float(1 / 0.3)


# -- the softmax ------------------------------------------------------------------------

def test_pairwise_sum_matches_numpy_bit_for_bit():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(3)
    for n in [1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 200, 300, 1000]:
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)
        assert numpy_pairwise_sum(a.tolist()) == float(a.sum())
    assert numpy_pairwise_sum([1.0, 1e16, -1e16]) == 0.0  # left to right below 8 terms
    assert numpy_pairwise_sum([1e16] + [1.0] * 9 + [-1e16]) == 8.0  # eight accumulators


@pytest.mark.parametrize("n", [1437, 1438, 1491, 1493])
def test_seed_softmax_matches_numpy(n):
    np = pytest.importorskip("numpy")
    scores = _softmax_family(n)
    for shift in (True, False):
        s = np.array([float(v) for v in scores])
        if shift:
            s -= s.max()
        with np.errstate(all="ignore"):
            lik = np.exp(1 * s / (2 * 0.5))
            p = lik / lik.sum()
        mine = seed_softmax(scores, 1, "1/2", shift=shift)
        assert [repr(float(v)) for v in p] == [repr(v) for v in mine]


def test_softmax_nan_family_and_sensitivity_one():
    # all records above every candidate: equal scores, no departure before the NaN
    scan = first_departure(lambda n: (-Fraction(n, 2),) * 3, 1, "1/2", n_max=2000)
    assert (scan.first_departure, scan.first_nan) == (1491, 1491)
    assert seed_softmax((-745, -745), 1, "1/2", shift=False) == (0.5, 0.5)  # 5e-324 each
    assert all(p != p for p in seed_softmax(("-745.5", -746), 1, 1, shift=False)) is False
    assert round_exp(-745.0) == 5e-324 and round_exp(-745.5) == 0.0 and round_exp(710.0) == math.inf
    # overflow: inf / inf
    assert all(p != p for p in seed_softmax((800, 800), 2, 1, shift=False))


# -- decimal contexts -------------------------------------------------------------------

def test_a_sum_of_half_values_moves_by_one_in_a_short_context():
    ctx = DecimalContext(3)
    x, x_prime = decimal_sum(["999"], ctx), decimal_sum(["999", "0.5"], ctx)
    assert (x.decimal, x_prime.decimal) == (Decimal("999"), Decimal("1.00E+3"))
    assert Fraction(x_prime.decimal) - Fraction(x.decimal) == 1  # a record of 1/2 moved it by 1
    assert decimal_mean(["1", "2"], DecimalContext(1, "ROUND_DOWN")).decimal == Decimal("1")
    assert decimal_quotient(2, 3, DecimalContext(5, "ROUND_CEILING")).error == Fraction(1, 300000)
    assert decimal_chain("0.1", [("+", "0.2")]).exact_match
    assert decimal_value(Fraction(3, 8)) == Decimal("0.375")


@pytest.mark.parametrize("call, error, message", [
    (lambda: DecimalContext(0), InvalidArgument, r"precision=0 is not a number of significant digits >= 1"),
    (lambda: DecimalContext(10**6), TooLarge, r"precision=1000000 digits is over MAX_DECIMAL_PRECISION=100,000"),
    (lambda: DecimalContext(28, "ROUND_NEAREST"), InvalidArgument, r"rounding='ROUND_NEAREST' is not one of"),
    (lambda: decimal_value(0.1), InexactInput, r"value=0.1 is a float"),
    (lambda: decimal_value("1/3"), InvalidArgument, r"value=1/3 has no finite decimal expansion"),
    (lambda: decimal_chain(1, [("%", 2)]), InvalidArgument, r"ops\[0\]=\('%', 2\) is not a pair"),
    (lambda: decimal_chain(1, [("/", 0)]), InvalidArgument, r"divides by zero"),
    (lambda: decimal_mean([]), InvalidArgument, r"values is empty"),
    (lambda: numpy_laplace_noise(0, 1), InvalidArgument, r"k=0 is not a draw from 1 to 2\*\*53 - 1"),
    (lambda: numpy_laplace_noise(1, 0), InvalidArgument, r"scale=0 is not positive"),
    (lambda: numpy_laplace_witness(1, 1, 1), InvalidArgument, r"are the same float64"),
    (lambda: numpy_laplace_witness(0, 1, 1, kind="middle"), InvalidArgument, r"kind='middle'"),
    (lambda: first_departure(lambda n: (0,), 1, 1, n_max=10**6), TooLarge, r"record counts to scan"),
    (lambda: first_departure(lambda n: (0,), 1, 1, n_max=0), InvalidArgument, r"n_max=0"),
    (lambda: overflow_witness(0), InvalidArgument, r"upper=0 is not a bound from 1"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_overflow_witness_under_saturation_is_none():
    assert overflow_witness(2**62, "int64", "saturate") is None
    w = overflow_witness(100, "int8")
    assert (w.copies, w.sum_x, w.sum_x_prime, w.change) == (1, 100, -56, 156)
