"""Ordered datasets: counts against itertools, the two metrics against their definitions,
the conversions as checked maps, and order-dependent queries enumerated over every order."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from exactdp import ExactSet, IntegerRange, InvalidArgument, TooLarge
from exactdp.checkers.graph import graph_sensitivity, make_query, verify_conversion, verify_graph_claim
from exactdp.numeric.floatsum import float_sum
from exactdp.spaces.sequences import (
    HammingDistance, InsertDeleteDistance, Sequences, hamming_to_change, hamming_to_insert_delete,
    insert_delete_to_hamming, insert_delete_to_symmetric, lcs_length,
)


def F(*xs):
    return tuple(Fraction(x) for x in xs)


# == the space ===========================================================================

@pytest.mark.parametrize("lo, hi, sizes", [(0, 1, (0, 3)), (-1, 1, (2, 2)), (0, 3, (1, 3)), (5, 5, (0, 4))])
def test_sequences_are_every_tuple_once_in_a_fixed_order(lo, hi, sizes):
    space = Sequences(IntegerRange(lo, hi), sizes=sizes)
    m = hi - lo + 1
    expected = [t for n in range(sizes[0], sizes[1] + 1) for t in itertools.product(range(m), repeat=n)]
    assert list(space) == expected
    assert len(space) == space.count() == len(expected)
    assert space.count_capped(10**6) == len(expected)
    assert all(space.contains(k) for k in expected)


def test_count_capped_is_a_lower_bound_above_the_cap_without_building():
    huge = Sequences(IntegerRange(0, 10**9), sizes=(0, 10**6))
    c = huge.count_capped(10**6)
    assert 10**6 < c <= 10**9 + 2  # the first two lengths already pass the cap
    assert Sequences(IntegerRange(0, 1), sizes=(0, 10**6)).count_capped(1000) > 1000


def test_values_keys_and_text():
    space = Sequences(ExactSet(["1/2", 3]), sizes=(0, 3))
    key = space.to_key(["3", "1/2", 3])
    assert key == (1, 0, 1)
    assert space.to_values(key) == (Fraction(3), Fraction(1, 2), Fraction(3))
    assert space.show(key) == "(3, 1/2, 3)"
    assert space.describe() == "sequences of length 0..3 over {1/2, 3}"
    assert Sequences(IntegerRange(0, 2), size=4).fixed_size == 4
    assert Sequences(IntegerRange(0, 2), size=4).claim_parameters() == {"L": 0, "U": 2, "N": 4}


@pytest.mark.parametrize("build", [
    lambda: Sequences([0, 1], size=2),
    lambda: Sequences(IntegerRange(0, 1)),
    lambda: Sequences(IntegerRange(0, 1), sizes=(3, 1)),
    lambda: Sequences(IntegerRange(0, 1), size=-1),
    lambda: Sequences(IntegerRange(0, 1), size=2).to_key([0, 7]),
    lambda: Sequences(IntegerRange(0, 1), size=2).to_key("01"),
    lambda: insert_delete_to_hamming(-1, 3),
    lambda: hamming_to_insert_delete(1.0),
])
def test_bad_arguments(build):
    with pytest.raises(InvalidArgument):
        build()


# == metrics against their definitions ===================================================

def _bfs_distance(x, y, m, step):
    """Least number of edits (insert/delete when step=1, change when step=0) by BFS."""
    frontier, seen, d = {x}, {x}, 0
    while frontier:
        if y in frontier:
            return d
        if d > len(x) + len(y) + 1:
            return None
        nxt = set()
        for z in frontier:
            if step:
                cands = [z[:p] + z[p + 1:] for p in range(len(z))]
                cands += [z[:p] + (v,) + z[p:] for p in range(len(z) + 1) for v in range(m)]
            else:
                cands = [z[:p] + (v,) + z[p + 1:] for p in range(len(z)) for v in range(m)]
            nxt |= {c for c in cands if c not in seen}
        seen |= nxt
        frontier, d = nxt, d + 1
    return None


def test_insert_delete_distance_is_the_shortest_edit_path():
    keys = list(Sequences(IntegerRange(0, 2), sizes=(0, 3)))
    idd = InsertDeleteDistance()
    for x in keys[::3]:
        for y in keys[::5]:
            assert idd.distance(x, y) == _bfs_distance(x, y, 3, 1), (x, y)


def test_hamming_distance_is_the_shortest_change_path_and_infinite_across_lengths():
    h = HammingDistance()
    keys = list(Sequences(IntegerRange(0, 2), size=3))
    for x in keys[::4]:
        for y in keys[::3]:
            assert h.distance(x, y) == _bfs_distance(x, y, 3, 0)
    assert h.distance((0,), (0, 0)) is None
    assert HammingDistance().distance((0, 1, 2), (2, 1, 0)) == 2


def test_lcs_against_all_subsequences():
    def brute(x, y):
        subs = {tuple(c) for r in range(len(x) + 1) for c in itertools.combinations(x, r)}
        return max(r for r in range(len(y) + 1) for c in itertools.combinations(y, r) if c in subs)
    for x in itertools.product(range(2), repeat=4):
        for y in [(0, 1, 1), (1, 0), (), (1, 1, 0, 0, 1)]:
            assert lcs_length(x, y) == brute(x, y)


def test_edits_are_the_distance_one_neighbours_and_stay_counted():
    space = Sequences(IntegerRange(0, 2), sizes=(0, 3))
    for rel in (InsertDeleteDistance(), HammingDistance()):
        for x in list(space)[::7]:
            edits = list(rel.edits(x, space))
            assert len(edits) == len(set(edits)) <= rel.max_edits(space, len(x))
            assert all(rel.distance(x, y) == 1 for y in edits)


# == conversions as exact maps ===========================================================

def test_hamming_to_insert_delete_is_twice_and_tight():
    space = Sequences(IntegerRange(0, 2), size=3)
    for d in (1, 2, 3):
        r = verify_conversion(space, "hamming", "insert-delete", d, hamming_to_insert_delete(d))
        assert r.verdict.value == "holds-tight" and r.value == 2 * d


def test_insert_delete_to_hamming_halved_is_wrong_for_ordered_data():
    """OpenDP #2926: d // 2, the multiset rule, is not a bound for sequences: a rotation is
    two edits and changes every position."""
    space = Sequences(IntegerRange(0, 1), size=4)
    r = verify_conversion(space, "insert-delete", "hamming", 2, 2 // 2)
    assert r.verdict.value == "violated"
    assert (r.value, r.x, r.x_prime) == (4, (0, 1, 0, 1), (1, 0, 1, 0))
    assert InsertDeleteDistance().distance((0, 1, 0, 1), (1, 0, 1, 0)) == 2
    for d in (1, 2, 3, 4):
        exact = verify_conversion(space, "insert-delete", "hamming", d, insert_delete_to_hamming(d, 4))
        assert exact.verdict.value == ("vacuous" if d == 1 else "holds-tight")


def test_insert_delete_to_hamming_across_lengths_is_infinite():
    r = verify_conversion(Sequences(IntegerRange(0, 1), sizes=(1, 2)), "insert-delete", "hamming", 1, 5)
    assert r.verdict.value == "violated" and r.value is None
    assert (r.x, r.x_prime) == ((0,), (0, 0))
    assert verify_conversion(Sequences(IntegerRange(0, 1), sizes=(1, 2)), "insert-delete",
                             "hamming", 1, None).verdict.value == "holds-tight"


def test_forgetting_order_bounds_checked_on_every_pair():
    space = list(Sequences(IntegerRange(0, 2), sizes=(0, 3)))
    idd, h = InsertDeleteDistance(), HammingDistance()
    worst_sym, worst_change = Counter(), Counter()
    for x, y in itertools.combinations(space, 2):
        cx, cy = Counter(x), Counter(y)
        sym = sum(((cx - cy) + (cy - cx)).values())
        d = idd.distance(x, y)
        worst_sym[d] = max(worst_sym[d], sym)
        if len(x) == len(y):
            change = sum((cx - cy).values())
            worst_change[h.distance(x, y)] = max(worst_change[h.distance(x, y)], change)
    assert all(worst_sym[d] <= insert_delete_to_symmetric(d) for d in worst_sym)
    assert worst_sym[2] == 2 and worst_sym[1] == 1
    assert all(worst_change[d] <= hamming_to_change(d) for d in worst_change)


# == order-dependent queries over every order =============================================

FLOAT16_SUM = make_query("float16 sequential sum", lambda xs: float_sum(xs, "sequential", "float16"))


def test_float_sum_depends_on_order_and_the_enumeration_sees_every_order():
    space = Sequences(ExactSet([1, 2048]), size=3)
    # same multiset, two orders, two different float sums (2049 rounds to 2048, ties to even)
    assert FLOAT16_SUM(F(2048, 1, 1)) == 2048 and FLOAT16_SUM(F(1, 1, 2048)) == 2050
    r = graph_sensitivity(FLOAT16_SUM, space, "hamming")
    assert r.value == 2048  # the exact sum moves by U - L = 2047 at most
    w = r.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime, w.d) == (F(1, 2048, 1), F(1, 2048, 2048), 2048, 4096, 1)
    claim = verify_graph_claim("U - L", FLOAT16_SUM, space, "hamming")
    assert claim.verdict.value == "violated" and claim.claim == 2047


def test_a_pure_reordering_moves_the_float_sum():
    space = Sequences(ExactSet([1, 2048]), size=3)
    r = graph_sensitivity(FLOAT16_SUM, space, "insert-delete", 2, exact_k=True)
    exact = graph_sensitivity("sum", space, "insert-delete", 2, exact_k=True)
    assert exact.value == 2047 and r.value == 2048
    # a move (delete + insert) of one record keeps the multiset: the exact sum cannot see it
    moved = [(x, y) for x, y in itertools.combinations(list(space), 2)
             if Counter(x) == Counter(y) and FLOAT16_SUM(space.to_values(x)) != FLOAT16_SUM(space.to_values(y))]
    assert moved == [((0, 0, 1), (0, 1, 0)), ((0, 0, 1), (1, 0, 0))]
    assert InsertDeleteDistance().distance((0, 0, 1), (1, 0, 0)) == 2


def test_budget_is_checked_before_enumerating():
    with pytest.raises(TooLarge, match="max_datasets"):
        graph_sensitivity("sum", Sequences(IntegerRange(0, 10**9), sizes=(0, 10**9)), max_datasets=1000)
    with pytest.raises(TooLarge, match="max_pairs"):
        graph_sensitivity("sum", Sequences(IntegerRange(0, 9), size=4), "insert-delete", 3, max_pairs=10**6)


def test_opendp_2926_make_metric_bounded_regression():
    """OpenDP #2926: make_metric_bounded maps InsertDeleteDistance 2 to HammingDistance 1 on
    sequences of size 3; the report's pair [0, 1, 2] / [1, 2, 3] is 2 edits and 3 changes."""
    x, y = (0, 1, 2), (1, 2, 3)
    assert InsertDeleteDistance().distance(x, y) == 2 and HammingDistance().distance(x, y) == 3
    r = verify_conversion(Sequences(IntegerRange(0, 3), size=3), "insert-delete", "hamming", 2, 1)
    assert r.verdict.value == "violated" and r.value == 3
    assert (r.x, r.x_prime) == ((0, 1, 0), (1, 0, 1))  # the first pair of the enumeration
    assert verify_conversion(Sequences(IntegerRange(0, 3), size=3), "insert-delete", "hamming", 2,
                             insert_delete_to_hamming(2, 3)).verdict.value == "holds-tight"


def test_a_library_function_is_enumerated_over_every_order():
    """NumPy's own float32 sum, read at its exact binary value: 2**24 + 1 rounds back to
    2**24 (ties to even), so the order of the records decides the result."""
    import numpy as np

    def np_sum(xs):
        return Fraction(float(np.sum(np.array([float(v) for v in xs], dtype=np.float32))))

    q = make_query("numpy float32 sum", np_sum)
    space = Sequences(ExactSet([1, 2**24]), size=3)
    assert q(F(2**24, 1, 1)) == 2**24 and q(F(1, 1, 2**24)) == 2**24 + 2
    r = graph_sensitivity(q, space, "hamming")
    assert r.value == 2**24 and graph_sensitivity("sum", space, "hamming").value == 2**24 - 1
    assert (r.witness.x, r.witness.x_prime) == (F(1, 2**24, 1), F(1, 2**24, 2**24))
