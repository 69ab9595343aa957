"""The python-dp adapter and audit suite, against the installed python-dp (1.1.5)."""

from __future__ import annotations

from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("pydp")

from exactdp.adapters import python_dp as A
from exactdp.audits import runner
from exactdp.audits import suite_python_dp as S
from exactdp.errors import InvalidArgument

ON_115 = metadata.version("python-dp") == "1.1.5"
needs_115 = pytest.mark.skipif(not ON_115, reason="verdicts and witnesses pinned on python-dp 1.1.5")

WITNESS_X = [0.5] + [1.3877787807814457e-16] * 5
WITNESS_XP = [1.0] + WITNESS_X


def _audit(suffix: str):
    (a,) = [a for a in S.audits() if a.id == f"python-dp/{suffix}"]
    return a


# --- the adapter ------------------------------------------------------------------------


def test_state_reads_the_librarys_own_sums_and_counts():
    assert A.state("BoundedSum", [0.1, 0.2, 0.3], epsilon=1.0, lower_bound=0.0, upper_bound=1.0,
                   dtype="float") == {"sum": Fraction(1351079888211149, 2251799813685248)}  # 0.6000000000000001
    assert A.state("BoundedSum", [-5, 2, 9], epsilon=1.0, lower_bound=-2, upper_bound=3, dtype="int") == {"sum": 3}
    assert A.state("Count", [1, 2, 3], epsilon=1.0) == {"count": 3}
    # BoundedMean keeps the sum of clamp(x) - midpoint: (0.5 - 0.5) + (0.25 - 0.5)
    assert A.state("BoundedMean", [0.5, 0.25], epsilon=1.0, lower_bound=0.0, upper_bound=1.0,
                   dtype="float") == {"count": 2, "sum": Fraction(-1, 4)}


def test_released_at_huge_epsilon_is_the_statistic():
    assert A.released("BoundedSum", [0.1, 0.2, 0.3], lower_bound=0.0, upper_bound=1.0,
                      dtype="float") == Fraction(1351079888211149, 2251799813685248)
    assert A.released("Count", [7, 7]) == 2


def test_gaussian_granularity_is_the_power_of_two_at_or_above():
    assert A.gaussian_granularity(Fraction(2) ** 56) == 1  # 2 sigma / 2**57 = 1 exactly
    assert A.gaussian_granularity(Fraction(3)) == Fraction(1, 2**54)  # 6 / 2**57 -> 2**-54
    with pytest.raises(InvalidArgument, match="sigma=Fraction"):
        A.gaussian_granularity(Fraction(0))


@pytest.mark.parametrize("data, match", [
    (b"", "holds no data"),
    (b"\x12\x04\n\x02zz", "'zz' is not modelled"),
])
def test_decode_summary_refuses(data, match):
    with pytest.raises(InvalidArgument, match=match):
        A.decode_summary(data)


def test_make_refuses_an_unknown_kind():
    with pytest.raises(InvalidArgument, match="kind='Max' is not one of BoundedSum"):
        A.make("Max", epsilon=1.0)


# --- the suite --------------------------------------------------------------------------


@needs_115
def test_bounded_sum_float_rounding_violated_and_replayed():
    f = _audit("bounded-sum/float-rounding").check().enforced()
    assert f.verdict.value == "violated" and f.replay.value == "confirmed" and f.evidence.value == "bit-exact"
    assert f.witness["x"] == WITNESS_X and f.witness["x_prime"] == WITNESS_XP
    assert f.witness["difference"] == "9007199254740997/9007199254740992"  # 1 + 5 * 2**-53 > 1
    assert f.witness["released_at_epsilon_1e300"] == [f.witness["fx"], f.witness["fx_prime"]]
    # the witness straight through the library
    sx = A.state("BoundedSum", WITNESS_X, epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype="float")["sum"]
    sxp = A.state("BoundedSum", WITNESS_XP, epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype="float")["sum"]
    assert sxp - sx == Fraction(9007199254740997, 9007199254740992)


@needs_115
def test_bounded_sum_int_overflow_violated():
    f = _audit("bounded-sum/int-overflow").check().enforced()
    assert (f.verdict.value, f.replay.value, f.claim, f.truth) == ("violated", "confirmed", "1073741824", "3221225472")
    assert f.witness["fx_prime"] == "-2147483648"
    assert f.witness["released_at_epsilon_1e300"] == ["1073741824", "-2147483648"]


@needs_115
def test_bounded_mean_float_rounding_violated():
    f = _audit("bounded-mean/float-rounding").check().enforced()
    assert (f.verdict.value, f.replay.value, f.claim) == ("violated", "confirmed", "1")
    assert f.witness["difference"] == "9007199254740997/9007199254740992"


@needs_115
def test_holding_audits_and_their_evidence():
    count = _audit("count/sensitivity").check()
    assert (count.verdict.value, count.truth, count.enforced().verdict.value) == ("holds-tight", "1", "holds-on-grid")
    ints = _audit("bounded-sum/int-clamped").check()
    assert (ints.truth, ints.enforced().verdict.value) == ("3", "holds-on-grid")
    gauss = _audit("gaussian/std").check().enforced()
    assert gauss.verdict.value == "holds-ideal-noise"
    first = gauss.witness["settings"][0]
    assert (first["std"], first["granularity"]) == (3.732421875, "1/18014398509481984")


@needs_115
def test_laplace_diversity_below_its_formula():
    f = _audit("laplace/diversity-formula").check().enforced()
    assert (f.verdict.value, f.replay.value) == ("violated", "confirmed")
    assert (f.witness["epsilon"], f.witness["diversity_exact"]) == (3.0, "6004799503160661/18014398509481984")
    assert f.witness["settings_below"] == "2 of 5"


@needs_115
def test_suite_meets_its_expectations_quickly():
    results = runner.run_audits("python-dp")
    # the suite's first seven audits (issue 25 added the generic ones after them)
    assert [r.id.split("/", 1)[1] for r in results][:7] == [
        "bounded-sum/float-rounding", "bounded-sum/int-overflow", "bounded-sum/int-clamped",
        "bounded-mean/float-rounding", "count/sensitivity", "laplace/diversity-formula", "gaussian/std"]
    assert all(r.verdict == r.expected for r in results), [(r.id, r.verdict, r.expected) for r in results]
    assert {r.id for r in results[:7] if r.violated} == {
        "python-dp/bounded-sum/float-rounding", "python-dp/bounded-sum/int-overflow",
        "python-dp/bounded-mean/float-rounding", "python-dp/laplace/diversity-formula"}
    corpus = [a for a in S.audits() if a.corpus]
    assert [a.source.rsplit("/", 1)[1] for a in corpus] == ["126", "40"]
