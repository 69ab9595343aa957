"""Adapter to IBM's diffprivlib: read its claims at exact binary values, run its own
functions with the noise spied out, model its float arithmetic and its samplers exactly,
and replay witnesses through it.

diffprivlib is imported only inside functions (:func:`require`), so importing this module
never fails; a missing library raises :class:`~exactdp.errors.MissingDependency` naming
``pip install 'exactdp[diffprivlib]'``. Everything here was written against diffprivlib
0.6.6 (its ``tools/utils.py``, ``tools/quantiles.py``, ``mechanisms/*.py``,
``accountant.py``) and reads private attributes only where that version stores what it
computes (``Exponential._probabilities``, ``Gaussian._scale``).

The pieces:

* :func:`spy` -- a context manager that patches mechanism classes so that their
  constructor arguments are recorded and ``randomise`` returns the noiseless value it was
  given (always restored, even on error). A tool run under it reveals its own statistic
  and the sensitivity it claims for it: :func:`tool_release`.
* float models, bit for bit: :func:`np_sum_model` (NumPy's pairwise sum),
  :func:`np_mean_model` and :func:`np_var_model` (``np.mean``/``np.var`` of a 1-D
  float64 array), each a handful of IEEE-754 float64 operations (every one correctly
  rounded, so Python's float arithmetic reproduces NumPy's) over
  :func:`~exactdp.numeric.floatsum.float_sum_float`'s pairwise model.
* exact sampler distributions over the ``2**-53`` grid of ``random()``:
  :func:`binary_distribution` (randomized response as diffprivlib writes it),
  :func:`exponential_distribution` (its float cumulative probabilities),
  :func:`geometric_extremes` (the extreme outputs of its two-sided geometric sampler).
* :class:`FixedDraws`, a ``secrets.SystemRandom`` whose ``random()`` returns chosen grid
  points, which diffprivlib accepts as ``random_state``: how a sampler witness is replayed.
"""

from __future__ import annotations

import math
import secrets
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.glue import library_query  # noqa: F401 - re-exported: the suite reads it here
from exactdp.numeric.exact import library_number
from exactdp.adapters._calls import call_library
from exactdp.numeric.floatsum import float_sum_float

__all__ = [
    "GRID_BITS",
    "first_true",
    "FixedDraws",
    "SpiedCall",
    "accountant_accepts",
    "accountant_total",
    "binary_distribution",
    "binary_keep_count",
    "bounded_laplace_scale",
    "exact",
    "exponential_counts",
    "array_of_runs",
    "gaussian_analytic_sigma",
    "gaussian_discrete_scale",
    "geometric_extremes",
    "laplace_output",
    "laplace_scale",
    "library_query",
    "np_mean_model",
    "np_sum_model",
    "np_var_model",
    "MechanismRecord",
    "record_mechanisms",
    "require",
    "spy",
    "tool_release",
]

GRID_BITS = 53
"""``random()`` (Python's, and ``secrets.SystemRandom``'s, which diffprivlib uses) returns
``k / 2**53`` for ``k = 0 .. 2**53 - 1``."""

_GRID = 1 << GRID_BITS


def require():
    """The ``diffprivlib`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("diffprivlib", library="diffprivlib", extra="diffprivlib")


def exact(value: Any) -> Fraction:
    """A value diffprivlib computed (Python/NumPy float or integer) at its exact value."""
    return library_number(value, "diffprivlib")


# --- the spy ---------------------------------------------------------------------------


@dataclass
class SpiedCall:
    """One mechanism diffprivlib built under :func:`spy`: its class name, the keyword
    arguments of its constructor, and the value its ``randomise`` was given (the tool's
    noiseless statistic; ``None`` until called; ``values``: every one, for a mechanism
    used several times such as the histogram's)."""

    mechanism: str
    params: dict[str, Any]
    value: Any = None
    randomised: bool = False
    values: list = field(default_factory=list)  # every value randomise was given, in order

    @property
    def sensitivity(self) -> Fraction:
        return exact(self.params["sensitivity"])


_SPIED = ("Laplace", "LaplaceTruncated", "LaplaceFolded", "LaplaceBoundedDomain",
          "Geometric", "GeometricTruncated", "GeometricFolded", "Gaussian", "GaussianAnalytic",
          "Exponential")


@contextmanager
def spy(*names: str) -> Iterator[list[SpiedCall]]:
    """Record the mechanisms diffprivlib builds and make their ``randomise`` noiseless.

    ``names`` are classes of ``diffprivlib.mechanisms`` (default: the Laplace, geometric,
    Gaussian and exponential families). Within the block each construction of exactly one
    of these classes appends a :class:`SpiedCall`; ``randomise(value)`` records ``value``
    and returns it unchanged (the exponential mechanism returns candidate 0). The classes
    are restored on leaving, also after an exception.
    """
    require()
    import diffprivlib.mechanisms as mechs

    names = names or _SPIED
    log: list[SpiedCall] = []
    saved: list[tuple[type, str, Any]] = []
    for name in names:
        cls = getattr(mechs, name, None)
        if not isinstance(cls, type):
            raise InvalidArgument(f"mechanism {name!r} is not a class of diffprivlib.mechanisms; "
                                  f"expected one of {', '.join(_SPIED)}")
        for attr in ("__init__", "randomise"):
            saved.append((cls, attr, cls.__dict__.get(attr, _ABSENT)))
        original_init = cls.__init__

        def init(self, *args, __cls=cls, __init=original_init, **kwargs):
            __init(self, *args, **kwargs)
            if type(self) is __cls:
                call = SpiedCall(__cls.__name__, dict(kwargs))
                self._exactdp_spied = call
                log.append(call)

        def randomise(self, value=None, __cls=cls):
            call = getattr(self, "_exactdp_spied", None)
            if call is not None:
                call.value, call.randomised = value, True
                call.values.append(value)
            return 0 if __cls.__name__ == "Exponential" else value

        cls.__init__ = init
        cls.randomise = randomise
    try:
        yield log
    finally:
        _restore(saved)


_ABSENT = object()


def _restore(saved: list) -> None:
    """Put back the class attributes a spy replaced (``(cls, attr, old)``, newest first);
    one it added (``old`` is :data:`_ABSENT`) is deleted."""
    for cls, attr, old in reversed(saved):
        if old is _ABSENT:
            try:
                delattr(cls, attr)
            except AttributeError:  # pragma: no cover
                pass
        else:
            setattr(cls, attr, old)


@dataclass
class MechanismRecord:
    """One mechanism diffprivlib built under :func:`record_mechanisms`: its class name, the
    ``epsilon`` and ``delta`` it was given, and how many times its ``randomise`` was called
    from outside the mechanism (a subclass calling its parent's ``randomise`` counts once)."""

    mechanism: str
    epsilon: Any
    delta: Any
    calls: int = 0


@contextmanager
def record_mechanisms() -> Iterator[list[MechanismRecord]]:
    """Record every mechanism of ``diffprivlib.mechanisms`` built in the block (in order)
    and count its ``randomise`` calls, noise kept (unlike :func:`spy`): how a model's fit
    shows what it spends. The classes are restored on leaving, also after an exception."""
    require()
    import diffprivlib.mechanisms as mechs

    log: list[MechanismRecord] = []
    saved: list[tuple[type, str, Any]] = []
    classes = [c for n in dir(mechs) if isinstance(c := getattr(mechs, n), type) and issubclass(c, mechs.DPMechanism)
               and not n.startswith("_") and n not in ("DPMechanism", "DPMachine")]
    for cls in classes:
        for attr in ("__init__", "randomise"):
            saved.append((cls, attr, cls.__dict__.get(attr, _ABSENT)))
    for cls in classes:
        original_init, original_randomise = cls.__init__, cls.randomise

        def init(self, *args, __cls=cls, __init=original_init, **kwargs):
            __init(self, *args, **kwargs)
            if type(self) is __cls:
                rec = MechanismRecord(__cls.__name__, getattr(self, "epsilon", None), getattr(self, "delta", None))
                self._exactdp_record = rec
                log.append(rec)

        def randomise(self, *args, __randomise=original_randomise, **kwargs):
            rec = getattr(self, "_exactdp_record", None)
            outer = rec is not None and not getattr(self, "_exactdp_inside", False)
            if outer:
                rec.calls += 1
                self._exactdp_inside = True
            try:
                return __randomise(self, *args, **kwargs)
            finally:
                if outer:
                    self._exactdp_inside = False

        cls.__init__ = init
        cls.randomise = randomise
    try:
        yield log
    finally:
        _restore(saved)


def tool_release(tool: str, data: Sequence, **kwargs) -> SpiedCall:
    """Run ``diffprivlib.tools.<tool>(data, **kwargs)`` under :func:`spy` with a fresh
    accountant and return the one mechanism it built: ``.value`` is the tool's own
    noiseless statistic, ``.sensitivity`` the sensitivity it claims for it.

    The call goes through :func:`~exactdp.audits.runner.call_library`: whatever the
    library raises becomes :class:`~exactdp.errors.LibraryCallFailed`.
    """
    dpl = require()
    import numpy as np

    fn = getattr(dpl.tools, tool, None)
    if fn is None:
        raise InvalidArgument(f"tool={tool!r} is not a function of diffprivlib.tools; "
                              "expected e.g. 'sum', 'mean', 'var', 'std', 'count_nonzero', 'quantile'")
    with spy() as log, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call_library(f"diffprivlib.tools.{tool}", fn, np.asarray(data),
                     accountant=dpl.BudgetAccountant(), **kwargs)
    if len(log) != 1:
        raise InvalidArgument(f"diffprivlib.tools.{tool} built {len(log)} mechanisms for one "
                              "release; expected exactly one (pass a 1-D array and no axis)")
    return log[0]


# --- float models ----------------------------------------------------------------------


def np_sum_model(values: Sequence[float]) -> float:
    """``np.sum`` of a 1-D float64 array, bit for bit (NumPy's pairwise summation)."""
    return float_sum_float([float(v) for v in values], "pairwise") if len(values) else 0.0


def np_mean_model(values: Sequence[float]) -> float:
    """``np.mean`` of a 1-D float64 array: the pairwise sum, divided by ``n`` (one
    correctly rounded division)."""
    if not len(values):
        raise InvalidArgument("values is empty; np.mean of no values is nan, not modelled")
    return np_sum_model(values) / len(values)


def np_var_model(values: Sequence[float]) -> float:
    """``np.var`` (``ddof=0``) of a 1-D float64 array: ``m = sum/n``; each ``d = x - m``
    and ``d*d`` rounded; their pairwise sum divided by ``n``."""
    m = np_mean_model(values)
    squares = []
    for v in values:
        d = float(v) - m
        squares.append(d * d)
    return np_sum_model(squares) / len(values)


# --- samplers over the 2**-53 grid ------------------------------------------------------


class FixedDraws(secrets.SystemRandom):
    """A ``random_state`` for diffprivlib whose ``random()`` returns the given grid points
    ``k / 2**53`` in turn (diffprivlib passes a ``secrets.SystemRandom`` through as is)."""

    def __init__(self, ks: Sequence[int]):
        super().__init__()
        for k in ks:
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < _GRID:
                raise InvalidArgument(f"draw k={k!r} is not a whole number in [0, 2**53); "
                                      "random() returns k / 2**53")
        self._ks = list(ks)

    def random(self) -> float:
        if not self._ks:
            raise InvalidArgument("FixedDraws ran out of draws; pass one k per random() call")
        return self._ks.pop(0) / _GRID


def first_true(pred, lo: int = 0, hi: int = _GRID) -> int:
    """The first k in [lo, hi) with pred(k) true, for pred false then true (hi if none)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def binary_keep_count(epsilon: float) -> int:
    """How many of the ``2**53`` draws make diffprivlib's ``Binary`` keep the true label.

    0.6.6 draws ``r = random() * (exp(eps) + 1)`` and flips when ``r > exp(eps) + delta``
    (``delta = 0``): keep exactly when ``fl(k/2**53 * fl(e + 1)) <= e`` with
    ``e = fl(exp(eps))`` (NumPy's ``exp`` at the library's float epsilon). The product
    is monotone in ``k``, so the kept draws are ``0 .. K-1``; ``K`` by bisection.
    """
    import numpy as np

    e = float(np.exp(np.float64(epsilon)))
    c = e + 1.0
    return first_true(lambda k: (k / _GRID) * c > e + 0.0)


def binary_distribution(epsilon: float, truth: int):
    """The exact output distribution (``{0: p, 1: 1 - p}``, label indices) of
    diffprivlib's ``Binary`` randomising label ``truth``."""
    from exactdp.mechanisms.distribution import Distribution  # lazy: loads SymPy, which this module does not import at load

    if truth not in (0, 1):
        raise InvalidArgument(f"truth={truth!r} is not 0 or 1 (the index of value0 or value1)")
    keep = Fraction(binary_keep_count(epsilon), _GRID)
    return Distribution({truth: keep, 1 - truth: 1 - keep})


def exponential_counts(cumulative: Sequence[float]) -> dict[Any, int]:
    """``{candidate index: number of draws k}`` for diffprivlib's ``Exponential``
    sampler over its stored float cumulative probabilities ``cumulative``.

    0.6.6 returns the first ``i`` with ``random() <= cumulative[i]``; that is ``k <=
    c_i * 2**53``, so candidate ``i`` gets ``min(floor(c_i 2^53), 2^53-1) -
    min(floor(c_{i-1} 2^53), 2^53-1)`` draws, exactly. Draws above the last cumulative
    value go to the last candidate when ``np.isclose(r, c_last)`` (checked at the two
    extreme such draws) and otherwise make the library raise: counted under ``"error"``.
    """
    import numpy as np

    counts: dict[Any, int] = {}
    prev = -1
    for i, c in enumerate(cumulative):
        top = min(math.floor(exact(c) * _GRID), _GRID - 1)
        top = max(top, prev)
        if top > prev:
            counts[i] = top - prev
        prev = top
    rest = _GRID - 1 - prev
    if rest:
        last = float(cumulative[-1])
        lo, hi = (prev + 1) / _GRID, (_GRID - 1) / _GRID
        close_lo, close_hi = bool(np.isclose(lo, last)), bool(np.isclose(hi, last))
        if close_lo and close_hi:  # |r - c| grows with r: both ends close -> all close
            i = len(cumulative) - 1
            counts[i] = counts.get(i, 0) + rest
        elif not close_lo and not close_hi:
            counts["error"] = rest
        else:  # pragma: no cover - a cumulative sum far below 1
            raise InvalidArgument(f"the cumulative probabilities end at {last!r}, far enough below 1 "
                                  "that np.isclose splits the remaining draws; not modelled")
    return counts


def geometric_extremes(mech, value: int) -> tuple[int, int]:
    """``(lowest, highest)`` output of diffprivlib's ``Geometric`` mechanism ``mech`` on
    ``value``, read from the library at the two draws that produce them.

    0.6.6 draws ``r = (random() - 1/2) * (1 + exp(scale))`` and returns ``value + sgn(r)
    * floor(log|r| / scale)`` (``scale = -eps/sens < 0``): monotone in ``|r|``, so the
    extremes come from the smallest nonzero ``|r|``: ``k = 2**52 - 1`` (lowest) and
    ``k = 2**52 + 1`` (highest). (``k = 2**52`` gives ``r = 0`` and the library raises.)
    """
    half = _GRID // 2
    out = []
    for k in (half - 1, half + 1):
        mech._rng = FixedDraws([k])
        out.append(int(call_library("diffprivlib Geometric.randomise", mech.randomise, value)))
    return out[0], out[1]


def laplace_scale(epsilon: float, delta: float, sensitivity: float) -> Fraction:
    """The scale diffprivlib's ``Laplace`` actually uses, read from the library: 0.6.6
    computes ``scale = sensitivity / (epsilon - log(1 - delta))`` inside ``randomise`` and
    returns ``value - scale * L`` for a standard Laplace draw ``L``; with ``L`` spied to
    1 and ``value = 0`` the output is ``-scale``, exactly."""
    require()
    from diffprivlib.mechanisms import Laplace

    mech = call_library("diffprivlib Laplace(...)", Laplace, epsilon=epsilon, delta=delta,
                        sensitivity=sensitivity)
    mech._laplace_sampler = lambda *unif: 1.0
    return -exact(call_library("diffprivlib Laplace.randomise", mech.randomise, 0.0))


def accountant_accepts(budget_epsilon: float, spends: Sequence[float]) -> tuple[int, list, float]:
    """Feed ``spends`` (epsilons, delta 0) in order to a fresh ``BudgetAccountant(epsilon=
    budget_epsilon)`` until its ``check`` raises ``BudgetError``: ``(how many it accepted,
    its spent_budget list, its own total() epsilon)``."""
    dpl = require()
    from diffprivlib.utils import BudgetError

    acc = dpl.BudgetAccountant(epsilon=budget_epsilon, delta=0.0)
    accepted = 0
    for eps in spends:
        try:
            acc.check(eps, 0.0)
        except BudgetError:
            break
        acc.spend(eps, 0.0)
        accepted += 1
    return accepted, [(float(e), float(d)) for e, d in acc.spent_budget], float(acc.total()[0])


def accountant_total(spends: Sequence[tuple[float, float]], slack: float) -> tuple[float, float]:
    """``BudgetAccountant(slack=slack)``'s own ``total()`` after ``spends``: the
    ``(epsilon, delta)`` it reports (0.6.6: the smallest of the plain sum and two advanced
    composition bounds when ``slack > 0``, in float arithmetic)."""
    dpl = require()
    acc = dpl.BudgetAccountant(slack=slack)
    for eps, dlt in spends:
        acc.spend(eps, dlt)
    total = acc.total()
    return float(total[0]), float(total[1])


def bounded_laplace_scale(epsilon: float, delta: float, sensitivity: float, lower: float,
                          upper: float) -> tuple[Fraction, float]:
    """``LaplaceBoundedDomain``'s own scale and its ``effective_epsilon()``: 0.6.6 finds the
    scale by a float bisection (``_find_scale``) the first time it is needed and reports
    ``effective_epsilon() = sensitivity / scale``. Returns ``(scale exactly, effective
    epsilon as the library's float)``."""
    require()
    from diffprivlib.mechanisms import LaplaceBoundedDomain

    mech = call_library("diffprivlib LaplaceBoundedDomain(...)", LaplaceBoundedDomain, epsilon=epsilon,
                        delta=delta, sensitivity=sensitivity, lower=lower, upper=upper)
    eff = call_library("diffprivlib LaplaceBoundedDomain.effective_epsilon", mech.effective_epsilon)
    return exact(mech._scale), float(eff)


def array_of_runs(runs: Sequence[tuple[Any, int]]):
    """A float64 NumPy array of ``runs`` ``(value, count)`` in order (a float-witness search's
    datasets, millions of records, built without a Python list)."""
    import numpy as np

    values = np.array([float(v) for v, _ in runs], dtype=np.float64)
    return np.repeat(values, [int(c) for _, c in runs])


def gaussian_analytic_sigma(epsilon: float, delta: float, sensitivity: float) -> Fraction:
    """The sigma diffprivlib's ``GaussianAnalytic`` computes (its ``_scale``), exactly."""
    require()
    from diffprivlib.mechanisms import GaussianAnalytic

    mech = call_library("diffprivlib GaussianAnalytic(...)", GaussianAnalytic, epsilon=epsilon, delta=delta,
                        sensitivity=sensitivity)
    return exact(mech._scale)


def gaussian_discrete_scale(epsilon: float, delta: float, sensitivity: int) -> float:
    """The scale (sigma) diffprivlib's ``GaussianDiscrete`` finds by its float bisection
    (``_scale``); its sampler draws from the discrete Gaussian with variance ``_scale ** 2``
    (a float)."""
    require()
    from diffprivlib.mechanisms import GaussianDiscrete

    mech = call_library("diffprivlib GaussianDiscrete(...)", GaussianDiscrete, epsilon=epsilon, delta=delta,
                        sensitivity=sensitivity)
    return float(mech._scale)


def laplace_output(epsilon: float, delta: float, sensitivity: float, value: float,
                   draws: Sequence[int]) -> float:
    """What diffprivlib's ``Laplace(epsilon, delta, sensitivity).randomise(value)`` returns
    when its four ``random()`` calls return ``k / 2**53`` for the ``draws`` ``k`` (0.6.6:
    ``value - scale * (log(1 - u1) cos(pi u2) + log(1 - u3) cos(pi u4))``)."""
    require()
    from diffprivlib.mechanisms import Laplace

    if len(draws) != 4:
        raise InvalidArgument(f"draws={list(draws)!r}: Laplace.randomise calls random() 4 times; pass 4 draws")
    mech = call_library("diffprivlib Laplace(...)", Laplace, epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    mech._rng = FixedDraws(list(draws))
    return float(call_library("diffprivlib Laplace.randomise", mech.randomise, value))
