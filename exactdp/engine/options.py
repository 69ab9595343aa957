"""The front doors' keyword options as one frozen record (issue 26).

``sensitivity``, ``sensitivity_curve``, ``verify_claim`` and the graph front doors keep
their keyword signatures for users; each builds one :class:`Options` from them and hands
it down to the engine chosen (:mod:`.door`), which reads what it needs: the multiset
engine all of it, the edit graph everything but ``workers`` and ``cluster`` (one process).
"""

from __future__ import annotations

from dataclasses import dataclass

from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS

__all__ = ["Options"]


@dataclass(frozen=True)
class Options:
    """How to enumerate: the pair relation's exactness, the scope, the policy where the
    query is undefined, the budgets, the progress line and the backend."""

    exact_k: bool = False
    scope: str = "standard"
    undefined: object = "error"
    max_pairs: int | None = DEFAULT_MAX_PAIRS
    max_datasets: int | None = DEFAULT_MAX_DATASETS
    progress: bool | None = None
    workers: int = 1
    cluster: object = None
