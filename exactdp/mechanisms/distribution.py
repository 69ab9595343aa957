"""Exact output distributions of mechanisms, and the divergences between two of them.

A :class:`Distribution` maps each output of a mechanism to its exact probability: a
``Fraction`` (randomized response with a rational ``p``) or an exact positive SymPy real
(``exp(epsilon*u/2)/Z`` for the exponential mechanism). Nothing is a float estimate.

Divergences between ``P`` (the output on ``x``) and ``Q`` (on ``x'``), each exact:

* :func:`max_log_ratio`: ``max_o log(P(o)/Q(o))``, with the output that attains it;
  infinite when ``P`` puts mass where ``Q`` puts none (that output is the witness). Pure
  ``epsilon`` of a pair is the larger of the two directions (:func:`pure_epsilon`).
* :func:`hockey_stick`: the tight ``delta(epsilon) = sum_o max(0, P(o) - e^epsilon Q(o))``.
  Outputs with ``P(o) = e^epsilon Q(o)`` contribute 0 either way, so ties never need deciding.
* :func:`renyi`: ``1/(alpha-1) log sum_o P(o)^alpha Q(o)^(1-alpha)`` for a rational ``alpha > 1``.
* :func:`total_variation`: ``sum_o max(0, P(o) - Q(o))``.

Values are exact: a ``Fraction`` where the answer is rational, else a SymPy expression
(``log(3)``, ``1/2 - exp(1)/4``) that :func:`exactdp.numeric.decide.compare` decides
against a claim; a claim that is exactly tight (``log(3)`` against ``log(3)``) compares
equal. :func:`shown` gives a certified decimal enclosure for display.

>>> P = Distribution({0: "3/4", 1: "1/4"}); Q = Distribution({0: "1/4", 1: "3/4"})
>>> pure_epsilon(P, Q).value
log(3)
>>> hockey_stick(P, Q, 0)
Fraction(1, 2)
>>> total_variation(P, Q)
Fraction(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Hashable, Iterable, Mapping

import sympy

from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.decide import compare, to_fraction_if_rational, to_sympy
from exactdp.numeric.exact import show_exact, to_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most

__all__ = [
    "Distribution", "Divergence", "max_log_ratio", "pure_epsilon", "hockey_stick", "renyi",
    "total_variation", "shown", "INFINITY",
]

INFINITY = sympy.oo
"""The value of an unbounded divergence (an output one side can produce and the other cannot)."""

MAX_OUTPUTS = 1_000_000
"""Most outputs a finite distribution may have (a budget: each is compared exactly)."""


def _probability(value: object, name: str):
    """An exact probability: a Fraction, or an exact positive real SymPy expression."""
    if isinstance(value, sympy.Basic) and not value.is_Rational:
        if value.has(sympy.Float):
            raise InvalidArgument(f"{name}={value} contains a float; write exact numbers")
        if value.free_symbols:
            raise InvalidArgument(f"{name}={value} has free symbols; bind every parameter first")
        if value.is_extended_real is False or value.is_negative:
            raise InvalidArgument(f"{name}={value} is not a probability (not a real >= 0)")
        return value
    p = to_exact(value, name)
    if not 0 <= p <= 1:
        raise InvalidArgument(f"{name}={show_exact(p)} is not a probability; use a number in [0, 1]")
    return p


class Distribution:
    """An exact probability distribution over a finite set of outputs.

    ``probabilities`` maps outputs (any hashable, e.g. ints, Fractions, candidate names)
    to exact probabilities; outputs of probability 0 are dropped from the support. They
    must sum to exactly 1 when all are rational (checked); :meth:`from_weights` builds a
    distribution normalised by construction, for irrational weights.

    >>> Distribution({"a": "1/3", "b": "2/3"}).p("a")
    Fraction(1, 3)
    """

    __slots__ = ("_p", "name")

    def __init__(self, probabilities: Mapping[Hashable, object], *, name: str = "",
                 _normalised: bool = False):
        if not isinstance(probabilities, Mapping):
            raise InvalidArgument(
                f"probabilities={probabilities!r} is not a mapping; pass {{output: probability}}"
            )
        if len(probabilities) > MAX_OUTPUTS:
            raise InvalidArgument(f"{len(probabilities):,} outputs, more than {MAX_OUTPUTS:,}")
        p = {}
        for o, v in probabilities.items():
            q = _probability(v, f"probability of output {o!r}")
            if q != 0:
                p[o] = q
        if not p:
            raise InvalidArgument("the distribution has no output of positive probability")
        if not _normalised:
            total = sum(p.values(), Fraction(0)) if all(isinstance(v, Fraction) for v in p.values()) else None
            if total is None:
                raise InvalidArgument(
                    "irrational probabilities cannot be checked to sum to 1 here; build the "
                    "distribution with Distribution.from_weights(weights)"
                )
            if total != 1:
                raise InvalidArgument(
                    f"the probabilities sum to {show_exact(total)}, not 1; a distribution's "
                    f"probabilities must sum to exactly 1"
                )
        self._p = p
        self.name = name

    @classmethod
    def from_weights(cls, weights: Mapping[Hashable, object], *, name: str = "") -> "Distribution":
        """``P(o) = w(o) / sum(w)`` for exact non-negative weights (rational or SymPy reals)."""
        if not isinstance(weights, Mapping) or not weights:
            raise InvalidArgument(f"weights={weights!r} is empty or not a mapping; pass {{output: weight}}")
        ws = {}
        for o, w in weights.items():
            if isinstance(w, sympy.Basic) and not w.is_Rational:
                if w.has(sympy.Float) or w.free_symbols or w.is_negative or w.is_extended_real is False:
                    raise InvalidArgument(f"weight of output {o!r}={w} is not an exact real >= 0")
                ws[o] = w
            else:
                q = to_exact(w, f"weight of output {o!r}")
                if q < 0:
                    raise InvalidArgument(f"weight of output {o!r}={show_exact(q)} is negative")
                ws[o] = q
        if all(isinstance(w, Fraction) for w in ws.values()):
            total = sum(ws.values(), Fraction(0))
            if total == 0:
                raise InvalidArgument("every weight is 0; at least one output needs a positive weight")
            return cls({o: w / total for o, w in ws.items()}, name=name)
        total = sympy.Add(*[to_sympy(w) for w in ws.values()])
        return cls({o: to_sympy(w) / total for o, w in ws.items()}, name=name, _normalised=True)

    # -- access ----------------------------------------------------------------------
    @property
    def support(self) -> tuple:
        """The outputs of positive probability (sorted when they can be)."""
        try:
            return tuple(sorted(self._p))
        except TypeError:
            return tuple(self._p)

    @property
    def exact_rational(self) -> bool:
        """Whether every probability is a ``Fraction``."""
        return all(isinstance(v, Fraction) for v in self._p.values())

    def p(self, output: Hashable):
        """The exact probability of ``output`` (0 outside the support)."""
        return self._p.get(output, Fraction(0))

    def items(self) -> Iterable[tuple[Hashable, Any]]:
        return ((o, self._p[o]) for o in self.support)

    def __len__(self) -> int:
        return len(self._p)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Distribution) and self._p == other._p

    def __repr__(self) -> str:
        inner = ", ".join(f"{o!r}: {_text(v)}" for o, v in list(self.items())[:6])
        more = ", ..." if len(self._p) > 6 else ""
        return f"Distribution({{{inner}{more}}})"


def _text(v) -> str:
    return show_exact(v) if isinstance(v, Fraction) else str(v)


@dataclass(frozen=True)
class Divergence:
    """An exact divergence value and the output that attains it (``None`` when the value
    is not attained at one output, e.g. a sum)."""

    value: Any  # Fraction, SymPy expression, or INFINITY
    output: Hashable | None = None

    @property
    def infinite(self) -> bool:
        return self.value is INFINITY or self.value == INFINITY


def _ratio(a, b):
    """``a / b`` exactly (Fractions stay Fractions)."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a / b
    return to_sympy(a) / to_sympy(b)


def _log(r):
    if isinstance(r, Fraction):
        return sympy.log(sympy.Rational(r.numerator, r.denominator))
    return sympy.log(r)


def max_log_ratio(P: Distribution, Q: Distribution) -> Divergence:
    """``max_o log(P(o)/Q(o))`` over the support of ``P``, with the output attaining it;
    infinite (with that output) where ``Q(o) = 0 < P(o)``. Irrational ratios are compared
    exactly (:func:`~exactdp.numeric.decide.compare`); two ratios that cannot be told
    apart raise :class:`~exactdp.errors.Undecided`."""
    _check_pair(P, Q)
    best = best_out = None
    for o, p in P.items():
        q = Q.p(o)
        if q == 0:
            return Divergence(INFINITY, o)
        r = _ratio(p, q)
        if best is None or compare(r, best) > 0:
            best, best_out = r, o
    return Divergence(_log_of_ratio(best), best_out)


_SIMPLIFY_OPS = 120
"""Largest ratio (in SymPy operations) :func:`_log_of_ratio` simplifies; a larger one keeps
the form it has (the value is the same; simplifying it could take minutes)."""


def _log_of_ratio(ratio):
    """``log(ratio)`` exactly, in a tidy form where that is cheap: a rational ``ratio`` as
    ``log(3)`` or ``2*log(3) - log(2)``, ``exp(1/2)`` as ``1/2``. Expanding the logarithm
    is done only for products and powers: SymPy's ``expand_log(force=True)`` on a
    logarithm of a sum such as ``log((E - 3*exp(2))/(E - 3*exp(3/2)))`` (permute-and-flip
    on 3 candidates) ran for minutes."""
    if not isinstance(ratio, Fraction):
        if sympy.count_ops(ratio) <= _SIMPLIFY_OPS:
            ratio = sympy.simplify(ratio)
        ratio = to_fraction_if_rational(ratio)
    if ratio == 1:
        return Fraction(0)
    value = _log(ratio)
    if isinstance(ratio, Fraction) or not ratio.has(sympy.Add):
        value = sympy.expand_log(value, force=True)
    return to_fraction_if_rational(value)


def pure_epsilon(P: Distribution, Q: Distribution) -> Divergence:
    """The pure epsilon of the pair: the larger of ``max_log_ratio`` in both directions."""
    a, b = max_log_ratio(P, Q), max_log_ratio(Q, P)
    if a.infinite:
        return a
    if b.infinite:
        return b
    return a if compare(a.value, b.value) >= 0 else b


def _exp(epsilon):
    if epsilon is INFINITY:
        raise InvalidArgument("epsilon=oo: delta(oo) is 0; pass a finite epsilon")
    e = to_sympy(epsilon)
    if e.is_negative:
        raise InvalidArgument(f"epsilon={e} is negative; pass epsilon >= 0")
    return to_fraction_if_rational(sympy.exp(e))


def hockey_stick(P: Distribution, Q: Distribution, epsilon) -> Any:
    """The tight ``delta(epsilon) = sum_o max(0, P(o) - e^epsilon Q(o))`` (one direction),
    exact. ``epsilon`` is exact (a number, or a SymPy real such as ``log(3)``)."""
    _check_pair(P, Q)
    eps = _epsilon_value(epsilon)
    ee = _exp(eps)
    a = b = Fraction(0)
    for o, p in P.items():
        q = Q.p(o)
        if q == 0:
            a = _add(a, p)
            continue
        c = compare(_ratio(p, q), ee)  # P(o)/Q(o) against e^epsilon
        if c > 0:
            a, b = _add(a, p), _add(b, q)
    if b == 0:
        return a
    value = to_sympy(a) - to_sympy(ee) * to_sympy(b)
    return to_fraction_if_rational(value)


def _add(x, y):
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x + y
    return to_sympy(x) + to_sympy(y)


def renyi(P: Distribution, Q: Distribution, alpha) -> Any:
    """Rényi divergence of rational order ``alpha > 1``, exact (``INFINITY`` where ``P`` is
    not absolutely continuous w.r.t. ``Q``)."""
    _check_pair(P, Q)
    a = to_exact(alpha, "alpha")
    if a <= 1:
        raise InvalidArgument(f"alpha={show_exact(a)} must be > 1 (alpha -> oo is pure epsilon)")
    al = sympy.Rational(a.numerator, a.denominator)
    total = sympy.Integer(0)
    for o, p in P.items():
        q = Q.p(o)
        if q == 0:
            return INFINITY
        total += to_sympy(p) ** al * to_sympy(q) ** (1 - al)
    return to_fraction_if_rational(sympy.log(total) / (al - 1))


def total_variation(P: Distribution, Q: Distribution) -> Any:
    """``sum_o max(0, P(o) - Q(o))``, exact."""
    _check_pair(P, Q)
    out = Fraction(0)
    for o, p in P.items():
        q = Q.p(o)
        if compare(p, q) > 0:
            out = _add(out, to_fraction_if_rational(to_sympy(p) - to_sympy(q)))
    return to_fraction_if_rational(to_sympy(out)) if not isinstance(out, Fraction) else out


def _check_pair(P, Q) -> None:
    for name, d in (("P", P), ("Q", Q)):
        if not isinstance(d, Distribution):
            raise InvalidArgument(f"{name}={d!r} is not a Distribution")


def _epsilon_value(epsilon):
    if isinstance(epsilon, sympy.Basic):
        if epsilon.has(sympy.Float) or epsilon.free_symbols:
            raise InvalidArgument(f"epsilon={epsilon} is not an exact number")
        return epsilon
    return to_exact(epsilon, "epsilon")


def shown(value, digits: int = 12) -> str:
    """A certified decimal enclosure ``'[lo, hi]'`` of an exact value for display (``'inf'``
    for an unbounded one; the exact text when it is rational and short)."""
    if value is INFINITY or value == INFINITY:
        return "inf"
    if isinstance(value, Fraction):
        return show_exact(value)
    try:
        lo, hi = decimal_at_most(value, digits), decimal_at_least(value, digits)
    except (Undecided, InvalidArgument, TypeError, ValueError):
        return str(value)
    return f"[{lo}, {hi}]"
