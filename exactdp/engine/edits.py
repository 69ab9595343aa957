"""The edit-graph engine: sequences and privacy units, neighbours by breadth-first search.

Ordered datasets (:class:`~exactdp.spaces.sequences.Sequences`) and privacy-unit datasets
(:class:`~exactdp.spaces.units.Units`) are not multisets of values, and their relations
are defined by edits: insert or delete a record at a position, change a position, add or
remove every row of one id. This engine needs only that:

1. the space counts its datasets without enumerating them (the budget is checked first,
   and the neighbour candidates, datasets x edit paths, are bounded too: :func:`edit_bound`);
2. every dataset of the space is enumerated once, in a fixed order, and kept in a dict
   ``key -> index`` with the query's exact value (:func:`compute`);
3. the neighbours of ``x`` within ``d_in`` are found by breadth-first search over the
   relation's edits (:func:`neighbour_pairs`; the relation's distance is the path metric
   of its edit graph, so the BFS level *is* the distance); intermediate datasets may lie
   outside the space (a deletion then an insertion passes through a shorter sequence),
   but never further from it than the edits left can bring back;
4. each unordered pair ``{x, x'}`` of the space with ``d(x, x') <= d_in`` (or ``=
   d_in`` with ``exact_k=True``) is compared once (:func:`best_pair`).

The witness is deterministic: among the pairs that attain the maximum, the first in the
space's enumeration order (smallest index of ``x``, then of ``x'``). The engine runs in one
process (one partition: the space) and answers an :class:`EditAnswer`; the front doors
(:mod:`exactdp.checkers.graph`, and :mod:`exactdp.checkers.sensitivity` through
:mod:`.door`) turn it into a verdict. Queries are read by the one parser,
:func:`exactdp.queries.builtin.as_query` (functions of the public form allowed).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterator

from exactdp._budget import check_budget, refuse_above, show_count
from exactdp._progress import Progress
from exactdp.engine.options import Options
from exactdp.errors import InvalidArgument, SpaceMismatch, UndefinedQuery
from exactdp.numeric.exact import to_exact
from exactdp.queries.base import UNDEFINED, GraphQuery, Query, check_result, sqrt_value
from exactdp.queries.builtin import as_query
from exactdp.spaces.metrics import check_d_in, check_flag
from exactdp.spaces.sequences import HammingDistance, InsertDeleteDistance, SequenceMetric, Sequences
from exactdp.spaces.units import AddRemoveID, Units

__all__ = [
    "EditPlan", "EditAnswer", "make_plan", "compute", "read_query", "evaluator",
    "is_edit_space", "as_relation", "edit_bound", "neighbour_pairs", "best_pair",
    "farthest_pair", "CAP",
]

CAP = 10**30


# -- queries ---------------------------------------------------------------------------

def read_query(query: object) -> GraphQuery:
    """The query as this engine compares it (read by :func:`~exactdp.queries.builtin.as_query`):
    a :class:`~exactdp.queries.base.GraphQuery`; a multiset :class:`Query` is wrapped (its
    name, output, norm and clip kept), a square root refused (this engine compares
    rational values)."""
    q = as_query(query, functions=True)
    if isinstance(q, GraphQuery):
        return q
    if q.output == "sqrt":
        raise InvalidArgument(
            f"query {q.name!r} is a square root; this engine compares rational values: "
            f"check its variance, or wrap the query with make_query"
        )
    return GraphQuery(q.name, q, q.output, q.norm, q.clip)


def evaluator(query: object, space: Any) -> tuple[GraphQuery, Callable[[Any], Any]]:
    """The query and a function ``key -> raw result`` (``UNDEFINED`` allowed): a multiset
    :class:`Query` reads the dataset's values (order and ids ignored), any other the
    dataset's public form."""
    q = as_query(query, functions=True)
    gq = read_query(q)
    if isinstance(q, Query):
        universe = space.universe
        ready: list = []  # prepared on first use: after the budgets, never for a refused space

        def run_multiset(key):
            if not ready:
                ready.append(q.prepare(universe.values))
            counts = [0] * universe.size
            for v in space.multiset_values(key):
                counts[universe.index(v)] += 1
            return ready[0](tuple(counts))

        return gq, run_multiset
    return gq, lambda key: gq.fn(space.public(key))


def _exact_result(q: GraphQuery, raw: Any, space: Any, key: Any) -> Any:
    shown = space.multiset_values(key)
    if q.output == "vector":
        if not isinstance(raw, (tuple, list)):
            raise InvalidArgument(
                f"query {q.name!r} returned {raw!r} on {space.show(key)}; a vector query returns "
                f"a tuple of exact numbers"
            )
        return tuple(check_result(q.name, v, shown) for v in raw)
    return check_result(q.name, raw, shown)


def _gap(q: GraphQuery, a: Any, b: Any) -> Fraction:
    """The output distance (squared for L2, so that it stays rational)."""
    if q.output == "scalar":
        return abs(a - b)
    if len(a) != len(b):
        raise InvalidArgument(f"query {q.name!r} returned vectors of lengths {len(a)} and {len(b)}")
    diffs = [abs(u - v) for u, v in zip(a, b)]
    if q.norm == "L1":
        return sum(diffs, Fraction(0))
    if q.norm == "Linf":
        return max(diffs, default=Fraction(0))
    return sum((d * d for d in diffs), Fraction(0))


def _final(q: GraphQuery, best: Fraction) -> Any:
    return sqrt_value(best) if q.output == "vector" and q.norm == "L2" else best


# -- spaces and relations ----------------------------------------------------------------

def is_edit_space(space: object) -> bool:
    """Whether ``space`` is enumerated by this engine (sequences or privacy units)."""
    return isinstance(space, (Sequences, Units))


def as_relation(relation: object, space: object) -> Any:
    """The relation for ``space``: an instance, a CLI name or ``None`` (the default:
    insert-delete for sequences, add/remove of one id for units)."""
    if not is_edit_space(space):
        raise InvalidArgument(
            f"space={space!r} is not a space of this engine; pass Sequences(...) or Units(...) "
            f"(multisets use exactdp.sensitivity)"
        )
    names = {"insert-delete": InsertDeleteDistance, "InsertDeleteDistance": InsertDeleteDistance,
             "hamming": HammingDistance, "HammingDistance": HammingDistance,
             "add-remove-id": AddRemoveID, "AddRemoveID": AddRemoveID}
    if relation is None:
        relation = InsertDeleteDistance() if isinstance(space, Sequences) else AddRemoveID()
    elif isinstance(relation, str):
        if relation.strip() not in names:
            raise InvalidArgument(
                f"neighbors={relation!r} is not a relation of ordered or id datasets; use "
                f"'insert-delete', 'hamming' (sequences) or 'add-remove-id' (units)"
            )
        relation = names[relation.strip()]()
    ok = (isinstance(space, Sequences) and isinstance(relation, SequenceMetric)) or (
        isinstance(space, Units) and isinstance(relation, AddRemoveID))
    if not ok:
        raise SpaceMismatch(
            f"relation {relation!r} does not apply to {space.describe()}; sequences take "
            f"InsertDeleteDistance() or HammingDistance(), units take AddRemoveID()"
        )
    return relation


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


# -- the plan and its answer -------------------------------------------------------------

@dataclass(frozen=True)
class EditPlan:
    """What :func:`make_plan` checked once; the rest (the relation, ``d_in``, the budgets,
    the value table) is checked and built per ``d_in`` by :func:`compute`, in that order."""

    query: object  # as given: read by the one parser when computing
    space: Any
    relation: object  # as given (an instance, a name or None)
    options: Options
    engine = "edits"


@dataclass(frozen=True)
class EditAnswer:
    """What the engine found for one ``d_in``; the front doors make a verdict of it.

    ``witness``: ``(i, j, level)``, the indices of ``x`` and ``x'`` in :attr:`keys` and
    their distance, or ``None`` when no pair was compared."""

    query: GraphQuery
    relation: Any
    d_in: int
    exact_k: bool
    value: Any
    witness: tuple | None
    keys: list
    values: list  # exact results, or None where excluded
    pairs: int
    excluded: int


def make_plan(query: object, space: Any, relation: object, d_list: object,
              options: Options) -> EditPlan:
    """An :class:`EditPlan`: the scope refused unless standard (the only one here)."""
    if options.scope not in ("standard",):
        raise InvalidArgument(
            f"scope={options.scope!r}: sequences and id datasets are checked in the standard scope "
            f"(both datasets in the space); widen the space's sizes instead"
        )
    return EditPlan(query, space, relation, options)


def _table(query, space, relation, d_in, exact_k, undefined, max_datasets, max_pairs):
    """Validate, check both budgets from counts alone, then enumerate the space once with
    the query's exact values: ``(relation, d_in, exact_k, query, keys, index, values,
    excluded)``."""
    relation = as_relation(relation, space)
    d_in = check_d_in(d_in)
    exact_k = check_flag(exact_k, "exact_k")
    if exact_k and d_in == 0:
        raise InvalidArgument("d_in=0 with exact_k=True has no pairs; use d_in >= 1")
    max_datasets = check_budget(max_datasets, "max_datasets")
    max_pairs = check_budget(max_pairs, "max_pairs")
    q, run = evaluator(query, space)
    if undefined not in ("error", "exclude"):
        undefined = to_exact(undefined, "undefined")
        if q.output == "vector":
            raise InvalidArgument(
                f"undefined={undefined!r}: a stated value is for scalar queries; use 'exclude'"
            )
    cap = max_datasets if max_datasets is not None else CAP
    n = space.count_capped(cap)
    refuse_above(n, max_datasets, what=f"datasets in {space.describe()}", option="max_datasets",
                 hint=space.budget_hint())
    per = edit_bound(space, relation, d_in)
    candidates = n * per
    refuse_above(candidates, max_pairs,
                 what=f"neighbour candidates (datasets x edit paths of length <= {d_in}, "
                      f"{show_count(per)} per dataset) for {relation.name}",
                 option="max_pairs", hint=f"use a smaller d_in or {space.budget_hint()}")
    keys = list(space)
    index = {k: i for i, k in enumerate(keys)}
    values: list = []
    excluded = 0
    for k in keys:
        raw = run(k)
        if raw is UNDEFINED:
            if undefined == "error":
                raise UndefinedQuery(
                    f"{q.name} is undefined on {space.show(k)}; pass undefined='exclude' to "
                    f"leave such datasets out, or undefined=<exact number> to state a value"
                )
            if undefined == "exclude":
                values.append(None)
                excluded += 1
                continue
            raw = undefined
        values.append(_exact_result(q, raw, space, k))
    return relation, d_in, exact_k, q, keys, index, values, excluded


def compute(plan: EditPlan, d_in: int, options: Options | None = None) -> EditAnswer:
    """Run ``plan`` at ``d_in`` in this process: the exact maximum gap, its first pair in
    enumeration order, and the counts. ``options`` default to the plan's (``workers`` and
    ``cluster`` are not read: one process)."""
    o = plan.options if options is None else options
    space = plan.space
    relation, d_in, exact_k, q, keys, index, values, excluded = _table(
        plan.query, space, plan.relation, d_in, o.exact_k, o.undefined, o.max_datasets, o.max_pairs)
    bar = Progress(q.name, len(keys), o.progress)
    try:
        best, at, pairs = best_pair(space, relation, d_in, exact_k, keys, index, values,
                                    lambda a, b: _gap(q, a, b), bar)
    finally:
        bar.close()
    value = _final(q, Fraction(0) if at is None else best)
    return EditAnswer(q, relation, d_in, exact_k, value, at, keys, values, pairs, excluded)


def curve_on_cluster(query, space, relation, d_list, options: Options):
    """Refused: the Dask engine enumerates multisets (the multiset engine's
    :func:`~exactdp.engine.plan.curve_on_cluster`); this one runs in one process."""
    raise InvalidArgument(
        "the Dask engine enumerates multisets; sequences and privacy units use the "
        "edit-graph engine, which runs in one process (drop --dask/--scheduler, or "
        "cluster= in Python)"
    )


def farthest_pair(space: Any, source: Any, target: Any, d_in: int, same_size: bool,
                  max_pairs: int | None, max_datasets: int | None) -> tuple:
    """``(rank, (x, x') or None, pairs)``: over the pairs of ``space`` within ``d_in`` under
    the relation ``source`` (of equal length only with ``same_size``), the largest
    ``target`` distance as ``rank``: ``(0, d)``, or ``(1, 0)`` where some pair is not
    comparable under ``target`` (infinite); ``None`` when no pair was examined. The pair is
    the first attaining it (smallest ``x``, then ``x'``), as dataset keys. The budgets are
    checked from counts alone first."""
    n = space.count_capped(max_datasets if max_datasets is not None else CAP)
    refuse_above(n, max_datasets, what=f"datasets in {space.describe()}", option="max_datasets",
                 hint=space.budget_hint())
    refuse_above(n * edit_bound(space, source, d_in), max_pairs,
                 what=f"neighbour candidates for {source.name} <= {d_in}", option="max_pairs",
                 hint=f"use a smaller d_in or {space.budget_hint()}")
    keys = list(space)
    index = {k: i for i, k in enumerate(keys)}
    best_rank: tuple[int, int] | None = None  # (1, 0) is infinite: not comparable under target
    pair = None
    pairs = 0
    for i, j, _ in neighbour_pairs(space, source, d_in, False, keys, index):
        if same_size and space.size_of(keys[i]) != space.size_of(keys[j]):
            continue
        pairs += 1
        d = target.distance(keys[i], keys[j])
        rank = (1, 0) if d is None else (0, d)
        if best_rank is None or rank > best_rank or (
                rank == best_rank and pair[0] == i and j < pair[1]):
            best_rank, pair = rank, (i, j)
    keys_pair = None if pair is None else (keys[pair[0]], keys[pair[1]])
    return best_rank, keys_pair, pairs
