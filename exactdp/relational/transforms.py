"""Seed 001's transformations as exact functions on tables, and the stabilities it states.

Tables are multisets in canonical form (see :mod:`exactdp.relational.tables`); outputs of
joins are sorted tuples of ``(key, left value, right value)``.

Truncation strategies (private joins): :class:`DropExcess` ``(T)`` keeps, for every join key,
the ``T`` *smallest* rows in the canonical row order. Tumult documents only that the kept
rows are chosen deterministically and independently of the order of the data, which a fixed
total order on rows models; which fixed order is used does not change any worst case (it
only relabels values), and the tests check a keep-the-largest variant;
:class:`DropNonUnique` keeps exactly the keys that appear once. Their published stabilities
are 2 and 1 (seed 001).

>>> from exactdp.relational.tables import make_table, format_table
>>> t = make_table([("a", 2), ("a", 1), ("a", 3), ("b", 1)])
>>> format_table(DropExcess(2).apply(t)), format_table(DropNonUnique().apply(t))
('{(a,1), (a,2), (b,1)}', '{(b,1)}')
>>> private_join_stability(DropExcess(2), DropExcess(2), 1, 1)   # seed 001's worked value
8
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Callable, Hashable, Iterable, Sequence

import sympy

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import to_exact
from exactdp.relational.tables import Row, Table, format_table, make_table, _order

__all__ = [
    "flat_map", "public_join", "DropExcess", "DropNonUnique", "private_join",
    "public_join_by_id", "private_join_on_id",
    "max_rows_per_id", "max_groups_per_id", "max_rows_per_group_per_id", "groupby_count",
    "groupby_sum",
    "l1_distance", "l2_distance", "flat_map_stability", "public_join_stability",
    "private_join_stability",
]


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; give a positive int such as 2")
    if value < 1:
        raise InvalidArgument(f"{name}={value!r} is not positive; give an int >= 1")
    return value


def flat_map(table: Iterable, f: Callable[[Row], Sequence], max_rows: int) -> Table:
    """Every row mapped to the rows ``f(row)`` (0 to ``max_rows`` of them), as one multiset.

    Raises :class:`~exactdp.errors.InvalidArgument` when ``f`` yields more than ``max_rows``
    rows for some row (Tumult's flat map truncates silently; here it is a bug in ``f``).

    >>> flat_map([("a", 1), ("b", 2)], lambda r: [r.key] * r.value, max_rows=2)
    ('a', 'b', 'b')
    """
    _positive_int("max_rows", max_rows)
    out = []
    for row in table:
        row = row if isinstance(row, Row) else Row(*row)
        produced = list(f(row))
        if len(produced) > max_rows:
            raise InvalidArgument(f"the flat map gave {len(produced)} rows for row={row!r}, "
                                  f"more than max_rows={max_rows!r}; raise max_rows or fix f")
        out.extend(produced)
    return tuple(sorted(out, key=_order))


def public_join(private: Iterable, public: Iterable) -> Table:
    """Inner join on the key: one output row ``(key, private value, public value)`` per match.

    >>> public_join([("z1", "Susie")], [("z1", "TN"), ("z1", "KY"), ("z2", "NC")])
    (('z1', 'Susie', 'KY'), ('z1', 'Susie', 'TN'))
    """
    return tuple(sorted((out for _, out in _matches(private, public)), key=_order))


def public_join_by_id(private: Iterable, public: Iterable) -> Table:
    """:func:`public_join` for a table of privacy ids: each output row keeps the id of the
    private row it came from, as ``Row(key, (private value, public value), pid)``.

    >>> format_table(public_join_by_id([("z1", "S", 7)], [("z1", "TN"), ("z1", "KY")]))
    '{(z1,(S,KY),id=7), (z1,(S,TN),id=7)}'
    """
    return make_table(Row(key, (value, pv), row.pid)
                      for row, (key, value, pv) in _matches(private, public))


def _matches(private: Iterable, public: Iterable):
    by_key = defaultdict(list)
    for p in public:
        p = p if isinstance(p, Row) else Row(*p)
        by_key[p.key].append(p.value)
    for row in private:
        row = row if isinstance(row, Row) else Row(*row)
        for pv in by_key.get(row.key, ()):
            yield row, (row.key, row.value, pv)


def private_join_on_id(left: Iterable, right: Iterable, on_id: bool = True) -> Table:
    """Inner join of two private tables of one id space on the key and the privacy id:
    ``Row(key, (left value, right value), pid)`` for every left and right row sharing both.

    ``on_id=False`` joins on the key alone (rows of two ids meet; the output row's id is the
    pair of ids), the join that does *not* keep ``AddRowsWithID`` (see
    :func:`~exactdp.relational.worst.id_change_kept`).

    >>> format_table(private_join_on_id([("a", 1, 7), ("a", 2, 8)], [("a", 5, 7)]))
    '{(a,(1,5),id=7)}'
    """
    right_rows = [r if isinstance(r, Row) else Row(*r) for r in right]
    out = []
    for row in left:
        row = row if isinstance(row, Row) else Row(*row)
        for r in right_rows:
            if r.key == row.key and (not on_id or r.pid == row.pid):
                out.append(Row(row.key, (row.value, r.value),
                               row.pid if on_id else (row.pid, r.pid)))
    return make_table(out)


@dataclasses.dataclass(frozen=True)
class DropExcess:
    """Keep at most ``max_rows`` rows per key: the smallest in the canonical row order."""

    max_rows: int

    def __post_init__(self):
        _positive_int("max_rows", self.max_rows)

    @property
    def threshold(self) -> int:
        """``T`` in seed 001's formula: the most rows per key after truncation."""
        return self.max_rows

    @property
    def stability(self) -> int:
        """``S`` in seed 001's formula: 2 (one added row can also displace a kept one)."""
        return 2

    def apply(self, table: Iterable) -> Table:
        """The truncated table."""
        kept, seen = [], Counter()
        for row in make_table(table):
            if seen[row.key] < self.max_rows:
                kept.append(row)
                seen[row.key] += 1
        return tuple(kept)

    def __str__(self) -> str:
        return f"DropExcess({self.max_rows})"


@dataclasses.dataclass(frozen=True)
class DropNonUnique:
    """Drop every row whose key appears more than once."""

    @property
    def threshold(self) -> int:
        """``T = 1``: at most one row per key survives."""
        return 1

    @property
    def stability(self) -> int:
        """``S = 1`` (seed 001)."""
        return 1

    def apply(self, table: Iterable) -> Table:
        """The truncated table."""
        t = make_table(table)
        counts = Counter(r.key for r in t)
        return tuple(r for r in t if counts[r.key] == 1)

    def __str__(self) -> str:
        return "DropNonUnique()"


def private_join(left: Iterable, right: Iterable, left_truncation, right_truncation) -> Table:
    """Truncate both private tables, then join them on the key.

    >>> private_join([("a", 1), ("a", 2)], [("a", 5)], DropExcess(1), DropNonUnique())
    (('a', 1, 5),)
    """
    return public_join(left_truncation.apply(left), right_truncation.apply(right))


def max_rows_per_id(table: Iterable, max_rows: int) -> Table:
    """Tumult's ``MaxRowsPerID``: keep at most ``max_rows`` rows per privacy id (the smallest)."""
    _positive_int("max_rows", max_rows)
    kept, seen = [], Counter()
    for row in make_table(table):
        if seen[row.pid] < max_rows:
            kept.append(row)
            seen[row.pid] += 1
    return tuple(kept)


def max_groups_per_id(table: Iterable, max_groups: int) -> Table:
    """Tumult's ``MaxGroupsPerID``: keep the rows of at most ``max_groups`` keys per id.

    The kept keys of an id are its smallest ones (a fixed order, as for :class:`DropExcess`).
    """
    _positive_int("max_groups", max_groups)
    t = make_table(table)
    groups = defaultdict(set)
    for row in t:
        groups[row.pid].add(row.key)
    keep = {pid: set(sorted(keys, key=_order)[:max_groups]) for pid, keys in groups.items()}
    return tuple(r for r in t if r.key in keep[r.pid])


def max_rows_per_group_per_id(table: Iterable, max_rows: int) -> Table:
    """Tumult's ``MaxRowsPerGroupPerID``: at most ``max_rows`` rows per (id, key) pair."""
    _positive_int("max_rows", max_rows)
    kept, seen = [], Counter()
    for row in make_table(table):
        if seen[(row.pid, row.key)] < max_rows:
            kept.append(row)
            seen[(row.pid, row.key)] += 1
    return tuple(kept)


def groupby_count(table: Iterable, groups: Sequence[Hashable]) -> tuple[int, ...]:
    """The number of rows with each key of ``groups`` (a public list of group keys).

    >>> groupby_count([("a", 1), ("a", 2), ("c", 1)], ("a", "b"))
    (2, 0)
    """
    c = Counter((r if isinstance(r, Row) else Row(*r)).key for r in table)
    return tuple(c[g] for g in groups)


def groupby_sum(table: Iterable, groups: Sequence[Hashable], lower, upper) -> tuple[Fraction, ...]:
    """The sum of the values clamped to ``[lower, upper]`` for each key of ``groups``, exactly.

    Bounds and values must be exact numbers (int, Fraction, exact strings for the bounds);
    a float raises :class:`~exactdp.errors.InexactInput`.

    >>> groupby_sum([("a", 5), ("a", -4), ("b", 1)], ("a", "b"), -2, 3)
    (Fraction(1, 1), Fraction(1, 1))
    """
    lo, hi = to_exact(lower, "lower"), to_exact(upper, "upper")
    if lo > hi:
        raise InvalidArgument(f"upper={upper!r} < lower={lower!r}; give lower <= upper")
    sums = {g: Fraction(0) for g in groups}
    for r in table:
        r = r if isinstance(r, Row) else Row(*r)
        if r.key in sums:
            sums[r.key] += min(max(to_exact(r.value, "value"), lo), hi)
    return tuple(sums[g] for g in groups)


def l1_distance(u: Sequence[int], v: Sequence[int]) -> int:
    """``sum |u_i - v_i|`` (exact)."""
    return sum(abs(a - b) for a, b in zip(u, v, strict=True))


def l2_distance(u: Sequence, v: Sequence) -> sympy.Expr:
    """``sqrt(sum (u_i - v_i)^2)`` as an exact SymPy number (e.g. ``2*sqrt(2)``)."""
    sq = Fraction(sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(u, v, strict=True)))
    return sympy.sqrt(sympy.Rational(sq.numerator, sq.denominator))


def flat_map_stability(n: int, max_rows: int) -> int:
    """Seed 001: a flat map with ``max_rows`` turns ``AddMaxRows(n)`` into ``AddMaxRows(n*max_rows)``."""
    return _positive_int("n", n) * _positive_int("max_rows", max_rows)


def public_join_stability(n: int, m: int) -> int:
    """Seed 001: a public join where each key matches at most ``m`` public rows: ``n*m``."""
    return _positive_int("n", n) * _positive_int("m", m)


def private_join_stability(left_truncation, right_truncation, m_left: int, m_right: int) -> int:
    """Seed 001's ``T_l*S_r*M_r + T_r*S_l*M_l`` for the two strategies and protected changes.

    >>> private_join_stability(DropNonUnique(), DropExcess(2), 1, 1)
    4
    >>> private_join_stability(DropExcess(1), DropExcess(2), 1, 1)
    6
    """
    _positive_int("m_left", m_left)
    _positive_int("m_right", m_right)
    for name, s in (("left_truncation", left_truncation), ("right_truncation", right_truncation)):
        if not isinstance(s, (DropExcess, DropNonUnique)):
            raise InvalidArgument(f"{name}={s!r} is not a truncation strategy; give "
                                  f"DropExcess(T) or DropNonUnique()")
    lt, rt = left_truncation, right_truncation
    return lt.threshold * rt.stability * m_right + rt.threshold * lt.stability * m_left
