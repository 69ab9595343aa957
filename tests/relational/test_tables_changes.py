"""Enumeration of tiny tables and of neighbours, cross-checked against hand counts."""

from __future__ import annotations

import pytest

from exactdp.relational import (
    AddMaxRows, AddOneRow, AddRowsWithID, Row, TableDomain, format_table, make_table,
    symmetric_difference,
)

ONE_KEY = TableDomain(keys=("a",), values=(1, 2), rows_per_key=2)


def fmt(tables):
    return sorted(format_table(t) for t in tables)


def test_one_key_domain_lists_the_six_tables_by_hand():
    # {}, {1}, {2}, {1,1}, {1,2}, {2,2}
    assert ONE_KEY.count() == 6
    assert fmt(ONE_KEY.tables()) == ['{(a,1), (a,1)}', '{(a,1), (a,2)}', '{(a,1)}',
                                     '{(a,2), (a,2)}', '{(a,2)}', '{}']


@pytest.mark.parametrize("domain, expected", [
    (TableDomain(keys=("a", "b"), values=(None,), rows_per_key=1), 4),       # 2 x 2
    (TableDomain(keys=("a", "b"), values=(None,), rows_per_key=1, max_rows=1), 3),
    (TableDomain(keys=("a", "b"), values=(1, 2), rows_per_key=3), 100),      # 10 per key
    (TableDomain(keys=("a",), ids=(1, 2), rows_per_id=1), 4),               # each id: 0 or 1 row
    (TableDomain(keys=("a", "b"), ids=(1,), rows_per_id=2), 6),             # {}, a, b, aa, ab, bb
    (TableDomain(keys=("a", "b"), values=(1, 2), rows_per_key=2, max_rows=2), 1 + 4 + 10),
])
def test_count_matches_hand_count_and_enumeration(domain, expected):
    tables = list(domain.tables())
    assert domain.count() == expected == len(tables) == len(set(tables))
    assert all(t in domain for t in tables)


def test_add_one_row_neighbours_by_hand():
    # {}: +1, +2; {1}: -1, +1, +2; {2}: same; {1,1}: -1; {1,2}: -1, -2; {2,2}: -2
    per_table = {format_table(x): len(list(AddOneRow().neighbours(x, ONE_KEY)))
                 for x in ONE_KEY.tables()}
    assert per_table == {'{}': 2, '{(a,1)}': 3, '{(a,2)}': 3, '{(a,1), (a,1)}': 1,
                         '{(a,1), (a,2)}': 2, '{(a,2), (a,2)}': 1}


def test_add_max_rows_two_neighbours_by_hand():
    x = make_table([("a", 1)])
    # remove 1; add 1; add 2; remove 1 and add 2 (a substitution is distance 2)
    assert fmt(AddMaxRows(2).neighbours(x, ONE_KEY)) == ['{(a,1), (a,1)}', '{(a,1), (a,2)}',
                                                          '{(a,2)}', '{}']
    assert len(list(AddMaxRows(2).neighbours((), ONE_KEY))) == 5


def test_add_one_row_is_add_max_rows_one():
    for x in ONE_KEY.tables():
        assert set(AddOneRow().neighbours(x, ONE_KEY)) == set(AddMaxRows(1).neighbours(x, ONE_KEY))
    assert AddOneRow().max_rows == 1


def test_neighbours_agree_with_related_on_every_pair():
    for change in (AddOneRow(), AddMaxRows(2)):
        tables = list(ONE_KEY.tables())
        for x in tables:
            listed = set(change.neighbours(x, ONE_KEY))
            assert listed == {y for y in tables if change.related(x, y)}


def test_add_rows_with_id_neighbours_by_hand():
    d = TableDomain(keys=("a", "b"), ids=(1, 2), rows_per_id=1)
    x = make_table([Row("a", None, 1)])
    # remove id 1 -> {}; add id 2 with (a) or (b)
    assert fmt(AddRowsWithID().neighbours(x, d)) == ['{(a,id=1), (a,id=2)}',
                                                      '{(a,id=1), (b,id=2)}', '{}']
    tables = list(d.tables())
    for t in tables:
        assert set(AddRowsWithID().neighbours(t, d)) == \
            {y for y in tables if AddRowsWithID().related(t, y)}
    # changing one row of id 1 keeps the id: not AddRowsWithID-neighbours
    assert not AddRowsWithID().related(x, make_table([Row("b", None, 1)]))


def test_symmetric_difference_counts_multiplicity():
    assert symmetric_difference([1, 1, 2], [1, 3]) == 3
    assert symmetric_difference([], []) == 0
