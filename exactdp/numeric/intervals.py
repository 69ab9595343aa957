"""Interval enclosures of transcendental values, refined until a comparison is decided.

Built on ``mpmath.iv`` (outward-rounded interval arithmetic). Public API (stable):

``enclose(fn, *, prec=53) -> mpmath iv interval``
    Run ``fn(iv)`` with the ``iv`` context at ``prec`` bits and return its interval.
    ``fn`` must compute only with the context it is given (``iv.exp``, ``iv.log``,
    ``iv.sqrt``, ``iv.mpf``, arithmetic) and with the enclosures below; exact inputs
    enter as ``iv.mpf(...)`` of exact values (use :func:`exact_interval` for a Fraction).
``interval_to_fractions(x) -> (Fraction, Fraction)``
    The exact endpoints of an interval (raises on an infinite endpoint).
``refine_until(fn, done, *, start_prec=53, max_prec=3392) -> result``
    Enclose at 53, 106, 212, ... bits; ``done(lo, hi)`` (exact endpoints) returns a
    result, or ``None`` to ask for more precision. Past ``max_prec``: :class:`Undecided`.
``decide(fn, relation, bound, *, start_prec=53, max_prec=3392) -> bool``
    Whether ``value relation bound`` (relation one of ``"<" "<=" ">" ">=" "=="``), for
    the value ``fn`` encloses and an exact ``bound``. ``True`` only when every point of
    the enclosure satisfies it, ``False`` only when none does; otherwise refine, and
    finally raise :class:`Undecided`. Never answers "holds" by default.
``float_at_least_of(fn, dtype="float64", ...)`` / ``float_at_most_of(fn, ...)``
    The tightest float on the safe side of the value ``fn`` encloses (refined until the
    float is certain; if it never is, the float on the safe side of the whole
    enclosure, which is at most one float from the tightest).
``exact_interval(x)``
    A point interval at an exact rational ``x`` (exact when ``x`` is dyadic, otherwise
    the narrowest outward enclosure at the current precision).

Enclosures of functions, each taking and returning ``iv`` intervals at the current
``iv`` precision and valid for every point of the argument interval:
``exp``, ``log``, ``sqrt`` (mpmath's own, outward rounded), ``erf``, ``erfc``, ``erfcx``
(e^(x²)·erfc(x), x >= 0), ``normal_cdf`` (Φ), ``log1p`` and ``lgamma``.

mpmath 1.3's ``iv.erf``/``iv.erfc``/``iv.ncdf`` do not work (``NoConvergence`` or
``AttributeError``); erf, erfc, erfcx, log1p and lgamma are FLINT's Arb (python-flint: ball
arithmetic with rigorous error bounds), evaluated on exact point balls at the argument's
endpoints (the functions are monotone there) and read back as intervals with the balls'
exact ends, never rounded inward. ``normal_cdf(x) = erfc(-x/sqrt(2))/2`` keeps full
relative accuracy far in the lower tail (Φ(-40) ≈ 3.7e-350 is enclosed, not 0).
Arb replaced the hand-written series, continued fractions and Stirling sums after a
side-by-side measurement (benchmarks/results-intervals-2026-11-26.txt, 180 cases): every
enclosure of both contained a 100-digit reference; Arb's are as tight or tighter and 1.2x
to 2e5x faster (median 11x at 53 bits, 600x at 3392; erfc(10) at 3392 bits: 374 ms -> 0.46 ms).

Working precision is set on mpmath's global ``iv`` context, and on python-flint's global
``flint.ctx.prec``, for the duration of each call (and restored after): do not enclose from
several threads at once.

``interval_of_sympy(expr, *, prec)`` encloses an exact SymPy real built from
rationals, ``+ - * /``, powers, ``sqrt``, ``exp``, ``log``, ``pi``, ``E``, ``erf``,
``erfc`` and ``loggamma``.

>>> lo, hi = interval_to_fractions(enclose(lambda iv: iv.sqrt(2), prec=53))
>>> lo * lo < 2 < hi * hi
True
>>> decide(lambda iv: iv.exp(1), ">", Fraction(2718, 1000))
True
>>> float_at_least_of(lambda iv: normal_cdf(iv.mpf(-37)))
5.725571222524577e-300
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Callable

import flint
import mpmath
from mpmath import iv

from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric._directed import _format, _round_exact
from exactdp.numeric.exact import to_exact

__all__ = [
    "DEFAULT_MAX_PREC",
    "arb_precision",
    "enclose",
    "interval_to_fractions",
    "refine_until",
    "decide",
    "float_at_least_of",
    "float_at_most_of",
    "exact_interval",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "erf",
    "erfc",
    "erfcx",
    "normal_cdf",
    "lgamma",
    "interval_of_sympy",
]

DEFAULT_MAX_PREC = 53 * 64
"""Largest working precision tried by default (3392 bits, about 1000 digits)."""


@contextlib.contextmanager
def _iv_precision(prec: int):
    """Set ``iv.prec`` for the block and restore it afterwards (``iv`` has no workprec)."""
    saved = iv.prec
    iv.prec = prec
    try:
        yield
    finally:
        iv.prec = saved


def _check_prec(prec: object, name: str = "prec") -> int:
    if isinstance(prec, bool) or not isinstance(prec, int) or prec < 2:
        raise InvalidArgument(f"{name}={prec!r} is not an integer number of bits >= 2; pass e.g. 53")
    return prec


def enclose(fn: Callable, *, prec: int = 53):
    """``fn(iv)`` computed with the ``mpmath.iv`` context at ``prec`` bits.

    The result is an ``iv`` interval containing the exact value, provided ``fn``
    computes with interval operations only.

    >>> enclose(lambda iv: iv.mpf(1) / 3, prec=10)
    mpi('0.3330078125', '0.33349609375')
    """
    prec = _check_prec(prec)
    with _iv_precision(prec):
        result = fn(iv)
        if not isinstance(result, iv.mpf):
            result = iv.mpf(result)
    return result


def _lo(x) -> mpmath.mpf:
    """The exact lower endpoint of an ``iv`` interval, as an ``mpf`` (no rounding).

    ``mpmath.mpf(x.a)`` would round the endpoint to ``mp.prec`` bits, to nearest: not
    safe for an endpoint computed at a higher precision.
    """
    return mpmath.mp.make_mpf(x._mpi_[0])


def _hi(x) -> mpmath.mpf:
    """The exact upper endpoint of an ``iv`` interval, as an ``mpf`` (no rounding)."""
    return mpmath.mp.make_mpf(x._mpi_[1])


_MAX_EXACT_EXPONENT = 2**22
"""Largest binary exponent (about 4 million bits) converted to an exact Fraction."""


def _to_fraction(value: mpmath.mpf) -> Fraction:
    """The exact value of a finite ``mpf``, from its raw ``(sign, man, exp, bc)`` tuple.

    (``mpf.man_exp`` drops the sign in mpmath 1.3: ``mpf(-1.5).man_exp == (3, -1)``.)
    """
    if not mpmath.isfinite(value):
        raise InvalidArgument(
            f"interval endpoint {value!r} is not finite; the enclosure is unbounded, so "
            f"nothing exact can be read from it (raise the precision or check the domain)"
        )
    sign, man, exp, _ = value._mpf_
    if abs(exp) > _MAX_EXACT_EXPONENT:
        shown = f"{exp:,}" if abs(exp) < 2**64 else f"{'-' if exp < 0 else ''}2^{abs(exp).bit_length() - 1} or more"
        raise InvalidArgument(
            f"interval endpoint {'-' if sign else ''}2^({shown}) has a binary exponent beyond "
            f"+-{_MAX_EXACT_EXPONENT}: too large to hold as an exact Fraction; compare it as an "
            f"mpf interval instead"
        )
    magnitude = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -magnitude if sign else magnitude


def interval_to_fractions(x, *, within: tuple | None = None) -> tuple[Fraction, Fraction]:
    """The exact endpoints ``(lo, hi)`` of an ``mpmath.iv`` interval, as Fractions.

    >>> interval_to_fractions(iv.mpf([0.25, 0.5]))
    (Fraction(1, 4), Fraction(1, 2))

    An endpoint smaller in magnitude than ``2**-MAX_EXPONENT`` (about 4 million bits; e.g. a
    delta of ``10**-10**9``) is rounded outward, ``lo`` down to ``0`` or ``-2**-MAX_EXPONENT``
    and ``hi`` up to ``2**-MAX_EXPONENT`` or ``0``: the interval widens, it stays an enclosure.

    ``within=(a, b)`` (Fractions) says the enclosed value is known to lie in ``[a, b]`` (a
    probability: ``(0, 1)``): each endpoint is clamped to ``[a, b]`` first, so an endpoint
    beyond them, however large or infinite (a cancellation at too low a precision), gives
    ``a`` or ``b`` instead of an error.

    >>> interval_to_fractions(iv.mpf([-1, 2]) * iv.mpf(10) ** 10**7, within=(Fraction(0), Fraction(1)))
    (Fraction(0, 1), Fraction(1, 1))
    """
    if not hasattr(x, "_mpi_"):
        raise InvalidArgument(f"x={x!r} is not an mpmath.iv interval; pass the result of enclose(...)")
    lo, hi = _lo(x), _hi(x)
    if within is None:
        return _outward(lo, up=False), _outward(hi, up=True)
    a, b = within
    return _clamped(lo, a, b, up=False), _clamped(hi, a, b, up=True)


def _clamped(value: mpmath.mpf, a: Fraction, b: Fraction, *, up: bool) -> Fraction:
    """``_outward(value)`` clamped to ``[a, b]``; NaN gives ``a`` (``up`` False) or ``b``."""
    if mpmath.isnan(value):
        return b if up else a
    if not mpmath.isfinite(value) or value._mpf_[2] > _MAX_EXACT_EXPONENT:  # beyond any Fraction bound
        return b if value > 0 else a
    return min(max(_outward(value, up=up), a), b)


_TINY_EXACT = Fraction(1, 1 << _MAX_EXACT_EXPONENT)


def _outward(value: mpmath.mpf, *, up: bool) -> Fraction:
    """``_to_fraction(value)``, but a nonzero ``value`` below ``2**-MAX_EXPONENT`` in magnitude
    goes to the next of ``-2**-MAX_EXPONENT, 0, 2**-MAX_EXPONENT`` in the direction asked."""
    if mpmath.isfinite(value) and value:
        sign, _, exp, bc = value._mpf_
        if exp + bc < -_MAX_EXACT_EXPONENT:
            if sign:
                return Fraction(0) if up else -_TINY_EXACT
            return _TINY_EXACT if up else Fraction(0)
    return _to_fraction(value)


def refine_until(fn: Callable, done: Callable, *, start_prec: int = 53, max_prec: int = DEFAULT_MAX_PREC):
    """Enclose ``fn`` at ``start_prec``, twice that, ... bits until ``done(lo, hi)`` is not None.

    ``lo`` and ``hi`` are the exact Fraction endpoints. Raises :class:`Undecided` when
    ``max_prec`` bits did not suffice (or when the enclosure stays unbounded).
    """
    prec = _check_prec(start_prec, "start_prec")
    max_prec = _check_prec(max_prec, "max_prec")
    last = None
    while True:
        x = enclose(fn, prec=prec)
        try:
            lo, hi = interval_to_fractions(x)
        except InvalidArgument:
            lo = hi = None
        if lo is not None:
            answer = done(lo, hi)
            if answer is not None:
                return answer
            last = (lo, hi)
        if prec >= max_prec:
            shown = "unbounded" if last is None else f"[{float(last[0])!r}, {float(last[1])!r}]"
            raise Undecided(
                f"not decided at {prec} bits of working precision (enclosure {shown}); the "
                f"value may equal the bound exactly; raise max_prec or compare symbolically"
            )
        prec = min(2 * prec, max_prec)


_RELATIONS = ("<", "<=", ">", ">=", "==")


def decide(fn: Callable, relation: str, bound, *, start_prec: int = 53, max_prec: int = DEFAULT_MAX_PREC) -> bool:
    """Whether the value enclosed by ``fn`` stands in ``relation`` to the exact ``bound``.

    ``"=="`` is answered ``False`` when the enclosure excludes ``bound``; it can never be
    answered ``True`` by intervals (a non-degenerate enclosure), so it raises
    :class:`Undecided` instead, unless the enclosure is the single point ``bound``.

    >>> decide(lambda iv: iv.log(2), "<", Fraction(7, 10))
    True
    >>> decide(lambda iv: iv.log(2), ">=", Fraction(7, 10))
    False
    """
    if relation not in _RELATIONS:
        raise InvalidArgument(f"relation={relation!r} is not one of {_RELATIONS}")
    bound = to_exact(bound, "bound")

    def done(lo: Fraction, hi: Fraction):
        if relation == "<":
            return True if hi < bound else False if lo >= bound else None
        if relation == "<=":
            return True if hi <= bound else False if lo > bound else None
        if relation == ">":
            return True if lo > bound else False if hi <= bound else None
        if relation == ">=":
            return True if lo >= bound else False if hi < bound else None
        return True if lo == hi == bound else False if (hi < bound or lo > bound) else None

    return refine_until(fn, done, start_prec=start_prec, max_prec=max_prec)


def _float_of(fn: Callable, dtype: str, up: bool, start_prec: int, max_prec: int) -> float:
    # the rounding core lives below both this module and ``rounding`` (which encloses
    # irrational values here), so the two do not import each other
    fmt = _format(dtype)

    def rnd(value: Fraction) -> float:
        return _round_exact(value, fmt, up, value)

    prec = _check_prec(start_prec, "start_prec")
    while True:
        lo, hi = interval_to_fractions(enclose(fn, prec=prec))
        safe, other = (rnd(hi), rnd(lo)) if up else (rnd(lo), rnd(hi))
        if safe == other or prec >= max_prec:
            return safe
        prec = min(2 * prec, max_prec)


def float_at_least_of(fn: Callable, dtype: str = "float64", *, start_prec: int = 64,
                      max_prec: int = DEFAULT_MAX_PREC) -> float:
    """The smallest float ``>=`` the value ``fn`` encloses (see the module docstring).

    >>> float_at_least_of(lambda iv: iv.sqrt(2))
    1.4142135623730951
    """
    return _float_of(fn, dtype, True, start_prec, max_prec)


def float_at_most_of(fn: Callable, dtype: str = "float64", *, start_prec: int = 64,
                     max_prec: int = DEFAULT_MAX_PREC) -> float:
    """The largest float ``<=`` the value ``fn`` encloses.

    >>> float_at_most_of(lambda iv: iv.sqrt(2))
    1.414213562373095
    """
    return _float_of(fn, dtype, False, start_prec, max_prec)


def exact_interval(x) -> "iv.mpf":
    """An ``iv`` interval containing the exact rational ``x`` (a point when ``x`` is dyadic).

    ``x`` is anything :func:`~exactdp.numeric.exact.to_exact` takes. Call it inside
    ``fn`` so the current precision applies.
    """
    x = to_exact(x, "x")
    # iv.mpf of an int is exact when it fits the precision, else an outward enclosure;
    # the division is outward rounded (exact for a dyadic x that fits).
    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


# --- elementary functions (exp, log, sqrt: mpmath's own, outward rounded) ---------


def exp(x):
    """Enclosure of ``exp`` over the interval ``x``."""
    return iv.exp(x)


def log(x):
    """Enclosure of ``log`` over the interval ``x`` (which must be positive)."""
    if _lo(x) <= 0:
        raise InvalidArgument(f"x={x!r} reaches 0 or below; log is defined for positive numbers only")
    return iv.log(x)


def sqrt(x):
    """Enclosure of the square root over the nonnegative interval ``x``."""
    if _lo(x) < 0:
        raise InvalidArgument(f"x={x!r} reaches below 0; sqrt is defined for nonnegative numbers only")
    return iv.sqrt(x)


def log1p(x):
    """Enclosure of ``log(1 + x)`` over ``x > -1``, from Arb (keeps its relative accuracy for
    small ``|x|``, where ``log(1 + x)`` would lose it)."""
    x = _as_interval(x)
    a, b = _lo(x), _hi(x)
    if a <= -1:
        raise InvalidArgument(f"x={x!r} reaches -1 or below; log1p is defined for x > -1 only")
    if not mpmath.isfinite(b):
        return iv.mpf([_lo(_arb_monotone(lambda t: t.log1p(), a, a, increasing=True)), mpmath.inf])
    return _arb_monotone(lambda t: t.log1p(), a, b, increasing=True)


# --- Arb (python-flint) balls ------------------------------------------------------
#
# erf, erfc, erfcx, log1p and lgamma are Arb's (FLINT's arb_hypgeom_*, rigorous error
# bounds) on balls built exactly from the interval's endpoints; each ball comes back as
# an interval whose endpoints are the ball's exact ends (lower and upper), so nothing is
# rounded inward. Arb works at ``iv.prec + _ARB_GUARD`` bits (plus what the argument's
# size needs); its precision is python-flint's global ``flint.ctx.prec``, set and
# restored around each call (like ``iv.prec``: not thread-safe).

_ARB_GUARD = 16
"""Extra bits Arb works with beyond ``iv.prec``: its balls come back at least as tight as
the interval arithmetic around them."""


@contextlib.contextmanager
def arb_precision(prec: int):
    """Set python-flint's global ``ctx.prec`` (Arb's working precision, in bits) for the block
    and restore it afterwards; the block gets the ``flint`` module (``with arb_precision(p) as
    flint: ...``). One global, like ``mpmath.iv.prec``: not thread-safe."""
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        yield flint
    finally:
        flint.ctx.prec = saved


def _arb_point(t: mpmath.mpf):
    """The exact Arb ball (radius 0) at the finite ``mpf`` ``t`` (NaN, the whole line, for an
    infinite or NaN ``t``: whatever is computed from it comes back unbounded, never wrong)."""
    sign, man, exp, _ = t._mpf_
    if not man:
        return flint.arb(0) if t._mpf_ == mpmath.libmp.fzero else flint.arb.nan()
    return flint.arb((-int(man) if sign else int(man), int(exp)))


def _mpf_of_arb_point(point) -> mpmath.mpf:
    """The exact ``mpf`` of an exact, finite Arb value (an endpoint from ``lower()``/``upper()``)."""
    man, exp = point.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def _interval_of_ball(ball, lo_clamp=None, hi_clamp=None):
    """The interval ``[ball.lower(), ball.upper()]`` (call it at the ball's Arb precision:
    ``lower()`` rounds down to ``ctx.prec``, soundly but loosely below it), clamped to the
    known range ``[lo_clamp, hi_clamp]`` of the function; a non-finite ball gives that range
    (or an infinite endpoint)."""
    if ball.is_finite():
        lo, hi = _mpf_of_arb_point(ball.lower()), _mpf_of_arb_point(ball.upper())
    else:
        lo, hi = mpmath.mpf("-inf"), mpmath.mpf("inf")
    if lo_clamp is not None and lo < lo_clamp:
        lo = lo_clamp
    if hi_clamp is not None and hi > hi_clamp:
        hi = hi_clamp
    return iv.make_mpf((lo._mpf_, hi._mpf_))


def _magnitude_bits(t: mpmath.mpf) -> int:
    """``e >= 0`` with ``|t| < 2**e`` (0 for ``|t| < 1``)."""
    if not t:
        return 0
    _, _, exp, bc = t._mpf_
    return max(0, int(exp) + int(bc))


def _arb_monotone(fn, a, b, *, increasing: bool, extra: int = 0, lo_clamp=None, hi_clamp=None):
    """``fn`` (an Arb method) over ``[a, b]`` for a function monotone there, from its values at
    the two endpoints (exact point balls). Not one ball over ``[a, b]``: Arb's bound for the
    change over a ball can be far too wide (erfc over a one-ulp ball at 63462 came back as
    ``[0, 2e-1749095622]``, 1700 times wider than the value; from the endpoints: 2e-6)."""
    # the ends are read inside the block: ``ball.lower()`` rounds (outward) to ``ctx.prec``
    with arb_precision(iv.prec + _ARB_GUARD + extra):
        at_a = _interval_of_ball(fn(_arb_point(a)), lo_clamp, hi_clamp)
        if a == b:
            return at_a
        at_b = _interval_of_ball(fn(_arb_point(b)), lo_clamp, hi_clamp)
    low, high = (at_a, at_b) if increasing else (at_b, at_a)
    return iv.make_mpf((_lo(low)._mpf_, _hi(high)._mpf_))


# --- erf, erfc, Φ ---------------------------------------------------------------

_EXP_FLOOR_MAG = 2400
"""``exp(x)`` for ``x <= -2**_EXP_FLOOR_MAG`` is enclosed by ``[0, 2**-(2**_EXP_FLOOR_MAG)]``
without calling mpmath, whose ``exp`` of such an argument takes seconds to hours."""

_ERFC_FLOOR = mpmath.ldexp(1, -(2**_EXP_FLOOR_MAG))


def _exp_of_negative(x):
    """``iv.exp(x)``, or the enclosure ``[0, 2**-(2**_EXP_FLOOR_MAG)]`` when ``x`` is below
    ``-2**_EXP_FLOOR_MAG`` (then ``exp(x) < 2**(-2**_EXP_FLOOR_MAG)``: sound, and far below
    what :func:`interval_to_fractions` holds exactly)."""
    hi = _hi(x)
    if mpmath.isfinite(hi) and hi < 0 and hi._mpf_[2] + hi._mpf_[3] > _EXP_FLOOR_MAG + 1:
        return iv.mpf([0, _ERFC_FLOOR])
    return iv.exp(x)


def _as_interval(x):
    return x if isinstance(x, iv.mpf) else iv.mpf(x)


_FAR = _EXP_FLOOR_MAG // 2
"""erfc(x) for ``x >= 2**_FAR`` is enclosed by ``[0, e^(-x²)] ⊆ [0, 2**-(2**_EXP_FLOOR_MAG)]``."""


def erfc(x):
    """Enclosure of the complementary error function over the interval ``x`` (Arb's erfc).

    erfc(x) = e^(-x²)·(...) for large x: its relative condition number is about 2x², so Arb
    works ``2·log2|x|`` bits further (x² exact enough); for x >= 2**1200 the enclosure is
    ``[0, 2**-(2**2400)]`` (erfc(x) <= e^(-x²)).
    """
    x = _as_interval(x)
    a, b = _lo(x), _hi(x)
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        return iv.mpf([0, 2])
    if a > 0 and _magnitude_bits(a) > _FAR:
        return iv.mpf([0, _ERFC_FLOOR])
    extra = 2 * _magnitude_bits(b) if b > 0 else 0
    if extra > 2 * _FAR:  # b far out: erfc(b) is below the floor, erfc(a) bounds from above
        high = _hi(erfc(iv.make_mpf((a._mpf_, a._mpf_))))
        return iv.mpf([0, high])
    return _arb_monotone(lambda t: t.erfc(), a, b, increasing=False, extra=extra,
                         lo_clamp=mpmath.mpf(0), hi_clamp=mpmath.mpf(2))


def erf(x):
    """Enclosure of the error function over the interval ``x`` (Arb's erf; erf is increasing)."""
    x = _as_interval(x)
    a, b = _lo(x), _hi(x)
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        return iv.mpf([-1, 1])
    return _arb_monotone(lambda t: t.erf(), a, b, increasing=True,
                         lo_clamp=mpmath.mpf(-1), hi_clamp=mpmath.mpf(1))


_ERFCX_U_FROM = 32
"""erfcx(x) for ``x >= 2**_ERFCX_U_FROM`` is ``U(1/2, 1/2, x²)/√π`` (Tricomi's U, Arb's
asymptotic expansion: no e^(x²)); below, ``e^(x²)·erfc(x)`` with the extra bits erfc needs."""


def _arb_erfcx(t):
    if t.upper() < flint.arb(2) ** _ERFCX_U_FROM:
        return (t * t).exp() * t.erfc()
    half = flint.arb(1) / 2
    return (t * t).hypgeom_u(half, half) / flint.arb.pi().sqrt()


def erfcx(x):
    """Enclosure of the scaled complementary error function e^(x²)·erfc(x) over an interval
    ``x >= 0``.

    erfcx is decreasing. Far out (x = 10**1500) it is about 1/(x√π), computed without e^(x²)
    (as Tricomi's ``U(1/2, 1/2, x²)/√π``): ``e^ε·Φ(−s)`` of the Gaussian mechanism is
    ``e^(−x²/2)·erfcx(s/√2)/2`` with ``s² − x² = 2ε``, and needs no e^ε.
    """
    x = _as_interval(x)
    a, b = _lo(x), _hi(x)
    if a < 0:
        raise InvalidArgument(f"x={x!r} reaches below 0; erfcx is enclosed for x >= 0 only")
    if not mpmath.isfinite(b):
        return iv.mpf([0, 1])
    extra = 2 * min(_magnitude_bits(b), _ERFCX_U_FROM)
    return _arb_monotone(_arb_erfcx, a, b, increasing=False, extra=extra,
                         lo_clamp=mpmath.mpf(0), hi_clamp=mpmath.mpf(1))


def normal_cdf(x):
    """Enclosure of the standard normal CDF Φ over the interval ``x``.

    Φ(x) = erfc(-x/√2)/2, which keeps its relative accuracy deep in the lower tail.
    """
    x = _as_interval(x)
    return erfc(-x / iv.sqrt(2)) / 2


def lgamma(x):
    """Enclosure of ``log Γ`` over a positive interval ``x`` (Arb's lgamma).

    Over a wide interval: log Γ decreases up to its minimum at 1.46163... and increases
    after, so the endpoints bound it, with the minimum value (to 45 digits, rounded down) as
    lower bound when it lies inside.
    """
    x = _as_interval(x)
    a, b = _lo(x), _hi(x)
    if a <= 0:
        raise InvalidArgument(f"x={x!r} reaches 0 or below; lgamma is enclosed for positive arguments only")
    if not mpmath.isfinite(b):
        raise InvalidArgument(f"x={x!r} is unbounded; lgamma is enclosed for bounded arguments only")
    straddles = a < _LGAMMA_ARGMIN_HI and b > _LGAMMA_ARGMIN_LO
    if a == b or not straddles:
        return _arb_monotone(lambda t: t.lgamma(), a, b, increasing=a >= _LGAMMA_ARGMIN_HI)
    at_a = _arb_monotone(lambda t: t.lgamma(), a, a, increasing=True)
    at_b = _arb_monotone(lambda t: t.lgamma(), b, b, increasing=True)
    lo = min(_lo(at_a), _lo(at_b), _LGAMMA_MIN_LOWER)
    return iv.make_mpf((lo._mpf_, max(_hi(at_a), _hi(at_b))._mpf_))


# log Γ has its minimum -0.1214862905358496080... at 1.4616321449683623412...
_LGAMMA_ARGMIN_LO = mpmath.mpf("1.4616")
_LGAMMA_ARGMIN_HI = mpmath.mpf("1.4617")
with mpmath.workprec(256):  # 45 digits rounded down (true: -0.1214862905358496080955145571776915821513561731299...)
    _LGAMMA_MIN_LOWER = mpmath.mpf("-0.121486290535849608095514557177691582151356174")


# --- SymPy reals -----------------------------------------------------------------


def interval_of_sympy(expr, *, prec: int = 53):
    """Enclose the exact SymPy real ``expr`` at ``prec`` bits.

    >>> import sympy
    >>> lo, hi = interval_to_fractions(interval_of_sympy(sympy.sqrt(2) * sympy.log(3), prec=60))
    >>> from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
    >>> decimal_at_most(lo, 15), decimal_at_least(hi, 15)
    (Decimal('1.55367239842418'), Decimal('1.55367239842419'))
    """
    import sympy

    prec = _check_prec(prec)
    if not isinstance(expr, sympy.Basic):
        raise InvalidArgument(f"expr={expr!r} is not a SymPy expression")
    if expr.free_symbols:
        raise InvalidArgument(
            f"expr={expr!r} has free symbols {sorted(map(str, expr.free_symbols))}; substitute numbers first"
        )

    def walk(e):
        if e.is_Rational:
            return exact_interval(Fraction(int(e.p), int(e.q)))
        if e.is_Float:
            raise InvalidArgument(f"expr={expr!r} contains the float {e}; use exact numbers (Rational)")
        if e is sympy.pi:
            return iv.pi
        if e is sympy.E:
            return iv.e
        if e.is_Add:
            total = iv.mpf(0)
            for arg in e.args:
                total += walk(arg)
            return total
        if e.is_Mul:
            total = iv.mpf(1)
            for arg in e.args:
                total *= walk(arg)
            return total
        if e.is_Pow:
            base, power = e.args
            if power.is_Integer:
                b = walk(base)
                n = int(power)
                if n < 0:
                    return 1 / (b ** (-n))
                return b**n
            if power == sympy.Rational(1, 2):
                return sqrt(walk(base))
            if power == sympy.Rational(-1, 2):
                return 1 / sqrt(walk(base))
            return iv.exp(walk(power) * log(walk(base)))
        funcs = {sympy.exp: exp, sympy.log: log, sympy.erf: erf, sympy.erfc: erfc, sympy.loggamma: lgamma}
        f = funcs.get(e.func)
        if f is not None and len(e.args) == 1:
            return f(walk(e.args[0]))
        raise InvalidArgument(
            f"expr={expr!r} uses {e.func.__name__}, which has no interval enclosure here; "
            f"supported: rationals, + - * /, powers, sqrt, exp, log, erf, erfc, loggamma, pi, E"
        )

    with _iv_precision(prec):
        return walk(expr)
