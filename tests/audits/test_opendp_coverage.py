"""OpenDP coverage (issue 18, part 2): make_variance inherits #2923 (witness replayed,
values exact), bounded make_geometric modelled from OpenDP's Rust source (its exact
distribution, p's bound, the grid verdict and the recip-rounding edge)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from exactdp.errors import InvalidArgument, TooLarge
from exactdp.mechanisms.models.opendp import OpenDPBoundedGeometric, geometric_p

# -- the bounded geometric model (no OpenDP needed) -----------------------------------------------


def test_geometric_distribution_closed_form():
    """Inside the bounds P(x + k) = (1-p)^|k| p / (2-p); the clamped ends take the tails."""
    p = F(1, 3)
    g = OpenDPBoundedGeometric(p, -2, 3)
    for x in (-2, 0, 3):
        dist = g.distribution(x)
        assert sum(dist.values()) == 1 and set(dist) == set(range(-2, 4))
        for y in range(-1, 3):                       # interior outputs
            assert dist[y] == (1 - p) ** abs(y - x) * p / (2 - p)
        assert dist[3] == (1 - p) ** (3 - x) / (2 - p) if x < 3 else dist[3] == 1 / (2 - p)
    assert g.distribution(-7) == g.distribution(-2) and g.distribution(9) == g.distribution(3)
    assert OpenDPBoundedGeometric(p, 4, 4).distribution(0) == {4: 1}


@pytest.mark.parametrize("d, expected", [(1, F(3, 2)), (3, F(27, 8)), (5, F(243, 32)), (9, F(243, 32))])
def test_geometric_epsilon_is_min_d_width_times_log(d, expected):
    """The largest ratio is (1/(1-p))^min(d, U - L): width 5, p = 1/3."""
    assert OpenDPBoundedGeometric(F(1, 3), -2, 3).max_ratio_at(d) == expected


def test_geometric_p_bound():
    q = geometric_p(1.0)
    # math.exp(-1) = 0.36787944117144233... is the smallest float above e^-1 (0.3678794411714423216)
    assert F(math.exp(-1)) > F("0.3678794411714423216") > F(math.nextafter(math.exp(-1), 0))
    assert q.recip == 1 and q.upper == 1 - F(math.exp(-1)) == F(1423408956596761, 2**51)
    edge = geometric_p(13.635390889451635)
    assert edge.recip > 1 / F(13.635390889451635)   # rounded to nearest, upward here
    assert edge.upper == F(159233427354519, 2251799813685248)


@pytest.mark.parametrize("kwargs, error", [
    (dict(p=F(0), lower=0, upper=1), InvalidArgument),
    (dict(p=F(1), lower=0, upper=1), InvalidArgument),
    (dict(p=0.5, lower=0, upper=1), InvalidArgument),
    (dict(p=F(1, 2), lower=2, upper=1), InvalidArgument),
    (dict(p=F(1, 2), lower=0.0, upper=1), InvalidArgument),
    (dict(p=F(1, 2), lower=0, upper=20_000), TooLarge),
])
def test_geometric_model_bad_arguments(kwargs, error):
    with pytest.raises(error):
        OpenDPBoundedGeometric(**kwargs)


@pytest.mark.parametrize("scale", [0.0, -1.0, 1, float("inf"), True, 1e-3])
def test_geometric_p_bad_scale(scale):
    with pytest.raises(InvalidArgument, match="scale="):
        geometric_p(scale)


# -- against the installed OpenDP -----------------------------------------------------------------

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import suite_opendp as suite  # noqa: E402
from exactdp.audits.base import Replay  # noqa: E402
from exactdp.checkers.results import Evidence, Verdict  # noqa: E402

on_016 = pytest.mark.skipif(not od.version().startswith("0.16."),
                            reason="verdicts and witnesses pinned for OpenDP 0.16")


def _audit(audit_id):
    (a,) = [a for a in suite.audits() if a.id == audit_id]
    return a


@pytest.fixture
def contrib():
    with od.features("contrib") as flipped:
        yield flipped


def test_variance_model_matches_opendp(contrib):
    """Both ddof, both S (make_variance uses Pairwise whatever S says), small and 2**50 bounds."""
    import random
    rng = random.Random(18)
    for bounds, n in (((0.0, 1.0), 5), ((-3.0, 10.0), 40), ((2.0 ** 50, 2.0 ** 50 + 1), 64)):
        for ddof in (0, 1):
            for S in ("Pairwise<f64>", "Sequential<f64>"):
                t = dp.t.make_variance(dp.vector_domain(dp.atom_domain(bounds=bounds, nan=False), size=n),
                                       dp.symmetric_distance(), ddof=ddof, S=S)
                for _ in range(3):
                    x = [rng.choice((rng.uniform(*bounds), *bounds)) for _ in range(n)]
                    assert t(x) == od.variance_model(x, bounds, ddof)


@pytest.mark.parametrize("ddof", [-1, 3, 1.0, True])
def test_variance_model_bad_ddof(ddof):
    with pytest.raises(InvalidArgument, match="ddof="):
        od.variance_model([1.0, 2.0, 3.0], (0.0, 4.0), ddof)


@on_016
@pytest.mark.parametrize("audit_id, ddof, claim, moved", [
    ("opendp/variance/variance", 1, F(5719659487716797, 2**57), F(282575563129857, 2**52)),
    ("opendp/variance/variance-ddof0", 0, F(5714073882748323, 2**57), F(1027, 16384)),
    ("opendp/variance/variance-sequential", 1, F(5719659487716797, 2**57), F(282575563129857, 2**52)),
])
def test_variance_audits_violated_and_replayed(contrib, audit_id, ddof, claim, moved):
    """The issue's figures: 0.0627 against a claimed 0.0397 (ratio 1.58), replayed."""
    f = _audit(audit_id).check().enforced()
    assert (f.verdict, f.replay, f.evidence) == (Verdict.VIOLATED, Replay.CONFIRMED, Evidence.BIT_EXACT)
    assert f.witness["x"] == "[2**50 + 1/4] * 1024"
    assert f.witness["x_prime"] == "[2**50 + 1] + [2**50 + 1/4] * 1023"
    assert f.witness["fx"] == "0.0" and F(f.witness["distance"]) == moved
    assert f.witness["ratio"] == "1.581"
    assert f"OpenDP: {f.claim}" in f.truth and str(claim.numerator) in f.claim
    # the replay itself: OpenDP's own outputs on the two datasets
    M = 2.0 ** 50
    t = dp.t.make_variance(dp.vector_domain(dp.atom_domain(bounds=(M, M + 1.0), nan=False), size=1024),
                           dp.symmetric_distance(), ddof=ddof)
    x, y = [M + 0.25] * 1024, [M + 1.0] + [M + 0.25] * 1023
    assert od.exact(t.map(2)) == claim
    assert abs(od.exact(t(x)) - od.exact(t(y))) == moved > claim


@on_016
def test_geometric_bounded_holds_on_grid():
    f = _audit("opendp/geometric/bounded").check().enforced()
    assert (f.verdict, f.evidence, f.replay) == (Verdict.HOLDS_ON_GRID, Evidence.BIT_EXACT_GRID, None)
    assert "45 settings" in f.truth and "relative gap -3.38e-17" in f.truth
    assert "sanity check, not evidence: 1000 draws" in f.note


@on_016
def test_geometric_recip_rounding_edge_is_undecided(contrib):
    f = _audit("opendp/geometric/bounded-recip-rounding").check().enforced()
    assert f.verdict is Verdict.UNDECIDED and f.evidence is None and f.witness is None
    assert "above the claim (relative 6.78e-17)" in f.truth
    assert "rounded to nearest, not toward more noise" in f.note
    m = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                            scale=13.635390889451635, bounds=(0, 5))
    assert od.exact(m.map(5)) == F(6605750673205107, 18014398509481984)
    # at OpenDP's largest possible p the sampled epsilon is above the claim; 1 ulp less of p is not
    q = geometric_p(13.635390889451635)
    ratio = OpenDPBoundedGeometric(q.upper, 0, 5).max_ratio_at(5)
    assert ratio == (1 / (1 - q.upper)) ** 5
    assert suite._ln_cmp(ratio, od.exact(m.map(5))) == 1
    below = q.upper - F(1, 2**56)
    assert suite._ln_cmp((1 / (1 - below)) ** 5, od.exact(m.map(5))) == -1
