"""Exact sensitivity by exhaustive enumeration, and claim verification.

* :func:`sensitivity`: global sensitivity ``max |f(x) - f(x')|`` over every
  neighbouring pair of a space, with the pair that attains it;
* :func:`local_sensitivity`: the same maximum with ``x`` fixed;
* :func:`sensitivity_curve`: sensitivity as a function of ``d_in``;
* :func:`verify_claim`: compare a claimed sensitivity (a number, or a formula in
  ``L``, ``U``, ``N``, ``d_in``, ``k``) with the exact one: VIOLATED, HOLDS (tight) or
  HOLDS with slack, always with the scope that was examined.

Two scopes, both explicit:

* ``"standard"``: both datasets of a pair lie in the space (the DP definition on a
  restricted domain);
* ``"release-centred"``: ``x`` ranges over the space and ``x'`` is any neighbour of
  ``x`` over the same universe (for a pool: any sub-multiset of the pool), whatever
  its size; seed 003's setting, where a release of size ``n`` is compared with
  neighbours of size ``n +- k``.

>>> from exactdp import Multisets, IntegerRange, SymmetricDistance
>>> from exactdp.queries import sum_
>>> r = sensitivity(sum_, Multisets(IntegerRange(2, 5), sizes=(0, 3)), SymmetricDistance())
>>> r.value
Fraction(5, 1)
>>> verify_claim("U - L", sum_, Multisets(IntegerRange(2, 5), sizes=(0, 3))).verdict
<Verdict.VIOLATED: 'violated'>
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import Any, Iterable, Sequence


from exactdp._budget import (
    DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, MAX_D_IN_ROWS, check_budget, refuse_above, show_count,
)
from exactdp._progress import Progress
from exactdp.checkers import _engine
from exactdp.checkers.results import ClaimResult, Scope, SensitivityResult, Verdict, Witness, format_value
from exactdp.errors import ClaimViolated, InvalidArgument, Undecided
from exactdp.numeric.exact import format_dataset, to_exact
from exactdp.queries.base import Query, sqrt_value
from exactdp.queries.builtin import parse_query
from exactdp.spaces.datasets import DatasetSpace, as_space
from exactdp.spaces.metrics import Metric, as_metric, check_d_in, check_flag
from exactdp.spaces.sequences import Sequences
from exactdp.spaces.units import Units

__all__ = [
    "sensitivity", "local_sensitivity", "sensitivity_curve", "verify_claim",
    "assert_claim", "bind_claim", "judge", "claim_parameters", "SensitivityCurve", "check_plot_target",
    "DEFAULT_MAX_PAIRS",
    "DEFAULT_MAX_DATASETS", "SCOPES",
]


SCOPES = (_engine.STANDARD, _engine.RELEASE_CENTRED)


# -- argument handling ---------------------------------------------------------------

def _query(query: Query | str) -> Query:
    if isinstance(query, Query):
        return query
    if isinstance(query, str):
        return parse_query(query)
    raise InvalidArgument(
        f"query={query!r} is not a Query; pass one from exactdp.queries or a name such as 'mean'"
    )


def _scope(scope: str) -> str:
    aliases = {"release-centered": _engine.RELEASE_CENTRED, "release_centred": _engine.RELEASE_CENTRED}
    scope = aliases.get(scope, scope)
    if scope not in SCOPES:
        raise InvalidArgument(
            f"scope={scope!r} is not a scope; use 'standard' (both datasets in the space) or "
            f"'release-centred' (x in the space, x' any neighbour)"
        )
    return scope


def _ambient(space: DatasetSpace, metric: Metric, d_max: int, scope: str) -> DatasetSpace:
    if scope == _engine.STANDARD:
        return space
    shift = metric.size_shift(d_max)
    if shift == 0:
        return space
    return space.with_sizes(max(0, space.min_size - shift), space.max_size + shift)


@dataclass
class _Setup:
    query: Query
    space: DatasetSpace
    metric: Metric
    scope: str
    policy: Any
    exact_k: bool
    table: _engine.Table
    plans: dict  # d_in -> NeighbourPlan, or None when no pair can exist at that d_in
    effective: dict  # d_in -> the d_in actually enumerated (a smaller one relates the same pairs)


def _effective_d_in(space: DatasetSpace, metric: Metric, d_in: int, exact_k: bool, scope: str) -> int:
    """The smallest ``d_in`` relating the same pairs: every two datasets of the space are
    within the metric's diameter (only in the standard scope, where both lie in the space)."""
    if scope != _engine.STANDARD or exact_k:
        return d_in
    return min(d_in, metric.diameter(space.max_size))


def _setup(query, space, metric, d_list, scope, undefined, max_datasets, max_pairs, exact_k,
           progress, local_at=None, build: bool = True) -> _Setup:
    """Validate, then check every budget from counts alone, then build the value table.

    ``local_at``: the sorted value indices of the one ``x`` of a local sensitivity.
    ``build=False``: no table (the Dask engine builds slices of it on its workers).
    """
    query = _query(query)
    space = as_space(space)
    metric = as_metric(metric)
    scope = _scope(scope)
    exact_k = check_flag(exact_k, "exact_k")
    max_datasets = check_budget(max_datasets, "max_datasets")
    max_pairs = check_budget(max_pairs, "max_pairs")
    d_list = [check_d_in(d) for d in d_list]
    if exact_k and 0 in d_list:
        raise InvalidArgument("d_in=0 with exact_k=True has no pairs; use d_in >= 1")
    policy = _engine.validate_policy(undefined)
    if query.output == "vector" and policy not in ("error", "exclude"):
        raise InvalidArgument(
            f"undefined={undefined!r}: a stated value is for scalar queries; use 'exclude'"
        )
    if query.output == "sqrt" and isinstance(policy, Fraction) and policy < 0:
        raise InvalidArgument(f"undefined={undefined!r} is negative; a standard deviation is >= 0")
    effective = {d: _effective_d_in(space, metric, d, exact_k, scope) for d in d_list}
    d_max = max(effective.values())
    ambient = _ambient(space, metric, d_max, scope)
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
        if space.universe.size > _engine.DENSE_MAX_VALUES:
            by_size = {n: space.count_of_size(n) for n in range(space.min_size, space.max_size + 1)}
    if local_at is None and scope == _engine.STANDARD:
        _engine.refuse_undefined_sizes(query, space, policy)
    what = f"{query.name} on {space.describe()}"
    plans = {}
    for d in d_list:
        e = effective[d]
        if exact_k and scope == _engine.STANDARD and e > metric.diameter(space.max_size):
            plans[d] = None  # exactly e apart: farther than any two datasets of the space
            continue
        plans[d] = _engine.plan_neighbours(space, ambient, metric, e, exact_k, n_sources,
                                           n_table, max_pairs, what, by_size)
    if not build:
        return _Setup(query, space, metric, scope, policy, exact_k, None, plans, effective)
    bar = Progress(f"{query.name}", n_table, progress)
    try:
        table = _engine.make_table(query, space, ambient, d_max, policy, bar)
    finally:
        bar.close()
    return _Setup(query, space, metric, scope, policy, exact_k, table, plans, effective)


def _final_value(query: Query, raw: _engine.RawResult, scale: int):
    if query.output == "scalar":
        return Fraction(raw.best, scale)
    from exactdp.numeric.decide import to_fraction_if_rational, to_sympy  # SymPy: only here

    if query.output == "sqrt":
        a, b = raw.best
        return to_fraction_if_rational(
            to_sympy(sqrt_value(Fraction(a, scale))) - to_sympy(sqrt_value(Fraction(b, scale)))
        )
    if query.norm == "L2":
        return to_fraction_if_rational(to_sympy(sqrt_value(Fraction(raw.best, scale * scale))))
    return Fraction(raw.best, scale)


def _witness(setup: _Setup, raw: _engine.RawResult, value) -> Witness | None:
    if raw.x_key is None:
        return None
    table, query = setup.table, setup.query
    scale = table.scale

    def public(key):
        v = table.values[key]
        if query.output == "vector":
            return tuple(Fraction(c, scale) for c in v)
        return query.public_value(Fraction(v, scale))

    return Witness(table.dataset(raw.x_key), table.dataset(raw.x_prime_key), public(raw.x_key),
                   public(raw.x_prime_key), value)


def _compute(setup: _Setup, d_in: int, progress, local_at=None, workers: int = 1) -> SensitivityResult:
    table = setup.table
    plan = setup.plans[d_in]
    d_eff = setup.effective[d_in]
    if local_at is not None:
        sources = [table.key_of_indices(local_at)]
        halve = False
    else:
        sources = _engine.source_keys(table, setup.space)
        halve = setup.scope == _engine.STANDARD
    if plan is None:
        empty = (0, 0) if setup.query.output == "sqrt" else 0
        raw = _engine.RawResult(empty, None, None, 0, 0)
    else:
        neighbours = _engine.build_neighbours(plan, table, setup.metric, d_eff, setup.exact_k, halve)
        bar = Progress(f"{setup.query.name}, d_in={d_in}", len(sources), progress)
        try:
            raw = _engine.run(table, sources, neighbours, setup.policy, bar, workers=workers)
        finally:
            bar.close()
    value = _final_value(setup.query, raw, table.scale)
    scope = Scope(
        space=setup.space, metric=setup.metric, d_in=d_in, exact_k=setup.exact_k, scope=setup.scope,
        datasets=setup.space.count() if local_at is None else 1, pairs=raw.pairs,
        excluded=raw.excluded,
        local_at=None if local_at is None else table.dataset(table.key_of_indices(local_at)),
        d_in_effective=d_eff if d_eff != d_in else None,
    )
    return SensitivityResult(setup.query, value, _witness(setup, raw, value), scope)


# -- public API ----------------------------------------------------------------------

def sensitivity(
    query: Query | str,
    space: DatasetSpace,
    metric: Metric | str | None = None,
    d_in: int = 1,
    *,
    exact_k: bool = False,
    scope: str = "standard",
    undefined: object = "error",
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    max_datasets: int | None = DEFAULT_MAX_DATASETS,
    progress: bool | None = None,
    workers: int = 1,
    cluster: object = None,
) -> SensitivityResult:
    """Exact global sensitivity of ``query`` over ``space`` under ``metric`` at ``d_in``.

    ``undefined`` says what to do where the query is undefined (the mean of the empty
    dataset): ``"error"`` (default: raise, naming the dataset), ``"exclude"`` (leave
    those datasets out of every pair, i.e. impose the query's minimum size) or an exact
    number to use as the value there. ``max_pairs`` and ``max_datasets`` are budgets
    checked *before* enumerating (``None``: no limit); ``progress`` forces the stderr
    progress line on or off (default: on when stderr is a terminal). ``workers`` processes
    scan the pairs (a pool over parts of the table; the same answer and witness as
    ``workers=1``). ``cluster`` runs the scan on Dask instead (the ``dask`` extra):
    ``"local"`` (an embedded LocalCluster of ``workers`` processes), a scheduler address
    such as ``"tcp://host:8786"``, or a ``distributed.Client``; the budgets are then per
    worker (see :mod:`exactdp.checkers._dask`).
    """
    workers = _engine.check_workers(workers)
    if cluster is not None:
        return sensitivity_curve(query, space, metric, (d_in,), exact_k=exact_k, scope=scope,
                                 undefined=undefined, max_pairs=max_pairs,
                                 max_datasets=max_datasets, progress=progress, workers=workers,
                                 cluster=cluster).results[0]
    if isinstance(space, (Sequences, Units)):  # ordered or id datasets: the edit-graph engine
        from exactdp.checkers.graph import graph_sensitivity  # here: graph imports this module

        return graph_sensitivity(query, space, metric, d_in, exact_k=exact_k, scope=scope,
                                 undefined=undefined, max_pairs=max_pairs,
                                 max_datasets=max_datasets, progress=progress)
    setup = _setup(query, space, metric, [d_in], scope, undefined, max_datasets, max_pairs,
                   exact_k, progress)
    return _compute(setup, d_in, progress, workers=workers)


_LISTED_DATASET = 1000
"""A dataset given to :func:`local_sensitivity` is read up to this many values beyond the
space's largest size (so that a refusal can list it); a longer one is refused unread."""


def local_sensitivity(
    query: Query | str,
    dataset: Iterable[object],
    space: DatasetSpace,
    metric: Metric | str | None = None,
    d_in: int = 1,
    *,
    exact_k: bool = False,
    scope: str = "standard",
    undefined: object = "error",
    max_datasets: int | None = DEFAULT_MAX_DATASETS,
) -> SensitivityResult:
    """Largest ``|f(x) - f(x')|`` over the neighbours ``x'`` of the given ``x``.

    ``x`` must lie in ``space``; its neighbours are taken from the space (standard
    scope) or from every dataset over the universe (release-centred).
    """
    space = as_space(space)
    if isinstance(dataset, Iterable) and not isinstance(dataset, (str, bytes)):
        most = max(space.max_size, _LISTED_DATASET)  # read no further: 10**7 values took minutes
        dataset = list(islice(dataset, most + 1))
        if len(dataset) > most:
            raise InvalidArgument(
                f"dataset has more than {most:,} values; every dataset of {space.describe()} "
                f"has at most {space.max_size:,}: pick a dataset of the space"
            )
    indices = space.to_indices(dataset, "dataset")
    if not space.contains_indices(indices):
        shown = format_dataset(space.universe.value(i) for i in indices)
        raise InvalidArgument(
            f"dataset={shown} is not in {space.describe()}; pick a dataset of the space "
            f"(its size and multiplicities must fit)"
        )
    setup = _setup(query, space, metric, [d_in], scope, undefined, max_datasets, None,
                   exact_k, False, local_at=indices)
    return _compute(setup, d_in, False, local_at=indices)


@dataclass(frozen=True)
class SensitivityCurve:
    """Sensitivity as a function of ``d_in`` (seed 003's plots, as a table)."""

    results: tuple[SensitivityResult, ...]

    def table(self) -> str:
        head = self.results[0]
        lines = [f"{head.query.name} over {head.scope.space.describe()}",
                 f"{'d_in':>5}  {'sensitivity':<24} {'pairs':>12}  witness"]
        for r in self.results:
            witness = r.witness if r.witness is not None else "(no pair: nothing checked)"
            lines.append(f"{r.scope.d_in:>5}  {format_value(r.value):<24} {r.scope.pairs:>12,}  {witness}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> list[dict]:
        return [r.to_dict() for r in self.results]

    def plot(self, path: str) -> str:
        """Write a PNG (or PDF, SVG) of sensitivity against ``d_in`` (needs the ``plot`` extra)."""
        check_plot_target(path)
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from exactdp.numeric.decide import to_sympy

        xs = [r.scope.d_in for r in self.results]
        ys = [float(to_sympy(r.value).evalf(17)) for r in self.results]  # display only
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(xs, ys, marker="o", label=self.results[0].query.name)
        ax.set_xticks(xs)
        ax.set_xlabel("d_in")
        ax.set_ylabel("exact sensitivity")
        ax.set_title(self.results[0].scope.space.describe(), fontsize=9)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
        return path


PLOT_FORMATS = (".png", ".pdf", ".svg")


def check_plot_target(path: object) -> str:
    """Refuse, before any computation, a plot that could not be written: matplotlib
    missing (the ``plot`` extra), an unknown format, or a folder that does not exist."""
    import importlib.util
    import os

    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InvalidArgument(f"plot path={path!r} is not a file name; pass e.g. 'sens.png'")
    text = str(path)
    ext = os.path.splitext(text)[1].lower()
    if ext not in PLOT_FORMATS:
        raise InvalidArgument(
            f"plot path={text!r} does not end in {', '.join(PLOT_FORMATS)}; name the file "
            f"e.g. 'sensitivity.png'"
        )
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise InvalidArgument(f"plot path={text!r}: the folder {folder!r} does not exist; create it first")
    if not os.access(folder, os.W_OK):
        raise InvalidArgument(f"plot path={text!r}: the folder {folder!r} is not writable")
    try:  # os.access says yes to root everywhere (/proc too): open the file for writing
        if os.path.exists(text):
            os.close(os.open(text, os.O_WRONLY | os.O_APPEND))  # appends nothing
        else:
            os.close(os.open(text, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.remove(text)
    except OSError as e:
        raise InvalidArgument(f"plot path={text!r} cannot be written ({e.strerror or e}); "
                              f"choose a file in a folder you can write to") from None
    if importlib.util.find_spec("matplotlib") is None:
        raise InvalidArgument(
            "plotting needs matplotlib, which is not installed; install the plot extra: "
            "pip install 'exactdp[plot]'"
        )
    return text


def sensitivity_curve(
    query: Query | str,
    space: DatasetSpace,
    metric: Metric | str | None = None,
    d_ins: Sequence[int] = (1, 2, 3),
    *,
    exact_k: bool = False,
    scope: str = "standard",
    undefined: object = "error",
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    max_datasets: int | None = DEFAULT_MAX_DATASETS,
    progress: bool | None = None,
    workers: int = 1,
    cluster: object = None,
) -> SensitivityCurve:
    """:func:`sensitivity` for each ``d_in`` in ``d_ins``, sharing one value table."""
    workers = _engine.check_workers(workers)
    if isinstance(d_ins, (str, bytes)) or not hasattr(d_ins, "__iter__"):
        raise InvalidArgument(f"d_ins={d_ins!r} is not a sequence of distances; pass e.g. (1, 2, 3)")
    if hasattr(d_ins, "__len__"):
        refuse_above(len(d_ins), MAX_D_IN_ROWS, what="d_in values in one table", option=None,
                     hint="ask for fewer distances (beyond the space's largest distance the "
                          "sensitivity no longer changes)")
    d_list = list(islice(d_ins, MAX_D_IN_ROWS + 1))
    refuse_above(len(d_list), MAX_D_IN_ROWS, what="d_in values in one table", option=None,
                 hint="ask for fewer distances")
    if not d_list:
        raise InvalidArgument("d_ins=[] is empty; pass distances such as (1, 2, 3)")
    if cluster is not None:  # the pair scan on Dask workers (the dask extra)
        from exactdp.checkers import _dask

        return SensitivityCurve(_dask.curve(
            query, space, metric, d_list, exact_k=exact_k, scope=scope, undefined=undefined,
            max_pairs=max_pairs, max_datasets=max_datasets, progress=progress,
            workers=workers, cluster=cluster))
    if isinstance(space, (Sequences, Units)):  # ordered or id datasets: the edit-graph engine
        from exactdp.checkers.graph import graph_sensitivity

        return SensitivityCurve(tuple(
            graph_sensitivity(query, space, metric, d, exact_k=exact_k, scope=scope,
                              undefined=undefined, max_pairs=max_pairs,
                              max_datasets=max_datasets, progress=progress)
            for d in d_list))
    setup = _setup(query, space, metric, d_list, scope, undefined, max_datasets, max_pairs,
                   exact_k, progress)
    return SensitivityCurve(tuple(_compute(setup, d, progress, workers=workers) for d in d_list))


CLAIM_PARAMETERS = {
    "L": "lower bound: the clip lower bound for a clipped query, else the universe's minimum",
    "U": "upper bound: the clip upper bound for a clipped query, else the universe's maximum",
    "N": "the dataset size, when every dataset of the space has the same size",
    "d_in": "the bound on the dataset distance",
    "k": "the same as d_in (seed 003 calls it the Hamming distance)",
}


def claim_parameters(query: Query, space: DatasetSpace, d_in: int) -> dict[str, Fraction]:
    """The values of ``L``, ``U``, ``N``, ``d_in`` and ``k`` for a claim on this space."""
    if isinstance(space, (Sequences, Units)):  # also R and G (rows, groups per id) for units
        from exactdp.checkers.graph import graph_claim_parameters

        return graph_claim_parameters(query, space, d_in)
    lo, hi = query.clip if query.clip is not None else (space.universe.lower, space.universe.upper)
    params = {"L": lo, "U": hi, "d_in": Fraction(d_in), "k": Fraction(d_in)}
    if space.fixed_size is not None:
        params["N"] = Fraction(space.fixed_size)
    return params


def bind_claim(claim: object, params: dict[str, Fraction]) -> tuple[str, Any]:
    """``(text, exact value)`` of a claim once ``params`` (see :func:`claim_parameters`)
    are substituted. A claim is a number, a formula string (parsed safely) or a SymPy
    expression in the parameter names."""
    import sympy  # a claim is a formula: SymPy is imported when one is given

    from exactdp.numeric.decide import to_fraction_if_rational
    from exactdp.numeric.formula import parse_expression, substitute

    if isinstance(claim, str):
        try:
            return claim, to_exact(claim, "claim")
        except InvalidArgument:
            pass  # not a plain number: a formula
        expr = parse_expression(claim, sorted(set(params) | set(CLAIM_PARAMETERS)))
    elif isinstance(claim, sympy.Basic):
        expr = substitute(claim, {}, _finish=False)  # every number checked before it is printed
    else:
        value = to_exact(claim, "claim")
        return format_value(value), value
    text = claim if isinstance(claim, str) else str(claim)
    unbound = sorted(s.name for s in expr.free_symbols if s.name not in params)
    if "N" in unbound:
        raise InvalidArgument(
            f"claim={text!r} uses N, but the datasets of this space have different sizes; "
            f"N is defined only when every dataset has the same size"
        )
    if unbound:
        raise InvalidArgument(
            f"claim={text!r} has symbols {unbound} that are not parameters of this check "
            f"({', '.join(params)})"
        )
    if isinstance(claim, str):
        # the text read again with the values, not substituted into its simplified form
        # (where 0/L and L/L are 0 and 1 even at L = 0): every node built as written
        value = parse_expression(claim, params)
    else:
        # through the parser's size guards: 10**(10**U) at U = 9 is refused, never built
        value = substitute(expr, params, text=text, _finish=False)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not value.is_real:
        raise InvalidArgument(f"claim={text!r} is not a real number here ({value})")
    return text, to_fraction_if_rational(value)


def verify_claim(
    claim: object,
    query: Query | str,
    space: DatasetSpace,
    metric: Metric | str | None = None,
    d_in: int = 1,
    **options: Any,
) -> ClaimResult:
    """Compare a claimed sensitivity with the exact one; never raises on a violation.

    ``claim`` is a number (int, Fraction, exact string) or a formula (a string parsed
    safely, or a SymPy expression) in ``L``, ``U``, ``N``, ``d_in`` and ``k``; see
    :func:`claim_parameters`. Other options are those of :func:`sensitivity`.
    """
    if isinstance(space, (Sequences, Units)):  # ordered or id datasets: the edit-graph engine
        from exactdp.checkers.graph import verify_graph_claim

        options.pop("workers", None)  # one process: the graph engine has no pool yet
        return verify_graph_claim(claim, query, space, metric, d_in, **options)
    query = _query(query)
    params = claim_parameters(query, as_space(space), check_d_in(d_in))
    text, value = bind_claim(claim, params)  # a bad claim is refused before any enumeration
    result = sensitivity(query, space, metric, d_in, **options)
    return judge(text, value, result, params)


def judge(text: str, value: Any, result: SensitivityResult, params: dict | None = None) -> ClaimResult:
    """The verdict on a claimed value against a computed sensitivity (``VACUOUS`` when
    no neighbouring pair was examined: a maximum over nothing confirms nothing)."""
    if result.scope.pairs == 0:
        return ClaimResult(text, value, Verdict.VACUOUS, result, dict(params or {}))
    from exactdp.numeric.decide import compare

    try:
        c = compare(value, result.value)
    except Undecided:
        verdict = Verdict.UNDECIDED
    else:
        verdict = Verdict.VIOLATED if c < 0 else Verdict.HOLDS_TIGHT if c == 0 else Verdict.HOLDS
    return ClaimResult(text, value, verdict, result, dict(params or {}))


def assert_claim(claim: object, query, space, metric=None, d_in: int = 1, **options) -> ClaimResult:
    """Like :func:`verify_claim`, but raise :class:`ClaimViolated` unless the claim holds."""
    result = verify_claim(claim, query, space, metric, d_in, **options)
    if not result.ok:
        raise ClaimViolated(str(result), result)
    return result
