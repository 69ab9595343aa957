"""OpenDP objects through audit_object (issue 25): one Transformation, Measurement, chain and
Odometer each, with real verdicts and values; a user-built transformation with a wrong map
(violated, replayed) and OpenDP's own thresholded counts (violated: the claimed delta is the
tail beyond the threshold, the release happens at it; replayed by draws); the refusals."""

from __future__ import annotations

from fractions import Fraction

import pytest

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import objects_opendp as reader  # noqa: E402
from exactdp.audits.objects import audit_object  # noqa: E402
from exactdp.errors import InvalidArgument  # noqa: E402

on_016 = pytest.mark.skipif(not od.version().startswith("0.16."), reason="values pinned for OpenDP 0.16")


@pytest.fixture(autouse=True)
def contrib():
    with od.features("contrib", "honest-but-curious"):
        yield


def _bounded_sum():
    return dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 3)), size=3), dp.symmetric_distance())


def test_transformation_holds_on_grid_with_settings():
    r = audit_object(_bounded_sum())
    assert (r.verdict, r.evidence, r.tight) == ("holds-on-grid", "bit-exact-grid", True)
    assert r.claimed == "d_in=2: 3; d_in=4: 6" and r.truth.endswith("d_in=2: 3; d_in=4: 6")
    assert r.settings.count == 2
    assert r.settings.span == "d_in 2, 4; 10 datasets: multisets of {0, 1, 3} with 3 records, SymmetricDistance"
    assert r.id == "opendp/object/make_sum"


def test_options_override_the_space():
    r = audit_object(_bounded_sum(), values=(0, 3), d_in=2)
    assert r.settings.span.startswith("d_in 2; 4 datasets: multisets of {0, 3}")
    assert r.claimed == "d_in=2: 3"


def test_user_transformation_with_a_wrong_map_is_violated_and_replayed():
    """A sum of values in [0, 3] claiming d_in -> d_in: adding a 3 moves it by 3."""
    t = dp.t.make_user_transformation(
        dp.vector_domain(dp.atom_domain(bounds=(0, 3))), dp.symmetric_distance(),
        dp.atom_domain(T=int), dp.absolute_distance(T=int),
        function=lambda x: sum(x), stability_map=lambda d_in: d_in)
    r = audit_object(t)
    assert (r.verdict, r.evidence, r.replay) == ("violated", "bit-exact", "confirmed")
    assert r.witness == {"x": [], "x_prime": [3], "fx": 0, "fx_prime": 3, "d_in": "1", "claim": "1", "distance": "3"}
    assert r.truth.endswith("d_in=1: 3; d_in=2: 6")


def test_laplace_holds_ideal_noise_exactly():
    m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)
    r = audit_object(m)
    assert (r.verdict, r.evidence, r.tight) == ("holds-ideal-noise", "ideal-noise", True)
    assert r.truth.endswith("d_in=1: in [1/2, 1/2]; d_in=2: in [1, 1]")
    assert r.settings.count == 2


def test_chained_measurement_enumerates_the_transformation():
    r = audit_object(_bounded_sum() >> dp.m.then_laplace(1.0))
    assert (r.verdict, r.evidence) == ("holds-ideal-noise", "ideal-noise")
    assert r.claimed == "d_in=2: epsilon 3; d_in=4: epsilon 6"
    assert r.truth.endswith("d_in=2: in [3, 3]; d_in=4: in [6, 6]")
    assert "largest output distance 3" in r.note


def test_odometer_privacy_loss_against_the_exact_composition():
    o = dp.c.make_fully_adaptive_composition(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                             dp.max_divergence())
    r = audit_object(o)
    assert (r.verdict, r.evidence) == ("holds-ideal-noise", "ideal-noise")
    assert r.truth.endswith("the queries' exact composition in [41/42, 41/42]")   # 1/2 + 1/3 + 1/7


@on_016
def test_threshold_counts_violated_replayed():
    """make_count_by >> make_laplace_threshold(scale 0.5, threshold 3): adding the record 'a'
    releases key 'a' with probability P(1 + Z >= 3) = e**-4 / (1 + e**-2) ~ 0.0161 (Z the
    discrete Laplace); OpenDP claims delta = e**-6 / (1 + e**-2) ~ 0.00218, the tail beyond."""
    m = dp.t.make_count_by(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()) \
        >> dp.m.then_laplace_threshold(scale=0.5, threshold=3)
    r = audit_object(m, d_in=1)
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "statistical")
    assert r.witness["x"] == ["a"] and r.witness["x_prime"] == []
    assert r.witness["exact_release_probability"].startswith("exp(-4)/(exp(-2) + 1)")
    assert r.witness["claim"] == "(epsilon, delta) = (2, 19665217040299/9007199254740992)"
    assert float(r.witness["release_probability_at_least"]) > 19665217040299 / 9007199254740992
    assert "probability below 1e-09" in r.note


def test_binomial_lower_bound():
    low = reader.binomial_lower(30, 2000, 1e-9)
    assert Fraction(0) < low < Fraction(30, 2000)
    assert reader.binomial_lower(0, 2000, 1e-9) == 0
    assert reader.binomial_lower(300, 20000, 1e-9) > low        # more draws, a tighter bound


def test_refusals_are_one_line():
    m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    with pytest.raises(InvalidArgument, match="option 'bogus' is not one the OpenDP reader takes; it takes d_in, values, sizes"):
        audit_object(m, bogus=1)
    alp = dp.m.make_alp_queryable(dp.map_domain(dp.atom_domain(T=int), dp.atom_domain(T=int)),
                                  dp.l01inf_distance(dp.absolute_distance(T=int)), scale=1.0, total_limit=4, value_limit=4)
    with pytest.raises(InvalidArgument, match="make_alp_queryable: exactdp has no model") as e:
        audit_object(alp)
    assert "\n" not in str(e.value)
    t = dp.t.make_count_by(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance())
    with pytest.raises(InvalidArgument, match="output metric L01InfDistance"):
        audit_object(t)
