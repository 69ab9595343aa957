"""Exponential polynomials ``sum_i c_i exp(q_i)`` with rational ``c_i`` and ``q_i``, signed exactly.

The probabilities of the exponential mechanism (``exp(c u_o) / sum_j exp(c u_j)``), of
permute-and-flip, of randomized response given ``epsilon`` and of the discrete Laplace
variants (``q = exp(-1/t)``) are all ratios of such sums once ``epsilon`` and the
utilities are rational. Comparing two of them (``P(o)/Q(o)`` against ``e^epsilon``, one
output's ratio against another's) is the sign of one exponential polynomial after
cross-multiplying positive denominators.

**Why the sign is decidable.** By the Lindemann-Weierstrass theorem, ``exp(q_1), ...,
exp(q_n)`` for distinct algebraic ``q_i`` are linearly independent over the algebraic
numbers. So after collecting equal exponents, ``sum c_i exp(q_i)`` is zero exactly when
every collected ``c_i`` is zero (decided by rational arithmetic), and otherwise it is
nonzero, and interval arithmetic at rising precision eventually separates it from 0.
A precision cap turns the (astronomically unlikely) case of a nonzero value below
``2**-max_prec`` relative size into :class:`~exactdp.errors.Undecided`, never a guess.

>>> a = ExpPoly.monomial(1) - ExpPoly.constant(2)   # e - 2
>>> a.sign()
1
>>> (ExpPoly.monomial("1/2") * ExpPoly.monomial("1/2") - ExpPoly.monomial(1)).sign()
0
>>> a.to_sympy()
-2 + E
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import sympy

from exactdp.errors import Undecided
from exactdp.numeric.exact import to_exact
from exactdp.numeric.intervals import enclose, exact_interval
from exactdp.errors import InvalidArgument

__all__ = ["ExpPoly"]

MAX_PREC = 8192
"""Bits at which a nonzero exponential polynomial not yet separated from 0 is Undecided."""


class ExpPoly:
    """``sum_q coef[q] * exp(q)``: a mapping from rational exponents to nonzero rational
    coefficients (immutable)."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Fraction, Fraction] | None = None):
        self.terms = {Fraction(q): Fraction(c) for q, c in (terms or {}).items() if c != 0}

    @classmethod
    def constant(cls, c) -> ExpPoly:
        return cls({Fraction(0): to_exact(c, "c")})

    @classmethod
    def monomial(cls, q, c=1) -> ExpPoly:
        """``c * exp(q)``."""
        return cls({to_exact(q, "q"): to_exact(c, "c")})

    # -- arithmetic ----------------------------------------------------------------
    def __add__(self, other: ExpPoly) -> ExpPoly:
        out = dict(self.terms)
        for q, c in other.terms.items():
            out[q] = out.get(q, Fraction(0)) + c
        return ExpPoly(out)

    def __neg__(self) -> ExpPoly:
        return ExpPoly({q: -c for q, c in self.terms.items()})

    def __sub__(self, other: ExpPoly) -> ExpPoly:
        return self + (-other)

    def __mul__(self, other: ExpPoly) -> ExpPoly:
        out: dict[Fraction, Fraction] = {}
        for q1, c1 in self.terms.items():
            for q2, c2 in other.terms.items():
                out[q1 + q2] = out.get(q1 + q2, Fraction(0)) + c1 * c2
        return ExpPoly(out)

    def scaled(self, c) -> ExpPoly:
        """``c * self`` for a rational ``c``."""
        c = Fraction(c)
        return ExpPoly({q: c * v for q, v in self.terms.items()})

    def shifted(self, q) -> ExpPoly:
        """``exp(q) * self``."""
        q = Fraction(q)
        return ExpPoly({e + q: v for e, v in self.terms.items()})

    def is_zero(self) -> bool:
        return not self.terms

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpPoly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        return f"ExpPoly({self.to_sympy()})"

    # -- exact answers ---------------------------------------------------------------
    def sign(self, max_prec: int = MAX_PREC) -> int:
        """-1, 0 or 1, exactly (zero by the coefficients, else certified by intervals)."""
        if not self.terms:
            return 0
        if all(q == 0 for q in self.terms):
            c = self.terms[Fraction(0)]
            return (c > 0) - (c < 0)
        if all(c > 0 for c in self.terms.values()):
            return 1
        if all(c < 0 for c in self.terms.values()):
            return -1
        prec = 64
        while True:
            x = enclose(self._interval, prec=prec)
            if x.a > 0:
                return 1
            if x.b < 0:
                return -1
            if prec >= max_prec:
                raise Undecided(
                    f"cannot separate {self.to_sympy()} from 0 at {max_prec} bits; it is not 0 "
                    f"(Lindemann-Weierstrass), but closer to 0 than that"
                )
            prec *= 2

    def _interval(self, iv):
        total = iv.mpf(0)
        for q, c in self.terms.items():
            term = exact_interval(c)
            if q != 0:
                term = term * iv.exp(exact_interval(q))
            total += term
        return total

    def to_sympy(self) -> sympy.Expr:
        return sympy.Add(*[sympy.Rational(c.numerator, c.denominator)
                           * sympy.exp(sympy.Rational(q.numerator, q.denominator))
                           for q, c in sorted(self.terms.items())])

    def as_fraction(self) -> Fraction | None:
        """The value when it is rational (only exponent 0), else ``None``."""
        if not self.terms:
            return Fraction(0)
        if set(self.terms) == {Fraction(0)}:
            return self.terms[Fraction(0)]
        return None


def compare_ratios(n1: ExpPoly, d1: ExpPoly, n2: ExpPoly, d2: ExpPoly) -> int:
    """Sign of ``n1/d1 - n2/d2`` for positive denominators."""
    if d1 == d2:
        return (n1 - n2).sign()
    return (n1 * d2 - n2 * d1).sign()


def ratio_value(n: ExpPoly, d: ExpPoly):
    """``n/d`` exactly: a Fraction when rational, else a SymPy expression."""
    fn, fd = n.as_fraction(), d.as_fraction()
    if fn is not None and fd is not None:
        return fn / fd
    if len(d.terms) == 1:  # divide the monomial out: keeps exp(a)*exp(-b) in one exp
        (q, c), = d.terms.items()
        n = n.shifted(-q).scaled(1 / c)
        f = n.as_fraction()
        return f if f is not None else n.to_sympy()
    return n.to_sympy() / d.to_sympy()


def _proportional(n: ExpPoly, d: ExpPoly) -> tuple[Fraction, Fraction] | None:
    """``(s, c)`` with ``n = c exp(s) d`` exactly, if there are such rationals."""
    if not n.terms or not d.terms or len(n.terms) != len(d.terms):
        return None
    qn, qd = max(n.terms), max(d.terms)
    s, c = qn - qd, n.terms[qn] / d.terms[qd]
    return (s, c) if d.shifted(s).scaled(c) == n else None


def log_ratio(n: ExpPoly, d: ExpPoly):
    """``log(n/d)`` exactly for ``n, d > 0``: a Fraction when rational (``n`` a
    rational multiple of ``exp(s) d``: ``s + log(c)``), else ``log`` of the ratio with a
    monomial denominator divided out."""
    proportional = _proportional(n, d)
    if proportional is not None:  # n = c exp(s) d: log(n/d) = s + log(c)
        s, c = proportional
        if c == 1:
            return s
        return sympy.Rational(s.numerator, s.denominator) + sympy.log(sympy.Rational(c.numerator, c.denominator))
    if len(n.terms) == 1 and len(d.terms) > 1:
        return -sympy.log(ratio_value(d, n))
    return sympy.log(ratio_value(n, d))


# --- mechanisms whose probabilities are ratios of exponential polynomials -----------

from exactdp.mechanisms.distribution import INFINITY, Distribution, Divergence
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.numeric.decide import to_fraction_if_rational


def exppoly_of_sympy(expr) -> ExpPoly | None:
    """``expr`` as an exponential polynomial with rational coefficients and exponents
    (after expanding), or ``None`` when it is not one."""
    out = ExpPoly()
    for term in sympy.Add.make_args(sympy.expand(expr)):
        coef, q = Fraction(1), Fraction(0)
        for f in sympy.Mul.make_args(term):
            if f.is_Rational:
                coef *= Fraction(int(f.p), int(f.q))
            elif f is sympy.E:
                q += 1
            elif isinstance(f, sympy.exp) and f.args[0].is_Rational:
                q += Fraction(int(f.args[0].p), int(f.args[0].q))
            elif isinstance(f, sympy.Pow) and f.base is sympy.E and f.exp.is_Rational:
                q += Fraction(int(f.exp.p), int(f.exp.q))
            else:
                return None
        out = out + ExpPoly.monomial(q, coef)
    return out


def exp_of_epsilon(epsilon) -> tuple[ExpPoly, ExpPoly] | None:
    """``e^epsilon = N/D`` with exponential polynomials, when it is such a ratio; refuses a
    negative or non-real epsilon."""
    if not isinstance(epsilon, sympy.Basic) or epsilon.is_Rational:
        e = to_exact(epsilon, "epsilon") if not isinstance(epsilon, sympy.Basic) else \
            Fraction(int(epsilon.p), int(epsilon.q))
        if e < 0:
            raise InvalidArgument(f"epsilon={e} is negative; pass epsilon >= 0")
        return ExpPoly.monomial(e), ExpPoly.constant(1)
    if (epsilon.has(sympy.Float) or epsilon.free_symbols or epsilon.is_extended_real is not True
            or epsilon.is_finite is not True):
        raise InvalidArgument(f"epsilon={epsilon} is not a finite exact real number")
    n, d = sympy.fraction(sympy.together(sympy.exp(epsilon)))
    en, ed = exppoly_of_sympy(n), exppoly_of_sympy(d)
    if en is None or ed is None or ed.is_zero():
        return None
    if ed.sign() < 0:
        en, ed = -en, -ed
    if (en - ed).sign() < 0:
        raise InvalidArgument(f"epsilon={epsilon} is negative; pass epsilon >= 0")
    return en, ed


class ExpPolyMechanism(Mechanism):
    """A finite mechanism whose probabilities are ``N(o)/D(o)`` with exponential
    polynomials ``N >= 0`` and ``D > 0`` (:meth:`fractions`). Its pure epsilon and its
    ``delta(epsilon)`` at a rational epsilon are decided exactly, ties included
    (Lindemann-Weierstrass, see the module docstring); an irrational epsilon claim
    (``log(3)``) goes through the generic exact comparison of
    :meth:`Mechanism.delta`."""

    def fractions(self, value) -> dict:
        """``{output: (N, D)}`` on query value ``value`` (outputs of probability 0 may be
        listed with ``N = 0``)."""
        raise NotImplementedError

    def distribution(self, value) -> Distribution:
        probs = {o: ratio_value(n, d) for o, (n, d) in self.fractions(value).items() if not n.is_zero()}
        if all(isinstance(v, Fraction) for v in probs.values()):
            return Distribution(probs, name=self.describe())
        return Distribution(probs, name=self.describe(), _normalised=True)

    def _direction(self, fa: dict, fb: dict):
        best = None  # (n, d, output) of the largest ratio P(o)/Q(o)
        for o, (na, da) in fa.items():
            if na.is_zero():
                continue
            nb, db = fb.get(o, (ExpPoly(), ExpPoly.constant(1)))
            if nb.is_zero():
                return None, o
            n, d = na * db, da * nb
            if best is None or compare_ratios(n, d, best[0], best[1]) > 0:
                best = (n, d, o)
        return best, None

    def epsilon(self, a, b) -> Divergence:
        a, b = self.check_pair(a, b)
        fa, fb = self.fractions(a), self.fractions(b)
        one, witness = self._direction(fa, fb)
        if witness is not None:
            return Divergence(INFINITY, witness)
        two, witness = self._direction(fb, fa)
        if witness is not None:
            return Divergence(INFINITY, witness)
        n, d, o = one if compare_ratios(one[0], one[1], two[0], two[1]) >= 0 else two
        return Divergence(to_fraction_if_rational(log_ratio(n, d)), o)

    def _hockey(self, fa: dict, fb: dict, en: ExpPoly, ed: ExpPoly) -> dict:
        """``{D: N}``: delta = sum N/D, grouped by denominator (one direction), for
        ``e^eps = en/ed``."""
        out: dict[ExpPoly, ExpPoly] = {}
        for o, (na, da) in fa.items():
            if na.is_zero():
                continue
            nb, db = fb.get(o, (ExpPoly(), ExpPoly.constant(1)))
            # P(o) - e^eps Q(o) = (na db ed - en nb da) / (da db ed)
            num = na * db * ed - en * nb * da
            if num.sign() > 0:
                den = da * db * ed
                out[den] = out.get(den, ExpPoly()) + num
        return out

    def delta(self, a, b, epsilon):
        """The tight delta(epsilon), exact; an epsilon whose ``exp`` is a ratio of
        exponential polynomials (a rational, ``log(3)``, a loss this model returned such
        as ``1/2 + log(...)``) is decided exactly, ties included; others go through
        :meth:`Mechanism.delta`."""
        ratio = exp_of_epsilon(epsilon)
        if ratio is None:
            return super().delta(a, b, epsilon)
        en, ed = ratio
        a, b = self.check_pair(a, b)
        fa, fb = self.fractions(a), self.fractions(b)
        h1, h2 = self._hockey(fa, fb, en, ed), self._hockey(fb, fa, en, ed)
        n1, d1 = _sum_ratios(h1)
        n2, d2 = _sum_ratios(h2)
        n, d = (n1, d1) if compare_ratios(n1, d1, n2, d2) >= 0 else (n2, d2)
        v = ratio_value(n, d)
        return v if isinstance(v, Fraction) else to_fraction_if_rational(v)


def _sum_ratios(groups: dict) -> tuple[ExpPoly, ExpPoly]:
    """``sum N/D`` over ``{D: N}`` as one ratio (denominators multiplied)."""
    if len(groups) == 1:
        (d, n), = groups.items()
        return n, d
    num, den = ExpPoly(), ExpPoly.constant(1)
    for d, n in groups.items():
        num, den = num * d + n * den, den * d
    return num, den
