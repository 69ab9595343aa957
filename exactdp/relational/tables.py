"""Tiny relational tables and their exhaustive enumeration.

A :class:`Row` is ``(key, value, pid)``: a join key (or group key), one non-key value that
stands for "every other column", and a privacy id (``None`` when the table has none). A
table is a multiset of rows, kept in one canonical form: a sorted tuple. Two tables are
equal exactly when they hold the same rows with the same multiplicities.

A :class:`TableDomain` is a finite set of tables: rows drawn from ``keys x values x ids``,
at most ``rows_per_key`` rows with the same key (or ``rows_per_id`` with the same id), and
optionally at most ``max_rows`` rows in all. :meth:`TableDomain.count` computes the number
of tables exactly *before* anything is enumerated, and :meth:`TableDomain.tables` refuses
with :class:`~exactdp.errors.TooLarge` when it exceeds the budget.

>>> d = TableDomain(keys=("a",), values=(1, 2), rows_per_key=2)
>>> d.count()
6
>>> [format_table(t) for t in d.tables()][:3]
['{}', '{(a,1)}', '{(a,2)}']
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from math import comb
from typing import Any, Hashable, Iterable, Iterator, NamedTuple

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument

__all__ = ["Row", "Table", "TableDomain", "make_table", "symmetric_difference", "format_table",
           "DEFAULT_MAX_TABLES"]

DEFAULT_MAX_TABLES = 100_000


class Row(NamedTuple):
    """One row: join/group ``key``, a non-key ``value``, and a privacy id ``pid`` (or None)."""

    key: Hashable
    value: Hashable = None
    pid: Hashable = None

    def __str__(self) -> str:
        parts = [_plain(self.key)] + ([] if self.value is None else [_plain(self.value)]) + \
            ([] if self.pid is None else [f"id={_plain(self.pid)}"])
        return "(" + ",".join(parts) + ")"


Table = tuple  # a sorted tuple of rows (or of output tuples): a multiset in canonical form


def _order(item: Any):
    """A total order on rows of mixed types (None first, then by type name, then value)."""
    if isinstance(item, tuple):
        return tuple(_order(x) for x in item)
    return (item is not None, type(item).__name__, item if item is not None else 0)


def make_table(rows: Iterable) -> Table:
    """The canonical form of a multiset of rows (tuples are converted to :class:`Row`).

    >>> format_table(make_table([("b", 1), ("a", 2), ("b", 1)]))
    '{(a,2), (b,1), (b,1)}'
    """
    out = []
    for r in rows:
        if isinstance(r, Row):
            out.append(r)
        elif isinstance(r, tuple) and 1 <= len(r) <= 3:
            out.append(Row(*r))
        else:
            raise InvalidArgument(f"row={r!r} is not a Row or a tuple (key[, value[, pid]]); "
                                  f"give rows as ('a', 1) or Row('a', 1, pid=7)")
    return tuple(sorted(out, key=_order))


def symmetric_difference(x: Iterable, y: Iterable) -> int:
    """``|x Δ y|`` of two multisets: rows added plus rows removed, with multiplicity.

    >>> symmetric_difference([1, 1, 2], [1, 3])
    3
    """
    cx, cy = Counter(x), Counter(y)
    return sum(((cx - cy) + (cy - cx)).values())


def format_table(table: Iterable) -> str:
    """``'{(a,1), (a,2)}'``: the rows of a table in canonical order."""
    items = sorted(table, key=_order)
    return "{" + ", ".join(str(r) if isinstance(r, Row) else _plain(r) for r in items) + "}"


def _plain(item) -> str:
    if isinstance(item, tuple):
        return "(" + ",".join(_plain(x) for x in item) + ")"
    return str(item)


def _check_values(name: str, values) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidArgument(f"{name}={values!r} is not a sequence; give a tuple such as ('a', 'b')")
    values = tuple(values)
    if not values:
        raise InvalidArgument(f"{name}={values!r} is empty; give at least one element")
    if len(set(values)) != len(values):
        raise InvalidArgument(f"{name}={values!r} repeats an element; give distinct elements")
    return values


def _check_cap(name: str, cap) -> int | None:
    if cap is None:
        return None
    if isinstance(cap, bool) or not isinstance(cap, int):
        raise InvalidArgument(f"{name}={cap!r} is not an int; give a non-negative int or None")
    if cap < 0:
        raise InvalidArgument(f"{name}={cap!r} is negative; give a non-negative int or None")
    return cap


def _multisets_upto(n_types: int, cap: int) -> int:
    """Number of multisets of size 0..cap over n_types types."""
    return sum(comb(s + n_types - 1, n_types - 1) for s in range(cap + 1))


@dataclasses.dataclass(frozen=True)
class TableDomain:
    """Every table over ``keys x values x ids`` within the row caps (see module doc).

    Exactly one of ``rows_per_key`` and ``rows_per_id`` bounds the rows of one block (all
    rows sharing a key, or sharing a privacy id); ``max_rows`` optionally bounds the total.
    ``values=(None,)`` gives tables of join keys only; ``ids=(None,)`` tables without ids.
    """

    keys: tuple
    values: tuple = (None,)
    ids: tuple = (None,)
    rows_per_key: int | None = None
    rows_per_id: int | None = None
    max_rows: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "keys", _check_values("keys", self.keys))
        object.__setattr__(self, "values", _check_values("values", self.values))
        object.__setattr__(self, "ids", _check_values("ids", self.ids))
        for name in ("rows_per_key", "rows_per_id", "max_rows"):
            _check_cap(name, getattr(self, name))
        if (self.rows_per_key is None) == (self.rows_per_id is None):
            raise InvalidArgument(
                f"rows_per_key={self.rows_per_key!r}, rows_per_id={self.rows_per_id!r}: give "
                f"exactly one of them (the cap on rows sharing a key, or sharing a privacy id)")
        if self.rows_per_id is not None and None in self.ids:
            raise InvalidArgument(f"rows_per_id={self.rows_per_id!r} with ids={self.ids!r}: "
                                  f"a per-id cap needs real privacy ids; give ids=(1, 2)")

    # -- blocks: the rows sharing a key (or an id) -------------------------------------
    def _blocks(self) -> list[tuple[Row, ...]]:
        if self.rows_per_key is not None:
            return [tuple(Row(k, v, i) for v in self.values for i in self.ids) for k in self.keys]
        return [tuple(Row(k, v, i) for k in self.keys for v in self.values) for i in self.ids]

    def _cap(self) -> int:
        return self.rows_per_key if self.rows_per_key is not None else self.rows_per_id

    def count(self) -> int:
        """The exact number of tables, computed without enumerating them.

        >>> TableDomain(keys=("a", "b"), values=(1, 2), rows_per_key=3).count()  # 10 per key
        100
        """
        blocks, cap = self._blocks(), self._cap()
        # generating polynomial in the number of rows: product over blocks
        poly = [1]
        for block in blocks:
            per = [comb(s + len(block) - 1, len(block) - 1) for s in range(cap + 1)]
            new = [0] * (len(poly) + cap)
            for i, a in enumerate(poly):
                for j, b in enumerate(per):
                    new[i + j] += a * b
            poly = new
        limit = len(poly) - 1 if self.max_rows is None else min(self.max_rows, len(poly) - 1)
        return sum(poly[: limit + 1])

    def block_tables(self) -> list[Table]:
        """Every multiset of rows of one block (the first key, or the first id), up to the cap."""
        block = self._blocks()[0]
        return [tuple(c) for s in range(self._cap() + 1)
                for c in itertools.combinations_with_replacement(block, s)]

    def tables(self, max_tables: int = DEFAULT_MAX_TABLES) -> Iterator[Table]:
        """Every table of the domain, each once, in canonical form.

        Raises :class:`~exactdp.errors.TooLarge` (before enumerating anything) when there
        are more than ``max_tables``.
        """
        refuse_above(self.count(), max_tables, what=f"tables in the domain {self.describe()}",
                     option="max_tables", hint="use fewer keys, values or rows per block")
        cap = self._cap()
        per_block = [[tuple(c) for s in range(cap + 1)
                      for c in itertools.combinations_with_replacement(block, s)]
                     for block in self._blocks()]
        for combo in itertools.product(*per_block):
            if self.max_rows is not None and sum(len(c) for c in combo) > self.max_rows:
                continue
            yield make_table(itertools.chain.from_iterable(combo))

    def __contains__(self, table) -> bool:
        rows = list(table)
        for r in rows:
            if r.key not in self.keys or r.value not in self.values or r.pid not in self.ids:
                return False
        if self.max_rows is not None and len(rows) > self.max_rows:
            return False
        per = Counter(r.key if self.rows_per_key is not None else r.pid for r in rows)
        return all(c <= self._cap() for c in per.values())

    def describe(self) -> str:
        """``'tables over keys {a,b} x values {1,2}, <= 3 rows per key'``."""
        text = "tables over keys {" + ",".join(map(str, self.keys)) + "}"
        if self.values != (None,):
            text += " x values {" + ",".join(map(str, self.values)) + "}"
        if self.ids != (None,):
            text += " x ids {" + ",".join(map(str, self.ids)) + "}"
        text += (f", <= {self.rows_per_key} rows per key" if self.rows_per_key is not None
                 else f", <= {self.rows_per_id} rows per id")
        if self.max_rows is not None:
            text += f", <= {self.max_rows} rows in all"
        return text
