"""The public glue for checking a library's own code with exactdp: its functions as
queries, its numbers read exactly, and sensitivities of any query over any space.

>>> from exactdp import Multisets, IntegerRange
>>> from exactdp.glue import library_query, library_number
>>> q = library_query("builtin sum of floats", lambda xs: sum(xs))   # a library's own sum
>>> verify_claim(1, q, Multisets(IntegerRange(0, 1), sizes=(0, 3))).verdict.value
'holds-tight'
>>> library_number(0.1)   # a float a library returns, at its exact binary value
Fraction(3602879701896397, 36028797018963968)

* :func:`library_query`: a function of the library (it gets the dataset as a list of
  floats, or ``as_type``) as a :class:`~exactdp.queries.base.Query`; its result is read
  exactly with :func:`library_number`.
* :func:`user_query`: a Python function of a sorted tuple of exact values (``Fraction``)
  as a query; a float result is refused.
* :func:`library_number`: the one reader of the numbers libraries return or store (a
  float at its exact binary value; ``infinite=True`` keeps ``math.inf``).
* :func:`graph_sensitivity`: the exact sensitivity of a query over sequences, privacy
  units or multisets under any relation (:mod:`exactdp.checkers.graph`).
* :func:`verify_claim`, :func:`sensitivity`: the multiset front doors, re-exported here so
  that one import serves a short audit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from exactdp.checkers.graph import graph_sensitivity
from exactdp.checkers.sensitivity import sensitivity, verify_claim
from exactdp.numeric.exact import library_number
from exactdp.queries.base import Query
from exactdp.queries.builtin import user_query

__all__ = ["library_query", "user_query", "library_number", "graph_sensitivity", "sensitivity", "verify_claim"]


def library_query(name: str, run: Callable[[list], Any], *, as_type: type = float) -> Query:
    """The library's own function as an exactdp :class:`~exactdp.queries.base.Query`, so
    that :func:`verify_claim` and :func:`sensitivity` can enumerate it.

    ``run(data)`` gets the dataset as a list of ``as_type`` values (the engine's sorted
    order: use it for order-independent statistics such as integer sums and counts; for a
    float sum whose order matters, use :func:`graph_sensitivity` over sequences) and returns
    what the library computed; the query's value is that, read by :func:`library_number`.
    """
    def prepare(values):
        vals = [as_type(v) for v in values]

        def evaluate(counts):
            return library_number(run([v for v, c in zip(vals, counts) for _ in range(c)]), name)

        return evaluate

    return Query(name, prepare)
