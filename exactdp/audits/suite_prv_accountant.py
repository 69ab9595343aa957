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

from collections.abc import Callable

from exactdp.audits.base import Audit, Finding
from exactdp.audits.suite_dp_accounting import (
    DISCRETE_LAPLACE, DP_SGD, GAUSSIAN, Point, grid_finding, grid_scope,
)

__all__ = ["DISTRIBUTION", "EXTRA", "CHECKED_ON", "SUPPORTED", "EPS_ERRORS", "PURE_DP", "audits"]

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
    from exactdp.adapters import prv_accountant as adapter

    adapter.require()
    return adapter


def _check(family: str, eps_error: float, which: str) -> Callable[[], Finding]:
    """Judge the ``which`` (``"upper"`` or ``"lower"``) bound over ``family``'s grid; the two
    other numbers of the same call go beside it in the table."""
    def check() -> Finding:
        from exactdp.audits.base import call_library

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
        relation = ("remove direction of add/remove (prv_accountant's pair); exactdp's enclosure holds it"
                    if family == "dp-sgd" else "the mechanism's dominating pair (symmetric)")
        return grid_finding(points, read, which, scope=grid_scope(points, how, relation),
                            what=f"prv_accountant's {which} bound (eps_error {eps_error:g})")
    return check


def audits() -> list[Audit]:
    """Upper and lower bounds at two eps_error values over three grids."""
    out = []
    family_text = {"dp-sgd": "DP-SGD run k steps", "gaussian": "the Gaussian composed k times",
                   "pure-dp": "a pure eps-DP pair composed k times"}
    for eps_error in EPS_ERRORS:
        for which in ("upper", "lower"):
            for family in _FAMILIES:
                id_ = f"{which}/eps-error-{eps_error:g}/{family}"
                out.append(Audit(
                    id=f"prv-accountant/{id_}", library="prv_accountant",
                    component=f"PRVAccountant.compute_epsilon (eps_error {eps_error:g})",
                    claim=f"its {which} bound is {'at least' if which == 'upper' else 'at most'} the epsilon "
                          f"of {family_text[family]}",
                    check=_check(family, eps_error, which), versions=">=0.2", source=_SOURCE,
                    expect=_EXPECT.get(id_, {})))
    return out


_EXPECT: dict[str, dict[str, str]] = {
    f"{which}/eps-error-{e:g}/{family}": {"==0.2.0": "holds-on-grid"}
    for e in EPS_ERRORS for which in ("upper", "lower") for family in _FAMILIES}
"""Audit id (after ``prv-accountant/``) -> the verdict measured on prv_accountant 0.2.0 (2026-11-26:
every bound holds on the grids; PureDPMechanism(0.2), k = 1000, delta = 1e-5 raises "Discrete mean
differs from continuous mean significantly" and is listed, not judged)."""
