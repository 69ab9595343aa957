"""Privacy units: datasets of ``(id, value)`` rows where one id is one person.

Tumult's ``AddRowsWithID`` protected change (seed 001) hides *all* the rows of one
privacy id, however many there are. :class:`Units` enumerates every dataset of rows
over a finite set of ids and a value universe, with a bound on the rows of one id
(``rows_per_id``) and on the distinct values (groups) of one id (``groups_per_id``), so
that a query that bounds contributions (or forgets to) is checked exactly.

:class:`AddRemoveID` is the relation: one edit adds every row of an absent id or
removes every row of a present one. Its path metric is
``d(x, x') = sum over ids of: 0 if the id's rows are equal, 1 if it is in only one
dataset, 2 if it is in both with different rows`` (changing an id's rows is a removal
and an addition).

The truncations of seed 001 are transformations on rows (functions ``rows -> rows``),
so a query can apply them before it aggregates:

* :class:`MaxRowsPerID` ``(k)``: keep at most ``k`` rows of each id; a sum of values in
  ``[L, U]`` then moves by at most ``k * max(|L|, |U|)`` per id (``d_in`` ids: times
  ``d_in``);
* :class:`MaxGroupsPerID` ``(g)`` then :class:`MaxRowsPerGroupPerID` ``(r)``: at most
  ``g`` groups and ``r`` rows in each group per id; a count per group moves by at most
  ``g * r`` in L1 (Laplace) and ``r * sqrt(g)`` in L2 (Gaussian) per id.

Which rows a truncation keeps is the library's choice (Tumult samples them); the bounds
must hold for every choice, and each rule here keeps a stated deterministic choice
(``keep="smallest"`` or ``"largest"`` values).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, combinations_with_replacement, product
from math import comb
from typing import Callable, Iterable, Iterator, Sequence

from exactdp._budget import MAX_LISTED_VALUES, MoreThan, comb_capped, refuse_above, show_count
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact
from exactdp.spaces.datasets import _sizes
from exactdp.spaces.metrics import Parameterless
from exactdp.spaces.universe import ValueUniverse
from exactdp.numeric.exact import to_exact

__all__ = [
    "Units", "AddRemoveID", "MaxRowsPerID", "MaxGroupsPerID", "MaxRowsPerGroupPerID",
    "row_sum", "row_count", "group_counts", "compose",
]

Contribution = tuple[int, ...]  # sorted value indices: the multiset of one id's values
Key = tuple[tuple[int, Contribution], ...]  # (id index, contribution), by id index
Row = tuple[object, Fraction]


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{name}={value!r} is not a whole number >= 1")
    return value


class Units:
    """Every dataset of ``(id, value)`` rows over the ids ``ids`` and ``universe``.

    ``ids`` is a number ``n`` (ids ``0..n-1``) or a list of distinct ids (ints or
    strings). An id present in a dataset has between ``rows_per_id[0] >= 1`` and
    ``rows_per_id[1]`` rows, with at most ``groups_per_id`` distinct values (``None``:
    no bound beyond the rows); ``units`` bounds how many ids are present (default: any
    number, 0 included). The order of rows does not matter: rows are a multiset.

    >>> from exactdp import IntegerRange
    >>> u = Units(IntegerRange(0, 1), ids=2, rows_per_id=(1, 2))
    >>> u.contributions_count(10**6), len(u)
    (5, 36)
    >>> u.public(((0, (0, 1)), (1, (1,))))
    ((0, Fraction(0, 1)), (0, Fraction(1, 1)), (1, Fraction(1, 1)))
    """

    kind = "units"

    def __init__(self, universe: ValueUniverse, *, ids: object, rows_per_id: object = 1,
                 groups_per_id: int | None = None, units: object = None):
        if not isinstance(universe, ValueUniverse):
            raise InvalidArgument(
                f"universe={universe!r} is not a ValueUniverse; build one with "
                f"IntegerRange(A, B) or ExactSet([...])"
            )
        if isinstance(ids, bool):
            raise InvalidArgument(f"ids={ids!r} is not a number of ids or a list of ids")
        if isinstance(ids, int):
            _positive(ids, "ids")
            refuse_above(ids, MAX_LISTED_VALUES, what="ids", option=None, hint="use fewer ids")
            labels: tuple = tuple(range(ids))
        elif isinstance(ids, (list, tuple)) and ids:
            if any(isinstance(i, bool) or not isinstance(i, (int, str)) for i in ids):
                raise InvalidArgument(f"ids={ids!r}: ids are ints or strings")
            if len(set(ids)) != len(ids):
                raise InvalidArgument(f"ids={ids!r} repeats an id; list each id once")
            labels = tuple(ids)
        else:
            raise InvalidArgument(f"ids={ids!r} is not a number of ids (e.g. 3) or a list of ids")
        self.universe = universe
        self.ids = labels
        self.min_rows, self.max_rows = _sizes(None, rows_per_id)
        if self.min_rows < 1:
            raise InvalidArgument(
                f"rows_per_id={rows_per_id!r} allows 0 rows; an id present in a dataset has at "
                f"least one row (an absent id is simply not there): use rows_per_id=(1, B)"
            )
        if groups_per_id is not None:
            _positive(groups_per_id, "groups_per_id")
        self.groups_per_id = groups_per_id
        self.min_units, self.max_units = (0, len(labels)) if units is None else _sizes(None, units)
        if self.max_units > len(labels):
            raise InvalidArgument(
                f"units={units!r} asks for up to {self.max_units} ids, but there are only "
                f"{len(labels)}: use units up to {len(labels)} or more ids"
            )
        self._contributions: tuple[Contribution, ...] | None = None

    # -- structure ---------------------------------------------------------------------
    @property
    def fixed_size(self) -> None:
        return None

    def describe(self) -> str:
        groups = "" if self.groups_per_id is None else f", at most {self.groups_per_id} distinct values"
        rows = (str(self.max_rows) if self.min_rows == self.max_rows
                else f"{self.min_rows}..{self.max_rows}")
        n = (str(self.max_units) if self.min_units == self.max_units
             else f"{self.min_units}..{self.max_units}")
        ids = (f"0..{len(self.ids) - 1}" if self.ids == tuple(range(len(self.ids)))
               else ", ".join(map(str, self.ids)))
        return (f"(id, value) datasets: {n} of the ids {{{ids}}}, each with {rows} rows over "
                f"{self.universe.describe()}{groups}")

    def __repr__(self) -> str:
        return (f"Units({self.universe!r}, ids={list(self.ids)!r}, rows_per_id=({self.min_rows}, "
                f"{self.max_rows}), groups_per_id={self.groups_per_id!r}, "
                f"units=({self.min_units}, {self.max_units}))")

    # -- counting ----------------------------------------------------------------------
    def contributions_count(self, cap: int) -> int:
        """How many row multisets one id can have (capped like :meth:`count_capped`: past
        ``cap``, a :class:`~exactdp._budget.MoreThan` bound)."""
        m, total, capped = self.universe.size, 0, False
        for s in range(self.min_rows, self.max_rows + 1):
            if self.groups_per_id is None:
                term = comb_capped(m + s - 1, s, cap)
                capped |= isinstance(term, MoreThan)
                total += term
            else:  # j distinct values chosen, s rows spread over them (each at least one)
                top = min(self.groups_per_id, s, m)
                for j in range(1, top + 1):
                    term = comb_capped(m, j, cap)
                    capped |= isinstance(term, MoreThan)
                    total += term * comb(s - 1, j - 1)
                    if total > cap and (capped or j < top or s < self.max_rows):
                        return MoreThan(total)  # what is left adds at least one each
            if total > cap and (capped or s < self.max_rows):
                return MoreThan(total)
        return MoreThan(total) if capped else total

    def count_capped(self, cap: int) -> int:
        """The number of datasets when at most ``cap``; otherwise either the number or a
        :class:`~exactdp._budget.MoreThan` bound at or above ``cap`` (shown "more than N",
        never as the count)."""
        c = self.contributions_count(cap)
        n, total, short = len(self.ids), 0, False
        for k in range(self.min_units, self.max_units + 1):
            if c > 1 and k * (c.bit_length() - 1) > max(cap.bit_length(), 100):
                # C(n, k) * c**k >= 2**(k * (bits - 1)): at least total + that
                return MoreThan(total + (1 << (k * (c.bit_length() - 1))) - 1)
            total += comb(n, k) * c ** k
            # a bound c (MoreThan) makes every term with k >= 1 strictly short
            short |= isinstance(c, MoreThan) and k >= 1 and comb(n, k) > 0
            if total > cap and (short or k < self.max_units):
                return MoreThan(total)
        return MoreThan(total) if short else total

    def count(self) -> int:
        """The number of datasets, or past ``10**30`` a :class:`~exactdp._budget.MoreThan`
        bound (shown "more than N")."""
        return self.count_capped(10**30)

    def __len__(self) -> int:
        return self.count()

    # -- enumeration -------------------------------------------------------------------
    def contributions(self) -> tuple[Contribution, ...]:
        """Every row multiset one id can have, by number of rows then lexicographically
        (call after checking :meth:`count_capped`: this builds them)."""
        if self._contributions is None:
            out = []
            m = self.universe.size
            for s in range(self.min_rows, self.max_rows + 1):
                for c in combinations_with_replacement(range(m), s):
                    if self.groups_per_id is None or len(set(c)) <= self.groups_per_id:
                        out.append(c)
            self._contributions = tuple(out)
        return self._contributions

    def __iter__(self) -> Iterator[Key]:
        """Every dataset once: by number of ids, then ids, then their rows."""
        contribs = self.contributions()
        for k in range(self.min_units, self.max_units + 1):
            for present in combinations(range(len(self.ids)), k):
                for rows in product(contribs, repeat=k):
                    yield tuple(zip(present, rows))

    def size_of(self, key: Key) -> int:
        """The number of ids present (what one edit changes by one)."""
        return len(key)

    def contains(self, key: Key) -> bool:
        if not self.min_units <= len(key) <= self.max_units:
            return False
        for _, c in key:
            if not self.min_rows <= len(c) <= self.max_rows:
                return False
            if self.groups_per_id is not None and len(set(c)) > self.groups_per_id:
                return False
        return True

    # -- conversion --------------------------------------------------------------------
    def public(self, key: Key) -> tuple[Row, ...]:
        """The rows ``(id, value)`` of a dataset, by id then value (what a query reads)."""
        value = self.universe.value
        return tuple((self.ids[i], value(v)) for i, c in key for v in c)

    def multiset_values(self, key: Key) -> tuple[Fraction, ...]:
        """The values of every row (for a query that ignores ids)."""
        value = self.universe.value
        return tuple(value(v) for _, c in key for v in c)

    def to_key(self, rows: Iterable[Sequence[object]], name: str = "dataset") -> Key:
        """The key of a dataset given as ``(id, value)`` rows (any order)."""
        by_id: dict[int, list[int]] = {}
        position = {label: i for i, label in enumerate(self.ids)}
        for row in rows:
            if not isinstance(row, (tuple, list)) or len(row) != 2:
                raise InvalidArgument(f"{name} row {row!r} is not a pair (id, value)")
            label, raw = row
            if label not in position:
                raise InvalidArgument(f"{name} row {row!r}: id {label!r} is not one of {list(self.ids)}")
            i = self.universe.index(to_exact(raw, f"{name} value"))
            if i is None:
                raise InvalidArgument(
                    f"{name} row {row!r}: value not in the universe {self.universe.describe()}"
                )
            by_id.setdefault(position[label], []).append(i)
        return tuple((i, tuple(sorted(v))) for i, v in sorted(by_id.items()))

    def show(self, key: Key) -> str:
        """``{0: [1, 1], 2: [3]}``: each present id with its values."""
        value = self.universe.value
        parts = [f"{self.ids[i]!r}: [" + ", ".join(format_exact(value(v)) for v in c) + "]"
                 for i, c in key]
        return "{" + ", ".join(parts) + "}"

    def budget_hint(self) -> str:
        return (f"use fewer ids ({len(self.ids)}), rows per id ({self.max_rows}) or values "
                f"({show_count(self.universe.size)})")

    def claim_parameters(self) -> dict[str, Fraction]:
        """``L``, ``U`` (the universe's bounds) and ``R`` (most rows of one id)."""
        out = {"L": self.universe.lower, "U": self.universe.upper, "R": Fraction(self.max_rows)}
        if self.groups_per_id is not None:
            out["G"] = Fraction(self.groups_per_id)
        return out


class AddRemoveID(Parameterless):
    """One edit adds all the rows of one absent id or removes all the rows of a present
    one (Tumult's ``AddRowsWithID``; OpenDP's id-level ``SymmetricIdDistance``)."""

    name = "AddRemoveID"
    cli_name = "add-remove-id"
    size_step = 1

    def distance(self, x: Key, y: Key) -> int:
        a, b = dict(x), dict(y)
        d = 0
        for i in set(a) | set(b):
            if i not in a or i not in b:
                d += 1
            elif a[i] != b[i]:
                d += 2
        return d

    def edits(self, key: Key, space: Units) -> Iterator[Key]:
        for p in range(len(key)):  # remove one id with all its rows
            yield key[:p] + key[p + 1:]
        present = {i for i, _ in key}
        for i in range(len(space.ids)):  # add one absent id with any rows it may have
            if i in present:
                continue
            p = sum(1 for j, _ in key if j < i)
            for c in space.contributions():
                yield key[:p] + ((i, c),) + key[p:]

    def max_edits(self, space: Units, units: int) -> int:
        """An upper bound on the edits from any dataset (``units`` removals plus
        additions of the absent ids is at most ``len(ids) * contributions``)."""
        return len(space.ids) * max(space.contributions_count(10**30), 1)

    def size_shift(self, d_in: int) -> int:
        return d_in

    def describe(self, d_in: int, exact_k: bool = False) -> str:
        op = "=" if exact_k else "<="
        return (f"{self.name} {op} {d_in} (id-level add/remove: one edit adds or removes every "
                f"row of one id; changing an id's rows is 2)")


# -- truncations (seed 001), as transformations rows -> rows -----------------------------

def _by_id(rows: Iterable[Row]) -> dict[object, list[Fraction]]:
    out: dict[object, list[Fraction]] = {}
    for label, v in rows:
        out.setdefault(label, []).append(v)
    return out


def _keep(keep: str) -> str:
    if keep not in ("smallest", "largest"):
        raise InvalidArgument(f"keep={keep!r} is not 'smallest' or 'largest'")
    return keep


def _identity(v: Fraction) -> object:
    return v


class _Truncation:
    def __init__(self, bound: int, name: str, keep: str, group: Callable | None):
        self.bound = _positive(bound, name)
        self.keep = _keep(keep)
        if group is not None and not callable(group):
            raise InvalidArgument(f"group={group!r} is not a function value -> group key")
        self.group = group or _identity

    def _order(self, items: list) -> list:
        return sorted(items, reverse=self.keep == "largest")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.bound}, keep={self.keep!r})"


class MaxRowsPerID(_Truncation):
    """Keep at most ``k`` rows of each id (the ``keep`` rule chooses which).

    Stability: id-level ``d_in`` becomes at most ``k * d_in`` rows added or removed
    (:meth:`rows_changed`).

    >>> MaxRowsPerID(2)([(0, 5), (0, 1), (0, 3), (1, 2)])
    ((0, 1), (0, 3), (1, 2))
    """

    def __init__(self, k: int, keep: str = "smallest"):
        super().__init__(k, "k", keep, None)

    def __call__(self, rows: Iterable[Row]) -> tuple[Row, ...]:
        out: list[Row] = []
        for label, values in _by_id(rows).items():
            out.extend((label, v) for v in self._order(values)[: self.bound])
        return tuple(sorted(out, key=lambda r: (str(type(r[0])), r[0], r[1])))

    def rows_changed(self, d_in: int) -> int:
        return self.bound * d_in


class MaxGroupsPerID(_Truncation):
    """Keep the rows of at most ``g`` groups of each id (``group(value)`` is the group;
    default: the value itself)."""

    def __init__(self, g: int, keep: str = "smallest", group: Callable | None = None):
        super().__init__(g, "g", keep, group)

    def __call__(self, rows: Iterable[Row]) -> tuple[Row, ...]:
        out: list[Row] = []
        for label, values in _by_id(rows).items():
            kept = set(self._order(sorted({self.group(v) for v in values}))[: self.bound])
            out.extend((label, v) for v in values if self.group(v) in kept)
        return tuple(sorted(out, key=lambda r: (str(type(r[0])), r[0], r[1])))


class MaxRowsPerGroupPerID(_Truncation):
    """Keep at most ``r`` rows of each (id, group)."""

    def __init__(self, r: int, keep: str = "smallest", group: Callable | None = None):
        super().__init__(r, "r", keep, group)

    def __call__(self, rows: Iterable[Row]) -> tuple[Row, ...]:
        out: list[Row] = []
        for label, values in _by_id(rows).items():
            by_group: dict[object, list[Fraction]] = {}
            for v in values:
                by_group.setdefault(self.group(v), []).append(v)
            for vs in by_group.values():
                out.extend((label, v) for v in self._order(vs)[: self.bound])
        return tuple(sorted(out, key=lambda r: (str(type(r[0])), r[0], r[1])))


# -- row queries ------------------------------------------------------------------------

def row_sum(rows: Iterable[Row]) -> Fraction:
    """The exact sum of the values of every row."""
    return sum((Fraction(v) for _, v in rows), Fraction(0))


def row_count(rows: Iterable[Row]) -> Fraction:
    """The number of rows."""
    return Fraction(sum(1 for _ in rows))


def group_counts(groups: Sequence[object], group: Callable | None = None) -> Callable:
    """A function ``rows -> tuple of counts``, one per group in ``groups`` (rows of
    other groups are not counted): a histogram, compared under L1 or L2."""
    keys = tuple(groups)
    position = {g: i for i, g in enumerate(keys)}
    key_of = group or _identity

    def counts(rows: Iterable[Row]) -> tuple[Fraction, ...]:
        out = [0] * len(keys)
        for _, v in rows:
            i = position.get(key_of(v))
            if i is not None:
                out[i] += 1
        return tuple(Fraction(c) for c in out)

    return counts


def compose(*steps: Callable) -> Callable:
    """``compose(t1, t2, q)(rows) == q(t2(t1(rows)))``: truncations, then a query."""
    if not steps or not all(callable(s) for s in steps):
        raise InvalidArgument("compose() takes one or more functions: truncations, then a query")

    def run(rows):
        for s in steps:
            rows = s(rows)
        return rows

    return run
