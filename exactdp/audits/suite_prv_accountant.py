"""The audit suite of Microsoft's prv_accountant (``exactdp audit prv-accountant``): the bounds
of ``PRVAccountant.compute_epsilon`` judged against exactdp's certified epsilons.

Every audit calls ``PRVAccountant(...).compute_epsilon(delta, [k])`` through
:mod:`exactdp.adapters.prv_accountant`, which returns "lower bound for epsilon, estimate for
epsilon and upper bound for epsilon" (its docstring), and reads each float at its exact binary
value. The upper bound is judged as an upper bound (``violated`` below exactdp's certified
lower end, holds at or above the upper end, ``undecided`` inside); the lower bound as a lower
bound (violated above the certified upper end, holds at or below the lower end); the
estimate is reported beside, in the table, never judged.

For DP-SGD prv_accountant accounts one direction of add/remove neighbours, the *remove* pair
(the mixture against the plain Gaussian); exactdp's enclosure holds that direction's epsilon
too (its lower end comes from a pair below the remove pair, its upper end is the larger of
both directions), so each verdict applies to prv_accountant's own pair.

Grids, enclosures, judging and evidence are those of the dp_accounting suite
(:mod:`exactdp.audits.suite_dp_accounting`: one accountant configuration over a named grid,
``bit-exact-grid``; a violation ``bit-exact`` at its witness, replayed). The pure-DP grid is the
dp_accounting suite's discrete-Laplace grid (``PureDPMechanism(eps)`` is the discrete Laplace
of scale ``1/eps``). The library is imported only inside the checks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from fractions import Fraction

from exactdp.adapters._calls import call_library
from exactdp.audits.base import Audit, Finding, Severity
from exactdp.audits.coverage import public_callables
from exactdp.audits.suite_dp_accounting import (
    DISCRETE_LAPLACE, DP_SGD, GAUSSIAN, SUBSAMPLED_WIDTH, Point, grid_finding, grid_scope,
    worst_underestimate,
)
from exactdp.adapters import prv_accountant as adapter

__all__ = ["DISTRIBUTION", "EXTRA", "CHECKED_ON", "SUPPORTED", "EPS_ERRORS", "PURE_DP", "LAPLACE", "APPROX_DP", "EDGES",
           "primitives", "NOT_AUDITED", "audits"]

DISTRIBUTION = "prv-accountant"
EXTRA = "prv-accountant"
CHECKED_ON = ("0.2.0",)
"""The versions this suite was checked on (its expectations are pinned there)."""
SUPPORTED = ">=0.2"
"""The versions it applies to (those of exactdp's ``prv-accountant`` extra)."""

_SOURCE = "https://github.com/microsoft/prv_accountant"

EPS_ERRORS = (0.1, 0.01)
"""The ``eps_error`` values audited (0.1: DPSGDAccountant's default; 0.01: Opacus's)."""

PURE_DP = tuple(Point("pure-dp", (("eps", dict(p.params)["a"]),), p.k, p.delta, p.widths) for p in DISCRETE_LAPLACE)

_FAMILIES = {"dp-sgd": DP_SGD, "gaussian": GAUSSIAN, "pure-dp": PURE_DP}


def _A():
    adapter.require()
    return adapter


def _check(family: str, eps_error: float, which: str) -> Callable[[], Finding]:
    """Judge the ``which`` (``"upper"`` or ``"lower"``) bound over ``family``'s grid; the two
    other numbers of the same call go beside it in the table."""
    def check() -> Finding:
        A = _A()
        points = _FAMILIES[family]

        def read(p: Point):
            lower, estimate, upper = call_library(
                f"prv_accountant PRVAccountant(eps_error={eps_error:g}).compute_epsilon at {p.label}",
                A.epsilon_bounds, p.kind, p.library_params(), p.k, p.delta, eps_error)
            if which == "upper":
                return upper, (("estimate", estimate), ("lower bound", lower))
            return lower, (("estimate", estimate), ("upper bound", upper))
        how = (f"PRVAccountant(prvs=[prv], max_self_compositions=[k], eps_error={eps_error:g}, "
               f"delta_error=delta/1000).compute_epsilon(delta, [k]), its {which} bound")
        relation = _relation_text(family)
        return grid_finding(points, read, which, scope=grid_scope(points, how, relation),
                            what=f"prv_accountant's {which} bound (eps_error {eps_error:g})")
    return check


_NARROWER = Fraction(1, 10**4)
LAPLACE = tuple(Point("laplace", (("mu", mu),), k, d) for mu, k, d in ((0.5, 10, 1e-5), (1.0, 1, 1e-6)))
"""``LaplaceMechanism(mu)``: the Laplace mechanism of scale ``1/mu`` (on exactdp's certified grid: 1e-3 then 1e-4)."""
LAPLACE = tuple(Point(p.kind, p.params, p.k, p.delta, (SUBSAMPLED_WIDTH, _NARROWER)) for p in LAPLACE)
APPROX_DP = (Point("approx-dp", (("eps", 0.5), ("delta0", 1e-7)), 10, 1e-5),
             Point("approx-dp", (("eps", 1.0), ("delta0", 1e-3)), 10, 1e-5))
"""``ApproximateDPMechanism(eps, delta0)``: the second point's delta lies below ``1 - (1 - delta0)**k``
(no finite epsilon: the library must say infinity)."""
EDGES = (Point("gaussian", (("sigma", 1e6),), 1, 1e-5), Point("gaussian", (("sigma", 1.0),), 1, 1e-300),
         Point("gaussian", (("sigma", 1.0),), 1, 5e-324), Point("pure-dp", (("eps", 1e-6),), 10, 1e-5),
         Point("pure-dp", (("eps", 50.0),), 1, 1e-5),
         Point("poisson-gaussian", (("q", 1e-9), ("sigma", 1.0)), 10, 1e-5, (SUBSAMPLED_WIDTH,)))
"""Extreme settings: sigma 1e6, delta 1e-300 and the smallest subnormal, eps 1e-6 and 50, q 1e-9
(sigma 1e-3 is left out: prv_accountant takes 5 minutes there)."""

_FAMILIES.update({"laplace": LAPLACE, "approx-dp": APPROX_DP, "edges": EDGES})

_RV = "prv_accountant.privacy_random_variables."
_COVERS = {"dp-sgd": (_RV + "PoissonSubsampledGaussianMechanism",), "gaussian": (_RV + "GaussianMechanism",),
           "pure-dp": (_RV + "PureDPMechanism",), "laplace": (_RV + "LaplaceMechanism",),
           "approx-dp": (_RV + "ApproximateDPMechanism",),
           "edges": (_RV + "GaussianMechanism", _RV + "PureDPMechanism", _RV + "PoissonSubsampledGaussianMechanism")}


def primitives() -> list[str]:
    """prv_accountant's accounting primitives, from its namespaces (``prv_accountant``,
    ``prv_accountant.privacy_random_variables``, ``prv_accountant.dpsgd``,
    ``prv_accountant.other_accountants``), each once, under the first namespace that shows
    it. Left out: the abstract ``PrivacyRandomVariable`` and ``PrivacyRandomVariableTruncated``
    (PRVAccountant's internal wrapper), and what the modules import from elsewhere (NumPy,
    SciPy, typing)."""
    _A()
    seen, out = set(), []
    for space in ("prv_accountant.privacy_random_variables", "prv_accountant", "prv_accountant.dpsgd",
                  "prv_accountant.other_accountants"):
        module = importlib.import_module(space)
        for name in public_callables(space, exclude=["*.PrivacyRandomVariable", "*.PrivacyRandomVariableTruncated"]):
            obj = getattr(module, name.rsplit(".", 1)[1])
            if not getattr(obj, "__module__", "").startswith("prv_accountant") or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append(name)
    return out


NOT_AUDITED: dict[str, str] = {}
"""Every listed primitive has an audit."""


def _severity(family: str, eps_error: float) -> Callable[[], Severity]:
    def step() -> Severity:
        A = _A()

        def read(p: Point):
            return call_library(f"prv_accountant PRVAccountant(eps_error={eps_error:g}).compute_epsilon at {p.label}",
                                A.epsilon_bounds, p.kind, p.library_params(), p.k, p.delta, eps_error)[2]
        return worst_underestimate(_FAMILIES[family], read, f"certified epsilon(delta) against prv_accountant's "
                                                            f"upper bound (eps_error {eps_error:g})")
    return step


def _estimate_check(family: str, eps_error: float) -> Callable[[], Finding]:
    """The estimate judged as the epsilon within ``eps_error`` (the constructor's "maximum
    error allowed in epsilon")."""
    def check() -> Finding:
        A = _A()
        points = _FAMILIES[family]

        def read(p: Point):
            return call_library(f"prv_accountant PRVAccountant(eps_error={eps_error:g}).compute_epsilon at {p.label}",
                                A.epsilon_bounds, p.kind, p.library_params(), p.k, p.delta, eps_error)[1]
        how = (f"PRVAccountant(prvs=[prv], max_self_compositions=[k], eps_error={eps_error:g}, delta_error=delta/1000)"
               f".compute_epsilon(delta, [k]), its estimate")
        return grid_finding(points, read, ("within", Fraction(eps_error), f"eps_error {eps_error:g}"),
                            scope=grid_scope(points, how, _relation_text(family)),
                            what=f"prv_accountant's estimate (eps_error {eps_error:g})")
    return check


def _relation_text(family: str) -> str:
    return ("remove direction of add/remove (prv_accountant's pair); exactdp's enclosure holds it"
            if family in ("dp-sgd", "edges") else "the mechanism's dominating pair")


def _other_check(which: str) -> Callable[[], Finding]:
    """DPSGDAccountant, the deprecated Accountant (upper bounds) and other_accountants.RDP."""
    def check() -> Finding:
        A = _A()
        if which == "rdp":
            points = GAUSSIAN[1:] + PURE_DP[2:3] + LAPLACE[:1]

            def read(p: Point):
                return call_library(f"prv_accountant other_accountants.RDP at {p.label}", A.rdp_bounds, p.kind,
                                    p.library_params(), p.k, p.delta)[2]
            how = "other_accountants.RDP(prvs=[prv]).compute_epsilon(delta, [k]) (its default orders), its upper bound"
        else:
            points = DP_SGD[4:5] + (Point("poisson-gaussian", (("q", 0.1), ("sigma", 2.0)), 20, 1e-5,
                                          (SUBSAMPLED_WIDTH, _NARROWER)),)
            fn = A.dpsgd_bounds if which == "dpsgd" else A.legacy_bounds

            def read(p: Point):
                v = p.library_params()
                return call_library(f"prv_accountant {which} at {p.label}", fn, v["q"], v["sigma"], p.k, p.delta)[2]
            how = ("dpsgd.DPSGDAccountant(sigma, q, max_steps=k).compute_epsilon(delta, k)" if which == "dpsgd" else
                   "Accountant(sigma, q, delta, max_compositions=k, eps_error=0.1).compute_epsilon(k)") + ", its upper bound"
        return grid_finding(points, read, "upper", scope=grid_scope(points, how, _relation_text("dp-sgd")),
                            what=f"prv_accountant's {which} epsilon")
    return check


def _find_noise_check() -> Finding:
    """``find_noise_multiplier(q, k, eps, delta, eps_error)``: the certified epsilon at the
    noise multiplier it returns is at most ``eps + eps_error`` (the error it allows)."""
    A = _A()
    settings = ((0.1, 50, 2.0, 1e-5, 0.1),)
    at = {}
    for s in settings:
        sigma = call_library(f"prv_accountant find_noise_multiplier{s!r}", A.find_noise_multiplier, *s)
        at[Point("poisson-gaussian", (("q", s[0]), ("sigma", sigma)), s[1], s[3], (SUBSAMPLED_WIDTH, _NARROWER))] = s

    def read(p: Point):
        s = at[p]
        again = call_library(f"prv_accountant find_noise_multiplier{s!r}", A.find_noise_multiplier, *s)
        return Fraction(s[2]) + Fraction(s[4]) if again == p.library_params()["sigma"] else Fraction(-1)
    points = list(at)
    return grid_finding(points, read, "upper", scope=grid_scope(
        points, "dpsgd.find_noise_multiplier(q, k, target_epsilon, delta, eps_error): the certified epsilon at the "
                "sigma it returns must be at most target_epsilon + eps_error", _relation_text("dp-sgd")),
        what="the target epsilon + eps_error find_noise_multiplier calibrated for")


def audits() -> list[Audit]:
    """Upper and lower bounds and the estimate at two eps_error values over the grids (DP-SGD,
    Gaussian, pure DP, Laplace, approximate DP, edges); DPSGDAccountant, Accountant, RDP and
    find_noise_multiplier."""
    out = []
    family_text = {"dp-sgd": "DP-SGD run k steps", "gaussian": "the Gaussian composed k times",
                   "pure-dp": "a pure eps-DP pair composed k times", "laplace": "the Laplace mechanism composed k times",
                   "approx-dp": "the (eps, delta0)-DP pair composed k times", "edges": "extreme settings"}
    acc = "prv_accountant.PRVAccountant"
    for eps_error in EPS_ERRORS:
        for which in ("upper", "lower", "estimate"):
            for family in _FAMILIES:
                if family in ("laplace", "approx-dp", "edges") and eps_error != EPS_ERRORS[0]:
                    continue
                id_ = f"{which}/eps-error-{eps_error:g}/{family}"
                claim = (f"its estimate is the epsilon of {family_text[family]} within eps_error" if which == "estimate"
                         else f"its {which} bound is {'at least' if which == 'upper' else 'at most'} the epsilon "
                              f"of {family_text[family]}")
                out.append(Audit(
                    id=f"prv-accountant/{id_}", library="prv_accountant",
                    component=f"PRVAccountant.compute_epsilon (eps_error {eps_error:g})", claim=claim,
                    check=_estimate_check(family, eps_error) if which == "estimate" else _check(family, eps_error, which),
                    versions=">=0.2", source=_SOURCE, expect=_EXPECT.get(id_, {}), covers=(acc,) + _COVERS[family],
                    severity=_severity(family, eps_error) if which == "upper" else None))
    for which, label, covers in (("dpsgd", "dpsgd.DPSGDAccountant", "prv_accountant.dpsgd.DPSGDAccountant"),
                                 ("legacy", "Accountant (deprecated)", "prv_accountant.Accountant"),
                                 ("rdp", "other_accountants.RDP", "prv_accountant.other_accountants.RDP")):
        out.append(Audit(id=f"prv-accountant/{which}", library="prv_accountant", component=label,
                         claim="its upper bound is at least the certified epsilon", check=_other_check(which),
                         versions=">=0.2", source=_SOURCE, expect=_EXPECT.get(which, {}), covers=(covers,)))
    out.append(Audit(id="prv-accountant/find_noise_multiplier", library="prv_accountant",
                     component="dpsgd.find_noise_multiplier",
                     claim="the sigma it returns meets target_epsilon + eps_error at the target delta",
                     check=_find_noise_check, versions=">=0.2", source=_SOURCE,
                     covers=("prv_accountant.dpsgd.find_noise_multiplier",)))
    return out


_EXPECT: dict[str, dict[str, str]] = {
    f"{which}/eps-error-{e:g}/{family}": {"==0.2.0": "holds-on-grid"}
    for e in EPS_ERRORS for which in ("upper", "lower", "estimate") for family in _FAMILIES}
_EXPECT.update({which: {"==0.2.0": "holds-on-grid"} for which in ("dpsgd", "legacy", "rdp")})
"""Audit id (after ``prv-accountant/``) -> the verdict measured on prv_accountant 0.2.0 (2026-11-26:
every bound holds on the grids; PureDPMechanism(0.2), k = 1000, delta = 1e-5 raises "Discrete mean
differs from continuous mean significantly" and is listed, not judged)."""
