"""The audit suite of Meta's Opacus (``exactdp audit opacus``): the epsilons of its privacy
accountants for DP-SGD judged against exactdp's certified ones.

Every audit drives one of Opacus's own accountants (``opacus.accountants``) through
:mod:`exactdp.adapters.opacus` as its ``DPOptimizer`` does (``step(noise_multiplier=sigma,
sample_rate=q)`` once per training step, then ``get_epsilon(delta)``) and reads the float it
returns at its exact binary value. The truth is exactdp's certified enclosure of
``epsilon(delta)`` of the Poisson-subsampled Gaussian composed ``k`` times (add/remove
neighbours; :func:`~exactdp.mechanisms.accountant.account`), at the exact binary values of
the floats Opacus was given, on the DP-SGD grid of the dp_accounting suite
(:data:`~exactdp.audits.suite_dp_accounting.DP_SGD`; the enclosures are shared and cached).

What Opacus documents, and how each number is judged:

* ``RDPAccountant`` (``get_noise_multiplier``'s default): Renyi DP converted to
  ``(epsilon, delta)``, an upper bound: ``violated`` below the certified lower end, holds at or
  above the upper end, ``undecided`` inside;
* ``PRVAccountant`` (``PrivacyEngine``'s default): ``get_epsilon`` returns the upper end of its
  PRV enclosure ("return upper bound as we want guarantee, not just estimate"), judged the
  same way. Its privacy random
  variable is the *remove* direction of add/remove; exactdp's enclosure holds that direction's
  epsilon too (its lower end comes from a pair below the remove pair), so a verdict applies to
  Opacus's own pair;
* ``GaussianAccountant`` (GDP): a central-limit approximation that Opacus itself warns "can
  underestimate privacy expenditure": an estimate, reported beside the PRV numbers in that
  audit's table (its error against the certified truth), never judged.

The noise Opacus picks for a target: ``get_noise_multiplier`` (behind
``PrivacyEngine.make_private_with_epsilon``, documented to return "an appropriate sigma to
ensure privacy budget of (target_epsilon, target_delta)") with the RDP and PRV accountants:
the target epsilon is judged as an upper bound on the certified epsilon of DP-SGD at the sigma
returned (violated if the certified lower end exceeds the target); with the GDP accountant the
same is reported beside, not judged (the accountant is documented as an approximation).

Evidence: ``bit-exact-grid`` (the library's own numbers at exact values, the truth certified,
on the grid the scope names); a violation is the library's number at its witness point,
replayed (the accountant run again returns the same float), ``bit-exact``. The note of each
audit is the table users cite. Opacus (and torch) is imported only inside the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

from exactdp.audits.base import Audit, Finding
from exactdp.audits.suite_dp_accounting import (
    DP_SGD, SUBSAMPLED_WIDTH, Point, certified, grid_finding, grid_scope,
)

__all__ = ["DISTRIBUTION", "EXTRA", "CHECKED_ON", "SUPPORTED", "GRID", "TARGETS", "audits"]

DISTRIBUTION = "opacus"
EXTRA = "opacus"
INSTALL_NOTE = ("it needs torch, and pip takes a CUDA build of several GB unless torch is installed "
                "first: an environment of its own, .ci/opacus and docs/opacus-environment.md")
"""Said when Opacus is missing: what the extra alone would install."""
CHECKED_ON = ("1.6.0",)
"""The versions this suite was checked on (its expectations are pinned there)."""
SUPPORTED = ">=1.4"
"""The versions it applies to (``opacus.accountants`` with ``create_accountant`` and the PRV
accountant's ``get_epsilon(delta, eps_error=..., delta_error=...)``)."""

_SOURCE = "https://github.com/pytorch/opacus/tree/main/opacus/accountants"

GRID = DP_SGD
"""DP-SGD points (q, sigma, k, delta), shared with the dp_accounting and prv_accountant suites."""

_RELATION = {
    "rdp": "add/remove (the sampled Gaussian's RDP, Mironov, Talwar and Zhang 2019, bounds both "
           "directions); exactdp's enclosure is of the larger of the remove and add directions",
    "prv": "remove direction of add/remove (Opacus's PoissonSubsampledGaussianPRV); exactdp's "
           "enclosure holds it",
}

_HOW = {
    "rdp": "RDPAccountant(), step(noise_multiplier=sigma, sample_rate=q) k times, get_epsilon(delta) "
           "(its DEFAULT_ALPHAS; Balle et al. 2020 Thm. 21 conversion)",
    "prv": "PRVAccountant(), step(noise_multiplier=sigma, sample_rate=q) k times, get_epsilon(delta) "
           "(eps_error=0.01, delta_error=delta/1000: its defaults; the upper end of its enclosure); "
           "beside: GaussianAccountant(), the same steps, get_epsilon(delta, poisson=True) (a CLT "
           "approximation, reported, not judged)",
}


def _A():
    from exactdp.adapters import opacus as adapter

    adapter.require()
    return adapter


def _check(accountant: str) -> Callable[[], Finding]:
    def check() -> Finding:
        from exactdp.audits.base import call_library
        from exactdp.errors import LibraryCallFailed

        A = _A()

        def read(p: Point):
            value = call_library(f"opacus {accountant.upper()} accountant at {p.label}",
                                 A.epsilon, accountant, p.library_params(), p.k, p.delta)
            if accountant != "prv":
                return value
            try:
                gdp = call_library(f"opacus GDP accountant at {p.label}", A.gdp_epsilon,
                                   p.library_params(), p.k, p.delta)
            except LibraryCallFailed:
                return value
            return value, (("GDP (CLT approximation, not judged)", gdp),)

        scope = grid_scope(GRID, _HOW[accountant], _RELATION[accountant])
        return grid_finding(GRID, read, "upper", scope=scope,
                            what=f"Opacus's {accountant.upper()} accountant's epsilon")
    return check


TARGETS = ((0.1, 50, 1e-5, 1.5), (0.05, 200, 1e-5, 2.5))
"""``(q, k, delta, target_epsilon)`` given to ``get_noise_multiplier`` (its default
``epsilon_tolerance=0.01``)."""

_NARROWER = Fraction(1, 10**4)


def _noise_point(q: float, sigma: float, k: int, delta: float) -> Point:
    return Point("poisson-gaussian", (("q", q), ("sigma", sigma)), k, delta, (SUBSAMPLED_WIDTH, _NARROWER))


def _noise_check(accountant: str) -> Callable[[], Finding]:
    """The target epsilon judged as an upper bound on the certified epsilon at the sigma
    Opacus returned for it (replayed: the same call returns the same sigma)."""
    def check() -> Finding:
        from exactdp.audits.base import call_library

        A = _A()

        def sigma_for(target) -> float:
            q, k, delta, eps = target
            return call_library(f"opacus get_noise_multiplier(accountant={accountant!r}) for epsilon {eps!r} "
                                f"at q={q!r} k={k} delta={delta!r}", A.noise_multiplier, accountant, eps, delta, q, k)
        targets = {}
        for target in TARGETS:
            q, k, delta, eps = target
            targets[_noise_point(q, sigma_for(target), k, delta)] = target
        asked: set[Point] = set()

        def read(p: Point):
            target = targets[p]
            if p in asked and sigma_for(target) != dict(p.params)["sigma"]:
                return None  # the replay returned another sigma
            asked.add(p)
            return Fraction(target[3])
        how = (f"opacus.accountants.utils.get_noise_multiplier(target_epsilon, target_delta=delta, sample_rate=q, "
               f"steps=k, accountant={accountant!r}) (epsilon_tolerance 0.01), the sigma it returns read exactly; "
               f"the number judged is the target epsilon, at that sigma (targets: "
               + "; ".join(f"epsilon {t[3]!r} at q={t[0]!r} k={t[1]} delta={t[2]!r}" for t in TARGETS) + ")")
        points = list(targets)
        finding = grid_finding(points, read, "upper", scope=grid_scope(points, how, _RELATION[accountant]),
                               what=f"the target epsilon at the sigma get_noise_multiplier(accountant="
                                    f"{accountant!r}) returned")
        if accountant != "prv":
            return finding
        return replace(finding, note=finding.note + "\n  beside, not judged: " + "; ".join(_gdp_beside(sigma_for)))
    return check


def _gdp_beside(sigma_for) -> list[str]:
    """With ``accountant="gdp"``: the certified epsilon at the sigma GDP picks, against the target."""
    from exactdp.audits.base import call_library

    A = _A()
    out = []
    for q, k, delta, eps in TARGETS:
        sigma = call_library(f"opacus get_noise_multiplier(accountant='gdp') for epsilon {eps!r}",
                             A.noise_multiplier, "gdp", eps, delta, q, k)
        enc = certified(_noise_point(q, sigma, k, delta), SUBSAMPLED_WIDTH)
        lo, hi = enc.decimal_bounds()
        over = (f"the truth exceeds the target by at least {float(enc.lower - Fraction(eps)):.3g}"
                if enc.lower > Fraction(eps) else "the target is not exceeded")
        out.append(f"accountant='gdp' for epsilon {eps!r} at q={q!r} k={k} delta={delta!r} returns sigma={sigma!r}: "
                   f"certified epsilon in [{lo}, {hi}], {over}")
    return out


def audits() -> list[Audit]:
    """Opacus's RDP and PRV accountants over the DP-SGD grid (GDP reported beside PRV), and the
    noise ``get_noise_multiplier`` picks with each (GDP's beside)."""
    component = {"rdp": "RDPAccountant.get_epsilon", "prv": "PRVAccountant.get_epsilon (GDP beside)"}
    return [Audit(id=f"opacus/{acc}/dp-sgd", library="opacus", component=component[acc],
                  claim="its epsilon(delta) of DP-SGD run k steps is an upper bound",
                  check=_check(acc), versions=SUPPORTED, source=_SOURCE,
                  expect=_EXPECT.get(f"{acc}/dp-sgd", {}))
            for acc in ("rdp", "prv")] + [
        Audit(id=f"opacus/noise-multiplier-{acc}/dp-sgd", library="opacus",
              component=f"get_noise_multiplier(accountant={acc!r})" + (" (GDP beside)" if acc == "prv" else ""),
              claim="the sigma it returns for (target_epsilon, target_delta) keeps DP-SGD's epsilon at most the target",
              check=_noise_check(acc), versions=SUPPORTED, source=_SOURCE,
              expect=_EXPECT.get(f"noise-multiplier-{acc}/dp-sgd", {}))
        for acc in ("rdp", "prv")]


_EXPECT: dict[str, dict[str, str]] = {
    "rdp/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "prv/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "noise-multiplier-rdp/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "noise-multiplier-prv/dp-sgd": {"==1.6.0": "holds-on-grid"},
}
"""Audit id (after ``opacus/``) -> the verdict measured on Opacus 1.6.0 (2026-11-26; with GDP, reported
beside, get_noise_multiplier's sigma leaves the certified epsilon 0.21 and 0.31 above its target)."""
