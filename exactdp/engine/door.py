"""One door into the engine: the engine chosen once, from the space's kind (issue 26).

Two engines answer the same questions (the largest ``|f(x) - f(x')|`` over the pairs of a
space within ``d_in``, with its first pair):

* ``"multiset"``: count vectors (:mod:`.plan` and its backends: a pool, Dask);
* ``"edits"``: ordered and id datasets, sequences and privacy units (:mod:`.edits`: the
  edit graph, one process).

:func:`engine_for` is the one place that looks at the space's kind; a plan carries its
engine's name (``plan.engine``), so :func:`compute` dispatches on the plan, and the front
doors in :mod:`exactdp.checkers` pass an :class:`~.options.Options` record down and never
test a space's kind themselves. Queries are read by the one parser,
:func:`exactdp.queries.builtin.as_query`, in both engines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from exactdp.engine import edits
from exactdp.engine import plan as _plan
from exactdp.engine.options import Options
from exactdp.queries.builtin import as_query

__all__ = ["Engine", "Options", "engine_for", "make_plan", "compute", "curve", "ENGINES"]


@dataclass(frozen=True)
class Engine:
    """One engine's entries, with the same arguments for both engines.

    ``read_query(query)``: the query as this engine compares it (before any budget);
    ``plan(query, space, relation, d_list, options)``; ``compute(plan, d_in, options)``:
    the answer at one ``d_in``; ``on_cluster(query, space, relation, d_list, options)``:
    ``(plan, answers)`` on Dask; ``pool``: whether ``workers`` is read."""

    name: str
    read_query: Callable[[object], Any]
    plan: Callable[..., Any]
    compute: Callable[..., Any]
    on_cluster: Callable[..., tuple]
    pool: bool


def _multiset_plan(query, space, metric, d_list, o: Options) -> _plan.Plan:
    return _plan.plan_with(query, space, metric, d_list, o)


def _multiset_compute(plan: _plan.Plan, d_in: int, o: Options) -> _plan.Answer:
    return _plan.compute(plan, d_in, o.progress, o.workers)


MULTISET = Engine("multiset", as_query, _multiset_plan, _multiset_compute, _plan.curve_on_cluster,
                  pool=True)
"""Multisets (count vectors): :mod:`exactdp.engine.plan` and its backends."""

EDITS = Engine("edits", edits.read_query, edits.make_plan, edits.compute, edits.curve_on_cluster,
               pool=False)
"""Ordered and id datasets (sequences, privacy units): the edit graph, :mod:`exactdp.engine.edits`."""

ENGINES = {e.name: e for e in (MULTISET, EDITS)}
"""The engines by name: a plan's ``engine`` attribute names its own."""


def engine_for(space: object) -> Engine:
    """The engine for ``space``, chosen here once from its kind."""
    return EDITS if edits.is_edit_space(space) else MULTISET


def make_plan(query: object, space: object, relation: object, d_list, options: Options) -> Any:
    """The plan of the engine for ``space`` (a :class:`~.plan.Plan` or an
    :class:`~.edits.EditPlan`; ``plan.engine`` names it), checked before any dataset is built."""
    return engine_for(space).plan(query, space, relation, d_list, options)


def compute(plan: Any, d_in: int, options: Options) -> Any:
    """The answer of ``plan``'s engine at ``d_in``."""
    return ENGINES[plan.engine].compute(plan, d_in, options)


def curve(query: object, space: object, relation: object, d_list, options: Options) -> tuple:
    """``(plan, answers)``: the answer at each ``d_in`` of ``d_list`` from one plan (on Dask
    when ``options.cluster`` is set: the multiset engine only)."""
    engine = engine_for(space)
    if options.cluster is not None:
        return engine.on_cluster(query, space, relation, d_list, options)
    plan = engine.plan(query, space, relation, d_list, options)
    return plan, tuple(engine.compute(plan, d, options) for d in d_list)
