"""Hypothesis strategies for exactdp: datasets, neighbouring pairs, float records.

Needs Hypothesis (the ``hypothesis`` extra: ``pip install exactdp[hypothesis]``); the
rest of exactdp never imports this package.

>>> from exactdp import Multisets, IntegerRange, SymmetricDistance
>>> from exactdp.strategies import neighbouring_pairs
>>> pairs = neighbouring_pairs(Multisets(IntegerRange(0, 10**6), sizes=(0, 10**4)),
...                            SymmetricDistance(), d_in=1)
"""

from exactdp.strategies._impl import datasets, float_records, neighbouring_pairs

__all__ = ["datasets", "float_records", "neighbouring_pairs"]
