"""Exact worst cases of the relational rules, by enumeration, with the pair that attains them.

Three searches:

- :func:`worst_case`: every table ``x`` of a domain and every neighbour ``y`` under a
  protected change; the largest output distance. Plain brute force.
- :func:`keyed_worst_case`: for transformations that act key by key (truncations and the
  private join) on a domain that caps the rows *per key*. The output distance is then a sum
  over keys, the input distance too, so the exact maximum is the best way to share the input
  budget among the keys of the per-key maxima (computed by enumerating one key's blocks).
  The argument is in ``proofs/s001-keyed-decomposition.md``; the tests compare it with the
  brute force on small domains.
- :func:`id_worst_case`: for per-id truncations followed by a group-by count under
  ``AddRowsWithID``: other ids' rows cancel, so the maximum is over one id's rows.
- :func:`id_change_kept`: not a distance but a relation: whether a transformation of one or
  more tables of one id space maps every ``AddRowsWithID`` pair to outputs that are equal or
  again ``AddRowsWithID`` neighbours (seed 001: flat maps and joins keep the change).

Each returns a :class:`WorstCase` whose witness is a :class:`TablePair`.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from fractions import Fraction
from math import comb
from typing import Any, Callable, Sequence

import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact
from exactdp.relational.changes import AddMaxRows, AddRowsWithID, ProtectedChange
from exactdp.relational.tables import Row, Table, TableDomain, format_table, make_table, \
    symmetric_difference
from exactdp.relational.transforms import groupby_count
from exactdp.relational.transforms import private_join

__all__ = ["TablePair", "WorstCase", "neighbour_pairs", "worst_case", "keyed_worst_case",
           "private_join_worst_case", "truncation_worst_case", "id_worst_case", "ChangeKept",
           "id_change_kept", "DEFAULT_MAX_PAIRS"]

DEFAULT_MAX_PAIRS = 2_000_000


def _fmt(obj) -> str:
    """A vector of exact numbers as ``(2, -1/2)``; a table (of rows or tuples) as ``{...}``."""
    if isinstance(obj, tuple) and obj and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool)
                                              for v in obj):
        return "(" + ", ".join(format_exact(v) for v in obj) + ("," if len(obj) == 1 else "") + ")"
    return format_table(obj)


@dataclasses.dataclass(frozen=True)
class TablePair:
    """A neighbouring pair of inputs (one or two tables each) and the outputs on each side."""

    x: tuple[Table, ...]
    x_prime: tuple[Table, ...]
    fx: Any
    fx_prime: Any
    distance: Any
    names: tuple[str, ...] = ("table",)

    def to_dict(self) -> dict:
        return {
            "x": {n: format_table(t) for n, t in zip(self.names, self.x)},
            "x_prime": {n: format_table(t) for n, t in zip(self.names, self.x_prime)},
            "fx": _fmt(self.fx),
            "fx_prime": _fmt(self.fx_prime),
            "distance": str(self.distance),
        }

    def __str__(self) -> str:
        def side(ts):
            if len(ts) == 1:
                return format_table(ts[0])
            return ", ".join(f"{n}={format_table(t)}" for n, t in zip(self.names, ts))
        return (f"x: {side(self.x)}; x': {side(self.x_prime)}: f(x)={_fmt(self.fx)}, "
                f"f(x')={_fmt(self.fx_prime)}, distance {self.distance}")


@dataclasses.dataclass(frozen=True)
class WorstCase:
    """The exact maximum output distance over every neighbouring pair that was enumerated."""

    value: Any
    witness: TablePair | None
    scope: str
    pairs: int


def _norm_value(norm: str, fx, fy):
    """(comparable key, exact value) of the output distance."""
    if norm == "rows":
        d = symmetric_difference(fx, fy)
        return d, d
    if norm == "l1":
        d = sum(abs(a - b) for a, b in zip(fx, fy, strict=True))
        return d, d
    if norm == "l2":
        sq = Fraction(sum((a - b) ** 2 for a, b in zip(fx, fy, strict=True)))
        return sq, sympy.sqrt(sympy.Rational(sq.numerator, sq.denominator))
    raise InvalidArgument(f"norm={norm!r} is not an output distance; give 'rows', 'l1' or 'l2'")


def _neighbour_bound(domain: TableDomain, change: ProtectedChange) -> int:
    """An upper bound on the neighbours of one table (for the budget check)."""
    u = len(domain.keys) * len(domain.values) * len(domain.ids)
    if isinstance(change, AddMaxRows):
        n = change.max_rows
        return sum(comb(a + u - 1, a) * comb(b + u - 1, b)
                   for a in range(n + 1) for b in range(n + 1 - a))
    per_key = domain.rows_per_key or 0  # exactly one of the two caps is set (TableDomain checks)
    cap = domain.rows_per_id if domain.rows_per_id is not None else per_key * len(domain.keys)
    block = len(domain.keys) * len(domain.values)
    return len(domain.ids) * (1 + sum(comb(s + block - 1, block - 1) for s in range(cap + 1)))


def neighbour_pairs(domain: TableDomain, change: ProtectedChange,
                    max_pairs: int = DEFAULT_MAX_PAIRS) -> list[tuple[Table, Table]]:
    """Every ordered pair ``(x, y)``: ``x`` in ``domain``, ``y`` a neighbour of ``x`` in ``domain``.

    Raises :class:`~exactdp.errors.TooLarge` before enumerating when ``tables x neighbours``
    (an upper bound on the pairs) exceeds ``max_pairs``.

    >>> from exactdp.relational.changes import AddOneRow
    >>> len(neighbour_pairs(TableDomain(keys=("a",), values=(1, 2), rows_per_key=2), AddOneRow()))
    12
    """
    n_tables = domain.count()
    estimate = n_tables * _neighbour_bound(domain, change)
    refuse_above(estimate, max_pairs, what=f"candidate pairs of {domain.describe()} under "
                 f"{change.describe()}", option="max_pairs", hint="shrink the domain")
    return [(x, y) for x in domain.tables(max_tables=max_pairs) for y in change.neighbours(x, domain)]


def worst_case(transform: Callable[[Table], Any], domain: TableDomain, change: ProtectedChange,
               norm: str = "rows", max_pairs: int = DEFAULT_MAX_PAIRS,
               pairs: list[tuple[Table, Table]] | None = None) -> WorstCase:
    """Brute force: the largest output distance over every ``x`` in ``domain`` and every
    neighbour ``y`` of ``x`` in ``domain`` under ``change``.

    ``norm`` is ``"rows"`` (symmetric difference of output tables), ``"l1"`` or ``"l2"``
    (of output vectors; the L2 value is an exact SymPy square root). ``pairs`` may pass
    :func:`neighbour_pairs` computed once for many transforms. Raises
    :class:`~exactdp.errors.TooLarge` as :func:`neighbour_pairs` does.

    >>> from exactdp.relational.changes import AddOneRow
    >>> from exactdp.relational.transforms import DropExcess
    >>> d = TableDomain(keys=("a",), values=(1, 2), rows_per_key=2)
    >>> w = worst_case(DropExcess(1).apply, d, AddOneRow())
    >>> w.value, str(w.witness)
    (2, "x: {(a,2)}; x': {(a,1), (a,2)}: f(x)={(a,2)}, f(x')={(a,1)}, distance 2")
    """
    if pairs is None:
        pairs = neighbour_pairs(domain, change, max_pairs)
    cache: dict = {}

    def out(t):
        if t not in cache:
            cache[t] = transform(t)
        return cache[t]

    best_key, best = -1, None
    for x, y in pairs:
        fx, fy = out(x), out(y)
        key, value = _norm_value(norm, fx, fy)
        if key > best_key:
            best_key, best = key, TablePair((x,), (y,), fx, fy, value)
    if best is None:
        raise InvalidArgument(f"no neighbouring pair in {domain.describe()} under "
                              f"{change.describe()}; enlarge the domain")
    scope = (f"all {domain.count():,} {domain.describe()} and their {change.describe()} "
             f"neighbours in the domain; {len(pairs):,} ordered pairs examined")
    return WorstCase(best.distance, best, scope, len(pairs))


# ---------------------------------------------------------------------------------------
# key-by-key decomposition
# ---------------------------------------------------------------------------------------

def _block_pairs(blocks: Sequence[Table], budget: int) -> dict[int, list[tuple[Table, Table]]]:
    """Pairs (A, A') of one key's blocks grouped by |A Δ A'| <= budget (A == A' under 0)."""
    out: dict[int, list] = {d: [] for d in range(budget + 1)}
    for a in blocks:
        for b in blocks:
            d = symmetric_difference(a, b)
            if d <= budget:
                out[d].append((a, b))
    return out


def _size(combo) -> int:
    return sum(len(a) + len(b) for a, b in combo)


def _relabel(block: Table, key) -> list[Row]:
    return [Row(key, r.value, r.pid) for r in block]


def keyed_worst_case(per_key: Callable[..., int], domains: Sequence[TableDomain],
                     budgets: Sequence[int], transform: Callable[..., Any],
                     names: Sequence[str], max_pairs: int = DEFAULT_MAX_PAIRS) -> WorstCase:
    """Exact worst case of a key-by-key transformation of one or two tables.

    ``domains[i]`` caps rows per key (``rows_per_key``, no ``max_rows``) and all share their
    keys; table ``i`` may change by ``|x_i Δ y_i| <= budgets[i]`` rows (``AddMaxRows``), all
    tables at once. ``per_key(*before_blocks, *after_blocks)`` is the output distance
    restricted to one key (the blocks hold that key's rows); ``transform(*tables)`` gives
    the whole outputs for the witness. The maximum is over every way to share each budget
    among the keys of the exact per-key maxima (see the module doc).
    """
    keys = domains[0].keys
    for d in domains:
        if d.rows_per_key is None or d.max_rows is not None:
            raise InvalidArgument(f"domain {d.describe()!r} must cap rows per key and nothing "
                                  f"else for the key-by-key search; use worst_case instead")
        if d.keys != keys:
            raise InvalidArgument(f"domains have keys {d.keys!r} and {keys!r}; give the same keys")
    for name, b in zip(names, budgets):
        if isinstance(b, bool) or not isinstance(b, int) or b < 1:
            raise InvalidArgument(f"budget for {name}={b!r} is not a positive int; give max_rows >= 1")
    block_lists = [d.block_tables() for d in domains]
    grouped = [_block_pairs(bl, b) for bl, b in zip(block_lists, budgets)]
    sizes = [sum(len(v) for v in g.values()) for g in grouped]
    estimate = 1
    for s in sizes:
        estimate *= s
    refuse_above(estimate, max_pairs, what="block pairs of one key", option="max_pairs",
                 hint="lower rows_per_key, the values or the budgets")
    # exact per-key maxima h[ds] for every vector ds of exact per-table distances
    h: dict[tuple, tuple[int, tuple]] = {}
    for ds in itertools.product(*(range(b + 1) for b in budgets)):
        best = (0, tuple((bl[0], bl[0]) for bl in block_lists)) if not any(ds) else None
        for combo in itertools.product(*(g[d] for g, d in zip(grouped, ds))):
            value = per_key(*(p[0] for p in combo), *(p[1] for p in combo))
            if best is None or value > best[0] or (value == best[0] and _size(combo) < _size(best[1])):
                best = (value, combo)  # ties: the smallest blocks, for a readable witness
        if best is not None:
            h[ds] = best
    # share the budgets among the keys: dynamic programme over keys
    states: dict[tuple, tuple[int, list]] = {tuple(0 for _ in budgets): (0, [])}
    for _ in keys:
        new: dict[tuple, tuple[int, list]] = {}
        for used, (val, choice) in states.items():
            for ds, (hv, combo) in h.items():
                tot = tuple(u + d for u, d in zip(used, ds))
                if any(t > b for t, b in zip(tot, budgets)):
                    continue
                cand = (val + hv, choice + [combo])
                if tot not in new or cand[0] > new[tot][0]:
                    new[tot] = cand
        states = new
    value, choice = max(states.values(), key=lambda s: s[0])
    before = [make_table(itertools.chain.from_iterable(_relabel(c[i][0], k)
                                                       for k, c in zip(keys, choice)))
              for i in range(len(domains))]
    after = [make_table(itertools.chain.from_iterable(_relabel(c[i][1], k)
                                                      for k, c in zip(keys, choice)))
             for i in range(len(domains))]
    fx, fy = transform(*before), transform(*after)
    whole = symmetric_difference(fx, fy)
    moved = [symmetric_difference(b, a) for b, a in zip(before, after)]
    if whole != value or any(d > b for d, b in zip(moved, budgets)):  # invariants
        raise AssertionError(f"key-by-key value {value} but the assembled pair gives {whole} "
                             f"with input distances {moved} (budgets {list(budgets)})")
    desc = "; ".join(f"{n}: {d.describe()}, AddMaxRows({b})" for n, d, b in zip(names, domains, budgets))
    scope = (f"{desc}; every table of each domain and every neighbour (key by key: "
             f"{estimate:,} per-key block pairs, budgets shared over {len(keys)} keys)")
    witness = TablePair(tuple(before), tuple(after), fx, fy, value, tuple(names))
    return WorstCase(value, witness if value else None, scope, estimate)


def _join_counts(a: Table, b: Table) -> Counter:
    ca, cb = Counter(r.value for r in a), Counter(r.value for r in b)
    return Counter({(u, v): m * n for u, m in ca.items() for v, n in cb.items()})


def private_join_worst_case(left_truncation, right_truncation, m_left: int, m_right: int,
                            left_domain: TableDomain, right_domain: TableDomain,
                            max_pairs: int = DEFAULT_MAX_PAIRS) -> WorstCase:
    """Exact worst case of the truncated private join under ``AddMaxRows(m_left)`` on the
    left table and ``AddMaxRows(m_right)`` on the right one at the same time.

    >>> from exactdp.relational.transforms import DropExcess
    >>> keys = ("k1", "k2")
    >>> d = TableDomain(keys=keys, values=(1, 2), rows_per_key=3)
    >>> private_join_worst_case(DropExcess(2), DropExcess(2), 1, 1, d, d).value   # seed: 8
    8
    """
    lt_cache: dict = {}
    rt_cache: dict = {}

    def lt(a):
        if a not in lt_cache:
            lt_cache[a] = left_truncation.apply(a)
        return lt_cache[a]

    def rt(b):
        if b not in rt_cache:
            rt_cache[b] = right_truncation.apply(b)
        return rt_cache[b]

    def per_key(a, b, a2, b2):
        j, j2 = _join_counts(lt(a), rt(b)), _join_counts(lt(a2), rt(b2))
        return sum(((j - j2) + (j2 - j)).values())

    return keyed_worst_case(per_key, (left_domain, right_domain), (m_left, m_right),
                            lambda x, y: private_join(x, y, left_truncation, right_truncation),
                            ("left", "right"), max_pairs)


def truncation_worst_case(truncation, m: int, domain: TableDomain,
                          max_pairs: int = DEFAULT_MAX_PAIRS) -> WorstCase:
    """Exact worst case of one truncation strategy alone under ``AddMaxRows(m)``.

    >>> from exactdp.relational.transforms import DropExcess
    >>> d = TableDomain(keys=("k1", "k2"), values=(1, 2), rows_per_key=3)
    >>> truncation_worst_case(DropExcess(2), 2, d).value
    4
    """
    cache: dict = {}

    def tr(a):
        if a not in cache:
            cache[a] = truncation.apply(a)
        return cache[a]

    def per_key(a, a2):
        return symmetric_difference(tr(a), tr(a2))

    return keyed_worst_case(per_key, (domain,), (m,), truncation.apply, ("table",), max_pairs)


def id_worst_case(truncate: Callable[[Table], Table], domain: TableDomain, groups: Sequence,
                  norm: str, max_pairs: int = DEFAULT_MAX_PAIRS,
                  aggregate: Callable[[Table], tuple] | None = None) -> WorstCase:
    """Exact worst case of ``aggregate(truncate(x))`` under ``AddRowsWithID``.

    ``aggregate`` is a group-by sum of a per-row quantity over ``groups`` (default: the
    group-by count; e.g. a clamped ``groupby_sum``), so it is additive over rows and 0 on the
    empty table. ``truncate`` must act id by id (Tumult's MaxRowsPerID, MaxGroupsPerID,
    MaxRowsPerGroupPerID do). Then the outputs on ``x`` and on ``x`` plus all rows ``B`` of a
    new id differ by exactly ``aggregate(truncate(B))``: the maximum is over the row
    multisets ``B`` of one id, enumerated from ``domain`` (which caps rows per id).

    >>> from exactdp.relational.transforms import max_rows_per_id
    >>> d = TableDomain(keys=("a", "b"), ids=(1,), rows_per_id=3)
    >>> id_worst_case(lambda t: max_rows_per_id(t, 2), d, ("a", "b"), "l1").value
    2
    """
    if domain.rows_per_id is None:
        raise InvalidArgument(f"domain {domain.describe()!r} must cap rows per id; give rows_per_id")
    blocks = domain.block_tables()
    refuse_above(len(blocks), max_pairs, what="row multisets of one id", option="max_pairs",
                 hint="lower rows_per_id or the keys")
    if aggregate is None:
        def aggregate(t):
            return groupby_count(t, groups)
    zero = aggregate(())
    best_key, best = -1, None
    for b in blocks:
        fb = aggregate(truncate(b))
        key, value = _norm_value(norm, zero, fb)
        if key > best_key:
            best_key, best = key, TablePair(((),), (b,), zero, fb, value)
    assert best is not None  # blocks holds the empty multiset at least
    scope = (f"every multiset of rows of one id in {domain.describe()} ({len(blocks):,}), "
             f"added to any table; AddRowsWithID; {norm.upper()} distance of the group-by outputs")
    return WorstCase(best.distance, best if best_key > 0 else None, scope, len(blocks))


@dataclasses.dataclass(frozen=True)
class ChangeKept:
    """Whether a transformation kept ``AddRowsWithID`` on every pair examined; if not, the
    first pair (in enumeration order) whose outputs are neither equal nor neighbours."""

    kept: bool
    pairs: int
    witness: TablePair | None
    scope: str


def id_change_kept(transform: Callable[..., Table], domains: Sequence[TableDomain],
                   names: Sequence[str], max_pairs: int = DEFAULT_MAX_PAIRS) -> ChangeKept:
    """Whether ``transform(*tables)`` keeps ``AddRowsWithID``: for every database (one table
    from each of ``domains``, all over the same privacy ids) and every id ``i`` in it, the
    outputs on the database and on the database without every row of ``i`` (in every
    table) are equal or are ``AddRowsWithID`` neighbours. Every neighbour pair is examined
    (a pair that adds an id's rows is the reverse of one that removes them, and the relation
    is symmetric), so ``kept`` is a statement about the whole domain.

    Raises :class:`~exactdp.errors.TooLarge` before enumerating when the databases times the
    ids exceed ``max_pairs``.

    >>> from exactdp.relational.transforms import private_join_on_id
    >>> d = TableDomain(keys=("a",), values=(1, 2), ids=(1, 2), rows_per_id=1)
    >>> id_change_kept(private_join_on_id, (d, d), ("left", "right")).kept
    True
    >>> r = id_change_kept(lambda x, y: private_join_on_id(x, y, on_id=False), (d, d), ("left", "right"))
    >>> r.kept, str(r.witness)
    (False, "x: left={(a,1,id=2)}, right={(a,1,id=1), (a,1,id=2)}; x': left={}, right={(a,1,id=1)}: f(x)={(a,(1,1),id=(2,1)), (a,(1,1),id=(2,2))}, f(x')={}, distance 2")
    """
    ids = domains[0].ids
    for d in domains:
        if d.rows_per_id is None or d.ids != ids:
            raise InvalidArgument(f"domain {d.describe()!r}: AddRowsWithID over several tables "
                                  f"needs every domain to cap rows per id over the same ids "
                                  f"{ids!r}; give rows_per_id and ids=...")
    databases = 1
    for d in domains:
        databases *= d.count()
    refuse_above(databases * len(ids), max_pairs,
                 what="database-and-id pairs of " + "; ".join(d.describe() for d in domains),
                 option="max_pairs", hint="use fewer keys, values, ids or rows per id")
    relation = AddRowsWithID()
    pairs = 0
    for x in itertools.product(*(d.tables(max_tables=max_pairs) for d in domains)):
        fx = transform(*x)
        for i in sorted({r.pid for t in x for r in t}, key=repr):
            y = tuple(tuple(r for r in t if r.pid != i) for t in x)
            fy = transform(*y)
            pairs += 1
            if fx != fy and not relation.related(fx, fy):
                witness = TablePair(x, y, fx, fy, symmetric_difference(fx, fy), tuple(names))
                return ChangeKept(False, pairs, witness, _kept_scope(domains, names, pairs))
    return ChangeKept(True, pairs, None, _kept_scope(domains, names, pairs))


def _kept_scope(domains: Sequence[TableDomain], names: Sequence[str], pairs: int) -> str:
    tables = "; ".join(f"{n}: {d.describe()}" for n, d in zip(names, domains))
    return (f"{tables}; every database and every id in it removed from every table "
            f"({pairs:,} AddRowsWithID pairs examined)")
