"""Seed 001's transformations on hand-made tables, and its worked values 8, 4, 6."""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.relational import (
    DropExcess, DropNonUnique, Row, flat_map, flat_map_stability, groupby_count, groupby_sum,
    l2_distance,
    make_table, max_groups_per_id, max_rows_per_group_per_id, max_rows_per_id, private_join,
    private_join_stability, public_join, public_join_stability,
)


def test_seed_worked_values_from_the_formula():
    # "2 * 2 * 1 + 2 * 2 * 1 = 8", "1 * 2 * 1 + 2 * 1 * 1 = 4", "1 * 2 * 1 + 2 * 2 * 1 = 6"
    assert private_join_stability(DropExcess(2), DropExcess(2), 1, 1) == 8
    assert private_join_stability(DropNonUnique(), DropExcess(2), 1, 1) == 4
    assert private_join_stability(DropExcess(1), DropExcess(2), 1, 1) == 6
    # the protected change of each table multiplies the *other* side's threshold
    assert private_join_stability(DropExcess(1), DropExcess(2), 2, 1) == 1 * 2 * 1 + 2 * 2 * 2


def test_flat_map_and_public_join_formulas():
    assert flat_map_stability(1, 3) == 3          # AddOneRow, max_rows=3 -> 3
    assert public_join_stability(1, 2) == 2       # Susie's ZIP code in two states


def test_drop_excess_keeps_the_smallest_rows_per_key():
    t = make_table([("a", 3), ("a", 1), ("a", 2), ("b", 5)])
    assert DropExcess(2).apply(t) == make_table([("a", 1), ("a", 2), ("b", 5)])
    assert DropExcess(1).apply(t) == make_table([("a", 1), ("b", 5)])


def test_drop_non_unique_drops_repeated_keys_entirely():
    t = make_table([("a", 1), ("a", 1), ("b", 2), ("c", 3), ("c", 4)])
    assert DropNonUnique().apply(t) == make_table([("b", 2)])


def test_private_join_of_the_seed_shape():
    users = make_table([("u1", "Ann"), ("u2", "Bob")])
    purchases = make_table([("u1", "p1"), ("u1", "p2"), ("u1", "p3"), ("u2", "p4")])
    out = private_join(users, purchases, DropNonUnique(), DropExcess(2))
    assert out == (("u1", "Ann", "p1"), ("u1", "Ann", "p2"), ("u2", "Bob", "p4"))


def test_public_join_one_row_per_match():
    out = public_join([("37752", "Susie")], [("37752", "TN"), ("37752", "KY"), ("1", "NC")])
    assert out == (("37752", "Susie", "KY"), ("37752", "Susie", "TN"))


def test_flat_map_concatenates_images():
    genres = {1: ("drama",), 2: ("drama", "comedy", "horror")}
    out = flat_map([("m", 1), ("m", 2)], lambda r: genres[r.value], max_rows=3)
    assert out == ("comedy", "drama", "drama", "horror")


def test_per_id_constraints():
    rows = [Row("a", 1, 7), Row("a", 2, 7), Row("a", 3, 7), Row("b", 1, 7), Row("c", 1, 7),
            Row("a", 1, 8)]
    assert groupby_count(max_rows_per_id(rows, 2), ("a", "b", "c")) == (3, 0, 0)
    g = max_groups_per_id(rows, 2)                    # id 7 keeps groups a, b
    assert groupby_count(g, ("a", "b", "c")) == (4, 1, 0)
    assert groupby_count(max_rows_per_group_per_id(g, 2), ("a", "b", "c")) == (3, 1, 0)
    assert l2_distance((0, 0, 0), (2, 2, 2)) == 2 * sympy.sqrt(3)


def test_groupby_sum_clamps_exactly():
    rows = [("a", 5), ("a", -4), ("b", 1), ("c", 9)]
    assert groupby_sum(rows, ("a", "b"), "-1/2", 3) == (Fraction(5, 2), Fraction(1))
    assert l2_distance((0, 0), groupby_sum(rows, ("a", "b"), -2, 3)) == sympy.sqrt(2)
