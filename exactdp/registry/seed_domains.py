"""Claims about dataset domains and neighbour relations that the seeds state (kind
``"privacy"``; issue 28), each decided by enumerating a small domain:

* ``s001/add-rows-with-id/transformations-keep-change``: seed 001's "under AddRowsWithID
  you can perform flat maps, public joins, or private joins, and the protected change is
  still AddRowsWithID": for every database of a small id space and every id in it, the
  outputs with and without that id's rows are equal or differ by the rows of one id
  (:func:`~exactdp.relational.worst.id_change_kept`). The private join is modelled with the
  id among its join columns; the same join on the key alone is computed beside it and
  does not keep the change (its witness is in the result's data).
* ``s002/exercise/graph/node-count``: seed 002's exercise 4, "a graph dataset where each
  individual can contribute one node: the count of nodes is a stable transformation from
  graphs to integers": every graph on a few individuals, node-level neighbours
  (:mod:`exactdp.spaces.graphs`); the edge count beside it, whose change grows with the
  number of nodes.
* ``s003/b/replicated-universe``: seed 003's "in scenario (b) you have to make as many
  replicates of each value of the universe as the size of the released dataset": the
  sub-multisets of the value range replicated ``r`` times are every multiset of the release
  size exactly when ``r`` reaches it; one replicate fewer misses a dataset, the witness.
"""

from __future__ import annotations

from typing import Any

from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.relational.tables import Row, TableDomain
from exactdp.relational.transforms import flat_map, private_join_on_id, public_join_by_id
from exactdp.relational.worst import id_change_kept
from exactdp.registry.seed003 import replicated_pool, seed003_tables
from exactdp.spaces import ExactSet, Multisets, SubMultisets
from exactdp.spaces.graphs import (
    GraphDomain, NodeChange, edge_count, graph_sensitivity, node_count,
)

__all__ = ["claims", "ID_SPACE", "PUBLIC_TABLE", "GRAPH_INDIVIDUALS"]

_S001 = ("seed 001 (Tumult Analytics, Understanding sensitivity), section 'Queries on tables "
         "using AddRowsWithID'")
_S002_EX4 = "seed 002 (Hands-on DP, ch. 6), Exercises 4: graph datasets"
_S003_B = "seed 003 notebook (Global Sensitivity From Scratch), Further clarification, scenario (b)"

ID_SPACE: dict[str, Any] = {"keys": ("a", "b"), "values": (1, 2), "right_values": (5,), "ids": (1, 2),
            "rows_per_id": 2}
"""The id space of the join check: rows ``(key, value, id)``, at most ``rows_per_id`` rows of
each id in each table; the right table of the private join takes ``right_values``."""

PUBLIC_TABLE = (("a", "TN"), ("a", "KY"), ("b", "NC"))
"""The public table of the public join (key ``a`` matches two rows)."""

GRAPH_INDIVIDUALS = ("a", "b", "c", "d", "e")
"""The individuals of the graph domain (every graph on a subset of them)."""


def _copy_row(row: Row) -> list[Row]:
    """The flat map of the check: each row repeated ``value`` times (0 to 2 rows), its id kept."""
    copies = row.value
    assert isinstance(copies, int)  # the domain's values are 1 and 2
    return [row] * copies


def _joins_claim() -> StatementResult:
    c = ID_SPACE
    left = TableDomain(keys=c["keys"], values=c["values"], ids=c["ids"], rows_per_id=c["rows_per_id"])
    right = TableDomain(keys=c["keys"], values=c["right_values"], ids=c["ids"],
                        rows_per_id=c["rows_per_id"])
    checks = {
        "flat map": id_change_kept(lambda t: flat_map(t, _copy_row, max_rows=2), (left,), ("table",)),
        "public join": id_change_kept(lambda t: public_join_by_id(t, PUBLIC_TABLE), (left,),
                                      ("private",)),
        "private join on (key, id)": id_change_kept(private_join_on_id, (left, right),
                                                    ("left", "right")),
    }
    on_key = id_change_kept(lambda x, y: private_join_on_id(x, y, on_id=False), (left, right),
                            ("left", "right"))
    broken = [name for name, r in checks.items() if not r.kept]
    verdict = Verdict.VIOLATED if broken else Verdict.HOLDS
    if broken:
        text = f"{broken[0]} does not keep AddRowsWithID: {checks[broken[0]].witness}"
    else:
        text = ("the flat map, the public join and the private join on (key, id) keep "
                "AddRowsWithID: removing one id's rows removes only rows of that id from the "
                "output (" + ", ".join(f"{n}: {r.pairs:,} pairs" for n, r in checks.items())
                + "); joined on the key alone, the private join does not (removing one id "
                f"removes output rows of several id pairs: {on_key.witness})")
    scope = ("; ".join(f"{name}: {r.scope}" for name, r in checks.items())
             + f"; flat map: each row repeated value times; public table {list(PUBLIC_TABLE)}; "
             "outputs compared exactly as multisets of rows (proof: "
             "proofs/s001-rows-with-id-kept.md)")
    return StatementResult(verdict, text, scope,
                           {"pairs": {n: r.pairs for n, r in checks.items()}, "broken": broken,
                            "key_only_join_witness": str(on_key.witness) if on_key.witness else None})


def _graph_claim() -> StatementResult:
    domain = GraphDomain(GRAPH_INDIVIDUALS)
    nodes = graph_sensitivity(node_count, domain, NodeChange())
    edges = graph_sensitivity(edge_count, domain, NodeChange())
    verdict = Verdict.HOLDS_TIGHT if nodes.value == 1 else Verdict.VIOLATED
    text = (f"the node count changes by at most {nodes.value} between node-level neighbours "
            f"(stability 1, attained: {nodes.witness}); the edge count, by contrast, changes by "
            f"up to {edges.value} = the number of individuals - 1 (one node takes all its edges "
            f"with it: {edges.witness})")
    return StatementResult(verdict, text, nodes.scope + " (proof: proofs/s002-graph-node-count.md)",
                           {"node_count": nodes.value, "edge_count": edges.value,
                            "pairs": nodes.pairs, "graphs": nodes.graphs})


def _replicated_claim() -> StatementResult:
    run = seed003_tables()["runs"]["b"]
    n = run["release_size"]
    found = {}
    for column, values in run["value_ranges"].items():
        every = Multisets(ExactSet(values), size=n)
        counts = {}
        for r in range(1, n + 1):
            counts[r] = len(SubMultisets(replicated_pool(values, r), size=n)) if r * len(values) >= n else 0
        least = min((r for r in counts if counts[r] == len(every)), default=None)
        found[column] = (values, len(every), counts, least)
    tight = all(least == n for _, _, _, least in found.values())
    verdict = Verdict.HOLDS_TIGHT if tight else Verdict.VIOLATED
    column, (values, total, counts, least) = next(iter(found.items()))
    witness = _first_missing(values, n - 1, n)
    text = (f"releases of {n}: replicating each value {n} times gives every multiset of size {n} "
            + ", ".join(f"({c}: {t} of {t})" for c, (_, t, _, _) in found.items())
            + f"; {n - 1} replicates give {counts[n - 1]} of {total} for {column}, missing e.g. "
            f"{witness} (a value {n} times needs {n} copies in the pool); the least number of "
            f"replicates is the release size for every column")
    scope = (f"scenario (b)'s value ranges {dict((c, v) for c, (v, *_rest) in found.items())}, "
             f"release size {n}: sub-multisets of the replicated pool counted exactly for 1..{n} "
             f"replicates and compared with every multiset of size {n} (a sub-multiset of the "
             f"pool is a multiset of the range, so equal counts mean equal sets)")
    return StatementResult(verdict, text, scope,
                           {"release_size": n,
                            "columns": {c: {"multisets": t, "by_replicates": {str(r): k for r, k in cs.items()},
                                            "least": le} for c, (_, t, cs, le) in found.items()},
                            "witness_missing": witness})


def _first_missing(values: list, replicates: int, n: int) -> list:
    """The first multiset of size ``n`` over ``values`` (in enumeration order) that is not a
    sub-multiset of ``values`` replicated ``replicates`` times, as a sorted list."""
    every = Multisets(ExactSet(values), size=n)
    pool = set(SubMultisets(replicated_pool(values, replicates), size=n)) \
        if replicates * len(values) >= n else set()
    for counts in every:
        if counts not in pool:
            return [int(v) for v, c in zip(every.universe.values, counts) for _ in range(c)]
    raise AssertionError(f"every multiset of size {n} is in the pool of {replicates} replicates")


def claims(all_k: bool = False) -> list[PrivacyClaim]:
    """The claims of this module, in registry order."""
    return [
        PrivacyClaim("s001/add-rows-with-id/transformations-keep-change", _S001,
                     "under AddRowsWithID you can perform flat maps, public joins, or private "
                     "joins, and the protected change is still AddRowsWithID", _joins_claim,
                     "holds"),
        PrivacyClaim("s002/exercise/graph/node-count", _S002_EX4,
                     "with each individual contributing one node, the count of nodes is a "
                     "stable transformation from the domain of graphs to the integers",
                     _graph_claim, "holds-tight"),
        PrivacyClaim("s003/b/replicated-universe", _S003_B,
                     "in scenario (b) each value of the universe must be replicated as many "
                     "times as the size of the released dataset", _replicated_claim,
                     "holds-tight"),
    ]
