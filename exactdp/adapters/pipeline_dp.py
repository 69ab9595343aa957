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
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.errors import InvalidArgument, MissingDependency
from exactdp.numeric.exact import library_number

__all__ = ["SpiedNoise", "require", "exact", "spy", "aggregate", "naive_budgets"]


def require():
    """The ``pipeline_dp`` module, or :class:`MissingDependency` naming the extra."""
    try:
        import pipeline_dp
    except ImportError as err:
        raise MissingDependency("pipeline-dp", "pipeline-dp", detail=str(err)) from err
    return pipeline_dp


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
    from exactdp.audits.base import call_library

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
    from exactdp.audits.base import call_library

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
