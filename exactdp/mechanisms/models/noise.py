"""Additive noise on a scalar query: discrete Laplace (plain, clamped, truncated), the
discrete Gaussian, and the continuous Laplace and Gaussian.

* ``discrete-laplace`` with ``scale=t``: ``P(z) = (1-q)/(1+q) q^|z|``, ``q = exp(-1/t)``, on an
  integer query. Infinite support, so closed forms: ``epsilon(a, b) = |a-b|/t`` exactly,
  attained at every output on the far side (the witness is ``max(a, b)``), and, with
  ``k = |a-b|``, the tight

      delta(eps) = [eps < k/t]·(1 - e^eps q^k)/(1+q)
                   + (q - q^(n+1) - e^eps (q^(k-n) - q^k))/(1+q),

  ``n = #{o in 1..k-1 : k - 2o > eps·t}`` (the outputs strictly between ``a`` and ``b``
  whose privacy loss ``(k-2o)/t`` exceeds eps; outputs at or beyond ``a`` have loss
  ``k/t``, those at or beyond ``b`` a negative one); the same in both directions by
  symmetry. ``variant="clamped"`` reports ``min(max(x+Z, lower), upper)`` (finite support,
  the two ends collect the tails ``q^n/(1+q)``); ``variant="truncated"`` conditions on
  ``[lower, upper]`` (``P(o) ∝ q^|o-x|``): its epsilon can exceed ``|a-b|/t`` because the
  normalising constants differ.
* ``discrete-gaussian`` with ``sigma_squared`` (or ``sigma``): epsilon is infinite for
  ``a != b`` but **no single output has infinite loss**: the loss at ``o`` is
  ``(b-a)(2o-a-b)/(2σ²)``, unbounded in ``o``. The witness reported by :meth:`epsilon`
  is ``None``; :meth:`DiscreteGaussian.output_exceeding` gives, for any claimed eps, the
  first output beyond ``max(a, b)`` whose loss exceeds it. ``delta`` has no exact closed
  form: :meth:`delta_enclosure` returns Fractions ``(lo, hi)`` (CKS20 Thm 7 with rigorous
  tail bounds), and :meth:`delta` **raises** :class:`~exactdp.errors.Undecided` pointing
  there, so a checker that does not know enclosures answers UNDECIDED, never a guess.
* ``laplace`` with ``scale=b`` (continuous, any exact real query value): ``epsilon =
  |a-b|/b`` (witness ``max(a, b)``: every output beyond it attains it) and
  ``delta(eps) = max(0, 1 - exp((eps - |a-b|/b)/2))`` exactly. On vectors (the L1
  mechanism: independent noise of scale ``b`` on each coordinate) ``epsilon =
  ||a-b||_1/b`` (witness the output ``a``, in the direction ``P_a/P_b``) and ``delta(eps)``
  is exact too, see :meth:`Laplace.delta`.
* ``gaussian`` with ``sigma``: epsilon infinite (witness ``None``, as the discrete one),
  ``delta_enclosure`` from :func:`exactdp.mechanisms.calibration.gaussian.delta_of_sigma`'s
  characterisation (Balle & Wang 2018), ``delta`` raises ``Undecided``. On vectors
  (independent noise of standard deviation ``sigma`` on each coordinate) the privacy loss
  depends only on ``||a-b||_2`` (rotation invariance), so everything is the scalar's at
  the shift ``||a-b||_2`` (a square root, enclosed exactly).

>>> dl = make_mechanism("discrete-laplace", scale=1)
>>> dl.epsilon(0, 2)
Divergence(value=Fraction(2, 1), output=2)
>>> dl.delta(0, 1, 0)
(1 - exp(-1))/(exp(-1) + 1)
>>> make_mechanism("laplace", scale=2).delta(0, 1, 0)
1 - exp(-1/4)
>>> loss = make_mechanism("laplace", scale=1).epsilon((0, 0), (1, -2))
>>> loss.value, loss.output
(Fraction(3, 1), (Fraction(0, 1), Fraction(0, 1)))
>>> make_mechanism("laplace", scale=1).delta((0, 0), (0, 2), 0) == make_mechanism("laplace", scale=1).delta(0, 2, 0)
True
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms.models._exppoly import ExpPoly, ExpPolyMechanism, ratio_value
from exactdp.mechanisms._params import positive
from exactdp.mechanisms.calibration.discrete import discrete_gaussian_delta
from exactdp.mechanisms.distribution import INFINITY, Divergence
from exactdp.mechanisms.mechanism import (  # noqa: F401 (make_mechanism: doctests)
    Mechanism, make_mechanism, number_or_vector, one_number, show_vector,
)
from exactdp.numeric.decide import compare, to_fraction_if_rational, to_sympy
from exactdp.numeric.exact import show_exact, to_exact
from exactdp.numeric.intervals import (
    enclose,
    exact_interval,
    interval_of_sympy,
    interval_to_fractions,
    normal_cdf,
)

__all__ = ["MAX_LAPLACE_COORDINATES", "MAX_RANGE", "DiscreteGaussian", "DiscreteLaplace",
           "Gaussian", "Laplace"]

MAX_RANGE = 10_000
"""Most outputs a clamped or truncated discrete Laplace may have (each is compared exactly)."""

MAX_LAPLACE_COORDINATES = 6
"""Most coordinates on which two vectors may differ for the exact ``delta(eps)`` of the
vector Laplace mechanism (its sum has ``4**d`` terms, 4,096 at 6 coordinates, about a
second; coordinates that agree cost nothing)."""


def _integer_value(value, name: str = "value") -> int:
    v = to_exact(value, name)
    if v.denominator != 1:
        raise InvalidArgument(f"{name}={show_exact(v)} is not an integer; discrete noise is "
                              f"added to an integer-valued query")
    return int(v)


def _epsilon_claim(epsilon):
    """An exact epsilon >= 0: a Fraction, or a SymPy real such as ``log(3)``."""
    if isinstance(epsilon, sympy.Basic) and not epsilon.is_Rational:
        if (epsilon.has(sympy.Float) or epsilon.free_symbols or epsilon.is_extended_real is not True
                or epsilon.is_finite is not True):
            raise InvalidArgument(f"epsilon={epsilon} is not a finite exact number")
        if compare(epsilon, 0) < 0:
            raise InvalidArgument(f"epsilon={epsilon} is negative; pass epsilon >= 0")
        return epsilon
    e = to_exact(epsilon, "epsilon")
    if e < 0:
        raise InvalidArgument(f"epsilon={show_exact(e)} is negative; pass epsilon >= 0")
    return e


def _bracket(eps) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= eps <= hi`` (equal when eps is rational)."""
    if isinstance(eps, Fraction):
        return eps, eps
    lo, hi = interval_to_fractions(interval_of_sympy(eps, prec=128))
    return max(lo, Fraction(0)), hi


# --- discrete Laplace ------------------------------------------------------------------


class DiscreteLaplace(ExpPolyMechanism):
    """Discrete Laplace noise of scale ``t`` on an integer query; see the module docstring."""

    name = "discrete-laplace"

    def __init__(self, *, scale, variant="none", lower=None, upper=None):
        self.scale = positive(scale, "scale")
        if variant not in ("none", "clamped", "truncated"):
            raise InvalidArgument(f"variant={variant!r} is not known; use 'none', 'clamped' "
                                  f"(output clamped to [lower, upper]) or 'truncated' "
                                  f"(conditioned on [lower, upper])")
        self.variant = variant
        params: dict = {"scale": self.scale}
        if variant == "none":
            if lower is not None or upper is not None:
                raise InvalidArgument("lower/upper need variant='clamped' or variant='truncated'")
        else:
            if lower is None or upper is None:
                raise InvalidArgument(f"variant={variant!r} needs lower=... and upper=...")
            self.lower, self.upper = _integer_value(lower, "lower"), _integer_value(upper, "upper")
            if self.upper <= self.lower:
                raise InvalidArgument(f"Cannot have upper={self.upper} <= lower={self.lower}")
            refuse_above(self.upper - self.lower + 1, MAX_RANGE, what="outputs in [lower, upper]",
                         option=None, hint="use a narrower [lower, upper]")
            params.update(variant=variant, lower=self.lower, upper=self.upper)
        super().__init__(**params)
        self._q = ExpPoly.monomial(-1 / self.scale)

    def check_value(self, value):
        return _integer_value(one_number(value, self))

    def _qpow(self, n: int) -> ExpPoly:
        return ExpPoly.monomial(Fraction(-n) / self.scale)

    def _tail(self, n: int) -> ExpPoly:
        """Numerator over ``1+q`` of ``P(Z >= n)``."""
        one = ExpPoly.constant(1)
        if n >= 1:
            return self._qpow(n)
        return one + self._q - self._qpow(1 - n)

    def fractions(self, value) -> dict:
        if self.variant == "none":
            raise NotImplementedError(
                "the discrete Laplace has infinitely many outputs; use epsilon()/delta() "
                "(closed forms) or variant='clamped'/'truncated'")
        x = self.check_value(value)
        lo, hi = self.lower, self.upper
        if self.variant == "truncated":
            w = {o: self._qpow(abs(o - x)) for o in range(lo, hi + 1)}
            z = ExpPoly()
            for v in w.values():
                z = z + v
            return {o: (v, z) for o, v in w.items()}
        den = ExpPoly.constant(1) + self._q
        pmf = ExpPoly.constant(1) - self._q
        out = {o: (pmf * self._qpow(abs(o - x)), den) for o in range(lo + 1, hi)}
        out[lo] = (self._tail(x - lo), den)  # P(Z <= lo - x) = P(Z >= x - lo)
        out[hi] = (self._tail(hi - x), den)
        return out

    def epsilon(self, a, b) -> Divergence:
        if self.variant != "none":
            return super().epsilon(a, b)
        a, b = self.check_value(a), self.check_value(b)
        return Divergence(Fraction(abs(a - b)) / self.scale, max(a, b))

    def delta(self, a, b, epsilon):
        if self.variant != "none":
            return super().delta(a, b, epsilon)
        a, b = self.check_value(a), self.check_value(b)
        eps = _epsilon_claim(epsilon)
        k, t = abs(a - b), self.scale
        if k == 0:
            return Fraction(0)
        T = sympy.Rational(t.numerator, t.denominator)
        q, e = sympy.exp(-1 / T), sympy.exp(to_sympy(eps))
        total = sympy.Integer(0)  # the numerator over 1 + q
        if compare(eps, Fraction(k) / t) < 0:
            total += 1 - e * q**k
        n = _count_below(k, eps, t)
        if n >= 1:
            total += q - q**(n + 1) - e * (q**(k - n) - q**k)
        return to_fraction_if_rational(sympy.expand(total) / (1 + q))


def _count_below(k: int, eps, t: Fraction) -> int:
    """``#{o in 1..k-1 : k - 2o > eps t}``, exactly."""
    if isinstance(eps, Fraction):
        x = (k - eps * t) / 2  # o < x
        n = math.ceil(x) - 1
    else:
        hi = _bracket(eps)[1]
        n = math.ceil((k - hi * t) / 2) - 1  # a lower estimate; step up while o = n+1 qualifies
        while n + 1 <= k - 1 and compare(k - 2 * (n + 1), to_sympy(eps) * to_sympy(t)) > 0:
            n += 1
    return max(0, min(k - 1, n))


# --- discrete Gaussian -------------------------------------------------------------------


class _EnclosedDelta(Mechanism):
    """A mechanism whose delta(eps) is known only as an enclosure (see module docstring)."""

    def epsilon(self, a, b) -> Divergence:
        a, b = self.check_pair(a, b)
        if a == b:
            return Divergence(Fraction(0), a)
        return Divergence(INFINITY, None)

    def delta(self, a, b, epsilon):
        """Raises :class:`Undecided`: no exact value; use :meth:`delta_enclosure`."""
        lo, hi = self.delta_enclosure(a, b, epsilon)
        if lo == hi:
            return lo
        raise Undecided(
            f"{self.name}: delta({epsilon}) has no exact closed form; it lies in "
            f"[{float(lo)!r}, {float(hi)!r}] (use delta_enclosure(a, b, epsilon) for the exact ends)")

    rho_is_exact = True

    def rho_enclosure(self, a, b) -> tuple[Fraction, Fraction]:
        """``(lo, hi)`` around the smallest zCDP ``rho`` of the pair: ``(a - b)^2 / (2 sigma^2)``
        (Rényi divergence ``alpha (a-b)^2/(2 sigma^2)`` at every order). Exact for the
        Gaussian; for the discrete Gaussian an upper bound (Canonne, Kamath, Steinke 2020),
        so its lower end is 0."""
        a, b = self.check_value(a), self.check_value(b)
        value = Fraction(a - b) ** 2 / (2 * self.sigma_squared)
        return (value if self.rho_is_exact else Fraction(0)), value

    def delta_enclosure(self, a, b, epsilon) -> tuple[Fraction, Fraction]:
        """Fractions ``lo <= delta(eps) <= hi`` (an irrational eps is bracketed by
        rationals; delta decreases in eps)."""
        a, b = self.check_value(a), self.check_value(b)
        eps = _epsilon_claim(epsilon)
        if a == b:
            return Fraction(0), Fraction(0)
        e_lo, e_hi = _bracket(eps)
        lo = self._enclosure(abs(a - b), e_hi)[0]
        hi = self._enclosure(abs(a - b), e_lo)[1]
        return lo, hi

    def output_exceeding(self, a, b, epsilon):
        """The first output ``o > max(a, b)`` (integers) whose privacy loss
        ``log(P_max(o)/P_min(o)) = k(2o - a - b)/(2σ²)`` exceeds ``epsilon``: a witness
        against any finite epsilon claim."""
        a, b = self.check_value(a), self.check_value(b)
        if a == b:
            raise InvalidArgument("a == b: the loss is 0 at every output")
        eps = _epsilon_claim(epsilon)
        _, hi = _bracket(eps)
        k, s2 = abs(a - b), self.sigma_squared
        # k(2o - a - b) > 2 s2 eps  <=>  o > (2 s2 eps/k + a + b)/2
        o = max(max(a, b) + 1, math.floor((2 * s2 * hi / k + a + b) / 2) + 1)
        return o


class DiscreteGaussian(_EnclosedDelta):
    """Discrete Gaussian noise ``N_Z(0, σ²)`` on an integer query."""

    name = "discrete-gaussian"
    rho_is_exact = False  # D_alpha <= alpha Delta^2/(2 sigma^2): an upper bound

    def __init__(self, *, sigma_squared=None, sigma=None):
        if (sigma_squared is None) == (sigma is None):
            raise InvalidArgument("discrete-gaussian takes sigma_squared=... or sigma=..., exactly one")
        s2 = positive(sigma_squared, "sigma_squared") if sigma is None else positive(sigma, "sigma") ** 2
        self.sigma_squared = s2
        super().__init__(**({"sigma_squared": s2} if sigma is None else {"sigma": to_exact(sigma)}))

    def check_value(self, value):
        return _integer_value(one_number(value, self))

    def _enclosure(self, k: int, eps: Fraction):
        r = discrete_gaussian_delta(eps, self.sigma_squared, k)
        return r.lower, r.upper


# --- continuous Laplace and Gaussian ---------------------------------------------------


class Laplace(Mechanism):
    """Continuous Laplace noise of scale ``b``; see the module docstring."""

    name = "laplace"

    def __init__(self, *, scale):
        # an exact number, or an exact positive SymPy real (a typical sensitivity such as
        # seed 004's E|h - h'| over epsilon)
        if isinstance(scale, sympy.Basic) and not scale.is_Rational:
            if scale.free_symbols or scale.has(sympy.Float) or compare(scale, 0) <= 0:
                raise InvalidArgument(f"scale={scale} is not an exact positive real")
            self.scale = scale
        else:
            self.scale = positive(scale, "scale")
        super().__init__(scale=self.scale)

    input_kind = "scalar-or-vector"

    def check_value(self, value):
        return number_or_vector(value, self)

    def epsilon(self, a, b) -> Divergence:
        """``|a-b|/b`` (witness ``max(a, b)``); on vectors ``||a-b||_1/b``, attained at the
        output ``a`` in the direction ``P_a/P_b`` (every coordinate's loss is then
        ``|a_i - b_i|/b``, its largest)."""
        a, b = self.check_pair(a, b)
        if isinstance(a, tuple):
            dist, witness = sum((abs(x - y) for x, y in zip(a, b)), Fraction(0)), tuple(a)
        else:
            dist, witness = abs(a - b), max(a, b)
        if isinstance(self.scale, Fraction):
            return Divergence(dist / self.scale, witness)
        return Divergence(to_sympy(dist) / self.scale, witness)

    def delta(self, a, b, epsilon):
        """The tight ``delta(eps)``, exact. On numbers the closed form of the module
        docstring. On vectors, by :func:`_vector_laplace_delta`: the privacy loss is the sum
        of independent per-coordinate losses, each (in units of ``c_i = |a_i-b_i|/b``) an
        atom ``c_i`` of mass 1/2, an atom ``-c_i`` of mass ``e^-c_i/2`` and the density
        ``e^(l/2 - c_i/2)/4`` on ``(-c_i, c_i)``; ``delta = E[(1 - e^(eps - L))_+]`` is a finite
        sum of integrals of a polynomial times an exponential (``4**d`` terms for ``d``
        coordinates that differ, at most :data:`MAX_LAPLACE_COORDINATES`): an exponential
        polynomial with rational exponents for a rational ``eps`` and scale, an exact SymPy
        expression otherwise. Both directions are equal (reflect each coordinate)."""
        a, b = self.check_pair(a, b)
        eps = _epsilon_claim(epsilon)
        if isinstance(a, tuple):
            shifts = [abs(x - y) for x, y in zip(a, b) if x != y]
            refuse_above(len(shifts), MAX_LAPLACE_COORDINATES,
                         what=f"coordinates on which the vectors {show_vector(a)} and "
                              f"{show_vector(b)} differ for laplace's exact delta",
                         option=None, hint="check fewer coordinates at a time, or check "
                                           "the pure epsilon (no --delta), exact at any length")
            if isinstance(self.scale, Fraction):
                cs = [c / self.scale for c in shifts]
            else:
                cs = [to_sympy(c) / self.scale for c in shifts]
            return _vector_laplace_delta(cs, eps)
        L = abs(a - b) / self.scale
        if compare(eps, L) >= 0:
            return Fraction(0)
        return to_fraction_if_rational(1 - sympy.exp((to_sympy(eps) - to_sympy(L)) / 2))


class _ExpPolyRing:
    """Numbers ``sum c_i exp(q_i)`` (rational ``c_i``, ``q_i``) as :class:`ExpPoly`."""

    zero = ExpPoly()

    @staticmethod
    def num(x) -> ExpPoly:
        return ExpPoly.constant(x)

    @staticmethod
    def exp(x) -> ExpPoly:
        return ExpPoly.monomial(x)

    @staticmethod
    def value(x: ExpPoly):
        return ratio_value(x, ExpPoly.constant(1))


class _SympyRing:
    """Exact SymPy numbers (an irrational scale or eps)."""

    zero = sympy.Integer(0)

    @staticmethod
    def num(x):
        return to_sympy(x)

    @staticmethod
    def exp(x):
        return sympy.exp(to_sympy(x))

    @staticmethod
    def value(x):
        return to_fraction_if_rational(x)


def _less(x, y) -> bool:
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x < y
    return compare(x, y) < 0


def _antiderivative_poly(y, k: int, two) -> object:
    """``P(y) = sum_j (-1)^j k!/(k-j)! y^(k-j) two^(j+1)``: ``int y^k e^(y/two) dy =
    e^(y/two) P(y)`` (``two`` is 2 or -2)."""
    total = 0
    falling = 1  # k!/(k-j)!
    for j in range(k + 1):
        total += (-1) ** j * falling * y ** (k - j) * two ** (j + 1)
        falling *= k - j
    return total


def _vector_laplace_delta(cs: list, eps):
    """``E[(1 - e^(eps - L))_+]`` for ``L = sum_i l_i``, ``l_i`` independent with the law of
    :meth:`Laplace.delta` (``c_i > 0``).

    Expand the product of the ``d`` laws: each coordinate is its atom ``+c`` (mass 1/2),
    its atom ``-c`` (mass ``e^-c/2``) or its continuous part, whose density is
    ``e^(-c/2)/4 * e^(l/2)``. For a choice with continuous set ``S`` (``n = |S| >= 1``,
    ``C = sum_S c_i``) and atoms summing to ``m``, the continuous sum ``V`` has density
    ``e^(v/2)`` times the volume density of a box, ``h(v) = sum_{R subset S} (-1)^|R|
    (v - beta_R)_+^(n-1)/(n-1)!``, ``beta_R = 2 sum_R c_i - C``, zero beyond ``C``; so its
    share is ``sum_R (-1)^|R|/(n-1)! int_{max(eps - m, beta_R)}^{C} (v - beta_R)^(n-1)
    (e^(v/2) - e^(eps - m - v/2)) dv``, integrated in closed form
    (:func:`_antiderivative_poly`). With no continuous part the share is the atom's
    ``(1 - e^(eps - m))`` where ``m > eps``. Every bound and exponent is rational for a
    rational ``eps`` and ``c_i``: the sum is then an exponential polynomial."""
    exact = isinstance(eps, Fraction) and all(isinstance(c, Fraction) for c in cs)
    ring = _ExpPolyRing if exact else _SympyRing
    total = sum((c for c in cs), Fraction(0)) if exact else sympy.Add(*cs)
    if not _less(eps, total):  # the loss never exceeds ||a-b||_1/b
        return Fraction(0)
    half = Fraction(1, 2)
    acc = ring.zero
    for choice in itertools.product(range(4), repeat=len(cs)):
        m, expo, coef, sign = 0, 0, Fraction(1), 1
        big_c, c_r, n = 0, 0, 0
        for c, kind in zip(cs, choice):
            if kind == 0:  # atom +c
                m, coef = m + c, coef * half
            elif kind == 1:  # atom -c
                m, expo, coef = m - c, expo - c, coef * half
            else:  # continuous; kind 3: also in R
                big_c, n, expo, coef = big_c + c, n + 1, expo - c * half, coef / 4
                if kind == 3:
                    c_r, sign = c_r + c, -sign
        if n == 0:
            if _less(eps, m):
                acc = acc + ring.num(coef) * ring.exp(expo) * (ring.num(1) - ring.exp(eps - m))
            continue
        beta = 2 * c_r - big_c
        lo = beta if _less(eps - m, beta) else eps - m
        if not _less(lo, big_c):
            continue
        weight = Fraction(sign) * coef / math.factorial(n - 1)
        span = _primitive(ring, big_c, beta, eps - m, n - 1) - _primitive(ring, lo, beta, eps - m, n - 1)
        acc = acc + ring.num(weight) * ring.exp(expo) * span
    return ring.value(acc)


def _primitive(ring, v, beta, t, k: int):
    """At ``v``, a primitive of ``(v - beta)^k (e^(v/2) - e^(t - v/2))``:
    ``e^(v/2) P_2(v - beta) - e^(t - v/2) P_-2(v - beta)`` (:func:`_antiderivative_poly`)."""
    y, half = v - beta, Fraction(1, 2)
    return (ring.exp(v * half) * ring.num(_antiderivative_poly(y, k, 2))
            - ring.exp(t - v * half) * ring.num(_antiderivative_poly(y, k, -2)))


class Gaussian(_EnclosedDelta):
    """Continuous Gaussian noise of standard deviation ``σ`` on a real query, or on each
    coordinate of a vector query (independently): the privacy loss of ``N(a, σ²I)``
    against ``N(b, σ²I)`` depends only on ``Δ = ||a-b||_2`` (rotate ``a - b`` onto the
    first axis: the other coordinates cancel), so a pair of vectors is the scalar pair
    ``0, Δ``; ``Δ`` may be irrational (the square root of a rational), and is enclosed."""

    name = "gaussian"
    input_kind = "scalar-or-vector"

    def __init__(self, *, sigma):
        self.sigma = positive(sigma, "sigma")
        self.sigma_squared = self.sigma ** 2
        super().__init__(sigma=self.sigma)

    def check_value(self, value):
        return number_or_vector(value, self)

    @staticmethod
    def _shift_squared(a, b) -> Fraction:
        """``||a - b||_2^2`` (``(a - b)^2`` for numbers), exact."""
        if isinstance(a, tuple):
            return sum((Fraction(x - y) ** 2 for x, y in zip(a, b)), Fraction(0))
        return Fraction(a - b) ** 2

    def rho_enclosure(self, a, b) -> tuple[Fraction, Fraction]:
        """``||a - b||_2^2 / (2 σ²)``, exact (the scalar's at the L2 shift)."""
        a, b = self.check_pair(a, b)
        value = self._shift_squared(a, b) / (2 * self.sigma_squared)
        return value, value

    def delta_enclosure(self, a, b, epsilon) -> tuple[Fraction, Fraction]:
        """Fractions ``lo <= delta(eps) <= hi`` at the shift ``||a - b||_2`` (on numbers,
        ``|a - b|``)."""
        a, b = self.check_pair(a, b)
        eps = _epsilon_claim(epsilon)
        k2 = self._shift_squared(a, b)
        if k2 == 0:
            return Fraction(0), Fraction(0)
        e_lo, e_hi = _bracket(eps)
        return self._enclosure_squared(k2, e_hi)[0], self._enclosure_squared(k2, e_lo)[1]

    def output_exceeding(self, a, b, epsilon):
        """For the continuous Gaussian: an output (a rational, or a vector of them) beyond
        which the loss exceeds ``epsilon`` (same formula as the discrete one; on vectors
        the output ``a + t (a - b)``, whose loss is ``||a-b||² (1 + 2t)/(2σ²)``)."""
        a, b = self.check_pair(a, b)
        if a == b:
            raise InvalidArgument("a == b: the loss is 0 at every output")
        _, hi = _bracket(_epsilon_claim(epsilon))
        if isinstance(a, tuple):
            k2 = self._shift_squared(a, b)
            t = max(Fraction(0), (2 * self.sigma_squared * hi / k2 - 1) / 2) + 1
            return tuple(x + t * (x - y) for x, y in zip(a, b))
        k = abs(a - b)
        return max(max(a, b), (2 * self.sigma_squared * hi / k + a + b) / 2) + 1

    def _enclosure(self, k, eps: Fraction):
        return self._enclosure_squared(Fraction(k) ** 2, eps)

    def _enclosure_squared(self, k2: Fraction, eps: Fraction):
        s = self.sigma
        root = _rational_sqrt(k2)

        def fn(iv):
            sg, e = exact_interval(s), exact_interval(eps)
            dd = exact_interval(root) if root is not None else iv.sqrt(exact_interval(k2))
            x, y = dd / (2 * sg), e * sg / dd
            return normal_cdf(x - y) - iv.exp(e) * normal_cdf(-x - y)

        prec = 64
        while True:
            lo, hi = interval_to_fractions(enclose(fn, prec=prec))
            lo = max(lo, Fraction(0))
            if hi - lo <= hi / 2**60 or prec >= 1024:
                return lo, min(hi, Fraction(1))
            prec *= 2


def _rational_sqrt(x: Fraction) -> Fraction | None:
    """``sqrt(x)`` when it is rational, else ``None``."""
    n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
    return Fraction(n, d) if n * n == x.numerator and d * d == x.denominator else None
