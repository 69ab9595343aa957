"""The audit suite of Meta's Opacus (``exactdp audit opacus``): the epsilons of its privacy
accountants for DP-SGD judged against exactdp's certified ones.

Every audit drives one of Opacus's own accountants (``opacus.accountants``) through
:mod:`exactdp.adapters.opacus` as its ``DPOptimizer`` does (``step(noise_multiplier=sigma,
sample_rate=q)`` once per training step, then ``get_epsilon(delta)``) and reads the float it
returns at its exact binary value. The truth is exactdp's certified enclosure of
``epsilon(delta)`` of the Poisson-subsampled Gaussian composed ``k`` times (add/remove
neighbours; :func:`~exactdp.mechanisms.accounting.accountant.account`), at the exact binary values of
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
  underestimate privacy expenditure". It still prints an epsilon that users report as their
  guarantee, so it is judged as the others are, as an upper bound (issue 25: no accountant
  number is only reported); the note says that Opacus documents it as an approximation.

The noise Opacus picks for a target: ``get_noise_multiplier`` (behind
``PrivacyEngine.make_private_with_epsilon``, documented to return "an appropriate sigma to
ensure privacy budget of (target_epsilon, target_delta)") with the RDP and PRV accountants:
the target epsilon is judged as an upper bound on the certified epsilon of DP-SGD at the sigma
returned (violated if the certified lower end exceeds the target), with each of the three
accountants.

``--depth full``: the GDP audits' severity step reports the worst certified excess over the
grid (the certified lower end against the epsilon Opacus printed, at the point where their
ratio is largest), replayed.

Coverage (``exactdp audit opacus --coverage``): :func:`primitives` lists the accountants and
noise calibration of ``opacus.accountants`` and the privacy engine's entry points.

Evidence: ``bit-exact-grid`` (the library's own numbers at exact values, the truth certified,
on the grid the scope names); a violation is the library's number at its witness point,
replayed (the accountant run again returns the same float), ``bit-exact``. The note of each
audit is the table users cite. Opacus (and torch) is imported only inside the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Severity
from exactdp.audits.suite_dp_accounting import (
    DP_SGD, SUBSAMPLED_WIDTH, Point, certified, grid_finding, grid_scope,
)
from exactdp.checkers.results import Evidence
from exactdp.adapters import opacus as adapter

__all__ = ["DISTRIBUTION", "EXTRA", "CHECKED_ON", "SUPPORTED", "GRID", "TARGETS", "ACCOUNTANT_NAMES", "ENGINE_TARGETS", "NOT_AUDITED",
           "audits", "primitives"]

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
    "gdp": "add/remove (mu-GDP of the subsampled Gaussian by the central limit theorem); exactdp's "
           "enclosure is of the larger of the remove and add directions",
}

_HOW = {
    "rdp": "RDPAccountant(), step(noise_multiplier=sigma, sample_rate=q) k times, get_epsilon(delta) "
           "(its DEFAULT_ALPHAS; Balle et al. 2020 Thm. 21 conversion)",
    "prv": "PRVAccountant(), step(noise_multiplier=sigma, sample_rate=q) k times, get_epsilon(delta) "
           "(eps_error=0.01, delta_error=delta/1000: its defaults; the upper end of its enclosure)",
    "gdp": "GaussianAccountant(), step(noise_multiplier=sigma, sample_rate=q) k times, get_epsilon(delta, "
           "poisson=True) (Bu et al.'s central-limit approximation; Opacus warns that it 'can underestimate "
           "privacy expenditure', yet prints it as the run's epsilon)",
}


def _A():
    adapter.require()
    return adapter


def _read_epsilon(accountant: str):
    """The epsilon Opacus's ``accountant`` prints at a grid point, exact (``call_library``)."""
    A = _A()

    def read(p: Point):
        return call_library(f"opacus {accountant.upper()} accountant at {p.label}",
                            A.epsilon, accountant, p.library_params(), p.k, p.delta)
    return read


def _check(accountant: str) -> Callable[[], Finding]:
    def check() -> Finding:
        scope = grid_scope(GRID, _HOW[accountant], _RELATION[accountant])
        return grid_finding(GRID, _read_epsilon(accountant), "upper", scope=scope,
                            what=f"Opacus's {accountant.upper()} accountant's epsilon")
    return check


def _worst(points, read, measure: str) -> Severity:
    """The grid point where the certified lower end exceeds the number Opacus printed by the
    largest ratio: its certified excess, replayed (the same call returns the same float)."""
    worst = None
    for p in points:
        value = read(p)
        if isinstance(value, float) or not value > 0:  # inf: nothing to exceed
            continue
        lower = certified(p, p.widths[-1]).lower
        if worst is None or lower / value > worst[2] / worst[1]:
            worst = (p, Fraction(value), Fraction(lower))
    if worst is None:
        return Severity(measure, None, None, note="no finite positive epsilon on the grid")
    p, value, lower = worst
    return Severity(measure, claim=value, worst=lower, at_least=True,
                    witness={**p.library_params(), "k": p.k, "delta": p.delta, "library_value": float(value)},
                    replay=Replay.of(read(p) == value), evidence=Evidence.BIT_EXACT,
                    scope=f"the {len(points)} grid points of the audit; the worst is at {p.label}",
                    note="worst = exactdp's certified lower end of epsilon(delta) (rounded down), against the "
                         "epsilon Opacus printed there")


def _severity(accountant: str) -> Callable[[], Severity]:
    def step() -> Severity:
        return _worst(GRID, _read_epsilon(accountant), f"certified epsilon(delta) against Opacus's "
                                                       f"{accountant.upper()} epsilon")
    return step


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
        return grid_finding(points, read, "upper", scope=grid_scope(points, how, _RELATION[accountant]),
                            what=f"the target epsilon at the sigma get_noise_multiplier(accountant="
                                 f"{accountant!r}) returned")
    return check


ENGINE_TARGETS = ((2.0, 1e-5, 1000, 10, 1),)
"""``(target_epsilon, delta, n, batch_size, epochs)`` given to
``PrivacyEngine.make_private_with_epsilon`` (its default PRV accountant)."""


def _engine_check() -> Finding:
    """The target epsilon judged as an upper bound on the certified epsilon of DP-SGD at the
    noise, sample rate and step count ``make_private_with_epsilon`` set (replayed: the same call
    sets the same noise)."""
    A = _A()

    def run(target):
        eps, delta, n, batch, epochs = target
        return call_library(f"opacus PrivacyEngine.make_private_with_epsilon(target_epsilon={eps!r}, "
                            f"target_delta={delta!r}) on {n} records in batches of {batch}, {epochs} epoch(s)",
                            A.engine_noise, eps, delta, n, batch, epochs)
    targets = {}
    for target in ENGINE_TARGETS:
        sigma, q, steps = run(target)
        targets[_noise_point(q, sigma, steps, target[1])] = target
    asked: set[Point] = set()

    def read(p: Point):
        target = targets[p]
        if p in asked:
            sigma, q, steps = run(target)
            if (sigma, q, steps) != (dict(p.params)["sigma"], dict(p.params)["q"], p.k):
                return None  # the replay set another noise
        asked.add(p)
        return Fraction(target[0])
    how = ("PrivacyEngine().make_private_with_epsilon(module, optimizer, data_loader, target_epsilon, target_delta, "
           "epochs, max_grad_norm=1.0) on a one-weight linear model, the optimizer's noise_multiplier and the "
           "loader's sample_rate read exactly, steps = epochs x batches; the number judged is the target epsilon")
    points = list(targets)
    return grid_finding(points, read, "upper", scope=grid_scope(points, how, _RELATION["prv"]),
                        what="the target epsilon at the noise make_private_with_epsilon set", single=len(points) == 1)


_PRIMITIVE_OF = {
    "rdp": "opacus.accountants.RDPAccountant", "prv": "opacus.accountants.PRVAccountant",
    "gdp": "opacus.accountants.GaussianAccountant",
}


def audits() -> list[Audit]:
    """Opacus's RDP, PRV and GDP accountants over the DP-SGD grid, and the noise
    ``get_noise_multiplier`` picks with each."""
    component = {"rdp": "RDPAccountant.get_epsilon", "prv": "PRVAccountant.get_epsilon",
                 "gdp": "GaussianAccountant.get_epsilon"}
    return [Audit(id=f"opacus/{acc}/dp-sgd", library="opacus", component=component[acc],
                  claim="its epsilon(delta) of DP-SGD run k steps is an upper bound",
                  check=_check(acc), versions=SUPPORTED, source=_SOURCE,
                  expect=_EXPECT.get(f"{acc}/dp-sgd", {}),
                  covers=(_PRIMITIVE_OF[acc], "opacus.accountants.create_accountant"),
                  severity=_severity(acc) if acc == "gdp" else None)
            for acc in ACCOUNTANT_NAMES] + [
        Audit(id=f"opacus/noise-multiplier-{acc}/dp-sgd", library="opacus",
              component=f"get_noise_multiplier(accountant={acc!r})",
              claim="the sigma it returns for (target_epsilon, target_delta) keeps DP-SGD's epsilon at most the target",
              check=_noise_check(acc), versions=SUPPORTED, source=_SOURCE,
              expect=_EXPECT.get(f"noise-multiplier-{acc}/dp-sgd", {}),
              covers=("opacus.accountants.utils.get_noise_multiplier", _PRIMITIVE_OF[acc]))
        for acc in ACCOUNTANT_NAMES] + [
        Audit(id="opacus/make-private-with-epsilon/dp-sgd", library="opacus",
              component="PrivacyEngine.make_private_with_epsilon",
              claim="the noise it sets for (target_epsilon, target_delta, epochs) keeps DP-SGD's epsilon at most the "
                    "target", check=_engine_check, versions=SUPPORTED, source=_SOURCE,
              expect=_EXPECT.get("make-private-with-epsilon/dp-sgd", {}),
              covers=("opacus.privacy_engine.PrivacyEngine.make_private_with_epsilon",
                      "opacus.accountants.utils.get_noise_multiplier", "opacus.accountants.PRVAccountant"))]


ACCOUNTANT_NAMES = ("rdp", "prv", "gdp")
"""The accountants audited (all of ``opacus.accountants.create_accountant``'s)."""


def primitives() -> list[str]:
    """Opacus's public primitives that account a budget or calibrate noise, from its own
    namespace: the accountant classes of ``opacus.accountants`` (every subclass of its
    ``IAccountant`` that it exports), ``create_accountant``, ``get_noise_multiplier``, and the
    privacy engine's calibrating entry point."""
    import inspect

    accountants = _A().require()
    names = [f"opacus.accountants.{n}" for n in sorted(getattr(accountants, "__all__", dir(accountants)))
             if inspect.isclass(getattr(accountants, n, None)) and issubclass(getattr(accountants, n), accountants.IAccountant)
             and getattr(accountants, n) is not accountants.IAccountant]
    return names + ["opacus.accountants.create_accountant", "opacus.accountants.utils.get_noise_multiplier",
                    "opacus.privacy_engine.PrivacyEngine.make_private_with_epsilon"]


NOT_AUDITED: dict[str, str] = {}
"""Listed primitives with no audit of their own, and why (none on Opacus 1.6.0)."""


_EXPECT: dict[str, dict[str, str]] = {
    "rdp/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "prv/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "gdp/dp-sgd": {"==1.6.0": "violated"},
    "noise-multiplier-rdp/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "noise-multiplier-prv/dp-sgd": {"==1.6.0": "holds-on-grid"},
    "noise-multiplier-gdp/dp-sgd": {"==1.6.0": "violated"},
    "make-private-with-epsilon/dp-sgd": {"==1.6.0": "holds"},
}
"""Audit id (after ``opacus/``) -> the verdict measured on Opacus 1.6.0 (2026-11-26 for RDP and PRV;
GDP judged since 2026-11-28: every GDP epsilon of the grid lies below the certified lower end, and
get_noise_multiplier's sigma with GDP leaves the certified epsilon 0.21 and 0.31 above its target)."""
