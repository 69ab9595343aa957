"""Finite universes of exact values that records are drawn from."""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from typing import Iterable

from exactdp._budget import MAX_LISTED_VALUES, refuse_above
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, show_exact, to_exact

__all__ = ["ValueUniverse", "IntegerRange", "ExactSet", "parse_values", "parse_universe"]


class ValueUniverse:
    """A finite, sorted set of distinct exact values (``Fraction``).

    Build one with :func:`IntegerRange` or :func:`ExactSet`. An integer range keeps only
    its bounds until its values are needed, so its size, bounds and description cost
    nothing however wide it is (budgets are checked before anything is enumerated).
    """

    __slots__ = ("_values", "_spec", "_range")

    def __init__(self, values: Iterable[object], spec: str | None = None):
        exact = sorted({to_exact(v, "universe value") for v in values})
        if not exact:
            raise InvalidArgument(
                "universe=[] is empty; give at least one value, e.g. IntegerRange(0, 3)"
            )
        self._values: tuple[Fraction, ...] | None = tuple(exact)
        self._spec = spec
        self._range: tuple[int, int] | None = None

    @classmethod
    def _integer_range(cls, lower: int, upper: int) -> "ValueUniverse":
        universe = cls.__new__(cls)
        universe._values = None
        universe._spec = f"{{{lower}..{upper}}}"
        universe._range = (lower, upper)
        return universe

    @property
    def values(self) -> tuple[Fraction, ...]:
        """Every value, sorted (built on first use for an integer range)."""
        if self._values is None:
            lo, hi = self._range  # type: ignore[misc]
            self._values = tuple(Fraction(v) for v in range(lo, hi + 1))
        return self._values

    @property
    def size(self) -> int:
        """The number of values, without building them."""
        if self._range is not None:
            return self._range[1] - self._range[0] + 1
        return len(self.values)

    @property
    def lower(self) -> Fraction:
        """The smallest value (``L`` in claims)."""
        return Fraction(self._range[0]) if self._range is not None else self.values[0]

    @property
    def upper(self) -> Fraction:
        """The largest value (``U`` in claims)."""
        return Fraction(self._range[1]) if self._range is not None else self.values[-1]

    def value(self, i: int) -> Fraction:
        """The ``i``-th smallest value (0-based), without building the others."""
        if self._range is not None:
            return Fraction(self._range[0] + i)
        return self.values[i]

    def index(self, value: Fraction) -> int | None:
        """The position of an exact value in the sorted universe, or ``None``."""
        if self._range is not None:
            if value.denominator != 1 or not self._range[0] <= value <= self._range[1]:
                return None
            return int(value) - self._range[0]
        i = bisect_left(self.values, value)
        return i if i < len(self.values) and self.values[i] == value else None

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return iter(self.values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValueUniverse):
            return False
        if self._range is not None and other._range is not None:
            return self._range == other._range
        return self.size == other.size and self.values == other.values

    def __hash__(self) -> int:
        return hash((self.size, self.lower, self.upper))

    def describe(self) -> str:
        """Short text such as ``{0..7}`` or ``{-3, 1/4, 5/2}``."""
        if self._spec is not None:
            return self._spec
        if len(self.values) > _LISTED:  # a million values made a refusal of 7.9 MB
            head = ", ".join(show_exact(v) for v in self.values[:_LISTED - 4])
            return f"{{{head}, ..., {show_exact(self.values[-1])}}} ({len(self.values):,} values)"
        return "{" + ", ".join(show_exact(v) for v in self.values) + "}"

    def __repr__(self) -> str:
        if self._range is not None:
            return f"IntegerRange({self._range[0]}, {self._range[1]})"
        return f"ExactSet([{', '.join(repr(format_exact(v)) for v in self.values)}])"


_LISTED = 12
"""Values a universe's description lists in full; a larger one shows its first and last."""


def IntegerRange(lower: int, upper: int) -> ValueUniverse:  # noqa: N802 (a constructor)
    """All integers from ``lower`` to ``upper``, both included (negatives allowed).

    >>> IntegerRange(-2, 1).values
    (Fraction(-2, 1), Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1))
    >>> len(IntegerRange(0, 10**12))  # nothing is built
    1000000000001
    """
    for name, v in (("lower", lower), ("upper", upper)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"{name}={v!r} is not an int; IntegerRange takes integer bounds")
        if v.bit_length() > 12_000:
            raise InvalidArgument(f"{name} has {v.bit_length():,} bits; use bounds of reasonable size")
    if lower > upper:
        raise InvalidArgument(
            f"Cannot have upper={upper!r} < lower={lower!r}; swap them or widen the range"
        )
    return ValueUniverse._integer_range(lower, upper)


def ExactSet(values: Iterable[object]) -> ValueUniverse:  # noqa: N802 (a constructor)
    """An explicit set of exact values; strings such as ``'0.25'`` mean exactly 1/4.

    >>> ExactSet(["5/2", -3, "0.25"]).describe()
    '{-3, 1/4, 5/2}'
    """
    return ValueUniverse(list(values))


def parse_values(spec: str, name: str = "universe") -> list[Fraction]:
    """Parse ``'A..B'`` (integers, inclusive) or a comma list of exact numbers.

    Duplicates are kept (a record pool may repeat a value).

    >>> [str(v) for v in parse_values("-1..1")]
    ['-1', '0', '1']
    >>> [str(v) for v in parse_values("5/2, -3, 0.25, 0.25")]
    ['5/2', '-3', '1/4', '1/4']
    """
    bounds = _range_spec(spec, name)
    if bounds is not None:
        a, b = bounds
        refuse_above(b - a + 1, MAX_LISTED_VALUES, what=f"values in {name}={spec.strip()!r}",
                     option=None, hint="list fewer values")
        return [Fraction(v) for v in range(a, b + 1)]
    text = spec.strip()
    parts = [p for p in text.split(",")]
    if not text or any(not p.strip() for p in parts):
        raise InvalidArgument(
            f"{name}={spec!r} has an empty entry; write 'A..B' or a comma list such as '1,2,5/2'"
        )
    return [to_exact(p.strip(), f"{name} value") for p in parts]


def _range_spec(spec: str, name: str) -> tuple[int, int] | None:
    """``(A, B)`` for a spec ``'A..B'``, ``None`` for a comma list."""
    if not isinstance(spec, str):
        raise InvalidArgument(f"{name}={spec!r} is not a string; write 'A..B' or '1,2,5/2'")
    text = spec.strip()
    if ".." not in text or "," in text:
        return None
    lo, _, hi = text.partition("..")
    try:
        if len(text) > 4000:
            raise ValueError
        a, b = int(lo), int(hi)
    except ValueError:
        raise InvalidArgument(
            f"{name}={spec[:40]!r} is not a range of integers; write 'A..B' such as '0..7', "
            f"or a comma list such as '1,2,5/2'"
        ) from None
    if a > b:
        raise InvalidArgument(f"{name}={spec!r} has upper={b} < lower={a}; write '{b}..{a}'")
    return a, b


def parse_universe(spec: str, name: str = "universe") -> ValueUniverse:
    """A universe from ``'A..B'`` (an :func:`IntegerRange`, never expanded here) or a comma
    list of exact numbers (duplicates merged).

    >>> parse_universe("0..10000000000").size
    10000000001
    >>> parse_universe("5/2, -3").describe()
    '{-3, 5/2}'
    """
    bounds = _range_spec(spec, name)
    if bounds is not None:
        return IntegerRange(*bounds)
    return ValueUniverse(parse_values(spec, name))
