"""Value universes, dataset spaces and neighbour relations."""

from exactdp.spaces.datasets import DatasetSpace, Multisets, SubMultisets
from exactdp.spaces.metrics import ChangeDistance, Metric, SymmetricDistance
from exactdp.spaces.sequences import HammingDistance, InsertDeleteDistance, Sequences
from exactdp.spaces.units import (
    AddRemoveID, MaxGroupsPerID, MaxRowsPerGroupPerID, MaxRowsPerID, Units,
)
from exactdp.spaces.universe import ExactSet, IntegerRange, ValueUniverse

__all__ = [
    "DatasetSpace", "Multisets", "SubMultisets",
    "ChangeDistance", "Metric", "SymmetricDistance",
    "ExactSet", "IntegerRange", "ValueUniverse",
    "HammingDistance", "InsertDeleteDistance", "Sequences",
    "AddRemoveID", "MaxGroupsPerID", "MaxRowsPerGroupPerID", "MaxRowsPerID", "Units",
]
