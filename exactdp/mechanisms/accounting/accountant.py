"""A certified privacy accountant: the tight ``epsilon(delta)`` or ``delta(epsilon)`` of k
composed mechanisms, enclosed, every number a sound bound rounded toward the safe side.

``account(mechanisms, k, delta=... | epsilon=...)`` composes the worst-case (dominating)
pair of each mechanism: discrete Laplace and discrete Gaussian on the query values
``(0, sensitivity)``, randomized response on the inputs ``0, 1``, the Gaussian on
``(0, sensitivity)``. Each of these pairs is symmetric (its privacy-loss distribution is
the same in both directions), so the tight ``delta(epsilon)`` of the composition is the
hockey-stick divergence of the product pair,

    delta(eps) = E[(1 - exp(eps - L))_+],   L = L_1 + ... + L_k (independent losses),

and ``epsilon(delta)`` is the smallest ``eps >= 0`` with ``delta(eps) <= delta``.

**Lattice mechanisms** (discrete Laplace, randomized response, the discrete Gaussian, and
lists of them whose losses share a unit): every loss is ``unit * n`` for an integer
``n``. Probabilities are held in fixed point with ``F`` fraction bits as integers ``w_i``
that are **lower bounds** of the true masses, plus one integer ``U`` bounding the total
mass they miss (``sum(true - w) <= U / 2**F``: rounding, intervals of irrational masses,
truncated tails). Composition is an exact integer convolution (Kronecker substitution,
one big-integer product) rounded down, and ``U`` grows as ``U_a + U_b + U_a U_b + (slots)``;
tails of at most a few ulps are trimmed into ``U``. At the end, with the slots ordered by
decreasing loss ``l_0 > l_1 > ...`` and ``J`` the number of slots with ``l_i > eps``,

    sum_{i<J} w_i (1 - e^{eps - l_i})  <=  delta(eps)  <=  that + U / 2**F,

and ``sum_{i<J} w_i e^{eps - l_i} = e^{eps - l_{J-1}} h_{J-1}`` with ``h`` a Horner
recurrence ``h_i = h_{i-1} rho + w_i``, ``rho = e^{-unit * stride}``, run once rounded
down and once rounded up. So an evaluation at any ``eps`` costs one interval ``exp``.
``epsilon(delta)`` is bracketed by bisection: the lower end ``a`` always has a certified
``delta(a) > delta``, the upper end ``b`` a certified ``delta(b) <= delta``; when a
midpoint cannot be decided, ``F`` is doubled (the bracket is kept) until the requested
relative width is met. (Each step above is the argument: the lower bound drops only
nonnegative terms and uses ``h`` rounded up; the upper bound adds the missed mass, whose
weights ``(1 - e^{eps - l})_+`` are at most 1.)

**Gaussians** (alone or several): the composition is the Gaussian with
``mu**2 = k * sum(sensitivity**2 / sigma**2)``, and Balle & Wang's tight
``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` is enclosed with intervals
(the normal CDF of :mod:`exactdp.numeric.intervals`, as in
:func:`exactdp.mechanisms.calibration.gaussian.delta_of_sigma`).

**The certified grid** (the continuous Laplace mechanism; Poisson-subsampled Gaussian,
Laplace, discrete Laplace and randomized response; lists mixing any of these, or Gaussians
with lattice mechanisms): each pair's hockey-stick profile is enclosed at the grid points
``e^(n h)`` and turned into a pair above and a pair below on the losses ``n h``
(:mod:`exactdp.mechanisms.accounting.subsampling`, :mod:`exactdp.mechanisms.accounting.profiles`), composed as a
lattice; ``h = 2**-m`` is refined until the width is met.

A list of lattice mechanisms alone with randomized responses of different ``p``
(incommensurable losses ``log(p/o)``) is refused: not supported yet.

>>> r = account("discrete-laplace", 1, delta=0, params={"scale": 10})
>>> r.epsilon_lower, r.epsilon_upper
(Fraction(1, 10), Fraction(1, 10))
>>> r = account("randomized-response", 3, epsilon=0, params={"epsilon": 1})
>>> r.check("0.1").verdict
'violated'
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, Callable

from exactdp._display import card
from exactdp._budget import refuse_above, show_count
from exactdp._progress import Progress
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.mechanisms import specs
from exactdp.mechanisms._params import check_parameter_names, nonnegative, positive, probability, shown
from exactdp.mechanisms.accounting import events
from exactdp.mechanisms.accounting.profiles import (
    PoissonDiscreteGaussian, PoissonFinite, PoissonLaplace, WithoutReplacement,
)
from exactdp.mechanisms.accounting.subsampling import PoissonGaussian, grid_points, grid_subset, lattice_pairs
from exactdp.mechanisms.calibration.discrete import _tail_bound, _truncation_point
from exactdp.numeric.exact import show_exact, to_exact
from exactdp.numeric.intervals import (
    _exp_of_negative, enclose, erf, erfcx, exact_interval, interval_to_fractions, normal_cdf,
)
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = [
    "MECHANISMS", "DEFAULT_WIDTH", "SUBSAMPLED_WIDTH", "SUBSAMPLED_MAX_SLOTS", "DEFAULT_MAX_K", "DEFAULT_MAX_SLOTS",
    "AccountResult", "AccountCheck", "account",
]

MECHANISMS = specs.names("account")
"""The names :func:`account` composes (read from :mod:`exactdp.mechanisms.specs`)."""

DEFAULT_WIDTH = Fraction(1, 10**9)
"""Default target relative width of the enclosure: ``upper - lower <= width * upper``."""

DEFAULT_MAX_K = 10**7
"""Most compositions ``k`` accepted (raise with ``max_k``)."""

DEFAULT_MAX_SLOTS = 100_000
"""Most lattice points the composed privacy-loss distribution may hold (estimated from the
inputs before any work; each holds an integer of about ``2F`` bits while convolving)."""

_START_BITS = 64
_MAX_PURE_EPSILON = 2_900_000
"""Largest pure epsilon of a lattice mechanism composed exactly: ``e^epsilon`` must stay below
``2**4194304`` (about ``e^2907269``), the largest exponent an exact Fraction is made from here."""
_MAX_BITS = 1024
_GAUSS_MAX_PREC = 3392
_TRIM_ULPS = 64
"""Tails of at most this many ulps (of ``2**-F``) are trimmed at each end after a product."""


# --- the components ------------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    """The loss unit: a positive rational, or ``log(ratio)`` for a rational ``ratio > 1``."""

    value: Fraction
    is_log: bool = False

    def interval(self, iv):
        v = exact_interval(self.value)
        return iv.log(v) if self.is_log else v

    def text(self) -> str:
        return f"log({show_exact(self.value)})" if self.is_log else show_exact(self.value)


@dataclass
class _Component:
    """One mechanism's dominating pair: a lattice loss distribution, or a Gaussian."""

    name: str
    params: dict
    kind: str  # "lattice", "gaussian" or "null" (no privacy loss)
    unit: _Unit | None = None
    top: int = 0  # the largest loss, in units
    stride: int = 1
    masses: Callable | None = None  # masses(iv) -> list of iv intervals, by decreasing loss
    tail: Callable | None = None  # tail(iv, F) -> iv upper bound on the mass left out
    slots: int = 1
    variance: Fraction | float = 0.0  # variance of n (in units), for the budget estimate only
    mu2: Fraction | None = None  # Gaussian: (sensitivity / sigma)**2
    pure_epsilon: Any = None  # Fraction, a (_Unit, int) pair, or None for infinite
    model: Any = None  # the model whose certified grid pairs are composed (a PoissonGaussian,
    # PoissonLaplace or PoissonFinite): "subsampled" always, others when a list mixes them
    times: int = 1  # compositions of this mechanism in each round (its own count)
    note: str = ""  # what the result must say about this component's scope

    def describe(self) -> str:
        return f"{self.name}(" + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"


def _text(v) -> str:
    return show_exact(v) if isinstance(v, (Fraction, int)) else str(v)


def _integer_param(value, name: str, least: int) -> int:
    v = to_exact(value, name)
    if v.denominator != 1 or v < least:
        raise InvalidArgument(f"{name}={shown(value)} is not a whole number >= {least}")
    return int(v)


def _discrete_laplace(params: dict) -> _Component:
    check_parameter_names("discrete-laplace", params, ("scale", "sensitivity", "sampling", "rate"), ("scale",))
    t = positive(params["scale"], "scale")
    d = _integer_param(params.get("sensitivity", 1), "sensitivity", 0)
    shown_params = {"scale": show_exact(t), "sensitivity": str(d)}
    q = _rate(params, "discrete-laplace")
    if d == 0:
        return _Component("discrete-laplace", shown_params, "null", pure_epsilon=Fraction(0))
    if q is not None and q < 1:
        return _finite_subsampled("discrete-laplace", shown_params, q, (t, d), Fraction(d) / t)

    def masses(iv):
        q = iv.exp(-1 / exact_interval(t))
        out = [1 / (1 + q)]  # x <= 0: loss d/t
        out += [(1 - q) / (1 + q) * q**z for z in range(1, d)]  # loss (d - 2z)/t
        out.append(q**d / (1 + q))  # x >= d: loss -d/t
        return out

    qf = math.exp(-1 / float(t)) if t > Fraction(1, 700) else 0.0
    var = 4 * d * d * qf / (1 + qf) ** 2 + 1.0  # a rough variance of n, for the budget
    return _Component("discrete-laplace", shown_params, "lattice", _Unit(1 / t), top=d, stride=2,
                      masses=masses, slots=d + 1, variance=var, pure_epsilon=Fraction(d) / t,
                      model=_finite_model(Fraction(1), "discrete-laplace", (t, d)))


def _rate(params: dict, name: str) -> Fraction | None:
    """The Poisson sampling rate from ``sampling=poisson rate=Q``; None without sampling; rate 1
    is returned as 1 (every record in every batch: the mechanism itself)."""
    sampling = params.get("sampling")
    if sampling is None:
        if "rate" in params:
            raise InvalidArgument(f"rate={shown(params['rate'])} goes with sampling=poisson; pass "
                                  f"sampling=poisson rate=Q for a Poisson-subsampled {name}")
        return None
    if sampling != "poisson":
        raise InvalidArgument(
            f"sampling={shown(sampling)} is not one the accountant composes; use sampling=poisson with "
            f"rate=Q (each record in a batch independently with probability Q, add/remove neighbours), or "
            f"sampling=without-replacement with batch=M population=N (substitute neighbours)")
    if "rate" not in params:
        raise InvalidArgument("sampling=poisson needs rate=Q, the probability that a record is in a batch, "
                              "e.g. rate=0.01")
    q = to_exact(params["rate"], "rate")
    if not 0 < q <= 1:
        raise InvalidArgument(f"rate={shown(params['rate'])} is outside (0, 1]; it is the probability "
                              f"that a record is in a batch, e.g. rate=0.01")
    return q


def _without_replacement(params: dict, name: str) -> tuple[int, int] | None:
    """``(batch, population)`` from ``sampling=without-replacement batch=M population=N`` (and
    ``params`` rewritten, in place, to the same mechanism Poisson-subsampled at ``M/N``, whose
    model :func:`_wor_component` wraps); None otherwise."""
    if params.get("sampling") != "without-replacement":
        for key in ("batch", "population"):
            if key in params:
                raise InvalidArgument(f"{key}={shown(params[key])} goes with sampling=without-replacement; pass "
                                      f"sampling=without-replacement batch=M population=N")
        return None
    if "rate" in params:
        raise InvalidArgument(f"sampling='without-replacement' is not one that takes rate={shown(params['rate'])}; "
                              f"give batch=M population=N (a batch of M of the N records), or sampling=poisson "
                              f"rate=Q")
    missing = [key for key in ("batch", "population") if key not in params]
    if missing:
        raise InvalidArgument(f"sampling=without-replacement needs batch=M and population=N (a batch of M of "
                              f"the N records, drawn without replacement; substitute neighbours), e.g. batch=256 "
                              f"population=60000; {missing[0]} is missing")
    m = _integer_param(params.pop("batch"), "batch", 1)
    n = _integer_param(params.pop("population"), "population", 1)
    if m > n:
        raise InvalidArgument(f"batch={m} is larger than population={n}; a batch holds at most the whole "
                              f"population")
    if name in ("exponential", "permute-and-flip", "report-noisy-max"):
        raise InvalidArgument(f"sampling=without-replacement is not one {name} takes (it is composed through its "
                              f"worst-case pure epsilon); drop sampling, batch and population")
    params["sampling"], params["rate"] = "poisson", Fraction(m, n)
    return m, n


def _wor_component(comp: _Component, m: int, n: int) -> _Component:
    """The Poisson component at ``m/n`` turned into the same mechanism on a batch of ``m`` of ``n``
    drawn without replacement, substitute neighbours (``m = n``: the mechanism itself)."""

    shown_params = {k: v for k, v in comp.params.items() if k not in ("sampling", "rate")}
    if m == n:
        comp.params = shown_params
        return comp
    comp.params = {**shown_params, "sampling": "without-replacement", "batch": str(m), "population": str(n)}
    comp.model = WithoutReplacement(comp.model, m, n)
    return comp


def _check_relations(components: list) -> None:
    """Refuse a list mixing Poisson subsampling (add/remove neighbours) with sampling without
    replacement (substitute neighbours): the two guarantees are about different neighbours."""
    wor = [c for c in components if c.params.get("sampling") == "without-replacement"]
    poisson = [c for c in components if c.params.get("sampling") == "poisson"]
    if wor and poisson:
        raise InvalidArgument(
            f"{poisson[0].describe()} (sampling=poisson: add/remove neighbours) and {wor[0].describe()} "
            f"(sampling=without-replacement: substitute neighbours) are guarantees about different "
            f"neighbouring relations; account for each list apart")


def _finite_model(q: Fraction, base: str, args: tuple):
    return PoissonFinite(q, base, args)


def _amplified(q: Fraction, eps):
    """``log(1 - q + q e^eps)``, the subsampled mechanism's pure epsilon (the remove direction's
    largest loss, at least the add direction's ``-log(1 - q + q e^-eps)``), as ``iv -> interval``;
    ``eps`` a rational or ``iv -> interval``."""

    def enclosure(iv):
        e = iv.exp(exact_interval(eps)) if isinstance(eps, Fraction) else iv.exp(eps(iv))
        return iv.log(1 - exact_interval(q) + exact_interval(q) * e)

    return enclosure


def _finite_subsampled(name: str, shown_params: dict, q: Fraction, args: tuple, pure) -> _Component:
    """A randomized response or discrete Laplace on a Poisson subsample of rate ``q``: its
    add/remove pairs on the certified grid (``q < 1``; at ``q = 1`` the exact lattice is used)."""
    shown_params = {**shown_params, "sampling": "poisson", "rate": show_exact(q)}
    return _Component(name, shown_params, "subsampled", model=_finite_model(q, name, args),
                      pure_epsilon=_amplified(q, pure))


def _randomized_response(params: dict) -> _Component:
    check_parameter_names("randomized-response", params, ("p", "epsilon", "k_values", "sampling", "rate"))
    k = _integer_param(params.get("k_values", 2), "k_values", 2)
    rate = _rate(params, "randomized-response")
    if ("p" in params) == ("epsilon" in params):
        raise InvalidArgument("randomized-response takes p=... or epsilon=..., exactly one")
    if "p" in params:
        p = to_exact(params["p"], "p")
        if not Fraction(1, k) <= p < 1:
            raise InvalidArgument(
                f"p={shown(params['p'])} is outside [1/k, 1) for k_values={k}; p is the "
                f"probability of reporting the true value (p=1 is not private)")
        shown_params = {"p": show_exact(p), "k_values": str(k)}
        o = (1 - p) / (k - 1)
        if p == o:
            return _Component("randomized-response", shown_params, "null", pure_epsilon=Fraction(0))
        args: tuple[Fraction | None, Fraction | None, int] = (None, p, k)  # (epsilon, p, k_values)
        if rate is not None and rate < 1:
            return _finite_subsampled("randomized-response", shown_params, rate, args,
                                      lambda iv: iv.log(exact_interval(p / o)))
        unit = _Unit(p / o, is_log=True)
        exact = [p, o] if k == 2 else [p, (k - 2) * o, o]

        def masses(iv):
            return [exact_interval(m) for m in exact]

    else:
        eps = nonnegative(params["epsilon"], "epsilon")
        _check_pure_epsilon(eps, params["epsilon"], "randomized-response")
        shown_params = {"epsilon": show_exact(eps), "k_values": str(k)}
        if eps == 0:
            return _Component("randomized-response", shown_params, "null", pure_epsilon=Fraction(0))
        args = (eps, None, k)
        if rate is not None and rate < 1:
            return _finite_subsampled("randomized-response", shown_params, rate, args, eps)
        unit = _Unit(eps)

        def masses(iv):
            e = iv.exp(exact_interval(eps))
            o = 1 / (e + (k - 1))
            return [e * o, o] if k == 2 else [e * o, (k - 2) * o, o]

    stride = 2 if k == 2 else 1
    pure = (unit, 1) if unit.is_log else unit.value
    return _Component("randomized-response", shown_params, "lattice", unit, top=1, stride=stride,
                      masses=masses, slots=2 if k == 2 else 3, variance=1.0,
                      pure_epsilon=pure, model=_finite_model(Fraction(1), "randomized-response", args))


def _check_pure_epsilon(eps: Fraction, given, name: str) -> None:
    """Refuse, in plain words, an epsilon whose ``e^epsilon`` cannot be held exactly."""
    if eps > _MAX_PURE_EPSILON:
        raise InvalidArgument(
            f"epsilon={shown(given)} is too large for {name}: its probabilities involve e^epsilon, which "
            f"past epsilon = {_MAX_PURE_EPSILON:,} is beyond what is computed exactly here (and the mechanism "
            f"already reveals its input with probability 1 - e^-{_MAX_PURE_EPSILON:,}); pass an epsilon of "
            f"at most {_MAX_PURE_EPSILON:,}")


def _sigma_squared(params: dict, name: str) -> tuple[Fraction, dict]:
    if ("sigma" in params) == ("sigma_squared" in params):
        raise InvalidArgument(f"{name} takes sigma=... or sigma_squared=..., exactly one")
    if "sigma" in params:
        s = positive(params["sigma"], "sigma")
        return s * s, {"sigma": show_exact(s)}
    s2 = positive(params["sigma_squared"], "sigma_squared")
    return s2, {"sigma_squared": show_exact(s2)}


def _discrete_gaussian(params: dict) -> _Component:

    check_parameter_names("discrete-gaussian", params, ("sigma", "sigma_squared", "sensitivity", "sampling", "rate"))
    s2, shown_params = _sigma_squared(params, "discrete-gaussian")
    d = _integer_param(params.get("sensitivity", 1), "sensitivity", 0)
    shown_params["sensitivity"] = str(d)
    q = _rate(params, "discrete-gaussian")
    if d == 0:
        return _Component("discrete-gaussian", shown_params, "null", pure_epsilon=Fraction(0))
    if q is not None and q < 1:
        return _Component("discrete-gaussian", {**shown_params, "sampling": "poisson", "rate": show_exact(q)},
                          "subsampled", model=PoissonDiscreteGaussian(q, s2, d))
    c = 1 / (2 * s2)

    def cut(bits: int) -> int:
        return _truncation_point(0, s2, bits)

    def masses(iv, bits: int):
        m = cut(bits)
        half = [iv.exp(-exact_interval(c * z * z)) for z in range(0, m + 1)]
        tail = _tail_bound(iv, m, s2)
        norm = 1 + 2 * sum(half[1:], iv.mpf(0)) + iv.mpf([0, tail.b]) * 2
        weights = [h / norm for h in half]
        return weights[:0:-1] + weights  # z = -m .. m: loss (d^2 - 2dz) c, decreasing

    def tail(iv, bits: int):
        return 2 * _tail_bound(iv, cut(bits), s2)  # over the normalising constant >= 1

    m64 = _truncation_point(0, s2, 64)
    return _Component("discrete-gaussian", shown_params, "lattice", _Unit(c), top=d * d + 2 * d * m64,
                      stride=2 * d, masses=masses, tail=tail, slots=2 * m64 + 1,
                      variance=4 * d * d * s2, pure_epsilon=None,
                      model=PoissonDiscreteGaussian(Fraction(1), s2, d))


def _plain_gaussian(shown_params: dict, mu: Fraction) -> _Component:
    """The Gaussian: composed exactly with other Gaussians (Balle-Wang), and as the rate-1
    :class:`~exactdp.mechanisms.accounting.subsampling.PoissonGaussian` beside subsampled ones."""

    return _Component("gaussian", shown_params, "gaussian", mu2=mu * mu, model=PoissonGaussian(Fraction(1), mu))


def _gaussian(params: dict) -> _Component:
    check_parameter_names("gaussian", params, ("sigma", "sensitivity", "sampling", "rate"), ("sigma",))
    s = positive(params["sigma"], "sigma")
    d = positive(params.get("sensitivity", 1), "sensitivity")
    shown_params = {"sigma": show_exact(s), "sensitivity": show_exact(d)}
    q = _rate(params, "Gaussian (DP-SGD)")
    if q is None or q == 1:  # no sampling, or every record in every batch: the plain Gaussian
        return _plain_gaussian(shown_params, d / s)

    shown_params.update(sampling="poisson", rate=show_exact(q))
    return _Component("gaussian", shown_params, "subsampled", model=PoissonGaussian(q, d / s))


def _laplace(params: dict) -> _Component:
    """The continuous Laplace mechanism (scale ``b``, sensitivity ``Delta``), alone or
    Poisson-subsampled: always on the certified grid (its loss takes a continuum of values)."""

    check_parameter_names("laplace", params, ("scale", "sensitivity", "sampling", "rate"), ("scale",))
    b = positive(params["scale"], "scale")
    d = positive(params.get("sensitivity", 1), "sensitivity")
    shown_params = {"scale": show_exact(b), "sensitivity": show_exact(d)}
    q = _rate(params, "laplace")
    if q is None or q == 1:
        return _Component("laplace", shown_params, "subsampled", model=PoissonLaplace(Fraction(1), d / b),
                          pure_epsilon=d / b)
    shown_params.update(sampling="poisson", rate=show_exact(q))
    return _Component("laplace", shown_params, "subsampled", model=PoissonLaplace(q, d / b),
                      pure_epsilon=_amplified(q, d / b))


def _selection(name: str):
    """The exponential mechanism, permute-and-flip or report-noisy-max, through its worst-case
    pure epsilon: an eps-DP mechanism is dominated by randomized response with epsilon eps
    (Kairouz, Oh, Viswanath 2015), so it is composed as that pair: a sound bound, not the
    mechanism's own (tighter) privacy curve on particular utilities."""

    def build(params: dict) -> _Component:
        allowed = {"exponential": ("epsilon", "sensitivity", "form"),
                   "permute-and-flip": ("epsilon", "sensitivity"),
                   "report-noisy-max": ("epsilon", "sensitivity", "noise")}[name]
        check_parameter_names(name, params, allowed, ("epsilon",))
        eps = positive(params["epsilon"], "epsilon")
        positive(params.get("sensitivity", 1), "sensitivity")  # the utilities' (eps already holds it)
        shown_params = {"epsilon": show_exact(eps)}
        worst, why = eps, "eps-DP for any utility of that sensitivity"
        if name == "exponential":
            form = params.get("form", "2delta")
            if form not in ("2delta", "monotone"):
                raise InvalidArgument(f"form={shown(form)} is not 2delta or monotone")
            shown_params["form"] = form
            if form == "monotone":  # eps for monotone utilities, up to 2 eps for others
                worst, why = 2 * eps, "2 eps-DP for utilities that are not monotone"
        if name == "report-noisy-max":
            noise = params.get("noise", "gumbel")
            if noise not in ("gumbel", "exponential"):
                raise InvalidArgument(f"noise={shown(noise)} is not gumbel or exponential")
            shown_params["noise"] = noise
        _check_pure_epsilon(worst, params["epsilon"], name)
        comp = _randomized_response({"epsilon": worst})
        comp.name, comp.params = name, shown_params
        comp.note = (f"{name}: composed through its worst-case pure epsilon {show_exact(worst)} ({why}) as "
                     f"randomized response, the pair that dominates every such mechanism: sound, not tight")
        return comp

    return build


_exponential = _selection("exponential")
_permute_and_flip = _selection("permute-and-flip")
_report_noisy_max = _selection("report-noisy-max")


def _component(item) -> _Component:
    """A component from ``"name"``, ``("name", {params})`` or an object with ``name`` and
    ``params`` (a mechanism from :func:`exactdp.mechanisms.mechanism.make_mechanism`)."""
    name: str
    params: dict[str, Any]
    if isinstance(item, str):
        name, params = item, {}
    elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], dict):
        name, params = item
    elif hasattr(item, "name") and isinstance(getattr(item, "params", None), dict):
        name, params = item.name, dict(item.params)
    else:
        raise InvalidArgument(
            f"mechanism={item!r} is not a name, a (name, params) pair or a mechanism; pass e.g. "
            f"('discrete-laplace', {{'scale': 10}})")
    reference = specs.spec(name, "account").account
    assert reference is not None  # spec(name, "account") refuses a mechanism without one
    build = specs.resolve(reference)
    params = dict(params)
    times = _integer_param(params.pop("times"), "times", 1) if "times" in params else 1
    wor = _without_replacement(params, name)
    comp = build(params)
    comp.name = name  # the spec's name: a builder may serve several mechanisms
    if wor is not None:
        comp = _wor_component(comp, *wor)
    if times != 1:
        comp.times = times
        comp.params = {**comp.params, "times": str(times)}
    return comp


# --- fixed-point lattice distributions ---------------------------------------------------


@dataclass
class _Lattice:
    """Masses ``w[i] / 2**bits`` (lower bounds) at losses ``unit * (top - stride * i)``,
    and ``slack / 2**bits`` bounding the mass they miss in all."""

    w: list
    top: int
    stride: int
    bits: int
    slack: int


def _floor_ceil(x, bits: int) -> tuple[int, int]:
    lo, hi = interval_to_fractions(x)
    return math.floor(lo * 2**bits), math.ceil(hi * 2**bits)


def _component_lattice(comp: _Component, scale: int, bits: int) -> _Lattice:
    """The component's masses rounded down to ``bits`` fraction bits (exact rationals and
    interval enclosures alike), the rest of each mass and any truncated tail in ``slack``."""
    box: dict = {}

    def fn(iv):
        box["masses"] = comp.masses(iv, bits) if comp.tail is not None else comp.masses(iv)
        if comp.tail is not None:
            box["tail"] = comp.tail(iv, bits)
        return iv.mpf(0)

    enclose(fn, prec=bits + 32)
    slack = _floor_ceil(box["tail"], bits)[1] if comp.tail is not None else 0
    w = []
    for x in box["masses"]:
        lo, hi = _floor_ceil(x, bits)
        lo = max(lo, 0)
        w.append(lo)
        slack += hi - lo
    top = comp.top
    if comp.tail is not None:  # the discrete Gaussian: the truncation point follows bits
        d, m = comp.stride // 2, (len(w) - 1) // 2
        top = d * d + 2 * d * m
    return _Lattice(w, top * scale, comp.stride * scale, bits, slack)


def _spread(lat: _Lattice, stride: int) -> list:
    """The masses on a finer lattice of ``stride`` (dividing ``lat.stride``): zeros between."""
    step = lat.stride // stride
    if step == 1:
        return lat.w
    out = [0] * ((len(lat.w) - 1) * step + 1)
    out[::step] = lat.w
    return out


def _multiply(a: _Lattice, b: _Lattice, trim: int = _TRIM_ULPS) -> _Lattice:
    """The distribution of the sum of the two losses (exact convolution, rounded down; end tails
    of at most ``trim`` ulps moved into the slack)."""
    bits = a.bits
    g = math.gcd(a.stride, b.stride)
    x, y = _spread(a, g), _spread(b, g)
    n = len(x) + len(y) - 1
    w = _convolve(x, y, a is b, bits)
    slack = a.slack + b.slack + ((a.slack * b.slack) >> bits) + 1 + n
    return _trim(_Lattice(w, a.top + b.top, g, bits, slack), trim)


def _convolve(x: list, y: list, square: bool, bits: int) -> list:
    """The exact convolution of two lists of nonnegative integers, each term shifted right by
    ``bits`` (rounded down): FLINT's integer polynomial product (python-flint), which is
    exact; the fallback packs both lists into one integer each (Kronecker substitution)."""
    n = len(x) + len(y) - 1
    try:
        from flint import fmpz_poly
    except ImportError:  # pragma: no cover - python-flint is a dependency
        width = 2 * bits + 2 + min(len(x), len(y)).bit_length()
        nbytes = (width + 7) // 8
        big_x = int.from_bytes(b"".join(v.to_bytes(nbytes, "little") for v in x), "little")
        if square:
            prod = big_x * big_x
        else:
            prod = big_x * int.from_bytes(b"".join(v.to_bytes(nbytes, "little") for v in y), "little")
        raw = prod.to_bytes(n * nbytes, "little")
        return [int.from_bytes(raw[i * nbytes:(i + 1) * nbytes], "little") >> bits for i in range(n)]
    px = fmpz_poly(x)
    poly = px * px if square else px * fmpz_poly(y)
    w = [int(c) >> bits for c in poly.coeffs()]
    return w + [0] * (n - len(w))  # coeffs() stops at the highest nonzero term


def _trim(lat: _Lattice, ulps: int = _TRIM_ULPS) -> _Lattice:
    """Drop end slots whose mass adds up to at most ``ulps`` at each end (into slack)."""
    w = lat.w
    lo, dropped = 0, 0
    while lo < len(w) - 1 and dropped + w[lo] <= ulps:
        dropped += w[lo]
        lo += 1
    hi, dropped_hi = len(w), 0
    while hi - 1 > lo and dropped_hi + w[hi - 1] <= ulps:
        dropped_hi += w[hi - 1]
        hi -= 1
    if lo == 0 and hi == len(w):
        return lat
    return _Lattice(w[lo:hi], lat.top - lat.stride * lo, lat.stride, lat.bits,
                    lat.slack + dropped + dropped_hi)


def _power(base: _Lattice, k: int, trim: int = _TRIM_ULPS, per_step: int = 0, base_steps: int = 1,
           squarings: dict | None = None) -> _Lattice:
    """``base`` composed ``k`` times by repeated squaring (at most ``2 log2(k)`` products), each
    product trimming at each end at most ``max(trim, per_step * n)`` ulps into the slack, ``n`` the
    steps it holds (``base`` holds ``base_steps``): a trim at a product of ``n`` steps reaches the
    end ``k base_steps / n`` times over, so each product's trims weigh alike at the end.

    The same products, roundings and trims as :func:`_multiply`, held as FLINT polynomials
    between them (python-flint: the product, then ``floor(c / 2**bits)`` of every coefficient,
    and the trim reading only the end coefficients), so that no product converts its whole list
    to Python integers and back; the result is the same lattice as the list-based products.
    ``squarings`` (a dict, ``j -> base**(2**j)`` as held here, and ``"last" -> (k', base**k')``)
    keeps the squarings and the last power for another power of the same ``base`` with the same
    trims (a curve against k): ``base**k`` is then ``base**k'`` times ``base**(k - k')`` for the
    largest ``k' < k`` kept, one product more (the products' order changes nothing certified:
    each product is exact before its rounding and trims, which go to the slack)."""
    try:
        from flint import fmpz, fmpz_poly  # lazy: python-flint, an optional import (as in _convolve)
    except ImportError:  # pragma: no cover - python-flint is a dependency
        result = None
        while True:
            if k & 1:
                result = base if result is None else _multiply(result, base, trim)
            k >>= 1
            if not k:
                assert result is not None  # k >= 1: its lowest set bit set result
                return result
            base = _multiply(base, base, trim)
    bits, stride, unit = base.bits, base.stride, fmpz(1 << base.bits)

    def product(x, y):
        px, nx, tx, sx, kx = x
        py, ny, ty, sy, ky = y
        cut = max(trim, per_step * (kx + ky))
        prod = (px * px if x is y else px * py) // unit  # nonnegative: floor is >> bits
        n = nx + ny - 1
        slack = sx + sy + ((sx * sy) >> bits) + 1 + n
        lo, dropped = 0, 0  # the trim of _trim, on the polynomial's end coefficients
        while lo < n - 1 and dropped + int(prod[lo]) <= cut:
            dropped += int(prod[lo])
            lo += 1
        hi, dropped_hi = n, 0
        while hi - 1 > lo and dropped_hi + int(prod[hi - 1]) <= cut:
            dropped_hi += int(prod[hi - 1])
            hi -= 1
        if lo or hi < n:
            prod = prod.right_shift(lo).truncate(hi - lo) if lo else prod.truncate(hi)
        return prod, hi - lo, tx + ty - stride * lo, slack + dropped + dropped_hi, kx + ky

    b = start = (fmpz_poly(base.w), len(base.w), base.top, base.slack, base_steps)

    def power(n):  # base**n by repeated squaring, the squarings kept
        out, j, sq = None, 0, b
        while True:
            if n & 1:
                out = sq if out is None else product(out, sq)
            n >>= 1
            if not n:
                return out
            j += 1
            if squarings is not None and j in squarings:
                sq = squarings[j]
            else:
                sq = product(sq, sq)
                if squarings is not None:
                    squarings[j] = sq

    last = squarings.get("last") if squarings is not None else None
    # base**k' held (so squarings is a dict): times base**(k - k'), kept for the next gap alike
    if squarings is not None and last is not None and last[0] < k:
        gap = k - last[0]
        held = squarings.get("gap")
        step = held[1] if held is not None and held[0] == gap else power(gap)
        squarings["gap"] = (gap, step)
        result = product(last[1], step)
    else:
        result = power(k)
    if squarings is not None:
        squarings["last"] = (k, result)
    if result[0] is start[0]:
        return base  # k = 1: the base itself
    poly, n, top, slack, _ = result
    w = [int(c) for c in poly.coeffs()]
    return _Lattice(w + [0] * (n - len(w)), top, stride, bits, slack)


_PARALLEL_POINTS = 20_000
"""A grid whose composed lattices are estimated at this many points composes them (remove, add,
lower) in two processes (Linux's fork; python-flint's products hold the GIL, so threads would
not overlap): the same products, so the same lattices, in about half the wall time on 2 cores."""


def _powers_in_two_processes(jobs: dict) -> dict:
    """``{key: _power(lat, k, per_step=..., base_steps=...)}`` for ``jobs`` (``key -> (lat, k,
    per_step, base_steps)``), the larger jobs split between this process and one forked child
    (results sent back pickled). Serial where fork is not available or fails."""
    import multiprocessing  # lazy: multiprocessing, the stdlib's process machinery, only for large grids

    def run(keys):
        return {key: _power(jobs[key][0], jobs[key][1], per_step=jobs[key][2], base_steps=jobs[key][3])
                for key in keys}

    if len(jobs) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return run(list(jobs))
    order = sorted(jobs, key=lambda key: -len(jobs[key][0].w))
    mine: list = []
    theirs: list = []
    load = [0, 0]  # greedy: each job to the lighter side
    for key in order:
        side = 0 if load[0] <= load[1] else 1
        (mine if side == 0 else theirs).append(key)
        load[side] += len(jobs[key][0].w)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(("ok", run(theirs)))
        except BaseException as e:  # noqa: BLE001 - carried back to the parent, raised there
            send.send(("error", e))
        finally:
            send.close()

    try:
        process = ctx.Process(target=child, daemon=True)
        process.start()
    except OSError:  # no process to be had: compose here
        return run(list(jobs))
    try:
        out = run(mine)
        status, got = receive.recv()
        if status == "error":
            raise got
        out.update(got)
        return out
    finally:
        send.close()
        receive.close()
        if process.is_alive():
            process.terminate()
        process.join()


class _LatticeEvaluator:
    """``delta(eps)`` bounds of a composed lattice distribution (see the module docstring)."""

    def __init__(self, lat: _Lattice, unit: _Unit):
        self.lat, self.unit, self.bits = lat, unit, lat.bits
        prec = lat.bits + 32
        self.prec = prec
        rho = enclose(lambda iv: iv.exp(-unit.interval(iv) * lat.stride), prec=prec)
        r_lo, r_hi = _floor_ceil(rho, lat.bits)
        bits = lat.bits
        prefix, h_lo, h_hi = [0], [], []
        a = b = total = 0
        for v in lat.w:
            total += v
            prefix.append(total)
            a = ((a * r_lo) >> bits) + v
            b = -((-b * r_hi) >> bits) + v
            h_lo.append(a)
            h_hi.append(b)
        self.prefix, self.h_lo, self.h_hi = prefix, h_lo, h_hi
        self.scale = Fraction(1, 2**bits)

    def top_loss_upper(self) -> Fraction:
        """A rational at least the largest loss held (above it only the slack remains)."""
        if not self.unit.is_log:
            return max(Fraction(0), self.unit.value * self.lat.top)
        x = enclose(lambda iv: self.unit.interval(iv) * self.lat.top, prec=self.prec)
        return max(Fraction(0), interval_to_fractions(x)[1])

    def _counts(self, eps: Fraction) -> range:
        """The possible numbers ``J`` of slots with loss ``> eps``."""
        lat, n = self.lat, len(self.lat.w)
        if not self.unit.is_log:
            x = eps / self.unit.value  # slot i has loss > eps iff top - stride*i > x
            j = math.ceil((lat.top - x) / lat.stride)
            j = min(max(j, 0), n)
            return range(j, j + 1)
        xi = enclose(lambda iv: exact_interval(eps) / self.unit.interval(iv), prec=self.prec)
        x_lo, x_hi = interval_to_fractions(xi)
        j1 = min(max(math.ceil((lat.top - x_hi) / lat.stride), 0), n)
        j2 = min(max(math.ceil((lat.top - x_lo) / lat.stride), 0), n)
        return range(j1, j2 + 1)

    def __call__(self, eps: Fraction) -> tuple[Fraction, Fraction]:
        lows, highs = [], []
        for j in self._counts(eps):
            if j == 0:
                lows.append(Fraction(0))
                highs.append(Fraction(0))
                continue
            n_last = self.lat.top - self.lat.stride * (j - 1)
            f = enclose(lambda iv, n_last=n_last: iv.exp(exact_interval(eps) - self.unit.interval(iv) * n_last),
                        prec=self.prec)
            f_lo, f_hi = interval_to_fractions(f)
            lows.append((self.prefix[j] - f_hi * self.h_hi[j - 1]) * self.scale)
            highs.append((self.prefix[j] - f_lo * self.h_lo[j - 1]) * self.scale)
        lo = max(Fraction(0), min(lows))
        hi = min(Fraction(1), max(highs) + self.lat.slack * self.scale)
        return lo, hi

    def slack(self) -> Fraction:
        return self.lat.slack * self.scale


# --- the Gaussian -----------------------------------------------------------------------


class _GaussianEvaluator:
    def __init__(self, mu2: Fraction, prec: int):
        self.mu2, self.prec = mu2, prec

    def __call__(self, eps: Fraction) -> tuple[Fraction, Fraction]:
        """``delta(eps) = Phi(-x) - e^eps Phi(-s)`` with ``x = eps/mu - mu/2``, ``s = eps/mu + mu/2``,
        enclosed as ``Phi(-x) - e^(-x**2/2) erfcx(s/sqrt 2)/2`` (exact: ``s**2 - x**2 = 2 eps``, so no
        ``e^eps`` is computed: ``iv.exp(1e4000)`` took 40 s); at ``eps = 0`` as ``erf(mu/(2 sqrt 2))``,
        which keeps its relative accuracy for a tiny ``mu`` (``Phi(mu/2) - Phi(-mu/2)`` cancels)."""
        mu2 = self.mu2

        def fn(iv):
            mu = iv.sqrt(exact_interval(mu2))
            if eps == 0:
                return erf(mu / (2 * iv.sqrt(2)))
            e = exact_interval(eps)
            x = e / mu - mu / 2
            s = e / mu + mu / 2
            return normal_cdf(-x) - _exp_of_negative(-(x * x) / 2) * erfcx(s / iv.sqrt(2)) / 2

        return interval_to_fractions(enclose(fn, prec=self.prec), within=(Fraction(0), Fraction(1)))

    def epsilon_above(self, delta: Fraction) -> Fraction:
        """A whole number ``b`` with ``delta(b) <= delta / 2``: ``delta(eps) <= P[L > eps]``
        for the loss ``L ~ N(mu**2/2, mu**2)``, and ``P[L > mu**2/2 + mu t] <= exp(-t**2/2)/2
        <= delta / 2`` once ``t**2 >= 2 log(1/delta)``; ``mu`` and ``log2(1/delta)`` are
        rounded up (``delta > 0`` here)."""
        mu = math.isqrt(math.ceil(self.mu2)) + 1
        log2_inv = delta.denominator.bit_length() - delta.numerator.bit_length() + 1
        t = math.isqrt(2 * log2_inv) + 1  # t**2 >= 2 log2(1/delta) >= 2 log(1/delta)
        return Fraction(mu * mu // 2 + mu * t + 1)


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccountCheck:
    """A published number compared with the certified enclosure.

    ``verdict``: ``"violated"`` (the number is below the certified lower bound: it
    underestimates the privacy loss), ``"holds"`` (at or above the upper bound:
    conservative; tight when the enclosure is the single point it equals) or
    ``"undecided"`` (inside the enclosure: not decided at the width reached).
    """

    published: Fraction
    quantity: str
    verdict: str
    lower: Fraction | float  # math.inf when no finite epsilon holds (epsilon(0) of a Gaussian)
    upper: Fraction | float
    upper_only: bool = False  # the enclosure is a dominating pair's: only its upper end binds

    @property
    def ok(self) -> bool:
        return self.verdict == "holds"

    def message(self) -> str:
        p = _approx(self.published)
        lo, hi = _approx(self.lower), _approx(self.upper)
        if self.verdict == "violated":
            return (f"VIOLATED: {self.quantity} = {p} is below the certified lower bound {lo}; "
                    f"it underestimates the privacy loss")
        if self.verdict == "holds":
            tight = " (tight: equals the exact value)" if self.lower == self.upper == self.published else ""
            return f"HOLDS: {self.quantity} = {p} is at or above the certified upper bound {hi}{tight}"
        if self.upper_only:
            return (f"UNDECIDED: {self.quantity} = {p} is below the certified upper bound {hi} of a pair "
                    f"that dominates these mechanisms; their own curve may be lower")
        return (f"UNDECIDED: {self.quantity} = {p} lies inside the enclosure [{lo}, {hi}]; "
                f"narrow the width to decide")

    def to_dict(self) -> dict:
        return {"published": _exact_text(self.published), "verdict": self.verdict}


def _approx(x) -> str:
    if isinstance(x, float):
        return "inf"
    if x == 0 or Fraction(1, 10**300) < abs(x) < 10**300:
        return f"{float(x):.12g}"
    return str(decimal_at_most(x, 12))  # beyond float64 (1e400, 1e-400): never inf or 0


def _exact_text(x: Fraction) -> str:
    return show_exact(x)


@dataclass(frozen=True)
class AccountResult:
    """A certified enclosure ``lower <= value <= upper`` of ``epsilon(delta)`` (``quantity ==
    "epsilon"``) or ``delta(epsilon)`` of ``k`` compositions of ``mechanisms``.

    ``lower``/``upper`` are exact Fractions (``upper`` may be ``math.inf``: no finite
    epsilon at ``delta = 0`` for a Gaussian); ``epsilon_lower`` etc. name them by quantity.
    ``width_met`` says whether ``upper - lower <= width * upper`` was reached; ``bits`` is
    the working precision, ``slots`` the lattice points held, ``seconds`` the time taken.
    """

    mechanisms: tuple
    k: int
    quantity: str
    given: Fraction
    lower: Fraction | float
    upper: Fraction | float
    width: Fraction
    width_met: bool
    bits: int
    slots: int
    seconds: float
    notes: str = ""
    extra: dict = field(default_factory=dict)
    upper_only: bool = False  # a component is composed through a pair that dominates it: the
    # upper end bounds the mechanisms' curve, the lower end only that pair's (not theirs)
    stopped: str = ""  # when the width was not met: what stopped the refinement (and what to do)

    # named views
    @property
    def epsilon_lower(self) -> Fraction:
        return self._named("epsilon", self.lower)

    @property
    def epsilon_upper(self):
        return self._named("epsilon", self.upper)

    @property
    def delta_lower(self) -> Fraction:
        return self._named("delta", self.lower)

    @property
    def delta_upper(self):
        return self._named("delta", self.upper)

    def _named(self, quantity: str, value):
        if self.quantity != quantity:
            other = "delta" if quantity == "epsilon" else "epsilon"
            raise AttributeError(f"this result encloses {self.quantity}({other}); read "
                                 f"{self.quantity}_lower/{self.quantity}_upper")
        return value

    @property
    def vacuous(self) -> bool:
        """True when nothing beyond the trivial was certified: ``epsilon`` in ``[0, inf]`` or
        ``delta`` in ``[0, 1]`` (the command line exits 1 on it, as on an undecided check)."""
        if self.quantity == "epsilon":
            return self.lower == 0 and isinstance(self.upper, float)
        return self.lower == 0 and self.upper == 1

    def relative_width(self) -> Fraction | float:
        if isinstance(self.upper, float):
            return math.inf
        if self.upper == 0:
            return Fraction(0)
        return (self.upper - self.lower) / self.upper

    def decimal_bounds(self, digits: int | None = None) -> tuple[str, str]:
        """The bounds as decimal strings, the lower rounded down and the upper rounded up."""
        if digits is None:
            w = self.relative_width()
            # a float w is math.inf; log10 of the ints: a Fraction w may be below 1e-308
            digits = 17 if w == 0 or isinstance(w, float) else max(
                17, 4 - math.floor(math.log10(w.numerator) - math.log10(w.denominator)))
        if isinstance(self.lower, float):
            lo = "inf"
        else:
            lo = _decimal_text(decimal_at_most(self.lower, digits)) if self.lower else "0"
        if isinstance(self.upper, float):
            hi = "inf"
        else:
            hi = _decimal_text(decimal_at_least(self.upper, digits)) if self.upper else "0"
        return lo, hi

    def _given_text(self) -> str:
        g = self.given
        if _is_short(g):
            return _decimal_text(_exact_decimal(g))
        return show_exact(g)

    def check(self, published) -> AccountCheck:
        """Compare another accountant's number for the same quantity with the enclosure."""
        value = nonnegative(published, self.quantity)
        if self.upper_only and not isinstance(self.upper, float) and value < self.upper:
            verdict = "undecided"  # below a bound, not below the mechanisms' own curve
        elif isinstance(self.lower, float) or value < self.lower:
            verdict = "violated"
        elif not isinstance(self.upper, float) and value >= self.upper:
            verdict = "holds"
        else:
            verdict = "undecided"
        return AccountCheck(value, self.quantity, verdict, self.lower, self.upper, self.upper_only)

    def to_dict(self) -> dict:
        lo, hi = self.decimal_bounds()
        other = "delta" if self.quantity == "epsilon" else "epsilon"
        names = [m[0] for m in self.mechanisms]
        out: dict = {
            "mechanism": names[0] if len(names) == 1 else names,
            "params": self.mechanisms[0][1] if len(names) == 1 else [m[1] for m in self.mechanisms],
            "k": self.k,
            other: self._given_text(),
            f"{self.quantity}_lower": lo,
            f"{self.quantity}_upper": hi,
            "relative_width": "inf" if isinstance(self.upper, float) else f"{float(self.relative_width()):.3g}",
            "width_met": self.width_met,
            "precision_bits": self.bits,
            "slots": self.slots,
            "seconds": round(self.seconds, 3),
        }
        if self.notes:
            out["notes"] = self.notes
        if self.vacuous:
            out["certified"] = "nothing"
        if self.upper_only:
            out["upper_only"] = True
        if not self.width_met and self.stopped:
            out["stopped"] = self.stopped
        return out

    def __str__(self) -> str:
        lo, hi = self.decimal_bounds()
        other = "delta" if self.quantity == "epsilon" else "epsilon"
        what = " + ".join(f"{m[0]}(" + ", ".join(f"{k}={v}" for k, v in m[1].items()) + ")"
                          for m in self.mechanisms)
        lines = [
            f"{what}, composed k={self.k:,} times, at {other}={self._given_text()}",
            (f"  {self.quantity} at most {hi}  (a certified upper bound, rounded up; [{lo}, {hi}] "
             f"encloses the dominating pair's value, not the mechanisms' own)" if self.upper_only else
             f"  {self.quantity} in [{lo}, {hi}]  (certified: lower rounded down, upper rounded up)"),
            f"  relative width {_approx(self.relative_width()) if self.relative_width() != 0 else '0 (exact)'}"
            + ("" if self.width_met else f", NOT within the requested {float(self.width):.3g}")
            + f"; {self.bits} bits, {self.slots:,} lattice points, {self.seconds:.2f} s",
        ]
        if self.notes:
            lines.append(f"  {self.notes}")
        if not self.width_met and self.stopped:
            lines.append(f"  stopped: {self.stopped}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        title, *rest = str(self).splitlines()
        lo, hi = self.decimal_bounds()
        verdict = "certified" if self.width_met and not self.vacuous else "not within width"
        rows = [(f"{self.quantity}", f"[{lo}, {hi}]")] + [("", line.strip()) for line in rest[1:]]
        return card(title, verdict, rows)


def _is_short(x: Fraction) -> bool:
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    return d == 1 and len(str(x.numerator)) < 60


def _fives(d: int) -> int:
    """The exponent of 5 in ``d``."""
    k = 0
    while d % 5 == 0:
        d, k = d // 5, k + 1
    return k


def _exact_decimal(x: Fraction) -> Decimal:
    """``x`` (a denominator ``2**a 5**b``: :func:`_is_short`) as the Decimal equal to it, whatever
    its digits (``Decimal(p) / Decimal(q)`` rounds to the default context's 28)."""
    d = x.denominator
    twos = (d & -d).bit_length() - 1
    m = max(twos, _fives(d >> twos))
    n = x.numerator * (10**m // d)
    return Context(prec=max(28, len(str(abs(n))) + 1)).scaleb(Decimal(n), -m)


def _decimal_text(d: Decimal) -> str:
    text = format(d, "f") if -30 < d.adjusted() < 30 else str(d)
    if "." in text and "e" not in text.lower():
        text = text.rstrip("0").rstrip(".")
    return text


# --- the driver ---------------------------------------------------------------------------


def _common(components: list) -> tuple[str, _Unit | None, list]:
    """The kind of composition and, for a lattice, the common unit and each scale factor."""
    live = [c for c in components if c.kind != "null"]
    if not live:
        return "null", None, []
    kinds = {c.kind for c in live}
    if "subsampled" in kinds or kinds == {"gaussian", "lattice"}:
        # one certified grid for all: every component needs its grid model
        lost = [c for c in live if c.model is None]
        if lost:
            raise InvalidArgument(
                f"a list holding a subsampled mechanism, the laplace mechanism or a gaussian beside lattice "
                f"mechanisms is composed on one certified loss grid, which {lost[0].name} does not have yet; "
                f"account for {lost[0].name} apart and compose the results' (epsilon, delta) with exactdp compose")
        return "subsampled", None, [(c, 1) for c in live]
    if kinds == {"gaussian"}:
        return "gaussian", None, []
    logs = {c.unit for c in live if c.unit.is_log}
    if logs:
        if len(logs) > 1 or len(logs) != len({c.unit for c in live}):
            if all(c.model is not None for c in live):  # incommensurable losses: on one certified grid
                return "subsampled", None, [(c, 1) for c in live]
            raise InvalidArgument(
                "randomized-response given by p has the loss unit log(p(k-1)/(1-p)); a list may mix it "
                "only with the same randomized response (the losses are otherwise incommensurable); "
                "give randomized-response by epsilon=... to compose it with rational losses")
        unit = next(iter(logs))
        return "lattice", unit, [(c, 1) for c in live]
    num = 0
    den = 1
    for c in live:
        num = math.gcd(num, c.unit.value.numerator)
        den = den * c.unit.value.denominator // math.gcd(den, c.unit.value.denominator)
    unit = _Unit(Fraction(num, den))
    return "lattice", unit, [(c, int(c.unit.value / unit.value)) for c in live]


def _estimate_slots(scaled: list, k: int, bits: int) -> int:
    """Lattice points the composition will hold (the full support, or a window of
    ``sqrt(2 * variance * (bits + 40) * ln 2)`` either side where that is smaller)."""
    g = 0
    for c, s in scaled:
        g = math.gcd(g, c.stride * s)
    full = sum(k * c.times * (c.slots - 1) * c.stride * s for c, s in scaled) // g + 1
    var = sum(k * c.times * Fraction(c.variance) * s * s for c, s in scaled)  # exact: s may be huge
    window = 2 * math.isqrt(int(2 * var * (bits + 40) * Fraction(7, 10)) + 1) // g + 2 + sum(
        c.times * (c.slots - 1) * c.stride * s for c, s in scaled) // g
    return min(full, window)


def _check_k(k, max_k) -> int:
    if max_k is not None and (isinstance(max_k, bool) or not isinstance(max_k, int) or max_k < 1):
        raise InvalidArgument(f"max_k={max_k!r} is not a positive whole number; it is the most compositions "
                              f"accepted, e.g. max_k={DEFAULT_MAX_K} (None: no limit)")
    if isinstance(k, bool) or not isinstance(k, int):
        if isinstance(k, str) and k.strip().isdigit():
            k = int(k)
        else:
            raise InvalidArgument(f"k={k!r} is not a whole number; pass the number of compositions, e.g. 1000")
    if k < 1:
        raise InvalidArgument(f"k={k!r} is not at least 1; compose a mechanism at least once")
    refuse_above(k, max_k, what="compositions (k)", option="max_k", hint="use a smaller k")
    return k


def _check_width(width) -> Fraction:
    w = to_exact(width, "width")
    if not 0 < w < 1:
        raise InvalidArgument(f"width={shown(width)} is not strictly between 0 and 1; it is the target "
                              f"relative width of the enclosure, e.g. '1e-9'")
    return w


_GALLOP_FROM = 64
"""``epsilon(delta)`` below ``b / 2**_GALLOP_FROM`` (``b`` the upper end) is searched by powers of
two before the halving: at sigma = 1e4000 it is near 1e-3997 with ``b`` about 331."""

_GALLOP_MAX = 1 << 22


def _approach_zero(evaluate, delta: Fraction, b: Fraction):
    """For a bracket ``[0, b]``: when ``delta(b / 2**64) <= delta`` is certified, the smallest
    ``b / 2**j`` (to a factor of 2) still certified, found by doubling ``j`` and then bisecting
    on ``j``, with the lower end ``b / 2**j`` if one is certified above ``delta`` (else 0).
    Returns ``(a, b, stuck)``: ``stuck`` when the search ended at an undecided point (the
    halving after it could not get further). Otherwise ``(0, b, False)``, unchanged."""
    lo, hi = evaluate(b / 2**_GALLOP_FROM)
    if hi > delta:
        return Fraction(0), b, False
    good = _GALLOP_FROM  # b / 2**good is certified <= delta
    bad = None  # b / 2**bad is certified above delta or undecided
    certified_above = False
    j = 2 * _GALLOP_FROM
    while j <= _GALLOP_MAX:
        lo, hi = evaluate(b / 2**j)
        if hi <= delta:
            good, j = j, 2 * j
            continue
        bad, certified_above = j, lo > delta
        break
    if bad is None:  # below b / 2**(2**22): the answer is that small (an upper end is all that matters)
        return Fraction(0), b / 2**good, True
    while bad - good > 1:
        j = (good + bad) // 2
        lo, hi = evaluate(b / 2**j)
        if hi <= delta:
            good = j
        else:
            bad, certified_above = j, lo > delta
    upper = b / 2**good
    if certified_above:
        return b / 2**bad, upper, False
    return Fraction(0), upper, True


def _bisect(evaluate, delta: Fraction, a: Fraction, b: Fraction, width: Fraction):
    """Narrow ``[a, b]`` (``delta(a) > delta`` and ``delta(b) <= delta`` certified) to a
    relative width ``<= width``. Returns ``(a, b, met)``; ``met`` False when a midpoint was
    undecided at this precision. From ``a = 0`` an answer far below ``b`` is first approached
    by powers of two (:func:`_approach_zero`)."""
    if a == 0 and b > 0 and b - a > width * b:
        a, b, stuck = _approach_zero(evaluate, delta, b)
        if stuck:
            return a, b, False
    while b - a > width * b:
        span = b - a
        if span < Fraction(1, 2**1000):  # math.log2 of a Fraction this small: 0.0, a domain error
            bits = span.denominator.bit_length() - span.numerator.bit_length() + 9
        else:
            bits = max(8, -math.floor(math.log2(span)) + 8) if span < 1 else 8
        m = Fraction(round((a + b) / 2 * 2**bits), 2**bits)
        if not a < m < b:
            m = (a + b) / 2
        lo, hi = evaluate(m)
        if lo > delta:
            a = m
        elif hi <= delta:
            b = m
        else:
            return a, b, False
    return a, b, True


def _pure_epsilon_total(scaled_all: list, k: int, width: Fraction) -> tuple[Fraction | float, Fraction | float]:
    """``epsilon(0)``: the sum of the pure epsilons, or infinity."""
    total = Fraction(0)
    log_terms: dict = {}
    for c in scaled_all:
        if c.pure_epsilon is None:
            return math.inf, math.inf
        if isinstance(c.pure_epsilon, Fraction):
            total += c.pure_epsilon * c.times
        elif callable(c.pure_epsilon):  # an enclosure iv -> interval (a subsampled mechanism's)
            log_terms[c.pure_epsilon] = log_terms.get(c.pure_epsilon, 0) + c.times
        else:
            unit, n = c.pure_epsilon
            log_terms[unit] = log_terms.get(unit, 0) + n * c.times
    total *= k
    if not log_terms:
        return total, total
    prec = 64
    while True:
        def fn(iv):
            s = exact_interval(total)
            for unit, n in log_terms.items():
                s = s + (unit(iv) if callable(unit) else unit.interval(iv)) * (n * k)
            return s
        lo, hi = interval_to_fractions(enclose(fn, prec=prec))
        if hi - lo <= width * hi or prec >= _GAUSS_MAX_PREC:
            return lo, hi
        prec *= 2


def account(mechanisms, k: int = 1, *, delta=None, epsilon=None, params: dict | None = None,
            width=None, max_k: int | None = DEFAULT_MAX_K,
            max_slots: int | None | str = "auto", max_bits: int = _MAX_BITS,
            _cache: dict | None = None, _plan_k: int | None = None) -> AccountResult:
    """Certified ``epsilon(delta)`` (give ``delta``) or ``delta(epsilon)`` (give ``epsilon``)
    of ``mechanisms`` composed ``k`` times.

    ``mechanisms`` is a name (its parameters in ``params``), a ``(name, params)`` pair, a
    mechanism built by :func:`~exactdp.mechanisms.mechanism.make_mechanism`, or a list of
    these (each composed once per round, the list ``k`` times), or a dp_accounting ``DpEvent``
    (read by :func:`exactdp.mechanisms.accounting.events.components`: Gaussian, Laplace, discrete
    Laplace, randomized response, Poisson and fixed-size sampling of one, self-composed and
    composed events, under the neighbours dp_accounting accounts them under). Names and parameters:
    ``discrete-laplace`` (``scale``, ``sensitivity=1``), ``randomized-response`` (``p`` or
    ``epsilon``, ``k_values=2``), ``gaussian`` (``sigma``, ``sensitivity=1``),
    ``discrete-gaussian`` (``sigma`` or ``sigma_squared``, ``sensitivity=1``). Numbers are
    exact (``'0.1'`` is one tenth); floats are refused.

    A Poisson-subsampled Gaussian (DP-SGD) is ``("gaussian", {"sigma": ..., "sampling":
    "poisson", "rate": q})``: its add/remove dominating pairs are discretised on the loss grid
    ``2**-m`` into a pair above and a pair below the true one (see
    :mod:`exactdp.mechanisms.accounting.subsampling`), ``m`` growing until the width is met. The same
    ``sampling="poisson", rate=q`` subsamples ``laplace`` (the continuous Laplace mechanism,
    ``scale``, ``sensitivity=1``; composed on the grid also without sampling),
    ``discrete-laplace``, ``randomized-response`` and ``discrete-gaussian``
    (:mod:`exactdp.mechanisms.accounting.profiles`).
    ``sampling="without-replacement", batch=M, population=N`` runs any of them on a batch of
    ``M`` of the ``N`` records drawn without replacement, under substitute neighbours (the
    sensitivity is the query's under substitution): one symmetric dominating pair
    (:class:`~exactdp.mechanisms.accounting.profiles.WithoutReplacement`); a list may not mix it with
    ``sampling="poisson"``.

    The working precision is doubled from 64 bits until ``upper - lower <= width * upper``
    (or ``max_bits``: then ``width_met`` is False and the enclosure, still sound, is wider).
    ``width`` defaults to ``DEFAULT_WIDTH`` (``SUBSAMPLED_WIDTH`` for anything on the grid).
    ``k`` above ``max_k`` or a lattice above ``max_slots`` points is refused before work
    (``"auto"``: ``DEFAULT_MAX_SLOTS``, or ``SUBSAMPLED_MAX_SLOTS`` for the grid of a
    subsampled Gaussian; ``None``: no limit).
    (:class:`~exactdp.mechanisms.accounting.curve.PrivacyCurve` passes ``_cache``, a dict in which the
    composed distributions are kept between queries, and, for a curve against k, ``_plan_k``, the
    largest k, for which the grid's precision and trims are chosen so that its squarings serve
    every k.)
    """
    started = time.perf_counter()
    event_note, k_factor = "", 1
    if events.is_event(mechanisms):  # a dp_accounting DpEvent: the components it describes
        if params:
            raise InvalidArgument("params=... goes with a mechanism name, not with a DpEvent (its parameters are its own)")
        mechanisms, k_factor, event_note = events.components(mechanisms)
    if isinstance(mechanisms, list):
        if not mechanisms:
            raise InvalidArgument("mechanisms=[] is empty; pass at least one mechanism")
        if params:
            raise InvalidArgument("params=... applies to a single mechanism name; in a list give "
                                  "(name, params) pairs")
        components = [_component(m) for m in mechanisms]
    else:
        item = (mechanisms, dict(params)) if isinstance(mechanisms, str) and params else mechanisms
        if params and not isinstance(mechanisms, str):
            raise InvalidArgument("params=... goes with a mechanism name such as 'discrete-laplace'")
        components = [_component(item)]
    _check_relations(components)
    k = _check_k(k, max_k)
    k = _check_k(k * k_factor, max_k) if k_factor != 1 else k  # an event's own count times k
    if (delta is None) == (epsilon is None):
        raise InvalidArgument("give delta=... (for epsilon(delta)) or epsilon=... (for delta(epsilon)), "
                              "exactly one")
    if isinstance(max_bits, bool) or not isinstance(max_bits, int) or max_bits < _START_BITS:
        raise InvalidArgument(f"max_bits={max_bits!r} is not an int >= {_START_BITS}")
    quantity = "epsilon" if delta is not None else "delta"
    given = probability(delta, "delta") if delta is not None else nonnegative(epsilon, "epsilon")
    kind, unit, scaled = _common(components)
    lattice_refusal = None
    if kind == "lattice" and max_slots == "auto" and all(isinstance(c.model, PoissonFinite) for c, _ in scaled):
        try:
            refuse_above(_estimate_slots(scaled, k, _START_BITS), DEFAULT_MAX_SLOTS,
                         what=f"lattice points in the privacy-loss distribution of k={k:,} compositions",
                         option="max_slots", hint="use a smaller k, or mechanisms whose losses take fewer "
                         "values (a smaller sigma, scales with a simpler common unit)")
        except TooLarge as e:
            # a lattice too fine for its budget (float epsilons share a unit of 2**-50 or so): the
            # same finite pairs on one certified loss grid (upper pair rounded up, lower down),
            # unless the grid too is over its budget (then the lattice's refusal is the one said)
            kind, unit, scaled, lattice_refusal = "subsampled", None, [(c, 1) for c, _ in scaled], e
    if max_slots == "auto":
        max_slots = SUBSAMPLED_MAX_SLOTS if kind == "subsampled" else DEFAULT_MAX_SLOTS
    elif max_slots is not None and (isinstance(max_slots, bool) or not isinstance(max_slots, int) or max_slots < 1):
        raise InvalidArgument(f"max_slots={max_slots!r} is not a whole number >= 1, 'auto' or None")
    w = _check_width(width if width is not None else SUBSAMPLED_WIDTH if kind == "subsampled" else DEFAULT_WIDTH)
    described = tuple((c.name, c.params) for c in components)

    scope_notes = "; ".join(dict.fromkeys(c.note for c in components if c.note))

    def result(lo, hi, met, bits, slots, notes="", stopped="") -> AccountResult:
        notes = "; ".join(n for n in (notes, scope_notes, event_note) if n)
        if not met and not stopped and quantity == "delta" and lo == 0 and not isinstance(hi, float) and hi < 1:
            stopped = (f"delta(epsilon) lies below what {bits:,} bits of working precision resolve, so its lower "
                       f"end stays 0 (the upper end is certified); use a smaller epsilon")
        if not met and not stopped:
            stopped = (f"the working precision reached its cap of {bits:,} bits before the enclosure was "
                       f"that narrow; ask for a larger width" + (", or a larger delta" if quantity == "epsilon"
                                                                 else ""))
        return AccountResult(described, k, quantity, given, lo, hi, w, met, bits, slots,
                             time.perf_counter() - started, notes, upper_only=bool(scope_notes),
                             stopped="" if met else stopped)

    # the trivial cases, decided exactly
    if kind == "null":
        return result(Fraction(0), Fraction(0), True, 0, 0, "no privacy loss")
    if quantity == "epsilon" and given == 1:
        return result(Fraction(0), Fraction(0), True, 0, 0, "delta = 1 holds at epsilon = 0")
    if quantity == "epsilon" and given == 0:
        lo, hi = _pure_epsilon_total([c for c in components if c.kind != "null"], k, w)
        met = isinstance(hi, float) or hi - lo <= w * hi
        return result(lo, hi, met, 0, 0, "delta = 0: the sum of the pure epsilons")
    if kind in ("lattice", "subsampled") and quantity == "delta":
        top = _pure_epsilon_total([c for c in components if c.kind != "null"], k, w)[1]
        if not isinstance(top, float) and given >= top:  # no loss exceeds the sum of the pure epsilons
            return result(Fraction(0), Fraction(0), True, 0, 0,
                          "epsilon is at least the largest total loss (the sum of the pure epsilons): "
                          "delta = 0 exactly")
    if kind == "lattice":
        refuse_above(_estimate_slots(scaled, k, _START_BITS), max_slots,
                     what=f"lattice points in the privacy-loss distribution of k={k:,} compositions",
                     option="max_slots", hint="use a smaller k, or mechanisms whose losses take fewer "
                     "values (a smaller sigma, scales with a simpler common unit)")

    if kind == "subsampled":
        try:
            return _account_subsampled([c for c, _ in scaled], k, quantity, given, w, max_slots, max_bits,
                                       result, {} if _cache is None else _cache, _plan_k)
        except TooLarge:
            if lattice_refusal is None:
                raise
            raise lattice_refusal from None
    bits = _START_BITS
    if kind == "gaussian":  # the losses' magnitude mu**2 costs its bits: start past them
        mu2 = Fraction(0)
        for c in components:
            if c.kind == "gaussian":
                assert c.mu2 is not None  # a Gaussian component carries its mu**2
                mu2 += c.mu2 * c.times
        mu2 *= k
        mag = mu2.numerator.bit_length() - mu2.denominator.bit_length()
        refuse_above(64 + max(0, mag), _GAUSS_MAX_PREC, option=None,
                     what=f"bits of working precision for mu**2 = k*(sensitivity/sigma)**2 ~ 2^{mag}",
                     hint="use a larger sigma or a smaller k")
        bits = 64 + max(0, mag)
    pure_upper = None  # lattice: the largest total loss, where delta(eps) = 0 exactly
    if kind == "lattice" and quantity == "epsilon":
        pure_upper = _pure_epsilon_total([c for c in components if c.kind != "null"], k, w)[1]
        if isinstance(pure_upper, float):
            pure_upper = None
        if (pure_upper is None and given * 2**max_bits < 1
                and (k > 1 or len(scaled) > 1 or any(c.tail is not None for c, _ in scaled))):
            # Every upper end of delta(eps) carries the lattice's slack, at least one unit of
            # 2**-bits (each product adds one; the discrete Gaussian's tail is one): a delta below
            # 2**-max_bits is never certified, and no largest loss is known to fall back on.
            return result(Fraction(0), math.inf, False, max_bits, 0,
                          _not_bracketed(given, max_bits) + " (known before computing: delta is below "
                          f"2**-{max_bits}; raise max_bits to try)")
    bracket = None
    slots = 0
    while True:
        if kind == "lattice" and _cache is not None and bits in _cache:
            evaluate, slots = _cache[bits]
        elif kind == "lattice":
            base = None
            for c, s in scaled:
                lat = _component_lattice(c, s, bits)
                if c.times > 1:
                    lat = _power(lat, c.times)
                base = lat if base is None else _multiply(base, lat)
            # a lattice: at least one live component, and _common gave their common unit
            assert base is not None and unit is not None
            composed = _power(base, k)
            evaluate = _LatticeEvaluator(composed, unit)
            slots = len(composed.w)
            if _cache is not None:
                _cache[bits] = evaluate, slots
        else:
            evaluate = _GaussianEvaluator(mu2, bits)
        limit = max_bits if kind == "lattice" else _GAUSS_MAX_PREC
        if quantity == "delta":
            lo, hi = evaluate(given)
            if hi - lo <= w * hi or bits >= limit:
                return result(lo, hi, hi - lo <= w * hi, bits, slots)
        else:
            found = _epsilon_step(evaluate, given, w, bracket, kind, pure_upper)
            if found is not None:
                a, b, met, bracket = found
                if met:
                    return result(a, b, True, bits, slots)
            if bits >= limit:
                if bracket is None:
                    upper = _upper_end_only(evaluate, given, w, kind, pure_upper)
                    if upper is None:
                        return result(Fraction(0), math.inf, False, bits, slots, _not_bracketed(given, bits))
                    return result(upper[0], upper[1], False, bits, slots,
                                  f"delta(0) could not be certified above delta={_approx(given)} at "
                                  f"{bits} bits, so the lower end is only the trivial 0; the upper end "
                                  f"is certified")
                return result(bracket[0], bracket[1], False, bits, slots)
        bits = min(2 * bits, limit)


# --- the subsampled Gaussian ------------------------------------------------------------

SUBSAMPLED_MAX_SLOTS = 4_000_000
"""Default budget on the work of a subsampled Gaussian's grid, in points of 128 bits (the composed
lattice's points and the profile points), estimated before each grid is built. It is a memory
budget: a composed point costs about 1 KB at the peak (three lattices, their products and the
evaluators' sums; measured: q = 0.001, sigma = 0.6, k = 10^5 holds 315,850 points of 94 bits at
the grid 2**-14 in 323 MB), so the default is about 4 GB."""

SUBSAMPLED_WIDTH = Fraction(1, 1000)
"""Default target relative width for a subsampled Gaussian (its grid error falls as ``h**2``;
each halving of ``h`` doubles the lattice)."""

_SUB_FIRST_M = 9
_SUB_LAST_M = 20
_GRID_MARGIN_BITS = 12
"""Fraction bits of a grid's lattice beyond those of ``k * points`` and of ``1 / (delta * width)``
(the resolution asked for): a product of ``n`` points loses at most ``n + 1`` ulps, and one that
holds ``s`` of the ``k`` rounds reaches the end ``k / s`` times, so the roundings of the products
(each at most about the one-step points, times ``k / s``, over ``s = 1, 2, 4, ...``) lose about
``2 k * points`` ulps in all: 12 bits leave them under ``delta * width / 2**10``."""


class _PairEvaluator:
    """``delta(eps)`` of the composed subsampled Gaussian: the lower end from the composed lower
    pair (remove), the upper end the larger of the composed upper pairs (remove, add)."""

    def __init__(self, lower, uppers: list):
        self.lower = lower[0] if isinstance(lower, list) else lower
        self.uppers = uppers

    def __call__(self, eps: Fraction) -> tuple[Fraction, Fraction]:
        lo = self.lower(eps)[0]
        hi = max(u(eps)[1] for u in self.uppers)
        return min(lo, hi), hi

    def top_loss_upper(self) -> Fraction:
        return max(u.top_loss_upper() for u in self.uppers)


def _pair_lattice(pair, trim: int = _TRIM_ULPS) -> _Lattice:
    """A :class:`~exactdp.mechanisms.accounting.subsampling.LatticePair` as a lattice (its end slots of at
    most ``trim`` ulps trimmed into the slack)."""
    return _trim(_Lattice(pair.w, pair.top, 1, pair.bits, pair.slack), trim)


_TRIM_SHARE = 256
"""The end tails trimmed while composing add up to at most about ``1/_TRIM_SHARE`` of ``delta * width``."""
_CELL_SHARE = 8
"""A grid subset's widest cells err (estimated) by at most ``delta * width / (_CELL_SHARE * steps)``."""


def _grid_tolerances(allowed: Fraction, bits: int, steps: int, parts: int) -> tuple[int, float]:
    """``(per_step, tol)`` for one grid: the ulps (of ``2**-bits``) a lattice of ``n`` steps may trim
    at each end is ``per_step * n`` (at least ``_TRIM_ULPS``), and ``tol`` the chord error allowed
    to a profile cell (:func:`~exactdp.mechanisms.accounting.subsampling.grid_subset`).

    Both choose only how tight the enclosure is, never whether it holds: trimmed mass goes into
    the slack (added at weight 1 to the upper end), and any grid subset gives certified pairs.
    ``allowed`` is ``delta * width`` (the target's scale). The slack of a lattice of ``n`` steps
    reaches the composition of all ``steps`` about ``steps / n`` times (slacks add up under a
    product, to first order), so each trim adds at most about ``2 per_step steps`` there; each
    composed lattice takes at most ``2 parts (log2(steps) + 2)`` trims (a pair's, a part's
    ``times`` squarings and products, the round's product, ``k``'s squarings and products), so
    the slack from trims is at most about ``allowed / _TRIM_SHARE``. A profile cell's chord error
    ``tol`` moves ``delta`` after ``steps`` steps by at most ``steps * tol`` (the errors of composed
    pairs add up: hybrid argument), ``allowed / _CELL_SHARE``."""
    trims = 2 * parts * (steps.bit_length() + 2)
    per_step = math.floor(allowed * 2**bits / (_TRIM_SHARE * 2 * trims * steps))
    return per_step, float(allowed) / (_CELL_SHARE * steps)


def _subsampled_estimate(parts: list, m: int, k: int, bits: int, tail_bits: int) -> tuple[int, int]:
    """``(points of one round, points of the k-fold composition)`` of ``parts`` (``(model,
    times)`` pairs), estimated before any work: the full support, or a window of
    ``sqrt(2 * variance * (bits + 40) * ln 2)`` either side (a loss's variance is at most
    ``q**2 (e^(mu**2) - 1) / (1 - q)`` and at most ``mu**2 (1 + mu**2 / 4)``)."""

    h = Fraction(1, 2**m)
    one = span = var = 0
    for model, times in parts:
        width = max(hi - lo + 1 for lo, hi in (grid_points(model, d, h, tail_bits) for d in ("remove", "add")))
        one += width - 1  # one step of each
        span += times * (width - 1)  # the full support of one round
        if hasattr(model, "variance_bound"):  # a bounded loss: its largest square
            var += times * model.variance_bound()
            continue
        q, mu2 = float(model.q), float(min(model.mu, 10**100)) ** 2  # mu**2 may overflow: inf is as good
        bound = mu2 * (1 + mu2 / 4)
        if q < 1:
            bound = min(bound, q * q * math.expm1(min(mu2, 700.0)) / (1 - q))
        var += times * bound
    if one > 2**900:  # a range beyond floats (sigma = 1e-160): the full support, refused over any budget
        return one + 1, k * span + 1
    window = 2 * math.sqrt(2 * k * var * (bits + 40) * 0.7) * 2**m + one + 1
    return one + 1, int(min(k * span + 1, window))


_POINT_WEIGHT = 3
"""A profile point (a few Arb normal tails) costs about three lattice points of the same precision
while composing (measured: 35,479 points at 1,088 bits took 7.5 s; convolving 37,621 points at
1,024 bits, 2.7 s)."""


def _profile_points(parts: list, m: int, tail_bits: int, tol: float) -> int:
    """The profile points one grid encloses (both directions of every part): the grid subsets' sizes,
    or the whole ranges when they are too long to choose a subset from (then refused over any budget)."""
    total = 0
    for model, _ in parts:
        for d in ("remove", "add"):
            lo, hi = grid_points(model, d, Fraction(1, 2**m), tail_bits)
            total += hi - lo + 1 if hi - lo > 1 << 24 else len(grid_subset(model, d, m, lo, hi, tol))
    return total


def _grid_work(points: int, slots: int, bits: int) -> int:
    """The work of one grid, in lattice points of 128 bits (what ``max_slots`` counts): the composed
    points at ``bits`` and the profile points at ``bits + 64``, each weighted by its size."""
    return slots * max(bits, 128) // 128 + _POINT_WEIGHT * points * max(bits + 64, 128) // 128


def _tv_zero(parts: list, k: int, delta: Fraction) -> bool:
    """Certified ``delta(0) <= delta`` for Gaussians only (each Poisson-subsampled at a rate ``q``,
    ``q = 1`` the plain one), so that ``epsilon(delta) = 0`` exactly.

    The argument: ``delta(0)`` is the total variation ``TV`` between the composed pair's two
    measures (either direction). One step's remove pair ``((1 - q) N(0, 1) + q N(mu, 1), N(0, 1))``
    (and the add pair, its mirror) has ``TV = q TV(N(mu, 1), N(0, 1)) = q erf(mu / (2 sqrt 2))
    <= q mu / sqrt(2 pi)`` (``erf' <= 2 / sqrt(pi)``); ``TV`` of a product is at most the sum of
    the factors' (a coupling per factor), so ``delta(0) <= S / sqrt(2 pi)``, ``S = k sum(times q mu)``.
    Also, each step is a post-processing of the plain Gaussian pair (keep the output with probability
    ``q``, else replace it by a fresh ``N(0, 1)`` draw), so the composition is dominated by the
    Gaussian of ``mu_total**2 = k sum(times mu**2)``, whose ``delta(0) = erf(mu_total / (2 sqrt 2))
    <= mu_total / sqrt(2 pi)``. With ``1 / sqrt(2 pi) < 2/5``, either ``(2/5) S <= delta`` or
    ``(4/25) mu_total**2 <= delta**2`` proves the claim, in exact rationals."""

    if not all(type(model) is PoissonGaussian for model, _ in parts):
        return False
    s = k * sum(times * model.q * model.mu for model, times in parts)
    x = k * sum(times * model.mu * model.mu for model, times in parts)
    return Fraction(2, 5) * s <= delta or Fraction(4, 25) * x <= delta * delta


def _account_subsampled(components: list, k: int, quantity: str, given: Fraction, w: Fraction,
                        max_slots, max_bits: int, result, cache: dict, plan_k: int | None = None) -> AccountResult:
    """Gaussians, at least one Poisson-subsampled, composed on the loss grid ``h = 2**-m``: each
    component's certified pairs (``times`` each per round) multiplied, per direction, then ``k``
    rounds. ``m`` is refined until the width is met (or the next grid's work would pass
    ``max_slots``, or ``m`` reaches its last level: then ``width_met`` is False and ``stopped``
    says which). Each grid's enclosure is intersected with the coarser ones' (all are certified),
    so refining never loosens the answer. ``cache`` keeps the profiles' points and each grid's
    composed pairs (with their precision)."""

    parts = [(c.model, c.times) for c in components]
    if quantity == "epsilon" and _tv_zero(parts, k, given):
        return result(Fraction(0), Fraction(0), True, 0, 0,
                      "delta(0), the composition's total variation, is certified at most delta (at most "
                      "min(k sum q mu, sqrt(k sum mu^2)) / sqrt(2 pi), mu = sensitivity/sigma): epsilon = 0 "
                      "exactly")
    # every part one symmetric pair (sampling without replacement): the add direction is the remove one
    symmetric = all(hasattr(model, "batch") for model, _ in parts)
    steps = k * sum(times for _, times in parts)
    progress = Progress("account", 1)
    try:
        return _refine_grid(parts, symmetric, steps, k, quantity, given, w, max_slots, max_bits, result,
                            cache, progress, lattice_pairs, plan_k)
    finally:
        progress.close()


def _refine_grid(parts, symmetric, steps, k, quantity, given, w, max_slots, max_bits, result, cache,
                 progress, lattice_pairs, plan_k: int | None = None) -> AccountResult:
    # the precision, the grid's range and the trims are chosen for plan_k rounds (k, or the
    # largest k of a curve against k, whose squarings the smaller ones then share)
    plan_k = max(k, plan_k or k)
    plan_steps = steps // k * plan_k
    bracket, best, stop, capped = None, None, "", ""
    lo_all, hi_all = Fraction(0), None  # the intersection of the enclosures found so far
    # a curve's next k starts at the grid the last one ended at (any grid is certified)
    m, last_m = cache.get(("start",), _SUB_FIRST_M), None
    while m <= _SUB_LAST_M:
        # the precision a delta this small asks for: from delta itself, or from the best upper end so far
        target = given if quantity == "epsilon" else (hi_all if hi_all else Fraction(1, 2**32))
        need = 1 / (target * w) if target > 0 else Fraction(2**32)
        # each step's grid leaves out tails of at most 2**-tail_bits: in all at most steps * 2**-tail_bits
        # of delta, below 2**-16 of the width asked (delta * width)
        tail_bits = plan_steps.bit_length() + math.ceil(need).bit_length() + 16
        one, _ = _subsampled_estimate(parts, m, k, 64, tail_bits)
        margin = _GRID_MARGIN_BITS if quantity == "epsilon" else 64  # a tiny delta(epsilon) is not known before
        wanted = margin + (plan_k * one).bit_length() + math.ceil(need).bit_length()
        bits = min(max_bits, wanted)
        # the tolerances follow delta, known in advance only for epsilon(delta); delta(epsilon) keeps
        # the whole grid and the trim of a few ulps (a tiny delta(epsilon) is not known before)
        per_step, tol = _grid_tolerances(target * w, bits, plan_steps, len(parts)) if quantity == "epsilon" else (0, 0.0)
        slots = _subsampled_estimate(parts, m, k, bits, tail_bits)[1]
        points = _profile_points(parts, m, tail_bits, tol)
        work = _grid_work(points, slots, bits)
        if max_slots is not None and work > max_slots:
            if best is None:
                refuse_above(work, max_slots, option="max_slots",
                             what=f"lattice points' work (points of 128 bits) for k={k:,} rounds at the grid "
                                  f"2**-{m}: {show_count(slots)} points of {show_count(bits)} bits and "
                                  f"{show_count(points)} profile points",
                             hint="use a smaller k, a larger sigma or scale, a smaller rate"
                                  + (", a larger delta" if quantity == "epsilon" else ", a smaller epsilon"))
            if last_m is not None and m > last_m + 1:  # a jump too far: try the next grid instead
                m -= 1
                continue
            stop = (f"the next grid 2**-{m} would cost about {work:,} lattice points of 128 bits, over "
                    f"max_slots={max_slots:,}; raise max_slots to at least {work:,} (--max-slots {work}) to "
                    f"try it, or ask for a larger width")
            break
        progress.show(f"grid 2**-{m}, about {slots:,} points of {bits} bits", phase=True)
        kept = cache.get(("grid", m, k))
        if kept is not None and kept[0] >= bits:  # composed before at this grid, precise enough
            bits, ev, held = kept
        else:
            unit = _Unit(Fraction(1, 2**m))
            grid_key = (m, bits, tail_bits, per_step, tol)
            # per direction ("lower", "remove", "add"): one round's lattice, and the steps it holds
            kept_rounds: tuple[dict[str, _Lattice], dict[str, int]] = \
                cache.get(("rounds",) + grid_key) or ({}, {})  # a curve's other k built them
            rounds, held_steps = kept_rounds
            for model, times in (parts if not rounds else ()):
                pairs = lattice_pairs(model, m, bits, tail_bits=tail_bits,
                                      cache=cache.setdefault(("points", model), {}), tol=tol)
                for key, pair in pairs.items():
                    if key == "add" and symmetric:  # the add pair is the remove pair
                        continue
                    lat = _pair_lattice(pair, max(_TRIM_ULPS, per_step))
                    if times > 1:
                        lat = _power(lat, times, per_step=per_step)
                    n = held_steps.get(key, 0) + times
                    rounds[key] = lat if key not in rounds else \
                        _multiply(rounds[key], lat, max(_TRIM_ULPS, per_step * n))
                    held_steps[key] = n
            if plan_k > k or ("rounds",) + grid_key in cache:  # a curve against k: kept for the others
                cache[("rounds",) + grid_key] = rounds, held_steps
            if plan_k == k and slots >= _PARALLEL_POINTS:  # the composed lattices' estimated size
                composed = _powers_in_two_processes({key: (lat, k, per_step, held_steps[key])
                                                     for key, lat in rounds.items()})
            else:
                composed = {key: _power(lat, k, per_step=per_step, base_steps=held_steps[key],
                                        squarings=cache.setdefault(("squarings",) + grid_key + (key,), {}))
                            for key, lat in rounds.items()}
            ev = _PairEvaluator(_LatticeEvaluator(composed["lower"], unit),
                                [_LatticeEvaluator(composed[d], unit) for d in ("remove", "add") if d in composed])
            held = max(len(lat.w) for lat in composed.values())
            cache[("grid", m, k)] = bits, ev, held
        last_m = m
        notes = (f"Poisson subsampling, add/remove neighbours: the larger of the remove and add "
                 f"directions; certified pairs above and below on the loss grid 2**-{m}"
                 if any(model.q < 1 and not hasattr(model, "batch") for model, _ in parts) else
                 f"sampling without replacement, substitute (replace-one) neighbours: the tight symmetric "
                 f"pair of Zhu, Dong and Wang 2022 (profile of (g P1 + (1 - g) P0, P0) for a >= 1 and of "
                 f"(P0, g P1 + (1 - g) P0) for a < 1, g = batch/population, sensitivity under substitution); "
                 f"certified pairs above and below on the loss grid 2**-{m}"
                 if any(hasattr(model, "batch") for model, _ in parts) else
                 f"certified pairs above and below on the loss grid 2**-{m}")
        extra = ""
        if quantity == "delta":
            lo, hi = ev(given)
        else:
            found = _epsilon_step(ev, given, w, bracket, "lattice", None)
            if found is None:  # delta(0) not certified above delta: 0 is still a lower end
                upper = _upper_end_only(ev, given, w, "lattice", None)
                lo, hi = upper if upper is not None else (Fraction(0), math.inf)
                extra = (f"; delta(0) could not be certified above delta={_approx(given)}, so the lower end "
                         f"is only the trivial 0; the upper end is certified" if upper is not None else
                         "; " + _not_bracketed(given, bits))
            else:
                a, b, met, bracket = found
                if not met:  # a midpoint was undecided: narrow each end on its own at this grid
                    a, b = _narrow(ev, given, a, b, w)
                    bracket = (a, b)
                lo, hi = a, b
        # every grid's enclosure is certified: keep their intersection (a finer grid never loosens it)
        lo_all = max(lo_all, lo)
        hi_all = hi if hi_all is None or (not isinstance(hi, float) and hi < hi_all) else hi_all
        if isinstance(hi_all, float):
            met = False
        else:
            lo_all = min(lo_all, hi_all)
            met = hi_all - lo_all <= w * hi_all
        best = result(lo_all, hi_all, met, bits, held, notes + extra, stopped="-")
        if met:
            if plan_k > k:
                cache[("start",)] = m
            return best
        if bits < wanted:  # said only if the width is missed in the end
            capped = (f"the working precision reached its cap of {max_bits:,} bits (max_bits), where a "
                      f"{'delta' if quantity == 'epsilon' else 'delta(epsilon)'} this small asks for about "
                      f"{wanted:,}; use a larger " + ("delta" if quantity == "epsilon" else
                                                      "width or a smaller epsilon"))
        # the grid's error falls as h**2: skip to the grid the width asks for (at least the next)
        # (as h for a pair with atoms in its loss, such as a finite pair: grid_order 1)
        ratio = best.relative_width() / w if best.relative_width() != math.inf else 4
        order = min(getattr(model, "grid_order", 2) for model, _ in parts)
        m += max(1, math.ceil(math.log2(max(float(ratio), 1.0)) / order))
    else:
        stop = stop or (f"the loss grid reached 2**-{last_m}, the finest this width asks for within the last "
                        f"level tried (2**-{_SUB_LAST_M}); ask for a larger width")
    # the first grid returns, sets best or is refused (refuse_above raises while best is None)
    assert best is not None
    return _with_stop(best, "; ".join(x for x in (stop, capped) if x))


def _with_stop(best: AccountResult, stop: str) -> AccountResult:
    return dataclasses.replace(best, stopped=stop or "the refinement ended short of the width")


def _narrow(evaluate, delta: Fraction, a: Fraction, b: Fraction, w: Fraction) -> tuple[Fraction, Fraction]:
    """The tightest bracket of ``epsilon(delta)`` inside ``[a, b]`` (``delta(a) > delta`` and
    ``delta(b) <= delta`` certified) that this enclosure certifies, to ``w * b / 8``: the upper
    end bisected on "certified ``<= delta``", then the lower end on "certified ``> delta``"
    (an undecided point moves neither end's certificate)."""
    step = w * b / 8
    lo, hi = a, b
    while hi - lo > step:
        mid = (lo + hi) / 2
        if evaluate(mid)[1] <= delta:
            hi = mid
        else:
            lo = mid
    b = hi
    lo, hi = a, b
    while hi - lo > step:
        mid = (lo + hi) / 2
        if evaluate(mid)[0] > delta:
            lo = mid
        else:
            hi = mid
    return lo, b


def _certified_upper_end(evaluate, delta: Fraction, kind: str, pure_upper) -> Fraction | None:
    """An ``eps`` with ``delta(eps) <= delta`` certified, or None.

    Lattice: the largest loss held, when the enclosure there is at most ``delta``; else the
    largest total loss ``pure_upper`` (the sum of the pure epsilons), where ``delta(eps) = 0``
    exactly: the composed loss never exceeds it, so ``(1 - e^(eps - L))_+`` vanishes. (A
    ``delta`` below the lattice's resolution, 1e-400 at 1,024 bits, is never certified by the
    enclosure.) Gaussian: :meth:`_GaussianEvaluator.epsilon_above`, when the enclosure there
    confirms it."""
    if kind == "lattice":
        b = evaluate.top_loss_upper()
        if evaluate(b)[1] <= delta:
            return b
        return pure_upper
    b = evaluate.epsilon_above(delta)
    return b if evaluate(b)[1] <= delta else None


def _upper_end_only(evaluate, delta: Fraction, w: Fraction, kind: str, pure_upper):
    """``(0, b)`` with ``b`` a certified upper end of ``epsilon(delta)``, narrowed by bisection,
    when ``delta(0) > delta`` could not be certified (``0`` is always a lower end); or None."""
    b = _certified_upper_end(evaluate, delta, kind, pure_upper)
    if b is None:
        return None
    a, b, _ = _bisect(evaluate, delta, Fraction(0), b, w)
    return a, b


def _not_bracketed(delta: Fraction, bits: int) -> str:
    """The note of an ``epsilon(delta)`` result that is not even bracketed (``[0, inf]``)."""
    return (f"NOTHING CERTIFIED: no epsilon was certified to have delta(epsilon) <= {_approx(delta)} at "
            f"{bits} bits (the enclosures resolve probabilities only to about 2**-{bits}, and no largest "
            f"loss is known for these mechanisms), so [0, inf] is only the trivial enclosure; use a larger "
            f"delta or a smaller k")


def _epsilon_step(evaluate, delta: Fraction, w: Fraction, bracket, kind: str, pure_upper=None):
    """One precision level of the epsilon(delta) search; ``None`` when not even bracketed."""
    if bracket is None:
        lo0, hi0 = evaluate(Fraction(0))
        if hi0 <= delta:
            return Fraction(0), Fraction(0), True, (Fraction(0), Fraction(0))
        if lo0 <= delta:
            return None
        a = Fraction(0)
        if kind == "lattice":
            b = _certified_upper_end(evaluate, delta, kind, pure_upper)
            if b is None:
                return None
        else:  # an upper end proven in advance; not certified here: more precision is needed
            b = evaluate.epsilon_above(delta)
            if evaluate(b)[1] > delta:
                return None
            guess = Fraction(math.floor(evaluate.mu2 / 2))  # the mean loss: often a lower end
            if 0 < guess < b and evaluate(guess)[0] > delta:
                a = guess
        bracket = (a, b)
    a, b, met = _bisect(evaluate, delta, bracket[0], bracket[1], w)
    return a, b, met, (a, b)
