"""The generic audits of OpenDP's constructors, the coverage map and the edges (issue 25)."""

from __future__ import annotations

import pytest

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import runner, suite_opendp, suite_opendp_api  # noqa: E402

on_016 = pytest.mark.skipif(not od.version().startswith("0.16."), reason="verdicts pinned for OpenDP 0.16")


def _run(audit_id: str):
    (audit,) = [a for a in suite_opendp.audits() if a.id == audit_id]
    return runner.run_one(audit, od.version(), 120, strict=False)


def test_coverage_at_least_90_percent():
    cov = runner.coverage("opendp")
    assert cov.share >= 0.9, cov.summary()
    missing = {p.name for p in cov.primitives if not p.audited}
    assert missing == set(suite_opendp.NOT_AUDITED)          # every gap says why
    assert set(suite_opendp.NOT_AUDITED) <= set(suite_opendp.primitives())


def test_primitives_come_from_the_namespace_and_keep_every_noise_adder():
    listed = set(suite_opendp.primitives())
    import opendp.measurements as m
    noise = {f"opendp.measurements.{n}" for n in m.__all__ if n.startswith("make_") and n != "make_user_measurement"}
    assert noise <= listed                                    # no measurement excluded but the user's own
    assert "opendp.transformations.make_split_lines" not in listed
    assert "opendp.transformations.make_sum" in listed and "opendp.combinators.make_chain_mt" in listed


def test_every_audit_covers_what_it_runs():
    for audit in suite_opendp.audits():
        assert audit.covers, audit.id
    by_id = {a.id: a for a in suite_opendp_api.audits()}
    assert by_id["opendp/api/make_chain_mt"].covers == (
        "opendp.combinators.make_chain_mt", "opendp.measurements.make_laplace", "opendp.transformations.make_sum")
    for case in suite_opendp_api.CASES:
        assert case.primitive in by_id[case.id].covers


@on_016
def test_generic_b_ary_tree_wraps():
    r = _run("opendp/api/make_b_ary_tree")
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "bit-exact")
    assert r.witness["d_in"] == "1" and r.witness["distance"] == "4294967296"      # 2**32: one step wraps i32


@on_016
def test_generic_shuffle_and_budget():
    r = _run("opendp/api/make_ordered_random")
    assert (r.verdict, r.tight) == ("holds-ideal-noise", True)
    assert "d_in=1: 1 (the best coupling's largest distance)" in r.truth
    r = _run("opendp/api/make_adaptive_composition")
    assert (r.verdict, r.tight) == ("holds-on-grid", True)
    assert r.truth.endswith("sum of the budgets = 3/4; a query past the budget refused")


@on_016
def test_edges_carry_their_settings():
    r = _run("opendp/edges/int-sum-size")
    assert r.verdict == "holds-on-grid" and r.settings.count == 7
    assert "map refused" in r.truth and "4611686018427387904" in r.truth   # 2**9 * 2**53, refused by OpenDP
    r = _run("opendp/edges/laplace-scale")
    assert r.verdict == "holds-on-grid" and r.settings.count == 8
    assert "scale=5e-324, d_in=1: inf" in r.truth
    r = _run("opendp/edges/zcdp-delta")
    assert r.verdict == "holds-on-grid" and r.settings.span == "delta 5e-324..0.5"
