"""Finite dataset spaces, enumerated in canonical form.

A dataset is a multiset of values from a :class:`~exactdp.spaces.universe.ValueUniverse`.
Its canonical form is the *count vector* over the sorted universe: ``(2, 0, 1)`` over
``{1, 2, 3}`` is the dataset ``[1, 1, 3]``. Enumerating count vectors visits every
dataset exactly once, so no dataset is ever examined twice.

Two kinds of space:

* :class:`Multisets`: every multiset over a universe with size in a range (values may
  repeat without limit); seed 003's scenario (b).
* :class:`SubMultisets`: every sub-multiset of a fixed record *pool* with size in a
  range; a value can be used at most as often as it occurs in the pool (seed 003's
  scenario (a): the pool ``1,2,2,2,5,5,7,8,9,9``, releases of size 6).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import islice
from typing import Iterable, Iterator, Sequence

from exactdp._budget import MAX_LISTED_VALUES, MoreThan, comb_capped, refuse_above
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, show_exact, to_exact
from exactdp.spaces.universe import ValueUniverse

__all__ = ["DatasetSpace", "Multisets", "SubMultisets", "as_space"]


def _check_size(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; dataset sizes are whole numbers")
    if value < 0:
        raise InvalidArgument(f"{name}={value!r} is negative; dataset sizes are at least 0")
    return value


def _sizes(size: int | None, sizes: object) -> tuple[int, int]:
    if size is not None and sizes is not None:
        raise InvalidArgument(
            f"size={size!r} and sizes={sizes!r} both given; pass size=N for one size or "
            f"sizes=(A, B) for the range A..B"
        )
    if size is not None:
        n = _check_size(size, "size")
        return n, n
    if sizes is None:
        raise InvalidArgument("no size given; pass size=N or sizes=(A, B) (inclusive)")
    if isinstance(sizes, int) and not isinstance(sizes, bool):
        n = _check_size(sizes, "sizes")
        return n, n
    if isinstance(sizes, str):
        text = sizes.strip()
        lo, sep, hi = text.partition("..")
        try:
            pair = (int(lo), int(hi)) if sep else (int(text), int(text))
        except ValueError:
            raise InvalidArgument(
                f"sizes={sizes!r} is not a size range; write 'A..B' such as '0..4', or 'N'"
            ) from None
    else:
        try:
            pair = tuple(sizes)  # type: ignore[arg-type, assignment]
        except TypeError:
            raise InvalidArgument(f"sizes={sizes!r} is not a pair; pass sizes=(A, B)") from None
        if len(pair) != 2:
            raise InvalidArgument(f"sizes={sizes!r} must be a pair (A, B), both included")
    a = _check_size(pair[0], "min size")
    b = _check_size(pair[1], "max size")
    if a > b:
        raise InvalidArgument(
            f"Cannot have max size={b!r} < min size={a!r}; write sizes=({b}, {a})"
        )
    return a, b


_EXACT_TERMS = 1000
"""Below this many factors a binomial count is computed exactly, however large it is."""

_DP_CELLS = 200_000
"""A space with per-value caps of at most this many (values x sizes) cells is counted
exactly (a tenth of a second or so); a larger one is first bounded below, to refuse it
quickly."""


def value_indices(universe: ValueUniverse, dataset: Iterable[object], name: str = "dataset",
                  what: str = "a collection of values") -> list[int]:
    """The universe index of each value of ``dataset``, in the order given (refused, naming the
    value, when one is not in the universe)."""
    if isinstance(dataset, (str, bytes)) or not isinstance(dataset, Iterable):
        raise InvalidArgument(f"{name}={dataset!r} is not {what}; pass a list such as [1, 2, 2]")
    out = []
    for raw in dataset:
        v = to_exact(raw, f"{name} value")
        i = universe.index(v)
        if i is None:
            raise InvalidArgument(
                f"{name} value {show_exact(v)!r} is not in the universe "
                f"{universe.describe()}; use values of the universe"
            )
        out.append(i)
    return out


class SizeRange:
    """What a space of datasets sized ``min_size..max_size`` says about its sizes."""

    min_size: int
    max_size: int

    @property
    def fixed_size(self) -> int | None:
        """``N`` when every dataset has the same size, else ``None``."""
        return self.min_size if self.min_size == self.max_size else None

    def sizes_text(self) -> str:
        if self.min_size == self.max_size:
            return str(self.min_size)
        return f"{self.min_size}..{self.max_size}"


class DatasetSpace(SizeRange):
    """The finite set of datasets an enumeration visits.

    ``caps[i]`` bounds how often ``universe.values[i]`` may occur (``None``: no bound
    beyond the size). Datasets are count vectors with ``min_size <= sum <= max_size``.

    Sizes are known without enumerating: :meth:`count_capped` bounds the number of
    datasets in time independent of it, so a budget is checked before any work.
    """

    kind = "datasets"

    def __init__(
        self,
        universe: ValueUniverse,
        caps: Sequence[int | None] | None,
        min_size: int,
        max_size: int,
    ):
        self.universe = universe
        # None: every value may repeat up to the size (kept implicit: a universe may be huge)
        self._caps = None if caps is None or all(c is None for c in caps) else tuple(caps)
        self.min_size = min_size
        self.max_size = max_size
        if self._caps is not None:
            cap_total = sum(self.max_count(i) for i in range(len(self._caps)))
            if cap_total < min_size:
                raise InvalidArgument(
                    f"min size={min_size} exceeds the {cap_total} records available; "
                    f"lower the size or enlarge the pool"
                )

    # -- structure -------------------------------------------------------------------
    @property
    def values(self) -> tuple[Fraction, ...]:
        return self.universe.values

    @property
    def caps(self) -> tuple[int | None, ...]:
        """Multiplicity caps, one per value (``None``: only the size bounds it)."""
        return self._caps if self._caps is not None else (None,) * self.universe.size

    def max_count(self, i: int) -> int:
        """Largest multiplicity value ``i`` can have in a dataset of this space."""
        cap = None if self._caps is None else self._caps[i]
        return self.max_size if cap is None else min(cap, self.max_size)

    def with_sizes(self, min_size: int, max_size: int) -> "DatasetSpace":
        """The same universe and caps with another size range."""
        return DatasetSpace(self.universe, self._caps, min_size, max_size)

    def describe(self) -> str:
        return f"multisets of size {self.sizes_text()} over {self.universe.describe()}"

    def __repr__(self) -> str:
        return f"DatasetSpace({self.describe()})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DatasetSpace)
            and (self.universe, self._caps, self.min_size, self.max_size)
            == (other.universe, other._caps, other.min_size, other.max_size)
        )

    def __hash__(self) -> int:
        return hash((self.universe, self._caps, self.min_size, self.max_size))

    # -- counting ------------------------------------------------------------------
    def __len__(self) -> int:
        return self.count()

    def count(self) -> int:
        """Exact number of datasets, without enumerating them."""
        return self._count(None)

    def count_capped(self, cap: int) -> int:
        """The number of datasets when it is at most ``cap`` (or below ``10**30``);
        otherwise either the number or a :class:`~exactdp._budget.MoreThan` bound at or
        above ``cap`` (shown "more than N", never as the count), found in time that does
        not depend on how many datasets there are."""
        return self._count(cap)

    def count_of_size(self, n: int) -> int:
        """Exact number of datasets of size ``n`` (0 outside the size range)."""
        if not self.min_size <= n <= self.max_size:
            return 0
        return self.with_sizes(n, n).count()

    def _count(self, cap: int | None) -> int:
        m, a, b = self.universe.size, self.min_size, self.max_size
        big = cap if cap is not None else None
        if self._caps is None:
            # multisets of size s over m values: C(m + s - 1, s); their sum over s <= b
            # is C(m + b, b) (hockey stick)
            if big is not None and min(m, b) > _EXACT_TERMS:
                last = comb_capped(m + b - 1, b, big)  # the datasets of size b alone
                if last > big:
                    # other sizes add at least one dataset each
                    return last if isinstance(last, MoreThan) or a == b else MoreThan(last)
            # exact, and quick: min(m, b) multiplications (or a count below the budget)
            return math.comb(m + b, b) - (math.comb(m + a - 1, a - 1) if a else 0)
        if big is not None and self.universe.size * (self.max_size + 1) > _DP_CELLS:
            # a lower bound first: sets of distinct values (each value once)
            usable = sum(1 for c in self._caps if c is None or c > 0)
            t = min(max(usable // 2, a), b, usable)
            low = comb_capped(usable, t, big)
            if low > big:  # at least low datasets: more than low - 1 >= big
                return low if isinstance(low, MoreThan) else MoreThan(low - 1)
        return self._count_by_dp()

    def _count_by_dp(self) -> int:
        # ways[s] = number of count vectors over the values seen so far with sum s.
        top = self.max_size
        ways = [1] + [0] * top
        for i in range(self.universe.size):
            cap = self.max_count(i)
            new = [0] * (top + 1)
            window = 0
            for s in range(top + 1):  # new[s] = sum(ways[s - c] for c in 0..cap)
                window += ways[s]
                if s - cap - 1 >= 0:
                    window -= ways[s - cap - 1]
                new[s] = window
            ways = new
        return sum(ways[self.min_size : top + 1])

    # -- enumeration ---------------------------------------------------------------
    def __iter__(self) -> Iterator[tuple[int, ...]]:
        """Every count vector of the space, each once, in lexicographic order (the count
        of the smallest value changes slowest). No recursion: any universe size works."""
        m = self.universe.size
        caps = [self.max_count(i) for i in range(m)]
        # room[i] = most records that values i.. can still take
        room = [0] * (m + 1)
        for i in range(m - 1, -1, -1):
            room[i] = room[i + 1] + caps[i]
        lo, hi = self.min_size, self.max_size
        counts = [0] * m
        used = [0] * (m + 1)  # used[i] = records in counts[:i]

        def fill(start: int) -> None:  # the smallest counts from position start on
            for j in range(start, m):
                counts[j] = max(0, lo - used[j] - room[j + 1])
                used[j + 1] = used[j] + counts[j]

        fill(0)
        yield tuple(counts)
        while True:
            i = m - 1
            while i >= 0 and counts[i] >= min(caps[i], hi - used[i]):
                i -= 1
            if i < 0:
                return
            counts[i] += 1
            used[i + 1] = used[i] + counts[i]
            fill(i + 1)
            yield tuple(counts)

    def sorted_indices(self) -> Iterator[tuple[int, ...]]:
        """Every dataset as a sorted tuple of value indices (``(0, 0, 2)`` is ``[v0, v0,
        v2]``), by size and then lexicographically: the sparse form, which costs the
        dataset's size rather than the universe's."""
        m, lo, hi = self.universe.size, self.min_size, self.max_size
        caps = [self.max_count(i) for i in range(m)] if self._caps is not None else None
        # after[i] = most records that values i+1.. can take (for pruning short prefixes);
        # read only with caps, so left empty without them
        after: list[int] = []
        if caps is not None:
            after = [0] * (m + 1)
            for i in range(m - 1, -1, -1):
                after[i] = after[i + 1] + caps[i]
        layer: list[tuple[int, ...]] = [()]
        for size in range(hi + 1):
            if size >= lo:
                yield from layer
            if size == hi:
                return
            grown: list[tuple[int, ...]] = []
            need = lo - size - 1  # records still needed after the one added now
            for t in layer:
                first = t[-1] if t else 0
                for i in range(first, m):
                    if caps is None:
                        grown.append(t + (i,))
                        continue
                    run = 1 + (t.count(i) if t and t[-1] == i else 0)
                    if run > caps[i]:
                        continue
                    if (caps[i] - run) + after[i + 1] < need:
                        break  # later values have even less room
                    grown.append(t + (i,))
            layer = grown

    # -- conversion ----------------------------------------------------------------
    def contains(self, counts: Sequence[int]) -> bool:
        if len(counts) != self.universe.size:
            return False
        if any(c < 0 or c > self.max_count(i) for i, c in enumerate(counts)):
            return False
        return self.min_size <= sum(counts) <= self.max_size

    def to_values(self, counts: Sequence[int]) -> tuple[Fraction, ...]:
        """The sorted tuple of values of a count vector."""
        out: list[Fraction] = []
        for v, c in zip(self.universe.values, counts):
            out.extend([v] * c)
        return tuple(out)

    def to_counts(self, dataset: Iterable[object], name: str = "dataset") -> tuple[int, ...]:
        """The count vector of a dataset given as values (any order, exact numbers)."""
        counts = [0] * self.universe.size
        for i in self.to_indices(dataset, name):
            counts[i] += 1
        return tuple(counts)

    def to_indices(self, dataset: Iterable[object], name: str = "dataset") -> tuple[int, ...]:
        """The sorted value indices of a dataset given as values (the sparse form)."""
        return tuple(sorted(value_indices(self.universe, dataset, name, "a collection of values")))

    def contains_indices(self, indices: Sequence[int]) -> bool:
        """Whether a dataset in sparse form (sorted value indices) lies in the space."""
        if not self.min_size <= len(indices) <= self.max_size:
            return False
        return all(indices.count(i) <= self.max_count(i) for i in set(indices))


class Multisets(DatasetSpace):
    """All multisets over ``universe`` with size in ``sizes`` (a value may repeat).

    >>> from exactdp import IntegerRange
    >>> len(Multisets(IntegerRange(0, 7), sizes=(0, 8)))
    12870
    """

    kind = "multisets"

    def __init__(
        self, universe: ValueUniverse, *, size: int | None = None, sizes: object = None
    ):
        if not isinstance(universe, ValueUniverse):
            raise InvalidArgument(
                f"universe={universe!r} is not a ValueUniverse; build one with "
                f"IntegerRange(A, B) or ExactSet([...])"
            )
        a, b = _sizes(size, sizes)
        super().__init__(universe, None, a, b)

    def with_sizes(self, min_size: int, max_size: int) -> "Multisets":
        return Multisets(self.universe, sizes=(min_size, max_size))

    def __repr__(self) -> str:
        return f"Multisets({self.universe!r}, sizes=({self.min_size}, {self.max_size}))"


class SubMultisets(DatasetSpace):
    """All sub-multisets of a record ``pool`` with size in ``sizes``.

    A record used in a dataset cannot be used again: value ``v`` occurs at most as
    often as it occurs in the pool.

    >>> len(SubMultisets([1, 2, 2, 2, 5, 5, 7, 8, 9, 9], size=6))
    53
    """

    kind = "sub-multisets"

    def __init__(self, pool: Iterable[object], *, size: int | None = None, sizes: object = None):
        if isinstance(pool, (str, bytes)) or not isinstance(pool, Iterable):
            raise InvalidArgument(f"pool={pool!r} is not a collection of records; pass a list "
                                  f"such as [1, 2, 2]")
        listed = list(islice(pool, MAX_LISTED_VALUES + 1))  # an endless iterator is not read on
        refuse_above(len(listed), MAX_LISTED_VALUES, what="records in the pool (or more)",
                     option=None, hint="use a smaller pool")
        pool_values = [to_exact(v, "pool value") for v in listed]
        if not pool_values:
            raise InvalidArgument("pool=[] is empty; give the records of the pool, e.g. [1, 2, 2]")
        counter = Counter(pool_values)
        universe = ValueUniverse(counter)
        a, b = _sizes(size, sizes)
        if b > len(pool_values):
            raise InvalidArgument(
                f"max size={b} exceeds the pool's {len(pool_values)} records; a dataset "
                f"cannot use a record twice: use sizes up to {len(pool_values)}"
            )
        self.pool = tuple(sorted(pool_values))
        super().__init__(universe, [counter[v] for v in universe.values], a, b)

    def with_sizes(self, min_size: int, max_size: int) -> "SubMultisets":
        return SubMultisets(self.pool, sizes=(min_size, min(max_size, len(self.pool))))

    def describe(self) -> str:
        shown = [format_exact(v) for v in (self.pool if len(self.pool) <= 12 else self.pool[:8])]
        if len(self.pool) > 12:
            shown += ["...", format_exact(self.pool[-1])]
            tail = f" ({len(self.pool):,} records)"
        else:
            tail = ""
        return f"sub-multisets of size {self.sizes_text()} of the pool [{','.join(shown)}]{tail}"

    def __repr__(self) -> str:
        pool = ", ".join(repr(format_exact(v)) for v in self.pool)
        return f"SubMultisets([{pool}], sizes=({self.min_size}, {self.max_size}))"


def as_space(space: object) -> DatasetSpace:
    """``space`` if it is a dataset space, else one line saying how to build one."""
    if not isinstance(space, DatasetSpace):
        what = {"sequences": "a space of sequences (ordered data)",
                "units": "a space of (id, value) datasets"}.get(getattr(space, "kind", None) or "",
                                                                "not a dataset space")
        raise InvalidArgument(
            f"space={space!r} is {what}; this works on multisets only: build one with "
            f"Multisets(universe, sizes=(A, B)) or SubMultisets(pool, size=N) (on the command "
            f"line: --neighbors add-remove or substitute, with --universe and --sizes or --pool "
            f"and --size)"
        )
    return space
