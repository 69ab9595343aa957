"""Mechanisms whose parameters are read off the data, checked exactly (seed 000's warning).

Seed 000 (Near & Abuah, *Sensitivity*, Clipping) warns that choosing clipping bounds "by
looking at the data" does not satisfy differential privacy: the bounds themselves reveal
something. This module makes the warning a computation. A :class:`DataDependentSum`
releases

    sum of x clipped to [L(x), U(x)]  +  Laplace noise of scale b(x)

where the bounds ``L(x), U(x)`` come from the data (``rule="min-max"``: the smallest and
largest record; ``rule="max"``: a public ``lower`` and the largest record) and the scale is
either read off the same bounds, ``b(x) = (U(x) - L(x)) / epsilon`` (``scale="data"``, what
an analyst who "looked at the histogram" does), or a public number (``scale=b``).

:func:`check_data_dependent` runs :func:`~exactdp.checkers.privacy.check_mechanism` over
every neighbouring pair of a finite space (the engine enumerates them; the budgets are
checked before any work) with the pair of parameters ``(centre, scale)`` as the query
value, so each distinct pair is judged once, exactly:

* equal scales ``b > 0``: the loss is ``|c - c'| / b``, reached by every output at or
  above ``max(c, c')`` (the ordinary Laplace mechanism);
* one scale 0 (every record equal: ``U(x) = L(x)``, so no noise at all) and the other
  positive: the output ``c`` has probability 1 on one side and 0 on the other: infinite;
* two different positive scales ``b < b'``: the tails decay at different rates; the event
  "output >= z" has probabilities ``exp(-(z - c)/b)/2`` and ``exp(-(z - c')/b')/2`` for
  ``z >= max(c, c')``, whose log-ratio ``z (1/b - 1/b') + c'/b' - c/b`` grows without bound.
  The witness output is the smallest integer ``z >= max(c, c')`` at which that log-ratio
  (rational: no logarithm is needed) exceeds ``epsilon``; every larger ``z`` exceeds it too.

The loss is therefore infinite as soon as two neighbours have different spreads, which
every space with two distinct values has. Proof: ``proofs/s000-data-dependent-clipping.md``.

>>> from exactdp.spaces import IntegerRange, Multisets
>>> r = check_data_dependent(DataDependentSum("min-max", epsilon=1),
...                          Multisets(IntegerRange(0, 2), sizes=(1, 2)), epsilon=1)
>>> r.verdict.value, str(r.loss)
('violated', 'oo')
>>> print(r.witness_text())
x=[2], x'=[0, 2]: bounds [2, 2] and [0, 2], noise scale 0 and 2; output 2 has probability 1 under x (no noise: every record is equal) and 0 under x' (a continuous Laplace)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp._display import card
from exactdp.checkers.privacy import PrivacyResult, check_mechanism
from exactdp.checkers.results import Evidence, Verdict, evidence_note, format_value
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.distribution import INFINITY, Divergence
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.numeric.exact import format_dataset, format_exact, to_exact
from exactdp.queries.base import UNDEFINED, Query

__all__ = ["DataDependentSum", "DataDependentResult", "check_data_dependent", "RULES",
           "DEFAULT_MAX_DATASETS"]

RULES = ("min-max", "max")
"""How the clipping bounds are read off the data: ``min-max`` (``L = min x``, ``U = max
x``) or ``max`` (``L`` a public lower bound, ``U = max x``, the seed's "nobody in this
dataset is over 90, so an upper bound of 90")."""

DEFAULT_MAX_DATASETS = 200_000
"""Default budget on datasets: the query is a Python function evaluated on each one."""


def _positive_exact(value, name: str) -> Fraction:
    v = to_exact(value, name)
    if v <= 0:
        raise InvalidArgument(f"{name}={format_exact(v)!r} is not positive; pass a number > 0")
    return v


@dataclass(frozen=True)
class DataDependentSum:
    """A clipped sum whose bounds (and possibly noise scale) are read off the data.

    ``rule``: one of :data:`RULES`; ``lower``: the public lower bound for ``rule="max"``
    (default 0); ``epsilon``: the budget the noise is calibrated to; ``scale``: ``"data"``
    (``b(x) = (U(x) - L(x)) / epsilon``, the analyst's calibration) or an exact positive
    number (a public scale, the same for every dataset).
    """

    rule: str = "min-max"
    epsilon: Any = 1
    scale: Any = "data"
    lower: Any = 0

    def __post_init__(self):
        if self.rule not in RULES:
            raise InvalidArgument(f"rule={self.rule!r} is not one of {', '.join(RULES)}; pass "
                                  f"'min-max' (bounds = smallest and largest record) or 'max'")
        object.__setattr__(self, "epsilon", _positive_exact(self.epsilon, "epsilon"))
        object.__setattr__(self, "lower", to_exact(self.lower, "lower"))
        if isinstance(self.scale, str) and self.scale == "data":
            return
        object.__setattr__(self, "scale", _positive_exact(self.scale, "scale"))

    def bounds(self, values) -> tuple[Fraction, Fraction]:
        """``(L(x), U(x))`` of a non-empty dataset."""
        if self.rule == "min-max":
            return min(values), max(values)
        return self.lower, max(self.lower, max(values))

    def parameters(self, values) -> tuple[Fraction, Fraction]:
        """``(centre, scale)``: the clipped sum and the noise scale on the dataset ``values``."""
        lo, hi = self.bounds(values)
        centre = sum((min(max(v, lo), hi) for v in values), Fraction(0))
        b = (hi - lo) / self.epsilon if self.scale == "data" else self.scale
        return centre, b

    def describe(self) -> str:
        bounds = ("[min(x), max(x)]" if self.rule == "min-max"
                  else f"[{format_exact(self.lower)}, max(x)]")
        scale = ("(U - L)/epsilon" if self.scale == "data" else format_exact(self.scale))
        return (f"sum clipped to [L, U] = {bounds} + Laplace noise of scale {scale}, "
                f"epsilon = {format_exact(self.epsilon)}")

    def query(self) -> Query:
        """The query value the mechanism needs: ``(centre, scale)`` (undefined on ``[]``,
        where the data has no bounds)."""
        def prep(universe):
            def f(counts):
                xs = [v for c, v in zip(counts, universe) for _ in range(c)]
                if not xs:
                    return UNDEFINED
                return self.parameters(xs)

            return f

        # the norm is required of a vector query but unused: check_mechanism compares
        # pairs of values exactly, never their distance
        return Query("(clipped sum, noise scale)", prep, output="vector", norm="Linf", min_size=1)

    def mechanism(self) -> "_ScaledLaplace":
        return _ScaledLaplace(self)


class _ScaledLaplace(Mechanism):
    """Continuous Laplace noise whose centre *and* scale are the query value
    ``(centre, scale)``; scale 0 releases the centre itself."""

    name = "data-dependent-laplace"
    input_kind = "vector"

    def __init__(self, spec: DataDependentSum):
        self.spec = spec
        super().__init__(rule=spec.rule, epsilon=spec.epsilon,
                         scale="(U - L)/epsilon" if spec.scale == "data" else spec.scale)

    def check_value(self, value):
        if not isinstance(value, tuple) or len(value) != 2 or value[1] < 0:
            raise InvalidArgument(f"value={value!r} is not a pair (centre, scale >= 0)")
        return value

    def epsilon(self, a, b) -> Divergence:
        (c1, b1), (c2, b2) = self.check_pair(a, b)
        if b1 == b2:
            if b1 == 0:
                return Divergence(Fraction(0) if c1 == c2 else INFINITY, c1)
            return Divergence(abs(c1 - c2) / b1, max(c1, c2))
        if b1 == 0 or b2 == 0:  # a point mass against a density
            return Divergence(INFINITY, c1 if b1 == 0 else c2)
        return Divergence(INFINITY, tail_witness((c1, b1), (c2, b2), self.spec.epsilon))

    def delta(self, a, b, epsilon):
        raise InvalidArgument("a data-dependent mechanism is checked for pure epsilon here; "
                              "drop delta")


def tail_witness(p: tuple[Fraction, Fraction], q: tuple[Fraction, Fraction], epsilon) -> int:
    """The smallest integer ``z >= max(c, c')`` at which the event "output >= z" has
    log-probability ratio above ``epsilon`` for two Laplace distributions of different
    positive scales ``(c, b)`` and ``(c', b')``.

    For ``z`` at or above both centres, ``P(output >= z) = exp(-(z - c)/b) / 2``, so the
    log-ratio (larger scale over smaller) is ``z (1/b_s - 1/b_l) + c_l/b_l - c_s/b_s``:
    increasing in ``z`` without bound.

    >>> tail_witness((Fraction(0), Fraction(1)), (Fraction(0), Fraction(2)), 1)
    3
    """
    (cs, bs), (cl, bl) = sorted((p, q), key=lambda t: t[1])
    if not 0 < bs < bl:
        raise InvalidArgument(f"scales {format_exact(bs)} and {format_exact(bl)} are not two "
                              f"different positive scales")
    eps = Fraction(epsilon)
    k = 1 / bs - 1 / bl
    start = max(cs, cl)
    z = max(math.ceil(start), math.floor((eps - cl / bl + cs / bs) / k) + 1)
    if not z * k + cl / bl - cs / bs > eps:  # pragma: no cover - by the choice of z
        raise AssertionError(f"z={z} does not exceed epsilon={eps}")
    return z


def tail_log_ratio(p: tuple[Fraction, Fraction], q: tuple[Fraction, Fraction], z) -> Fraction:
    """``log P_l(output >= z) - log P_s(output >= z)`` for ``z`` at or above both centres
    (``l`` the larger scale): exact and rational."""
    (cs, bs), (cl, bl) = sorted((p, q), key=lambda t: t[1])
    z = Fraction(z)
    if z < max(cs, cl):
        raise InvalidArgument(f"z={format_exact(z)} is below a centre; the closed form needs "
                              f"z >= {format_exact(max(cs, cl))}")
    return z * (1 / bs - 1 / bl) + cl / bl - cs / bs


@dataclass(frozen=True)
class DataDependentResult:
    """The exact privacy loss of a :class:`DataDependentSum` over a space, with the pair
    of datasets, their bounds and scales, and the output (or event) that attains it.

    ``evidence`` is ``bit-exact``: every neighbouring pair of the stated finite space is
    enumerated and each loss is an exact closed form of the ideal (continuous) Laplace
    distributions (see the module docstring)."""

    spec: DataDependentSum
    privacy: PrivacyResult

    @property
    def verdict(self) -> Verdict | None:
        return self.privacy.verdict

    @property
    def evidence(self) -> Evidence:
        return self.privacy.evidence

    @property
    def loss(self):
        """The worst pure epsilon: a Fraction, or ``INFINITY`` (SymPy's ``oo``)."""
        return self.privacy.epsilon

    @property
    def ok(self) -> bool:
        return self.privacy.ok

    @property
    def witness(self):
        return self.privacy.witness

    @property
    def scope_text(self) -> str:
        return self.privacy.scope_text

    def _repr_html_(self) -> str:
        verdict = None if self.verdict is None else self.verdict.value
        return card(f"data-dependent clipped sum: worst loss {format_value(self.loss)}", verdict,
                    [("witness", self.witness_text()), ("scope", self.scope_text),
                     ("evidence", self.evidence.value)])

    def witness_text(self) -> str:
        """The witness datasets, their bounds and scales, and why the loss is what it is."""
        w = self.privacy.witness
        if w is None:
            return "no witness (no neighbouring pair)"
        (c1, b1), (c2, b2) = w.fx, w.fx_prime
        lo1, hi1 = self.spec.bounds(w.x)
        lo2, hi2 = self.spec.bounds(w.x_prime)
        head = (f"x={format_dataset(w.x)}, x'={format_dataset(w.x_prime)}: bounds "
                f"[{format_exact(lo1)}, {format_exact(hi1)}] and [{format_exact(lo2)}, "
                f"{format_exact(hi2)}], noise scale {format_exact(b1)} and {format_exact(b2)}")
        if b1 == b2:
            if b1 == 0:
                return f"{head}; both release the clipped sum without noise: {format_exact(c1)} and {format_exact(c2)}"
            return (f"{head}; sums {format_exact(c1)} and {format_exact(c2)}: loss "
                    f"|{format_exact(c1)} - {format_exact(c2)}| / {format_exact(b1)} = "
                    f"{format_value(self.loss)} at every output >= {format_exact(w.output)}")
        if b1 == 0 or b2 == 0:
            first, second = ("x", "x'") if b1 == 0 else ("x'", "x")
            return (f"{head}; output {format_exact(w.output)} has probability 1 under {first} "
                    f"(no noise: every record is equal) and 0 under {second} (a continuous Laplace)")
        z = w.output
        ratio = tail_log_ratio((c1, b1), (c2, b2), z)
        larger = "x" if b1 > b2 else "x'"
        return (f"{head}; the event output >= {z} has log-probability ratio {format_exact(ratio)} "
                f"> epsilon = {format_exact(self.spec.epsilon)} (more likely under {larger}, the "
                f"larger scale), growing without bound with z")

    def summary(self) -> str:
        word = self.verdict.value.upper() if self.verdict is not None else "LOSS"
        loss = "inf" if self.loss is INFINITY else format_value(self.loss)
        claim = ("" if self.privacy.claim_epsilon is None
                 else f"claim epsilon {format_value(self.privacy.claim_epsilon)}, ")
        return (f"{word}{evidence_note(self.evidence)}: {claim}exact privacy loss {loss}; "
                f"witness {self.witness_text()}")

    def __str__(self) -> str:
        return f"{self.spec.describe()}: {self.summary()}\n  scope: {self.scope_text}"

    def to_dict(self) -> dict:
        out = self.privacy.to_dict()
        out.update(mechanism="data-dependent clipped sum", description=self.spec.describe(),
                   rule=self.spec.rule, witness_text=self.witness_text())
        return out


def check_data_dependent(spec: DataDependentSum, space, metric="add-remove", d_in: int = 1, *,
                         epsilon=None, max_datasets: int | None = DEFAULT_MAX_DATASETS,
                         max_pairs: int | None = 5_000_000,
                         progress: bool | None = None) -> DataDependentResult:
    """The exact privacy loss of ``spec`` over every neighbouring pair of ``space`` (sizes
    from 1: the bounds of ``[]`` do not exist), judged against ``epsilon`` when given.

    The budgets (``max_datasets``, ``max_pairs``) are checked from counts alone before any
    dataset is evaluated; a space over budget raises
    :class:`~exactdp.errors.TooLarge` naming the count and the option.
    """
    if not isinstance(spec, DataDependentSum):
        raise InvalidArgument(f"spec={spec!r} is not a DataDependentSum; build one with "
                              f"DataDependentSum('min-max', epsilon=1)")
    if getattr(space, "min_size", 1) < 1:
        raise InvalidArgument(
            f"the space has datasets of size {space.min_size}: the bounds of an empty dataset "
            f"do not exist; use sizes from 1 (e.g. sizes=(1, 3))")
    result = check_mechanism(spec.mechanism(), spec.query(), space, metric, d_in,
                             epsilon=epsilon, max_datasets=max_datasets, max_pairs=max_pairs,
                             progress=progress)
    return DataDependentResult(spec, result)
