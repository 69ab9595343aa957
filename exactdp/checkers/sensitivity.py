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

import importlib.util
import os
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import Any, Callable, Iterable, Sequence


from exactdp._display import card, figure_and_axes
from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, MAX_D_IN_ROWS, refuse_above
from exactdp.checkers.judging import bind_claim, judge
from exactdp.checkers.results import ClaimResult, Scope, SensitivityResult, Witness, format_value
from exactdp.engine import door
from exactdp.engine import plan as _plan
from exactdp.engine.options import Options
from exactdp.errors import ClaimViolated, InvalidArgument
from exactdp.numeric.exact import format_dataset
from exactdp.queries.base import Query
from exactdp.spaces.datasets import DatasetSpace, as_space
from exactdp.spaces.metrics import Metric, check_d_in
from exactdp.checkers.graph import graph_claim_parameters, graph_result

__all__ = [
    "sensitivity", "local_sensitivity", "sensitivity_curve", "verify_claim",
    "assert_claim", "bind_claim", "judge", "claim_parameters", "SensitivityCurve", "check_plot_target",
    "DEFAULT_MAX_PAIRS",
    "DEFAULT_MAX_DATASETS", "SCOPES",
]


SCOPES = _plan.SCOPES



def _compute(plan: _plan.Plan, d_in: int, progress, workers: int = 1) -> SensitivityResult:
    return _result(plan, d_in, _plan.compute(plan, d_in, progress, workers))


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
    worker (see :mod:`exactdp.engine.backends`).
    """
    workers = _plan.check_workers(workers)
    if cluster is not None:
        return sensitivity_curve(query, space, metric, (d_in,), exact_k=exact_k, scope=scope,
                                 undefined=undefined, max_pairs=max_pairs,
                                 max_datasets=max_datasets, progress=progress, workers=workers,
                                 cluster=cluster).results[0]
    options = Options(exact_k, scope, undefined, max_pairs, max_datasets, progress, workers)
    plan = door.make_plan(query, space, metric, [d_in], options)
    return _result(plan, d_in, door.compute(plan, d_in, options))


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
    options = Options(exact_k, scope, undefined, None, max_datasets, False)
    plan = _plan.plan_with(query, space, metric, [d_in], options, local_at=indices)
    return _compute(plan, d_in, False)


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

    def _repr_html_(self) -> str:
        head = self.results[0]
        rows = [(r.scope.d_in, format_value(r.value), f"{r.scope.pairs:,}",
                 r.witness if r.witness is not None else "(no pair: nothing checked)") for r in self.results]
        return card(f"{head.query.name}: sensitivity against d_in", None,
                    [("space", head.scope.space.describe())],
                    table=(("d_in", "sensitivity", "pairs", "witness"), rows))

    def to_dict(self) -> list[dict]:
        return [r.to_dict() for r in self.results]

    def plot(self, path: str | None = None, *, ax: Any = None) -> Any:
        """Draw sensitivity against ``d_in`` and return the matplotlib Figure (the ``plot``
        extra): into the Axes ``ax`` if given, else a new Figure (no pyplot: a notebook keeps
        its own backend); written to ``path`` (PNG, PDF or SVG) if given."""
        if path is not None:
            check_plot_target(path)
        from exactdp.numeric.decide import to_sympy  # lazy: loads SymPy, which this module does not import at load

        fig, ax = figure_and_axes(ax)
        xs = [r.scope.d_in for r in self.results]
        ys = [float(to_sympy(r.value).evalf(17)) for r in self.results]  # display only
        ax.plot(xs, ys, marker="o", label=self.results[0].query.name)
        ax.set_xticks(xs)
        ax.set_xlabel("d_in")
        ax.set_ylabel("exact sensitivity")
        ax.set_title(self.results[0].scope.space.describe(), fontsize=9)
        ax.legend()
        if path is not None:
            fig.tight_layout()
            fig.savefig(path)
        return fig


PLOT_FORMATS = (".png", ".pdf", ".svg")


def check_plot_target(path: object) -> str:
    """Refuse, before any computation, a plot that could not be written: matplotlib
    missing (the ``plot`` extra), an unknown format, or a folder that does not exist."""

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
    workers = _plan.check_workers(workers)
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
    options = Options(exact_k, scope, undefined, max_pairs, max_datasets, progress, workers, cluster)
    plan, answers = door.curve(query, space, metric, d_list, options)
    return SensitivityCurve(tuple(_result(plan, d, a) for d, a in zip(d_list, answers)))


def claim_parameters(query: Query, space: DatasetSpace, d_in: int) -> dict[str, Fraction]:
    """The values of ``L``, ``U``, ``N``, ``d_in`` and ``k`` for a claim on this space
    (and ``R``, ``G`` on a units space: :func:`~exactdp.checkers.graph.graph_claim_parameters`)."""
    return _FRONT[door.engine_for(space).name].claim_parameters(query, space, d_in)


def _multiset_claim_parameters(query: Query, space: DatasetSpace, d_in: int) -> dict[str, Fraction]:
    lo, hi = query.clip if query.clip is not None else (space.universe.lower, space.universe.upper)
    params = {"L": lo, "U": hi, "d_in": Fraction(d_in), "k": Fraction(d_in)}
    if space.fixed_size is not None:
        params["N"] = Fraction(space.fixed_size)
    return params


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
    engine = door.engine_for(space)
    q = engine.read_query(query)  # the one parser, before the claim and any budget
    params = _FRONT[engine.name].claim_parameters(q, _FRONT[engine.name].space(space), check_d_in(d_in))
    text, value = bind_claim(claim, params)  # a bad claim is refused before any enumeration
    if not engine.pool:
        options.pop("workers", None)  # one process: the edit graph reads no workers
    result = sensitivity(q if engine.pool else query, space, metric, d_in, **options)
    return judge(text, value, result, params)


def assert_claim(claim: object, query, space, metric=None, d_in: int = 1, **options) -> ClaimResult:
    """Like :func:`verify_claim`, but raise :class:`ClaimViolated` unless the claim holds."""
    result = verify_claim(claim, query, space, metric, d_in, **options)
    if not result.ok:
        raise ClaimViolated(str(result), result)
    return result


# -- what the front doors make of each engine's answers ------------------------------------

def _multiset_result(plan: _plan.Plan, d_in: int, answer: _plan.Answer) -> SensitivityResult:
    """A verdict-ready result from the multiset engine's answer."""
    witness = None
    if answer.witness is not None:
        x, x_prime, fx, fx_prime = answer.witness
        witness = Witness(x, x_prime, fx, fx_prime, answer.value)
    d_eff = answer.d_in_effective
    scope = Scope(
        space=plan.space, metric=plan.metric, d_in=d_in, exact_k=plan.exact_k, scope=plan.scope,
        datasets=plan.space.count() if plan.local_at is None else 1, pairs=answer.pairs,
        excluded=answer.excluded, local_at=answer.local_at,
        d_in_effective=d_eff if d_eff != d_in else None,
    )
    return SensitivityResult(plan.query, answer.value, witness, scope)


@dataclass(frozen=True)
class _Front:
    """How the front doors read one engine: its result, its claim's parameters, and the
    space as its claim parameters take it."""

    result: Callable[..., SensitivityResult]
    claim_parameters: Callable[..., dict[str, Fraction]]
    space: Callable[[object], object]


def _same(space: object) -> object:
    return space


_FRONT = {
    "multiset": _Front(_multiset_result, _multiset_claim_parameters, as_space),
    "edits": _Front(lambda plan, d_in, answer: graph_result(plan.space, answer),
                    graph_claim_parameters, _same),
}
"""By engine name (:func:`exactdp.engine.door.engine_for` chose the engine from the space)."""


def _result(plan, d_in: int, answer) -> SensitivityResult:
    return _FRONT[plan.engine].result(plan, d_in, answer)
