"""Utility next to privacy: the exact expected absolute error and variance of the noise.

Each function returns a :class:`NoiseError` whose ``expected_abs`` (``E|X|``) and
``variance`` (``Var X = E X^2``, the noise is centred) are exact: a ``Fraction``, an exact
SymPy real, or an enclosure ``(lo, hi)`` of Fractions.

=====================  ==========================  ===========================
noise                  E|X|                        Var X
=====================  ==========================  ===========================
Laplace(b)             ``b``                       ``2 b^2``
N(0, s^2)              ``s sqrt(2/pi)``            ``s^2``
discrete Laplace(t)    ``2q/(1 - q^2)``            ``2q/(1 - q)^2``, ``q = e^{-1/t}``
discrete Gaussian      enclosed (sums + tails)     enclosed, and ``< s^2``
mean of n Laplace(b)   ``c_n b / n`` (``c_n`` exact rational)  ``2 b^2 / n``
=====================  ==========================  ===========================

>>> laplace_error("1/2").expected_abs, laplace_error("1/2").variance
(Fraction(1, 2), Fraction(1, 2))
>>> gaussian_error(3).expected_abs
3*sqrt(2)/sqrt(pi)
>>> laplace_sum_abs_coefficient(2)
Fraction(3, 2)

Seed 004's experiment: 500 people each report their height with Laplace noise of scale
``b``; the error of the mean of the reports is the mean of the noise, whose expected
absolute value is ``c_500 b / 500`` (about ``0.05045 b``) and whose variance is
``2 b^2/500``. :func:`error_table` gives it against epsilon for the sensitivities it is
given (the seed's three typical ones: :func:`exactdp.registry.seed004.typical_sensitivities`);
:func:`exactdp.plotting.plot_error_vs_epsilon` draws it (this module computes, it does not
draw: plotting sits in a layer above the mechanisms).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import positive
from exactdp.mechanisms.calibration.discrete import (
    DEFAULT_MAX_TERMS,
    _truncation_point,
    discrete_gaussian_tail_bound,
)
from exactdp.mechanisms.calibration.typical import _exact_or_sympy
from exactdp.numeric.decide import to_sympy
from exactdp.numeric.exact import format_exact
from exactdp.numeric.intervals import enclose, exact_interval, interval_to_fractions
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = [
    "DEFAULT_MAX_REPORTS",
    "MAX_EPSILONS",
    "SEED_EPSILONS",
    "SEED_REPORTS",
    "ErrorTable",
    "NoiseError",
    "discrete_gaussian_error",
    "discrete_laplace_error",
    "error_table",
    "gaussian_error",
    "laplace_error",
    "laplace_sum_abs_coefficient",
    "noisy_mean_error",
]

DEFAULT_MAX_REPORTS = 100_000
"""Largest ``n`` for :func:`laplace_sum_abs_coefficient` by default: ``c_n`` is a sum of
``n`` exact terms with about ``2n`` bits each (``n = 10^5``: about 2 s)."""

MAX_EPSILONS = 10_000
"""Most epsilons in one :func:`error_table`."""

SEED_REPORTS = 500
"""The seed's experiment: 500 people report their height."""

SEED_EPSILONS = tuple(Fraction(x) for x in ("1/1000", "1/100", "1/10", "1/2", "1", "2", "5", "10", "20"))
"""A grid over the seed's range of epsilon (0.001 to 20)."""


def _text(value: Any, digits: int = 12) -> str:
    if isinstance(value, tuple):
        return f"[{decimal_at_most(value[0], digits)}, {decimal_at_least(value[1], digits)}]"
    if isinstance(value, Fraction):
        return format_exact(value)
    return str(value)


def _interval(value: Any, digits: int = 20) -> tuple[Fraction, Fraction]:
    """An enclosure ``(lo, hi)`` of an exact value (a point for a Fraction)."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, Fraction):
        return (value, value)
    return (Fraction(decimal_at_most(value, digits)), Fraction(decimal_at_least(value, digits)))


@dataclass(frozen=True)
class NoiseError:
    """``E|X|`` and ``Var X`` of the noise a mechanism adds, exact or enclosed."""

    mechanism: str
    params: dict
    expected_abs: Any
    variance: Any

    def enclosure(self, quantity: str = "expected_abs", digits: int = 20) -> tuple[Fraction, Fraction]:
        """``(lo, hi)`` Fractions with ``lo <= value <= hi`` (``digits`` significant digits)."""
        if quantity not in ("expected_abs", "variance"):
            raise InvalidArgument(f"quantity={quantity!r} is not 'expected_abs' or 'variance'")
        return _interval(getattr(self, quantity), digits)

    def statement(self) -> str:
        given = ", ".join(f"{k}={_text(v)}" for k, v in self.params.items())
        return (f"{self.mechanism}({given}): E|noise| = {_text(self.expected_abs)} "
                f"(in {_text(self.enclosure('expected_abs'))}), Var = {_text(self.variance)}")

    __str__ = statement

    def to_dict(self) -> dict:
        def both(v):
            lo, hi = _interval(v)
            return {"exact": _text(v) if not isinstance(v, tuple) else None,
                    "enclosure": [str(decimal_at_most(lo, 20)), str(decimal_at_least(hi, 20))]}
        return {"mechanism": self.mechanism, "params": {k: _text(v) for k, v in self.params.items()},
                "expected_abs": both(self.expected_abs), "variance": both(self.variance)}

    def _repr_latex_(self) -> str:
        def tex(v):
            if isinstance(v, tuple):
                return rf"\in [{decimal_at_most(v[0], 15)}, {decimal_at_least(v[1], 15)}]"
            return "= " + sympy.latex(to_sympy(v) if isinstance(v, Fraction) else v)
        return (rf"$\text{{{self.mechanism}}}:\ \mathbb{{E}}|X| {tex(self.expected_abs)},\ "
                rf"\mathrm{{Var}}\,X {tex(self.variance)}$")


# --- continuous noise ------------------------------------------------------------------


def laplace_error(scale) -> NoiseError:
    """Laplace noise of scale ``b``: ``E|X| = b`` and ``Var X = 2 b^2``, exactly.

    ``scale`` is exact (a float is refused) or an exact SymPy real.
    """
    b = _scale(scale, "scale")
    return NoiseError("laplace", {"scale": b}, b, 2 * b * b if isinstance(b, Fraction) else 2 * b**2)


def gaussian_error(sigma) -> NoiseError:
    """Gaussian noise ``N(0, sigma^2)``: ``E|X| = sigma sqrt(2/pi)`` and ``Var X = sigma^2``."""
    s = _scale(sigma, "sigma")
    e = to_sympy(s) * sympy.sqrt(2) / sympy.sqrt(sympy.pi)
    return NoiseError("gaussian", {"sigma": s}, e, s * s if isinstance(s, Fraction) else s**2)


def _scale(value: Any, name: str):
    """A positive exact Fraction, or a positive exact SymPy real kept as it is."""
    if isinstance(value, sympy.Basic) and not value.is_Rational:
        return _exact_or_sympy(value, name)
    return positive(value, name)


# --- discrete noise ----------------------------------------------------------------------


def discrete_laplace_error(scale) -> NoiseError:
    """Discrete Laplace noise of scale ``t`` (``P[X = x]`` proportional to ``e^{-|x|/t}``):
    with ``q = e^{-1/t}``, ``E|X| = 2q/(1 - q^2)`` and ``Var X = 2q/(1 - q)^2``, exactly.

    Proof: ``P[X = x] = (1-q)/(1+q) q^{|x|}``, ``sum_{x>=1} x q^x = q/(1-q)^2`` and
    ``sum_{x>=1} x^2 q^x = q(1+q)/(1-q)^3``; see ``proofs/utility-discrete-noise.md``.

    >>> discrete_laplace_error(1).expected_abs
    2*exp(-1)/(1 - exp(-2))
    """
    t = positive(scale, "scale")
    q = sympy.exp(-1 / to_sympy(t))
    return NoiseError("discrete-laplace", {"scale": t}, 2 * q / (1 - q**2), 2 * q / (1 - q) ** 2)


def _moment_tail(iv, m: int, c, power: int):
    """An upper bound on ``sum_{x > m} x^power e^{-x^2 c}`` (``m >= 0``): the terms from
    ``x = m+1`` on fall by at least the ratio ``r = ((m+2)/(m+1))^power e^{-(2m+3) c}``
    (the ratio of consecutive terms decreases in ``x``), so the tail is at most
    ``term(m+1)/(1 - r)`` when ``r < 1``; ``None`` otherwise."""
    k = m + 1
    first = iv.mpf(k) ** power * iv.exp(-(k * k) * c)
    r = (iv.mpf(k + 1) / k) ** power * iv.exp(-(2 * k + 1) * c)
    if not r.b < 1:
        return None
    return first / (1 - r)


def discrete_gaussian_error(sigma_squared, *, max_terms: int = DEFAULT_MAX_TERMS) -> NoiseError:
    """Discrete Gaussian noise ``N_Z(0, sigma^2)``: ``E|X|`` and ``Var X`` enclosed.

    ``E|X| = 2 S_1 / (1 + 2 S_0)`` and ``Var X = 2 S_2 / (1 + 2 S_0)`` with
    ``S_p = sum_{x >= 1} x^p e^{-x^2/(2 sigma^2)}``, each summed up to the truncation point
    of :mod:`exactdp.mechanisms.calibration.discrete` and closed with a rigorous tail bound
    (:func:`~exactdp.mechanisms.calibration.discrete.discrete_gaussian_tail_bound` for ``S_0``, a
    geometric bound for ``S_1``, ``S_2``). The enclosure is refined to 2^-50 relative
    width (64 to 1024 bits). ``Var X < sigma^2`` (Canonne, Kamath, Steinke 2020).

    >>> r = discrete_gaussian_error(1)
    >>> decimal_at_most(r.variance[0], 10), decimal_at_least(r.variance[1], 10)
    (Decimal('0.9999997887'), Decimal('0.9999997888'))
    """
    s2 = positive(sigma_squared, "sigma_squared")
    if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1:
        raise InvalidArgument(f"max_terms={max_terms!r} is not a positive int")

    def sums(iv):
        m = _truncation_point(1, s2, iv.prec) + 2
        refuse_above(m, max_terms, what=f"terms needed by the discrete Gaussian's moments with "
                     f"sigma_squared={format_exact(s2)} ({iv.prec} bits)", option="max_terms",
                     hint="use a smaller sigma_squared")
        c = exact_interval(1 / (2 * s2))
        total = [iv.mpf(0), iv.mpf(0), iv.mpf(0)]
        term = iv.exp(-c)          # e^{-x^2 c} at x = 1
        step = iv.exp(-3 * c)      # e^{-(2x+1) c} at x = 1
        ratio = iv.exp(-2 * c)
        for x in range(1, m + 1):
            total[0] += term
            total[1] += x * term
            total[2] += x * x * term
            term *= step
            step *= ratio
        tails = [iv.mpf([0, discrete_gaussian_tail_bound(m, s2, prec=iv.prec).b])]
        for p in (1, 2):
            bound = _moment_tail(iv, m, c, p)
            if bound is None:  # pragma: no cover - m is far past sigma
                raise InvalidArgument(f"sigma_squared={format_exact(s2)}: no tail bound at m={m}")
            tails.append(iv.mpf([0, bound.b]))
        z = 1 + 2 * (total[0] + tails[0])
        return 2 * (total[1] + tails[1]) / z, 2 * (total[2] + tails[2]) / z

    prec = 64
    while True:
        e_iv, v_iv = (enclose(lambda iv, i=i: sums(iv)[i], prec=prec) for i in (0, 1))
        e, v = interval_to_fractions(e_iv), interval_to_fractions(v_iv)
        narrow = all(hi - lo <= hi / 2**50 for lo, hi in (e, v))
        if narrow or prec >= 1024:
            break
        prec *= 2
    return NoiseError("discrete-gaussian", {"sigma_squared": s2}, e, v)


# --- the noisy mean of n reports (seed 004) ----------------------------------------------


def _count(value: Any, name: str, budget: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; pass the number of reports, e.g. 500")
    if value < 1:
        raise InvalidArgument(f"{name}={value!r} is below 1; the mean needs at least one report")
    refuse_above(value, budget, what="reports in the noisy mean", option="max_n",
                 hint="use fewer reports (the error is about b*2/sqrt(pi*n) for large n)")
    return value


@functools.lru_cache(maxsize=64)
def _coefficient(n: int) -> Fraction:
    # c_n = sum_{k=0}^{n-1} (n-k) C(n-1+k, k) 2^{1-n-k}, over the common denominator 2^{2n-2}
    total, binom = 0, 1  # binom = C(n-1+k, k)
    for k in range(n):
        total += (n - k) * binom << (n - 1 - k)
        binom = binom * (n + k) // (k + 1)
    return Fraction(total, 1 << (2 * n - 2))


def laplace_sum_abs_coefficient(n: int, *, max_n: int | None = DEFAULT_MAX_REPORTS) -> Fraction:
    """The exact rational ``c_n`` with ``E|L_1 + ... + L_n| = c_n b`` for iid Laplace(b):

        c_n = sum_{k=0}^{n-1} (n - k) C(n-1+k, k) 2^{1-n-k}

    (``c_1 = 1``, ``c_2 = 3/2``, ``c_3 = 15/8``; ``c_n`` is about ``2 sqrt(n/pi)``).
    Derivation: ``proofs/utility-laplace-mean.md``; checked against SymPy integration of the
    convolved density for n = 1, 2, 3 in the tests.

    >>> [laplace_sum_abs_coefficient(n) for n in (1, 2, 3, 4)]
    [Fraction(1, 1), Fraction(3, 2), Fraction(15, 8), Fraction(35, 16)]
    """
    return _coefficient(_count(n, "n", max_n))


def noisy_mean_error(scale, n: int = SEED_REPORTS, *, max_n: int | None = DEFAULT_MAX_REPORTS) -> NoiseError:
    """The error of the mean of ``n`` reports, each with its own Laplace(b) noise: the mean
    of the noise, with ``E|mean| = c_n b / n`` and ``Var = 2 b^2 / n``, exactly.

    >>> r = noisy_mean_error(1, 500)
    >>> decimal_at_most(r.expected_abs, 8), decimal_at_least(r.expected_abs, 8), r.variance
    (Decimal('0.050450036'), Decimal('0.050450037'), Fraction(1, 250))
    """
    n = _count(n, "n", max_n)
    b = _scale(scale, "scale")
    c = laplace_sum_abs_coefficient(n, max_n=max_n)
    if isinstance(b, Fraction):
        return NoiseError("laplace-mean", {"scale": b, "n": n}, c * b / n, 2 * b * b / n)
    return NoiseError("laplace-mean", {"scale": b, "n": n}, to_sympy(c / n) * b, 2 * b**2 / n)


@dataclass(frozen=True)
class ErrorTable:
    """Expected absolute error of the noisy mean against epsilon, per sensitivity.

    ``rows``: ``(label, epsilon, expected_abs, lo, hi)`` with ``expected_abs`` exact (a
    SymPy real) and ``lo <= expected_abs <= hi`` Fractions; ``n`` the number of reports.
    """

    n: int
    sensitivities: dict
    rows: tuple

    def table(self) -> str:
        lines = [f"expected |error| of the mean of {self.n} Laplace-noised reports (b = sensitivity/epsilon)",
                 f"{'sensitivity':<22} {'epsilon':>10}  {'E|error| in':<40}"]
        for label, eps, _, lo, hi in self.rows:
            lines.append(f"{label:<22} {format_exact(eps):>10}  "
                         f"[{decimal_at_most(lo, 10)}, {decimal_at_least(hi, 10)}]")
        return "\n".join(lines)

    __str__ = table

    def to_dict(self) -> dict:
        return {"n": self.n,
                "sensitivities": {k: str(v) for k, v in self.sensitivities.items()},
                "rows": [{"sensitivity": label, "epsilon": format_exact(eps), "expected_abs": str(e),
                          "enclosure": [str(decimal_at_most(lo, 20)), str(decimal_at_least(hi, 20))]}
                         for label, eps, e, lo, hi in self.rows]}


def _epsilons(epsilons) -> list[Fraction]:
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__iter__"):
        raise InvalidArgument(f"epsilons={epsilons!r} is not a sequence; pass e.g. ['0.1', 1, 10]")
    if hasattr(epsilons, "__len__"):
        refuse_above(len(epsilons), MAX_EPSILONS, what="epsilons in one table", option=None,
                     hint="ask for fewer epsilons")
    out = []
    for i, e in enumerate(epsilons):
        out.append(positive(e, f"epsilons[{i}]"))
        refuse_above(len(out), MAX_EPSILONS, what="epsilons in one table", option=None,
                     hint="ask for fewer epsilons")
    if not out:
        raise InvalidArgument("epsilons=[] is empty; pass at least one epsilon")
    return out


def error_table(epsilons: Sequence = SEED_EPSILONS, sensitivities: dict | None = None,
                n: int = SEED_REPORTS, *, max_n: int | None = DEFAULT_MAX_REPORTS) -> ErrorTable:
    """The seed's experiment, exactly: for each sensitivity (a dict ``label -> value``, such
    as the seed's ``E[Delta f]``, ``+ sigma``, ``+ 2 sigma``:
    :func:`exactdp.registry.seed004.typical_sensitivities`) and each epsilon, the expected
    absolute error ``c_n (sensitivity/epsilon)/n`` of the mean of ``n`` noisy reports.

    >>> t = error_table(["1"], {"1 cm": 1, "12 cm": 12}, n=500)
    >>> [(label, decimal_at_least(hi, 4)) for label, _, _, _, hi in t.rows]
    [('1 cm', Decimal('0.05046')), ('12 cm', Decimal('0.6055'))]
    """
    eps_list = _epsilons(epsilons)
    n = _count(n, "n", max_n)
    if sensitivities is None:
        raise InvalidArgument("sensitivities=None: pass a dict label -> sensitivity, e.g. "
                              "{'E[Delta f]': expected_sensitivity(mixture)} (seed 004's three: "
                              "typical_sensitivities() of exactdp's registry.seed004)")
    if not isinstance(sensitivities, dict) or not sensitivities:
        raise InvalidArgument(f"sensitivities={sensitivities!r} is not a non-empty dict label -> value")
    sens = {str(k): _scale(v, f"sensitivities[{k!r}]") for k, v in sensitivities.items()}
    c = laplace_sum_abs_coefficient(n, max_n=max_n) / n
    rows = []
    for label, s in sens.items():
        s_lo, s_hi = _interval(s, 30)
        for eps in eps_list:
            exact = to_sympy(c / eps) * to_sympy(s) if not isinstance(s, Fraction) else c * s / eps
            rows.append((label, eps, exact, c * s_lo / eps, c * s_hi / eps))
    return ErrorTable(n, sens, tuple(rows))
