"""Seed 001's relational sensitivity rules (Tumult Analytics, "Understanding sensitivity")
as catalogue entries, each re-checked by exact enumeration of tiny tables.

Symbols are defined here (relational parameters are not among the canonical ones), all
positive integers. The truth functions build the domain named in each binding (keys,
non-key values, rows per key), enumerate it, and return the exact worst case with the
neighbouring pair of tables that attains it.

>>> [e.id for e in entries()][:3]
['s001/flat-map/add-max-rows', 's001/public-join/add-max-rows', 's001/drop-excess/add-max-rows']
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy

from exactdp.errors import InvalidArgument
from exactdp.relational.changes import AddMaxRows
from exactdp.relational.tables import Row, TableDomain, format_table
from exactdp.relational.transforms import (
    DropExcess, DropNonUnique, flat_map, groupby_sum, max_groups_per_id, max_rows_per_group_per_id,
    max_rows_per_id, public_join,
)
from exactdp.relational.worst import (
    TablePair, id_worst_case, neighbour_pairs, private_join_worst_case, truncation_worst_case,
    worst_case,
)
from exactdp.symbolic.entry import Entry, Truth
from exactdp.symbolic.symbols import L, U
from exactdp.symbolic.symbols import MEANINGS as _CANONICAL

__all__ = ["entries", "SYMBOLS", "MEANINGS", "flat_map_truth", "public_join_truth",
           "truncation_truth", "private_join_truth", "id_count_truth", "id_sum_truth"]


def _pos(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, positive=True)


n, F, m, T, S, V, K = (_pos(s) for s in ("n", "F", "m", "T", "S", "V", "K"))
T_l, T_r, S_l, S_r, M_l, M_r, R_l, V_l = (_pos(s) for s in
                                           ("T_l", "T_r", "S_l", "S_r", "M_l", "M_r", "R_l", "V_l"))
r, g = _pos("r"), _pos("g")

MEANINGS = {
    "n": "rows hidden by the protected change AddMaxRows(n) (n = 1 is AddOneRow)",
    "F": "max_rows of the flat map: the most output rows one input row may produce",
    "m": "the most rows of the public table that share one join key",
    "T": "the truncation threshold (DropExcess max_rows; 1 for DropNonUnique)",
    "S": "the truncation strategy's published stability (2: DropExcess, 1: DropNonUnique)",
    "V": "the number of distinct non-key contents a row may have (1: the table holds join keys only)",
    "K": "the number of join keys in the enumerated domain",
    "T_l": "the left table's truncation threshold (DropExcess max_rows; 1 for DropNonUnique)",
    "T_r": "the right table's truncation threshold (DropExcess max_rows; 1 for DropNonUnique)",
    "S_l": "the stability of the left truncation strategy (2 for DropExcess, 1 for DropNonUnique)",
    "S_r": "the stability of the right truncation strategy (2 for DropExcess, 1 for DropNonUnique)",
    "M_l": "max_rows of the left table's protected change AddMaxRows(M_l)",
    "M_r": "max_rows of the right table's protected change AddMaxRows(M_r)",
    "R_l": "the most rows with one join key that the left table can hold (1: the key is unique)",
    "V_l": "the number of distinct non-key contents of a left row",
    "r": "MaxRowsPerID.max, or MaxRowsPerGroupPerID.max with MaxGroupsPerID",
    "g": "MaxGroupsPerID.max: the most groups one privacy id may contribute to",
    "L": _CANONICAL["L"],
    "U": _CANONICAL["U"],
}

SYMBOLS = {s.name: s for s in (n, F, m, T, S, V, K, T_l, T_r, S_l, S_r, M_l, M_r, R_l, V_l, r, g,
                                L, U)}

_SECTION = "seed 001 (Tumult Analytics, 'Understanding sensitivity'), section "


def _meanings(*names: str) -> dict[str, str]:
    return {name: MEANINGS[name] for name in names}


def _int(params: Mapping[str, Any], name: str) -> int:
    v = params.get(name)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidArgument(f"parameter {name}={v!r} is not a positive int; bind {name} "
                              f"to an int >= 1 in the grid")
    return v


def _keys(count: int) -> tuple:
    return tuple(f"k{i}" for i in range(1, count + 1))


def _values(count: int) -> tuple:
    return (None,) if count == 1 else tuple(range(1, count + 1))


def _strategy(threshold: int, stability: int):
    if stability == 2:
        return DropExcess(threshold)
    if stability == 1 and threshold == 1:
        return DropNonUnique()
    raise InvalidArgument(f"no truncation strategy has threshold={threshold!r} and "
                          f"stability={stability!r}; use S=2 (DropExcess(T)) or S=1 with T=1 "
                          f"(DropNonUnique)")


# ---------------------------------------------------------------------------------------
# truths
# ---------------------------------------------------------------------------------------

def _flat_maps(rows: list[Row], max_rows: int, outputs: tuple) -> list[dict]:
    """Every map from ``rows`` to multisets of ``outputs`` of size <= max_rows."""
    import itertools
    images = [tuple(c) for s in range(max_rows + 1)
              for c in itertools.combinations_with_replacement(outputs, s)]
    return [dict(zip(rows, choice)) for choice in itertools.product(images, repeat=len(rows))]


def flat_map_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case over every flat map with ``max_rows=F`` from the rows {(a,1), (a,2)} to
    output rows {o1, o2}, and every pair of tables (<= n rows) under AddMaxRows(n)."""
    nn, ff = _int(params, "n"), _int(params, "F")
    domain = TableDomain(keys=("a",), values=(1, 2), rows_per_key=nn)
    rows = [Row("a", 1), Row("a", 2)]
    best, pairs = None, 0
    maps = _flat_maps(rows, ff, ("o1", "o2"))
    neighbours = neighbour_pairs(domain, AddMaxRows(nn))
    for f in maps:
        w = worst_case(lambda t, f=f: flat_map(t, f.__getitem__, ff), domain, AddMaxRows(nn),
                       pairs=neighbours)
        pairs += w.pairs
        if best is None or w.value > best[0].value:
            best = (w, f)
    w, f = best
    image = "; ".join(f"{r} -> {format_table(f[r])}" for r in rows)
    scope = (f"every one of {len(maps):,} flat maps with max_rows={ff} from rows {{(a,1),(a,2)}} "
             f"to multisets of {{o1,o2}}, and all {domain.count():,} {domain.describe()} with "
             f"their AddMaxRows({nn}) neighbours; {pairs:,} pairs; worst map: {image}")
    return Truth(w.value, w.witness, scope)


def public_join_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case over every public table with <= m rows per key (keys {k1,k2}, values
    {x,y}) and every pair of private tables (<= n rows per key) under AddMaxRows(n)."""
    nn, mm = _int(params, "n"), _int(params, "m")
    keys = ("k1", "k2")
    private = TableDomain(keys=keys, values=(1,), rows_per_key=nn)
    public = TableDomain(keys=keys, values=("x", "y"), rows_per_key=mm)
    best, pairs = None, 0
    neighbours = neighbour_pairs(private, AddMaxRows(nn))
    for p in public.tables():
        w = worst_case(lambda t, p=p: public_join(t, p), private, AddMaxRows(nn), pairs=neighbours)
        pairs += w.pairs
        if best is None or w.value > best[0].value:
            best = (w, p)
    w, p = best
    wit = TablePair((w.witness.x[0], p), (w.witness.x_prime[0], p), w.witness.fx,
                    w.witness.fx_prime, w.value, ("private", "public"))
    scope = (f"all {public.count():,} public {public.describe()}, and all {private.count():,} "
             f"private {private.describe()} with their AddMaxRows({nn}) neighbours; {pairs:,} pairs")
    return Truth(w.value, wit, scope)


def truncation_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case of DropExcess(T) (``S=2``) or DropNonUnique (``S=1``) alone under
    AddMaxRows(n), on K keys x V values with at most ``rows_per_key`` rows per key."""
    nn, tt, ss = _int(params, "n"), _int(params, "T"), _int(params, "S")
    domain = TableDomain(keys=_keys(_int(params, "K")), values=_values(_int(params, "V")),
                         rows_per_key=_int(params, "rows_per_key"))
    w = truncation_worst_case(_strategy(tt, ss), nn, domain)
    return Truth(w.value, w.witness, w.scope)


def private_join_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case of the truncated private join under AddMaxRows(M_l) on the left table and
    AddMaxRows(M_r) on the right table at once; both over K keys, with V_l / V_r values
    and R_l / R_r rows per key."""
    left = _strategy(_int(params, "T_l"), _int(params, "S_l"))
    right = _strategy(_int(params, "T_r"), _int(params, "S_r"))
    keys = _keys(_int(params, "K"))
    ld = TableDomain(keys=keys, values=_values(_int(params, "V_l")), rows_per_key=_int(params, "R_l"))
    rd = TableDomain(keys=keys, values=_values(_int(params, "V_r")), rows_per_key=_int(params, "R_r"))
    w = private_join_worst_case(left, right, _int(params, "M_l"), _int(params, "M_r"), ld, rd)
    return Truth(w.value, w.witness, f"left {left}, right {right}; {w.scope}")


def id_count_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case of a group-by count (groups = the domain's keys) after Tumult's per-id
    constraints, under AddRowsWithID. ``constraint`` is ``"rows"`` (MaxRowsPerID(r)) or
    ``"groups"`` (MaxGroupsPerID(g) then MaxRowsPerGroupPerID(r)); ``norm`` is l1 or l2."""
    rr = _int(params, "r")
    keys = _keys(_int(params, "K"))
    domain = TableDomain(keys=keys, ids=(1,), rows_per_id=_int(params, "rows_per_id"))
    if params.get("constraint") == "rows":
        def truncate(t):
            return max_rows_per_id(t, rr)
    elif params.get("constraint") == "groups":
        gg = _int(params, "g")

        def truncate(t):
            return max_rows_per_group_per_id(max_groups_per_id(t, gg), rr)
    else:
        raise InvalidArgument(f"constraint={params.get('constraint')!r} is not 'rows' or 'groups'")
    w = id_worst_case(truncate, domain, keys, params.get("norm", "l1"))
    return Truth(w.value, w.witness, w.scope)


def id_sum_truth(params: Mapping[str, Any]) -> Truth:
    """Worst case of a group-by sum of values clamped to ``[L, U]`` after MaxRowsPerID(r),
    under AddRowsWithID; rows carry a value from ``{L - 1, L, U, U + 1}`` (and 0 when
    ``L < 0 < U``), so clamping acts, in one of two groups. ``norm`` is l1 or l2."""
    rr = _int(params, "r")
    lo, hi = params.get("L"), params.get("U")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)) or lo > hi:
        raise InvalidArgument(f"bounds L={lo!r}, U={hi!r} are not ints with L <= U; bind "
                              f"both to ints in the grid")
    keys = _keys(2)
    values = sorted({lo - 1, lo, hi, hi + 1} | ({0} if lo < 0 < hi else set()))
    domain = TableDomain(keys=keys, values=tuple(values), ids=(1,),
                         rows_per_id=rr + 1)
    w = id_worst_case(lambda t: max_rows_per_id(t, rr), domain, keys, params.get("norm", "l1"),
                      aggregate=lambda t: groupby_sum(t, keys, lo, hi))
    return Truth(w.value, w.witness, f"clamp to [{lo}, {hi}]; {w.scope}")


# ---------------------------------------------------------------------------------------
# grids and entries
# ---------------------------------------------------------------------------------------

def _join_binding(tl, sl, ml, tr, sr, mr, *, rl=None, vl=2, vr=2):
    return {"T_l": tl, "S_l": sl, "M_l": ml, "T_r": tr, "S_r": sr, "M_r": mr,
            "K": ml + mr, "V_l": vl, "V_r": vr,
            "R_l": tl + 1 if rl is None else rl, "R_r": tr + 1}


_STRATEGIES = ((1, 1), (1, 2), (2, 2))  # (T, S): DropNonUnique, DropExcess(1), DropExcess(2)


def _first(binding: dict, grid: list[dict]) -> list[dict]:
    """``grid`` with ``binding`` moved to the front (the catalogue shows the first tight one)."""
    return [binding] + [b for b in grid if b != binding]


def _join_grid():
    # the seed's worked example (8) first, then every pair of strategies
    grid = [_join_binding(tl, sl, 1, tr, sr, 1)
            for tl, sl in reversed(_STRATEGIES) for tr, sr in reversed(_STRATEGIES)]
    grid += [_join_binding(2, 2, 2, 1, 2, 1), _join_binding(1, 2, 1, 2, 2, 2),
             _join_binding(1, 1, 2, 2, 2, 1), _join_binding(2, 2, 2, 2, 2, 2)]
    return grid


def entries() -> list[Entry]:
    """One entry per rule of seed 001 (and the private-join formula as Tumult's docstring
    once printed it, with the protected changes swapped)."""
    join_published = T_l * S_r * M_r + T_r * S_l * M_l
    join_symbols = _meanings("T_l", "T_r", "S_l", "S_r", "M_l", "M_r", "K", "R_l", "V_l")
    join_symbols.update({"R_r": "the most rows with one join key that the right table can hold",
                         "V_r": "the number of distinct non-key contents of a right row"})
    covers_join = ("exactdp.relational.entries.private_join_truth",
                   "exactdp.relational.worst.private_join_worst_case",
                   "exactdp.relational.worst.keyed_worst_case",
                   "exactdp.relational.transforms.private_join_stability")
    trunc_grid = lambda s, v, extra: [  # noqa: E731
        {"n": nn, "T": tt, "S": s, "K": nn, "V": v, "rows_per_key": tt + 1 + extra}
        for nn in (1, 2, 3, 4) for tt in ((1, 2) if s == 2 else (1,))]
    return [
        Entry(
            id="s001/flat-map/add-max-rows",
            source=_SECTION + "'Flat maps'",
            statistic="flat map with max_rows (output table)",
            neighbors="AddMaxRows(n) in, rows added/removed out",
            published=n * F, derived=n * F,
            symbols=_meanings("n", "F"),
            grid=_first({"n": 1, "F": 3}, [{"n": a, "F": b} for a in (1, 2, 3) for b in (1, 2, 3)]),
            truth=flat_map_truth,
            covers=("exactdp.relational.entries.flat_map_truth",
                    "exactdp.relational.transforms.flat_map"),
            note="Tight: a changed row whose image has F rows. n = 1 is the seed's AddOneRow "
                 "example (max_rows=3 gives 3).",
        ),
        Entry(
            id="s001/public-join/add-max-rows",
            source=_SECTION + "'Public joins'",
            statistic="join with a public table (output table)",
            neighbors="AddMaxRows(n) on the private table, rows added/removed out",
            published=n * m, derived=n * m,
            symbols=_meanings("n", "m"),
            grid=_first({"n": 1, "m": 2},
                        [{"n": a, "m": b} for a in (1, 2, 3) for b in (1, 2, 3) if a * b < 9]),
            truth=public_join_truth,
            covers=("exactdp.relational.entries.public_join_truth",
                    "exactdp.relational.transforms.public_join"),
            note="Tight: all n changed rows carry a key that matches m public rows.",
        ),
        Entry(
            id="s001/drop-excess/add-max-rows",
            source=_SECTION + "'Private joins' (stability of DropExcess)",
            statistic="DropExcess(T) truncation (output table)",
            neighbors="AddMaxRows(n) in, rows added/removed out",
            published=2 * n, derived=2 * n,
            symbols=_meanings("n", "T", "S", "K", "V"),
            grid=trunc_grid(2, 2, 0),
            truth=truncation_truth,
            covers=("exactdp.relational.entries.truncation_truth",
                    "exactdp.relational.worst.truncation_worst_case",
                    "exactdp.relational.transforms.DropExcess.apply"),
            note="Tight when rows of one key can differ (V >= 2) and a key can hold T+1 rows: "
                 "an added row that sorts before the T kept ones displaces one of them.",
        ),
        Entry(
            id="s001/drop-excess/key-only-table",
            source=_SECTION + "'Private joins' (stability of DropExcess)",
            statistic="DropExcess(T) truncation of a table of join keys only (output table)",
            neighbors="AddMaxRows(n) in, rows added/removed out",
            published=2 * n, derived=n,
            symbols=_meanings("n", "T", "S", "K", "V"),
            grid=trunc_grid(2, 1, 1),
            truth=truncation_truth,
            covers=("exactdp.relational.entries.truncation_truth",
                    "exactdp.relational.worst.truncation_worst_case",
                    "exactdp.relational.transforms.DropExcess.apply"),
            note="Loose by a factor 2 when all rows of a key are identical (V = 1): "
                 "truncation keeps min(count, T) copies, which moves by at most 1 per row.",
        ),
        Entry(
            id="s001/drop-non-unique/add-max-rows",
            source=_SECTION + "'Private joins' (stability of DropNonUnique)",
            statistic="DropNonUnique truncation (output table)",
            neighbors="AddMaxRows(n) in, rows added/removed out",
            published=n, derived=n,
            symbols=_meanings("n", "T", "S", "K", "V"),
            grid=trunc_grid(1, 2, 0),
            truth=truncation_truth,
            covers=("exactdp.relational.entries.truncation_truth",
                    "exactdp.relational.worst.truncation_worst_case",
                    "exactdp.relational.transforms.DropNonUnique.apply"),
            note="Tight: one row added to an empty key (or to a key with one row) changes the "
                 "output by one row.",
        ),
        Entry(
            id="s001/private-join/add-max-rows",
            source=_SECTION + "'Private joins'",
            statistic="private join with truncation (output table)",
            neighbors="AddMaxRows(M_l) on the left and AddMaxRows(M_r) on the right at once",
            published=join_published, derived=join_published,
            symbols=join_symbols,
            grid=_join_grid(),
            truth=private_join_truth,
            covers=covers_join,
            note="Tight on every binding (the seed's 8, 4 and 6 included) when there are "
                 "K >= M_l + M_r keys, rows of a key can differ and a key can hold T + 1 rows: "
                 "each changed row gets its own key. With fewer keys the changes share keys "
                 "and the bound can be loose (one key, DropExcess(2) both sides: 6, not 8).",
        ),
        Entry(
            id="s001/private-join/one-key",
            source=_SECTION + "'Private joins' (all rows share one join key)",
            statistic="private join with truncation, one join key",
            neighbors="AddMaxRows(1) on the left and AddMaxRows(1) on the right at once",
            published=join_published,
            derived=sympy.Max(T_r * S_l, T_l * S_r, 2 * (S_l - 1) * (S_r - 1) * (T_l + T_r - 1)),
            symbols=join_symbols,
            grid=[dict(_join_binding(tl, sl, 1, tr, sr, 1), K=1)
                  for tl, sl in reversed(_STRATEGIES) for tr, sr in reversed(_STRATEGIES)],
            truth=private_join_truth,
            covers=covers_join,
            note="Loose when both changes must fall on the same key: the left and the right "
                 "change then overlap in the joined rows. Exact on one key with one row changed "
                 "per side: the larger one-sided change, or two DropExcess displacements at "
                 "once, 2*(T_l + T_r - 1) (6, not the seed's 8, for DropExcess(2) on both). "
                 "No closed form is derived for several keys with K < M_l + M_r.",
        ),
        Entry(
            id="s001/private-join/unique-key-left",
            source=_SECTION + "'Private joins' (the Users table with one row per user_id)",
            statistic="private join with truncation, left table with at most R_l <= T_l rows per key",
            neighbors="AddMaxRows(M_l) on the left and AddMaxRows(M_r) on the right at once",
            published=join_published, derived=R_l * S_r * M_r + T_r * M_l,
            symbols=join_symbols,
            grid=[_join_binding(2, 2, 1, 2, 2, 1, rl=1), _join_binding(1, 2, 1, 2, 2, 1, rl=1),
                  _join_binding(2, 2, 1, 2, 2, 1, rl=2), _join_binding(2, 2, 1, 1, 2, 1, rl=1),
                  _join_binding(2, 2, 2, 1, 1, 1, rl=1)],
            truth=private_join_truth,
            covers=covers_join,
            note="Loose when the left table never holds more rows per key than the threshold "
                 "(R_l <= T_l, e.g. user_id unique): DropExcess then drops nothing, so the left "
                 "stability is 1 and the left threshold acts as R_l. The seed's Users example "
                 "gives 4, not 8 (or 6 with DropExcess(1)); it is what DropNonUnique gives.",
        ),
        Entry(
            id="s001/private-join/docstring-swapped",
            source=("Tumult Analytics, tmlt/analytics/truncation_strategy.py, TruncationStrategy "
                    "docstring (2023): T_left*S_right*M_left + T_right*S_left*M_right"),
            statistic="private join with truncation (output table)",
            neighbors="AddMaxRows(M_l) on the left and AddMaxRows(M_r) on the right at once",
            published=T_l * S_r * M_l + T_r * S_l * M_r, derived=join_published,
            symbols=join_symbols,
            grid=[_join_binding(1, 2, 2, 2, 2, 1), _join_binding(2, 2, 1, 1, 2, 2),
                  _join_binding(2, 2, 1, 2, 2, 1)],
            truth=private_join_truth,
            covers=covers_join,
            note="The docstring pairs each threshold with its own table's protected change; "
                 "a change of M_l left rows moves T_r * S_l * M_l output rows, so with "
                 "T_l != T_r and M_l != M_r it is violated (seed 001 and Tumult Core have it right).",
        ),
        Entry(
            id="s001/max-rows-per-id/count-l1",
            source=_SECTION + "'Queries on tables using AddRowsWithID' (MaxRowsPerID)",
            statistic="group-by count after MaxRowsPerID(r), L1 (Laplace)",
            neighbors="AddRowsWithID",
            published=r, derived=r,
            symbols=_meanings("r", "K"),
            grid=[{"r": a, "K": 2, "rows_per_id": a + 1, "constraint": "rows", "norm": "l1"}
                  for a in (4, 3, 2, 1)],
            truth=id_count_truth,
            covers=("exactdp.relational.entries.id_count_truth",
                    "exactdp.relational.worst.id_worst_case",
                    "exactdp.relational.transforms.max_rows_per_id"),
            note="Tight: an id with r or more rows. 'Increases linearly with the truncation "
                 "parameter' in the seed; the coefficient for a count is 1.",
        ),
        Entry(
            id="s001/max-rows-per-id/count-l2",
            source=_SECTION + "'Queries on tables using AddRowsWithID' (MaxRowsPerID)",
            statistic="group-by count after MaxRowsPerID(r), L2 (Gaussian)",
            neighbors="AddRowsWithID",
            published=r, derived=r,
            symbols=_meanings("r", "K"),
            grid=[{"r": a, "K": 2, "rows_per_id": a + 1, "constraint": "rows", "norm": "l2"}
                  for a in (4, 3, 2, 1)],
            truth=id_count_truth,
            covers=("exactdp.relational.entries.id_count_truth",
                    "exactdp.relational.worst.id_worst_case",
                    "exactdp.relational.transforms.max_rows_per_id"),
            note="Tight: all r rows of the id in one group (spreading them gives only sqrt(r)).",
        ),
        *[Entry(
            id=f"s001/max-rows-per-id/sum-{norm}",
            source=_SECTION + "'Queries on tables using AddRowsWithID' (MaxRowsPerID: the "
                              "sensitivity 'increases linearly with the truncation parameter')",
            statistic=f"group-by sum of values clamped to [L, U] after MaxRowsPerID(r), {norm.upper()}",
            neighbors="AddRowsWithID",
            published=None, derived=r * sympy.Max(sympy.Abs(L), sympy.Abs(U)),
            symbols=_meanings("r", "L", "U"),
            grid=[{"r": a, "L": lo, "U": hi, "norm": norm} for a in (1, 2, 3)
                  for lo, hi in ((-2, 1), (-1, 3), (0, 2), (1, 3), (-3, -1), (2, 2))],
            truth=id_sum_truth,
            covers=("exactdp.relational.entries.id_sum_truth",
                    "exactdp.relational.worst.id_worst_case",
                    "exactdp.relational.transforms.max_rows_per_id",
                    "exactdp.relational.transforms.groupby_sum"),
            note="The seed gives no formula, only linear growth in r; the factor for a clamped "
                 "sum is max(|L|, |U|), for L1 and L2 alike (all r rows in one group, each at "
                 "the bound of larger magnitude); negative, zero-crossing and positive bounds.",
        ) for norm in ("l1", "l2")],
        Entry(
            id="s001/groups-rows-per-id/count-laplace",
            source=_SECTION + "'Queries on tables using AddRowsWithID' (MaxGroupsPerID x "
                              "MaxRowsPerGroupPerID, Laplace)",
            statistic="group-by count after MaxGroupsPerID(g), MaxRowsPerGroupPerID(r), L1",
            neighbors="AddRowsWithID",
            published=r * g, derived=r * g,
            symbols=_meanings("r", "g", "K"),
            grid=[{"r": a, "g": b, "K": b + 1, "rows_per_id": a * b + 1, "constraint": "groups",
                   "norm": "l1"} for a in (2, 1) for b in (3, 2, 1)],
            truth=id_count_truth,
            covers=("exactdp.relational.entries.id_count_truth",
                    "exactdp.relational.worst.id_worst_case",
                    "exactdp.relational.transforms.max_groups_per_id",
                    "exactdp.relational.transforms.max_rows_per_group_per_id"),
            note="Tight: r rows in each of g groups.",
        ),
        Entry(
            id="s001/groups-rows-per-id/count-gaussian",
            source=_SECTION + "'Queries on tables using AddRowsWithID' (MaxGroupsPerID x "
                              "MaxRowsPerGroupPerID, Gaussian)",
            statistic="group-by count after MaxGroupsPerID(g), MaxRowsPerGroupPerID(r), L2",
            neighbors="AddRowsWithID",
            published=r * sympy.sqrt(g), derived=r * sympy.sqrt(g),
            symbols=_meanings("r", "g", "K"),
            grid=[{"r": a, "g": b, "K": b + 1, "rows_per_id": a * b + 1, "constraint": "groups",
                   "norm": "l2"} for a in (2, 1) for b in (3, 2, 1)],
            truth=id_count_truth,
            covers=("exactdp.relational.entries.id_count_truth",
                    "exactdp.relational.worst.id_worst_case",
                    "exactdp.relational.transforms.max_groups_per_id",
                    "exactdp.relational.transforms.max_rows_per_group_per_id"),
            note="Tight: r rows in each of g groups, L2 = sqrt(g r^2) = r sqrt(g), exact "
                 "(e.g. 2*sqrt(3) at r=2, g=3).",
        ),
    ]
