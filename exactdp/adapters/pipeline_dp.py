"""Adapter to PipelineDP (``pipeline-dp``): run its ``DPEngine`` on the ``LocalBackend``
with the noise spied out, so that each aggregation reveals its own noiseless per-partition
value and the sensitivity it hands its mechanism; read its budget split exactly.

pipeline_dp is imported only inside functions (:func:`require`), so importing this module
never fails; a missing library raises :class:`~exactdp.errors.MissingDependency` naming
``pip install 'exactdp[pipeline-dp]'``. Written against pipeline-dp 0.3.1
(``pipeline_dp/dp_computations.py``: ``AdditiveMechanism``, ``compute_sensitivities_for_*``;
``budget_accounting.py``: ``NaiveBudgetAccountant``; ``pipeline_backend.py``:
``LocalBackend.sample_fixed_per_key``, which samples with NumPy's global generator).

* :func:`spy` -- patches ``dp_computations.AdditiveMechanism.add_noise`` (the Laplace and
  Gaussian mechanisms every COUNT, SUM and MEAN goes through) so that it records the
  mechanism's kind, its ``sensitivity`` (L1 for Laplace, L2 for Gaussian) and noise
  parameter, and the value it was given, and returns that value unchanged (restored on
  leaving, also after an error).
* :func:`aggregate` -- one ``DPEngine.aggregate`` over public partitions under the spy, with
  NumPy's global generator seeded (the contribution bounding samples with it): the noiseless
  metrics per partition and the spied calls.
* :func:`naive_budgets` -- the epsilons and deltas ``NaiveBudgetAccountant.compute_budgets``
  gives ``n`` mechanisms.
* :func:`post_aggregation_thresholding`, :func:`add_dp_noise`, :func:`record_bounders` --
  the thresholding an aggregation applies after its metrics (counts spied), the noise added
  to pre-aggregated values (mechanisms spied), and which contribution bounder ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import library_number
from exactdp.adapters._calls import call_library

__all__ = ["SpiedNoise", "SpiedMechanism", "SpiedSelection", "require", "exact", "spy", "aggregate", "naive_budgets",
           "spy_mechanisms", "keep_every_partition", "run_metric", "select_partitions", "accountant_specs",
           "post_aggregation_thresholding", "add_dp_noise", "record_bounders"]


def require():
    """The ``pipeline_dp`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("pipeline_dp", library="pipeline-dp", extra="pipeline-dp")


def exact(value: Any) -> Fraction:
    """A number PipelineDP computed (Python/NumPy int or float) at its exact value."""
    return library_number(value, "PipelineDP")


@dataclass(frozen=True)
class SpiedNoise:
    """One ``add_noise`` call: the mechanism class, its sensitivity and noise parameter
    (exact), and the noiseless value it was given (exact)."""

    mechanism: str
    sensitivity: Fraction
    noise_parameter: Fraction
    value: Fraction


@contextmanager
def spy() -> Iterator[list[SpiedNoise]]:
    """Record every ``AdditiveMechanism.add_noise`` call and make it return its input."""
    require()
    from pipeline_dp import dp_computations as dc

    log: list[SpiedNoise] = []
    cls = dc.AdditiveMechanism
    saved = cls.__dict__["add_noise"]

    def add_noise(self, value):
        log.append(SpiedNoise(type(self).__name__, exact(self.sensitivity), exact(self.noise_parameter),
                              exact(value)))
        return value

    cls.add_noise = add_noise
    try:
        yield log
    finally:
        cls.add_noise = saved


def aggregate(rows: Sequence[tuple], metrics: Sequence[str], *, partitions: Sequence[str],
              noise_kind: str = "laplace", epsilon: float = 1.0, delta: float = 1e-6,
              seed: int = 0, **params) -> tuple[dict[str, dict[str, Fraction]], list[SpiedNoise]]:
    """``DPEngine(NaiveBudgetAccountant(epsilon, delta), LocalBackend()).aggregate`` of
    ``rows`` (``(privacy_id, partition, value)``) with ``metrics`` (names of
    ``pipeline_dp.Metrics``: ``"COUNT"``, ``"SUM"``, ``"MEAN"``), public ``partitions`` and
    ``AggregateParams(**params)``, under :func:`spy`, NumPy's global generator seeded with
    ``seed``: ``({partition: {metric: exact noiseless value}}, spied calls)``."""
    pdp = require()
    import numpy as np

    kinds = {"laplace": pdp.NoiseKind.LAPLACE, "gaussian": pdp.NoiseKind.GAUSSIAN}
    if noise_kind not in kinds:
        raise InvalidArgument(f"noise_kind={noise_kind!r} is not 'laplace' or 'gaussian'")
    try:
        ms = [getattr(pdp.Metrics, m) for m in metrics]
    except AttributeError:
        raise InvalidArgument(f"metrics={list(metrics)!r}: expected names of pipeline_dp.Metrics "
                              "such as 'COUNT', 'SUM', 'MEAN'") from None
    acc = pdp.NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(acc, pdp.LocalBackend())
    agg = call_library("pipeline_dp.AggregateParams(...)", pdp.AggregateParams,
                       noise_kind=kinds[noise_kind], metrics=ms, **params)
    ext = pdp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                             value_extractor=lambda r: r[2])
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        with spy() as log:
            out = call_library("pipeline_dp.DPEngine.aggregate", engine.aggregate, list(rows), agg, ext,
                               public_partitions=list(partitions))
            call_library("pipeline_dp.NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
            result = list(out)  # the LocalBackend is lazy: noise is added here
    finally:
        np.random.set_state(state)
    values = {pk: {name: exact(v) for name, v in mt._asdict().items()} for pk, mt in result}
    return values, log


def naive_budgets(total_epsilon: float, total_delta: float, n: int, kind: str = "laplace",
                  weights: Sequence[float] | None = None) -> list[tuple[float, float]]:
    """``(epsilon, delta)`` that ``NaiveBudgetAccountant(total_epsilon, total_delta)`` gives
    each of ``n`` mechanisms requested with ``request_budget`` (``weights``: one each)."""
    pdp = require()
    from pipeline_dp.aggregate_params import MechanismType

    kinds = {"laplace": MechanismType.LAPLACE, "gaussian": MechanismType.GAUSSIAN}
    weights = [1.0] * n if weights is None else list(weights)
    if len(weights) != n:
        raise InvalidArgument(f"weights has {len(weights)} entries; expected n={n}")
    acc = call_library("pipeline_dp.NaiveBudgetAccountant(...)", pdp.NaiveBudgetAccountant,
                       total_epsilon=total_epsilon, total_delta=total_delta)
    specs = [call_library("NaiveBudgetAccountant.request_budget", acc.request_budget, kinds[kind], weight=w)
             for w in weights]
    call_library("NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
    return [(float(s.eps), float(s.delta)) for s in specs]


# --- the pydp mechanisms PipelineDP builds ----------------------------------------------


@dataclass(frozen=True)
class SpiedMechanism:
    """One ``add_noise`` call on a pydp mechanism PipelineDP built (through
    ``dp_computations.dp_mechanisms``: every COUNT, PRIVACY_ID_COUNT, SUM, MEAN, VARIANCE and
    VECTOR_SUM noise): the noise ``kind`` (``"laplace"`` / ``"gaussian"``), the budget and the
    sensitivity the mechanism was built with (``sensitivity``: L1 for Laplace, L2 for
    Gaussian), its noise parameter (the Laplace diversity, the Gaussian std) and the noiseless
    value it was given, all exact."""

    kind: str
    epsilon: Fraction
    delta: Fraction
    sensitivity: Fraction
    noise_parameter: Fraction
    value: Fraction


class _SpiedPydpMechanism:
    """A pydp mechanism whose ``add_noise`` records its call and returns its input."""

    def __init__(self, kind: str, real, log: list):
        self._kind, self._real, self._log = kind, real, log

    def __getattr__(self, name):
        return getattr(self._real, name)

    def add_noise(self, value, *args):
        r = self._real
        if self._kind == "laplace":
            call = SpiedMechanism("laplace", exact(r.epsilon), Fraction(0), exact(r.sensitivity),
                                  exact(r.diversity), exact(value))
        else:
            call = SpiedMechanism("gaussian", exact(r.epsilon), exact(r.delta), exact(r.l2_sensitivity),
                                  exact(r.std), exact(value))
        self._log.append(call)
        return value


@contextmanager
def spy_mechanisms() -> Iterator[list[SpiedMechanism]]:
    """Replace the pydp module PipelineDP's ``dp_computations`` builds its mechanisms from with
    one whose Laplace and Gaussian mechanisms record each ``add_noise`` call
    (:class:`SpiedMechanism`) and return the value unchanged (restored on leaving, also
    after an error)."""
    require()
    import types

    from pipeline_dp import dp_computations as dc

    log: list[SpiedMechanism] = []
    real = dc.dp_mechanisms

    def laplace(*args, **kwargs):
        return _SpiedPydpMechanism("laplace", real.LaplaceMechanism(*args, **kwargs), log)

    def gaussian(*args, **kwargs):
        return _SpiedPydpMechanism("gaussian", real.GaussianMechanism(*args, **kwargs), log)

    gaussian.create_from_standard_deviation = lambda std: _SpiedPydpMechanism(
        "gaussian", real.GaussianMechanism.create_from_standard_deviation(std), log)
    dc.dp_mechanisms = types.SimpleNamespace(LaplaceMechanism=laplace, GaussianMechanism=gaussian)
    try:
        yield log
    finally:
        dc.dp_mechanisms = real


def _metric(pdp, name: str):
    if name.startswith("PERCENTILE"):
        return pdp.Metrics.PERCENTILE(float(name.partition(":")[2] or 50))
    try:
        return getattr(pdp.Metrics, name)
    except AttributeError:
        raise InvalidArgument(f"metric={name!r}: expected the name of a pipeline_dp.Metrics member such as "
                              "'COUNT', 'SUM', 'VARIANCE', or 'PERCENTILE:50'") from None


def run_metric(rows: Sequence[tuple], metric: str, *, partitions: Sequence[str] | None, noise_kind: str = "laplace",
               epsilon: float = 1.0, delta: float = 1e-6, seed: int = 0,
               **params) -> tuple[list, list[SpiedMechanism]]:
    """``DPEngine(NaiveBudgetAccountant(epsilon, delta), LocalBackend()).aggregate`` of ``rows``
    (``(privacy_id, partition, value)``) with the one metric ``metric`` (a name of
    ``pipeline_dp.Metrics``), public ``partitions`` and ``AggregateParams(**params)``, under
    :func:`spy_mechanisms`, NumPy's global generator seeded with ``seed``: ``(the partition
    keys in the order the library computed them, the spied calls in call order)``.
    ``partitions=None``: private partition selection, every partition kept
    (:func:`keep_every_partition`; VECTOR_SUM needs it: 0.3.1 builds an accumulator of no
    vectors for a public partition, which fails)."""
    pdp = require()
    import numpy as np

    kinds = {"laplace": pdp.NoiseKind.LAPLACE, "gaussian": pdp.NoiseKind.GAUSSIAN}
    if noise_kind not in kinds:
        raise InvalidArgument(f"noise_kind={noise_kind!r} is not 'laplace' or 'gaussian'")
    m = _metric(pdp, metric)
    acc = call_library("pipeline_dp.NaiveBudgetAccountant(...)", pdp.NaiveBudgetAccountant,
                       total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(acc, pdp.LocalBackend())
    agg = call_library("pipeline_dp.AggregateParams(...)", pdp.AggregateParams, noise_kind=kinds[noise_kind],
                       metrics=[m], **params)
    ext = pdp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                             value_extractor=lambda r: r[2])
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        with spy_mechanisms() as log, keep_every_partition():
            public = None if partitions is None else list(partitions)
            out = call_library("pipeline_dp.DPEngine.aggregate", engine.aggregate, list(rows), agg, ext,
                               public_partitions=public)
            call_library("pipeline_dp.NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
            # the LocalBackend is lazy: the noise is added while the result is read
            keys = call_library("pipeline_dp.DPEngine.aggregate (reading the result)",
                                lambda: [pk for pk, _ in out])
    finally:
        np.random.set_state(state)
    return keys, list(log)


# --- partition selection ------------------------------------------------------------------


@dataclass(frozen=True)
class SpiedSelection:
    """The pydp partition-selection strategy PipelineDP built (its name and parameters as
    passed, exact) and, per partition, the number of privacy units it was asked about."""

    strategy: str
    epsilon: Fraction
    delta: Fraction
    max_partitions_contributed: int
    pre_threshold: int | None
    units: dict


def _count(n):
    """A count of privacy units as an int; a weight (weighted Gaussian thresholding sums
    ``1 / sqrt(k)`` per unit) that is not a whole number stays the float it is."""
    return int(n) if float(n).is_integer() else float(n)


@contextmanager
def keep_every_partition() -> Iterator[tuple[list, list]]:
    """Make every pydp partition-selection strategy built meanwhile keep every partition:
    yields ``(made, counted)``, the ``(name, epsilon, delta, max_partitions, pre_threshold)``
    of each strategy built and the privacy-unit counts ``should_keep`` (or
    ``noised_value_if_should_keep``, which then returns the count itself) was asked about, in
    call order (restored on leaving, also after an error)."""
    require()
    import pydp.algorithms.partition_selection as ps

    made: list = []
    counted: list = []
    real = ps.create_partition_strategy

    class Keep:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def should_keep(self, n):
            counted.append(_count(n))
            return True

        def noised_value_if_should_keep(self, n):  # post-aggregation thresholding: keep, no noise
            counted.append(_count(n))
            return float(n)

    def create(name, eps, dlt, m, pre_threshold=None):
        made.append((name, eps, dlt, m, pre_threshold))
        return Keep(real(name, eps, dlt, m, *(() if pre_threshold is None else (pre_threshold,))))

    ps.create_partition_strategy = create
    try:
        yield made, counted
    finally:
        ps.create_partition_strategy = real


def select_partitions(rows: Sequence[tuple], strategy: str = "TRUNCATED_GEOMETRIC", *, epsilon: float = 1.0,
                      delta: float = 1e-6, seed: int = 0, **params) -> SpiedSelection:
    """``DPEngine.select_partitions`` of ``rows`` (``(privacy_id, partition)``) with
    ``SelectPartitionsParams(partition_selection_strategy=strategy, **params)``, the pydp
    strategy it builds spied: it keeps every partition and records the count of privacy
    units each was decided on (after PipelineDP's contribution bounding)."""
    pdp = require()
    import numpy as np

    try:
        kind = getattr(pdp.PartitionSelectionStrategy, strategy)
    except AttributeError:
        raise InvalidArgument(f"strategy={strategy!r}: expected a pipeline_dp.PartitionSelectionStrategy member "
                              "such as 'TRUNCATED_GEOMETRIC' or 'LAPLACE_THRESHOLDING'") from None
    acc = call_library("pipeline_dp.NaiveBudgetAccountant(...)", pdp.NaiveBudgetAccountant,
                       total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(acc, pdp.LocalBackend())
    sp = call_library("pipeline_dp.SelectPartitionsParams(...)", pdp.SelectPartitionsParams,
                      partition_selection_strategy=kind, **params)
    ext = pdp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1])
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        with keep_every_partition() as (made, counted):
            out = call_library("pipeline_dp.DPEngine.select_partitions", engine.select_partitions, list(rows), sp,
                               ext)
            call_library("pipeline_dp.NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
            keys = call_library("pipeline_dp.DPEngine.select_partitions (reading the result)", list, out)
    finally:
        np.random.set_state(state)
    units = dict(zip(keys, counted))
    if not made:
        name, eps, dlt, m, pre = strategy.lower(), epsilon, delta, params.get("max_partitions_contributed", 1), None
    else:
        name, eps, dlt, m, pre = made[0]
    return SpiedSelection(name, exact(eps), exact(dlt), int(m), pre, units)


# --- budget accountants -------------------------------------------------------------------


def accountant_specs(accountant: str, total_epsilon: float, total_delta: float,
                     mechanisms: Sequence[tuple], **options) -> list[dict[str, Any]]:
    """What ``NaiveBudgetAccountant`` or ``PLDBudgetAccountant`` (``accountant`` ``"naive"`` /
    ``"pld"``, built with ``total_epsilon``, ``total_delta`` and ``options``) gives each of
    ``mechanisms``, a list of ``(kind, weight, count)`` (kind ``"laplace"`` or
    ``"gaussian"``) requested with ``request_budget``: per mechanism ``{"kind", "weight",
    "count", "epsilon", "delta", "std"}``, the numbers as the library holds them (floats or
    None), and for the PLD accountant the noise parameter of the mechanism PipelineDP then
    builds from the std at sensitivity 1 (``"noise_parameter"``: the Laplace diversity or
    the Gaussian std, through ``dp_computations.create_additive_mechanism``)."""
    pdp = require()
    from pipeline_dp import dp_computations as dc
    from pipeline_dp.aggregate_params import MechanismType

    kinds = {"laplace": MechanismType.LAPLACE, "gaussian": MechanismType.GAUSSIAN}
    cls = {"naive": pdp.NaiveBudgetAccountant, "pld": pdp.PLDBudgetAccountant}.get(accountant)
    if cls is None:
        raise InvalidArgument(f"accountant={accountant!r} is not 'naive' or 'pld'")
    acc = call_library(f"pipeline_dp.{cls.__name__}(...)", cls, total_epsilon=total_epsilon,
                       total_delta=total_delta, **options)
    specs = []
    for kind, weight, count in mechanisms:
        if kind not in kinds:
            raise InvalidArgument(f"mechanism kind={kind!r} is not 'laplace' or 'gaussian'")
        specs.append(call_library(f"{cls.__name__}.request_budget", acc.request_budget, kinds[kind],
                                  weight=weight, count=count))
    call_library(f"{cls.__name__}.compute_budgets", acc.compute_budgets)
    out = []
    for (kind, weight, count), s in zip(mechanisms, specs):
        row = {"kind": kind, "weight": weight, "count": count,
               "epsilon": s._eps, "delta": s._delta, "std": s._noise_standard_deviation}
        if s.standard_deviation_is_set:
            one = dc.Sensitivities(l1=1, l2=1)
            mech = call_library("dp_computations.create_additive_mechanism", dc.create_additive_mechanism, s, one)
            row["noise_parameter"] = float(mech.noise_parameter)
        out.append(row)
    return out


# --- post-aggregation thresholding, add_dp_noise, contribution bounders ----------------------


def post_aggregation_thresholding(rows: Sequence[tuple], *, noise_kind: str = "laplace", epsilon: float = 1.0,
                                  delta: float = 1e-6, seed: int = 0, **params) -> SpiedSelection:
    """``DPEngine.aggregate`` of ``rows`` (``(privacy_id, partition, value)``) with
    ``PRIVACY_ID_COUNT`` and ``post_aggregation_thresholding=True`` (no public partitions), the
    pydp strategy its ``ThresholdingMechanism`` builds spied (:func:`keep_every_partition`:
    every partition kept, its noiseless count returned): the strategy's parameters and, per
    partition, the number of privacy units it was decided on."""
    pdp = require()
    import numpy as np

    kinds = {"laplace": pdp.NoiseKind.LAPLACE, "gaussian": pdp.NoiseKind.GAUSSIAN}
    if noise_kind not in kinds:
        raise InvalidArgument(f"noise_kind={noise_kind!r} is not 'laplace' or 'gaussian'")
    acc = call_library("pipeline_dp.NaiveBudgetAccountant(...)", pdp.NaiveBudgetAccountant,
                       total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(acc, pdp.LocalBackend())
    agg = call_library("pipeline_dp.AggregateParams(...)", pdp.AggregateParams, noise_kind=kinds[noise_kind],
                       metrics=[pdp.Metrics.PRIVACY_ID_COUNT], post_aggregation_thresholding=True, **params)
    ext = pdp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                             value_extractor=lambda r: r[2])
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        with keep_every_partition() as (made, counted):
            out = call_library("pipeline_dp.DPEngine.aggregate", engine.aggregate, list(rows), agg, ext)
            call_library("pipeline_dp.NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
            keys = call_library("pipeline_dp.DPEngine.aggregate (reading the result)", lambda: [pk for pk, _ in out])
    finally:
        np.random.set_state(state)
    if not made:  # no partition: nothing was built
        return SpiedSelection(noise_kind, exact(epsilon), exact(delta), params.get("max_partitions_contributed", 1),
                              None, {})
    name, eps, dlt, m, pre = made[0]
    return SpiedSelection(name, exact(eps), exact(dlt), int(m), pre, dict(zip(keys, counted)))


def add_dp_noise(values: Sequence[tuple], *, noise_kind: str = "laplace", epsilon: float = 1.0,
                 delta: float = 1e-6, **params) -> list[SpiedMechanism]:
    """``DPEngine.add_dp_noise`` of pre-aggregated ``values`` (``(partition, value)``) with
    ``AddDPNoiseParams(noise_kind, **params)`` under :func:`spy_mechanisms`: the pydp
    mechanism's calls (budget, sensitivity, noise parameter, the value given), in order."""
    pdp = require()
    kinds = {"laplace": pdp.NoiseKind.LAPLACE, "gaussian": pdp.NoiseKind.GAUSSIAN}
    if noise_kind not in kinds:
        raise InvalidArgument(f"noise_kind={noise_kind!r} is not 'laplace' or 'gaussian'")
    acc = call_library("pipeline_dp.NaiveBudgetAccountant(...)", pdp.NaiveBudgetAccountant,
                       total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(acc, pdp.LocalBackend())
    p = call_library("pipeline_dp.AddDPNoiseParams(...)", pdp.AddDPNoiseParams, noise_kind=kinds[noise_kind], **params)
    with spy_mechanisms() as log:
        out = call_library("pipeline_dp.DPEngine.add_dp_noise", engine.add_dp_noise, list(values), p)
        call_library("pipeline_dp.NaiveBudgetAccountant.compute_budgets", acc.compute_budgets)
        call_library("pipeline_dp.DPEngine.add_dp_noise (reading the result)", list, out)
    return list(log)


@contextmanager
def record_bounders() -> Iterator[list[str]]:
    """Record the name of each ``pipeline_dp.contribution_bounders`` class whose
    ``bound_contributions`` runs meanwhile (restored on leaving, also after an error)."""
    require()
    import inspect

    from pipeline_dp import contribution_bounders as cb

    used: list[str] = []
    saved = {}
    for name, cls in vars(cb).items():
        if inspect.isclass(cls) and "bound_contributions" in vars(cls) and cls.__module__ == cb.__name__:
            saved[cls] = cls.__dict__["bound_contributions"]

            def wrapped(self, *args, _real=saved[cls], _name=name, **kwargs):
                used.append(_name)
                return _real(self, *args, **kwargs)

            cls.bound_contributions = wrapped
    try:
        yield used
    finally:
        for cls, real in saved.items():
            cls.bound_contributions = real
