"""Tumult's relational sensitivity rules (seed 001) on tiny tables, enumerated exactly.

- :mod:`~exactdp.relational.tables`: rows ``(key, value, pid)``, tables, finite table domains;
- :mod:`~exactdp.relational.changes`: protected changes AddOneRow, AddMaxRows(n), AddRowsWithID;
- :mod:`~exactdp.relational.transforms`: flat map, public join, truncations, private join
  (and the id-keeping joins of AddRowsWithID),
  per-id constraints, group-by count, and the stabilities seed 001 states;
- :mod:`~exactdp.relational.worst`: exact worst cases with the pair of tables attaining them;
- :mod:`~exactdp.relational.entries`: the catalogue entries.
"""

from exactdp.relational.changes import AddMaxRows, AddOneRow, AddRowsWithID, ProtectedChange
from exactdp.relational.tables import Row, TableDomain, format_table, make_table, symmetric_difference
from exactdp.relational.transforms import (
    DropExcess, DropNonUnique, flat_map, flat_map_stability, groupby_count, groupby_sum,
    l1_distance,
    l2_distance, max_groups_per_id, max_rows_per_group_per_id, max_rows_per_id, private_join,
    private_join_on_id, private_join_stability, public_join, public_join_by_id,
    public_join_stability,
)
from exactdp.relational.worst import (
    ChangeKept, TablePair, WorstCase, id_change_kept, id_worst_case, keyed_worst_case, neighbour_pairs,
    private_join_worst_case, truncation_worst_case, worst_case,
)

__all__ = [
    "AddMaxRows", "AddOneRow", "AddRowsWithID", "ProtectedChange",
    "Row", "TableDomain", "format_table", "make_table", "symmetric_difference",
    "DropExcess", "DropNonUnique", "flat_map", "flat_map_stability", "groupby_count", "groupby_sum",
    "l1_distance", "l2_distance", "max_groups_per_id", "max_rows_per_group_per_id",
    "max_rows_per_id", "private_join", "private_join_on_id", "private_join_stability",
    "public_join", "public_join_by_id", "public_join_stability",
    "ChangeKept", "TablePair", "WorstCase", "id_change_kept", "id_worst_case", "keyed_worst_case", "neighbour_pairs",
    "private_join_worst_case",
    "truncation_worst_case", "worst_case",
]
