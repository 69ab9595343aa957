"""Ordered datasets (sequences) and their two neighbour relations.

Order matters when a query reads the data in order: a float sum rounds after every
``+``, so ``(2**53, 1, 1)`` and ``(1, 1, 2**53)`` sum to different floats; a library's
own function may do anything with positions. :class:`Sequences` enumerates every
ordered dataset (every order of every multiset), so such queries are checked over every
order.

A sequence is stored as a tuple of value indices into the sorted universe (its *key*):
``(2, 0, 2)`` over ``{1, 2, 3}`` is ``[3, 1, 3]``.

Two relations, both path metrics of an edit graph (the distance is the least number of
edits that turn one sequence into the other):

* :class:`InsertDeleteDistance` (OpenDP's ``InsertDeleteDistance``; "unbounded DP" for
  ordered data): one edit inserts a record at any position or deletes one at any
  position. ``d(x, x') = |x| + |x'| - 2 * LCS(x, x')``.
* :class:`HammingDistance` (OpenDP's ``HammingDistance``; "bounded DP" for ordered data):
  one edit changes the record at one position. Sequences of different lengths are
  infinitely far apart (``distance`` returns ``None``).

The conversions between them are exact maps (:func:`hamming_to_insert_delete`,
:func:`insert_delete_to_hamming`, :func:`insert_delete_to_symmetric`,
:func:`hamming_to_change`), each a bound that
:func:`exactdp.checkers.graph.verify_conversion` checks by enumeration. The one that is
easy to get wrong (OpenDP #2926): insert-delete ``d_in`` between sequences of the same
length ``N`` does *not* give Hamming ``d_in / 2``, as it would for multisets
(``SymmetricDistance`` ``2k`` gives ``ChangeDistance`` ``k``): moving the first record
to the end is two edits and can change every position, so the bound is ``N``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Iterable, Iterator, Sequence

from exactdp._budget import MoreThan, show_count
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_dataset
from exactdp.spaces.datasets import SizeRange, _sizes, value_indices
from exactdp.spaces.metrics import Parameterless, check_d_in
from exactdp.spaces.universe import ValueUniverse

__all__ = [
    "Sequences", "InsertDeleteDistance", "HammingDistance", "SequenceMetric",
    "hamming_to_insert_delete", "insert_delete_to_hamming", "insert_delete_to_symmetric",
    "hamming_to_change", "lcs_length",
]

Key = tuple[int, ...]


class Sequences(SizeRange):
    """Every sequence over ``universe`` with length in ``sizes`` (``size=N`` for one).

    The number of sequences, ``sum(m**n)``, is known without enumerating
    (:meth:`count_capped`), so a budget is checked before any work.

    >>> from exactdp import IntegerRange
    >>> s = Sequences(IntegerRange(0, 1), sizes=(0, 2))
    >>> len(s), [s.to_values(k) for k in s][:4]
    (7, [(), (Fraction(0, 1),), (Fraction(1, 1),), (Fraction(0, 1), Fraction(0, 1))])
    """

    kind = "sequences"

    def __init__(self, universe: ValueUniverse, *, size: int | None = None, sizes: object = None):
        if not isinstance(universe, ValueUniverse):
            raise InvalidArgument(
                f"universe={universe!r} is not a ValueUniverse; build one with "
                f"IntegerRange(A, B) or ExactSet([...])"
            )
        self.universe = universe
        self.min_size, self.max_size = _sizes(size, sizes)

    # -- structure ---------------------------------------------------------------------
    def describe(self) -> str:
        return f"sequences of length {self.sizes_text()} over {self.universe.describe()}"

    def __repr__(self) -> str:
        return f"Sequences({self.universe!r}, sizes=({self.min_size}, {self.max_size}))"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Sequences)
                and (self.universe, self.min_size, self.max_size)
                == (other.universe, other.min_size, other.max_size))

    def __hash__(self) -> int:
        return hash(("Sequences", self.universe, self.min_size, self.max_size))

    # -- counting ----------------------------------------------------------------------
    def count_capped(self, cap: int) -> int:
        """The number of sequences when at most ``cap``; otherwise either the number or a
        :class:`~exactdp._budget.MoreThan` bound at or above ``cap`` (shown "more than N",
        never as the count), in time independent of the count."""
        m = self.universe.size
        if m <= 1:  # one sequence of each length (none but the empty one without values)
            return self.max_size - self.min_size + 1 if m else int(self.min_size == 0)
        total = 0
        for n in range(self.min_size, self.max_size + 1):
            if n * (m.bit_length() - 1) > max(cap.bit_length(), 100):
                # m**n >= 2**(n * (bits - 1)): the count is at least total + that
                return MoreThan(total + (1 << (n * (m.bit_length() - 1))) - 1)
            total += m ** n
            if total > cap:  # the longer lengths left add at least one sequence each
                return total if n == self.max_size else MoreThan(total)
        return total

    def count(self) -> int:
        """Exact number of sequences (``sum of m**n``); use :meth:`count_capped` first
        when the space may be huge."""
        m = self.universe.size
        return sum(m ** n for n in range(self.min_size, self.max_size + 1))

    def __len__(self) -> int:
        return self.count()

    # -- enumeration -------------------------------------------------------------------
    def __iter__(self) -> Iterator[Key]:
        """Every sequence once, by length, then lexicographically in value order."""
        m = self.universe.size
        for n in range(self.min_size, self.max_size + 1):
            yield from product(range(m), repeat=n)

    def size_of(self, key: Key) -> int:
        return len(key)

    def contains(self, key: Key) -> bool:
        return (self.min_size <= len(key) <= self.max_size
                and all(isinstance(i, int) and 0 <= i < self.universe.size for i in key))

    # -- conversion --------------------------------------------------------------------
    def to_values(self, key: Key) -> tuple[Fraction, ...]:
        """The values of a sequence, in order (what an order-dependent query reads)."""
        return tuple(self.universe.value(i) for i in key)

    public = to_values

    def multiset_values(self, key: Key) -> tuple[Fraction, ...]:
        """The values, in order: a multiset query sorts them itself."""
        return self.to_values(key)

    def to_key(self, dataset: Iterable[object], name: str = "dataset") -> Key:
        """The key of a sequence given as exact values, order kept."""
        return tuple(value_indices(self.universe, dataset, name, "a sequence of values"))

    def show(self, key: Key) -> str:
        """A sequence as exact text, in order: ``(1, 5/2, 1)``."""
        return "(" + format_dataset(self.to_values(key))[1:-1] + ")"

    def budget_hint(self) -> str:
        return (f"shrink the universe ({show_count(self.universe.size)} values) or the "
                f"lengths ({self.sizes_text()})")

    def claim_parameters(self) -> dict[str, Fraction]:
        out = {"L": self.universe.lower, "U": self.universe.upper}
        if self.fixed_size is not None:
            out["N"] = Fraction(self.fixed_size)
        return out


def lcs_length(x: Sequence[int], y: Sequence[int]) -> int:
    """Length of a longest common subsequence (dynamic programming, ``O(|x| |y|)``)."""
    if not x or not y:
        return 0
    prev = [0] * (len(y) + 1)
    for a in x:
        cur = [0]
        for j, b in enumerate(y):
            cur.append(prev[j] + 1 if a == b else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


class SequenceMetric(Parameterless):
    """Base of the sequence relations: an edit graph whose path metric is the distance."""

    name = "sequence metric"
    cli_name = "sequence"
    size_step = 1  # how much one edit can change the length

    def distance(self, x: Key, y: Key) -> int | None:
        raise NotImplementedError

    def edits(self, key: Key, space: Sequences) -> Iterator[Key]:
        """The sequences one edit away from ``key`` (possibly outside ``space``'s lengths)."""
        raise NotImplementedError

    def max_edits(self, space: Sequences, length: int) -> int:
        """An upper bound on the edits from a sequence of ``length`` records."""
        raise NotImplementedError

    def size_shift(self, d_in: int) -> int:
        return d_in * self.size_step

    def describe(self, d_in: int, exact_k: bool = False) -> str:
        op = "=" if exact_k else "<="
        return f"{self.name} {op} {d_in} ({self.edit_text})"

    edit_text = ""


class InsertDeleteDistance(SequenceMetric):
    """One insertion or one deletion, at any position, is distance 1.

    >>> InsertDeleteDistance().distance((0, 1), (1, 0))
    2
    """

    name = "InsertDeleteDistance"
    cli_name = "insert-delete"
    edit_text = "ordered; one insertion or deletion at any position = 1"

    def distance(self, x: Key, y: Key) -> int:
        return len(x) + len(y) - 2 * lcs_length(x, y)

    def edits(self, key: Key, space: Sequences) -> Iterator[Key]:
        n = len(key)
        seen: set[Key] = set()
        for p in range(n):  # deletions
            y = key[:p] + key[p + 1:]
            if y not in seen:
                seen.add(y)
                yield y
        for p in range(n + 1):  # insertions
            for v in range(space.universe.size):
                y = key[:p] + (v,) + key[p:]
                if y not in seen:
                    seen.add(y)
                    yield y

    def max_edits(self, space: Sequences, length: int) -> int:
        return length + (length + 1) * space.universe.size


class HammingDistance(SequenceMetric):
    """Same length: the number of positions that differ; different lengths: infinite.

    >>> HammingDistance().distance((0, 1), (1, 0)), HammingDistance().distance((0,), (0, 0))
    (2, None)
    """

    name = "HammingDistance"
    cli_name = "hamming"
    size_step = 0
    edit_text = "ordered, same length; positions that differ; infinite across lengths"

    def distance(self, x: Key, y: Key) -> int | None:
        if len(x) != len(y):
            return None
        return sum(1 for a, b in zip(x, y) if a != b)

    def edits(self, key: Key, space: Sequences) -> Iterator[Key]:
        for p, old in enumerate(key):
            for v in range(space.universe.size):
                if v != old:
                    yield key[:p] + (v,) + key[p + 1:]

    def max_edits(self, space: Sequences, length: int) -> int:
        return length * max(space.universe.size - 1, 0)


# -- conversions, as exact maps d_in -> bound -------------------------------------------

def hamming_to_insert_delete(d_in: int) -> int:
    """Hamming ``d_in`` implies insert-delete at most ``2 * d_in`` (a change is one
    deletion and one insertion); tight."""
    return 2 * check_d_in(d_in)


def insert_delete_to_hamming(d_in: int, size: int) -> int:
    """Between sequences of the same length ``size``, insert-delete ``d_in`` implies
    Hamming at most ``0`` for ``d_in <= 1`` (no two sequences of the same length are one
    edit apart) and ``size`` for ``d_in >= 2``: a rotation (delete the first record,
    append it) is two edits and can change every position, e.g. ``(0, 1, 0, 1)`` and
    ``(1, 0, 1, 0)``. Tight whenever the universe has two values or more.

    Not ``d_in // 2``, the multiset rule (OpenDP #2926).
    """
    d_in = check_d_in(d_in)
    size = check_d_in(size, "size")
    return 0 if d_in <= 1 else size


def insert_delete_to_symmetric(d_in: int) -> int:
    """Forgetting order: insert-delete ``d_in`` implies ``SymmetricDistance`` at most
    ``d_in`` between the multisets of values."""
    return check_d_in(d_in)


def hamming_to_change(d_in: int) -> int:
    """Forgetting order: Hamming ``d_in`` implies ``ChangeDistance`` at most ``d_in``."""
    return check_d_in(d_in)
