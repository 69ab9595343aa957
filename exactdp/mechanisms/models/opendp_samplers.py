"""OpenDP's exact integer samplers (CKS20) as their Rust code is written: the output
distribution of each step, computed from the steps below it down to uniform random bytes.

``make_laplace`` / ``make_gaussian`` add ``sample_discrete_laplace(s)`` /
``sample_discrete_gaussian(s)`` to an integer (on floats: to the input rounded to the
``2**k`` lattice, ``s = scale * 2**-k`` exactly; :mod:`~exactdp.mechanisms.models.opendp`
models the rounding and the float release). This module follows those samplers step by step
and shows, by exact computation, that what the code draws *is* the ideal discrete Laplace /
Gaussian: no float, no truncation and no bias enters. A step that computed a different
probability (a biased division, a rounded exponential) would show up as a mismatch.

**Where the code was read.** The stored snapshot of ``opendp/opendp`` has no ``v0.16.0``
tag (its newest tag is ``v0.15.1``). Read at ``main`` ``bc6e18b86`` (2026-08-06):
``rust/src/traits/samplers/{mod,uniform/mod,bernoulli/mod,geometric/mod}.rs`` and
``rust/src/measurements/noise/{mod.rs,nature/mod.rs,nature/float/mod.rs,
nature/float/utilities/mod.rs,nature/integer/mod.rs}``; none of them changed between
``v0.15.1`` and that commit. ``rust/src/traits/samplers/cks20/mod.rs`` as 0.16.0 ships it is
the version of OpenDP's dashu upgrade (``32977f583``, "Remove custom fallback ..."), where
``sample_bernoulli_exp1`` divides with dashu's own ``RBig / &UBig``: the compiled 0.16.0
library links dashu-ratio 0.6.1 (dashu-int 0.6.2, dashu-float 0.6.2, dashu-base 0.6.1) and
does not contain the error text ``x must be in [0, 1]`` of the earlier workaround
(``div_rbig_by_ubig_exact``, OpenDP 0.14.2 .. main). dashu's rational arithmetic was read
at ``cmpute/dashu`` ``v0.6.0`` (``rational/src/div.rs``, ``rational/src/rbig.rs``).

**The steps, bottom up** (``x = n/d`` is always a dashu ``RBig``, kept reduced:
``RBig::from_parts`` divides out the gcd, so ``into_parts`` gives coprime ``n, d``):

1. *Bytes.* ``fill_bytes`` (OpenSSL's ``RAND_priv_bytes`` in the wheel) is taken as
   independent uniform bytes: the one assumption below every step.
2. ``sample_standard_bernoulli``: one byte, its lowest bit: ``P(true) = 128/256``
   (:func:`standard_bernoulli`).
3. ``sample_uniform_ubig_below(upper)``: ``L = ceil(bitlen(upper) / 8)`` bytes read big
   endian as ``s`` in ``[0, 2**(8L))``; ``max = 2**(8L) - 1``, ``threshold = max - max %
   upper``; ``s`` is redrawn until ``s < threshold``, then ``s % upper`` is returned. Since
   ``threshold`` is a multiple of ``upper``, every residue is hit by ``threshold / upper``
   accepted draws: exactly uniform (:class:`UniformBelow` counts the draws per residue;
   ``upper = 0`` would panic and never occurs).
4. ``sample_bernoulli_rational(n/d)``: ``s = sample_uniform_ubig_below(d)``, returns
   ``n > s``: ``P(true) = n/d`` (:func:`bernoulli_rational`).
5. ``sample_bernoulli_exp1(x)``, ``0 <= x <= 1``: for ``k = 1, 2, ...`` draw
   ``Bernoulli(x / k)``; at the first failure return ``k`` odd. ``x / k`` is dashu's
   ``RBig / UBig``: ``g = gcd(n, k)``, numerator ``n / g``, denominator ``d * (k / g)``,
   exact (the formula that was wrong before cmpute/dashu#57, ``(d / g) * k`` with a
   truncating ``d / g``, is the bias of OpenDP issue #2638). The loop stops at ``k`` with
   probability ``x**(k-1)/(k-1)! - x**k/k!``, so ``P(true) = sum_m (-x)**m / m! =
   exp(-x)`` (:func:`bernoulli_exp1_steps` computes each stop from the steps and compares
   it with that term; the mass still looping after ``K`` trials, ``x**K / K!``, encloses
   the rest).
6. ``sample_bernoulli_exp(x)``, ``x >= 0``: while ``x > 1`` (strictly), a
   ``sample_bernoulli_exp1(1)`` failure returns false and a success subtracts 1; then
   ``sample_bernoulli_exp1(x)``: ``exp(-1)**m * exp(-(x - m)) = exp(-x)`` with
   ``m = max(ceil(x) - 1, 0)`` (:func:`bernoulli_exp`).
7. ``sample_geometric_exp_slow(x)``: counts ``sample_bernoulli_exp(x)`` successes before the
   first failure: ``P(j) = exp(-x)**j (1 - exp(-x))``. Used at ``x = 1`` only.
8. ``sample_geometric_exp_fast(n/d)`` (0 for ``x = 0``): ``u = sample_uniform_ubig_below(d)``
   redrawn until ``sample_bernoulli_exp(u/d)`` succeeds, ``v = sample_geometric_exp_slow(1)``,
   returns ``(v d + u) // n`` (integer division of ``UBig``). Accepted ``u`` has weight
   ``exp(-u/d)``; ``w = v d + u`` then has ``P(w) ∝ exp(-w/d)`` (``exp(-(w mod d)/d) *
   exp(-(w div d))``), and ``P(w // n = j) ∝ exp(-j n/d)``: geometric, ratio ``exp(-x)``
   (:class:`GeometricFastLaw`: the finite geometric sums in closed form, or summed term by
   term for small ``n, d``).
9. ``sample_discrete_laplace(s)`` (0 for ``s = 0``): ``1/s`` as ``RBig::from_parts(d, n)``;
   loop: a fair bit for the sign and ``m = sample_geometric_exp_fast(1/s)``; ``-0`` (sign
   negative, ``m = 0``) is redrawn. ``P(z) = (1 - q) q**|z| / (1 + q)``, ``q = exp(-1/s)``
   (:class:`DiscreteLaplaceLaw`).
10. ``sample_discrete_gaussian(s)`` (0 for ``s = 0``): ``t = floor(s) + 1``,
    ``sigma2 = s**2``; loop: ``y = sample_discrete_laplace(t)``, ``bias = (|y| - sigma2 / t)**2
    / (2 sigma2)`` (dashu ``RBig / RBig``: ``a/b / (c/d) = (a/g1)(d/g2) / ((b/g2)(c/g1))``,
    exact), accept with ``sample_bernoulli_exp(bias)``. The log-weight of an accepted ``y``,
    ``-|y|/t - (|y| - s**2/t)**2 / (2 s**2)``, is ``-y**2/(2 s**2) - s**2/(2 t**2)``: its
    ``|y|``-coefficient cancels exactly, so the output is the discrete Gaussian
    (:class:`DiscreteGaussianLaw` computes that coefficient and the weights).

Every operation above is integer or rational arithmetic: no float is rounded anywhere in
these samplers. (``make_geometric`` with bounds draws through ``sample_bernoulli_float``,
whose probability is a float's exact binary value, except that a subnormal ``prob`` is drawn
at ``prob / 2``: :func:`bernoulli_float_probability`.)

>>> law = DiscreteLaplaceLaw(Fraction(3, 2))
>>> law.matches_ideal(2)
True
>>> verify_discrete_gaussian(Fraction(13, 10)).equal
True
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.models._exppoly import ExpPoly
from exactdp._budget import refuse_above

__all__ = [
    "BernoulliExpLaw",
    "DiscreteGaussianLaw",
    "DiscreteLaplaceLaw",
    "Exp1Steps",
    "GeometricFastLaw",
    "SamplerAgreement",
    "UniformBelow",
    "bernoulli_exp",
    "bernoulli_exp1_steps",
    "bernoulli_float_probability",
    "bernoulli_rational",
    "dashu_div_by_integer",
    "standard_bernoulli",
    "verify_discrete_gaussian",
    "verify_discrete_laplace",
]

Divide = Callable[[int, int, int], tuple[int, int]]
"""``(numerator, denominator, k) -> (numerator, denominator)``: how ``x / k`` is formed."""

EXP1_STEPS = 24
"""Trials of ``sample_bernoulli_exp1`` followed one by one (the rest, at most ``1/24!``, is
enclosed)."""

MAX_ENUMERATED = 2_000
"""Largest ``n`` and ``d`` :meth:`GeometricFastLaw.probability_enumerated` sums term by term."""


def _exact(value, name: str, *, allow_zero: bool = True) -> Fraction:
    if isinstance(value, (bool, float)):
        raise InexactInput(f"{name}={value!r}: expected an exact int or Fraction; pass a float at "
                           f"its binary value with Fraction({value!r})")
    if not isinstance(value, (int, Fraction)):
        raise InvalidArgument(f"{name}={value!r}: expected an int or a Fraction")
    x = Fraction(value)
    if x < 0 or (x == 0 and not allow_zero):
        raise InvalidArgument(f"{name}={value!r}: expected a number "
                              f"{'>= 0' if allow_zero else '> 0'}")
    return x


# -- bytes, uniform, Bernoulli(n/d) ----------------------------------------------------------------

def standard_bernoulli() -> Fraction:
    """``P(true)`` of ``sample_standard_bernoulli``: the bytes whose lowest bit is set.

    >>> standard_bernoulli()
    Fraction(1, 2)
    """
    return Fraction(sum(1 for b in range(256) if b & 1), 256)


@dataclass(frozen=True)
class UniformBelow:
    """``sample_uniform_ubig_below(upper)``, counted over its equally likely byte strings.

    >>> u = UniformBelow(3)
    >>> u.byte_len, u.threshold, u.accept, u.probability(2)
    (1, 255, Fraction(255, 256), Fraction(1, 3))
    """

    upper: int

    def __post_init__(self) -> None:
        if isinstance(self.upper, bool) or not isinstance(self.upper, int) or self.upper < 1:
            raise InvalidArgument(f"upper={self.upper!r}: expected an integer >= 1 (OpenDP "
                                  f"draws below a rational's denominator)")

    @property
    def byte_len(self) -> int:
        """``ceil(bitlen(upper) / 8)`` bytes per draw."""
        return -(-self.upper.bit_length() // 8)

    @property
    def draws(self) -> int:
        """``2**(8 byte_len)`` equally likely byte strings per draw."""
        return 1 << (8 * self.byte_len)

    @property
    def threshold(self) -> int:
        """``max - max % upper`` with ``max = draws - 1``: draws below it are kept."""
        top = self.draws - 1
        return top - top % self.upper

    @property
    def accept(self) -> Fraction:
        """The probability that one draw is kept (the loop repeats independent draws)."""
        return Fraction(self.threshold, self.draws)

    def count(self, v: int) -> int:
        """Kept draws ``s`` with ``s % upper == v``."""
        if not 0 <= v < self.upper:
            raise InvalidArgument(f"v={v!r}: expected 0 <= v < upper={self.upper}")
        t = self.threshold
        return 0 if v >= t else (t - 1 - v) // self.upper + 1

    def probability(self, v: int) -> Fraction:
        """``P(output = v)``: its kept draws over all kept draws."""
        return Fraction(self.count(v), self.threshold)

    def probability_below(self, n: int) -> Fraction:
        """``P(output < n)`` for ``0 <= n <= upper``, by counting kept draws."""
        if not 0 <= n <= self.upper:
            raise InvalidArgument(f"n={n!r}: expected 0 <= n <= upper={self.upper}")
        t, m = self.threshold, self.upper
        return Fraction((t // m) * n + min(t % m, n), t)

    @property
    def is_uniform(self) -> bool:
        """Every residue has the same number of kept draws (``upper`` divides ``threshold``)."""
        return self.threshold % self.upper == 0


def bernoulli_rational(numerator: int, denominator: int) -> Fraction:
    """``P(true)`` of ``sample_bernoulli_rational(numerator/denominator)``: the uniform draw
    below the denominator is less than the numerator.

    >>> bernoulli_rational(2, 7)
    Fraction(2, 7)
    """
    for name, v in (("numerator", numerator), ("denominator", denominator)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"{name}={v!r}: expected an int (a dashu RBig's part)")
    if denominator < 1 or not 0 <= numerator <= denominator:
        raise InvalidArgument(f"numerator={numerator!r}, denominator={denominator!r}: OpenDP "
                              f"refuses a probability outside [0, 1]")
    return UniformBelow(denominator).probability_below(numerator)


def dashu_div_by_integer(numerator: int, denominator: int, k: int) -> tuple[int, int]:
    """``RBig / UBig`` as dashu-ratio 0.6 forms it (``rational/src/div.rs``): with
    ``g = gcd(numerator, k)``, ``(numerator / g, denominator * (k / g))``.

    >>> dashu_div_by_integer(2, 3, 4)
    (1, 6)
    """
    if k < 1:
        raise InvalidArgument(f"k={k!r}: dashu panics on a division by zero; expected k >= 1")
    g = math.gcd(numerator, k)
    return numerator // g, denominator * (k // g)


# -- Bernoulli(exp(-x)) ------------------------------------------------------------------------------

def _series_stop(x: Fraction, k: int) -> Fraction:
    """``x**(k-1)/(k-1)! - x**k/k!``: the exponential series' share of stopping at trial k."""
    return x ** (k - 1) / math.factorial(k - 1) - x ** k / math.factorial(k)


@dataclass(frozen=True)
class Exp1Steps:
    """The loop of ``sample_bernoulli_exp1(x)`` followed for ``len(trials)`` trials.

    ``trials[k-1]``: the success probability of trial ``k``, ``Bernoulli(x / k)`` as the code
    draws it (``x / k`` formed by the division given, then :func:`bernoulli_rational`);
    followed up to the first trial that always fails (``x = 0``: one trial)."""

    x: Fraction
    trials: tuple[Fraction, ...]

    @property
    def stops(self) -> tuple[Fraction, ...]:
        """``stops[k-1]``: the probability that the first failed trial is trial ``k``."""
        going, out = Fraction(1), []
        for p in self.trials:
            out.append(going * (1 - p))
            going *= p
        return tuple(out)

    @property
    def looping(self) -> Fraction:
        """The probability that every followed trial succeeded (the loop still runs)."""
        return math.prod(self.trials, start=Fraction(1))

    @property
    def lower(self) -> Fraction:
        """``P(true)`` at least: the odd stops followed."""
        return sum(self.stops[0::2], Fraction(0))

    @property
    def upper(self) -> Fraction:
        """``P(true)`` at most: the odd stops and everything still looping."""
        return self.lower + self.looping

    def mismatch(self) -> int | None:
        """The first trial ``k`` whose success probability is not ``x / k`` (``None``: every
        followed trial's is). Then each stop is the exponential series' term
        ``x**(k-1)/(k-1)! - x**k/k!`` (the product of ``x/j`` over ``j < k`` times
        ``1 - x/k``), and the loop's law being the same at every trial (one division, one
        uniform draw), ``P(true) = exp(-x)``."""
        for k, p in enumerate(self.trials, start=1):
            if p != self.x / k:
                return k
        return None


@functools.lru_cache(maxsize=4096)
def _exp1_trials(x: Fraction, steps: int, divide: Divide) -> tuple[Fraction, ...]:
    out: list[Fraction] = []
    for k in range(1, steps + 1):
        out.append(bernoulli_rational(*divide(x.numerator, x.denominator, k)))
        if out[-1] == 0:     # this trial always fails: the loop never forms x / (k + 1)
            break
    return tuple(out)


def bernoulli_exp1_steps(x, steps: int = EXP1_STEPS,
                         divide: Divide = dashu_div_by_integer) -> Exp1Steps:
    """Follow ``sample_bernoulli_exp1(x)`` for ``steps`` trials (``divide``: how ``x / k``
    is formed; dashu-ratio 0.6's by default).

    >>> s = bernoulli_exp1_steps(Fraction(1, 2), steps=3)
    >>> s.stops, s.looping, s.mismatch()
    ((Fraction(1, 2), Fraction(3, 8), Fraction(5, 48)), Fraction(1, 48), None)
    """
    x = _exact(x, "x")
    if x > 1:
        raise InvalidArgument(f"x={x!r}: sample_bernoulli_exp1 takes x in [0, 1]")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise InvalidArgument(f"steps={steps!r}: expected an integer >= 1")
    return Exp1Steps(x, _exp1_trials(x, steps, divide))


@dataclass(frozen=True)
class BernoulliExpLaw:
    """``sample_bernoulli_exp(x)``: its loop makes ``ones`` calls
    ``sample_bernoulli_exp1(1)`` and then one ``sample_bernoulli_exp1(rest)``, all of which
    must succeed (``x = ones + rest``, ``rest`` in ``[0, 1]``). ``value``: ``exp(-x)`` when
    both calls' steps match the exponential series, else ``None`` (``lower``/``upper``
    enclose ``P(true)`` either way)."""

    x: Fraction
    ones: int
    rest: Fraction
    one_steps: Exp1Steps
    rest_steps: Exp1Steps

    @property
    def value(self) -> ExpPoly | None:
        if self.rest_steps.mismatch() is not None or (self.ones and self.one_steps.mismatch() is not None):
            return None
        return ExpPoly.monomial(-self.x)

    def first_mismatch(self) -> Exp1Steps | None:
        """The call whose steps leave the series (``None``: neither)."""
        for s in ((self.one_steps,) if self.ones else ()) + (self.rest_steps,):
            if s.mismatch() is not None:
                return s
        return None

    @property
    def lower(self) -> Fraction:
        return self.one_steps.lower ** self.ones * self.rest_steps.lower

    @property
    def upper(self) -> Fraction:
        return self.one_steps.upper ** self.ones * self.rest_steps.upper


def bernoulli_exp(x, steps: int = EXP1_STEPS, divide: Divide = dashu_div_by_integer) -> BernoulliExpLaw:
    """Follow ``sample_bernoulli_exp(x)``: ``while x > 1`` one ``exp1(1)`` per unit
    subtracted, then ``exp1`` of the rest.

    >>> law = bernoulli_exp(Fraction(5, 2))
    >>> law.ones, law.rest, law.value
    (2, Fraction(1, 2), ExpPoly(exp(-5/2)))
    """
    x = _exact(x, "x")
    ones = max(math.ceil(x) - 1, 0)          # iterations of `while x > 1` (strict)
    rest = x - ones
    one_steps = bernoulli_exp1_steps(Fraction(1), steps, divide)
    rest_steps = one_steps if rest == 1 else bernoulli_exp1_steps(rest, steps, divide)
    return BernoulliExpLaw(x, ones, rest, one_steps, rest_steps)


# -- geometric(1 - exp(-x)) by CKS20's fast algorithm ------------------------------------------------

def _sum_exp(first: Fraction, step: Fraction, count: int) -> tuple[ExpPoly, ExpPoly]:
    """``sum_{i < count} exp(first - i step)`` in closed form ``(N, D)``:
    ``exp(first) (1 - exp(-count step)) / (1 - exp(-step))`` (a finite geometric series)."""
    one = ExpPoly.constant(1)
    return (one - ExpPoly.monomial(-count * step)).shifted(first), one - ExpPoly.monomial(-step)


@dataclass(frozen=True)
class GeometricFastLaw:
    """``sample_geometric_exp_fast(x)`` for a rational ``x > 0`` (``n/d`` reduced): each
    output's probability as a ratio of :class:`~exactdp.mechanisms.models._exppoly.ExpPoly`."""

    x: Fraction
    steps: int = EXP1_STEPS
    divide: Divide = dashu_div_by_integer

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", _exact(self.x, "x", allow_zero=False))

    @property
    def uniform(self) -> UniformBelow:
        return UniformBelow(self.x.denominator)

    @property
    def stop_law(self) -> BernoulliExpLaw:
        """``sample_bernoulli_exp(1)``, the trial of ``sample_geometric_exp_slow(1)``."""
        return bernoulli_exp(1, self.steps, self.divide)

    def checked_arguments(self) -> tuple[Fraction, ...]:
        """The acceptance arguments ``u/d`` whose ``sample_bernoulli_exp`` steps
        :meth:`sound` follows: ``u = 0, 1, 2, d - 1`` and ``d // 2`` (every ``u`` when
        ``d <= 64``)."""
        d = self.x.denominator
        us = range(d) if d <= 64 else sorted({0, 1, 2, d // 2, d - 1})
        return tuple(Fraction(u, d) for u in us)

    def sound(self) -> str | None:
        """Why the closed form would not be the code's law (``None``: it is): the uniform
        draw not uniform at ``d``, or a ``sample_bernoulli_exp`` whose steps leave the
        exponential series (at ``1`` or at a checked ``u/d``)."""
        if not self.uniform.is_uniform:
            return f"sample_uniform_ubig_below({self.x.denominator}) is not uniform"
        for a in (Fraction(1),) + self.checked_arguments():
            bad = bernoulli_exp(a, self.steps, self.divide).first_mismatch()
            if bad is not None:
                return (f"sample_bernoulli_exp1({bad.x}) stops at trial {bad.mismatch()} with "
                        f"a probability off the series of exp(-{bad.x})")
        return None

    def probability(self, j: int) -> tuple[ExpPoly, ExpPoly]:
        """``P(output = j) = N / D``, the sums over ``u`` and ``w = v d + u`` in closed form
        (valid when :meth:`sound`), equal positive factors of ``N`` and ``D`` cancelled.

        >>> GeometricFastLaw(Fraction(2, 3)).probability(1)
        (ExpPoly(-exp(-4/3) + exp(-2/3)), ExpPoly(1))
        """
        if isinstance(j, bool) or not isinstance(j, int) or j < 0:
            raise InvalidArgument(f"j={j!r}: expected an integer >= 0")
        n, d = self.x.numerator, self.x.denominator
        c = ExpPoly.constant(self.uniform.probability(0))              # P(u = v), every v
        stop = ExpPoly.constant(1) - ExpPoly.monomial(-1)              # P(v2 = m) = e^-m (1 - e^-1)
        acc_n, acc_d = _sum_exp(Fraction(0), Fraction(1, d), d)        # sum_u e^(-u/d)
        run_n, run_d = _sum_exp(Fraction(-j * n, d), Fraction(1, d), n)  # sum_w e^(-w/d), w in [jn, jn+n)
        # P(j) = sum_w c e^(-(w mod d)/d) e^(-(w div d)) (1 - e^-1) / sum_u c e^(-u/d)
        return _cancel([c, run_n, stop, acc_d], [c, run_d, acc_n])

    def probability_enumerated(self, j: int) -> tuple[ExpPoly, ExpPoly]:
        """``P(output = j)`` summed term by term: every ``u < d`` with its own
        :func:`bernoulli_exp` law (each followed and matched with ``exp(-u/d)``) and every
        ``w`` with ``w // n = j``; only for ``n, d <= MAX_ENUMERATED``."""
        n, d = self.x.numerator, self.x.denominator
        if max(n, d) > MAX_ENUMERATED:
            refuse_above(max(n, d), MAX_ENUMERATED, what=f"terms to sum for x = {self.x}",
                         option=None, hint="use probability() (closed form)")
        weights = []
        for u in range(d):
            law = bernoulli_exp(Fraction(u, d), self.steps, self.divide)
            if law.value is None:
                raise InvalidArgument(f"sample_bernoulli_exp({Fraction(u, d)}) does not draw "
                                      f"exp(-{Fraction(u, d)}): nothing to sum exactly")
            weights.append(law.value.scaled(self.uniform.probability(u)))
        q = self.stop_law.value
        if q is None:
            raise InvalidArgument("sample_bernoulli_exp(1) does not draw exp(-1)")
        one = ExpPoly.constant(1)
        num = ExpPoly()
        for w in range(j * n, j * n + n):
            m, v = divmod(w, d)
            pv = one - q
            for _ in range(m):
                pv = pv * q
            num = num + weights[v] * pv
        den = ExpPoly()
        for wt in weights:
            den = den + wt
        return num, den

    def ideal(self, j: int) -> tuple[ExpPoly, ExpPoly]:
        """``Geometric(1 - exp(-x))``: ``exp(-j x) (1 - exp(-x))``."""
        one = ExpPoly.constant(1)
        return (one - ExpPoly.monomial(-self.x)).shifted(-j * self.x), one


def _cancel(num: list[ExpPoly], den: list[ExpPoly]) -> tuple[ExpPoly, ExpPoly]:
    """``prod(num) / prod(den)`` with factors equal on both sides removed (every factor is
    positive, so ``a / a = 1``)."""
    num, den = list(num), list(den)
    for f in list(num):
        if f in den:
            num.remove(f)
            den.remove(f)
    return math.prod(num, start=ExpPoly.constant(1)), math.prod(den, start=ExpPoly.constant(1))


def _same(a: tuple[ExpPoly, ExpPoly], b: tuple[ExpPoly, ExpPoly]) -> bool:
    return a[0] * b[1] == b[0] * a[1]


# -- discrete Laplace and Gaussian ---------------------------------------------------------------------

@dataclass(frozen=True)
class DiscreteLaplaceLaw:
    """``sample_discrete_laplace(scale)`` for a rational ``scale > 0``: its geometric
    magnitude at ``1/scale``, a fair sign from one byte, ``-0`` redrawn."""

    scale: Fraction
    steps: int = EXP1_STEPS
    divide: Divide = dashu_div_by_integer

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _exact(self.scale, "scale", allow_zero=False))

    @functools.cached_property
    def magnitude(self) -> GeometricFastLaw:
        s = self.scale
        return GeometricFastLaw(Fraction(s.denominator, s.numerator), self.steps, self.divide)

    def probability(self, z: int, enumerate_terms: bool = False) -> tuple[ExpPoly, ExpPoly]:
        """``P(output = z) = N / D`` (``enumerate_terms``: the magnitude's sums term by
        term, for small scales)."""
        g = self.magnitude
        law = g.probability_enumerated if enumerate_terms else g.probability
        (gn, gd), (zn, zd) = law(abs(z)), (self._zero_enumerated if enumerate_terms else self._zero)
        h = standard_bernoulli()
        # P(z) = P(sign) P(G = |z|) / (1 - P(negative) P(G = 0)); P(sign) = h for z >= 0
        sign = h if z >= 0 else 1 - h
        return (gn * zd).scaled(sign), gd * (zd - zn.scaled(1 - h))

    @functools.cached_property
    def _zero(self) -> tuple[ExpPoly, ExpPoly]:
        return self.magnitude.probability(0)

    @functools.cached_property
    def _zero_enumerated(self) -> tuple[ExpPoly, ExpPoly]:
        return self.magnitude.probability_enumerated(0)

    def ideal(self, z: int) -> tuple[ExpPoly, ExpPoly]:
        """``(1 - q) q**|z| / (1 + q)``, ``q = exp(-1/scale)``."""
        one, q = ExpPoly.constant(1), ExpPoly.monomial(-1 / self.scale)
        return (one - q).shifted(-abs(z) / self.scale), one + q

    def matches_ideal(self, z: int) -> bool:
        return _same(self.probability(z), self.ideal(z))


@dataclass(frozen=True)
class DiscreteGaussianLaw:
    """``sample_discrete_gaussian(scale)`` for a rational ``scale > 0``: discrete Laplace
    candidates at ``t = floor(scale) + 1``, each kept with ``sample_bernoulli_exp(bias)``."""

    scale: Fraction
    steps: int = EXP1_STEPS
    divide: Divide = dashu_div_by_integer

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _exact(self.scale, "scale", allow_zero=False))

    @property
    def t(self) -> Fraction:
        return Fraction(math.floor(self.scale) + 1)

    @functools.cached_property
    def candidate(self) -> DiscreteLaplaceLaw:
        return DiscreteLaplaceLaw(self.t, self.steps, self.divide)

    def bias(self, z: int) -> Fraction:
        """``(|z| - sigma2 / t)**2 / (2 sigma2)`` as the code forms it."""
        sigma2 = self.scale ** 2
        return (abs(z) - sigma2 / self.t) ** 2 / (sigma2 * 2)

    def linear_coefficient(self) -> Fraction:
        """The ``|z|``-coefficient of the accepted candidate's log-weight
        ``-|z|/t - bias(z)``, from the code's values: ``-1/t + 2 (sigma2/t) / (2 sigma2)``;
        0 means the weight is a constant times ``exp(-z**2 / (2 scale**2))`` for every z."""
        sigma2 = self.scale ** 2
        return -1 / self.t + 2 * (sigma2 / self.t) / (sigma2 * 2)

    def weight(self, z: int, enumerate_terms: bool = False) -> tuple[ExpPoly, ExpPoly]:
        """``P(candidate = z) P(kept | z) = N / D``; the output's ``P(z)`` is this over its
        sum over all z (the loop redraws until a candidate is kept)."""
        n, d = self.candidate.probability(z, enumerate_terms)
        kept = bernoulli_exp(self.bias(z), self.steps, self.divide).value
        if kept is None:
            raise InvalidArgument(f"sample_bernoulli_exp({self.bias(z)}) does not draw "
                                  f"exp(-{self.bias(z)})")
        return n * kept, d

    def ideal_weight(self, z: int) -> ExpPoly:
        """``exp(-z**2 / (2 scale**2))``."""
        return ExpPoly.monomial(-Fraction(z * z) / (2 * self.scale ** 2))

    @functools.cached_property
    def _weight0(self) -> tuple[ExpPoly, ExpPoly]:
        return self.weight(0)

    def proportional_to_ideal(self, z: int) -> bool:
        """``weight(z) / ideal_weight(z) == weight(0) / ideal_weight(0)``, exactly."""
        (nz, dz), (n0, d0) = self.weight(z), self._weight0
        return nz * d0 == n0 * dz * self.ideal_weight(z)


# -- verdicts for the audits -----------------------------------------------------------------------------

@dataclass(frozen=True)
class SamplerAgreement:
    """Whether OpenDP's sampler, followed step by step, draws the ideal distribution at
    ``scale`` (exactly, for every integer output). ``checked``: the outputs compared one by
    one; ``witness``: the first output (or step) where they differ, else ``None``."""

    sampler: str
    scale: Fraction
    equal: bool
    checked: int
    witness: object = None
    argument: str = ""


def _window(window: int) -> range:
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise InvalidArgument(f"window={window!r}: expected an integer >= 0 (outputs -window..window)")
    return range(-window, window + 1)


def verify_discrete_laplace(scale, window: int = 40, *, steps: int = EXP1_STEPS,
                            divide: Divide = dashu_div_by_integer) -> SamplerAgreement:
    """Follow ``sample_discrete_laplace(scale)`` and compare it with the ideal discrete
    Laplace exactly: the steps at this scale (uniform draw below ``d``, the Bernoulli(exp)
    loops at ``1`` and at the checked ``u/d``), then ``P(z)`` for ``|z| <= window``. Every
    ``P(z)`` is ``c * exp(-|z| n/d)`` with one ``c``, so equality on the window's two
    smallest magnitudes carries to every z.

    >>> verify_discrete_laplace(Fraction(17, 10), window=3).equal
    True
    """
    law = DiscreteLaplaceLaw(scale, steps, divide)
    reason = law.magnitude.sound()
    if reason is not None:
        return SamplerAgreement("sample_discrete_laplace", law.scale, False, 0, reason)
    zs = _window(window)
    for z in zs:
        if not law.matches_ideal(z):
            return SamplerAgreement("sample_discrete_laplace", law.scale, False, len(zs), z)
    return SamplerAgreement(
        "sample_discrete_laplace", law.scale, True, len(zs),
        argument="uniform draw below d exact (threshold a multiple of d); sample_bernoulli_exp "
                 "steps match exp(-x)'s series at 1 and at the checked u/d (every u: dashu's "
                 "(n/g) / (d (k/g)) is n/(d k) for all n, d, k); P(z) = (1-q) q^|z| / (1+q) exactly")


def verify_discrete_gaussian(scale, window: int = 40, *, steps: int = EXP1_STEPS,
                             divide: Divide = dashu_div_by_integer) -> SamplerAgreement:
    """Follow ``sample_discrete_gaussian(scale)``: its Laplace candidates (as
    :func:`verify_discrete_laplace`), the ``|z|``-coefficient of the kept weight (must be
    0: then the weight is ``const * exp(-z**2/(2 scale**2))`` for every z), and the kept
    weights on ``|z| <= window`` against that, exactly.

    >>> r = verify_discrete_gaussian(Fraction(1, 2), window=3)
    >>> r.equal, r.checked
    (True, 7)
    """
    law = DiscreteGaussianLaw(scale, steps, divide)
    cand = verify_discrete_laplace(law.t, window, steps=steps, divide=divide)
    if not cand.equal:
        return SamplerAgreement("sample_discrete_gaussian", law.scale, False, cand.checked,
                                f"candidate sample_discrete_laplace({law.t}): {cand.witness}")
    if law.linear_coefficient() != 0:
        return SamplerAgreement("sample_discrete_gaussian", law.scale, False, 0,
                                f"|z|-coefficient {law.linear_coefficient()} of the kept weight")
    zs = _window(window)
    for z in zs:
        try:
            ok = law.proportional_to_ideal(z)
        except InvalidArgument as e:
            return SamplerAgreement("sample_discrete_gaussian", law.scale, False, len(zs), f"{z}: {e}")
        if not ok:
            return SamplerAgreement("sample_discrete_gaussian", law.scale, False, len(zs), z)
    return SamplerAgreement(
        "sample_discrete_gaussian", law.scale, True, len(zs),
        argument="candidates: the exact discrete Laplace at t = floor(scale) + 1; the kept "
                 "weight's |z|-coefficient cancels exactly, so P(z) = exp(-z^2/(2 scale^2)) / Z")


# -- sample_bernoulli_float (make_geometric, randomized response) ---------------------------------------

def bernoulli_float_probability(prob: float) -> Fraction:
    """``P(true)`` of ``sample_bernoulli_float(prob)`` for an f64 ``prob`` in ``[0, 1]``,
    following its code (``rust/src/traits/samplers/bernoulli/mod.rs``): ``prob == 1`` is
    true; else the index ``i`` of the first set bit among ``8 * ceil(1075 / 8) = 1080``
    uniform bits (``P(i) = 2**-(i+1)``; none set: false) picks bit ``i`` of ``prob``'s
    binary expansion, located from ``leading_zeros = 1022 - raw_exponent``: the implicit
    bit at ``i == leading_zeros`` (set unless subnormal), mantissa bit ``leading_zeros + 52
    - i`` after it.

    For a normal ``prob`` (and 0) that is ``prob`` exactly. For a subnormal one the code
    places the mantissa one position too far (``raw_exponent`` 0 where the value's scale is
    that of exponent 1), so ``P(true) = prob / 2``:

    >>> bernoulli_float_probability(0.75), bernoulli_float_probability(5e-324) == Fraction(5e-324) / 2
    (Fraction(3, 4), True)
    """
    if isinstance(prob, bool) or not isinstance(prob, float) or not 0.0 <= prob <= 1.0:
        raise InvalidArgument(f"prob={prob!r}: expected a float in [0, 1] (OpenDP's f64 "
                              f"probability)")
    if prob == 1.0:
        return Fraction(1)
    bits = struct.unpack("<Q", struct.pack("<d", prob))[0]
    raw_exponent, mantissa = bits >> 52, bits & ((1 << 52) - 1)
    flips = 8 * -(-(1023 + 52) // 8)
    leading_zeros = 1023 - 1 - raw_exponent
    total = Fraction(0)
    for i in range(flips):
        if i < leading_zeros:
            bit = False
        elif i == leading_zeros:
            bit = raw_exponent != 0
        elif i > leading_zeros + 52:
            bit = False
        else:
            bit = bool(mantissa >> (leading_zeros + 52 - i) & 1)
        if bit:
            total += Fraction(1, 2 ** (i + 1))
    return total
