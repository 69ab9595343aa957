"""Bit-exact models of floating-point summation algorithms.

``float_sum(values, model, fmt)`` returns the exact value of what a program summing
``values`` with algorithm ``model`` in the binary format ``fmt`` stores, every
intermediate ``+`` and ``-`` rounded to nearest, ties to even. The models:

==================== ==========================================================================
``sequential``       left fold ``((0 + x1) + x2) + ...`` (a ``for`` loop; Python ``sum`` <= 3.11)
``pairwise``         NumPy's ``add.reduce`` / ``sum`` on a contiguous 1-d array: blocks of at
                     most 128 values summed with 8 interleaved accumulators, combined as
                     ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``, the leftover (n mod 8) values
                     added one by one; longer arrays split at ``n2 = n//2 - (n//2) % 8``
                     and the halves summed recursively; fewer than 8 values: a plain loop
``kahan``            Kahan's compensated summation (``y = x - c; t = s + y; c = (t - s) - y``)
``neumaier``         Neumaier's variant (the compensation branch on ``|s| >= |x|``, the sum
                     returned as ``s + c``)
``fsum``             the exact sum, rounded once (``math.fsum`` for float64)
``sorted``           ascending sort, then ``sequential``
``sorted-magnitude`` ascending ``(|x|, x)`` (so ``-a`` before ``a``), then ``sequential``
==================== ==========================================================================

Models of one library's own summation live in :data:`LIBRARY_MODELS`; ``float_sum`` takes
their names too, but the searches and the CLI iterate over :data:`MODEL_NAMES` only:

==================== ==========================================================================
``opendp-pairwise``  OpenDP's ``Pairwise<T>`` (``transformations/sum/float``): no value ->
                     0, one value -> itself, else split at ``m = n // 2`` and add the
                     recursive sums of ``x[:m]`` and ``x[m:]`` (no blocks, no accumulators:
                     not NumPy's ``pairwise``). OpenDP's ``Sequential<T>`` is ``sequential``.
==================== ==========================================================================

Two computation paths give the same answers (a property test checks this):

* the general path: exact :class:`~fractions.Fraction` arithmetic followed by
  :meth:`FloatFormat.round <exactdp.numeric.floatformat.FloatFormat.round>` after every
  operation; works for any format, including toy ones;
* a fast path with native Python floats for ``float64`` and ``float32``. For float32 every
  ``+``/``-`` is done in float64 and the result rounded to float32 (``struct`` ``'f'``,
  round to nearest even). That double rounding is exact: the sum or difference of two
  float32 numbers rounded to float64 and then to float32 equals the sum rounded directly to
  float32, because 53 >= 2*24 + 2 (Figueroa 1995, "When is double rounding innocuous?");
  float64's exponent range contains float32's, subnormals included (a float32 result in
  the subnormal range is a multiple of 2**-149 below 2**-126, which both formats hold
  exactly). ``fsum`` in float32 is not a chain of ``+`` and is computed exactly, then
  rounded once.

Overflow is never hidden: when any intermediate result would exceed the largest finite
value (where IEEE arithmetic produces infinity), :class:`~exactdp.numeric.floatformat.FloatOverflow`
is raised. Signed zeros are not modelled (a zero result is reported as ``0``).

>>> float_sum([0.1, 0.2, 0.3]) == Fraction(0.1 + 0.2 + 0.3)
True
>>> float_sum([1, 2**-53, 2**-53]), float_sum([1, 2**-53, 2**-53], "fsum")
(Fraction(1, 1), Fraction(4503599627370497, 4503599627370496))
>>> toy = FloatFormat.toy(precision=3, emin=-2, emax=3)
>>> float_sum([4, Fraction(1, 2), Fraction(1, 2)], "sequential", toy)
Fraction(4, 1)
>>> float_sum([4, Fraction(1, 2), Fraction(1, 2)], "sorted", toy)
Fraction(5, 1)
"""

from __future__ import annotations

import dataclasses
import functools
import math
import struct
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.numeric.floatformat import (
    FLOAT32,
    FLOAT64,
    FloatFormat,
    FloatOverflow,
    exact_value,
    format_named,
)

__all__ = [
    "LIBRARY_MODELS",
    "MODELS",
    "MODEL_NAMES",
    "PAIRWISE_BLOCKSIZE",
    "SumModel",
    "float_sum",
    "float_sum_float",
    "to_format_values",
]

PAIRWISE_BLOCKSIZE = 128
"""NumPy's ``PW_BLOCKSIZE`` (``numpy/_core/src/umath/loops_utils.h.src``)."""


# -- arithmetics: one rounding adder per representation ------------------------------------

class _Arith:
    """Rounded ``+`` on some representation of the values of a format."""

    zero: object

    def add(self, a, b):  # pragma: no cover - abstract
        raise NotImplementedError

    def exact_sum(self, values):  # pragma: no cover - abstract
        """The exact sum rounded once (the ``fsum`` model)."""
        raise NotImplementedError


class _ExactArith(_Arith):
    def __init__(self, fmt: FloatFormat):
        self.fmt = fmt
        self.zero = Fraction(0)
        self.add = lambda a, b: fmt.round(a + b)

    def exact_sum(self, values):
        return self.fmt.round(sum(values, Fraction(0)))


@functools.lru_cache(maxsize=1 << 18)
def _round_scaled(fmt: FloatFormat, z: int) -> int:
    q = fmt.min_subnormal
    return int(fmt.round(z * q) / q)


class _ScaledArith(_Arith):
    """Small formats: values as integer multiples of the smallest subnormal, rounding
    cached by the exact integer sum (exhaustive searches call it millions of times)."""

    zero = 0

    def __init__(self, fmt: FloatFormat):
        self.fmt = fmt
        self.add = lambda a, b: _round_scaled(fmt, a + b)

    def exact_sum(self, values):
        return _round_scaled(self.fmt, sum(values))


def _is_small(fmt: FloatFormat) -> bool:
    return fmt.precision <= 16 and fmt.emax - fmt.emin <= 64


def _run_exact(model: SumModel, values: list[Fraction], fmt: FloatFormat) -> Fraction:
    if _is_small(fmt):
        k = fmt.precision - 1 - fmt.emin   # min_subnormal = 2**-k
        if k >= 0:
            scale = 1 << k
            scaled = [v.numerator * (scale // v.denominator) for v in values]
            return Fraction(model._run(scaled, _ScaledArith(fmt)), scale)
        q = 1 << -k
        return Fraction(model._run([int(v) // q for v in values], _ScaledArith(fmt)) * q)
    return model._run(values, _ExactArith(fmt))


class _Float64Arith(_Arith):
    zero = 0.0

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def exact_sum(values):
        try:
            return math.fsum(values)
        except OverflowError:  # an intermediate partial overflowed; decide exactly
            return float(FLOAT64.round(_exact_dyadic_sum(values)))


_F32 = struct.Struct("f")


def _round32(x: float) -> float:
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        raise FloatOverflow(f"x={x!r} rounds beyond the largest finite value of float32") from None


class _Float32Arith(_Arith):
    zero = 0.0

    @staticmethod
    def add(a, b):
        return _round32(a + b)

    @staticmethod
    def exact_sum(values):
        return float(FLOAT32.round(_exact_dyadic_sum(values)))


def _exact_dyadic_sum(values: Iterable[float]) -> Fraction:
    """The exact sum of floats, with integers scaled by a common power of two."""
    scale = 1100  # every float64 is a multiple of 2**-1074
    total = 0
    for v in values:
        num, den = v.as_integer_ratio()
        total += num << (scale - den.bit_length() + 1)
    return Fraction(total, 1 << scale)


# -- the algorithms, generic over an arithmetic ---------------------------------------------

def _sequential(values: Sequence, ar: _Arith):
    add = ar.add
    s = ar.zero
    for x in values:
        s = add(s, x)
    return s


def _pairwise_block(values: Sequence, lo: int, n: int, ar: _Arith):
    add = ar.add
    if n < 8:
        s = ar.zero
        for i in range(lo, lo + n):
            s = add(s, values[i])
        return s
    if n <= PAIRWISE_BLOCKSIZE:
        r = list(values[lo:lo + 8])
        i = 8
        stop = n - n % 8
        while i < stop:
            for j in range(8):
                r[j] = add(r[j], values[lo + i + j])
            i += 8
        s = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
        for i in range(stop, n):
            s = add(s, values[lo + i])
        return s
    n2 = n // 2
    n2 -= n2 % 8
    return add(_pairwise_block(values, lo, n2, ar), _pairwise_block(values, lo + n2, n - n2, ar))


def _pairwise(values: Sequence, ar: _Arith):
    # NumPy initialises the reduction with the identity 0 and adds the pairwise sum of the
    # whole array to it; 0 + s = s exactly.
    return ar.add(ar.zero, _pairwise_block(values, 0, len(values), ar))


def _opendp_pairwise_range(values: Sequence, lo: int, n: int, ar: _Arith):
    if n == 0:
        return ar.zero
    if n == 1:
        return values[lo]
    m = n // 2
    return ar.add(_opendp_pairwise_range(values, lo, m, ar),
                  _opendp_pairwise_range(values, lo + m, n - m, ar))


def _opendp_pairwise(values: Sequence, ar: _Arith):
    # OpenDP's Pairwise<T>::unchecked_sum: [] -> 0, [a] -> a, else sum(x[..m]) + sum(x[m..])
    # with m = n / 2 (Rust's integer division).
    return _opendp_pairwise_range(values, 0, len(values), ar)


def _kahan(values: Sequence, ar: _Arith):
    add = ar.add
    s = c = ar.zero
    for x in values:
        y = add(x, -c)
        t = add(s, y)
        c = add(add(t, -s), -y)
        s = t
    return s


def _neumaier(values: Sequence, ar: _Arith):
    add = ar.add
    s = c = ar.zero
    for x in values:
        t = add(s, x)
        if abs(s) >= abs(x):
            c = add(c, add(add(s, -t), x))
        else:
            c = add(c, add(add(x, -t), s))
        s = t
    return add(s, c)


def _fsum(values: Sequence, ar: _Arith):
    return ar.exact_sum(values)


def _sorted(values: Sequence, ar: _Arith):
    return _sequential(sorted(values), ar)


def _sorted_magnitude(values: Sequence, ar: _Arith):
    return _sequential(sorted(values, key=lambda v: (abs(v), v)), ar)


@dataclasses.dataclass(frozen=True)
class SumModel:
    """A summation algorithm: its name, what it does, and whether the order of the input
    matters (``order_independent`` is true when the stored result depends only on the
    multiset of values)."""

    name: str
    description: str
    order_independent: bool
    _run: Callable = dataclasses.field(repr=False, compare=False)

    def sum(self, values: Iterable[object], fmt: FloatFormat | str = "float64") -> Fraction:
        """Same as ``float_sum(values, self.name, fmt)``."""
        return float_sum(values, self.name, fmt)


MODELS: dict[str, SumModel] = {m.name: m for m in (
    SumModel("sequential", "left fold, one rounding per addition", False, _sequential),
    SumModel("pairwise", "NumPy add.reduce on a contiguous array (8 accumulators, "
             "blocks of 128, recursive halves)", False, _pairwise),
    SumModel("kahan", "Kahan compensated summation", False, _kahan),
    SumModel("neumaier", "Neumaier (improved Kahan-Babuska) compensated summation",
             False, _neumaier),
    SumModel("fsum", "the exact sum rounded once to the format (math.fsum in float64; NOT "
             "float32(math.fsum(x)), which rounds twice)", True, _fsum),
    SumModel("sorted", "ascending sort, then a left fold", True, _sorted),
    SumModel("sorted-magnitude", "ascending |x| (then x), then a left fold", True,
             _sorted_magnitude),
)}
"""The summation models by name."""

MODEL_NAMES = tuple(MODELS)

LIBRARY_MODELS: dict[str, SumModel] = {m.name: m for m in (
    SumModel("opendp-pairwise", "OpenDP's Pairwise<T>: split at n // 2, add the recursive "
             "sums of the two halves (not NumPy's blocked pairwise sum)", False,
             _opendp_pairwise),
)}
"""Bit-exact models of one library's own summation, by name (``float_sum`` takes them;
the witness searches and ``exactdp floatsum`` cover :data:`MODEL_NAMES` only)."""


def _model(model: object) -> SumModel:
    if isinstance(model, SumModel):
        return model
    if isinstance(model, str) and model in MODELS:
        return MODELS[model]
    if isinstance(model, str) and model in LIBRARY_MODELS:
        return LIBRARY_MODELS[model]
    raise InvalidArgument(f"model={model!r} is not a known summation model; pass one of "
                          f"{', '.join(MODEL_NAMES + tuple(LIBRARY_MODELS))}")


def to_format_values(values: Iterable[object], fmt: FloatFormat | str = "float64") -> list[Fraction]:
    """The exact values of ``values``, each checked to be a value of ``fmt``.

    Floats are taken at their exact binary value. Raises
    :class:`~exactdp.errors.InvalidArgument` naming the first value that is not one of
    the format's finite values.
    """
    fmt = format_named(fmt)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidArgument(f"values={values!r} is not a sequence of numbers; pass a list")
    out = []
    for i, v in enumerate(values):
        q = exact_value(v, f"values[{i}]")
        if not fmt.is_representable(q):
            raise InvalidArgument(
                f"values[{i}]={v!r} is not a value of {fmt.name}; round it first "
                f"(fmt.round) or pass values of the format")
        out.append(q)
    return out


def _native_values(values: Iterable[object], fmt: FloatFormat) -> list[float] | None:
    """Floats for the fast path, or None when some value is not a plain float."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        return None
    values = list(values)
    if not all(type(v) is float for v in values):
        return None
    for i, v in enumerate(values):
        if not math.isfinite(v) or (fmt is FLOAT32 and _safe_round32(v) != v):
            raise InvalidArgument(
                f"values[{i}]={v!r} is not a value of {fmt.name}; round it first "
                f"or pass values of the format")
    return values


def _safe_round32(v: float) -> float | None:
    try:
        return _F32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return None


def _native_sum(values: list[float], model: SumModel, fmt: FloatFormat) -> float:
    ar = _Float32Arith() if fmt is FLOAT32 else _Float64Arith()
    result = model._run(values, ar)
    if not math.isfinite(result):
        raise FloatOverflow(
            f"an intermediate result of the {model.name} sum of {len(values)} values "
            f"overflowed {fmt.name} (IEEE arithmetic gives {result!r})")
    return result


def float_sum(values: Iterable[object], model: str = "sequential",
              fmt: FloatFormat | str = "float64", *, check: bool = True) -> Fraction:
    """The exact value stored by summation algorithm ``model`` run in format ``fmt``.

    ``values`` must be values of ``fmt`` (Fractions, ints, exact strings, or floats at
    their exact binary value), in the order the algorithm reads them. Raises
    :class:`~exactdp.errors.InvalidArgument` for an unknown model or a value outside the
    format, and :class:`~exactdp.numeric.floatformat.FloatOverflow` when an intermediate
    result overflows.

    ``check=False`` skips the check that every value is a value of ``fmt`` (for searches
    that call this many times on values already known to be in the format, as
    Fractions); a wrong value then gives a meaningless result.

    >>> float_sum([1, 2**53, 1], "sequential") - 2**53   # 2**53 + 1 rounds to even
    Fraction(0, 1)
    >>> float_sum([1, 2**53, 1], "kahan") - 2**53
    Fraction(2, 1)
    """
    m = _model(model)
    f = format_named(fmt)
    if f is FLOAT64 or f is FLOAT32:
        native = _native_values(values, f) if isinstance(values, (list, tuple)) else None
        if native is None:
            native = [float(q) for q in to_format_values(values, f)]
        return Fraction(_native_sum(native, m, f))
    exact = to_format_values(values, f) if check else list(values)
    return _run_exact(m, exact, f)


def float_sum_float(values: Iterable[object], model: str = "sequential",
                    fmt: FloatFormat | str = "float64") -> float:
    """:func:`float_sum` as a Python float (``fmt`` must be float64 or float32).

    >>> float_sum_float([0.1] * 10, "pairwise") == float(__import__("numpy").sum([0.1] * 10))
    True
    """
    m = _model(model)
    f = format_named(fmt)
    if f is not FLOAT64 and f is not FLOAT32:
        raise InvalidArgument(f"fmt={f.name!r} has no native float type; use float_sum "
                              f"for an exact result, or fmt='float64' / 'float32'")
    native = _native_values(values, f) if isinstance(values, (list, tuple)) else None
    if native is None:
        native = [float(q) for q in to_format_values(values, f)]
    return _native_sum(native, m, f)
