"""The dp_accounting adapter and audit suite (``exactdp audit dp-accounting``), against the
installed dp_accounting (verdicts and numbers pinned on 0.6.0)."""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("dp_accounting", reason="dp-accounting is not installed (pip install 'exactdp[dp-accounting]')")

import numpy as np

from exactdp.adapters import dp_accounting as A
from exactdp.audits import runner
from exactdp.audits import suite_dp_accounting as S
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument, LibraryCallFailed, MissingDependency

ON_060 = metadata.version("dp-accounting") == "0.6.0"
needs_060 = pytest.mark.skipif(not ON_060, reason="verdicts and numbers pinned on dp-accounting 0.6.0")


# --- the adapter ------------------------------------------------------------------------


def test_exact_reads_the_float_at_its_binary_value():
    assert A.exact(0.1) == Fraction(3602879701896397, 36028797018963968)
    assert A.exact(np.float64(19.34467144552175)) == Fraction(19.34467144552175)
    assert A.exact(math.inf) == math.inf
    assert A.exact(float("inf")) is math.inf


BAD_ADAPTER_CALLS = [
    (lambda: A.exact(True), "is a bool"),
    (lambda: A.exact(float("nan")), "is NaN: dp_accounting returned no number"),
    (lambda: A.exact(-math.inf), "not finite"),
    (lambda: A.pld_epsilon("laplace", {"a": 1.0}, 1, 1e-6, 1e-2), "kind='laplace'"),
    (lambda: A.pld_epsilon("gaussian", {"q": 0.1}, 1, 1e-6, 1e-2), "expected exactly sigma"),
    (lambda: A.pld_epsilon("gaussian", {"sigma": 1}, 1, 1e-6, 1e-2), "sigma=1 is not a float"),
    (lambda: A.pld_epsilon("gaussian", {"sigma": 1.0}, 0, 1e-6, 1e-2), "k=0 is not a whole number >= 1"),
    (lambda: A.rdp_epsilon("discrete-laplace", {"a": 0.1}, 1, 1e-6), "composes only"),
    (lambda: A.neighbouring_relation("prv"), "accountant='prv'"),
]


@pytest.mark.parametrize("call, message", BAD_ADAPTER_CALLS)
def test_adapter_refuses_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    with pytest.raises(MissingDependency, match=r"pip install 'exactdp\[dp-accounting\]'"):
        A.require()


def test_neighbouring_relation_is_read_from_the_library():
    assert A.neighbouring_relation("pld") == "ADD_OR_REMOVE_ONE"
    assert A.neighbouring_relation("rdp") == "ADD_OR_REMOVE_ONE"


@needs_060
def test_adapter_returns_the_library_float_exactly():
    import dp_accounting as dpa

    acc = dpa.pld.PLDAccountant(value_discretization_interval=1e-2)
    acc.compose(dpa.dp_event.DiscreteLaplaceDpEvent(0.1, 1), 1000)
    direct = acc.get_epsilon(1e-6)
    got = A.pld_epsilon("discrete-laplace", {"a": 0.1}, 1000, 1e-6, 1e-2)
    assert direct in S.CORPUS_VALUES  # the last bits depend on NumPy/SciPy's FFT
    assert got == Fraction(direct) and isinstance(got, Fraction)
    # the same call again: the same float (what a replay relies on)
    assert A.pld_epsilon("discrete-laplace", {"a": 0.1}, 1000, 1e-6, 1e-2) == got


# --- the judging, on a cheap point ------------------------------------------------------

CHEAP = S.Point("discrete-laplace", (("a", 0.5),), 100, 1e-5)


def test_judge_both_directions_against_the_enclosure():
    enc = S.certified(CHEAP, S.FINE_WIDTH)
    lo, hi = enc.epsilon_lower, enc.epsilon_upper
    assert lo < hi and (hi - lo) <= S.FINE_WIDTH * hi
    below, inside, above = lo - Fraction(1, 10**12), (lo + hi) / 2, hi
    assert S.judge(CHEAP, below, "upper")[0] is Verdict.VIOLATED
    assert S.judge(CHEAP, inside, "upper")[0] is Verdict.UNDECIDED
    assert S.judge(CHEAP, above, "upper")[0] is Verdict.HOLDS
    assert S.judge(CHEAP, math.inf, "upper")[0] is Verdict.HOLDS
    assert S.judge(CHEAP, hi + Fraction(1, 10**12), "lower")[0] is Verdict.VIOLATED
    assert S.judge(CHEAP, inside, "lower")[0] is Verdict.UNDECIDED
    assert S.judge(CHEAP, lo, "lower")[0] is Verdict.HOLDS


def test_a_lower_bound_above_the_truth_is_a_violation_replayed():
    enc = S.certified(CHEAP, S.FINE_WIDTH)
    claimed = float(enc.epsilon_upper) + 1e-9
    calls = []

    def read(point):
        calls.append(point)
        return Fraction(claimed)
    f = S.grid_finding([CHEAP], read, "lower", what="a fake lower bound", scope="one point", single=True)
    assert f.verdict is Verdict.VIOLATED and f.replay.value == "confirmed" and len(calls) == 2
    assert f.witness["library_value"] == claimed
    assert f.witness["violated_by"].startswith("above the certified upper end by ")


def test_an_infinite_lower_bound_is_violated_and_an_infinite_upper_bound_holds():
    lower = S.grid_finding([CHEAP], lambda p: math.inf, "lower", what="fake", scope="one point", single=True)
    assert lower.verdict is Verdict.VIOLATED and lower.witness["library_value_exact"] == "inf"
    upper = S.grid_finding([CHEAP], lambda p: math.inf, "upper", what="fake", scope="one point", single=True)
    assert upper.verdict is Verdict.HOLDS and "no finite comparison" in upper.note


def test_a_replay_that_differs_is_no_violation():
    enc = S.certified(CHEAP, S.FINE_WIDTH)
    values = iter([enc.epsilon_lower - 1, enc.epsilon_upper])
    f = S.grid_finding([CHEAP], lambda p: next(values), "upper", what="a flaky number", scope="one point",
                       single=True).enforced()
    assert f.verdict is Verdict.UNDECIDED and "model mismatch" in f.note


def test_a_library_that_raises_everywhere_is_an_error():
    def read(point):
        raise LibraryCallFailed("fake.get_epsilon raised ValueError: no")
    with pytest.raises(LibraryCallFailed, match="raised at every point"):
        S.grid_finding([CHEAP], read, "upper", what="fake", scope="one point")


# --- the suite on 0.6.0 -----------------------------------------------------------------


@pytest.fixture(scope="module")
def results():
    # the grid audits pinned here (the suite's issue-25 audits are tested in test_dp_accounting_objects.py)
    return {r.id: r for r in runner.run_audits("dp-accounting", only=list(EXPECTED))}


EXPECTED = {
    "dp-accounting/pld-pessimistic-1e-2/dp-sgd": "holds-on-grid",
    "dp-accounting/pld-pessimistic-1e-2/gaussian": "holds-on-grid",
    "dp-accounting/pld-pessimistic-1e-2/discrete-laplace": "violated",
    "dp-accounting/pld-pessimistic-1e-2/discrete-gaussian": "holds-on-grid",
    "dp-accounting/pld-pessimistic-1e-3/dp-sgd": "undecided",
    "dp-accounting/pld-pessimistic-1e-3/gaussian": "holds-on-grid",
    "dp-accounting/pld-pessimistic-1e-3/discrete-laplace": "violated",
    "dp-accounting/pld-pessimistic-1e-3/discrete-gaussian": "violated",
    "dp-accounting/pld-pessimistic-1e-4/dp-sgd": "undecided",
    "dp-accounting/pld-pessimistic-1e-4/gaussian": "holds-on-grid",
    "dp-accounting/pld-pessimistic-1e-4/discrete-laplace": "violated",
    "dp-accounting/pld-pessimistic-1e-4/discrete-gaussian": "violated",
    "dp-accounting/rdp/dp-sgd": "holds-on-grid",
    "dp-accounting/rdp/gaussian": "holds-on-grid",
    "dp-accounting/pld-optimistic-1e-4/dp-sgd": "holds-on-grid",
    "dp-accounting/pld-optimistic-1e-4/gaussian": "holds-on-grid",
    "dp-accounting/pld-optimistic-1e-4/discrete-laplace": "violated",
    "dp-accounting/pld-optimistic-1e-4/discrete-gaussian": "holds-on-grid",
    "dp-accounting/corpus/pld-discrete-laplace-interval-1e-2": "violated",
}


@needs_060
def test_every_verdict_on_060(results):
    assert {i: r.verdict for i, r in results.items()} == EXPECTED
    for r in results.values():
        assert r.expected == r.verdict, r.id  # the suite's own expectations agree
        assert r.version == "0.6.0" and r.library == "dp_accounting"
        if r.verdict == "violated":
            assert r.replay == "confirmed" and r.evidence == "bit-exact", r.id
            w = r.witness
            assert Fraction(w["library_value_exact"]) == Fraction(w["library_value"])
        elif r.verdict == "holds-on-grid":
            assert r.evidence == "bit-exact-grid" and not r.tight
        assert "number - upper end" in r.note, r.id  # the error table


@needs_060
def test_corpus_point_is_below_the_truth(results):
    r = results["dp-accounting/corpus/pld-discrete-laplace-interval-1e-2"]
    w = r.witness
    assert (w["a"], w["k"], w["delta"]) == (0.1, 1000, 1e-6)
    value = w["library_value"]
    assert value in S.CORPUS_VALUES
    assert Fraction(w["library_value_exact"]) == Fraction(value)
    enc = S.certified(S.CORPUS_POINT, S.FINE_WIDTH)
    for known in S.CORPUS_VALUES:  # both numbers ever measured lie 2.47e-9 below the truth
        assert Fraction(247, 10**11) < enc.epsilon_lower - Fraction(known) < Fraction(248, 10**11)
    assert w["certified_lower"].startswith("19.344671447993045")
    assert w["violated_by"] == "below the certified lower end by 2.47e-09"
    assert r.evidence == "bit-exact" and r.replay == "confirmed"


def test_corpus_violation_by_an_independent_computation():
    """Without exactdp: the 1000-fold discrete Laplace (a = 0.1) has losses a(2j - k), j
    binomial(k, e^a/(1 + e^a)); its delta at the library's epsilon, at 50 digits, exceeds the
    delta it was asked for: that epsilon is too small."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50

    def exact_mpf(x):
        q = Fraction(x)
        return mp.mpf(q.numerator) / q.denominator
    a, k = exact_mpf(0.1), 1000
    p = 1 / (1 + mp.e ** (-a))
    def delta_at(value):
        eps = exact_mpf(value)
        return mp.fsum(mp.binomial(k, j) * p**j * (1 - p) ** (k - j) * (1 - mp.e ** (eps - a * (2 * j - k)))
                       for j in range(k + 1) if a * (2 * j - k) > eps)
    for value in S.CORPUS_VALUES:
        assert delta_at(value) > exact_mpf(1e-6)
    assert mp.nstr(delta_at(19.34467144552175), 12) == "1.00000000426e-6"
    # the truth the enclosure holds: delta crosses 1e-6 between its ends
    enc = S.certified(S.CORPUS_POINT, S.FINE_WIDTH)
    assert delta_at(enc.epsilon_lower) > exact_mpf(1e-6) >= delta_at(enc.epsilon_upper)


@needs_060
def test_error_tables_give_the_numbers(results):
    note = results["dp-accounting/pld-pessimistic-1e-4/discrete-laplace"].note
    # (library numbers to 11 digits: their last bits follow NumPy/SciPy's FFT; the enclosures are exact)
    assert ("a=0.2 k=1000 delta=1e-05: 45.873013365" in note and " vs [45.873013368634697" in note
            and "VIOLATED, number - upper end = -3.3e-09 (-7.2e-11 relative)" in note)
    assert "a=0.03125 k=1000 delta=1e-06: 4.859285132" in note and "+0.05 (+0.0104 relative)" in note
    w = results["dp-accounting/pld-pessimistic-1e-4/discrete-laplace"].witness
    assert (w["a"], w["k"], w["delta"], w["points_violated"]) == (0.2, 1000, 1e-5, "2 of 4")
    rdp = results["dp-accounting/rdp/dp-sgd"].note
    assert "q=0.01 sigma=1.0 k=1000 delta=1e-06: 2.43669380302" in rdp
    opt = results["dp-accounting/pld-optimistic-1e-4/discrete-laplace"]
    assert abs(opt.witness["library_value"] - 19.344671451058254) < 1e-11
    assert opt.witness["violated_by"] == "above the certified upper end by 3.07e-09"
    head = results["dp-accounting/pld-pessimistic-1e-3/dp-sgd"].note
    assert "q=0.01 sigma=1.0 k=1000 delta=1e-06: 2.12525144146" in head
    assert "1 of 5 numbers lie inside the certified enclosure" in head


@needs_060
def test_dp_sgd_numbers_relate_to_the_enclosure_as_judged():
    point = S.DP_SGD[0]
    enc = S.certified(point, S.SUBSAMPLED_WIDTH)
    assert enc.width_met and enc.epsilon_upper - enc.epsilon_lower <= S.SUBSAMPLED_WIDTH * enc.epsilon_upper
    values = {iv: A.pld_epsilon("poisson-gaussian", {"q": 0.01, "sigma": 1.0}, 1000, 1e-6, iv) for iv in (1e-2, 1e-3)}
    assert abs(values[1e-2] - Fraction("2.2018934199167")) < Fraction(1, 10**11)
    assert abs(values[1e-3] - Fraction("2.1252514414676")) < Fraction(1, 10**11)
    assert values[1e-3] >= enc.epsilon_upper  # holds
    rdp = A.rdp_epsilon("poisson-gaussian", {"q": 0.01, "sigma": 1.0}, 1000, 1e-6)
    assert abs(rdp - Fraction("2.4366938030222")) < Fraction(1, 10**11) and rdp - enc.epsilon_upper > Fraction(3, 10)


@needs_060
def test_cli_runs_one_audit_and_exits_1_on_a_violation(capsys):
    code = main(["audit", "dp-accounting", "--only", "dp-accounting/corpus/pld-discrete-laplace-interval-1e-2"])
    out = capsys.readouterr().out
    assert code == 1
    assert "PLDAccountant (pessimistic, interval 1e-2): VIOLATED" in out
    assert "replay: confirmed" in out and "is an upper bound = 19.34467144552" in out
    assert "below the certified lower end by 2.47e-09" in out
    assert out.strip().endswith("dp-accounting 0.6.0: 1 audits: 1 violated")


def test_suite_is_registered_and_lists_without_running():
    ids = [a.id for a in runner.suite("dp-accounting")]
    assert ids[:19] == list(EXPECTED)  # then the issue-25 audits (events, PLD constructors, calibration)
    assert len(ids) == 56 and ids[19] == "dp-accounting/events/GaussianDpEvent"
    assert runner.SUITES["dp-accounting"] == "exactdp.audits.suite_dp_accounting"
    corpus = [a for a in runner.suite("dp-accounting") if a.corpus]
    assert [a.id for a in corpus] == ["dp-accounting/corpus/pld-discrete-laplace-interval-1e-2"]
