"""audit_object on dp_accounting DpEvents, and the issue-25 parts of the dp_accounting and
prv_accountant suites (coverage, settings, severity), against the installed libraries
(numbers pinned on dp-accounting 0.6.0 / prv-accountant 0.2.0)."""

from __future__ import annotations

from fractions import Fraction
from importlib import metadata

import pytest

dpa = pytest.importorskip("dp_accounting", reason="dp-accounting is not installed (pip install 'exactdp[dp-accounting]')")

from exactdp.adapters import dp_accounting as A
from exactdp.audits import objects_dp_accounting as O
from exactdp.audits import runner
from exactdp.audits import suite_dp_accounting as S
from exactdp.audits.objects import audit_object
from exactdp.errors import InvalidArgument

ON_060 = metadata.version("dp-accounting") == "0.6.0"
needs_060 = pytest.mark.skipif(not ON_060, reason="numbers pinned on dp-accounting 0.6.0")
E = dpa.dp_event


@needs_060
def test_self_composed_poisson_gaussian_matches_the_suite():
    """DP-SGD q=0.1, sigma=2, 50 steps (the suite's DP_SGD[4]): the reader's RDP number is the
    suite's, above the same certified enclosure: a hold, bit-exact on its one setting."""
    event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(2.0)), 50)
    r = audit_object(event, accountants=("rdp",))
    assert r.verdict == "holds" and r.evidence == "bit-exact"
    assert r.settings.count == 1 and r.settings.span == "1 accountant run, delta 1e-05"
    point = S.DP_SGD[4]
    suite_value = A.rdp_epsilon("poisson-gaussian", point.library_params(), point.k, point.delta)
    assert A.event_epsilon(event, "rdp", "add-or-remove", 1e-5) == suite_value
    assert abs(suite_value - Fraction("1.843951861015158")) < Fraction(1, 10**14)
    enc = S.certified(point, S.SUBSAMPLED_WIDTH)
    assert "vs [1.6521971225738525, 1.6526670455932618]: HOLDS" in r.note
    assert enc.epsilon_upper <= Fraction("1.6526670455932618") < suite_value


@needs_060
def test_composed_gaussian_and_randomized_response_rdp_is_violated_and_replayed():
    """Gaussian (noise multiplier 3) beside randomized response (noise 0.5, 4 buckets): replace-one
    neighbours (dp_accounting defines randomized response only there). PLDAccountant reads the
    Gaussian at sensitivity 2 (a replaced record moves the sum by 2C) and lands inside the
    enclosure; RdpAccountant reads it at sensitivity 1 and reports 2.958, below the certified
    lower end 4.2873 of the pair."""
    event = E.ComposedDpEvent([E.GaussianDpEvent(3.0), E.RandomizedResponseDpEvent(0.5, 4)])
    assert O.relation_of(event) == "replace-one"
    comps, notes = O.translate(event, "replace-one")
    assert comps == [("gaussian", {"sigma": 3, "sensitivity": 2}, 1),
                     ("randomized-response", {"p": Fraction(5, 8), "k_values": 4}, 1)] and notes == []
    r = audit_object(event)
    assert r.verdict == "violated" and r.replay == "confirmed" and r.evidence == "bit-exact"
    w = r.witness
    assert (w["accountant"], w["relation"], w["delta"]) == ("rdp", "replace-one", 1e-5)
    assert w["library_value"] == 2.958115133641232
    assert w["certified_lower"] == "4.287353515625" and w["violated_by"] == "below the certified lower end by 1.33"
    assert "PLDAccountant() [replace-one]" in r.note and "UNDECIDED" in r.note  # the PLD number lies inside
    assert r.settings.count == 2


def test_non_private_and_no_op_events():
    r = audit_object(E.NonPrivateDpEvent())
    assert r.verdict == "holds" and "inf vs [inf, inf]: HOLDS" in r.note
    r = audit_object(E.NoOpDpEvent())
    assert r.verdict == "holds" and "0.0 vs [0, 0]: HOLDS" in r.note


def test_tree_aggregation_translation_counts_the_dyadic_nodes():
    comps, notes = O.translate(E.SingleEpochTreeAggregationDpEvent(2.0, [3, 8]), "replace-special")
    assert comps == [("gaussian", {"sigma": 2, "sensitivity": 1}, 4)]  # 8 steps: nodes of 1, 2, 4, 8 steps
    assert "enters the 4 released dyadic nodes" in notes[0]


REFUSALS = [
    (lambda: E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 1.0, 1.0), {},
     "RepeatAndSelectDpEvent: exactdp's certified accountant has no model of it"),
    (lambda: E.SampledWithReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0)), {},
     "SampledWithReplacementDpEvent: exactdp's certified accountant has no model of it"),
    (lambda: E.ZCDpEvent(0.3), {}, "ZCDpEvent(rho=0.3): exactdp judges it through the Gaussian"),
    (lambda: E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 10, 1.0), {}, "no model of a truncated batch"),
    (lambda: E.PoissonSampledDpEvent(0.1, E.ComposedDpEvent([E.GaussianDpEvent(1.0), E.GaussianDpEvent(2.0)])), {},
     "PoissonSampledDpEvent of ComposedDpEvent: exactdp's accountant samples one"),
    (lambda: E.GaussianDpEvent(1.0), {"sigma": 1.0}, "option 'sigma' is not one the dp_accounting reader takes"),
    (lambda: E.GaussianDpEvent(1.0), {"delta": 0}, "delta=0: expected a float in (0, 1)"),
    (lambda: E.RandomizedResponseDpEvent(0.5, 2), {"relation": "add-or-remove"},
     "RandomizedResponseDpEvent: exactdp accounts it under replace-one"),
    (lambda: E.UnsupportedDpEvent(), {}, "UnsupportedDpEvent: exactdp's certified accountant has no model"),
]


@pytest.mark.parametrize("make, options, message", REFUSALS)
def test_an_event_exactdp_cannot_account_is_one_line(make, options, message):
    with pytest.raises(InvalidArgument) as info:
        audit_object(make(), **options)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_coverage_reaches_ninety_percent():
    dp = runner.coverage("dp-accounting")
    assert dp.audited / len(dp.primitives) >= 0.9 and len(dp.primitives) == 43
    missing = {p.name for p in dp.primitives if not p.audited}
    assert missing == set(S.NOT_AUDITED)
    assert "dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism" in {p.name for p in dp.primitives}
    pytest.importorskip("prv_accountant")
    prv = runner.coverage("prv-accountant")
    assert prv.audited == len(prv.primitives) == 10


@needs_060
def test_replace_one_events_and_settings_at_the_edges():
    """The suite's replace-one audit: RdpAccountant reads Gaussian and Laplace events at
    sensitivity 1 under REPLACE_ONE (2 of 3 runs violated); PLDAccountant holds."""
    (r,) = runner.run_audits("dp-accounting", only=["dp-accounting/events/replace-one"])
    assert r.verdict == "violated" and r.replay == "confirmed"
    assert r.witness["points_violated"] == "2 of 3" and r.witness["library_value"] == 2.165715659029443
    assert r.settings.count == 3 and r.settings.span == "3 accountant runs, delta 1e-05"
    (g,) = runner.run_audits("dp-accounting", only=["calibration/gaussian_mechanism.get_epsilon_gaussian"
                                                    .join(["dp-accounting/", ""])])
    # brentq's tolerance grows with epsilon: every setting, delta down to the smallest subnormal, holds
    assert g.verdict == "holds-on-grid" and g.settings.count == 6 and g.settings.span == "sigma 0.001..1e+06, k 1, delta 4.94066e-324..1e-05"


@needs_060
def test_severity_step_reports_the_worst_certified_underestimate():
    (r,) = runner.run_audits("dp-accounting", only=["dp-accounting/events/replace-one"], depth="full")
    s = r.severity
    assert s.status == "exceeds" and s.replay.value == "confirmed" and s.at_least
    # the Gaussian's certified 4.377 against 2.166 (ratio 2.02) beats the Laplace's 0.9995 against 0.503 (1.99)
    assert s.witness["event"] == "GaussianDpEvent(noise_multiplier=2.0)" and s.witness["accountant"] == "rdp"
    assert Fraction(202, 100) < s.ratio < Fraction(203, 100)
