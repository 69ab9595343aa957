"""Finite universes of exact values that records are drawn from."""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, to_exact

__all__ = ["ValueUniverse", "IntegerRange", "ExactSet", "parse_values"]


class ValueUniverse:
    """A finite, sorted set of distinct exact values (``Fraction``).

    Build one with :func:`IntegerRange` or :func:`ExactSet`.
    """

    __slots__ = ("values", "_spec")

    def __init__(self, values: Iterable[object], spec: str | None = None):
        exact = sorted({to_exact(v, "universe value") for v in values})
        if not exact:
            raise InvalidArgument(
                "universe=[] is empty; give at least one value, e.g. IntegerRange(0, 3)"
            )
        self.values: tuple[Fraction, ...] = tuple(exact)
        self._spec = spec

    @property
    def lower(self) -> Fraction:
        """The smallest value (``L`` in claims)."""
        return self.values[0]

    @property
    def upper(self) -> Fraction:
        """The largest value (``U`` in claims)."""
        return self.values[-1]

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValueUniverse) and self.values == other.values

    def __hash__(self) -> int:
        return hash(self.values)

    def describe(self) -> str:
        """Short text such as ``{0..7}`` or ``{-3, 1/4, 5/2}``."""
        if self._spec is not None:
            return self._spec
        return "{" + ", ".join(format_exact(v) for v in self.values) + "}"

    def __repr__(self) -> str:
        return f"ExactSet([{', '.join(repr(format_exact(v)) for v in self.values)}])"


def IntegerRange(lower: int, upper: int) -> ValueUniverse:  # noqa: N802 (a constructor)
    """All integers from ``lower`` to ``upper``, both included (negatives allowed).

    >>> IntegerRange(-2, 1).values
    (Fraction(-2, 1), Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1))
    """
    for name, v in (("lower", lower), ("upper", upper)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"{name}={v!r} is not an int; IntegerRange takes integer bounds")
    if lower > upper:
        raise InvalidArgument(
            f"Cannot have upper={upper!r} < lower={lower!r}; swap them or widen the range"
        )
    universe = ValueUniverse(range(lower, upper + 1), spec=f"{{{lower}..{upper}}}")
    return universe


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
    text = spec.strip()
    if ".." in text and "," not in text:
        lo, _, hi = text.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            raise InvalidArgument(
                f"{name}={spec!r} is not a range of integers; write 'A..B' such as '0..7', "
                f"or a comma list such as '1,2,5/2'"
            ) from None
        if a > b:
            raise InvalidArgument(f"{name}={spec!r} has upper={b} < lower={a}; write '{b}..{a}'")
        return [Fraction(v) for v in range(a, b + 1)]
    parts = [p for p in text.split(",")]
    if not text or any(not p.strip() for p in parts):
        raise InvalidArgument(
            f"{name}={spec!r} has an empty entry; write 'A..B' or a comma list such as '1,2,5/2'"
        )
    return [to_exact(p.strip(), f"{name} value") for p in parts]
