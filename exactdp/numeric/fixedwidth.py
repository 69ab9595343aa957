"""Exact models of fixed-width integer arithmetic: wrap-around and saturation.

A library that sums integers in ``i32`` or ``i64`` does not compute the integer sum:

* **wrap** (two's complement; NumPy's integer arrays, Rust's ``wrapping_add`` and its
  ``+`` in release builds): every ``+`` is reduced modulo ``2**bits`` into
  ``[-2**(bits-1), 2**(bits-1) - 1]``;
* **saturate** (Rust's ``saturating_add``): every ``+`` is clamped to that range.

Either way the sum can move by far more than ``U - L`` when one record changes: a sum
just below ``2**31 - 1`` wraps to about ``-2**31`` (OpenDP #178, #2925: a b-ary tree of
``i32`` counts wraps at ``2**31 - 1``). The functions here return the *exact* integer the
program stores, so the enumeration engine checks a claimed sensitivity against what
the code computes, not against the mathematical sum.

Models of the order of additions:

* :func:`int_sum` with ``model="sequential"``: ``((0 + v0) + v1) + ...``, the order of a
  loop or of Rust's ``Iterator::sum``;
* :func:`b_ary_tree`: OpenDP's ``make_b_ary_tree`` (checked against OpenDP 0.16 bit
  for bit): leaves padded with zeros to a power of the branching factor ``b``, each node
  the sum (left to right, from 0) of its ``b`` children, every node returned root first
  (breadth-first) with the padding zeros at the end dropped; ``int_sum`` with
  ``model="tree"`` returns the root.

Wrap-around is a ring homomorphism, so a wrapped sum does not depend on the order of
additions; saturation does, which is why order-dependent models are checked over
:class:`~exactdp.spaces.sequences.Sequences`.

>>> int_sum([100, 27], "int8"), int_sum([100, 28], "int8"), int_sum([100, 28], "int8", "saturate")
(127, -128, 127)
>>> wrap(2**31, "int32"), saturate(-2**40, "int32")
(-2147483648, -2147483648)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from exactdp.errors import InexactInput, InvalidArgument

__all__ = [
    "IntFormat", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
    "int_format", "wrap", "saturate", "add", "int_sum", "b_ary_tree", "OVERFLOW_MODES",
    "SUM_MODELS", "OverflowWitness", "overflow_witness",
]

OVERFLOW_MODES = ("wrap", "saturate")
SUM_MODELS = ("sequential", "tree")
_MAX_BITS = 4096


@dataclass(frozen=True)
class IntFormat:
    """A fixed-width integer type: ``bits`` wide, two's complement when ``signed``."""

    name: str
    bits: int
    signed: bool = True

    def __post_init__(self):
        if isinstance(self.bits, bool) or not isinstance(self.bits, int) or not 1 <= self.bits <= _MAX_BITS:
            raise InvalidArgument(f"bits={self.bits!r} is not a width from 1 to {_MAX_BITS}")
        if self.signed and self.bits < 2:
            raise InvalidArgument("a signed format needs at least 2 bits")

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def contains(self, value: int) -> bool:
        return self.min <= value <= self.max

    def __str__(self) -> str:
        return self.name


INT8, INT16, INT32, INT64 = (IntFormat(f"int{b}", b) for b in (8, 16, 32, 64))
UINT8, UINT16, UINT32, UINT64 = (IntFormat(f"uint{b}", b, False) for b in (8, 16, 32, 64))
_NAMED = {f.name: f for f in (INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64)}
_ALIASES = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}


def int_format(fmt: object) -> IntFormat:
    """A format from an :class:`IntFormat` or a name: ``"int32"``, ``"i32"``, ``"uint8"``..."""
    if isinstance(fmt, IntFormat):
        return fmt
    if isinstance(fmt, str):
        key = _ALIASES.get(fmt.strip(), fmt.strip())
        if key in _NAMED:
            return _NAMED[key]
    raise InvalidArgument(
        f"fmt={fmt!r} is not an integer format; use one of {', '.join(_NAMED)} (or i8..u64), "
        f"or IntFormat(name, bits, signed)"
    )


def _integer(value: object, name: str) -> int:
    if isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} is a bool; pass an int")
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    if isinstance(value, float):
        raise InexactInput(f"{name}={value!r} is a float; fixed-width sums take ints (int(x) "
                           f"if the value is integral)")
    try:  # NumPy integer scalars
        import operator

        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgument(f"{name}={value!r} is not an integer") from None


def wrap(value: object, fmt: object = "int32") -> int:
    """``value`` reduced into the format modulo ``2**bits`` (two's complement)."""
    f = int_format(fmt)
    v = _integer(value, "value")
    return ((v - f.min) % (1 << f.bits)) + f.min


def saturate(value: object, fmt: object = "int32") -> int:
    """``value`` clamped into the format's range."""
    f = int_format(fmt)
    v = _integer(value, "value")
    return min(max(v, f.min), f.max)


def _mode(overflow: object) -> str:
    if overflow not in OVERFLOW_MODES:
        raise InvalidArgument(f"overflow={overflow!r} is not one of {', '.join(OVERFLOW_MODES)}")
    return overflow  # type: ignore[return-value]


def add(a: int, b: int, fmt: object = "int32", overflow: str = "wrap") -> int:
    """One ``+`` in the format: ``wrapping_add`` or ``saturating_add``."""
    f = int_format(fmt)
    return (wrap if _mode(overflow) == "wrap" else saturate)(_integer(a, "a") + _integer(b, "b"), f)


def _inputs(values: Iterable[object], f: IntFormat, bounds: tuple | None) -> list[int]:
    out = []
    lo = hi = None
    if bounds is not None:
        lo, hi = _integer(bounds[0], "lower"), _integer(bounds[1], "upper")
        if lo > hi:
            raise InvalidArgument(f"Cannot have upper={hi} < lower={lo}; swap the bounds")
        if not (f.contains(lo) and f.contains(hi)):
            raise InvalidArgument(f"bounds=({lo}, {hi}) are not both in {f.name} [{f.min}, {f.max}]")
    for raw in values:
        v = _integer(raw, "value")
        if bounds is not None:
            v = min(max(v, lo), hi)  # type: ignore[type-var]
        elif not f.contains(v):
            raise InvalidArgument(
                f"value={v} is not a {f.name} (range [{f.min}, {f.max}]); the program could not "
                f"hold it: clip first (bounds=(L, U)) or use a wider format"
            )
        out.append(v)
    return out


def _fold(values: Iterable[int], f: IntFormat, mode: str) -> int:
    op = wrap if mode == "wrap" else saturate
    acc = 0
    for v in values:
        acc = op(acc + v, f)
    return acc


def b_ary_tree(values: Iterable[object], fmt: object = "int32", overflow: str = "wrap", *,
               arity: int = 2, bounds: tuple | None = None,
               leaf_count: int | None = None) -> list[int]:
    """Every node of OpenDP's ``make_b_ary_tree(..., leaf_count, branching_factor=arity)``
    over ``values``, root first, as OpenDP returns it.

    As in OpenDP's ``rust/src/transformations/b_ary_tree/mod.rs``: the first
    ``leaf_count`` values are the leaves (``leaf_count`` defaults to ``len(values)``, at
    least 1; extra values are ignored); the tree has ``layers = ceil(log_arity(leaf_count))
    + 1`` layers, so ``arity**(layers - 1)`` leaf slots, filled with zeros after the
    leaves; each node is the sum, in the format, of its ``arity`` children left to right
    from 0 (Rust's ``Iterator::sum``, which wraps in release builds); the layers are
    returned root first, and the trailing zero slots (``arity**(layers - 1) - min(leaf_count,
    len(values))`` of them) are dropped from the end.

    >>> b_ary_tree([1, 2, 3], "int8", arity=2)
    [6, 3, 3, 1, 2, 3]
    >>> b_ary_tree([1], "int8", leaf_count=3)
    [1, 1, 0, 1]
    >>> b_ary_tree([100, 100, 1, 1], "int8")[:3]
    [-54, -56, 2]
    """
    f = int_format(fmt)
    mode = _mode(overflow)
    if isinstance(arity, bool) or not isinstance(arity, int) or arity < 2:
        raise InvalidArgument(f"arity={arity!r} is not a branching factor >= 2")
    values = list(values)
    if leaf_count is None:
        leaf_count = max(len(values), 1)
    if isinstance(leaf_count, bool) or not isinstance(leaf_count, int) or leaf_count < 1:
        raise InvalidArgument(f"leaf_count={leaf_count!r} is not a number of leaves >= 1")
    leaves = _inputs(values[:leaf_count], f, bounds)
    width, depth = 1, 0
    while width < leaf_count:
        width *= arity
        depth += 1
    pad = width - len(leaves)
    layer = leaves + [0] * pad
    layers = [layer]
    for _ in range(depth):
        layer = [_fold(layer[i:i + arity], f, mode) for i in range(0, len(layer), arity)]
        layers.append(layer)
    out: list[int] = []
    for lay in reversed(layers):
        out.extend(lay)
    return out[:len(out) - pad]


def int_sum(values: Iterable[object], fmt: object = "int32", overflow: str = "wrap",
            model: str = "sequential", *, arity: int = 2, bounds: tuple | None = None) -> int:
    """The integer a program stores when it sums ``values`` in ``fmt``.

    ``overflow``: ``"wrap"`` or ``"saturate"``; ``model``: ``"sequential"`` (a loop) or
    ``"tree"`` (the root of :func:`b_ary_tree` with ``arity``); ``bounds=(L, U)`` clamps
    every value first (a clipped sum). Values outside the format are refused unless
    clipped.

    >>> int_sum([2**30, 2**30 - 1], "int32"), int_sum([2**30, 2**30], "int32")
    (2147483647, -2147483648)
    """
    f = int_format(fmt)
    mode = _mode(overflow)
    if model not in SUM_MODELS:
        raise InvalidArgument(f"model={model!r} is not one of {', '.join(SUM_MODELS)}")
    if model == "tree":
        nodes = b_ary_tree(values, f, mode, arity=arity, bounds=bounds)
        return nodes[0] if nodes else 0  # no value: OpenDP's tree drops its one zero leaf
    return _fold(_inputs(values, f, bounds), f, mode)


@dataclass(frozen=True)
class OverflowWitness:
    """Two datasets differing by one added record, every value in ``[0, upper]``, whose
    sums in ``fmt`` move by more than ``upper`` (so the sum's sensitivity ``upper`` is
    wrong for the code that computes it): ``copies`` records of ``upper`` and ``copies + 1``.
    ``sum_x``/``sum_x_prime`` are the stored (wrapped or saturated) sums, ``exact_x``/
    ``exact_x_prime`` the integer sums."""

    fmt: IntFormat
    overflow: str
    upper: int
    copies: int
    sum_x: int
    sum_x_prime: int
    exact_x: int
    exact_x_prime: int

    @property
    def change(self) -> int:
        """``|sum_x_prime - sum_x|``, the stored sum's move when the record is added."""
        return abs(self.sum_x_prime - self.sum_x)

    def to_dict(self) -> dict:
        return {"format": self.fmt.name, "overflow": self.overflow, "upper": self.upper, "copies": self.copies,
                "x": f"{self.copies} records of {self.upper}",
                "x_prime": f"{self.copies + 1} records of {self.upper}",
                "sum_x": self.sum_x, "sum_x_prime": self.sum_x_prime, "exact_x": self.exact_x,
                "exact_x_prime": self.exact_x_prime, "change": self.change}


def overflow_witness(upper: object, fmt: object = "int64", overflow: str = "wrap") -> OverflowWitness | None:
    """The smallest pair of datasets of values in ``[0, upper]``, one record apart, whose
    sums in ``fmt`` (any order of additions for ``wrap``; sequential for ``saturate``)
    move by more than ``upper``: ``m = max // upper`` copies of ``upper`` (a sum that
    still fits) and ``m + 1`` copies (a sum that does not). ``None`` when there is none
    (``saturate`` never moves a sum of non-negative values by more than one value).

    Computed from ``m`` alone (``m`` may be ``7.4 * 10**16`` records for ``upper = 125``
    in ``int64``): with wrap-around the stored sum of ``m + 1`` copies is ``wrap((m + 1) *
    upper)``, which is what NumPy's ``np.array(x, dtype=np.int64).sum()`` and pandas'
    ``Series.sum()`` on an ``int64`` column return.

    >>> w = overflow_witness(2**62)
    >>> w.copies, w.sum_x, w.sum_x_prime, w.exact_x_prime, w.change > w.upper
    (1, 4611686018427387904, -9223372036854775808, 9223372036854775808, True)
    >>> overflow_witness(125).copies
    73786976294838206
    """
    f = int_format(fmt)
    mode = _mode(overflow)
    u = _integer(upper, "upper")
    if not 1 <= u <= f.max:
        raise InvalidArgument(f"upper={u} is not a bound from 1 to the largest {f.name} ({f.max}); "
                              f"pass the clipping bound of the sum")
    m = f.max // u
    exact_x, exact_x_prime = m * u, (m + 1) * u
    op = wrap if mode == "wrap" else saturate
    w = OverflowWitness(f, mode, u, m, op(exact_x, f), op(exact_x_prime, f), exact_x, exact_x_prime)
    return w if w.change > u else None
