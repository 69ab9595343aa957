"""The :func:`~exactdp.audits.objects.audit_object` reader of Opacus accountants.

An Opacus accountant (``RDPAccountant``, ``PRVAccountant``, ``GaussianAccountant``, or any
``opacus.accountants.IAccountant`` keeping the same ``history``) records what its
``DPOptimizer`` did: ``history`` is a list of ``(noise_multiplier, sample_rate, steps)``.
The audit reads that history and the epsilon the accountant reports for ``delta`` (the
option ``delta``, default ``1e-5``), and judges it as an upper bound against exactdp's
certified enclosure of DP-SGD's ``epsilon(delta)``: the Poisson-subsampled Gaussian of rate
``q`` and noise multiplier ``sigma`` composed over all the steps (add/remove neighbours; the
floats at their exact binary values). ``violated`` below the certified lower end (the
witness is the history and delta, replayed by asking the accountant again), holds at or
above the upper end (``bit-exact``: one configuration is the whole scope), ``undecided``
inside. A history of several different ``(sigma, q)`` is refused in one line (exactdp's
accountant composes one mechanism ``k`` times).
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Settings, refuse_unknown_options
from exactdp.audits.suite_dp_accounting import SUBSAMPLED_WIDTH, Point, judge
from exactdp.checkers.results import Evidence, Verdict
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import library_number

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "reads", "audit_of"]

DISTRIBUTION = "opacus"
EXTRA = "opacus"
OPTIONS = ("delta", "width")
"""The options :func:`audit_of` takes."""

_NARROWER = Fraction(1, 10**4)


def reads(obj: object) -> bool:
    """Whether ``obj`` is an Opacus accountant (by its class's module and its ``history``)."""
    return type(obj).__module__.startswith("opacus.accountants") and hasattr(obj, "history") and hasattr(obj, "get_epsilon")


def _history(obj) -> tuple[float, float, int]:
    history = list(getattr(obj, "history", []) or [])
    if not history:
        raise InvalidArgument(f"the {type(obj).__name__} has an empty history: it has accounted no step yet; "
                              f"audit it after training (or step it: accountant.step(noise_multiplier=..., "
                              f"sample_rate=...))")
    pairs = {(float(s), float(q)) for s, q, _ in history}
    if len(pairs) > 1:
        raise InvalidArgument(f"the {type(obj).__name__}'s history holds {len(pairs)} different (noise_multiplier, "
                              f"sample_rate) pairs: exactdp's accountant composes one mechanism k times; audit "
                              f"each configuration apart")
    (sigma, q), = pairs
    steps = sum(int(n) for _, _, n in history)
    return sigma, q, steps


def audit_of(obj: object, **options: Any) -> Audit:
    """The audit of one Opacus accountant (see the module's note); options: ``delta``
    (default ``1e-5``, a float as Opacus takes it), ``width`` (the certified enclosure's
    relative width, default 1e-3 then 1e-4 where undecided)."""
    refuse_unknown_options(options, OPTIONS, "the Opacus reader")
    delta = options.get("delta", 1e-5)
    if isinstance(delta, bool) or not isinstance(delta, float) or not 0 < delta < 1:
        raise InvalidArgument(f"delta={delta!r}: expected a float in (0, 1), as Opacus takes it, such as 1e-5")
    widths = (Fraction(options["width"]),) if "width" in options else (SUBSAMPLED_WIDTH, _NARROWER)
    sigma, q, steps = _history(obj)
    point = Point("poisson-gaussian", (("q", q), ("sigma", sigma)), steps, delta, widths)
    name = type(obj).__name__
    poisson = {"poisson": True} if name == "GaussianAccountant" else {}

    def reported():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return library_number(call_library(f"opacus {name}.get_epsilon({delta!r})", obj.get_epsilon, delta,
                                               **poisson), "Opacus", infinite=True)

    def check() -> Finding:
        value = reported()
        verdict, enclosure = judge(point, value, "upper")
        lo, hi = enclosure.decimal_bounds()
        claim = f"{float(value)!r} at {point.label}"
        truth = f"epsilon in [{lo}, {hi}]"
        scope = (f"the accountant's history: DP-SGD (the Poisson-subsampled Gaussian) with noise multiplier "
                 f"{sigma!r}, sample rate {q!r}, {steps} steps, add/remove neighbours; its {name}.get_epsilon("
                 f"{delta!r}) read at its exact binary value against exactdp's certified enclosure")
        if verdict is Verdict.VIOLATED:
            witness = {"sigma": sigma, "q": q, "k": steps, "delta": delta, "library_value": float(value),
                       "certified_lower": lo, "certified_upper": hi}
            return Finding(claim=claim, truth=truth, verdict=verdict, witness=witness,
                           replay=Replay.of(reported() == value), evidence=Evidence.BIT_EXACT, scope=scope,
                           note=f"below the certified lower end by {float(enclosure.lower - value):.3g}",
                           settings=Settings(1, point.label))
        return Finding(claim=claim, truth=truth, verdict=Verdict.HOLDS if verdict is Verdict.HOLDS else verdict,
                       evidence=Evidence.BIT_EXACT, scope=scope, settings=Settings(1, point.label))

    return Audit(id=f"opacus/object/{name}", library="opacus", component=f"{name}.get_epsilon",
                 claim="its epsilon(delta) of the steps in its history is an upper bound", check=check,
                 covers=(f"opacus.accountants.{name}",))
