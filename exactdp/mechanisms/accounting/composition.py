"""Composition of privacy guarantees: exact where the theorem is rational, enclosed and
rounded up where it is not.

- :func:`compose_sequential`: basic composition, ``(sum of epsilons, sum of deltas)``,
  exact rationals.
- :func:`compose_optimal` and :func:`optimal_delta`: the optimal composition theorem
  (Kairouz, Oh, Viswanath 2015; Murtagh & Vadhan 2016) at ``epsilon = sum of epsilons``:
  ``delta = 1 - prod(1 - delta_i)``, exact rationals, never more than the sum of deltas.
  It is also the exact optimal delta at every larger epsilon (see :func:`optimal_delta`).
  :func:`optimal_delta_of_copies` is the same for counted spends (``K`` copies each), exact
  while the numbers stay of reasonable size and enclosed in an interval beyond.
- :func:`optimal_composition` (and :func:`optimal_composition_of_copies` for counted
  spends): the tight composition at every total epsilon, also below the sum (KOV for
  identical spends, Murtagh & Vadhan for different ones: ``delta(E) = 1 - S + S H(E)``),
  terms chosen exactly and exponentials enclosed; :func:`compose_optimal_exact` encloses the
  delta at an epsilon, :func:`optimal_epsilon` the smallest epsilon at a delta. The work,
  the combinations of copies of the distinct epsilons (at most ``prod(K_j + 1)``), is
  counted before any is done.
- :func:`compose_zcdp`: zCDP composes by adding ``rho`` (Bun & Steinke 2016), exact.
- :func:`advanced_composition`: the k-fold theorem of Dwork, Rothblum and Vadhan (FOCS
  2010; Dwork & Roth 2014, Thm 3.20): ``k`` mechanisms, each ``(epsilon, delta)``-DP,
  compose to ``(sqrt(2k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1), k delta +
  delta')``-DP for every ``delta' > 0``. The total epsilon is irrational; it is returned
  as an exact SymPy expression, an interval enclosure and a float never below it.

>>> compose_sequential([("0.1", "1e-6"), ("0.9", 0)])
(Fraction(1, 1), Fraction(1, 1000000))
>>> compose_optimal([("0.5", "0.1"), ("0.5", "0.1")])
(Fraction(1, 1), Fraction(19, 100))
>>> compose_zcdp(["1/8", "3/8"])
Fraction(1, 2)
>>> advanced_composition("0.1", 0, 100, "1e-6").epsilon_float
6.308230950513408
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import gcd

from exactdp.errors import InvalidArgument, TooLarge, Undecided
from exactdp.mechanisms._params import nonnegative, probability, shown
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.intervals import (
    decide,
    enclose,
    exact_interval,
    exp,
    float_at_least_of,
    interval_to_fractions,
    log1p,
)
from exactdp.numeric.rounding import float_at_least

_PREC = 64
_FLOAT_MAX = Fraction((2**53 - 1) * 2**971)
"""Working precision (bits) of the enclosure stored in a result; comparisons and safe
floats refine it as far as they need."""

__all__ = ["AdvancedComposition", "MAX_OPTIMAL_TERMS", "OPTIMAL_EXACT_RULE", "OPTIMAL_RULE",
           "OptimalComposition", "OptimalDelta", "advanced_composition", "compose_optimal",
           "compose_optimal_exact", "compose_sequential", "compose_zcdp", "optimal_composition",
           "optimal_composition_of_copies",
           "optimal_delta", "optimal_delta_of_copies", "optimal_epsilon"]

OPTIMAL_RULE = "optimal composition at epsilon = sum (delta = 1 - prod(1 - delta_i), exact)"
"""How :func:`compose_optimal` composes, as ``exactdp compose`` and the ledger say it."""

MAX_EXACT_BITS = 200_000
"""Largest size (bits of numerators and denominators, counted with their copies) of the
exact product ``prod (1 - delta_i)^K_i`` that :func:`optimal_delta_of_copies` computes; a
larger one is enclosed in an interval instead."""


def _pairs(spends: Iterable) -> list[tuple[Fraction, Fraction]]:
    """``(epsilon, delta)`` of each item (a pair, or a bare epsilon with delta 0), checked."""
    out = []
    for i, item in enumerate(spends):
        if isinstance(item, (tuple, list)):
            if len(item) != 2:
                raise InvalidArgument(
                    f"spends[{i}]={shown(item)} is not an (epsilon, delta) pair; give a pair or a bare epsilon"
                )
            eps, delta = item
        else:
            eps, delta = item, 0
        out.append((nonnegative(eps, f"spends[{i}] epsilon"), probability(delta, f"spends[{i}] delta")))
    return out


def compose_sequential(spends: Iterable) -> tuple[Fraction, Fraction]:
    """Basic sequential composition: the exact ``(sum of epsilon, sum of delta)``.

    Each item is an ``epsilon`` (pure DP) or a pair ``(epsilon, delta)``, in any exact
    form (ints, Fractions, Decimals, strings such as ``"1e-6"``); floats are refused.
    Each ``delta`` is a probability in ``[0, 1]``; the total may exceed 1 (a vacuous
    guarantee, which fits no budget).

    >>> compose_sequential(["0.1", "0.9"])
    (Fraction(1, 1), Fraction(0, 1))
    """
    pairs = _pairs(spends)
    return sum((e for e, _ in pairs), Fraction(0)), sum((d for _, d in pairs), Fraction(0))


def optimal_delta(deltas: Iterable) -> Fraction:
    """``1 - prod(1 - delta_i)``, exactly: the delta of the composition at ``epsilon = sum of
    epsilon_i`` by the optimal composition theorem.

    **The theorem** (Kairouz, Oh, Viswanath 2015, Thm 3.3; heterogeneous form: Murtagh &
    Vadhan 2016, Thm 1.5): mechanisms that are ``(epsilon_i, delta_i)``-DP compose to an
    ``(epsilon_g, delta_g)``-DP mechanism, for every such list of mechanisms, iff::

        1/prod(1 + e^epsilon_i) * sum over S of max(e^(sum_{i in S} epsilon_i)
            - e^epsilon_g * e^(sum_{i not in S} epsilon_i), 0)  <=  1 - (1 - delta_g)/prod(1 - delta_i)

    For ``epsilon_g >= sum of epsilon_i`` every term of the sum is 0, so the condition is
    ``delta_g >= 1 - prod(1 - delta_i)``: this delta is exact (the smallest valid for every
    list of mechanisms with these guarantees; a mechanism-specific accountant, such as
    ``exactdp account``, may certify less for particular mechanisms), at ``epsilon_g = sum``
    and at every larger ``epsilon_g``. It never exceeds the sum of the deltas (basic
    composition). Below the sum of epsilons the heterogeneous theorem is #P-hard to
    evaluate in general (Murtagh & Vadhan); use :func:`advanced_composition` there.

    Each ``delta_i`` is a probability in ``[0, 1]``, in any exact form; floats are refused.

    >>> optimal_delta(["0.1", "0.1"])
    Fraction(19, 100)
    >>> optimal_delta([])
    Fraction(0, 1)
    """
    survival = Fraction(1)
    for i, d in enumerate(deltas):
        survival *= 1 - probability(d, f"deltas[{i}]")
    return 1 - survival


def compose_optimal(spends: Iterable) -> tuple[Fraction, Fraction]:
    """The optimal composition at ``epsilon = sum of epsilon_i``: the exact
    ``(sum of epsilon_i, 1 - prod(1 - delta_i))`` (see :func:`optimal_delta`, which also
    explains why the same delta is exact at every larger epsilon).

    Items as for :func:`compose_sequential`. The pair fits a budget ``(epsilon, delta)``
    exactly when ``sum <= epsilon`` and ``1 - prod(1 - delta_i) <= delta``; a budget
    epsilon below the sum needs another rule (:func:`advanced_composition`).

    >>> compose_optimal([("0.5", "0.1"), ("0.5", "0.1")])
    (Fraction(1, 1), Fraction(19, 100))
    >>> compose_optimal(["0.1", ("0.9", "1e-6")])
    (Fraction(1, 1), Fraction(1, 1000000))
    """
    pairs = _pairs(spends)
    return sum((e for e, _ in pairs), Fraction(0)), optimal_delta(d for _, d in pairs)


@dataclass(frozen=True)
class OptimalDelta:
    """``1 - prod(1 - delta_i)^K_i`` for counted spends (``K_i`` copies of ``delta_i``).

    ``exact`` is the exact Fraction, or ``None`` when it would have more than
    :data:`MAX_EXACT_BITS` bits (then ``interval`` encloses it and comparisons refine it).
    ``interval`` is ``(lo, hi)`` exact Fractions (``lo == hi == exact`` when exact).
    """

    exact: Fraction | None
    interval: tuple[Fraction, Fraction]
    terms: tuple[tuple[Fraction, int], ...]

    def enclosure(self):
        """``fn(iv)`` enclosing the value, for :mod:`exactdp.numeric.intervals`."""
        terms = self.terms

        def fn(iv):
            total = iv.mpf(0)
            for d, k in terms:
                total += k * log1p(-exact_interval(d))
            return 1 - exp(total)

        return fn

    def at_most(self, bound: Fraction) -> bool:
        """Whether the value is ``<= bound`` (exact; intervals refined when not exact;
        :class:`~exactdp.errors.Undecided` if they never settle)."""
        if self.exact is not None:
            return self.exact <= bound
        return decide(self.enclosure(), "<=", bound)

    def float_at_least(self) -> float:
        """The smallest float ``>=`` the value."""
        if self.exact is not None:
            return float_at_least(self.exact)
        return float_at_least_of(self.enclosure())


def optimal_delta_of_copies(terms: Iterable[tuple]) -> OptimalDelta:
    """``1 - prod(1 - delta_i)^K_i`` for ``terms`` of ``(delta_i, K_i)`` (``K_i`` copies of a
    spend of ``delta_i``), exact while the product has at most :data:`MAX_EXACT_BITS` bits,
    an interval enclosure beyond (a million copies of ``1e-6`` are enclosed, not expanded).

    >>> r = optimal_delta_of_copies([("0.1", 2)])
    >>> r.exact, r.at_most(Fraction(19, 100)), r.at_most(Fraction(189, 1000))
    (Fraction(19, 100), True, False)
    """
    clean: list[tuple[Fraction, int]] = []
    for i, (d, k) in enumerate(terms):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidArgument(f"terms[{i}] count={shown(k)} is not a positive int; pass how many copies")
        d = probability(d, f"terms[{i}] delta")
        if d == 1:
            return OptimalDelta(Fraction(1), (Fraction(1), Fraction(1)), ((Fraction(1), 1),))
        if d:
            clean.append((d, k))
    bits = sum(k * (d.denominator.bit_length() + (d.denominator - d.numerator).bit_length()) for d, k in clean)
    if bits <= MAX_EXACT_BITS:
        num, den = 1, 1
        for d, k in clean:
            num *= (d.denominator - d.numerator) ** k
            den *= d.denominator ** k
        value = 1 - Fraction(num, den)
        return OptimalDelta(value, (value, value), tuple(clean))
    result = OptimalDelta(None, (Fraction(0), Fraction(1)), tuple(clean))
    lo, hi = interval_to_fractions(enclose(result.enclosure(), prec=_PREC))
    return OptimalDelta(None, (max(lo, Fraction(0)), min(hi, Fraction(1))), tuple(clean))


def compose_zcdp(rhos: Iterable) -> Fraction:
    """zCDP composition: the exact sum of the ``rho`` values (Bun & Steinke 2016, Lemma 2.3).

    >>> compose_zcdp([Fraction(1, 2), "0.25"])
    Fraction(3, 4)
    """
    return sum((nonnegative(rho, f"rhos[{i}]") for i, rho in enumerate(rhos)), Fraction(0))


# --- advanced composition ------------------------------------------------------


@dataclass(frozen=True)
class AdvancedComposition:
    """The k-fold advanced-composition guarantee ``(epsilon, delta)``.

    ``delta = k*delta_each + delta_prime`` is exact. ``epsilon`` is irrational:
    ``epsilon_expr`` is its exact SymPy expression, ``epsilon_interval`` an
    ``mpmath.iv`` enclosure and ``epsilon_float`` the smallest float ``>=`` it.
    """

    k: int
    epsilon_each: Fraction
    delta_each: Fraction
    delta_prime: Fraction
    delta: Fraction
    epsilon_interval: object
    epsilon_float: float

    @property
    def enclosure(self):
        """``fn(iv)`` enclosing the total epsilon, for the functions of
        :mod:`exactdp.numeric.intervals` (``decide``, ``float_at_most_of``, ...)."""
        return _advanced_epsilon_enclosure(self.k, self.epsilon_each, self.delta_prime)

    @property
    def epsilon_expr(self):
        """The exact total epsilon as a SymPy expression."""
        return _advanced_epsilon_sympy(self.k, self.epsilon_each, self.delta_prime)

    def epsilon_at_most(self, bound) -> bool:
        """Whether the exact total epsilon is ``<= bound`` (an exact number).

        Decided by enclosures refined until they settle; raises
        :class:`~exactdp.errors.Undecided` if they never do.
        """
        return decide(self.enclosure, "<=", to_exact(bound, "bound"))

    def fits(self, epsilon, delta) -> bool:
        """Whether the composed guarantee fits in the budget ``(epsilon, delta)``."""
        return self.delta <= probability(delta, "delta") and self.epsilon_at_most(epsilon)

    def to_dict(self) -> dict:
        lo, hi = interval_to_fractions(self.epsilon_interval)
        return {
            "method": "advanced",
            "k": self.k,
            "epsilon_each": format_exact(self.epsilon_each),
            "delta_each": format_exact(self.delta_each),
            "delta_prime": format_exact(self.delta_prime),
            "epsilon": {"exact": str(self.epsilon_expr), "interval": [format_exact(lo), format_exact(hi)],
                        "float_at_least": self.epsilon_float},
            "delta": {"exact": format_exact(self.delta), "float_at_least": float_at_least(self.delta)},
        }


def advanced_composition(epsilon, delta, k: int, delta_prime) -> AdvancedComposition:
    """Advanced composition (Dwork, Rothblum, Vadhan 2010) of ``k`` mechanisms, each
    ``(epsilon, delta)``-DP, for the slack ``delta_prime`` in ``(0, 1)``.

    The result is ``(sqrt(2k ln(1/delta_prime))*epsilon + k*epsilon*(e^epsilon - 1),
    k*delta + delta_prime)``; epsilon is enclosed and rounded up (``epsilon_float``).
    For mechanisms with different parameters, compose their maxima (each is then
    ``(max epsilon, max delta)``-DP). Basic composition (:func:`compose_sequential`) is
    smaller when ``k`` is small; both are valid.

    ``delta`` must be a probability, but the total ``k*delta + delta_prime`` may exceed 1,
    as a sum of :func:`compose_sequential` may: the guarantee is then vacuous, and
    :meth:`AdvancedComposition.fits` is ``False`` for every budget (an overspend, not an
    error).

    >>> r = advanced_composition("0.1", "1e-7", 100, "1e-6")
    >>> r.delta
    Fraction(11, 1000000)
    >>> r.epsilon_at_most("6.30823095052"), r.epsilon_at_most("6.30823095051")
    (True, False)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={shown(k)} is not a positive int; pass how many mechanisms are composed")
    eps = nonnegative(epsilon, "epsilon")
    dlt = probability(delta, "delta")
    dp = to_exact(delta_prime, "delta_prime")
    if not 0 < dp < 1:
        raise InvalidArgument(
            f"delta_prime={shown(delta_prime)} is not in (0, 1); advanced composition needs a slack "
            f"0 < delta_prime < 1, such as '1e-6'"
        )
    fn = _advanced_epsilon_enclosure(k, eps, dp)
    interval = enclose(fn, prec=_PREC)
    if interval_to_fractions(interval)[1] > _FLOAT_MAX:
        raise InvalidArgument(
            f"epsilon={shown(epsilon)} composed {k} times gives an epsilon beyond the largest float "
            f"(e^epsilon is too large): no meaningful guarantee; basic composition gives "
            f"{shown(k * eps)}"
        )
    return AdvancedComposition(k, eps, dlt, dp, k * dlt + dp, interval, float_at_least_of(fn))


def _advanced_epsilon_sympy(k: int, eps: Fraction, dp: Fraction):
    import sympy

    e = sympy.Rational(eps.numerator, eps.denominator)
    inv = sympy.Rational(dp.denominator, dp.numerator)
    return sympy.sqrt(2 * k * sympy.log(inv)) * e + k * e * (sympy.exp(e) - 1)


def _advanced_epsilon_enclosure(k: int, eps: Fraction, dp: Fraction):
    """``fn(iv)`` for :mod:`exactdp.numeric.intervals`: encloses the total epsilon."""

    def fn(iv):
        e = exact_interval(eps)
        return iv.sqrt(2 * k * iv.log(exact_interval(1 / dp))) * e + k * e * (iv.exp(e) - 1)

    return fn


# --- optimal composition below the sum of the epsilons ---------------------------

OPTIMAL_EXACT_RULE = ("optimal composition (Kairouz-Oh-Viswanath 2015; Murtagh-Vadhan 2016 for different "
                      "spends): delta(E) = 1 - prod(1 - delta_i) + prod(1 - delta_i) * H_E, H_E the "
                      "hockey-stick divergence at E of the composed randomized responses with the epsilon_i")
"""How :func:`compose_optimal_exact` composes, as ``exactdp compose --method optimal`` says it."""

MAX_OPTIMAL_TERMS = 200_000
"""Default budget of :func:`compose_optimal_exact`: the number of combinations
visited over the distinct epsilons (``K_j`` copies of each; at most ``prod (K_j + 1)``)."""


@dataclass(frozen=True)
class OptimalComposition:
    """The tight composition of ``(epsilon_i, delta_i)`` spends, as a function of the total
    epsilon ``E``: ``delta(E) = 1 - S + S * H(E)``, ``S = prod(1 - delta_i)``, and
    ``H(E) = Z^-1 * sum over l with v(l) > E of w(l) e^A(l) (1 - e^(E - v(l)))``, where the
    distinct epsilons ``eps_j`` (``K_j`` copies each) give, for each ``l`` (``0 <= l_j <= K_j``
    copies answering "the other way"), ``w = prod C(K_j, l_j)``, ``A = sum (K_j - l_j) eps_j``,
    ``v = sum (K_j - 2 l_j) eps_j`` and ``Z = prod (1 + e^eps_j)^K_j``.

    Which terms count (``v(l) > E``) is decided exactly (rationals); the exponentials are
    enclosed in intervals (``mpmath.iv``), refined until a comparison is decided.
    """

    groups: tuple[tuple[Fraction, int], ...]
    survival: OptimalDelta
    terms: int

    @cached_property
    def _combos(self):
        """``(v, w, A)`` of every distinct ``v``, exact, ``v`` decreasing (computed once).
        Combinations with the same ``v`` have the same ``A = (sum K_j eps_j + v)/2``, so
        they are one term with the sum of their weights."""
        weights = {Fraction(0): 1}
        for eps, k in self.groups:
            row = [1] * (k + 1)  # the binomials C(k, j), by the recurrence
            for j in range(k):
                row[j + 1] = row[j] * (k - j) // (j + 1)
            nxt: dict[Fraction, int] = {}
            for v, w in weights.items():
                for j in range(k + 1):
                    key = v + (k - 2 * j) * eps
                    nxt[key] = nxt.get(key, 0) + w * row[j]
            weights = nxt
        total = sum((k * e for e, k in self.groups), Fraction(0))
        return sorted(((v, w, (total + v) / 2) for v, w in weights.items()), key=lambda t: t[0], reverse=True)

    def delta_enclosure(self, epsilon):
        """``fn(iv)`` enclosing ``delta(epsilon)``, for :mod:`exactdp.numeric.intervals`."""
        big_e = nonnegative(epsilon, "epsilon")
        active = [c for c in self._combos if c[0] > big_e]
        spent = self.survival

        def fn(iv):
            one_minus_s = _survival_complement(spent, iv)
            s = 1 - one_minus_s
            if not active:
                h = iv.mpf(0)
            else:
                log_z = _log_z(self.groups, iv)
                e = exact_interval(big_e)
                h = iv.mpf(0)
                for v, w, a in active:
                    h += iv.mpf(w) * iv.exp(exact_interval(a) - log_z) * (1 - iv.exp(e - exact_interval(v)))
                h = _clamp(iv, h, 0, 1)
            return _clamp(iv, one_minus_s + s * h, 0, 1)

        return fn

    def exact_delta(self, epsilon) -> Fraction | None:
        """``delta(epsilon)`` exactly when it is rational: at an ``epsilon`` at least the sum of
        the epsilons (every term vanishes, ``delta = 1 - S``) with ``S`` exact, or when some
        ``delta_i`` is 1; ``None`` otherwise."""
        big_e = nonnegative(epsilon, "epsilon")
        if self.survival.exact == 1:
            return Fraction(1)
        top = sum((k * e for e, k in self.groups), Fraction(0))
        if big_e >= top and self.survival.exact is not None:
            return self.survival.exact
        return None

    def delta_at(self, epsilon, *, prec: int = _PREC) -> tuple[Fraction, Fraction]:
        """An enclosure ``(lo, hi)`` (exact Fractions) of ``delta(epsilon)`` at ``prec`` bits
        (``lo == hi`` when it is rational, :meth:`exact_delta`)."""
        exact = self.exact_delta(epsilon)
        if exact is not None:
            return exact, exact
        return interval_to_fractions(enclose(self.delta_enclosure(epsilon), prec=prec))

    def delta_at_most(self, epsilon, delta) -> bool:
        """Whether ``delta(epsilon) <= delta``; :class:`~exactdp.errors.Undecided` if the
        enclosures never settle."""
        bound = probability(delta, "delta")
        exact = self.exact_delta(epsilon)
        if exact is not None:
            return exact <= bound
        return decide(self.delta_enclosure(epsilon), "<=", bound)

    def delta_float_at_least(self, epsilon) -> float:
        """The smallest float ``>= delta(epsilon)``."""
        return float_at_least_of(self.delta_enclosure(epsilon))

    def epsilon_at(self, delta, *, rel_width: Fraction = Fraction(1, 10**12),
                   max_prec: int = 3392) -> tuple[Fraction, Fraction] | None:
        """A certified enclosure ``(lo, hi)`` of the smallest total epsilon ``E >= 0`` with
        ``delta(E) <= delta``; ``None`` when no epsilon reaches it (``delta < 1 - S``).
        Refined until the width is at most ``rel_width`` times ``hi`` (or exact);
        :class:`~exactdp.errors.Undecided` past ``max_prec`` bits."""
        target = probability(delta, "delta")
        floor = self.survival
        if floor.exact is not None:
            if floor.exact > target:
                return None
        elif not floor.at_most(target):
            return None
        if floor.exact == 1:
            return (Fraction(0), Fraction(0))
        combos = self._combos
        top = combos[0][0]  # the sum of the epsilons: delta(top) = 1 - S
        if floor.exact is not None and floor.exact == target:
            return (top, top)
        breaks = sorted({c[0] for c in combos if c[0] > 0} | {Fraction(0)}, reverse=True)
        prec = 53
        while prec <= max_prec:
            found = self._epsilon_at_prec(combos, breaks, target, prec)
            if found is not None:
                lo, hi = found
                if lo == hi or hi - lo <= rel_width * hi:
                    return found
            prec *= 2
        raise Undecided(f"the smallest epsilon at delta={shown(target)} was not enclosed to a relative width "
                        f"{shown(rel_width)} within {max_prec} bits; ask for a wider rel_width")

    def _epsilon_at_prec(self, combos, breaks, target, prec):
        """One pass at ``prec`` bits: ``(lo, hi)`` or ``None`` when a breakpoint is undecided."""
        box: list = []

        def fn(iv):
            box.append(self._epsilon_pass(iv, combos, breaks, target))
            return iv.mpf(0)

        enclose(fn, prec=prec)
        return box[0]

    def _epsilon_pass(self, iv, combos, breaks, target):
        if True:
            one_minus_s = _survival_complement(self.survival, iv)
            s = 1 - one_minus_s
            need = (exact_interval(target) - one_minus_s) / s  # H(E*) = need
            log_z = _log_z(self.groups, iv)
            a_sum, b_sum = iv.mpf(0), iv.mpf(0)  # H(E) = a_sum - e^E b_sum on the segment
            i, prev = 0, breaks[0]
            for b in breaks[1:]:
                while i < len(combos) and combos[i][0] >= prev:
                    v, w, a = combos[i]
                    t = iv.mpf(w) * iv.exp(exact_interval(a) - log_z)
                    a_sum += t
                    b_sum += t * iv.exp(-exact_interval(v))
                    i += 1
                h_b = a_sum - iv.exp(exact_interval(b)) * b_sum
                if h_b.b <= need.a:
                    prev = b
                    continue
                if h_b.a <= need.b:
                    return None  # undecided at this breakpoint: more precision
                x = a_sum - need
                if x.a <= 0:
                    return None
                e = iv.log(x) - iv.log(b_sum)
                lo, hi = interval_to_fractions(e)
                return max(lo, b), min(hi, prev)
            return (Fraction(0), Fraction(0))  # delta(0) <= target


def _clamp(iv, x, lo, hi):
    a, b = max(x.a, iv.mpf(lo).a), min(x.b, iv.mpf(hi).b)
    if a > b:  # cannot happen for a true enclosure; keep the safe (wide) side
        return iv.mpf([lo, hi])
    return iv.mpf([a, b])


def _survival_complement(spent: OptimalDelta, iv):
    """``1 - S`` as an interval (exact point when exact)."""
    if spent.exact is not None:
        return exact_interval(spent.exact)
    return spent.enclosure()(iv)


def _log_z(groups, iv):
    total = iv.mpf(0)
    for eps, k in groups:
        total += k * iv.log(1 + iv.exp(exact_interval(eps)))
    return total


def optimal_composition(spends: Iterable, *, max_terms: int = MAX_OPTIMAL_TERMS) -> OptimalComposition:
    """The tight (optimal) composition of ``(epsilon, delta)`` spends as a function of the
    total epsilon (see :class:`OptimalComposition`).

    **The theorem** (Kairouz, Oh, Viswanath 2015, Thm 3.3, for identical spends; Murtagh &
    Vadhan 2016, Thm 1.5, for different ones): every list of ``(epsilon_i, delta_i)``-DP
    mechanisms composes to an ``(E, delta)``-DP mechanism iff ``delta >= 1 - S + S H(E)``,
    with ``S = prod(1 - delta_i)`` and ``H(E)`` the hockey-stick divergence at ``E`` of the
    product of the randomized responses with ``epsilon_i`` (the canonical pair of each
    spend). Spends with equal epsilons are grouped (``K_j`` copies), so the work is the
    number of combinations visited (at most ``prod (K_j + 1)``, fewer when the epsilons share a
    unit: totals that coincide are merged); it is counted before any work and refused
    (:class:`~exactdp.errors.TooLarge`) above ``max_terms``.

    >>> c = optimal_composition([("0.1", 0)] * 10)
    >>> c.terms, c.delta_at_most("0.8", "1e-3"), c.delta_at_most("0.6", "1e-3")
    (11, True, False)
    """
    pairs = _pairs(spends)
    return optimal_composition_of_copies([(e, d, 1) for e, d in pairs], max_terms=max_terms)


def optimal_composition_of_copies(terms: Iterable[tuple], *,
                                  max_terms: int = MAX_OPTIMAL_TERMS) -> OptimalComposition:
    """:func:`optimal_composition` of ``(epsilon, delta, K)`` items (``K`` copies of each
    spend, never expanded: a million copies of one spend are a million and one terms).

    >>> optimal_composition_of_copies([("0.1", 0, 10)]).delta_at_most("0.8", "1e-3")
    True
    """
    counts: dict[Fraction, int] = {}
    deltas: dict[Fraction, int] = {}
    for i, item in enumerate(terms):
        if not isinstance(item, (tuple, list)) or len(item) != 3:
            raise InvalidArgument(f"terms[{i}]={shown(item)} is not an (epsilon, delta, copies) triple; "
                                  f"give e.g. ('0.1', '1e-6', 10)")
        e, d, k = item
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidArgument(f"terms[{i}] count={shown(k)} is not a positive int; pass how many copies")
        e, d = nonnegative(e, f"terms[{i}] epsilon"), probability(d, f"terms[{i}] delta")
        counts[e] = counts.get(e, 0) + k
        deltas[d] = deltas.get(d, 0) + k
    if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1:
        raise InvalidArgument(f"max_terms={shown(max_terms)} is not a positive int; pass a budget such as "
                              f"{MAX_OPTIMAL_TERMS}")
    groups = tuple(sorted((e, k) for e, k in counts.items() if e > 0))
    steps = _steps(groups)
    if steps > max_terms:
        raise TooLarge(
            f"the optimal composition of these spends enumerates {steps:,} combinations (copies of "
            f"{len(groups)} distinct epsilons, equal totals merged), over the budget max_terms="
            f"{max_terms:,}; raise it (--max-terms {steps}) or round the epsilons up to fewer "
            f"distinct values", estimate=steps, budget=max_terms)
    survival = optimal_delta_of_copies([(d, k) for d, k in deltas.items()])
    terms = steps
    return OptimalComposition(groups, survival, terms)


def _steps(groups) -> int:
    """The combinations the enumeration of :attr:`OptimalComposition._combos` visits, bounded
    before any work: group ``j`` visits ``(K_j + 1)`` times the distinct totals so far, which
    are at most ``prod (K_i + 1)`` and at most ``span + 1`` (every total is the sum of the
    epsilons less twice a multiple of their gcd ``g``; ``span`` is that sum over ``g``)."""
    if not groups:
        return 1
    lcm = 1
    for e, _ in groups:
        lcm = lcm * e.denominator // gcd(lcm, e.denominator)
    g = 0
    for e, _ in groups:
        g = gcd(g, e.numerator * (lcm // e.denominator))
    size, steps, span = 1, 0, 0
    for e, k in groups:
        steps += size * (k + 1)
        span += k * (e.numerator * (lcm // e.denominator) // g)
        size = min(size * (k + 1), span + 1)
    return steps


def compose_optimal_exact(spends: Iterable, epsilon, *, max_terms: int = MAX_OPTIMAL_TERMS,
                          prec: int = _PREC) -> tuple[Fraction, Fraction]:
    """A certified enclosure ``(lo, hi)`` (exact Fractions) of the tight delta of the
    composition of ``spends`` at the total ``epsilon`` (:func:`optimal_composition`).

    >>> lo, hi = compose_optimal_exact([("0.1", 0)] * 10, "0.8")
    >>> float(lo), float(hi), hi - lo < Fraction(1, 10**20)
    (0.00028823385761864796, 0.00028823385761864796, True)
    """
    return optimal_composition(spends, max_terms=max_terms).delta_at(epsilon, prec=prec)


def optimal_epsilon(spends: Iterable, delta, *, max_terms: int = MAX_OPTIMAL_TERMS,
                    rel_width: Fraction = Fraction(1, 10**12)) -> tuple[Fraction, Fraction] | None:
    """A certified enclosure ``(lo, hi)`` of the smallest total epsilon at which the spends
    compose to ``delta`` (tight), or ``None`` when ``delta < 1 - prod(1 - delta_i)``.

    >>> lo, hi = optimal_epsilon([("0.1", 0)] * 10, "1e-3")
    >>> 0.6 < float(lo) <= float(hi) < 0.8
    True
    """
    return optimal_composition(spends, max_terms=max_terms).epsilon_at(delta, rel_width=rel_width)
