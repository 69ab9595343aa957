"""The edit-graph backend: neighbours of ordered or id datasets by breadth-first search.

Sequences and privacy-unit datasets are not multisets of values, and their relations
are defined by edits (insert or delete a record at a position, change a position, add or
remove every row of one id). The relation's distance is the path metric of its edit
graph, so the BFS level *is* the distance; intermediate datasets may lie outside the
space (a deletion then an insertion passes through a shorter sequence), but never
further from it than the edits left can bring back. The front doors
(:mod:`exactdp.checkers.graph`) build the value table and turn the best pair into a
verdict; this module finds the pairs and the best of them, in one process (one
partition: the space).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from exactdp.spaces.sequences import Sequences

__all__ = ["edit_bound", "neighbour_pairs", "best_pair", "CAP"]

CAP = 10**30


def edit_bound(space: Any, relation: Any, d_in: int) -> int:
    """An upper bound on the datasets a BFS of depth ``d_in`` reaches from one source."""
    if isinstance(space, Sequences):
        largest = space.max_size + relation.size_step * max(d_in - 1, 0)
    else:
        largest = space.max_units
    e = relation.max_edits(space, largest)
    total, step = 0, 1
    for _ in range(d_in):
        step *= max(e, 1)
        total += step
        if total > CAP:
            return total
    return total


def neighbour_pairs(space: Any, relation: Any, d_in: int, exact_k: bool, keys: list,
                    index: dict) -> Iterator[tuple[int, int, int]]:
    """``(i, j, distance)`` for every pair of the space with ``i < j`` and distance at
    most ``d_in`` (exactly ``d_in`` with ``exact_k``), by BFS over the relation's edits."""
    lo = space.min_size if isinstance(space, Sequences) else space.min_units
    hi = space.max_size if isinstance(space, Sequences) else space.max_units
    step = relation.size_step
    for i, x in enumerate(keys):
        seen = {x: 0}
        frontier = [x]
        for level in range(1, d_in + 1):
            left = d_in - level
            nxt = []
            for y in frontier:
                for z in relation.edits(y, space):
                    if z in seen:
                        continue
                    size = space.size_of(z)
                    if step and (size < lo - left * step or size > hi + left * step):
                        continue  # too far outside the space to come back
                    seen[z] = level
                    nxt.append(z)
            frontier = nxt
        for z, level in seen.items():
            if level == 0 or (exact_k and level != d_in):
                continue
            j = index.get(z)
            if j is not None and j > i:
                yield i, j, level


def best_pair(space: Any, relation: Any, d_in: int, exact_k: bool, keys: list, index: dict,
              values: list, gap: Callable[[Any, Any], Any], bar) -> tuple:
    """``(best gap, (i, j, level) or None, pairs examined)`` over the pairs of the space;
    ``values[i]`` is ``None`` where a dataset is excluded. The witness is the first pair
    attaining the maximum in enumeration order (smallest ``i``, then ``j``)."""
    best = None
    best_at = None
    pairs = 0
    last = -1
    for i, j, level in neighbour_pairs(space, relation, d_in, exact_k, keys, index):
        if i != last:
            last = i
            bar.update(i, pairs)
        a, b = values[i], values[j]
        if a is None or b is None:
            continue
        pairs += 1
        g = gap(a, b)
        if best is None or g > best or (g == best and best_at is not None and best_at[0] == i
                                        and j < best_at[1]):
            best, best_at = g, (i, j, level)
    return best, best_at, pairs
