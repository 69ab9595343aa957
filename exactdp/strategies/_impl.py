"""Hypothesis strategies for exactdp's datasets, neighbouring pairs and float records.

Hypothesis is imported here at the top (like ``hypothesis.extra.lark``): only this
module and :mod:`exactdp.strategies` need it, and it ships as the ``hypothesis`` extra.

Datasets are drawn in *sparse form*, sorted tuples of value indices into the space's
sorted universe, so a universe of ``10**6`` values or more is never built; the public
strategies hand out sorted tuples of exact values (``Fraction``).

Neighbouring pairs are drawn by :mod:`exactdp.spaces.pairs` (shared with
:func:`exactdp.checkers.search.search_claim`, which sits in a layer below this package).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.floatformat import FloatFormat, format_named
from exactdp.spaces.datasets import DatasetSpace, Multisets, as_space
from exactdp.spaces.metrics import Metric
from exactdp.spaces.pairs import IndexPair, _Layout, index_pairs, sparse_counts  # noqa: F401 - index_pairs, sparse_counts re-exported
from exactdp.spaces.universe import ValueUniverse

__all__ = ["datasets", "neighbouring_pairs", "float_records", "index_pairs", "sparse_counts"]

# -- datasets ---------------------------------------------------------------------------

def datasets(
    space: DatasetSpace | None = None,
    *,
    universe: ValueUniverse | None = None,
    min_size: int = 0,
    max_size: int | None = None,
) -> st.SearchStrategy[tuple[Fraction, ...]]:
    """Datasets of ``space`` as sorted tuples of exact values, or datasets over
    ``universe`` with ``min_size <= size <= max_size`` (the universe is never listed:
    ``IntegerRange(0, 10**6)`` costs nothing).

    Shrinks toward fewer records and smaller values.
    """
    space = _space_of(space, universe, min_size, max_size)
    layout = _Layout(space)
    values = space.universe.value
    return layout.sized(space.min_size, layout.top).map(lambda t: tuple(values(i) for i in t))


def _space_of(space, universe, min_size, max_size) -> DatasetSpace:
    if space is not None:
        if universe is not None or max_size is not None or min_size != 0:
            raise InvalidArgument(
                f"space={space!r} given with universe=/min_size=/max_size=; pass either a "
                f"space or a universe with sizes, not both"
            )
        return as_space(space)
    if universe is None:
        raise InvalidArgument(
            "neither space= nor universe= given; pass datasets(Multisets(...)) or "
            "datasets(universe=IntegerRange(0, 10**6), max_size=100)"
        )
    if not isinstance(universe, ValueUniverse):
        raise InvalidArgument(
            f"universe={universe!r} is not a ValueUniverse; build one with IntegerRange(A, B) "
            f"or ExactSet([...])"
        )
    if max_size is None:
        raise InvalidArgument(f"max_size=None with universe={universe!r}; pass max_size=N (a whole number)")
    return Multisets(universe, sizes=(min_size, max_size))


# -- neighbouring pairs -------------------------------------------------------------------

def neighbouring_pairs(
    space: DatasetSpace,
    metric: Metric | str = "add-remove",
    d_in: int = 1,
    exact_k: bool = False,
) -> st.SearchStrategy[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """Pairs ``(x, x')`` of datasets of ``space`` (sorted tuples of exact values) that
    ``metric`` relates at ``d_in``: ``0 < d(x, x') <= d_in``, or with ``exact_k`` the
    exactly-``d_in`` rule of :meth:`~exactdp.spaces.metrics.Metric.related`.

    Raises :class:`~exactdp.errors.InvalidArgument` at the call when no pair can exist.
    """
    strategy = index_pairs(space, metric, d_in, exact_k)
    values = space.universe.value

    def to_values(pair: IndexPair):
        x, y = pair
        return tuple(values(i) for i in x), tuple(values(i) for i in y)

    return strategy.map(to_values)


# -- float records ---------------------------------------------------------------------

def float_records(fmt: FloatFormat | str = "float64", bounds: tuple[object, object] | None = None) -> st.SearchStrategy[Fraction]:
    """Values of the float format ``fmt`` in ``bounds = (lo, hi)`` (inclusive), as exact
    ``Fraction``s: the values float-witness constructions like (zero, binade edges
    ``2**e`` and their neighbours, the smallest subnormal and normal, half-ulps that make
    ties, the bounds' nearest values) and then any value of the format.

    Shrinks toward those special values, zero first. The bounds are exact numbers (ints,
    ``Fraction``s, strings such as ``'0.1'``); a Python float is refused with
    :class:`~exactdp.errors.InexactInput`, as everywhere in exactdp: pass
    ``exactdp.from_float(x)`` (or use ``with exactdp.float_reading("binary"):``) for the
    float's exact binary value.
    """
    if isinstance(fmt, str):
        fmt = format_named(fmt)
    if not isinstance(fmt, FloatFormat):
        raise InvalidArgument(
            f"fmt={fmt!r} is not a float format; pass 'float64', 'float32', FLOAT64 or "
            f"FloatFormat.toy(precision, emin, emax)"
        )
    if bounds is None:
        lo, hi = -fmt.max_value, fmt.max_value
    else:
        try:
            raw_lo, raw_hi = bounds
        except (TypeError, ValueError):
            raise InvalidArgument(f"bounds={bounds!r} is not a pair; pass bounds=(lo, hi)") from None
        # a Python float is refused like everywhere else (InexactInput, saying how to pass
        # the number meant); exactdp.from_float(x) or float_reading("binary") is the door
        lo, hi = to_exact(raw_lo, "lower bound"), to_exact(raw_hi, "upper bound")
        if hi < lo:
            raise InvalidArgument(
                f"Cannot have upper={format_exact(hi)!r} < lower={format_exact(lo)!r}; swap the bounds"
            )
    lo_f = _first_at_least(fmt, lo)
    hi_f = _last_at_most(fmt, hi)
    if lo_f is None or hi_f is None or lo_f > hi_f:
        raise InvalidArgument(
            f"bounds=({format_exact(lo)}, {format_exact(hi)}) hold no value of {fmt.name}; "
            f"widen the bounds"
        )
    specials = sorted(
        {v for v in _special_values(fmt, lo_f, hi_f) if lo_f <= v <= hi_f},
        key=lambda v: (abs(v), v < 0),
    )
    general = _any_value(fmt, lo_f, hi_f)
    return st.one_of(st.sampled_from(specials), general) if specials else general


def _first_at_least(fmt: FloatFormat, v: Fraction) -> Fraction | None:
    if v > fmt.max_value:
        return None
    v = max(v, -fmt.max_value)
    return v if fmt.is_representable(v) else fmt.next_up(v)


def _last_at_most(fmt: FloatFormat, v: Fraction) -> Fraction | None:
    if v < -fmt.max_value:
        return None
    v = min(v, fmt.max_value)
    return v if fmt.is_representable(v) else fmt.next_down(v)


def _special_values(fmt: FloatFormat, lo: Fraction, hi: Fraction) -> set[Fraction]:
    out = {Fraction(0), lo, hi, fmt.min_subnormal, fmt.min_normal, fmt.max_value,
           3 * fmt.min_subnormal, fmt.min_normal - fmt.min_subnormal}
    p = fmt.precision
    # binade edges 2**e, their neighbours, and the half-ulp 2**(e - p) that ties with 2**e
    exps = {0, 1, -1, p, p + 1, fmt.emin, fmt.emax}
    for bound in (lo, hi):
        if bound != 0:
            a = abs(bound)
            e = a.numerator.bit_length() - a.denominator.bit_length()
            exps.update({e - 1, e, e + 1})
    for e in exps:
        if not fmt.emin - p < e <= fmt.emax:
            continue
        edge = Fraction(2) ** e
        out.update({edge, edge * (1 + Fraction(1, 2 ** (p - 1))), Fraction(3, 2) * edge})
        if e > fmt.emin - p + 1:
            out.add(fmt.next_down(edge))
        if e - p >= fmt.emin - p + 1:
            out.add(Fraction(2) ** (e - p))
    out |= {-v for v in out}
    return {v for v in out if abs(v) <= fmt.max_value and fmt.is_representable(v)}


def _any_value(fmt: FloatFormat, lo: Fraction, hi: Fraction) -> st.SearchStrategy[Fraction]:
    p, emin = fmt.precision, fmt.emin
    top = max(abs(lo), abs(hi))
    e_top = top.numerator.bit_length() - top.denominator.bit_length() + 1
    e_hi = min(fmt.emax, max(emin, e_top))

    def build(parts) -> Fraction:
        negative, e, frac = parts
        if e < emin:  # subnormal (and zero): frac * 2**(emin - p + 1)
            v = Fraction(frac) * Fraction(2) ** (emin - p + 1)
        else:
            v = Fraction(2 ** (p - 1) + frac) * Fraction(2) ** (e - p + 1)
        v = -v if negative else v
        return min(max(v, lo), hi)  # both bounds are values of the format

    return st.tuples(
        st.just(False) if lo >= 0 else st.just(True) if hi <= 0 else st.booleans(),
        st.integers(emin - 1, e_hi),
        st.integers(0, 2 ** (p - 1) - 1),
    ).map(build)
