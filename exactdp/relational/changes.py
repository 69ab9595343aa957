"""Tumult's protected changes as neighbour relations on tables.

- :class:`AddMaxRows` ``(n)``: ``|x Δ y| <= n`` (rows added plus rows removed, a mix allowed;
  this is Tumult's ``SymmetricDifference`` metric with ``d_in = max_rows``);
- :class:`AddOneRow`: ``AddMaxRows(1)``;
- :class:`AddRowsWithID`: ``y`` is ``x`` with *every* row of one privacy id added (the id is
  absent from ``x``) or removed (all of them); rows of the other ids are unchanged.

``neighbours(x, domain)`` yields every ``y != x`` in the domain related to ``x``.

>>> from exactdp.relational.tables import TableDomain, make_table, format_table
>>> d = TableDomain(keys=("a",), values=(1, 2), rows_per_key=2)
>>> x = make_table([("a", 1)])
>>> sorted(format_table(y) for y in AddOneRow().neighbours(x, d))
['{(a,1), (a,1)}', '{(a,1), (a,2)}', '{}']
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from typing import Iterator

from exactdp.errors import InvalidArgument
from exactdp.relational.tables import Row, Table, TableDomain, make_table, symmetric_difference

__all__ = ["ProtectedChange", "AddMaxRows", "AddOneRow", "AddRowsWithID"]


class ProtectedChange:
    """A neighbour relation on tables."""

    def related(self, x: Table, y: Table) -> bool:  # pragma: no cover - abstract
        """Whether ``x`` and ``y`` are neighbours (never a table with itself)."""
        raise NotImplementedError

    def neighbours(self, x: Table, domain: TableDomain) -> Iterator[Table]:  # pragma: no cover
        """Every neighbour of ``x`` that lies in ``domain``, each once."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        """The change's name as Tumult writes it."""
        raise NotImplementedError


def _sub_multisets(counter: Counter, size: int) -> Iterator[tuple]:
    """Every sub-multiset of ``counter`` with exactly ``size`` elements, each once."""
    items = sorted(counter.items(), key=lambda kv: repr(kv[0]))

    def rec(i: int, left: int):
        if left == 0:
            yield ()
            return
        if i == len(items):
            return
        row, mult = items[i]
        for take in range(min(mult, left), -1, -1):
            for rest in rec(i + 1, left - take):
                yield (row,) * take + rest

    yield from rec(0, size)


@dataclasses.dataclass(frozen=True)
class AddMaxRows(ProtectedChange):
    """Up to ``max_rows`` rows added or removed (symmetric difference ``<= max_rows``)."""

    max_rows: int

    def __post_init__(self):
        n = self.max_rows
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidArgument(f"max_rows={n!r} is not an int; give a positive int such as 1")
        if n < 1:
            raise InvalidArgument(f"max_rows={n!r} is not positive; a protected change hides "
                                  f"at least one row, give max_rows >= 1")

    def related(self, x: Table, y: Table) -> bool:
        """``0 < |x Δ y| <= max_rows``."""
        return 0 < symmetric_difference(x, y) <= self.max_rows

    def neighbours(self, x: Table, domain: TableDomain) -> Iterator[Table]:
        """Every ``y != x`` in ``domain`` with ``|x Δ y| <= max_rows``, each once.

        ``y`` is ``x`` minus a sub-multiset ``R`` plus a multiset ``A`` of rows of the
        domain; ``R`` and ``A`` disjoint (else the row would cancel) and
        ``0 < |R| + |A| <= max_rows``. Distinct ``(R, A)`` give distinct ``y``.
        """
        cx = Counter(x)
        universe = [Row(k, v, i) for k in domain.keys for v in domain.values for i in domain.ids]
        for removed_size in range(0, min(self.max_rows, len(x)) + 1):
            for removed in _sub_multisets(cx, removed_size):
                rem = set(removed)
                rest = cx - Counter(removed)
                candidates = [r for r in universe if r not in rem]
                for added_size in range(0, self.max_rows - removed_size + 1):
                    if removed_size + added_size == 0:
                        continue
                    for added in itertools.combinations_with_replacement(candidates, added_size):
                        y = make_table((rest + Counter(added)).elements())
                        if y in domain:
                            yield y

    def describe(self) -> str:
        """``'AddMaxRows(2)'``."""
        return f"AddMaxRows({self.max_rows})"


class AddOneRow(AddMaxRows):
    """One row added or removed: ``AddMaxRows(1)``."""

    def __init__(self):
        super().__init__(1)

    def describe(self) -> str:
        """``'AddOneRow'``."""
        return "AddOneRow"


@dataclasses.dataclass(frozen=True)
class AddRowsWithID(ProtectedChange):
    """All rows of one privacy id added (the id absent before) or removed."""

    def related(self, x: Table, y: Table) -> bool:
        """``x`` and ``y`` differ in the rows of exactly one id, absent from one of them."""
        ids = {r.pid for r in x} ^ {r.pid for r in y}
        if len(ids) != 1 or None in ids:
            return False
        (i,) = ids
        return Counter(r for r in x if r.pid != i) == Counter(r for r in y if r.pid != i)

    def neighbours(self, x: Table, domain: TableDomain) -> Iterator[Table]:
        """Every table that removes one present id, or adds rows of one absent id."""
        present = {r.pid for r in x}
        if None in present or None in domain.ids:
            raise InvalidArgument(f"AddRowsWithID needs privacy ids; the table or domain has "
                                  f"pid=None (domain ids={domain.ids!r}); give ids=(1, 2)")
        for i in sorted(present, key=repr):
            yield make_table(r for r in x if r.pid != i)
        cap = domain.rows_per_id if domain.rows_per_id is not None else None
        for i in domain.ids:
            if i in present:
                continue
            block = [Row(k, v, i) for k in domain.keys for v in domain.values]
            top = cap if cap is not None else domain.rows_per_key * len(domain.keys)
            for s in range(1, top + 1):
                for added in itertools.combinations_with_replacement(block, s):
                    y = make_table(list(x) + list(added))
                    if y in domain:
                        yield y

    def describe(self) -> str:
        """``'AddRowsWithID'``."""
        return "AddRowsWithID"
