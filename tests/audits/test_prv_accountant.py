"""The prv_accountant adapter and audit suite (``exactdp audit prv-accountant``), against the
installed prv_accountant (verdicts and numbers pinned on 0.2.0). The certified enclosures are
shared with the dp_accounting suite's (cached in :mod:`exactdp.audits.suite_dp_accounting`)."""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("prv_accountant", reason="prv-accountant is not installed (pip install 'exactdp[prv-accountant]')")

from exactdp.adapters import prv_accountant as A
from exactdp.audits import runner
from exactdp.audits import suite_dp_accounting as G
from exactdp.audits import suite_prv_accountant as S
from exactdp.errors import InvalidArgument, MissingDependency

ON_020 = metadata.version("prv-accountant") == "0.2.0"
needs_020 = pytest.mark.skipif(not ON_020, reason="verdicts and numbers pinned on prv-accountant 0.2.0")


BAD_ADAPTER_CALLS = [
    (lambda: A.random_variable("exponential", {"mu": 1.0}), "kind='exponential'"),  # laplace is a kind since issue 25
    (lambda: A.random_variable("pure-dp", {"epsilon": 1.0}), "expected exactly eps"),
    (lambda: A.random_variable("gaussian", {"sigma": 2}), "sigma=2 is not a float"),
    (lambda: A.epsilon_bounds("gaussian", {"sigma": 1.0}, 0, 1e-5, 0.1), "k=0 is not a whole number"),
    (lambda: A.exact(False), "is a bool"),
]


@pytest.mark.parametrize("call, message", BAD_ADAPTER_CALLS)
def test_adapter_refuses_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "prv_accountant", None)
    with pytest.raises(MissingDependency, match=r"pip install 'exactdp\[prv-accountant\]'"):
        A.require()


def test_pure_dp_is_the_discrete_laplace_of_scale_one_over_eps():
    point = S.PURE_DP[2]
    assert point.label == "eps=0.5 k=100 delta=1e-05"
    assert point.mechanism() == ("discrete-laplace", {"scale": 1 / Fraction(0.5)}) == G.DISCRETE_LAPLACE[2].mechanism()


@needs_020
def test_headline_dp_sgd_bounds_against_the_enclosure():
    """q = 0.01, sigma = 1, k = 1000, delta = 1e-6 at eps_error 0.01: the issue's [2.1144, 2.1245,
    2.1346], read exactly; lower below the certified lower end, upper above the upper end, the
    estimate inside (reported, not judged)."""
    lower, estimate, upper = A.epsilon_bounds("poisson-gaussian", {"q": 0.01, "sigma": 1.0}, 1000, 1e-6, 0.01)
    for got, want in zip((lower, estimate, upper), ("2.11439199161577", "2.12451798271337", "2.13464409961505")):
        assert isinstance(got, Fraction) and abs(got - Fraction(want)) < Fraction(1, 10**13)
    enc = G.certified(G.DP_SGD[0], G.SUBSAMPLED_WIDTH)
    assert lower < enc.epsilon_lower <= estimate <= enc.epsilon_upper < upper


ORIGINAL = [f"prv-accountant/{w}/eps-error-{e}/{f}" for e in ("0.1", "0.01") for w in ("upper", "lower")
            for f in ("dp-sgd", "gaussian", "pure-dp")]


@pytest.fixture(scope="module")
def results():
    # the twelve bound audits pinned here (the issue-25 audits: test_dp_accounting_objects.py)
    return {r.id: r for r in runner.run_audits("prv-accountant", only=ORIGINAL)}


@needs_020
def test_every_verdict_on_020(results):
    assert len(results) == 12
    for r in results.values():
        assert r.verdict == "holds-on-grid" == r.expected, r.id
        assert r.evidence == "bit-exact-grid" and r.version == "0.2.0" and r.library == "prv_accountant"
        assert "beside, estimate " in r.note, r.id  # the estimate reported, never judged
    assert list(results) == ORIGINAL


@needs_020
def test_tables_report_the_numbers_and_the_refused_point(results):
    up = results["prv-accountant/upper/eps-error-0.01/gaussian"].note
    assert ("sigma=10.0 k=1000 delta=1e-06: 19.4343050929" in up and " vs [19.4236564740310515" in up
            and "HOLDS, number - upper end = +0.0106 (+0.000548 relative)" in up)
    # the estimate lies above the truth here: reported beside, not a verdict
    assert "beside, estimate 19.4236569380" in up and "number - upper end = +4.64e-07 (+2.39e-08 relative)" in up
    pure = results["prv-accountant/lower/eps-error-0.1/pure-dp"].note
    assert ("eps=0.2 k=1000 delta=1e-05: the library raised (prv_accountant PRVAccountant(eps_error=0.1)"
            ".compute_epsilon at eps=0.2 k=1000 delta=1e-05 raised RuntimeError: Discrete mean differs from "
            "continuous mean significantly.): no number returned") in pure
    assert "the library raised at 1 of 4 points: no number there" in pure
    dpsgd = results["prv-accountant/lower/eps-error-0.01/dp-sgd"]
    assert "remove direction of add/remove" in dpsgd.scope
    assert "q=0.01 sigma=1.0 k=1000 delta=1e-06: 2.11439199161" in dpsgd.note


def test_suite_is_registered():
    assert runner.SUITES["prv-accountant"] == "exactdp.audits.suite_prv_accountant"
    audits = runner.suite("prv-accountant")
    assert [a.id for a in audits if a.id in ORIGINAL] == ORIGINAL
    assert len(audits) == 31 and not any(a.corpus for a in audits)
    assert {a.versions for a in audits} == {">=0.2"}
    assert math.isclose(S.EPS_ERRORS[1], 0.01)
