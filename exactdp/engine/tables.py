"""Value tables: the exact query value of every dataset a pair may use.

Datasets are count vectors; each is coded as one integer ``key = sum(c_i * B**(m-1-i))``
(:func:`key_weights`: the count of the smallest value is the most significant digit)
with a base ``B`` larger than any count plus ``d_in``. Keys therefore increase in the
enumeration order (lexicographic, ``c_0`` slowest): the value arrays come out of the build
sorted, and sorting them or the sources is one linear pass. A move ``(R, A)`` (see
:mod:`exactdp.spaces.metrics`) is then one integer ``delta`` and the neighbour of
``x`` is ``key + delta``: a dictionary lookup, no tuple building.

Why a lookup is enough: adding at most ``d_in`` to a digit never carries (the base
is larger). Removing more records of a value than ``x`` holds borrows, and the
least significant borrowing digit then reads ``B - (r - c) >= B - d_in``, more than any valid
count, so the key belongs to no dataset and the lookup misses. Likewise a neighbour
outside the space (a size out of range, a pool value used too often) is not in the
table. The table holds exactly the datasets a pair may use: the space itself, or
for the release-centred scope the space widened by ``d_in`` in size.

Every value is scaled to an integer over one common denominator (``Table.scale``), so
comparisons are integer arithmetic. The built-in queries fill a dense table
incrementally, a level of the enumeration tree at a time (:mod:`.incremental`).
Universes of more than :data:`DENSE_MAX_VALUES` values use :class:`SparseTable`: a
dataset is its sorted tuple of value indices, so it costs its size, not the universe's.
Memory holds one key per dataset of the table; pairs are streamed, never stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Sequence

from exactdp._progress import Progress
from exactdp.engine import incremental as _incremental
from exactdp.numeric.exact import common_denominator
from exactdp.queries.base import UNDEFINED, Query
from exactdp.spaces.datasets import DatasetSpace

__all__ = ["key_weights", "first_named", "Table", "SparseTable", "ArrayValues", "make_table",
           "source_keys", "DENSE_MAX_VALUES",
           "INCREMENTAL", "public_value"]

INCREMENTAL = True
"""Fill dense tables of built-in queries incrementally (False: one ``prepare`` call per
dataset, as before issue 12; kept for the benchmark and the equivalence tests)."""

DENSE_MAX_VALUES = 1024
"""Universes of more values use the sparse form (:class:`SparseTable`): a count vector
and its integer key grow with the universe, a sorted tuple of indices with the dataset."""

def key_weights(base: int, m: int) -> list[int]:
    """The weight of each value's count in a key: ``B**(m-1-i)`` for value ``i``, so that
    keys sort as count vectors do lexicographically (the enumeration order)."""
    return [base ** (m - 1 - i) for i in range(m)]


def first_named(table, keys):
    """The key an error names among ``keys``: the dataset with records on the smallest
    values (the least count vector read from the largest value down), whatever the key
    order (a sparse table's keys are sorted index tuples: the least one)."""
    if getattr(table, "sparse", False):
        return min(keys)
    return min(keys, key=lambda k: table.counts(k)[::-1])


class Table:
    """Exact query values over the datasets a pair may use, keyed by integer code."""

    sparse = False
    sorted_keys = None  # the sorted key array, when the values are int64 arrays

    def __init__(
        self,
        query: Query,
        space: DatasetSpace,
        ambient: DatasetSpace,
        d_max: int,
        undefined: object,
        progress: Progress | None = None,
    ):
        self.query = query
        self.space = space
        self.ambient = ambient
        m = len(space.universe)
        top = max((ambient.max_count(i) for i in range(m)), default=0)
        self.base = top + d_max + 1
        self.weights = key_weights(self.base, m)
        weights = self.weights
        if INCREMENTAL:
            built = _incremental.build(query.incremental(space.universe.values), ambient,
                                       weights, _stated(query, undefined), query.output,
                                       progress=progress)
            if built is not None:
                self._adopt(built)
                return
        prepared = query.prepare(space.universe.values)

        def entries():
            for counts in ambient:
                yield sum(c * w for c, w in zip(counts, weights) if c), prepared(counts)

        self._fill(entries(), undefined, progress)

    def _adopt(self, built) -> None:
        """Take the arrays of an incremental build (see :mod:`.incremental`)."""
        np = built.np
        keys, ints, defined = built.keys, built.ints, built.defined
        self.scale = built.scale
        self.size = len(keys)
        self.undefined = set()
        for k in keys[~defined].tolist():
            self.undefined.add(k)
        if bool(defined.all()):
            kd, vd = keys, ints  # no copies: the common case
        else:
            kd, vd = keys[defined], ints[defined]
        built.ints = None  # held as vd (and sorted_values) from here on
        self.arrays = built
        self._dict = None
        if kd.dtype == np.int64 and vd.dtype == np.int64:
            order = np.argsort(kd, kind="stable")
            self.sorted_keys = kd[order]
            self.sorted_values = vd[order]
            self._defined_keys, self._defined_values = kd, vd
            self.values = ArrayValues(self)
        else:
            self.sorted_keys = None
            rows = vd.tolist()
            if self.query.output == "vector":
                rows = [tuple(r) for r in rows]
            self.values = dict(zip(kd.tolist(), rows))

    def value_dict(self) -> dict:
        """The values as a ``dict`` (built once from the arrays when needed): the
        pure-Python loops look keys up in it."""
        if isinstance(self.values, dict):
            return self.values
        if self._dict is None:  # in enumeration order, as the per-dataset path fills it
            rows = self._defined_values.tolist()
            if self.query.output == "vector":
                rows = [tuple(r) for r in rows]
            self._dict = dict(zip(self._defined_keys.tolist(), rows))
        return self._dict

    def _fill(self, entries, undefined: object, progress: Progress | None) -> None:
        """Evaluate the query on every dataset (``entries`` yields ``(key, raw value)``)
        and scale the values to integers over one common denominator."""
        query = self.query
        raw: dict = {}
        self.undefined: set = set()
        stated = None
        if undefined not in ("error", "exclude"):
            stated = undefined  # an exact number (validated by the caller)
            if query.output == "sqrt":
                stated = stated * stated  # the radicand of the stated value
        for i, (key, value) in enumerate(entries):
            if value is UNDEFINED:
                if stated is None:
                    self.undefined.add(key)
                    continue
                value = stated
            raw[key] = value
            if progress is not None and not i & 4095:
                progress.show(f"query values on {i:,} of {progress.total:,} datasets")
        # One common denominator turns every comparison into integer arithmetic.
        if query.output == "vector":
            scale = common_denominator(x for v in raw.values() for x in v)
        else:
            scale = common_denominator(raw.values())
        self.scale = scale
        if query.output == "vector":
            self.values = {
                k: tuple(int(Fraction(x) * scale) for x in v) for k, v in raw.items()
            }
        else:
            self.values = {k: int(Fraction(v) * scale) for k, v in raw.items()}
        self.size = len(raw) + len(self.undefined)

    def key(self, counts: Sequence[int]) -> int:
        return sum(c * w for c, w in zip(counts, self.weights))

    def key_of_indices(self, indices: Sequence[int]) -> int:
        return sum(self.weights[i] for i in indices)

    def dataset(self, key: int) -> tuple[Fraction, ...]:
        """The sorted values of the dataset with this key."""
        return self.space.to_values(self.counts(key))

    def counts(self, key: int) -> tuple[int, ...]:
        out = []
        for _ in self.weights:
            key, c = divmod(key, self.base)
            out.append(c)
        return tuple(reversed(out))

    def deltas(self, moves, halve: bool) -> list[int]:
        w = self.weights
        out = []
        for removed, added in moves:
            if halve and (len(added), added) < (len(removed), removed):
                continue
            out.append(sum(w[i] for i in added) - sum(w[i] for i in removed))
        return out


def _stated(query: Query, undefined: object):
    """The exact value stated for undefined datasets (the radicand for a square root),
    or ``None`` under the "error" and "exclude" policies."""
    if undefined in ("error", "exclude"):
        return None
    return undefined * undefined if query.output == "sqrt" else undefined


class ArrayValues(Mapping):
    """A table's values as a read-only mapping over its sorted key array: a lookup is a
    binary search, iteration follows the enumeration order. The pure-Python loops use
    :meth:`Table.value_dict` instead."""

    def __init__(self, table: Table):
        self._table = table

    def _index(self, key):
        t = self._table
        keys = t.sorted_keys
        if not len(keys) or not isinstance(key, int) and not hasattr(key, "__index__"):
            return None
        key = int(key)
        if not int(keys[0]) <= key <= int(keys[-1]):
            return None
        i = int(keys.searchsorted(key))
        return i if int(keys[i]) == key else None

    def __getitem__(self, key):
        i = self._index(key)
        if i is None:
            raise KeyError(key)
        v = self._table.sorted_values[i]
        return tuple(int(x) for x in v) if v.ndim else int(v)

    def __contains__(self, key) -> bool:
        return self._index(key) is not None

    def __iter__(self):
        return iter(self._table._defined_keys.tolist())

    def __len__(self) -> int:
        return len(self._table.sorted_keys)

class SparseTable(Table):
    """The value table for a large universe: each dataset keyed by its sorted tuple of
    value indices, so a dataset costs its own size, not the universe's."""

    sparse = True

    def __init__(self, query: Query, space: DatasetSpace, ambient: DatasetSpace,
                 d_max: int, undefined: object, progress: Progress | None = None):
        self.query = query
        self.space = space
        self.ambient = ambient
        value = space.universe.value

        def entries():
            for key in ambient.sorted_indices():
                support: list = []
                counts: list = []
                for i in key:
                    if counts and support[-1] == i:
                        counts[-1] += 1
                    else:
                        support.append(i)
                        counts.append(1)
                yield key, query.prepare(tuple(value(i) for i in support))(tuple(counts))

        self._fill(entries(), undefined, progress)

    def key(self, counts: Sequence[int]) -> tuple[int, ...]:
        return tuple(i for i, c in enumerate(counts) for _ in range(c))

    def key_of_indices(self, indices: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(indices))

    def counts(self, key) -> tuple[int, ...]:  # pragma: no cover - dense callers only
        raise TypeError("a sparse table has no count vectors; use dataset(key)")

    def dataset(self, key: tuple[int, ...]) -> tuple[Fraction, ...]:
        value = self.space.universe.value
        return tuple(value(i) for i in key)


def make_table(query: Query, space: DatasetSpace, ambient: DatasetSpace, d_max: int,
               undefined: object, progress: Progress | None = None) -> Table:
    """The dense table for universes of up to :data:`DENSE_MAX_VALUES` values, else sparse."""
    kind = SparseTable if space.universe.size > DENSE_MAX_VALUES else Table
    return kind(query, space, ambient, d_max, undefined, progress)

def source_keys(table: Table, space: DatasetSpace):
    """Keys of the datasets of ``space`` (the ``x`` side of every pair), in enumeration
    order: a list, or an ``int64`` array for a table held in arrays."""
    if table.sorted_keys is not None:
        arrays = table.arrays
        if space is table.ambient:
            return arrays.keys
        inside = (arrays.n >= space.min_size) & (arrays.n <= space.max_size)
        return arrays.keys[inside]
    if space is table.ambient:
        return list(table.values) + list(table.undefined)
    if table.sparse:
        return list(space.sorted_indices())
    return [table.key(c) for c in space]


def public_value(query: Query, v, scale: int):
    """A table value (integers over ``scale``) as the query's public value."""
    if query.output == "vector":
        return tuple(Fraction(c, scale) for c in v)
    return query.public_value(Fraction(v, scale))
