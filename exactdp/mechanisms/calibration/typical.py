"""A "typical" sensitivity instead of the global one, and what it really costs.

When a query's global sensitivity is infinite (an unbounded record, such as a height), a
calibration may use a *typical* sensitivity instead: the expected ``|h - h'|`` for two
records drawn from a population (neighbours replace the record), or a sampled high
quantile of it (the sensitivity sampler of Rubinstein and Aldà 2017). This module computes
those numbers exactly and states what they guarantee. Seed 004's own numbers (its heights,
its closed form, its three typical sensitivities) are in :mod:`exactdp.registry.seed004`.

**The population.** :class:`GaussianMixture` with exact weights, means and standard
deviations; its mean and variance are exact Fractions:

>>> mixture = GaussianMixture.of([("1/2", -1, 1), ("1/2", 1, 1)])
>>> mixture.mean, mixture.variance
(Fraction(0, 1), Fraction(2, 1))

**E[Delta f] = E|h - h'|** for ``h, h'`` iid from the mixture (:func:`expected_sensitivity`),
as an exact SymPy real, derived (:func:`expected_abs_normal` is itself derived by SymPy
integration); :func:`exceedance_probability` is ``P(|h - h'| > t)``:

>>> expected_sensitivity(GaussianMixture.of([(1, 0, 1)]))
2/sqrt(pi)

**The true epsilon.** When one record ranges over a bounded ``domain``, Laplace noise of
scale ``b = Delta_typ/epsilon`` is ``(domain width) epsilon/Delta_typ``-DP and no better (the
pair of databases at the domain's ends, any output at or above the upper end):

>>> r = true_epsilon(2, 1, (0, 10))
>>> r.verdict, r.exact
('violated', 5)

**The sensitivity sampler** gives random differential privacy, not differential privacy:
see :func:`sensitivity_sampler_guarantee`. Its configuration for a target ``gamma`` is the
library's (:func:`sensitivity_sampler_plan`, ``library="shfl"`` for Sherpa.ai's,
``"diffpriv"`` for the R package), with the Lambert W branch each library takes enclosed
in Arb balls:

>>> shfl, diffpriv = (sensitivity_sampler_plan("0.05", library=n) for n in ("shfl", "diffpriv"))
>>> (shfl.m, shfl.k), (diffpriv.m, diffpriv.k)
((1325, 1325), (1305, 1305))

**What a sampler printed** is judged by the distribution of its output: the ``k``-th
smallest of ``m`` sampled ``|h - h'|``, enclosed exactly (:func:`sampler_output`), and the
mean of the ``m`` samples, enclosed by the Berry-Esseen theorem (:func:`sampler_mean`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms._params import positive, shown
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.intervals import arb_precision
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = [
    "MAX_COMPONENTS",
    "MAX_SAMPLE_SIZE",
    "GaussianMixture",
    "BERRY_ESSEEN_C",
    "SAMPLER_LIBRARIES",
    "PrintedValue",
    "RandomDPGuarantee",
    "SampleMean",
    "SamplerOutput",
    "TrueEpsilon",
    "exceedance_probability",
    "expected_abs_normal",
    "expected_sensitivity",
    "sampler_mean",
    "sampler_output",
    "sensitivity_sampler_guarantee",
    "sensitivity_sampler_plan",
    "true_epsilon",
]

MAX_COMPONENTS = 1_000
"""Most mixture components: E|h - h'| has one term per ordered pair of components."""

MAX_SAMPLE_SIZE = 10**12
"""Largest sensitivity-sampler sample size ``m`` accepted (no computation grows with ``m``;
the bound keeps the exact expressions of reasonable size)."""


# --- the population -----------------------------------------------------------------


@dataclass(frozen=True)
class GaussianMixture:
    """``sum_i w_i N(mu_i, sigma_i^2)`` with exact parameters (``Fraction``).

    Build it with :meth:`of`, which converts through
    :func:`~exactdp.numeric.exact.to_exact` (floats refused) and checks that the weights
    are positive and sum to 1 and that every ``sigma_i > 0``.
    """

    weights: tuple[Fraction, ...]
    means: tuple[Fraction, ...]
    sigmas: tuple[Fraction, ...]

    @classmethod
    def of(cls, components) -> GaussianMixture:
        """From ``[(weight, mean, sigma), ...]``.

        >>> GaussianMixture.of([("1/2", 178, 7), ("1/2", 162, "6.5")]).sigmas
        (Fraction(7, 1), Fraction(13, 2))
        """
        if isinstance(components, (str, bytes)) or not hasattr(components, "__iter__"):
            raise InvalidArgument(
                f"components={components!r} is not a list of (weight, mean, sigma); pass e.g. "
                f"[('1/2', 178, 7), ('1/2', 162, '6.5')]")
        if hasattr(components, "__len__"):
            refuse_above(len(components), MAX_COMPONENTS, what="mixture components", option=None,
                         hint="use fewer components")
        items = list(components)
        if not items:
            raise InvalidArgument("components=[] is empty; pass at least one (weight, mean, sigma)")
        weights, means, sigmas = [], [], []
        for i, item in enumerate(items):
            if not isinstance(item, (tuple, list)) or len(item) != 3:
                raise InvalidArgument(
                    f"components[{i}]={item!r} is not a (weight, mean, sigma) triple")
            weights.append(positive(item[0], f"weight[{i}]"))
            means.append(to_exact(item[1], f"mean[{i}]"))
            sigmas.append(positive(item[2], f"sigma[{i}]"))
        total = sum(weights, Fraction(0))
        if total != 1:
            raise InvalidArgument(
                f"the weights sum to {format_exact(total)}, not 1; pass weights that sum to 1 "
                f"exactly (e.g. '1/3' rather than '0.333')")
        return cls(tuple(weights), tuple(means), tuple(sigmas))

    @property
    def mean(self) -> Fraction:
        """``sum_i w_i mu_i``, exactly."""
        return sum((w * m for w, m in zip(self.weights, self.means)), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """``sum_i w_i (sigma_i^2 + mu_i^2) - mean^2``, exactly (law of total variance).

        For two equal weights this is
        ``1/2 (sigma_M^2 + sigma_F^2) + 1/4 (mu_M - mu_F)^2``.
        """
        second = sum((w * (s * s + m * m) for w, m, s in zip(self.weights, self.means, self.sigmas)),
                     Fraction(0))
        return second - self.mean ** 2

    @property
    def sigma(self) -> sympy.Expr:
        """The standard deviation ``sqrt(variance)``, exact (a SymPy real)."""
        return sympy.sqrt(to_sympy(self.variance))

    def density(self, h) -> sympy.Expr:
        """The density ``p(h) = sum_i w_i exp(-(h - mu_i)^2 / (2 sigma_i^2)) /
        (sigma_i sqrt(2 pi))`` at an exact ``h``, as an exact SymPy real.

        >>> GaussianMixture.of([(1, 0, 1)]).density(0)
        sqrt(2)/(2*sqrt(pi))
        """
        x = _exact_real(h, "h")
        return sympy.Add(*(to_sympy(w) * sympy.exp(-(x - to_sympy(m)) ** 2 / (2 * to_sympy(s) ** 2))
                           / (to_sympy(s) * sympy.sqrt(2 * sympy.pi))
                           for w, m, s in zip(self.weights, self.means, self.sigmas)))

    def slope(self, h) -> sympy.Expr:
        """The density's derivative ``p'(h) = -sum_i w_i (h - mu_i)/sigma_i^2 N(h | mu_i,
        sigma_i^2)`` at an exact ``h``, exact: its sign, decided by
        :func:`~exactdp.numeric.decide.compare`, says where the density rises or falls."""
        x = _exact_real(h, "h")
        return sympy.Add(*(-(x - to_sympy(m)) / to_sympy(s) ** 2 * to_sympy(w) * part.density(x)
                           for w, m, s, part in zip(self.weights, self.means, self.sigmas,
                                                    self.components())))

    def mass(self, a, b) -> sympy.Expr:
        """``P(a <= h <= b)``: ``sum_i w_i/2 (erf((b - mu_i)/(sigma_i sqrt 2)) -
        erf((a - mu_i)/(sigma_i sqrt 2)))``, exact; ``a``, ``b`` exact reals (SymPy
        allowed, e.g. ``mean - sigma``).

        >>> GaussianMixture.of([(1, 0, 1)]).mass(-1, 1)
        erf(sqrt(2)/2)
        """
        lo, hi = _exact_real(a, "a"), _exact_real(b, "b")
        return sympy.Add(*(to_sympy(w) / 2 * (sympy.erf((hi - to_sympy(m)) / (to_sympy(s) * sympy.sqrt(2)))
                                             - sympy.erf((lo - to_sympy(m)) / (to_sympy(s) * sympy.sqrt(2))))
                           for w, m, s in zip(self.weights, self.means, self.sigmas)))

    def components(self) -> list[GaussianMixture]:
        """Each component alone, with weight 1 (the male and female normals of seed 004)."""
        return [GaussianMixture((Fraction(1),), (m,), (s,)) for m, s in zip(self.means, self.sigmas)]

    def __str__(self) -> str:
        return " + ".join(f"{format_exact(w)} N({format_exact(m)}, "
                          f"{format_exact(s) if s.denominator == 1 else '(' + format_exact(s) + ')'}^2)"
                          for w, m, s in zip(self.weights, self.means, self.sigmas))


def _exact_real(value, name: str) -> sympy.Expr:
    """An exact real as SymPy: a SymPy number without free symbols or floats as it is,
    anything else through :func:`~exactdp.numeric.exact.to_exact` (floats refused)."""
    if isinstance(value, sympy.Basic):
        if value.free_symbols or value.has(sympy.Float) or not value.is_real:
            raise InvalidArgument(f"{name}={value} is not an exact real; give an exact number "
                                  f"such as 170 or '162.5'")
        return value
    return to_sympy(to_exact(value, name))


# --- E|h - h'| --------------------------------------------------------------------------


_MU = sympy.Symbol("mu", real=True)
_S = sympy.Symbol("s", positive=True)


@functools.lru_cache(maxsize=1)
def expected_abs_normal() -> tuple[sympy.Symbol, sympy.Symbol, sympy.Expr]:
    """``(mu, s, E|X|)`` for ``X ~ N(mu, s^2)``, derived by SymPy integration.

    ``E|X| = int_0^oo x p(x) dx - int_-oo^0 x p(x) dx`` with the normal density ``p``;
    SymPy integrates both halves, and the result, with ``erfc`` written as ``1 - erf``, is
    ``s sqrt(2/pi) e^{-mu^2/(2 s^2)} + mu erf(mu/(s sqrt 2))`` (asserted here, so a SymPy
    that derived something else would raise instead of answering).

    >>> mu, s, e = expected_abs_normal()
    >>> e.subs(mu, 0)
    sqrt(2)*s/sqrt(pi)
    """
    x = sympy.Symbol("x", real=True)
    density = sympy.exp(-(x - _MU) ** 2 / (2 * _S**2)) / (_S * sympy.sqrt(2 * sympy.pi))
    derived = (sympy.integrate(x * density, (x, 0, sympy.oo))
               - sympy.integrate(x * density, (x, -sympy.oo, 0)))
    derived = sympy.simplify(derived.rewrite(sympy.erf))
    known = (_S * sympy.sqrt(2 / sympy.pi) * sympy.exp(-_MU**2 / (2 * _S**2))
             + _MU * sympy.erf(_MU / (_S * sympy.sqrt(2))))
    if sympy.simplify(derived - known) != 0:  # pragma: no cover - a SymPy regression
        raise AssertionError(f"SymPy derived E|N(mu, s^2)| = {derived}, expected {known}")
    return _MU, _S, known


def _abs_normal_at(mu, variance) -> sympy.Expr:
    """``E|N(mu, variance)|`` at exact (or symbolic) parameters."""
    m, s, e = expected_abs_normal()
    return e.subs({m: mu, s: sympy.sqrt(variance)}, simultaneous=True)


def _pairs(mixture: GaussianMixture):
    """``(w_i w_j, mu_i - mu_j, sigma_i^2 + sigma_j^2)`` over ordered pairs of components:
    ``h - h'`` given the components ``i, j`` is ``N(mu_i - mu_j, sigma_i^2 + sigma_j^2)``."""
    k = len(mixture.weights)
    refuse_above(k * k, MAX_COMPONENTS**2, what="pairs of mixture components", option=None,
                 hint="use fewer components")
    for i in range(k):
        for j in range(k):
            yield (to_sympy(mixture.weights[i] * mixture.weights[j]),
                   to_sympy(mixture.means[i] - mixture.means[j]),
                   to_sympy(mixture.sigmas[i] ** 2 + mixture.sigmas[j] ** 2))


def _mixture(value: Any) -> GaussianMixture:
    if not isinstance(value, GaussianMixture):
        raise InvalidArgument(
            f"mixture={value!r} is not a GaussianMixture; build one with "
            f"GaussianMixture.of([(weight, mean, sigma), ...])")
    return value


def expected_sensitivity(mixture: GaussianMixture) -> sympy.Expr:
    """``E[Delta f] = E|h - h'|`` for ``h, h'`` iid from ``mixture``, exact:
    ``sum_{i,j} w_i w_j E|N(mu_i - mu_j, sigma_i^2 + sigma_j^2)|``.

    Proof: ``proofs/s004-expected-sensitivity.md``.

    >>> expected_sensitivity(GaussianMixture.of([(1, 0, 1)]))
    2/sqrt(pi)
    """
    mixture = _mixture(mixture)
    total = sympy.Integer(0)
    for w, d, v in _pairs(mixture):
        total += w * _abs_normal_at(d, v)
    return total


def exceedance_probability(threshold, mixture: GaussianMixture) -> sympy.Expr:
    """``P(|h - h'| > t)`` for ``h, h'`` iid from ``mixture``, exact (``erfc`` terms).

    This is the probability, over a random pair of neighbouring databases, that their pair
    is *not* covered by a sensitivity ``t``: what random DP's ``gamma`` is about (for seed
    004's sampled 47.38 about ``2.6 * 10^-4``: tiny, but those are exactly the tallest and
    shortest people).

    >>> exceedance_probability(2, GaussianMixture.of([(1, 0, 1)]))
    erfc(1)
    """
    t = to_exact(threshold, "threshold")
    if t < 0:
        raise InvalidArgument(f"threshold={shown(threshold)} is negative; pass a sensitivity >= 0")
    mixture = _mixture(mixture)
    t = to_sympy(t)
    total = sympy.Integer(0)
    for w, d, v in _pairs(mixture):
        scale = sympy.sqrt(2 * v)
        total += w * (sympy.erfc((t - d) / scale) + sympy.erfc((t + d) / scale)) / 2
    return total


# --- the true epsilon on a bounded domain -------------------------------------------------


def _exact_or_sympy(value: Any, name: str) -> sympy.Expr:
    """A positive exact number (anything ``to_exact`` takes) or a positive SymPy real."""
    if isinstance(value, sympy.Basic):
        expr = sympy.sympify(value)
        if expr.free_symbols:
            raise InvalidArgument(f"{name}={value} has free symbols; pass a number")
        if expr.has(sympy.Float):
            raise InvalidArgument(f"{name}={value} contains a float; use exact numbers")
        if compare(expr, 0) <= 0:
            raise InvalidArgument(f"{name}={value} is not positive; pass a number > 0")
        return expr
    return to_sympy(positive(value, name))


@dataclass(frozen=True)
class TrueEpsilon:
    """The epsilon Laplace noise of scale ``b = typical/epsilon`` really spends on the
    bounded domain ``[lower, upper]``: ``(upper - lower)/b = factor * epsilon``.

    ``exact`` (the true epsilon) and ``factor`` are exact SymPy reals; ``verdict`` is
    ``"violated"`` when the true epsilon exceeds the claimed one, ``"holds-tight"`` when
    they are equal, ``"holds"`` when the typical sensitivity covers the whole domain and
    more. ``witness``: the pair of databases and an output where the loss is reached.

    ``evidence`` is ``"bit-exact"``: the true epsilon is a closed form proved for every
    record in the whole domain (``proofs/s004-true-epsilon.md``) and compared in exact
    arithmetic, for the ideal (continuous) Laplace mechanism the statement names.
    """

    claimed: sympy.Expr
    typical_sensitivity: sympy.Expr
    global_sensitivity: Fraction
    scale: sympy.Expr
    exact: sympy.Expr
    factor: sympy.Expr
    verdict: str
    witness: dict
    evidence: str = "bit-exact"

    def statement(self) -> str:
        lo, hi = decimal_at_most(self.exact, 8), decimal_at_least(self.exact, 8)
        typ_lo, typ_hi = decimal_at_most(self.typical_sensitivity, 8), decimal_at_least(self.typical_sensitivity, 8)
        return (f"Laplace noise of scale b = typical sensitivity / epsilon (typical sensitivity "
                f"in [{typ_lo}, {typ_hi}], epsilon = {self.claimed}) on one record in "
                f"[{format_exact(self.witness['x'][0])}, {format_exact(self.witness['x_prime'][0])}] "
                f"is exactly epsilon_true = {self.global_sensitivity}/b-DP, in [{lo}, {hi}]: "
                f"{self.verdict} (witness x={format_exact(self.witness['x'][0])}, "
                f"x'={format_exact(self.witness['x_prime'][0])}, any output >= "
                f"{format_exact(self.witness['output'])})")

    __str__ = statement

    def to_dict(self) -> dict:
        return {
            "claim": f"epsilon = {self.claimed}",
            "epsilon": str(self.exact),
            "epsilon_enclosure": [str(decimal_at_most(self.exact, 20)), str(decimal_at_least(self.exact, 20))],
            "factor": str(self.factor),
            "verdict": self.verdict,
            "evidence": self.evidence,
            "witness": {k: (format_exact(v[0]) if isinstance(v, tuple) else format_exact(v))
                        for k, v in self.witness.items()},
        }

    def _repr_latex_(self) -> str:
        return (rf"$\varepsilon_{{\mathrm{{true}}}} = {sympy.latex(self.exact)}"
                rf"\ ({self.verdict}\ \text{{against}}\ \varepsilon = {sympy.latex(self.claimed)})$")


def true_epsilon(typical_sensitivity, epsilon, domain) -> TrueEpsilon:
    """The true epsilon of Laplace noise calibrated as ``b = typical_sensitivity/epsilon``
    when one record ranges over ``domain`` (a pair ``(lower, upper)``) and neighbours
    replace it: ``(upper - lower) epsilon / typical_sensitivity``, exact.

    ``typical_sensitivity`` may be a SymPy real (:func:`expected_sensitivity`) or an exact
    number (``"47.38"``); floats are refused. Proof: ``proofs/s004-true-epsilon.md``.

    >>> true_epsilon("47.38", "1/10", (0, 300)).exact
    1500/2369
    """
    typ = _exact_or_sympy(typical_sensitivity, "typical_sensitivity")
    eps = _exact_or_sympy(epsilon, "epsilon")
    if not isinstance(domain, (tuple, list)) or len(domain) != 2:
        raise InvalidArgument(f"domain={domain!r} is not a pair (lower, upper); pass e.g. (0, 300)")
    lower, upper = to_exact(domain[0], "domain lower"), to_exact(domain[1], "domain upper")
    if upper <= lower:
        raise InvalidArgument(
            f"Cannot have domain upper={format_exact(upper)} <= lower={format_exact(lower)}")
    width = upper - lower
    scale = typ / eps
    exact = to_sympy(width) * eps / typ
    factor = to_sympy(width) / typ
    sign = compare(exact, eps)
    verdict = "violated" if sign > 0 else "holds-tight" if sign == 0 else "holds"
    witness = {"x": (lower,), "x_prime": (upper,), "output": upper}
    return TrueEpsilon(eps, typ, width, scale, exact, factor, verdict, witness)


# --- the sensitivity sampler: random DP --------------------------------------------------


def _whole(value: Any, name: str, least: int, most: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; pass a whole number >= {least}")
    if value < least:
        raise InvalidArgument(f"{name}={value!r} is below {least}; pass a whole number >= {least}")
    if most is not None:
        refuse_above(value, most, what=f"{name} (a sample size)", option=None,
                     hint=f"pass {name} <= {most:,}")
    return value


def _optimal_rho(m: int) -> Fraction:
    """A rational close to the ``rho`` that minimises ``rho + sqrt(ln(1/rho)/(2m))``:
    ``exp(W_{-1}(-1/(4m))/2)`` (Rubinstein and Aldà; diffpriv's ``.sensitivity_sampler_config``).
    Any ``rho`` in ``(0, 1)`` gives a valid guarantee; this one only makes it tight, so a
    float approximation rounded to a rational is harmless."""

    with mpmath.workdps(30):
        rho = mpmath.exp(mpmath.lambertw(-mpmath.mpf(1) / (4 * m), -1).real / 2)
        return Fraction(str(mpmath.nstr(rho, 12)))


@dataclass(frozen=True)
class RandomDPGuarantee:
    """What the sensitivity sampler (Rubinstein and Aldà 2017) guarantees: ``(epsilon,
    gamma)``-random differential privacy.

    With ``Delta_hat`` the ``k``-th smallest of ``m`` sampled sensitivities
    ``|f(D) - f(D')|`` (``D, D'`` neighbours drawn from the data distribution) and noise
    calibrated to ``Delta_hat`` for ``epsilon``: with probability at least ``1 - gamma``
    over the draw of the samples *and of the databases*, epsilon-DP holds for the pair
    drawn. It is **not** epsilon-DP: for the pairs not covered (probability up to
    ``gamma``) nothing is promised, and on a bounded domain the worst pair's loss is
    ``(domain width / Delta_hat) epsilon`` (:func:`true_epsilon`).

    ``gamma = rho + sqrt(ln(1/rho)/(2m)) + (1 - k/m)`` exactly (``rho``: the probability
    that the DKW bound fails; a rational, or for a library's configuration the exact
    Lambert W expression that library evaluates, with ``rho_enclosure`` a certified
    rational enclosure of it); ``gamma_upper`` a rational ``>= gamma``. ``library`` names
    the configuration (:data:`SAMPLER_LIBRARIES`), ``None`` for ``m``, ``k`` given by hand.
    """

    m: int
    k: int
    rho: Fraction | sympy.Expr
    gamma: sympy.Expr
    gamma_upper: Fraction
    epsilon: sympy.Expr | None = None
    library: str | None = None
    rho_enclosure: tuple[Fraction, Fraction] | None = None

    @property
    def is_differential_privacy(self) -> bool:
        """Always ``False``: random DP with ``gamma > 0`` never implies epsilon-DP."""
        return False

    @property
    def vacuous(self) -> bool:
        """Whether ``gamma >= 1`` (the guarantee says nothing)."""
        if self.gamma_upper < 1:
            return False
        return compare(self.gamma, 1) >= 0

    def _rho_text(self) -> str:
        if self.rho_enclosure is None:
            return format_exact(self.rho)
        lo, hi = self.rho_enclosure
        return f"{self.rho} in [{decimal_at_most(lo, 12)}, {decimal_at_least(hi, 12)}]"

    def statement(self) -> str:
        eps = "epsilon" if self.epsilon is None else f"epsilon = {self.epsilon}"
        if self.vacuous:
            return (f"sensitivity sampler with m = {self.m}, k = {self.k}: gamma = {self.gamma} "
                    f">= 1, so nothing is guaranteed")
        config = "" if self.library is None else f"{self.library}'s configuration, "
        return (
            f"({eps}, gamma)-random differential privacy with gamma "
            f"<= {decimal_at_least(self.gamma_upper, 6)} ({config}m = {self.m} samples, order "
            f"statistic k = {self.k}, rho = {self._rho_text()}): with probability at least "
            f"{decimal_at_most(1 - self.gamma_upper, 6)} over the sampled sensitivities and the "
            f"draw of the neighbouring databases, {eps}-DP holds for the pair drawn. This is "
            f"NOT {eps}-DP: nothing is promised for the remaining pairs (the tallest and "
            f"shortest people), whose loss is domain width / sampled sensitivity times epsilon")

    __str__ = statement

    def to_dict(self) -> dict:
        out = {"m": self.m, "k": self.k,
               "rho": format_exact(self.rho) if self.rho_enclosure is None else str(self.rho),
               "gamma": str(self.gamma), "gamma_upper": format_exact(self.gamma_upper),
               "epsilon": None if self.epsilon is None else str(self.epsilon),
               "guarantee": "random-dp", "differential_privacy": False}
        if self.library is not None:
            out["library"] = self.library
        if self.rho_enclosure is not None:
            out["rho_enclosure"] = [format_exact(x) for x in self.rho_enclosure]
        return out

    def _repr_latex_(self) -> str:
        return rf"$(\varepsilon, \gamma)\text{{-RDP}},\ \gamma = {sympy.latex(self.gamma)}$"


def _gamma_upper(gamma: sympy.Expr) -> Fraction:
    return Fraction(decimal_at_least(gamma, 30))


def sensitivity_sampler_guarantee(m: int, k: int, rho=None, *, epsilon=None) -> RandomDPGuarantee:
    """The guarantee of the sensitivity sampler with sample size ``m`` and order statistic
    ``k`` (1-based, ``k = m`` is the largest sample): ``(epsilon, gamma)``-random DP with

        gamma = rho + sqrt(ln(1/rho) / (2 m)) + (1 - k/m)

    for the chosen DKW confidence ``rho`` in ``(0, 1)`` (default: a rational next to the
    optimal ``exp(W_{-1}(-1/(4m))/2)``). Rubinstein and Aldà, "Pain-free random
    differential privacy with sensitivity sampling", ICML 2017 (arXiv:1706.02562); the same
    relation is in their R package ``diffpriv`` (``R/sensitivity_sampler.R``,
    ``.sensitivity_sampler_config``) and in Sherpa.ai's ``shfl``
    (``SensitivitySampler._sensitivity_sampler_config``). Proof sketch:
    ``proofs/s004-sensitivity-sampler.md``.

    >>> g = sensitivity_sampler_guarantee(1305, 1305, rho="0.00418286993")
    >>> g.gamma_upper < Fraction(1, 20), g.is_differential_privacy
    (True, False)
    """
    m = _whole(m, "m", 1, MAX_SAMPLE_SIZE)
    k = _whole(k, "k", 1)
    if k > m:
        raise InvalidArgument(f"k={k} is above m={m}; the order statistic is one of the m samples")
    r = _optimal_rho(m) if rho is None else to_exact(rho, "rho")
    if not 0 < r < 1:
        raise InvalidArgument(f"rho={shown(rho)} is not strictly between 0 and 1")
    eps = None if epsilon is None else _exact_or_sympy(epsilon, "epsilon")
    gamma = (to_sympy(r) + sympy.sqrt(sympy.log(1 / to_sympy(r)) / (2 * m))
             + (1 - sympy.Rational(k, m)))
    return RandomDPGuarantee(m, k, r, gamma, _gamma_upper(gamma), eps)


SAMPLER_LIBRARIES = {
    "diffpriv": (-1, "diffpriv (R), .sensitivity_sampler_config in R/sensitivity_sampler.R: "
                     "rho = exp(gsl::lambert_Wm1(-gamma/(2 exp(0.5))) + 0.5), the real branch -1"),
    "shfl": (1, "Sherpa.ai shfl, SensitivitySampler._sensitivity_sampler_config in "
                "shfl/differential_privacy/sensitivity_sampler.py: rho = "
                "exp(np.real(scipy.special.lambertw(-gamma/(2 np.exp(0.5)), 1)) + 0.5), the real "
                "part of the complex branch 1"),
}
"""``library: (Lambert W branch, where and how it is computed)`` for the sensitivity
sampler configurations exactdp models (:func:`sensitivity_sampler_plan`). Both then take
``m = ceil(ln(1/rho)/(2(gamma - rho)^2))`` and ``k = ceil(m(1 - gamma + gamma_lo))``."""

_ARB_PRECISIONS = (128, 256, 512, 1024, 2048)


def _arb_of(flint, x: Fraction):
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _exact_of(point) -> Fraction:
    man, exp = point.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _bounds(ball) -> tuple[Fraction, Fraction]:
    """A rational enclosure ``(lo, hi)`` of an Arb ball; ``ValueError`` if it is not finite."""
    if not ball.is_finite():
        raise ValueError("not finite")
    return _exact_of(ball.lower()), _exact_of(ball.upper())


def _ceiling(ball) -> int | None:
    """``ceil`` of the real in ``ball`` when the ball decides it, else ``None``."""
    lo, hi = _bounds(ball)
    return math.ceil(lo) if math.ceil(lo) == math.ceil(hi) else None


def _library(library: Any) -> int:
    if not isinstance(library, str) or library not in SAMPLER_LIBRARIES:
        known = ", ".join(repr(n) for n in SAMPLER_LIBRARIES)
        raise InvalidArgument(
            f"library={library!r} is not a sensitivity sampler configuration exactdp knows; "
            f"pass one of {known}")
    return SAMPLER_LIBRARIES[library][0]


def _library_rho_expr(g: Fraction, branch: int) -> sympy.Expr:
    """The library's ``rho`` as an exact SymPy expression."""
    z = -to_sympy(g) / (2 * sympy.sqrt(sympy.E))
    w = sympy.LambertW(z, branch)
    return sympy.exp((w if branch == -1 else sympy.re(w)) + sympy.Rational(1, 2))


def _library_config(g: Fraction, branch: int):
    """``(m, k, rho ball, gamma ball)`` of a library's configuration, every ceiling decided
    on Arb balls; the precision doubles until it is (:class:`~exactdp.errors.Undecided`
    beyond 2048 bits)."""
    for prec in _ARB_PRECISIONS:
        with arb_precision(prec) as flint:
            ga = _arb_of(flint, g)
            z = flint.acb(-ga / (2 * flint.arb(1).exp().sqrt()))
            w = z.lambertw(branch=branch).real
            rho = (w + _arb_of(flint, Fraction(1, 2))).exp()
            if not rho > 0 or not rho < ga:  # pragma: no cover - W gives 0 < rho < gamma
                continue
            log_inv = -rho.log()
            m = _ceiling(log_inv / (2 * (ga - rho) ** 2))
            if m is None:
                continue
            refuse_above(m, MAX_SAMPLE_SIZE, what="samples for this gamma", option=None,
                         hint="pass a larger gamma")
            gamma_lo = rho + (log_inv / (2 * m)).sqrt()
            k = _ceiling(m * (1 - ga + gamma_lo))
            if k is None:
                continue
            k = min(m, k)
            reached = gamma_lo + 1 - flint.arb(k) / m
            return m, k, _bounds(rho), _bounds(reached)
    raise Undecided(f"gamma={format_exact(g)}: the sampler's ceilings lie on whole numbers "
                    f"at every precision up to {_ARB_PRECISIONS[-1]} bits")


def sensitivity_sampler_plan(gamma, *, library: str = "diffpriv", epsilon=None) -> RandomDPGuarantee:
    """The sample size ``m`` and order statistic ``k`` that ``library``'s sensitivity
    sampler chooses for a target ``gamma``, with the guarantee it really reaches (checked
    ``<= gamma``).

    Both known libraries (:data:`SAMPLER_LIBRARIES`) take ``rho = exp(W(-gamma/(2 sqrt e))
    + 1/2)``, ``m = ceil(ln(1/rho) / (2 (gamma - rho)^2))``, ``k = ceil(m (1 - gamma +
    gamma_lo))`` with ``gamma_lo = rho + sqrt(ln(1/rho)/(2m))``; they differ in the branch
    ``W``: diffpriv (R, the paper's authors) the real branch ``W_{-1}``, Sherpa.ai's shfl
    (the seed's run) the real part of the complex branch ``W_1``. exactdp encloses that
    branch in an Arb ball (python-flint) and decides each ceiling on it; no float is used.
    The guarantee's ``rho`` is the exact Lambert W expression (any ``rho`` in ``(0, 1)``
    is valid; this one is the library's).

    >>> p = sensitivity_sampler_plan("0.05", library="shfl")
    >>> p.m, p.k, p.gamma_upper < Fraction(1, 20)
    (1325, 1325, True)
    """
    branch = _library(library)
    g = to_exact(gamma, "gamma")
    if not 0 < g < 1:
        raise InvalidArgument(f"gamma={shown(gamma)} is not strictly between 0 and 1")
    m, k, rho_box, gamma_box = _library_config(g, branch)
    if gamma_box[1] > g:  # pragma: no cover - guarded by the ceilings
        raise AssertionError(f"plan m={m}, k={k} reaches gamma up to {gamma_box[1]} > {g}")
    rho = _library_rho_expr(g, branch)
    exact_gamma = rho + sympy.sqrt(sympy.log(1 / rho) / (2 * m)) + (1 - sympy.Rational(k, m))
    eps = None if epsilon is None else _exact_or_sympy(epsilon, "epsilon")
    return RandomDPGuarantee(m, k, rho, exact_gamma, _round_up(gamma_box[1]), eps, library, rho_box)


def _round_up(x: Fraction) -> Fraction:
    return Fraction(decimal_at_least(x, 30))


# --- what the sampler printed: the distribution of its output -----------------------------

BERRY_ESSEEN_C = Fraction("0.4748")
"""The Berry-Esseen constant for iid summands (Shevtsova 2011: ``C <= 0.4748``)."""


def _pair_terms(mixture: GaussianMixture) -> list[tuple[Fraction, Fraction, Fraction]]:
    """``(w_i w_j, mu_i - mu_j, sigma_i^2 + sigma_j^2)``: ``h - h'`` is this mixture."""
    k = len(mixture.weights)
    refuse_above(k * k, MAX_COMPONENTS**2, what="pairs of mixture components", option=None,
                 hint="use fewer components")
    return [(mixture.weights[i] * mixture.weights[j], mixture.means[i] - mixture.means[j],
             mixture.sigmas[i] ** 2 + mixture.sigmas[j] ** 2) for i in range(k) for j in range(k)]


def _arb_cdf_abs(flint, terms, t: Fraction):
    """``P(|h - h'| <= t)`` as an Arb ball."""
    total = flint.arb(0)
    ta = _arb_of(flint, t)
    for w, d, v in terms:
        scale = (2 * _arb_of(flint, v)).sqrt()
        da = _arb_of(flint, d)
        total += _arb_of(flint, w) * (((ta - da) / scale).erf() + ((ta + da) / scale).erf()) / 2
    return total


def _binomial_tail(flint, m: int, k: int, p):
    """``P(Binomial(m, p) >= k)`` for an exact Arb point ``p``."""
    q = 1 - p
    total = flint.arb(0)
    for j in range(k, m + 1):
        total += flint.arb(math.comb(m, j)) * p**j * q ** (m - j)
    return total


def _probability(value: Any, name: str) -> Fraction:
    p = to_exact(value, name)
    if not 0 < p < 1:
        raise InvalidArgument(f"{name}={shown(value)} is not strictly between 0 and 1")
    return p


@dataclass(frozen=True)
class PrintedValue:
    """A printed output of a random run judged by the output's distribution.

    ``at_most``: an enclosure of ``P(X <= value)``; ``rounds_to``: of ``P(X`` printed as
    ``value)`` (``X`` in ``[value - h, value + h)``, ``h`` half a unit of the last printed
    digit), when the distribution is continuous and enclosed exactly, else ``None``.
    ``verdict``: ``"plausible"`` when ``P(X <= value)`` is certainly inside ``[level/2,
    1 - level/2]``, ``"implausible"`` when certainly outside, else ``"undecided"``.
    """

    value: Fraction
    at_most: tuple[Fraction, Fraction]
    rounds_to: tuple[Fraction, Fraction] | None
    level: Fraction
    verdict: str
    what: str

    def statement(self) -> str:
        lo, hi = self.at_most
        v = _decimal_text(self.value)
        text = f"{self.what}: P(X <= {v}) in [{decimal_at_most(lo, 4)}, {decimal_at_least(hi, 4)}]"
        if self.rounds_to is not None:
            a, b = self.rounds_to
            text += f", P(X printed as {v}) in [{decimal_at_most(a, 3)}, {decimal_at_least(b, 3)}]"
        return (f"{text}: {self.verdict} at level {_decimal_text(self.level)} (plausible: between "
                f"the {_decimal_text(self.level / 2)} and {_decimal_text(1 - self.level / 2)} "
                f"quantiles)")

    __str__ = statement

    def to_dict(self) -> dict:
        return {"value": _decimal_text(self.value), "verdict": self.verdict,
                "level": format_exact(self.level),
                "p_at_most": [format_exact(x) for x in self.at_most],
                "p_printed": None if self.rounds_to is None else [format_exact(x) for x in self.rounds_to]}


def _decimal_text(x: Fraction) -> str:
    """``x`` as a terminating decimal when it is one (``47.38``), else ``p/q``."""
    den = x.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den != 1:
        return format_exact(x)
    digits = 0
    while (x * 10**digits).denominator != 1:
        digits += 1
    scaled = abs(x.numerator * 10**digits // x.denominator)
    text = str(scaled).rjust(digits + 1, "0")
    text = f"{text[:-digits]}.{text[-digits:]}" if digits else text
    return ("-" if x < 0 else "") + text


def _judge(value: Fraction, box: tuple[Fraction, Fraction], level: Fraction) -> str:
    lo, hi = box
    if lo >= level / 2 and hi <= 1 - level / 2:
        return "plausible"
    if hi < level / 2 or lo > 1 - level / 2:
        return "implausible"
    return "undecided"


def _printed_half_unit(value: Any) -> Fraction:
    """Half a unit of the last digit ``value`` was printed with (``"47.38"``: 1/200)."""
    text = str(value).strip()
    digits = len(text.split(".", 1)[1]) if "." in text else 0
    return Fraction(1, 2 * 10**digits)


@dataclass(frozen=True)
class SamplerOutput:
    """The distribution of the sensitivity sampler's output: the ``k``-th smallest of
    ``m`` independent draws of ``G = |h - h'|`` (``h, h'`` independent from ``mixture``),
    ``P(G_(k) <= t) = P(Binomial(m, F(t)) >= k)`` with ``F`` the CDF of ``G``, exact in
    closed form (``erf`` terms) and enclosed in Arb balls (python-flint), both ends of
    ``F(t)``'s ball carried through the binomial tail, which increases with ``F``.

    Proof: ``proofs/s004-sampler-output.md``.
    """

    m: int
    k: int
    mixture: GaussianMixture

    def cdf(self, t, *, prec: int = 128) -> tuple[Fraction, Fraction]:
        """A rational enclosure of ``P(G_(k) <= t)``."""
        t = to_exact(t, "t")
        if t < 0:
            return Fraction(0), Fraction(0)
        terms = _pair_terms(self.mixture)
        with arb_precision(prec) as flint:
            f_lo, f_hi = _bounds(_arb_cdf_abs(flint, terms, t))
            f_lo, f_hi = max(f_lo, Fraction(0)), min(f_hi, Fraction(1))
            lo = _bounds(_binomial_tail(flint, self.m, self.k, _arb_of(flint, f_lo)))[0]
            hi = _bounds(_binomial_tail(flint, self.m, self.k, _arb_of(flint, f_hi)))[1]
        return max(lo, Fraction(0)), min(hi, Fraction(1))

    def judge(self, value, level="1/20") -> PrintedValue:
        """Judge a printed output (a string such as ``"47.38"``: its digits say how it
        was rounded)."""
        v = to_exact(value, "value")
        lv = _probability(level, "level")
        h = _printed_half_unit(value)
        box = self.cdf(v)
        below, above = self.cdf(v - h), self.cdf(v + h)
        rounds = (max(Fraction(0), above[0] - below[1]), above[1] - below[0])
        what = (f"the sampler's output X, the {self.k}-th smallest of m = {self.m} sampled "
                f"|h - h'|")
        return PrintedValue(v, box, rounds, lv, _judge(v, box, lv), what)


def sampler_output(m: int, k: int | None = None, *, mixture: GaussianMixture) -> SamplerOutput:
    """The distribution of the sampler's output for ``m`` samples of ``|h - h'|`` (``h, h'``
    from ``mixture``) and order statistic ``k`` (default ``m``, the largest: what both
    libraries take at ``gamma = 0.05``).

    >>> lo, hi = sampler_output(2, mixture=GaussianMixture.of([(1, 0, 1)])).cdf(2)
    >>> decimal_at_most(lo, 4), decimal_at_least(hi, 4)
    (Decimal('0.7101'), Decimal('0.7102'))
    """
    m = _whole(m, "m", 1, MAX_SAMPLE_SIZE)
    refuse_above(m, 10**6, what="samples in the output distribution", option=None,
                 hint="pass m <= 1,000,000")
    k = m if k is None else _whole(k, "k", 1)
    if k > m:
        raise InvalidArgument(f"k={k} is above m={m}; the order statistic is one of the m samples")
    refuse_above(m - k + 1, 10**5, what="terms of the binomial tail (m - k + 1)", option=None,
                 hint="pass k closer to m")
    return SamplerOutput(m, k, _mixture(mixture))


@dataclass(frozen=True)
class SampleMean:
    """The mean of ``m`` independent draws of ``G = |h - h'|`` (shfl's "mean sensitivity
    from sampling"). Its exact distribution has no closed form; ``cdf`` encloses it by
    the Berry-Esseen theorem, ``|P(mean <= t) - Phi(z)| <= C rho_3/(sigma^3 sqrt m)``,
    ``z = (t - E G) sqrt(m)/sigma``, with ``C`` = :data:`BERRY_ESSEEN_C` and ``rho_3 =
    E|G - E G|^3`` bounded above from exact moments (``E G^2 = E D^2``, ``E G^4 = E D^4``
    for ``D = h - h'``, ``E G^3 >= (E G^2)^{3/2}``, Lyapunov).

    Proof: ``proofs/s004-sampler-output.md``.
    """

    m: int
    mixture: GaussianMixture

    def _moments(self, flint):
        terms = _pair_terms(self.mixture)
        mean = flint.arb(0)
        for w, d, v in terms:
            s = _arb_of(flint, v).sqrt()
            da = _arb_of(flint, d)
            mean += _arb_of(flint, w) * (s * (2 / flint.arb.pi()).sqrt() * (-da * da / (2 * s * s)).exp()
                                         + da * (da / (s * flint.arb(2).sqrt())).erf())
        e2 = sum((w * (d * d + v) for w, d, v in terms), Fraction(0))
        e4 = sum((w * (d**4 + 6 * d * d * v + 3 * v * v) for w, d, v in terms), Fraction(0))
        e2a, e4a = _arb_of(flint, e2), _arb_of(flint, e4)
        variance = e2a - mean * mean
        fourth = e4a - 4 * mean * e2a * e2a.sqrt() + 6 * mean * mean * e2a - 3 * mean**4
        rho3 = fourth ** _arb_of(flint, Fraction(3, 4))
        return mean, variance, rho3

    def cdf(self, t, *, prec: int = 128) -> tuple[Fraction, Fraction]:
        """A rational enclosure of ``P(mean <= t)`` (Berry-Esseen)."""
        t = to_exact(t, "t")
        with arb_precision(prec) as flint:
            mean, variance, rho3 = self._moments(flint)
            sd = variance.sqrt()
            z = (_arb_of(flint, t) - mean) * flint.arb(self.m).sqrt() / sd
            phi = (-z / flint.arb(2).sqrt()).erfc() / 2
            bound = _arb_of(flint, BERRY_ESSEEN_C) * rho3 / (sd**3 * flint.arb(self.m).sqrt())
            lo = _bounds(phi - bound)[0]
            hi = _bounds(phi + bound)[1]
        return max(lo, Fraction(0)), min(hi, Fraction(1))

    def moments(self, *, prec: int = 128) -> dict[str, tuple[Fraction, Fraction]]:
        """Enclosures of ``E G``, ``Var G`` and the standard deviation of the mean."""
        with arb_precision(prec) as flint:
            mean, variance, _ = self._moments(flint)
            return {"mean": _bounds(mean), "variance": _bounds(variance),
                    "sd_of_mean": _bounds((variance / self.m).sqrt())}

    def judge(self, value, level="1/20") -> PrintedValue:
        v = to_exact(value, "value")
        lv = _probability(level, "level")
        box = self.cdf(v)
        what = f"the mean X of m = {self.m} sampled |h - h'| (Berry-Esseen enclosure)"
        return PrintedValue(v, box, None, lv, _judge(v, box, lv), what)


def sampler_mean(m: int, *, mixture: GaussianMixture) -> SampleMean:
    """The distribution of the mean of the sampler's ``m`` samples of ``|h - h'|`` (``h, h'``
    from ``mixture``), enclosed.

    >>> lo, hi = sampler_mean(10_000, mixture=GaussianMixture.of([(1, 0, 1)])).cdf(2)
    >>> decimal_at_most(lo, 2), decimal_at_least(hi, 2)
    (Decimal('0.95'), Decimal('1'))
    """
    m = _whole(m, "m", 1, MAX_SAMPLE_SIZE)
    return SampleMean(m, _mixture(mixture))
