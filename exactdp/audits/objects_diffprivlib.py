"""The :func:`~exactdp.audits.objects.audit_object` reader of diffprivlib mechanisms.

A ``diffprivlib.mechanisms`` instance carries its claim: ``epsilon``, ``delta``,
``sensitivity`` and its parameters (bounds, utilities, labels). The reader takes each of
them at its exact binary value, reads the number the mechanism actually uses from the
object's own code (the Laplace scale its ``randomise`` multiplies by, ``_scale``, the
cumulative probabilities of the exponential mechanism, the uniform width, the noise bound),
and judges the claimed ``(epsilon, delta)`` (the option ``delta`` overrides the delta
judged) against the exact privacy loss of the model exactdp has of it:

* **bit-exact** where diffprivlib's sampler is counted over every draw ``k / 2**53`` of
  its ``random()``: ``Binary`` (two labels: the whole domain), ``ExponentialCategorical`` and
  ``ExponentialHierarchical`` (every pair of domain values: the whole domain, or the
  ``values`` given), ``Exponential`` (the neighbouring utility vectors of a grid: each
  utility moved by ``-s, 0, +s``, or the option ``values``, a list of utility lists:
  ``bit-exact-grid``), and the support ends of ``Geometric`` and ``GeometricTruncated``
  (the extreme draws, read from the library). A violation is replayed by running the
  object's ``randomise`` at the boundary draws.
* **ideal-noise** where only the parameter is modelled: ``Laplace``, ``LaplaceTruncated``
  and ``LaplaceFolded`` (truncation and folding are post-processing), ``LaplaceBoundedNoise``
  (the exact delta of the truncated Laplace at the library's scale and bound),
  ``LaplaceBoundedDomain`` (the attained loss of the bounded Laplace at its scale: a lower
  bound, so never a hold), ``Gaussian`` and ``GaussianAnalytic`` (Balle & Wang's exact
  delta), ``GaussianDiscrete`` (Canonne, Kamath & Steinke), ``Geometric*`` (the ratio
  ``exp(_scale)``), ``PermuteAndFlip``, ``Staircase``, ``Uniform`` and ``Snapping`` (the
  bound of the theorem it cites, at its float scale: a hold only).

``Bingham`` and ``Vector`` are not modelled: one line of :class:`InvalidArgument` says so.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.adapters.diffprivlib import (
    FixedDraws,
    binary_distribution,
    binary_keep_count,
    exponential_counts,
    first_true,
    geometric_extremes,
)
from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Settings, refuse_unknown_options
from exactdp.checkers.results import Evidence, Verdict
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.calibration.discrete import discrete_gaussian_delta
from exactdp.mechanisms.distribution import (
    Distribution,
    hockey_stick,
    pure_epsilon,
    shown,
)
from exactdp.mechanisms.calibration.gaussian import delta_of_sigma
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact, library_number
from exactdp.numeric.rounding import float_at_least, float_at_most

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "UNMODELLED", "audit_of", "judge", "modelled", "reads"]

DISTRIBUTION = "diffprivlib"
EXTRA = "diffprivlib"
OPTIONS = ("values", "delta")
"""The options :func:`audit_of` takes (``values``: the neighbouring inputs, for the
mechanisms whose neighbours are enumerated; ``delta``: the delta judged)."""

UNMODELLED = {
    "Bingham": "its sampler (Gibbs sampling on the sphere, Kent et al.) and its privacy "
               "loss over covariance matrices have no exact model in exactdp",
    "Vector": "objective perturbation (a Gamma-norm noise vector inside a training "
              "objective) has no exact model in exactdp",
}
"""diffprivlib mechanisms the reader refuses, and why."""

_GRID = 1 << 53
_VALUES_ACCEPTED = ("Exponential", "ExponentialCategorical", "ExponentialHierarchical", "Geometric",
                    "GeometricTruncated")
_MAX_NEIGHBOURS = 81


def reads(obj: object) -> bool:
    """Whether ``obj`` is a diffprivlib mechanism (by its class's module; no import)."""
    return type(obj).__module__.startswith("diffprivlib.mechanisms") and hasattr(obj, "randomise")


def _q(x) -> str:
    return format_exact(Fraction(x))


def _x(value) -> Fraction:
    return library_number(value, "diffprivlib")


def _rational(f: Fraction):
    import sympy  # lazy: SymPy is heavy, needed only when a judge runs

    return sympy.Rational(f.numerator, f.denominator)


def _compare(a, b) -> int:

    return compare(a, b)


def _shown(x) -> str:

    return shown(x, 20)


class _Ctx:
    """One object, its options, and what the audit says about it."""

    def __init__(self, obj, options: dict):
        self.obj = obj
        self.name = type(obj).__name__
        self.values = options.get("values")
        self.delta_option = options.get("delta")

    @property
    def epsilon(self) -> Fraction:
        return _x(self.obj.epsilon) if not math.isinf(float(self.obj.epsilon)) else None

    @property
    def delta(self) -> Fraction:
        d = self.delta_option if self.delta_option is not None else getattr(self.obj, "delta", 0.0)
        return _x(d)

    def params(self) -> str:
        keys = [k for k in ("epsilon", "delta", "sensitivity", "lower", "upper", "gamma") if hasattr(self.obj, k)]
        text = ", ".join(f"{k}={getattr(self.obj, k)!r}" for k in keys)
        if self.delta_option is not None:
            text += f"; delta judged {self.delta_option!r}"
        return text

    def finding(self, **kw) -> Finding:
        kw.setdefault("settings", Settings(1, self.params()))
        return Finding(**kw)


# --- Laplace, truncated, folded -----------------------------------------------------------


def _laplace_scale(obj) -> Fraction:
    """The scale ``randomise`` multiplies its standard Laplace draw by: the object's own
    ``Laplace.randomise`` run on a copy with the draw spied to 1, on the value 0."""
    from diffprivlib.mechanisms import (
        Laplace,  # lazy: the audited library, imported only when a check runs
    )

    mech = copy.copy(obj)
    mech._laplace_sampler = lambda *unif: 1.0
    out = call_library(f"diffprivlib {type(obj).__name__}.randomise (draw spied to 1)", Laplace.randomise, mech, 0.0)
    return -_x(out)


def _laplace_judge(c: _Ctx) -> Finding:
    import sympy  # lazy: SymPy is heavy, needed only when a judge runs

    b = _laplace_scale(c.obj)
    s, e, d = _x(c.obj.sensitivity), c.epsilon, c.delta
    if e is None:
        return c.finding(claim="inf", truth="epsilon = inf claims nothing", verdict=Verdict.HOLDS,
                         evidence=Evidence.BIT_EXACT, scope="epsilon is infinite")
    eps_true = Fraction(0) if s == 0 else (None if b == 0 else s / b)
    scope = ("the ideal Laplace distribution at the scale the object's randomise multiplies its draw by (read "
             "from the library at its exact binary value); its 4-uniform float sampler is not modelled"
             + ("; truncation/folding into [lower, upper] is post-processing" if c.name != "Laplace" else ""))
    witness = {"epsilon": float(c.obj.epsilon), "delta": float(d), "sensitivity": float(c.obj.sensitivity),
               "scale": _q(b), "scale_float": float(b), "epsilon_of_scale": "inf" if eps_true is None else _q(eps_true)}
    if eps_true is not None and eps_true <= e:
        ok = True
    elif eps_true is None or d == 0:
        ok = False
    else:  # delta(eps) = 1 - exp((eps - eps')/2) <= delta  <=>  (eps - eps')/2 >= log(1 - delta)
        ok = d >= 1 or _compare(_rational(e - eps_true) / 2, sympy.log(_rational(1 - d))) >= 0
    claim = f"({_q(e)}, {_q(d)})"
    if ok:
        return c.finding(claim=claim, truth=f"epsilon' = sensitivity/scale = {witness['epsilon_of_scale']}",
                         verdict=Verdict.HOLDS, witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    again = _laplace_scale(c.obj)
    return c.finding(claim=claim, truth=f"epsilon' = sensitivity/scale = {witness['epsilon_of_scale']}",
                     verdict=Verdict.VIOLATED, witness=witness, replay=Replay.of(again == b),
                     evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="the float scale lies below sensitivity/(epsilon - log(1 - delta)): the noise is "
                          "slightly too small for the claimed (epsilon, delta)")


# --- LaplaceBoundedDomain -----------------------------------------------------------------


def _bounded_loss(b: Fraction, sens: Fraction, diam: Fraction | None):
    """sens/b + log of the normalising constants' ratio of the bounded Laplace (scale b,
    domain length diam, None for an unbounded side), between inputs u and u - sens at u."""
    import sympy  # lazy: SymPy is heavy, needed only when a judge runs

    B, S = _rational(b), _rational(sens)
    if diam is None:
        ratio = 2 - sympy.exp(-S / B)
    else:
        D = _rational(diam)
        ratio = (2 - sympy.exp(-S / B) - sympy.exp(-(D - S) / B)) / (1 - sympy.exp(-D / B))
    return S / B + sympy.log(ratio)


def _bounded_domain_judge(c: _Ctx) -> Finding:
    obj = copy.copy(c.obj)
    call_library(f"diffprivlib {c.name}.effective_epsilon", obj.effective_epsilon)
    b = _x(obj._scale)
    lo, hi = float(obj.lower), float(obj.upper)
    diam = None if math.isinf(lo) or math.isinf(hi) else _x(hi) - _x(lo)
    sens, e, d = _x(obj.sensitivity), c.epsilon, c.delta
    scope = ("the ideal bounded Laplace density at the object's float scale (its rejection sampler is not "
             "modelled); the loss at the domain's end between inputs u and u - sensitivity, attained, so a "
             "lower bound of the exact epsilon")
    if b == 0 or sens == 0 or e is None:
        return c.finding(claim=f"{c.obj.epsilon!r}", truth="no loss to bound", verdict=Verdict.UNDECIDED,
                         evidence=None, scope=scope, note="scale or sensitivity 0, or epsilon infinite")
    loss = _bounded_loss(b, sens, diam)
    witness = {"epsilon": float(c.obj.epsilon), "sensitivity": float(obj.sensitivity), "lower": lo, "upper": hi,
               "scale": _q(b), "loss_at_end": _shown(loss)}
    over = _compare(loss, _rational(e)) > 0
    if not over or d > 0:
        return c.finding(claim=_q(e), truth=f">= {_shown(loss)}", verdict=Verdict.UNDECIDED, witness=witness,
                         evidence=Evidence.IDEAL_NOISE, scope=scope,
                         note="the attained loss is within the claim (or the claim has delta > 0); the "
                              "supremum is not computed")
    again = copy.copy(c.obj)
    call_library(f"diffprivlib {c.name}.effective_epsilon", again.effective_epsilon)
    return c.finding(claim=_q(e), truth=f">= {_shown(loss)}", verdict=Verdict.VIOLATED, witness=witness,
                     replay=Replay.of(_x(again._scale) == b), evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="the bisection for the scale stops short of the fixed point scale = sensitivity / "
                          "(epsilon - log C(scale))")


# --- LaplaceBoundedNoise ------------------------------------------------------------------


def _bounded_noise_params(obj) -> tuple[Fraction, Fraction | None]:
    """The object's float scale and noise bound (None: the bound overflowed to inf)."""

    mech = copy.copy(obj)
    mech._rng = FixedDraws([0, 0, 0, 0])  # log(1 - 0) = 0: noise 0, accepted at once
    call_library("diffprivlib LaplaceBoundedNoise.randomise", mech.randomise, 0.0)
    bound = float(mech._noise_bound)
    return _x(mech._scale), None if math.isinf(bound) else _x(bound)


def _truncated_laplace_delta(b: Fraction, B: Fraction | None, sens: Fraction, eps: Fraction):
    """The exact delta(eps) of Laplace(b) noise truncated to [-B, B] (renormalised; None: not
    truncated), between inputs 0 and sens (0 < sens <= B), as a SymPy expression."""
    import sympy  # lazy: SymPy is heavy, needed only when a judge runs

    b_, S, E = (_rational(v) for v in (b, sens, eps))
    if B is None:
        Z2, delta, tail = 2, 0, 1
    else:
        B_ = _rational(B)
        Z2 = 2 * (1 - sympy.exp(-B_ / b_))
        delta = (sympy.exp((S - B_) / b_) - sympy.exp(-B_ / b_)) / Z2  # mass where the neighbour has none
        tail = 1 - sympy.exp((S - B_) / b_)
    if sens / b > eps:
        delta += (1 - sympy.exp(E - S / b_)) * tail / Z2
        ys = (S - b_ * E) / 2
        delta += ((1 - sympy.exp(-ys / b_)) - sympy.exp(E) * (sympy.exp((ys - S) / b_) - sympy.exp(-S / b_))) / Z2
    return delta


def _bounded_noise_judge(c: _Ctx) -> Finding:
    b, B = _bounded_noise_params(c.obj)
    sens, e, d = _x(c.obj.sensitivity), c.epsilon, c.delta
    scope = ("the ideal Laplace noise at the object's float scale, truncated to its float noise bound and "
             "renormalised (its rejection sampler is not modelled); inputs 0 and sensitivity, the exact delta")
    witness = {"epsilon": float(c.obj.epsilon), "delta": float(d), "sensitivity": float(c.obj.sensitivity),
               "scale": _q(b), "noise_bound": "inf" if B is None else _q(B)}
    if sens == 0:
        return c.finding(claim=f"({_q(e)}, {_q(d)})", truth="sensitivity 0: no loss", verdict=Verdict.HOLDS,
                         witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    if B is not None and sens > B:
        return c.finding(claim=f"({_q(e)}, {_q(d)})", truth="?", verdict=Verdict.UNDECIDED, witness=witness,
                         evidence=None, scope=scope, note="the noise bound is below the sensitivity: not modelled")
    true = _truncated_laplace_delta(b, B, sens, e)
    witness["delta_of_params"] = _shown(true)
    if _compare(true, _rational(d)) <= 0:
        return c.finding(claim=f"({_q(e)}, {_q(d)})", truth=f"delta(epsilon) = {_shown(true)}",
                         verdict=Verdict.HOLDS, witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    again = _bounded_noise_params(c.obj)
    return c.finding(claim=f"({_q(e)}, {_q(d)})", truth=f"delta(epsilon) = {_shown(true)}",
                     verdict=Verdict.VIOLATED, witness=witness, replay=Replay.of(again == (b, B)),
                     evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="the float noise bound or scale leaves more than delta of the mass where the "
                          "neighbour's noise cannot reach")


# --- Gaussian -----------------------------------------------------------------------------


def _gaussian_judge(c: _Ctx) -> Finding:

    if math.isinf(float(c.obj._scale)):
        return c.finding(claim=f"({c.obj.epsilon!r}, {float(c.delta)!r})", truth="sigma = inf: the release is noise "
                         "alone, independent of the input", verdict=Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE,
                         witness={"epsilon": float(c.obj.epsilon), "delta": float(c.obj.delta), "sigma": "inf"},
                         scope="the object's float sigma overflowed to inf",
                         note="private but useless: the float arithmetic of the calibration overflowed")
    sigma, e, d, s = _x(c.obj._scale), c.epsilon, c.delta, _x(c.obj.sensitivity)
    scope = ("(epsilon, delta) of the ideal Gaussian at the object's float sigma (Balle & Wang's exact delta, "
             "enclosed with intervals); the float sampler is not modelled")
    witness = {"epsilon": float(c.obj.epsilon), "delta": float(d), "sensitivity": float(c.obj.sensitivity),
               "sigma": float(sigma), "sigma_exact": _q(sigma)}
    if s == 0:
        return c.finding(claim=f"({_q(e)}, {_q(d)})", truth="sensitivity 0: no loss", verdict=Verdict.HOLDS,
                         witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    lo, hi = delta_of_sigma(sigma, e, s).exact
    witness["delta_of_sigma"] = [float_at_most(lo), float_at_least(hi)]
    truth = f"delta(sigma) in [{float_at_most(lo)!r}, {float_at_least(hi)!r}]"
    return _delta_judged(c, e, d, (lo, hi), truth, witness, scope, lambda again: _x(again._scale) == sigma,
                         "the float sigma is too small for the claimed (epsilon, delta)")


def _delta_judged(c: _Ctx, e, d, enclosure, truth: str, witness: dict, scope: str, same, why: str) -> Finding:
    """The claimed delta ``d`` against the true delta's ``enclosure`` (ideal noise): holds at
    or above its upper end, undecided inside, violated below its lower end, replayed by
    building the object again from its own parameters (``same(again)``: it reproduced the
    number judged)."""
    lo, hi = enclosure
    claim = f"({_q(e)}, {_q(d)})"
    if hi <= d:
        return c.finding(claim=claim, truth=truth, verdict=Verdict.HOLDS, witness=witness,
                         evidence=Evidence.IDEAL_NOISE, scope=scope)
    if lo <= d:
        return c.finding(claim=claim, truth=truth, verdict=Verdict.UNDECIDED, witness=witness,
                         evidence=None, scope=scope, note="the enclosure straddles the claimed delta")
    again = _rebuild(c.obj, ("epsilon", "delta", "sensitivity"))
    return c.finding(claim=claim, truth=truth + " > delta", verdict=Verdict.VIOLATED, witness=witness,
                     replay=Replay.of(same(again)), evidence=Evidence.IDEAL_NOISE, scope=scope, note=why)


def _rebuild(obj, keys):
    """The object built again from its own parameters (a replay of its calibration)."""
    kw = {k: getattr(obj, k) for k in keys}
    return call_library(f"diffprivlib {type(obj).__name__}(...)", type(obj), **kw)


def _gaussian_discrete_judge(c: _Ctx) -> Finding:

    scale, e, d, s = float(c.obj._scale), c.epsilon, c.delta, int(c.obj.sensitivity)
    readings = (_x(scale * scale), _x(scale) ** 2)
    big, small = max(readings), min(readings)
    scope = ("(epsilon, delta) of the ideal discrete Gaussian (Canonne, Kamath & Steinke, Thm 7) at the variance "
             "the object's sampler uses (scale**2, read as the float and as the exact square); the sampler's "
             "arithmetic is not modelled")
    witness = {"epsilon": float(c.obj.epsilon), "delta": float(d), "sensitivity": s, "scale": scale}
    if s == 0:
        return c.finding(claim=f"({_q(e)}, {_q(d)})", truth="sensitivity 0: no loss", verdict=Verdict.HOLDS,
                         witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    lo = discrete_gaussian_delta(e, big, s).lower
    hi = discrete_gaussian_delta(e, small, s).upper
    witness["delta_of_scale"] = [float_at_most(lo), float_at_least(hi)]
    truth = f"delta(scale) in [{float_at_most(lo)!r}, {float_at_least(hi)!r}]"
    return _delta_judged(c, e, d, (lo, hi), truth, witness, scope, lambda again: float(again._scale) == scale,
                         "the float bisection for the scale stops below the root: too little noise")


# --- Geometric ----------------------------------------------------------------------------


def _geometric_judge(c: _Ctx) -> Finding:

    obj = c.obj
    sens = int(obj.sensitivity)
    e = c.epsilon
    lower, upper = getattr(obj, "lower", -math.inf), getattr(obj, "upper", math.inf)
    witness: dict[str, Any] = {"epsilon": float(obj.epsilon), "sensitivity": sens}
    if sens == 0 or e is None:
        return c.finding(claim=f"{obj.epsilon!r}", truth="no loss (sensitivity 0 or epsilon inf)",
                         verdict=Verdict.HOLDS, witness=witness, evidence=Evidence.BIT_EXACT, scope="degenerate")
    if c.name != "GeometricFolded":
        if c.values is not None:
            xs = [int(v) for v in c.values]
        else:
            x0 = 0 if math.isinf(float(lower)) else int(lower)
            xs = [x0, x0 + sens] if x0 + sens <= float(upper) else [x0, x0 - sens]
        mech = copy.copy(obj)
        ends = {x: geometric_extremes(mech, x) for x in xs}
        for x, xp in itertools.permutations(xs, 2):
            if 0 < abs(x - xp) <= sens:
                (lo_, hi_), (lo_p, hi_p) = ends[x], ends[xp]
                out = hi_p if hi_p > hi_ else (lo_p if lo_p < lo_ else None)
                if out is not None:
                    again = {v: geometric_extremes(copy.copy(obj), v) for v in (x, xp)}
                    witness.update({"x": x, "x_prime": xp, "output": out, "support_x": [lo_, hi_],
                                    "support_x_prime": [lo_p, hi_p],
                                    "draw_k": (1 << 52) + 1 if out == hi_p else (1 << 52) - 1})
                    return c.finding(
                        claim=f"{obj.epsilon!r}", truth="inf", verdict=Verdict.VIOLATED, witness=witness,
                        replay=Replay.of(again == {x: ends[x], xp: ends[xp]}), evidence=Evidence.BIT_EXACT,
                        scope=f"inputs {xs}; the support ends read from the object's randomise at the extreme "
                              "draws k = 2**52 -/+ 1 (the output is monotone in the draw)",
                        note=f"the output {out} is reachable from x' = {xp} but beyond the support of x = {x}: "
                             "infinite privacy loss")
    scale = _x(obj._scale)
    eps_true = sens * abs(scale)
    witness.update({"scale": _q(scale), "epsilon_of_scale": _q(eps_true)})
    scope = ("the ideal two-sided geometric with ratio exp(_scale) at the object's float _scale (its float "
             "sampler is not modelled)" + ("" if c.name == "Geometric" else
                                            "; truncation/folding into [lower, upper] is post-processing"))
    if c.name != "GeometricFolded":
        scope += "; the support ends agree at the inputs checked"
    if eps_true <= e:
        return c.finding(claim=_q(e), truth=f"sensitivity * |_scale| = {_q(eps_true)}", verdict=Verdict.HOLDS,
                         witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    again = _x(copy.copy(obj)._scale)
    return c.finding(claim=_q(e), truth=f"sensitivity * |_scale| = {_q(eps_true)}", verdict=Verdict.VIOLATED,
                     witness=witness, replay=Replay.of(again == scale), evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="_scale = -epsilon/sensitivity rounds up in magnitude: the ratio is slightly too steep")


# --- distributions counted over every draw --------------------------------------------------


def _judge_distributions(c: _Ctx, dists: dict, pairs, replay: Callable[[Any, Any, Any], bool], scope: str,
                         evidence_hold: Evidence, describe: Callable[[Any], Any]) -> Finding:
    """The worst pair of exact output distributions against the claim: pure epsilon when
    the delta judged is 0, else the hockey-stick delta at epsilon."""

    e, d = c.epsilon, c.delta
    worst = None
    for x, xp in pairs:
        P, Q = dists[x], dists[xp]
        if d == 0:
            div = pure_epsilon(P, Q)
            value, output = ("inf" if div.infinite else div.value), div.output
        elif e is None:
            continue
        else:
            value, output = hockey_stick(P, Q, _rational(e)), None
        bound = _rational(e) if d == 0 and e is not None else (_rational(d) if d else None)
        over = value == "inf" or (bound is not None and _compare(value, bound) > 0)
        if worst is None or (over and not worst[0]) or (over == worst[0] and _larger(value, worst[4])):
            worst = (over, x, xp, output, value)
    if worst is None:
        return c.finding(claim="inf", truth="epsilon = inf claims nothing", verdict=Verdict.HOLDS,
                         evidence=evidence_hold, scope=scope)
    over, x, xp, output, value = worst
    measure = "pure epsilon" if d == 0 else "delta(epsilon)"
    shown_value = value if isinstance(value, str) else _shown(value)
    witness = {"x": describe(x), "x_prime": describe(xp), measure.replace(" ", "_").replace("(", "_").replace(
        ")", ""): shown_value, "epsilon": float(c.obj.epsilon), "delta": float(d)}
    if output is not None:
        witness["output"] = output if isinstance(output, (int, str)) else str(output)
        witness["draws_x"] = int(dists[x].p(output) * _GRID)
        witness["draws_x_prime"] = int(dists[xp].p(output) * _GRID)
    claim = f"({_q(e) if e is not None else 'inf'}, {_q(d)})"
    if not over:
        return c.finding(claim=claim, truth=f"worst {measure} {shown_value}", verdict=Verdict.HOLDS,
                         witness=witness, evidence=evidence_hold, scope=scope)
    return c.finding(claim=claim, truth=f"{measure} {shown_value}", verdict=Verdict.VIOLATED, witness=witness,
                     replay=Replay.of(replay(x, xp, output)), evidence=Evidence.BIT_EXACT, scope=scope,
                     note="the float probabilities the sampler compares its draw with round away from the "
                          "exact ones: the loss exceeds the claim")


def _larger(a, b) -> bool:
    if b == "inf":
        return False
    return a == "inf" or _compare(a, b) > 0


def _binary_judge(c: _Ctx) -> Finding:

    obj = c.obj
    dists = {0: binary_distribution(obj.epsilon, 0), 1: binary_distribution(obj.epsilon, 1)}
    keep = binary_keep_count(obj.epsilon)
    labels = (obj.value0, obj.value1)

    def replay(x, xp, output) -> bool:
        mech = copy.copy(obj)
        outs = []
        for k in (keep - 1, keep):
            mech._rng = FixedDraws([k])
            outs.append(call_library("diffprivlib Binary.randomise", mech.randomise, labels[0]))
        return outs == [labels[0], labels[1]]

    scope = ("both labels (the whole input domain); every draw k/2**53 of random() counted exactly against "
             "the library's float threshold (exp(epsilon) by NumPy, as the library computes it)")
    if not replay(0, 1, None):
        return c.finding(claim=f"{obj.epsilon!r}", truth="?", verdict=Verdict.UNDECIDED, evidence=None,
                         scope=scope, note="the object did not keep/flip at the modelled boundary draws")
    f = _judge_distributions(c, dists, [(0, 1), (1, 0)], replay, scope, Evidence.BIT_EXACT, lambda i: labels[i])
    return f


def _exponential_counts(obj) -> dict:

    return exponential_counts(list(obj._probabilities))


def _exponential_neighbours(c: _Ctx) -> list[list]:
    obj = c.obj
    u, s = [float(v) for v in obj.utility], float(obj.sensitivity)
    if c.values is not None:
        return [list(map(float, v)) for v in c.values]
    if obj.monotonic:
        steps = [t for t in itertools.product((0, 1), repeat=len(u))] + \
                [tuple(-x for x in t) for t in itertools.product((0, 1), repeat=len(u))]
    else:
        steps = list(itertools.product((-1, 0, 1), repeat=len(u)))
    if len(steps) > _MAX_NEIGHBOURS:
        steps = [tuple(int(i == j) * sign for j in range(len(u))) for i in range(len(u)) for sign in (-1, 1)]
        steps += [(1,) * len(u), (-1,) * len(u)]
    out = []
    for t in steps:
        if any(t):
            out.append([v + k * s for v, k in zip(u, t)])
    return out


def _exponential_judge(c: _Ctx) -> Finding:

    obj = c.obj
    base = [float(v) for v in obj.utility]
    others = _exponential_neighbours(c)
    vectors = [tuple(base)] + [tuple(v) for v in others if tuple(v) != tuple(base)]
    mechs = {tuple(base): obj}
    for v in vectors[1:]:
        mechs[v] = call_library("diffprivlib Exponential(...)", type(obj), epsilon=obj.epsilon,
                                sensitivity=obj.sensitivity, utility=list(v), monotonic=obj.monotonic,
                                candidates=obj.candidates, measure=obj.measure)
    counts = {v: _exponential_counts(m) for v, m in mechs.items()}
    dists = {v: Distribution({o: Fraction(k, _GRID) for o, k in cs.items()}) for v, cs in counts.items()}
    if c.values is not None:
        pairs = [(a, b) for a, b in itertools.permutations(vectors, 2)
                 if all(abs(x - y) <= float(obj.sensitivity) for x, y in zip(a, b))]
    else:
        pairs = [(tuple(base), v) for v in vectors[1:]] + [(v, tuple(base)) for v in vectors[1:]]

    def boundary(cs: dict, o) -> tuple[int, int]:
        start = 0
        for key in sorted(k for k in cs if k != "error"):
            if key == o:
                return start, start + cs[key] - 1
            start += cs[key]
        return start, start + cs.get("error", 0) - 1

    def replay(x, xp, o) -> bool:
        if o is None or o == "error":
            return False
        side = x if counts[x].get(o, 0) else xp
        a, b = boundary(counts[side], o)
        ok = True
        for v in (x, xp):
            m = copy.copy(mechs[v])
            for k in (a, b):
                m._rng = FixedDraws([k])
                got = call_library("diffprivlib Exponential.randomise", m.randomise)
                idx = obj.candidates.index(got) if obj.candidates else got
                if v == side and idx != o:
                    ok = False
                if v != side and counts[v].get(o, 0) == 0 and idx == o:
                    ok = False
        return ok

    scope = (f"{len(vectors) - 1} neighbouring utility vectors of the object's "
             + ("(given by values)" if c.values is not None else
                "(each utility moved by " + ("0 or +s, or 0 or -s" if obj.monotonic else "-s, 0 or +s") + ")")
             + "; the library's own float cumulative probabilities, every draw k/2**53 counted exactly")
    return _judge_distributions(c, dists, pairs, replay, scope, Evidence.BIT_EXACT_GRID, list)


def _categorical_counts(obj, x: str) -> dict:
    """``{target: draws}`` of ExponentialCategorical.randomise(x) over every draw k/2**53:
    0.6.6 returns the first target (in ``_normalising_constant``'s order) whose running
    float sum of ``_get_prob(x, target)`` is at least ``random() * N(x)``, else the last."""
    targets = list(obj._normalising_constant.keys())
    N = obj._normalising_constant[x]
    cum, tops = 0, []
    for t in targets:
        cum += call_library("diffprivlib ExponentialCategorical._get_prob", obj._get_prob, x, t)
        tops.append(first_true(lambda k, c_=cum: (k / _GRID) * N > c_))
    counts, prev = {}, 0
    for i, t in enumerate(targets):
        top = _GRID if i == len(targets) - 1 else max(tops[i], prev)
        if top > prev:
            counts[t] = top - prev
        prev = top
    return counts


def _categorical_judge(c: _Ctx) -> Finding:

    obj = c.obj
    domain = list(obj._domain_values)
    xs = domain if c.values is None else [str(v) for v in c.values]
    unknown = [v for v in xs if v not in domain]
    if unknown:
        raise InvalidArgument(f"values={c.values!r}: {unknown[0]!r} is not in the object's domain {domain}")
    counts = {x: _categorical_counts(obj, x) for x in xs}
    dists = {x: Distribution({o: Fraction(k, _GRID) for o, k in cs.items()}) for x, cs in counts.items()}
    targets = list(obj._normalising_constant.keys())

    def replay(x, xp, o) -> bool:
        side = x if counts[x].get(o, 0) else xp
        start = sum(counts[side].get(t, 0) for t in targets[:targets.index(o)])
        ok = True
        for v in (x, xp):
            m = copy.copy(obj)
            for k in (start, start + counts[side][o] - 1):
                m._rng = FixedDraws([k])
                got = call_library(f"diffprivlib {c.name}.randomise", m.randomise, v)
                if v == side and got != o:
                    ok = False
                if v != side and counts[v].get(o, 0) == 0 and got == o:
                    ok = False
        return ok

    whole = c.values is None
    scope = (f"every ordered pair of the {len(xs)} input values "
             + ("(the whole domain)" if whole else "given by values")
             + "; the library's own float probabilities and running sums, every draw k/2**53 counted exactly")
    return _judge_distributions(c, dists, list(itertools.permutations(xs, 2)), replay, scope,
                                Evidence.BIT_EXACT if whole else Evidence.BIT_EXACT_GRID, str)


# --- parameters of selection and noise mechanisms judged ideally ----------------------------


def _permute_and_flip_judge(c: _Ctx) -> Finding:
    obj = c.obj
    eps, sens, mono = float(obj.epsilon), float(obj.sensitivity), bool(obj.monotonic)
    e = c.epsilon
    scope = ("the ideal permute-and-flip at the scale the object computes (epsilon / sensitivity / (2 - "
             "monotonic), the library's Python float expression); its rounded log-probabilities and the "
             "bernoulli_neg_exp sampler are not modelled")
    if sens == 0 or e is None:
        return c.finding(claim=f"{eps!r}", truth="no loss", verdict=Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE,
                         scope=scope)
    scale = eps / sens / (2 - mono)
    eps_true = (2 - mono) * _x(sens) * _x(scale)
    witness = {"epsilon": eps, "sensitivity": sens, "monotonic": mono, "scale": _q(_x(scale)),
               "epsilon_of_scale": _q(eps_true)}
    if eps_true <= e:
        return c.finding(claim=_q(e), truth=f"(2 - monotonic) sensitivity scale = {_q(eps_true)}",
                         verdict=Verdict.HOLDS, witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    again = float(obj.epsilon) / float(obj.sensitivity) / (2 - bool(obj.monotonic))
    return c.finding(claim=_q(e), truth=f"(2 - monotonic) sensitivity scale = {_q(eps_true)}",
                     verdict=Verdict.VIOLATED, witness=witness, replay=Replay.of(again == scale),
                     evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="the float scale rounds up: the flip probabilities are slightly too steep")


def _staircase_judge(c: _Ctx) -> Finding:
    import numpy as np  # lazy: only with diffprivlib installed
    import sympy  # lazy: SymPy is heavy, needed only when a judge runs

    obj = c.obj
    eps, gamma, sens = float(obj.epsilon), float(obj.gamma), _x(obj.sensitivity)
    e = c.epsilon
    p = _x(1 - np.exp(-np.float64(eps)))  # the success probability of the library's geometric draw
    r = 1 - p
    t = float(gamma / (gamma + (1 - gamma) * np.exp(-np.float64(eps))))
    p0 = Fraction(math.ceil(_x(t) * _GRID), _GRID)  # P(random() < t) over the 2**-53 grid
    g = _x(gamma)
    scope = ("the staircase distribution the object samples: its geometric ratio 1 - p at the float p = 1 - "
             "exp(-epsilon) it passes NumPy (NumPy's geometric sampler taken as ideal), its binary split "
             "P(random() < t) counted exactly over the 2**-53 grid, uniform within each step")
    witness = {"epsilon": eps, "gamma": gamma, "sensitivity": float(obj.sensitivity), "p": _q(p), "t": t}
    if sens == 0 or e is None:
        return c.finding(claim=f"{eps!r}", truth="no loss", verdict=Verdict.HOLDS, witness=witness,
                         evidence=Evidence.IDEAL_NOISE, scope=scope)
    if r <= 0:
        return c.finding(claim=_q(e), truth="?", verdict=Verdict.UNDECIDED, witness=witness, evidence=None,
                         scope=scope, note="p rounds to 1: the geometric draw is constant, not modelled")
    ratios = [1 / r]
    if 0 < g < 1 and 0 < p0 < 1:
        d0, d1 = p0 / g, (1 - p0) / (1 - g)
        ratios += [d0 / d1, d1 / d0, d1 / (d0 * r), d0 * r / d1]
    elif 0 < g < 1:  # one part of each step has no mass: outputs next door, impossible here
        witness["split_probability"] = _q(p0)
        return c.finding(claim=_q(e), truth="inf", verdict=Verdict.UNDECIDED, witness=witness, evidence=None,
                         scope=scope, note="the binary split gives one part of each step no mass: nothing to compare there")
    M = max(ratios)
    witness["max_ratio"] = _q(M) if len(_q(M)) < 60 else float(M)
    truth = f"log({float(M)!r}...) (the largest density ratio of steps within one sensitivity)"
    if _compare(sympy.log(_rational(M)), _rational(e)) <= 0:
        return c.finding(claim=_q(e), truth=truth, verdict=Verdict.HOLDS, witness=witness,
                         evidence=Evidence.IDEAL_NOISE, scope=scope)
    t2 = float(gamma / (gamma + (1 - gamma) * np.exp(-np.float64(obj.epsilon))))
    return c.finding(claim=_q(e), truth=truth, verdict=Verdict.VIOLATED, witness=witness,
                     replay=Replay.of(t2 == t), evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="the float geometric probability and the split threshold give density ratios "
                          "above exp(epsilon)")


def _uniform_width(obj) -> Fraction:

    mech = copy.copy(obj)
    mech._rng = FixedDraws([0])  # 2 * 0 - 1 = -1: the output on 0 is -w exactly
    out = float(call_library("diffprivlib Uniform.randomise", mech.randomise, 0.0))
    return None if math.isinf(out) else -_x(out)


def _uniform_judge(c: _Ctx) -> Finding:
    w = _uniform_width(c.obj)
    s, d = _x(c.obj.sensitivity), c.delta
    tv = Fraction(0) if w is None else (Fraction(1) if w == 0 else min(Fraction(1), s / (2 * w)))
    scope = ("the ideal uniform noise on [-w, w] at the half-width w the object's randomise uses (read from "
             "the library at its exact binary value); total variation between inputs 0 and sensitivity")
    witness = {"delta": float(c.obj.delta), "sensitivity": float(c.obj.sensitivity), "w": "inf" if w is None else _q(w),
               "delta_of_w": _q(tv)}
    claim = f"(0, {_q(d)})"
    if tv <= d:
        return c.finding(claim=claim, truth=f"sensitivity/(2w) = {_q(tv)}", verdict=Verdict.HOLDS, witness=witness,
                         evidence=Evidence.IDEAL_NOISE, scope=scope)
    return c.finding(claim=claim, truth=f"sensitivity/(2w) = {_q(tv)}", verdict=Verdict.VIOLATED, witness=witness,
                     replay=Replay.of(_uniform_width(c.obj) == w), evidence=Evidence.IDEAL_NOISE, scope=scope,
                     note="w = fl(fl(sensitivity/delta)/2) rounds below sensitivity/(2 delta): the noise is "
                          "slightly too narrow")


def _snapping_judge(c: _Ctx) -> Finding:
    obj = c.obj
    eta = Fraction(1, 1 << 53)  # np.finfo(float).epsneg
    eff = call_library("diffprivlib Snapping.effective_epsilon", obj.effective_epsilon)
    lam = 1.0 / eff  # the scale randomise uses (sensitivity scaled to 1), the library's expression
    B = _x(obj._bound)
    e = c.epsilon
    bound = (1 + 12 * B * eta) / _x(lam) + 2 * eta
    scope = ("the privacy bound of the snapping mechanism the library cites (Mironov 2012, section 5.2: "
             "(1 + 12 B eta)/lambda + 2 eta at bound B and scale lambda, eta = 2**-53) at the object's float "
             "scale 1/effective_epsilon(), exactly; the sampler is taken as the paper's")
    witness = {"epsilon": float(obj.epsilon), "bound": float(obj._bound), "effective_epsilon": float(eff),
               "scale": _q(_x(lam)), "bound_of_theorem": _shown(_rational(bound))}
    if e is None:
        return c.finding(claim="inf", truth="epsilon = inf claims nothing", verdict=Verdict.HOLDS,
                         evidence=Evidence.IDEAL_NOISE, scope=scope)
    if bound <= e:
        return c.finding(claim=_q(e), truth=f"theorem's bound {_shown(_rational(bound))}", verdict=Verdict.HOLDS,
                         witness=witness, evidence=Evidence.IDEAL_NOISE, scope=scope)
    return c.finding(claim=_q(e), truth=f"theorem's bound {_shown(_rational(bound))}", verdict=Verdict.UNDECIDED,
                     witness=witness, evidence=None, scope=scope,
                     note="the theorem's bound at the float scale exceeds epsilon (rounding); a bound exceeded "
                          "refutes nothing, so no verdict")


_JUDGES: dict[str, Callable[[_Ctx], Finding]] = {
    "Laplace": _laplace_judge, "LaplaceTruncated": _laplace_judge, "LaplaceFolded": _laplace_judge,
    "LaplaceBoundedDomain": _bounded_domain_judge, "LaplaceBoundedNoise": _bounded_noise_judge,
    "Gaussian": _gaussian_judge, "GaussianAnalytic": _gaussian_judge, "GaussianDiscrete": _gaussian_discrete_judge,
    "Geometric": _geometric_judge, "GeometricTruncated": _geometric_judge, "GeometricFolded": _geometric_judge,
    "Binary": _binary_judge, "Exponential": _exponential_judge, "PermuteAndFlip": _permute_and_flip_judge,
    "ExponentialCategorical": _categorical_judge, "ExponentialHierarchical": _categorical_judge,
    "Staircase": _staircase_judge, "Uniform": _uniform_judge, "Snapping": _snapping_judge,
}
"""Class name -> how its objects are judged (the exact class: PermuteAndFlip is an
Exponential, Snapping a LaplaceTruncated, each judged by its own model)."""


def modelled() -> tuple[str, ...]:
    """The diffprivlib mechanism classes the reader judges."""
    return tuple(_JUDGES)


def _check_options(name: str, options: dict) -> None:
    refuse_unknown_options(options, OPTIONS, "the diffprivlib reader")
    if "values" in options and name not in _VALUES_ACCEPTED:
        raise InvalidArgument(f"values={options['values']!r}: a {name} is judged over every input (its model "
                              f"covers them); values is taken by {', '.join(_VALUES_ACCEPTED)}")
    if "values" in options and (not isinstance(options["values"], (list, tuple)) or len(options["values"]) < 2):
        raise InvalidArgument(f"values={options['values']!r}: expected a list of at least two neighbouring inputs")
    if "delta" in options:
        d = options["delta"]
        if isinstance(d, bool) or not isinstance(d, (float, int)) or not 0 <= d < 1:
            raise InvalidArgument(f"delta={d!r}: expected a float in [0, 1), the delta of the claim judged, "
                                  f"such as 1e-6")


def judge(obj: object, **options: Any) -> Finding:
    """The :class:`Finding` for one diffprivlib mechanism (what :func:`audit_of`'s check
    returns; the suite calls it over grids of settings)."""
    name = type(obj).__name__
    if name in UNMODELLED:
        raise InvalidArgument(f"exactdp cannot audit a diffprivlib {name}: {UNMODELLED[name]}")
    fn = _JUDGES.get(name)
    if fn is None:
        raise InvalidArgument(f"exactdp has no model of the diffprivlib mechanism {type(obj).__module__}.{name}; "
                              f"it reads {', '.join(_JUDGES)}")
    _check_options(name, options)
    return fn(_Ctx(obj, options))


def audit_of(obj: object, **options: Any) -> Audit:
    """The audit of one diffprivlib mechanism object (see the module's note); options:
    ``values`` (neighbouring inputs, where enumerated) and ``delta`` (the delta judged)."""
    name = type(obj).__name__
    if name in UNMODELLED:
        raise InvalidArgument(f"exactdp cannot audit a diffprivlib {name}: {UNMODELLED[name]}")
    if name not in _JUDGES:
        raise InvalidArgument(f"exactdp has no model of the diffprivlib mechanism {type(obj).__module__}.{name}; "
                              f"it reads {', '.join(_JUDGES)}")
    _check_options(name, options)
    return Audit(id=f"diffprivlib/object/{name}", library="diffprivlib", component=f"mechanisms.{name}",
                 claim="the (epsilon, delta) it was built with", check=lambda: judge(obj, **options),
                 covers=(f"diffprivlib.mechanisms.{name}",))
