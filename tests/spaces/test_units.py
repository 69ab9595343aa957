"""Privacy units (AddRowsWithID): the space against a brute-force construction, the id-level
distance against its edit path, seed 001's truncations, and contribution bounds that a
claim misses (witnesses asserted exactly)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy

from exactdp import IntegerRange, InvalidArgument
from exactdp.checkers.graph import graph_sensitivity, make_query, verify_graph_claim
from exactdp.spaces.units import (
    AddRemoveID, MaxGroupsPerID, MaxRowsPerGroupPerID, MaxRowsPerID, Units, compose,
    group_counts, row_count, row_sum,
)


def rows(*pairs):
    return tuple((i, Fraction(v)) for i, v in pairs)


# == the space ===========================================================================

def _brute_units(m, n_ids, rmin, rmax, g):
    contribs = [c for s in range(rmin, rmax + 1)
                for c in itertools.combinations_with_replacement(range(m), s)
                if g is None or len(set(c)) <= g]
    out = set()
    for choice in itertools.product([None] + contribs, repeat=n_ids):
        out.add(tuple((i, c) for i, c in enumerate(choice) if c is not None))
    return out


@pytest.mark.parametrize("m, n_ids, rows_per_id, g", [
    (2, 2, (1, 2), None), (3, 2, (1, 3), 2), (2, 3, (1, 1), None), (3, 1, (2, 4), 1),
])
def test_units_are_every_dataset_once(m, n_ids, rows_per_id, g):
    space = Units(IntegerRange(0, m - 1), ids=n_ids, rows_per_id=rows_per_id, groups_per_id=g)
    keys = list(space)
    assert len(keys) == len(set(keys)) == space.count() == space.count_capped(10**9)
    assert set(keys) == _brute_units(m, n_ids, *rows_per_id, g)
    assert all(space.contains(k) for k in keys)


def test_count_of_ids_present_and_text():
    space = Units(IntegerRange(0, 1), ids=["a", "b", "c"], rows_per_id=2, units=(1, 2))
    assert space.count() == 3 * 3 + 3 * 9
    assert space.describe() == ("(id, value) datasets: 1..2 of the ids {a, b, c}, each with 2 rows "
                                "over {0..1}")
    key = space.to_key([("c", 1), ("a", 0), ("c", 0), ("a", 0)])
    assert key == ((0, (0, 0)), (2, (0, 1)))
    assert space.public(key) == rows(("a", 0), ("a", 0), ("c", 0), ("c", 1))
    assert space.show(key) == "{'a': [0, 0], 'c': [0, 1]}"
    assert space.claim_parameters() == {"L": 0, "U": 1, "R": 2}


def test_count_capped_refuses_without_building():
    space = Units(IntegerRange(0, 10**6), ids=50, rows_per_id=(1, 5))
    assert space.count_capped(10**6) > 10**6
    assert space._contributions is None


@pytest.mark.parametrize("build", [
    lambda: Units(IntegerRange(0, 1), ids=0),
    lambda: Units(IntegerRange(0, 1), ids=[1, 1]),
    lambda: Units(IntegerRange(0, 1), ids=2, rows_per_id=(0, 2)),
    lambda: Units(IntegerRange(0, 1), ids=2, units=(0, 3)),
    lambda: Units(IntegerRange(0, 1), ids=2, groups_per_id=0),
    lambda: Units((0, 1), ids=2),
    lambda: Units(IntegerRange(0, 1), ids=2).to_key([(5, 0)]),
    lambda: Units(IntegerRange(0, 1), ids=2).to_key([(0, 9)]),
    lambda: MaxRowsPerID(0),
    lambda: MaxRowsPerID(2, keep="random"),
    lambda: MaxGroupsPerID(1, group=3),
    lambda: compose(),
])
def test_bad_arguments(build):
    with pytest.raises(InvalidArgument):
        build()


# == the relation ========================================================================

def test_id_distance_is_the_shortest_path_of_id_edits():
    space = Units(IntegerRange(0, 1), ids=2, rows_per_id=(1, 2))
    rel = AddRemoveID()
    keys = list(space)
    dist = {}  # BFS from every key over the edit graph (the space is closed under edits here)
    for x in keys:
        seen, frontier, d = {x: 0}, [x], 0
        while frontier:
            d += 1
            nxt = [z for y in frontier for z in rel.edits(y, space) if z not in seen]
            for z in nxt:
                seen.setdefault(z, d)
            frontier = list(dict.fromkeys(nxt))
        dist[x] = seen
    for x in keys:
        for y in keys:
            assert rel.distance(x, y) == dist[x][y]
    assert rel.distance(((0, (0,)),), ((0, (1,)),)) == 2  # changing an id's rows is 2


# == truncations (seed 001) ===============================================================

def test_truncation_rules_on_examples():
    data = rows((0, 5), (0, 1), (0, 3), (0, 3), (1, 2), (1, 7), (1, 7))
    assert MaxRowsPerID(2)(data) == rows((0, 1), (0, 3), (1, 2), (1, 7))
    assert MaxRowsPerID(2, keep="largest")(data) == rows((0, 3), (0, 5), (1, 7), (1, 7))
    assert MaxGroupsPerID(1)(data) == rows((0, 1), (1, 2))
    assert MaxGroupsPerID(1, keep="largest")(data) == rows((0, 5), (1, 7), (1, 7))
    assert MaxRowsPerGroupPerID(1)(data) == rows((0, 1), (0, 3), (0, 5), (1, 2), (1, 7))
    parity = MaxGroupsPerID(1, group=lambda v: v % 2)  # groups 0 (even) and 1 (odd)
    assert parity(data) == rows((0, 1), (0, 3), (0, 3), (0, 5), (1, 2))
    assert MaxRowsPerID(3).rows_changed(2) == 6
    assert compose(MaxRowsPerID(1), row_sum)(data) == 3
    assert group_counts([1, 2, 3])(data) == (1, 1, 2)


SUM = make_query("sum", row_sum)


def test_sum_with_two_rows_per_id_claimed_U_is_violated():
    """AddRowsWithID with up to 2 rows per id: one id moves the sum by 2U, not U."""
    space = Units(IntegerRange(0, 3), ids=2, rows_per_id=(1, 2))
    r = verify_graph_claim("U", SUM, space)
    assert r.verdict.value == "violated"
    assert (r.claim, r.sensitivity.value) == (3, 6)
    w = r.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime, w.d) == ((), rows((0, 3), (0, 3)), 0, 6, 1)
    assert str(w) == "x={}, x'={0: [3, 3]}: f(x)=0, f(x')=6 (AddRemoveID 1)"
    assert verify_graph_claim("R * U", SUM, space).verdict.value == "holds-tight"
    assert verify_graph_claim("2*U", SUM, space).verdict.value == "holds-tight"


def test_max_rows_per_id_truncation_restores_k_times_U():
    space = Units(IntegerRange(0, 2), ids=2, rows_per_id=(1, 3))
    truncated = make_query("sum after MaxRowsPerID(2)", compose(MaxRowsPerID(2, keep="largest"), row_sum))
    assert graph_sensitivity(SUM, space).value == 6
    r = verify_graph_claim("2*U", truncated, space)
    assert r.verdict.value == "holds-tight"
    assert (r.witness.x, r.witness.x_prime) == ((), rows((0, 2), (0, 2)))
    assert verify_graph_claim("U", truncated, space).verdict.value == "violated"
    # d_in ids: d_in * k * U (changing one id's rows is 2 edits)
    assert graph_sensitivity(truncated, space, d_in=2).value == 8


def test_groups_times_rows_per_group_l1_and_l2():
    """Seed 001: MaxGroupsPerID(g) then MaxRowsPerGroupPerID(r): a count per group moves by
    g * r in L1 (Laplace) and r * sqrt(g) in L2 (Gaussian)."""
    space = Units(IntegerRange(0, 2), ids=2, rows_per_id=(1, 4))
    steps = (MaxGroupsPerID(2), MaxRowsPerGroupPerID(2))
    l1 = make_query("counts L1", compose(*steps, group_counts([0, 1, 2])), output="vector", norm="L1")
    l2 = make_query("counts L2", compose(*steps, group_counts([0, 1, 2])), output="vector", norm="L2")
    r1 = graph_sensitivity(l1, space)
    assert r1.value == 4
    assert (r1.witness.x, r1.witness.x_prime) == ((), rows((0, 0), (0, 0), (0, 1), (0, 1)))
    assert r1.witness.fx_prime == (2, 2, 0)
    r2 = graph_sensitivity(l2, space)
    assert sympy.simplify(r2.value - 2 * sympy.sqrt(2)) == 0
    assert verify_graph_claim("2 * sqrt(2)", l2, space).verdict.value == "holds-tight"
    assert verify_graph_claim("2", l2, space).verdict.value == "violated"


def test_per_group_bound_without_a_groups_bound_misses_outlier_users():
    """Bounding rows per (id, group) but not groups per id: one outlier user touching every
    group moves the counts by r * groups (contribution bounding that misses outlier users;
    the reading list files such a report under Privacy on Beam PR #84, not reproduced here)."""
    space = Units(IntegerRange(0, 2), ids=1, rows_per_id=(1, 3))
    q = make_query("counts", compose(MaxRowsPerGroupPerID(1), group_counts([0, 1, 2])),
                   output="vector", norm="L1")
    r = verify_graph_claim(1, q, space)
    assert r.verdict.value == "violated" and r.sensitivity.value == 3
    assert (r.witness.x, r.witness.x_prime) == ((), rows((0, 0), (0, 1), (0, 2)))
    bounded = make_query("counts", compose(MaxGroupsPerID(1), MaxRowsPerGroupPerID(1),
                                           group_counts([0, 1, 2])), output="vector", norm="L1")
    assert verify_graph_claim(1, bounded, space).verdict.value == "holds-tight"


def test_count_of_rows_and_multiset_queries_read_the_values():
    space = Units(IntegerRange(1, 2), ids=2, rows_per_id=(1, 3))
    assert graph_sensitivity(make_query("count", row_count), space).value == 3
    assert graph_sensitivity("sum", space).value == 6  # a multiset Query ignores the ids
    assert graph_sensitivity("count", space, d_in=2).value == 6
