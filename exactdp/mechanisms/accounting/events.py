"""dp_accounting's ``DpEvent`` objects as the components exactdp's certified accountant composes.

A ``DpEvent`` describes a mechanism run (a Gaussian, a Laplace, a randomized response, Poisson or
fixed-size sampling of one, compositions of them); :func:`translate` reads it, by its class name
and attributes (dp_accounting itself is never imported here), into the ``(name, params, times)``
components :func:`~exactdp.mechanisms.accounting.accountant.account` composes, every float
parameter at its exact binary value. The neighbouring relation matters: dp_accounting accounts a
randomized response and sampling without replacement under replace-one neighbours (a replaced
record moves a sum of norm-``C`` values by ``2C``, so a Gaussian's sensitivity is 2 there), tree
aggregation under replace-special, the rest under add/remove; :func:`relation_of` picks it as
dp_accounting does.

>>> class GaussianDpEvent:  # the shape of dp_accounting's, for the example
...     noise_multiplier = 2.0
>>> translate(GaussianDpEvent(), "add-or-remove")
([('gaussian', {'sigma': Fraction(2, 1), 'sensitivity': 1}, 1)], [])
"""

from __future__ import annotations

import math
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import show_exact

__all__ = ["RELATIONS", "NonPrivate", "as_account", "components", "history_components", "is_event",
           "is_opacus_accountant", "merged", "relation_of", "translate"]


def is_event(obj) -> bool:
    """Whether ``obj`` looks like a dp_accounting ``DpEvent`` (its class name ends in
    ``DpEvent``) or an Opacus accountant (a ``history`` list beside ``step`` and ``get_epsilon``)."""
    if isinstance(obj, (str, tuple, list, dict)):
        return False
    return type(obj).__name__.endswith("DpEvent") or is_opacus_accountant(obj)


def is_opacus_accountant(obj) -> bool:
    """Whether ``obj`` keeps an Opacus accountant's ``history`` of ``(noise_multiplier,
    sample_rate, steps)`` (Opacus's own accountants and :func:`exactdp.accountants.opacus_accountant`)."""
    return isinstance(getattr(obj, "history", None), list) and hasattr(obj, "step") and hasattr(obj, "get_epsilon")


def history_components(history) -> list[tuple[str, dict, int]]:
    """An Opacus ``history`` as ``(name, params, times)`` triples: each ``(noise_multiplier,
    sample_rate, steps)`` a Poisson-subsampled Gaussian (DP-SGD, add/remove neighbours) taken
    ``steps`` times, the floats at their exact values, the same ``(sigma, q)`` merged; steps at
    rate 0 release nothing. :class:`NonPrivate` for a noise multiplier of 0."""
    out: list[tuple[str, dict, int]] = []
    for entry in history:
        sigma, rate, steps = entry
        q = _exact(rate, "sample_rate", history)
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0 or not 0 <= q <= 1:
            raise InvalidArgument(f"history entry {entry!r} is not (noise_multiplier, sample_rate in [0, 1], "
                                  f"steps >= 0)")
        if q == 0 or steps == 0:
            continue
        s = _exact(sigma, "noise_multiplier", history)
        if s == 0:
            raise NonPrivate("a step with noise_multiplier=0")
        params: dict = {"sigma": s, "sensitivity": 1}
        if q < 1:
            params.update(sampling="poisson", rate=q)
        out = merged(out, [("gaussian", params, steps)])
    return out


def merged(parts: list, new: list, count: int = 1) -> list[tuple[str, dict, int]]:
    """``(name, params, times)`` triples ``parts`` with ``new`` added ``count`` times each, the
    same mechanism's ``times`` summed (a new one appended in order)."""
    out = [(name, dict(params), times) for name, params, times in parts]
    for name, params, times in new:
        at = next((i for i, (n, p, _) in enumerate(out) if n == name and p == params), None)
        if at is None:
            out.append((name, dict(params), times * count))
        else:
            out[at] = (name, out[at][1], out[at][2] + times * count)
    return out


def as_account(parts: list) -> tuple[list[tuple[str, dict]], int]:
    """``(mechanisms, k)`` for :func:`~exactdp.mechanisms.accounting.accountant.account` from
    ``(name, params, times)`` triples: one mechanism composed ``k = times`` rounds, or the list
    with each ``times``, once."""
    if len(parts) == 1:  # one mechanism composed with itself: k rounds, as account composes them
        name, params, times = parts[0]
        return [(name, dict(params))], times
    return [(name, {**params, "times": times}) for name, params, times in parts], 1


def components(event) -> tuple[list[tuple[str, dict]], int, str]:
    """``(mechanisms, k, note)``: what :func:`~exactdp.mechanisms.accounting.accountant.account`
    composes for ``event`` (a ``DpEvent`` under the relation dp_accounting accounts it under, or an
    Opacus accountant's history) as one mechanism ``k`` times, or a list of ``(name, params)``
    pairs each with its ``times``, once, and a note naming what was read. One line of
    :class:`~exactdp.errors.InvalidArgument` for no finite epsilon, no privacy loss at all, or a part
    exactdp has no model of."""
    what = type(event).__name__
    notes: list[str]
    try:
        if is_opacus_accountant(event):
            comps, notes = history_components(event.history), []
            read = f"the {what}'s history of {len(event.history)} entries read as DP-SGD steps (add/remove neighbours)"
        else:
            relation = relation_of(event)
            comps, notes = translate(event, relation)
            read = f"{what} read under {relation} neighbours, as dp_accounting accounts it"
    except NonPrivate as e:
        raise InvalidArgument(f"{what}: {e} releases without noise, so it has no finite epsilon; "
                              f"there is nothing to certify") from None
    if not comps:
        raise InvalidArgument(f"{what}: no privacy loss (epsilon 0 at every delta); there is nothing to compose")
    mechanisms, k = as_account(comps)
    return mechanisms, k, "; ".join([read] + notes)


RELATIONS = ("add-or-remove", "replace-one", "replace-special")


class NonPrivate(Exception):
    """The event releases something without noise: no finite epsilon (said by the part)."""


def _exact(value, name: str, part) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{type(part).__name__}: {name}={value!r} is not a finite number; exactdp accounts "
                              f"events whose parameters are finite floats or ints")
    return Fraction(value)


def _square_root(x: Fraction) -> Fraction | None:
    n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
    return Fraction(n, d) if n * n == x.numerator and d * d == x.denominator else None


def _has(event, names: tuple[str, ...]) -> bool:
    if type(event).__name__ in names:
        return True
    inner = getattr(event, "event", None)
    if inner is not None and _has(inner, names):
        return True
    return any(_has(e, names) for e in (getattr(event, "events", None) or ()))


def relation_of(event) -> str:
    """replace-one when the event holds a randomized response or sampling without
    replacement, replace-special when it holds a tree aggregation (the only relations
    dp_accounting accounts them under), else add/remove."""
    if _has(event, ("SingleEpochTreeAggregationDpEvent",)):
        return "replace-special"
    return "replace-one" if _has(event, ("RandomizedResponseDpEvent", "SampledWithoutReplacementDpEvent")) \
        else "add-or-remove"


def translate(event, relation: str) -> tuple[list[tuple[str, dict, int]], list[str]]:
    """``(components, notes)``: the ``(name, params, times)`` exactdp composes for ``event``
    under ``relation`` (see the module's note), and what a verdict on it means beyond the
    plain claim. :class:`NonPrivate` when the event has no finite epsilon; one line of
    :class:`InvalidArgument` naming the part exactdp cannot account."""
    if relation not in RELATIONS:
        raise InvalidArgument(f"relation={relation!r}: expected one of {', '.join(RELATIONS)}")
    out: list[tuple[str, dict, int]] = []
    notes: list[str] = []
    _walk(event, relation, 1, out, notes)
    return out, notes


def _single(inner, relation: str, part) -> tuple[str, dict]:
    comps: list = []
    _walk(inner, relation, 1, comps, [])
    if len(comps) != 1 or comps[0][2] != 1 or comps[0][0] not in ("gaussian", "laplace", "discrete-laplace",
                                                                     "randomized-response"):
        raise InvalidArgument(f"{type(part).__name__} of {type(inner).__name__}: exactdp's accountant samples one "
                              f"Gaussian, Laplace, discrete Laplace or randomized response, not a composition")
    return comps[0][0], comps[0][1]


def _walk(ev, relation: str, times: int, out: list, notes: list) -> None:
    name = type(ev).__name__
    scale = 2 if relation == "replace-one" else 1  # a replaced record moves a sum of norm-C values by 2C
    if name == "NoOpDpEvent":
        return
    if name == "NonPrivateDpEvent":
        raise NonPrivate("NonPrivateDpEvent")
    if name == "SelfComposedDpEvent":
        count = ev.count
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidArgument(f"SelfComposedDpEvent: count={count!r} is not a whole number >= 0")
        if count:
            _walk(ev.event, relation, times * count, out, notes)
        return
    if name == "ComposedDpEvent":
        for e in ev.events:
            _walk(e, relation, times, out, notes)
        return
    if name in ("GaussianDpEvent", "LaplaceDpEvent"):  # noise multiplier = the sigma or scale at sensitivity 1
        s = _exact(ev.noise_multiplier, "noise_multiplier", ev)
        if s == 0:
            raise NonPrivate(f"{name}(noise_multiplier=0)")
        mechanism, parameter = ("gaussian", "sigma") if name == "GaussianDpEvent" else ("laplace", "scale")
        out.append((mechanism, {parameter: s, "sensitivity": scale}, times))
        return
    if name == "DiscreteLaplaceDpEvent":
        a = _exact(ev.noise_parameter, "noise_parameter", ev)
        c = ev.sensitivity
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise InvalidArgument(f"DiscreteLaplaceDpEvent: sensitivity={c!r} is not a whole number >= 0")
        if a == 0:
            raise NonPrivate("DiscreteLaplaceDpEvent(noise_parameter=0)")
        out.append(("discrete-laplace", {"scale": 1 / a, "sensitivity": scale * c}, times))
        return
    if name == "RandomizedResponseDpEvent":
        if relation != "replace-one":
            raise InvalidArgument("RandomizedResponseDpEvent: exactdp accounts it under replace-one neighbours (its "
                                  "pair under replace-special is not symmetric); pass relation='replace-one'")
        p = _exact(ev.noise_parameter, "noise_parameter", ev)
        n = ev.num_buckets
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidArgument(f"RandomizedResponseDpEvent: num_buckets={n!r} is not a whole number >= 1")
        if not 0 <= p <= 1:
            raise InvalidArgument(f"RandomizedResponseDpEvent: noise_parameter={ev.noise_parameter!r} is outside [0, 1]")
        if n == 1 or p == 1:
            return  # one bucket, or an output uniform whatever the input: no privacy loss
        if p == 0:
            raise NonPrivate("RandomizedResponseDpEvent(noise_parameter=0)")
        out.append(("randomized-response", {"p": 1 - p + p / n, "k_values": n}, times))
        return
    if name == "SingleEpochTreeAggregationDpEvent":
        s = _exact(ev.noise_multiplier, "noise_multiplier", ev)
        counts = [ev.step_counts] if isinstance(ev.step_counts, int) else list(ev.step_counts)
        if relation != "replace-special" or not counts or any(
                isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
            raise InvalidArgument(f"SingleEpochTreeAggregationDpEvent(step_counts={ev.step_counts!r}) is accounted "
                                  f"under replace-special neighbours with whole step counts; pass "
                                  f"relation='replace-special'")
        if s == 0:
            raise NonPrivate("SingleEpochTreeAggregationDpEvent(noise_multiplier=0)")
        depth = max(counts).bit_length()  # the dyadic nodes within [1, n] holding one step: floor(log2 n) + 1
        if depth:
            out.append(("gaussian", {"sigma": s, "sensitivity": 1}, times * depth))
            notes.append(f"SingleEpochTreeAggregationDpEvent: a record (one step, no record twice across trees) "
                         f"enters the {depth} released dyadic nodes over it, each a Gaussian of noise multiplier "
                         f"{ev.noise_multiplier!r}, sensitivity 1 under replace-special")
        return
    if name == "PoissonSampledDpEvent":
        if relation == "replace-one":
            raise InvalidArgument("PoissonSampledDpEvent is accounted under add/remove (or replace-special) "
                                  "neighbours; pass relation='add-or-remove'")
        q = _exact(ev.sampling_probability, "sampling_probability", ev)
        if not 0 <= q <= 1:
            raise InvalidArgument(f"PoissonSampledDpEvent: sampling_probability={ev.sampling_probability!r} is "
                                  f"outside [0, 1]")
        if q == 0:
            return
        base, params = _single(ev.event, relation, ev)
        if q < 1:
            params = {**params, "sampling": "poisson", "rate": q}
        out.append((base, params, times))
        return
    if name == "SampledWithoutReplacementDpEvent":
        if relation != "replace-one":
            raise InvalidArgument("SampledWithoutReplacementDpEvent is accounted under replace-one neighbours; pass "
                                  "relation='replace-one'")
        n, m = ev.source_dataset_size, ev.sample_size
        for label, v in (("source_dataset_size", n), ("sample_size", m)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InvalidArgument(f"SampledWithoutReplacementDpEvent: {label}={v!r} is not a whole number >= 1")
        if m > n:
            raise InvalidArgument(f"SampledWithoutReplacementDpEvent: sample_size={m} > source_dataset_size={n}")
        base, params = _single(ev.event, relation, ev)
        out.append((base, {**params, "sampling": "without-replacement", "batch": m, "population": n}, times))
        return
    if name == "MixtureOfGaussiansDpEvent":
        s = _exact(ev.standard_deviation, "standard_deviation", ev)
        pairs = [(_exact(c, "sensitivities", ev), _exact(p, "sampling_probs", ev))
                 for c, p in zip(ev.sensitivities, ev.sampling_probs) if p]
        moving = [(c, p) for c, p in pairs if c != 0]
        if relation == "replace-one" or len(moving) > 1 or abs(sum((p for _, p in pairs), Fraction(0)) - 1) > Fraction(1, 2**50):
            raise InvalidArgument("MixtureOfGaussiansDpEvent: exactdp accounts a mixture of sensitivities 0 and one "
                                  "c > 0 (a Poisson-sampled Gaussian) under add/remove neighbours, not "
                                  f"sensitivities {list(ev.sensitivities)!r}")
        if not moving:
            return
        if s == 0:
            raise NonPrivate("MixtureOfGaussiansDpEvent(standard_deviation=0)")
        (c, p), = moving  # the zero sensitivity at 1 - p (the floats given sum to 1 within 2^-50)
        params = {"sigma": s / c, "sensitivity": 1}
        if p < 1:
            params.update(sampling="poisson", rate=p)
        out.append(("gaussian", params, times))
        return
    if name == "TruncatedSubsampledGaussianDpEvent":
        n, b = ev.dataset_size, ev.truncated_batch_size
        if relation == "replace-one" or not (isinstance(b, int) and isinstance(n, int) and b >= n):
            raise InvalidArgument(f"TruncatedSubsampledGaussianDpEvent: exactdp has no model of a truncated batch "
                                  f"(truncated_batch_size={b!r} < dataset_size={n!r}); it accounts one that never "
                                  f"truncates (batch size >= dataset size) under add/remove neighbours")
        q = _exact(ev.sampling_probability, "sampling_probability", ev)
        s = _exact(ev.noise_multiplier, "noise_multiplier", ev)
        if q == 0:
            return
        if s == 0:
            raise NonPrivate("TruncatedSubsampledGaussianDpEvent(noise_multiplier=0)")
        params = {"sigma": s, "sensitivity": 1}
        if q < 1:
            params.update(sampling="poisson", rate=q)
        out.append(("gaussian", params, times))
        return
    if name == "ZCDpEvent":
        rho = _exact(ev.rho, "rho", ev)
        if _exact(ev.xi, "xi", ev) != 0 or rho <= 0:
            raise InvalidArgument(f"ZCDpEvent(rho={ev.rho!r}, xi={ev.xi!r}): exactdp judges rho > 0, xi = 0 through "
                                  f"the Gaussian that is exactly rho-zCDP")
        root = _square_root(2 * rho)
        if root is None:
            raise InvalidArgument(f"ZCDpEvent(rho={ev.rho!r}): exactdp judges it through the Gaussian of noise "
                                  f"multiplier 1/sqrt(2 rho), which must be rational (e.g. rho = 0.5, 0.125, 2)")
        out.append(("gaussian", {"sigma": 1 / root, "sensitivity": 1}, times))
        notes.append(f"ZCDpEvent(rho={ev.rho!r}) judged through the Gaussian of noise multiplier "
                     f"{show_exact(1 / root)}, which is exactly rho-zCDP: a number below its certified epsilon "
                     f"violates the conversion; a hold says only that it bounds that Gaussian's epsilon")
        return
    raise InvalidArgument(f"{name}: exactdp's certified accountant has no model of it (it accounts Gaussian, "
                          f"Laplace, discrete Laplace, randomized response, tree aggregation, Poisson sampling and sampling without "
                          f"replacement of one of them, mixtures of sensitivities 0 and c, zCDP, and their "
                          f"compositions)")
