"""Domains and neighbour relations the seeds state (issue 28): exactdp.registry.seed_domains,
the id-keeping joins of exactdp.relational and the graph domain of exactdp.spaces.graphs."""

from __future__ import annotations

import itertools
from math import comb

import pytest

from exactdp.checkers.results import Verdict
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.relational.changes import AddRowsWithID
from exactdp.relational.tables import Row, TableDomain, format_table
from exactdp.relational.transforms import flat_map, private_join_on_id, public_join_by_id
from exactdp.relational.worst import id_change_kept
from exactdp.spaces.graphs import (
    EdgeChange, Graph, GraphDomain, NodeChange, edge_count, graph_sensitivity, node_count,
)

DOMAIN = TableDomain(keys=("a", "b"), values=(1, 2), ids=(1, 2), rows_per_id=2)
PUBLIC = (("a", "TN"), ("a", "KY"), ("b", "NC"))




def test_the_three_transformations_keep_add_rows_with_id(checked_claim):
    r = checked_claim("s001/add-rows-with-id/transformations-keep-change")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS and d["broken"] == []
    # every id of every database: 225 tables on the left, 36 on the right
    assert d["pairs"] == {"flat map": 420, "public join": 420, "private join on (key, id)": 16020}
    assert "id=(2,1)" in d["key_only_join_witness"] and "id=(2,2)" in d["key_only_join_witness"]


def test_id_change_kept_agrees_with_the_neighbour_enumeration():
    """The public join through the relation's own neighbours(): an independent walk over
    every pair (both directions), judged by related() on the outputs."""
    relation, examined = AddRowsWithID(), 0
    for x in DOMAIN.tables():
        fx = public_join_by_id(x, PUBLIC)
        for y in relation.neighbours(x, DOMAIN):
            fy = public_join_by_id(y, PUBLIC)
            assert fx == fy or relation.related(fx, fy), (x, y)
            examined += 1
    assert examined == 2 * id_change_kept(lambda t: public_join_by_id(t, PUBLIC), (DOMAIN,),
                                          ("t",)).pairs


def test_a_flat_map_that_rewrites_the_id_does_not_keep_the_change():
    def to_id_one(row):
        return [Row(row.key, row.value, 1)]

    r = id_change_kept(lambda t: flat_map(t, to_id_one, max_rows=1), (DOMAIN,), ("table",))
    assert not r.kept
    # the witness removes one of two ids; every output row is labelled 1, so some rows
    # labelled 1 go and others stay: not the removal of one id's rows
    (x,), (y,) = r.witness.x, r.witness.x_prime
    assert {row.pid for row in x} == {1, 2} and len({row.pid for row in y}) == 1
    assert {row.pid for row in r.witness.fx} == {row.pid for row in r.witness.fx_prime} == {1}
    assert not AddRowsWithID().related(r.witness.fx, r.witness.fx_prime) and r.witness.fx != r.witness.fx_prime


def test_the_private_join_on_the_key_alone_mixes_ids():
    left = TableDomain(keys=("a",), values=(1,), ids=(1, 2), rows_per_id=1)
    r = id_change_kept(lambda x, y: private_join_on_id(x, y, on_id=False), (left, left), ("l", "r"))
    assert not r.kept
    removed = {row.pid for row in r.witness.fx} - {row.pid for row in r.witness.fx_prime}
    assert len(removed) == 2  # two (left id, right id) labels vanish at once
    assert id_change_kept(private_join_on_id, (left, left), ("l", "r")).kept


def test_id_change_kept_refuses_mismatched_domains_and_large_ones():
    with pytest.raises(InvalidArgument, match="same ids"):
        id_change_kept(private_join_on_id, (DOMAIN, TableDomain(keys=("a",), ids=(1, 3),
                                                                rows_per_id=1)), ("l", "r"))
    with pytest.raises(TooLarge, match="max_pairs"):
        id_change_kept(private_join_on_id, (DOMAIN, DOMAIN), ("l", "r"), max_pairs=1000)


def test_rows_with_tuple_values_print_plainly():
    assert format_table(public_join_by_id([("z1", "S", 7)], [("z1", "TN")])) == "{(z1,(S,TN),id=7)}"


# --- graphs -----------------------------------------------------------------------------

def test_graph_node_count_claim(checked_claim):
    r = checked_claim("s002/exercise/graph/node-count")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS_TIGHT
    assert d["node_count"] == 1 and d["edge_count"] == 4
    assert d["graphs"] == 1450 == sum(comb(5, s) * 2 ** comb(s, 2) for s in range(6))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_graph_domain_count_matches_the_enumeration(n):
    d = GraphDomain(tuple(range(n)))
    graphs = list(d.graphs())
    assert len(graphs) == len(set(graphs)) == d.count()


def test_graph_sensitivities_against_a_direct_walk():
    d = GraphDomain(("a", "b", "c", "d"), max_degree=2)
    graphs = list(d.graphs())
    best_edges = 0
    for g, h in itertools.product(graphs, graphs):
        if h.nodes < g.nodes and len(g.nodes - h.nodes) == 1:
            (v,) = g.nodes - h.nodes
            if g.without_node(v) == h:
                best_edges = max(best_edges, abs(edge_count(g) - edge_count(h)))
    assert graph_sensitivity(edge_count, d, NodeChange()).value == best_edges == 2
    assert graph_sensitivity(node_count, d, EdgeChange()).value == 0
    assert graph_sensitivity(edge_count, d, EdgeChange()).value == 1


def test_graph_errors_name_the_value():
    with pytest.raises(InvalidArgument, match="distinct"):
        GraphDomain(("a", "a"))
    with pytest.raises(InvalidArgument, match="max_degree=-1"):
        GraphDomain(("a",), max_degree=-1)
    with pytest.raises(InvalidArgument, match="not a pair of two distinct nodes"):
        Graph(frozenset({"a"}), frozenset({("a", "b")}))
    with pytest.raises(TooLarge, match="max_graphs"):
        list(GraphDomain(tuple(range(12))).graphs())


# --- seed 003, scenario (b) -----------------------------------------------------------

def test_replicated_universe_claim(checked_claim):
    r = checked_claim("s003/b/replicated-universe")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS_TIGHT and d["release_size"] == 4
    assert d["columns"]["mood"]["by_replicates"] == {"1": 0, "2": 1, "3": 3, "4": 5}
    assert d["columns"]["driving_proficiency"]["least"] == 4
    assert d["witness_missing"] == [2, 2, 2, 2]


def test_scenario_b_pools_are_computed_as_the_notebook_built_them():
    from exactdp.registry.seed003 import seed003_tables

    runs = seed003_tables()["runs"]
    assert runs["b"]["universe"] == {"mood": [1, 2] * 4, "driving_proficiency": [1, 2, 3] * 4}
    assert "value_ranges" not in runs["a"]
