"""One table of bad arguments for exactdp.relational: each error names the value."""

from __future__ import annotations

import pytest

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.relational import (
    AddMaxRows, AddRowsWithID, DropExcess, DropNonUnique, TableDomain, flat_map, groupby_sum,
    id_worst_case, make_table, max_rows_per_id, private_join_stability,
    private_join_worst_case, worst_case,
)
from exactdp.relational.entries import id_sum_truth, private_join_truth

D = TableDomain(keys=("a",), values=(1, 2), rows_per_key=2)

BAD = [
    (lambda: TableDomain(keys=()), InvalidArgument, "keys=() is empty"),
    (lambda: TableDomain(keys="ab", rows_per_key=1), InvalidArgument, "keys='ab' is not a sequence"),
    (lambda: TableDomain(keys=("a", "a"), rows_per_key=1), InvalidArgument, "repeats"),
    (lambda: TableDomain(keys=("a",)), InvalidArgument, "give exactly one of them"),
    (lambda: TableDomain(keys=("a",), rows_per_key=1, rows_per_id=1, ids=(1,)),
     InvalidArgument, "give exactly one of them"),
    (lambda: TableDomain(keys=("a",), rows_per_key=-1), InvalidArgument, "rows_per_key=-1 is negative"),
    (lambda: TableDomain(keys=("a",), rows_per_key=1.0), InvalidArgument, "rows_per_key=1.0 is not an int"),
    (lambda: TableDomain(keys=("a",), rows_per_id=2), InvalidArgument, "needs real privacy ids"),
    (lambda: list(TableDomain(keys=tuple("abcdef"), values=(1, 2, 3), rows_per_key=4).tables()),
     TooLarge, "over max_tables=100,000"),
    (lambda: make_table(["a"]), InvalidArgument, "row='a' is not a Row"),
    (lambda: AddMaxRows(0), InvalidArgument, "max_rows=0 is not positive"),
    (lambda: AddMaxRows(True), InvalidArgument, "max_rows=True is not an int"),
    (lambda: list(AddRowsWithID().neighbours((), D)), InvalidArgument, "needs privacy ids"),
    (lambda: DropExcess(0), InvalidArgument, "max_rows=0 is not positive"),
    (lambda: max_rows_per_id([], 0), InvalidArgument, "max_rows=0 is not positive"),
    (lambda: flat_map([("a", 1)], lambda r: [1, 2, 3], max_rows=2), InvalidArgument,
     "gave 3 rows"),
    (lambda: private_join_stability(DropExcess(2), "drop", 1, 1), InvalidArgument,
     "right_truncation='drop' is not a truncation strategy"),
    (lambda: private_join_stability(DropExcess(2), DropNonUnique(), 0, 1), InvalidArgument,
     "m_left=0 is not positive"),
    (lambda: worst_case(DropExcess(1).apply, D, AddMaxRows(1), norm="linf"), InvalidArgument,
     "norm='linf'"),
    (lambda: worst_case(DropExcess(1).apply, TableDomain(keys=tuple("abcd"), values=(1, 2, 3),
                                                         rows_per_key=3), AddMaxRows(3)),
     TooLarge, "over max_pairs"),
    (lambda: private_join_worst_case(DropExcess(1), DropExcess(1), 1, 1,
                                     TableDomain(keys=("a",), rows_per_key=1, max_rows=1), D),
     InvalidArgument, "must cap rows per key and nothing else"),
    (lambda: private_join_worst_case(DropExcess(1), DropExcess(1), 1, 1, D,
                                     TableDomain(keys=("b",), rows_per_key=1)),
     InvalidArgument, "give the same keys"),
    (lambda: id_worst_case(lambda t: t, D, ("a",), "l1"), InvalidArgument, "must cap rows per id"),
    (lambda: private_join_truth({"T_l": 2, "S_l": 1, "M_l": 1, "T_r": 1, "S_r": 1, "M_r": 1,
                                 "K": 2, "V_l": 2, "V_r": 2, "R_l": 2, "R_r": 2}),
     InvalidArgument, "threshold=2 and stability=1"),
    (lambda: private_join_truth({"T_l": 1}), InvalidArgument, "parameter S_l=None"),
    (lambda: groupby_sum([("a", 1)], ("a",), 0.5, 2), InexactInput, "lower=0.5 is a float"),
    (lambda: groupby_sum([("a", 1)], ("a",), 2, 1), InvalidArgument, "upper=1 < lower=2"),
    (lambda: id_sum_truth({"r": 1, "L": 2, "U": 1}), InvalidArgument, "L=2, U=1"),
]


@pytest.mark.parametrize("call, error, fragment", BAD)
def test_bad_argument(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)
