"""The plan: space, relation, ``d_in``, query, scope and budgets, chosen once.

:func:`make_plan` validates the arguments and checks every budget from counts alone
(no dataset is built before a refusal could happen); :func:`compute` then runs the plan
for one ``d_in`` on a backend (:mod:`.backends`) and returns an :class:`Answer`: the
exact value, the witness pair with its public values, and the counts. The front doors in
:mod:`exactdp.checkers` turn an answer into a verdict; nothing here imports them.

Two scopes, both explicit: ``"standard"`` (both datasets of a pair lie in the space) and
``"release-centred"`` (``x`` in the space, ``x'`` any neighbour over the same universe).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from exactdp._budget import check_budget, refuse_above, show_count
from exactdp._progress import Progress
from exactdp.engine import backends
from exactdp.engine import neighbours as nb
from exactdp.engine import scan as sc
from exactdp.engine import tables
from exactdp.errors import InvalidArgument
from exactdp.queries.base import Query, sqrt_value
from exactdp.queries.builtin import as_query
from exactdp.spaces.datasets import DatasetSpace, as_space
from exactdp.spaces.metrics import Metric, as_metric, check_d_in, check_flag
from exactdp.engine import cluster as _cluster, wide as _wide
from exactdp.engine.options import Options

__all__ = ["Plan", "Answer", "make_plan", "plan_with", "compute", "final_value", "ambient_space",
           "curve_on_cluster",
           "check_scope", "check_workers", "cores", "STANDARD", "RELEASE_CENTRED", "SCOPES",
           "WORKERS_PER_CORE"]

STANDARD = "standard"
RELEASE_CENTRED = "release-centred"
SCOPES = (STANDARD, RELEASE_CENTRED)

WORKERS_PER_CORE = 4
"""Most processes ``workers`` may start per core this process may use: each is a forked
interpreter (or a Dask worker), and beyond the cores they only share them."""


def cores() -> int:
    """The cores this process may use (the CLI's default ``--workers``)."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def check_workers(workers: object) -> int:
    """``workers`` as a whole number >= 1 and at most :data:`WORKERS_PER_CORE` per core, or
    one line saying what to pass (refused before any process starts)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(
            f"workers={workers!r} is not a number of processes; pass a whole number >= 1 "
            f"(1: no pool)"
        )
    n = cores()
    refuse_above(workers, WORKERS_PER_CORE * n, what="worker processes", option=None,
                 hint=f"pass workers (--workers) of at most {WORKERS_PER_CORE} per core "
                      f"({n} here); the answer does not depend on it")
    return workers


def check_scope(scope: str) -> str:
    aliases = {"release-centered": RELEASE_CENTRED, "release_centred": RELEASE_CENTRED}
    scope = aliases.get(scope, scope)
    if scope not in SCOPES:
        raise InvalidArgument(
            f"scope={scope!r} is not a scope; use 'standard' (both datasets in the space) or "
            f"'release-centred' (x in the space, x' any neighbour)"
        )
    return scope


def ambient_space(space: DatasetSpace, metric: Metric, d_max: int, scope: str) -> DatasetSpace:
    """The datasets a pair may use: the space, or (release-centred) the space widened in size."""
    if scope == STANDARD:
        return space
    shift = metric.size_shift(d_max)
    if shift == 0:
        return space
    return space.with_sizes(max(0, space.min_size - shift), space.max_size + shift)


@dataclass
class Plan:
    """Everything decided before any dataset is built (the multiset engine's plan:
    ``engine`` names it for :func:`exactdp.engine.door.compute`)."""

    engine: ClassVar[str] = "multiset"

    query: Query
    space: DatasetSpace
    metric: Metric
    scope: str
    policy: Any
    exact_k: bool
    table: tables.Table | None  # built by make_plan(build=True), else None
    plans: dict  # d_in -> NeighbourPlan, or None when no pair can exist at that d_in
    effective: dict  # d_in -> the d_in actually enumerated (a smaller one relates the same pairs)
    ambient: DatasetSpace | None = None
    d_max: int = 0
    local_at: tuple | None = None

    def build_table(self, progress) -> tables.Table:
        if self.table is None:
            bar = Progress(f"{self.query.name}", self.ambient.count(), progress)
            try:
                self.table = tables.make_table(self.query, self.space, self.ambient, self.d_max,
                                               self.policy, bar)
            finally:
                bar.close()
        return self.table


def _effective_d_in(space: DatasetSpace, metric: Metric, d_in: int, exact_k: bool, scope: str) -> int:
    """The smallest ``d_in`` relating the same pairs: every two datasets of the space are
    within the metric's diameter (only in the standard scope, where both lie in the space)."""
    if scope != STANDARD or exact_k:
        return d_in
    return min(d_in, metric.diameter(space.max_size))


def make_plan(query, space, metric, d_list, scope, undefined, max_datasets, max_pairs, exact_k,
              progress, local_at=None, build: bool = True, wide: bool = True) -> Plan:
    """Validate, then check every budget from counts alone, then (``build``) build the
    value table. ``local_at``: the sorted value indices of the one ``x`` of a local
    sensitivity. ``build=False``: no table (partitioned backends build slices of it)."""
    query = as_query(query)
    space = as_space(space)
    metric = as_metric(metric)
    scope = check_scope(scope)
    exact_k = check_flag(exact_k, "exact_k")
    max_datasets = check_budget(max_datasets, "max_datasets")
    max_pairs = check_budget(max_pairs, "max_pairs")
    d_list = [check_d_in(d) for d in d_list]
    if exact_k and 0 in d_list:
        raise InvalidArgument("d_in=0 with exact_k=True has no pairs; use d_in >= 1")
    policy = sc.validate_policy(undefined)
    if query.output == "vector" and policy not in ("error", "exclude"):
        raise InvalidArgument(
            f"undefined={undefined!r}: a stated value is for scalar queries; use 'exclude'"
        )
    if query.output == "sqrt" and isinstance(policy, Fraction) and policy < 0:
        raise InvalidArgument(f"undefined={undefined!r} is negative; a standard deviation is >= 0")
    effective = {d: _effective_d_in(space, metric, d, exact_k, scope) for d in d_list}
    d_max = max(effective.values())
    ambient = ambient_space(space, metric, d_max, scope)
    cap = max_datasets if max_datasets is not None else 10**30
    n_table = ambient.count_capped(cap)
    refuse_above(
        n_table, max_datasets, what=f"datasets in {ambient.describe()}", option="max_datasets",
        hint=f"shrink the universe ({show_count(space.universe.size)} values) or the sizes "
             f"({space.sizes_text()})",
    )
    if local_at is not None:
        n_sources, by_size = 1, {len(local_at): 1}
    else:
        n_sources = n_table if ambient is space else space.count_capped(cap)
        by_size = None
        if space.universe.size > tables.DENSE_MAX_VALUES:
            by_size = {n: space.count_of_size(n) for n in range(space.min_size, space.max_size + 1)}
    if local_at is None and scope == STANDARD:
        sc.refuse_undefined_sizes(query, space, policy)
    what = f"{query.name} on {space.describe()}"
    plans = {}
    for d in d_list:
        e = effective[d]
        if exact_k and scope == STANDARD and e > metric.diameter(space.max_size):
            plans[d] = None  # exactly e apart: farther than any two datasets of the space
            continue
        def listed(e=e):
            return nb.plan_neighbours(space, ambient, metric, e, exact_k, n_sources,
                                      n_table, max_pairs, what, by_size)

        if wide and local_at is None:  # the cheapest strategy that fits (issue 19, part 3)

            plans[d] = _wide.choose(query, space, ambient, metric, e, exact_k, scope, policy,
                                   max_pairs, what, listed)
        else:
            plans[d] = listed()
    plan = Plan(query, space, metric, scope, policy, exact_k, None, plans, effective, ambient,
                d_max, None if local_at is None else tuple(local_at))
    if build and any(p is not None and p.kind != "wide" for p in plans.values()):
        plan.build_table(progress)  # the wide strategy needs no table
    return plan


def plan_with(query, space, metric, d_list, options: Options, *, local_at=None,
              build: bool = False, wide: bool = True) -> Plan:
    """:func:`make_plan` with the front doors' :class:`~.options.Options` record
    (``workers`` and ``cluster`` are the backend's, read by :func:`compute`)."""
    return make_plan(query, space, metric, list(d_list), options.scope, options.undefined,
                     options.max_datasets, options.max_pairs, options.exact_k, options.progress,
                     local_at=local_at, build=build, wide=wide)


def final_value(query: Query, raw: sc.RawResult, scale: int):
    """The exact sensitivity from a raw result in integer units over ``scale``."""
    if query.output == "scalar":
        return Fraction(raw.best, scale)
    from exactdp.numeric.decide import to_fraction_if_rational, to_sympy  # SymPy: only here  # lazy: loads SymPy, which this module does not import at load

    if query.output == "sqrt":
        a, b = raw.best
        return to_fraction_if_rational(
            to_sympy(sqrt_value(Fraction(a, scale))) - to_sympy(sqrt_value(Fraction(b, scale)))
        )
    if query.norm == "L2":
        return to_fraction_if_rational(to_sympy(sqrt_value(Fraction(raw.best, scale * scale))))
    return Fraction(raw.best, scale)


@dataclass(frozen=True)
class Answer:
    """What the engine found for one ``d_in``; the front doors make a verdict of it."""

    value: Any
    witness: tuple | None  # (x, x', f(x), f(x')): sorted values and public query values
    pairs: int
    excluded: int
    d_in_effective: int
    local_at: tuple | None = None  # the sorted values of x, for a local sensitivity


def compute(plan: Plan, d_in: int, progress, workers: int = 1, cluster: object = None,
            per_worker: int | None = None) -> Answer:
    """Run ``plan`` at ``d_in``: one partition in this process (``workers=1``), partitions
    on a process pool (``workers > 1``) or on a Dask client (``cluster``); the same answer
    and witness on each (see :mod:`.backends`)."""
    neighbours_plan = plan.plans[d_in]
    d_eff = plan.effective[d_in]
    kind = plan.query.output
    if neighbours_plan is None:
        raw = sc.RawResult((0, 0) if kind == "sqrt" else 0, None, None, 0, 0)
        witness, scale, local = None, 1, None
        if plan.local_at is not None:
            table = plan.build_table(progress)
            local = table.dataset(table.key_of_indices(plan.local_at))
    else:
        raw, witness, scale, local = backends.run(plan, d_in, progress, workers, cluster,
                                                  per_worker)
    value = final_value(plan.query, raw, scale)
    return Answer(value, witness, raw.pairs, raw.excluded, d_eff, local)


def _scaled(budget: int | None, workers: int) -> int | None:
    return None if budget is None else budget * workers


def curve_on_cluster(query, space, metric, d_list, options: Options) -> tuple:
    """``(plan, answers)``: the answers for each ``d_in`` of ``d_list`` on a Dask cluster
    (``options.cluster``, with ``options.workers``; see :mod:`.cluster`).

    ``max_datasets`` and ``max_pairs`` are per worker: the space may hold ``max_datasets *
    workers`` datasets and ``max_pairs * workers`` candidate pairs, and each partition's
    slice at most ``max_datasets``. The budgets are checked before a cluster starts.
    """
    max_datasets = check_budget(options.max_datasets, "max_datasets")
    max_pairs = check_budget(options.max_pairs, "max_pairs")
    cluster, workers, progress = options.cluster, options.workers, options.progress

    def planned(n: int, quiet) -> Plan:
        return make_plan(query, space, metric, d_list, options.scope, options.undefined,
                         _scaled(max_datasets, n), _scaled(max_pairs, n), options.exact_k, quiet,
                         build=False)

    if cluster == "local":  # the budgets first: a refusal starts no cluster
        _cluster.distributed_module()
        planned(workers, False)
    with _cluster.open_client(cluster, workers) as client:
        n = workers if cluster == "local" else _cluster.worker_count(client)
        plan = planned(n, progress)
        return plan, tuple(compute(plan, d, progress, n, client, max_datasets) for d in d_list)
