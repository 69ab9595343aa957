"""PrivacyCurve: queries that share one composed privacy-loss distribution."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account
from exactdp.mechanisms.accounting.curve import PrivacyCurve


@pytest.mark.parametrize("name, params, k", [
    ("discrete-gaussian", {"sigma": 10}, 1000),
    ("discrete-laplace", {"scale": 10}, 100),
    ("randomized-response", {"p": "3/4"}, 10),
])
def test_every_query_equals_a_fresh_account(name, params, k):
    curve = PrivacyCurve(name, k, params=params)
    for delta in ("1e-6", "1e-3"):
        mine, fresh = curve.epsilon(delta), account(name, k, delta=delta, params=params)
        assert (mine.epsilon_lower, mine.epsilon_upper) == (fresh.epsilon_lower, fresh.epsilon_upper)
    mine, fresh = curve.delta("2"), account(name, k, epsilon="2", params=params)
    assert (mine.delta_lower, mine.delta_upper) == (fresh.delta_lower, fresh.delta_upper)
    assert curve.queries == 3


def test_the_composed_lattice_is_built_once():
    curve = PrivacyCurve("discrete-gaussian", 1000, params={"sigma": 10})
    curve.epsilon("1e-6")
    kept = dict(curve._cache)
    assert kept  # the composed lattice, by precision
    curve.epsilon("1e-3")
    curve.delta("5")
    assert all(curve._cache[bits] is kept[bits] for bits in kept)  # reused, not rebuilt


def test_subsampled_gaussian_queries_reuse_the_grid():
    curve = PrivacyCurve("gaussian", 10, params={"sigma": 1, "sampling": "poisson", "rate": "0.01"})
    a = curve.epsilon("1e-6")
    grids = {key: value for key, value in curve._cache.items() if key != "points"}
    b = curve.epsilon("1e-5")
    assert all(curve._cache[key] is value for key, value in grids.items())
    assert b.epsilon_upper < a.epsilon_lower  # a larger delta needs a smaller epsilon, certified


def test_band_is_monotone_and_certified():
    curve = PrivacyCurve("discrete-laplace", 100, params={"scale": 10})
    rows = curve.band(["0.5", "1", "2"])
    assert [r["epsilon"] for r in rows] == [Fraction(1, 2), Fraction(1), Fraction(2)]
    for r in rows:
        assert 0 <= r["delta_lower"] <= r["delta_upper"] <= 1
    assert rows[2]["delta_upper"] < rows[0]["delta_lower"]  # delta(eps) decreases, certified


def test_to_dict_exports_the_points():
    curve = PrivacyCurve("gaussian", 50, params={"sigma": 2})
    out = curve.to_dict(epsilons=["1"], deltas=["1e-5"])
    assert out["mechanism"] == "gaussian" and out["k"] == 50
    assert [("epsilon_lower" in p, "delta_lower" in p) for p in out["points"]] == [(True, False), (False, True)]


@pytest.mark.parametrize("call, message", [
    (lambda c: c.band([]), "epsilons=\\[\\] is empty"),
    (lambda c: c.band(range(1001)), "1,001 epsilons, more than 1,000"),
    (lambda c: c.to_dict(), "give epsilons"),
])
def test_bad_band_and_export_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call(PrivacyCurve("gaussian", 5, params={"sigma": 2}))
