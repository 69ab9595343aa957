"""Dataset metrics (neighbour relations) and the moves that realise them.

Two datasets are neighbours when their distance is at most ``d_in`` (the DP
definition). Under both metrics a neighbour ``x'`` of ``x`` is ``x - R + A``: a
multiset ``R`` of records removed and a multiset ``A`` of records added, with no value
in both (otherwise the pair is closer than it looks). A *move* is such a pair
``(R, A)`` of index tuples into the sorted universe.

* :class:`SymmetricDistance` (add/remove, "unbounded DP"; Tumult's ``AddOneRow`` is
  ``d_in = 1``, ``AddMaxRows(n)`` is ``d_in = n``): ``d(x, x') = |x Δ x'| = |R| + |A|``.
* :class:`ChangeDistance` (substitute, "bounded DP"): only datasets of equal size are
  comparable, and ``d(x, x') = |R| = |A|`` records changed.

A change of one record is distance 1 under ``ChangeDistance`` and distance 2 under
``SymmetricDistance`` (one removal plus one addition):
:meth:`ChangeDistance.to_symmetric` converts the bound.

:meth:`Metric.distance` takes two *datasets* (any iterables of values, order ignored);
:meth:`Metric.count_distance` and :meth:`Metric.related` take *count vectors* over one
universe (the engine's form). Before, ``distance`` read its arguments as count vectors, so
two datasets gave a silently wrong number (``((1, 2), (1, 3))``: 1 for 2).

*Exactly-k* pairs (``exact_k=True``) reproduce seed 003's convention: under
``SymmetricDistance``, ``x'`` is ``x`` with exactly ``k`` records added or exactly ``k``
removed (never a mix); under ``ChangeDistance``, exactly ``k`` records substituted.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb
from typing import Iterable, Iterator, Sequence

from exactdp._budget import comb_capped
from exactdp.errors import InvalidArgument

__all__ = ["Metric", "SymmetricDistance", "ChangeDistance", "check_d_in", "check_flag",
           "parse_metric", "as_metric"]

Move = tuple[tuple[int, ...], tuple[int, ...]]


def check_d_in(d_in: object, name: str = "d_in") -> int:
    """Validate a dataset distance bound: a whole number, at least 0."""
    if isinstance(d_in, bool) or not isinstance(d_in, int):
        raise InvalidArgument(
            f"{name}={d_in!r} is not an int; dataset distances are whole numbers of records"
        )
    if d_in < 0:
        raise InvalidArgument(f"{name}={d_in!r} is negative; pass a distance of at least 0")
    return d_in


def check_flag(value: object, name: str) -> bool:
    """Validate a yes/no option such as ``exact_k``: a bool, nothing else (``'yes'`` is refused)."""
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} is not a bool; pass True or False")
    return value


def _multisets(m: int, size: int) -> Iterator[tuple[int, ...]]:
    return combinations_with_replacement(range(m), size)


def _n_multisets(m: int, size: int) -> int:
    return comb(m + size - 1, size) if m else int(size == 0)


def _n_multisets_capped(m: int, size: int, cap: int | None) -> int:
    if cap is None or not m:
        return _n_multisets(m, size)
    return comb_capped(m + size - 1, size, cap)


def _check_counts(counts: object, name: str) -> tuple[int, ...]:
    """A count vector: a sequence of whole numbers >= 0."""
    if isinstance(counts, (str, bytes)) or not hasattr(counts, "__iter__"):
        raise InvalidArgument(
            f"{name}={counts!r} is not a count vector; pass a tuple of whole numbers (the count "
            f"of each value of the universe)"
        )
    out = tuple(counts)
    for c in out:
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise InvalidArgument(
                f"{name}={counts!r} is not a count vector ({c!r} is not a whole number >= 0); "
                f"for two datasets of values use distance(x, x_prime)"
            )
    return out


def _dataset_counter(x: object, name: str) -> Counter:
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise InvalidArgument(
            f"{name}={x!r} is not a dataset; pass an iterable of values such as (1, 2, 2)"
        )
    values = list(x)
    for v in values:
        try:
            hash(v)
        except TypeError:
            raise InvalidArgument(
                f"{name} holds {v!r}, which cannot be compared as a record (unhashable); pass "
                f"a dataset of values such as (1, 2, 2)"
            ) from None
        if v != v:  # NaN: equal to no record, not even itself
            raise InvalidArgument(f"{name} holds {v!r}, which equals no record; pass exact values")
    return Counter(values)


def _counts_of(x: object, x_prime: object) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Count vectors of two datasets over the values either holds."""
    a, b = _dataset_counter(x, "x"), _dataset_counter(x_prime, "x_prime")
    support = list(a.keys() | b.keys())
    return tuple(a[v] for v in support), tuple(b[v] for v in support)


class Parameterless:
    """A relation with no parameters: equal to every instance of its class."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Metric(Parameterless):
    """Base class of dataset metrics; subclasses define :meth:`moves`."""

    name = "metric"
    cli_name = "metric"

    def distance(self, x: Iterable[object], x_prime: Iterable[object]) -> int | None:
        """The distance between two datasets (iterables of values; the order is ignored),
        or ``None`` when the metric does not compare them (sizes differ under
        :class:`ChangeDistance`).

        >>> SymmetricDistance().distance([1, 2], [1, 3]), ChangeDistance().distance([1, 2], [1, 3])
        (2, 1)
        """
        return self.count_distance(*_counts_of(x, x_prime))

    def count_distance(self, x: Sequence[int], x_prime: Sequence[int]) -> int | None:
        """:meth:`distance` of two datasets given as count vectors over one universe (the
        count of each value, in one order): both of one length, whole numbers >= 0.

        >>> SymmetricDistance().count_distance((1, 0, 2), (0, 1, 2))
        2
        """
        x, x_prime = _check_counts(x, "x"), _check_counts(x_prime, "x_prime")
        if len(x) != len(x_prime):
            raise InvalidArgument(
                f"count vectors of lengths {len(x)} and {len(x_prime)}: a count vector has one "
                f"entry per value of the universe, so both have the same length; for two "
                f"datasets use distance(x, x_prime)"
            )
        return self._count_distance(x, x_prime)

    def _count_distance(self, x: tuple[int, ...], x_prime: tuple[int, ...]) -> int | None:
        raise NotImplementedError

    def moves(self, m: int, d_in: int, exact_k: bool = False) -> list[Move]:
        """Every move ``(R, A)`` realising a pair at distance ``<= d_in`` (or exactly)."""
        # as a plain ``type``: mypy takes a class whose instances define __hash__ for an
        # unhashable value (its __hash__ seen unbound), though every class object is hashable
        cls: type = type(self)
        return list(_cached_moves(cls, m, d_in, exact_k))

    def _moves(self, m: int, d_in: int, exact_k: bool) -> list[Move]:
        raise NotImplementedError

    def count_moves(self, m: int, d_in: int, exact_k: bool = False, cap: int | None = None) -> int:
        """An upper bound on ``len(moves(...))``, without building them; with ``cap``, any
        number above ``cap`` may stand for a larger count (found in time independent of it)."""
        raise NotImplementedError

    def diameter(self, max_size: int) -> int:
        """The largest distance between two datasets of at most ``max_size`` records
        (``d_in`` beyond it relates the same pairs as ``d_in`` equal to it)."""
        raise NotImplementedError

    def related(self, x: tuple[int, ...], y: tuple[int, ...], d_in: int, exact_k: bool = False) -> bool:
        """Whether ``x != y``, count vectors over one universe (as for
        :meth:`count_distance`), are neighbours: distance ``<= d_in`` (or the exact-k rule)."""
        raise NotImplementedError

    def size_shift(self, d_in: int) -> int:
        """How far a neighbour's size can be from the dataset's own size."""
        raise NotImplementedError

    def describe(self, d_in: int, exact_k: bool = False) -> str:
        raise NotImplementedError


class SymmetricDistance(Metric):
    """Add/remove neighbours: ``d(x, x')`` is the size of the symmetric difference."""

    name = "SymmetricDistance"
    cli_name = "add-remove"

    def _count_distance(self, x, x_prime):
        return sum(abs(a - b) for a, b in zip(x, x_prime))

    def size_shift(self, d_in: int) -> int:
        return d_in

    def count_moves(self, m: int, d_in: int, exact_k: bool = False, cap: int | None = None) -> int:
        if m == 0 or d_in == 0:
            return 0
        if exact_k:  # C(m + d - 1, d) multisets added, as many removed
            return 2 * _n_multisets_capped(m, d_in, cap)
        # (R, A) with |R| + |A| = t are the multisets of size t over 2m values:
        # sum over t = 1..d of C(2m + t - 1, t) = C(2m + d, d) - 1
        if cap is None:
            return comb(2 * m + d_in, d_in) - 1
        return comb_capped(2 * m + d_in, d_in, cap + 1) - 1

    def diameter(self, max_size: int) -> int:
        return 2 * max_size

    def related(self, x, y, d_in, exact_k=False):
        up = down = 0
        for a, b in zip(x, y):
            if b > a:
                up += b - a
            elif a > b:
                down += a - b
        if exact_k:
            return (up == d_in and down == 0) or (down == d_in and up == 0)
        return 0 < up + down <= d_in

    def _moves(self, m: int, d_in: int, exact_k: bool = False) -> list[Move]:
        if exact_k:
            if d_in == 0:
                return []
            return [((), a) for a in _multisets(m, d_in)] + [(r, ()) for r in _multisets(m, d_in)]
        out: list[Move] = []
        for total in range(1, d_in + 1):
            for n_removed in range(total + 1):
                for r in _multisets(m, n_removed):
                    used = set(r)
                    for a in _multisets(m, total - n_removed):
                        if used.isdisjoint(a):
                            out.append((r, a))
        return out

    def describe(self, d_in: int, exact_k: bool = False) -> str:
        if exact_k:
            return f"exactly {d_in} records added or exactly {d_in} removed (SymmetricDistance = {d_in}, one-sided)"
        return f"SymmetricDistance <= {d_in} (add/remove)"


class ChangeDistance(Metric):
    """Substitute neighbours ("bounded DP"): equal sizes, ``d`` records changed."""

    name = "ChangeDistance"
    cli_name = "substitute"

    def _count_distance(self, x, x_prime):
        if sum(x) != sum(x_prime):
            return None  # not comparable: sizes differ
        return sum(abs(a - b) for a, b in zip(x, x_prime)) // 2

    def size_shift(self, d_in: int) -> int:
        return 0

    @staticmethod
    def to_symmetric(d_in: int) -> int:
        """The SymmetricDistance bound implied by ``d_in`` changes: ``2 * d_in``."""
        return 2 * check_d_in(d_in)

    def count_moves(self, m: int, d_in: int, exact_k: bool = False, cap: int | None = None) -> int:
        if m == 0 or d_in == 0:
            return 0
        if exact_k:
            return _n_multisets_capped(m, d_in, cap) ** 2
        if m == 1:  # one multiset of each size
            return d_in
        total = 0
        for j in range(1, d_in + 1):  # terms grow at least like (j + 1)**2: few steps to pass cap
            total += _n_multisets_capped(m, j, cap) ** 2
            if cap is not None and total > cap:
                return total
        return total

    def diameter(self, max_size: int) -> int:
        return max_size

    def related(self, x, y, d_in, exact_k=False):
        up = down = 0
        for a, b in zip(x, y):
            if b > a:
                up += b - a
            elif a > b:
                down += a - b
        if up != down:
            return False
        return up == d_in if exact_k else 0 < up <= d_in

    def _moves(self, m: int, d_in: int, exact_k: bool = False) -> list[Move]:
        out: list[Move] = []
        for j in range(d_in if exact_k else 1, d_in + 1):
            if j == 0:
                continue
            for r in _multisets(m, j):
                used = set(r)
                for a in _multisets(m, j):
                    if used.isdisjoint(a):
                        out.append((r, a))
        return out

    def describe(self, d_in: int, exact_k: bool = False) -> str:
        op = "=" if exact_k else "<="
        return f"ChangeDistance {op} {d_in} (substitute, sizes equal)"


@lru_cache(maxsize=64)
def _cached_moves(cls: type, m: int, d_in: int, exact_k: bool) -> tuple[Move, ...]:
    return tuple(cls()._moves(m, d_in, exact_k))


_BY_CLI = {"add-remove": SymmetricDistance, "substitute": ChangeDistance}


def parse_metric(text: str) -> Metric:
    """``'add-remove'`` or ``'substitute'`` (also the class names)."""
    key = text.strip() if isinstance(text, str) else text
    for cls in (SymmetricDistance, ChangeDistance):
        if key in (cls.cli_name, cls.name):
            return cls()
    if key in _ORDERED:
        raise _ordered_here(text)
    raise InvalidArgument(
        f"neighbors={text!r} is not a known relation; use 'add-remove' (SymmetricDistance) "
        f"or 'substitute' (ChangeDistance)"
    )


_ORDERED = ("insert-delete", "InsertDeleteDistance", "hamming", "HammingDistance")
"""Relations of ordered datasets (:mod:`exactdp.spaces.sequences`): not for multisets."""


def _ordered_here(name: object) -> InvalidArgument:
    return InvalidArgument(
        f"neighbors={name!r} relates sequences (ordered datasets), not multisets such as a "
        f"--pool, Multisets or SubMultisets; for multisets use 'add-remove' "
        f"(SymmetricDistance) or 'substitute' (ChangeDistance), or enumerate sequences "
        f"(exactdp sensitivity --universe A..B --sizes A..B, or Sequences(...) in Python)"
    )


def as_metric(metric: object) -> Metric:
    """A metric from a :class:`Metric`, its CLI name or ``None`` (add/remove)."""
    if metric is None:
        return SymmetricDistance()
    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, str):
        return parse_metric(metric)
    if getattr(type(metric), "name", None) in _ORDERED:  # InsertDeleteDistance(), HammingDistance()
        raise _ordered_here(metric)
    raise InvalidArgument(
        f"metric={metric!r} is not a metric; pass SymmetricDistance(), ChangeDistance(), "
        f"'add-remove' or 'substitute'"
    )
