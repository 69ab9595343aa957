"""The :func:`~exactdp.audits.objects.audit_object` reader of dp_accounting ``DpEvent``\\ s.

A ``DpEvent`` describes what a DP computation did (a Gaussian, Poisson-sampled, composed
100 times beside a Laplace ...). The audit translates it into the mechanisms exactdp's
certified accountant composes (:func:`~exactdp.mechanisms.accountant.account`), computes the
certified enclosure of ``epsilon(delta)`` at the option ``delta`` (default ``1e-5``), runs
dp_accounting's own accountants on the event (``PLDAccountant()`` with its default
discretization and ``RdpAccountant()`` with its default orders, each where its ``supports``
says it accounts the event) and judges each reported epsilon as an upper bound: ``violated``
below the certified lower end (the witness is the event and delta, replayed by running
dp_accounting again), holds at or above the upper end (``bit-exact``: the event and delta
are the whole scope), ``undecided`` inside.

The translation (``translate``), with dp_accounting's own readings of each event:

* ``GaussianDpEvent(s)``: the Gaussian of noise multiplier ``s`` (``s / C`` for values of norm
  at most ``C``): sensitivity 1 under add/remove, 2 under replace-one (a replaced record moves
  the sum by ``2C``; ``PLDAccountant(REPLACE_ONE)`` reads it so); ``LaplaceDpEvent(s)`` and
  ``DiscreteLaplaceDpEvent(a, C)`` likewise (scale ``s``; ``exp(-a|x|)``, sensitivity ``C``);
* ``RandomizedResponseDpEvent(p, n)``: the true bucket with probability ``1 - p + p/n``
  (replace-one neighbours, the only ones dp_accounting defines it for);
* ``PoissonSampledDpEvent(q, e)`` (add/remove), ``SampledWithoutReplacementDpEvent(N, m, e)``
  (replace-one), of one mechanism ``e``; ``SelfComposedDpEvent`` and ``ComposedDpEvent``
  compose; ``NoOpDpEvent`` is nothing, ``NonPrivateDpEvent`` (and a noise of 0) no finite
  epsilon;
* ``MixtureOfGaussiansDpEvent(s, (0, c), (1 - p, p))`` is the Gaussian ``s / c`` Poisson-sampled
  at ``p``; ``TruncatedSubsampledGaussianDpEvent(N, q, B, s)`` with ``B >= N`` never truncates:
  the Gaussian ``s`` Poisson-sampled at ``q``;
* ``ZCDpEvent(rho)`` is judged through the Gaussian that is exactly ``rho``-zCDP (noise
  multiplier ``1/sqrt(2 rho)``, rational here): a number below its certified epsilon is a
  violation of the zCDP conversion; a hold says only that the number bounds that Gaussian's.

* ``SingleEpochTreeAggregationDpEvent(s, n)`` (replace-special): a record enters the
  ``floor(log2 n) + 1`` released dyadic nodes over its step, each a Gaussian ``s``.

The relation is replace-one when the event holds a randomized response or sampling without
replacement, replace-special for a tree aggregation, add/remove otherwise (option
``relation``; replace-special reads sensitivities as add/remove does). Anything else (
repeat-and-select, sampling with replacement, a truncation that happens, a mixture of other
sensitivities, a subsampled composition) is one line of :class:`InvalidArgument` naming the
part exactdp cannot account.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.audits.base import Audit, Finding, call_library
from exactdp.audits.suite_dp_accounting import SUBSAMPLED_WIDTH, grid_finding, vacuous
from exactdp.checkers.results import Evidence
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.numeric.exact import show_exact

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "RELATIONS", "NonPrivate", "reads", "translate", "relation_of",
           "EventPoint", "event_points", "events_finding", "audit_of"]

DISTRIBUTION = "dp-accounting"
EXTRA = "dp-accounting"
OPTIONS = ("delta", "relation", "width", "accountants")
"""The options :func:`audit_of` takes."""
RELATIONS = ("add-or-remove", "replace-one", "replace-special")
NARROWER = Fraction(1, 10**4)
"""The second relative width tried on the certified grid (Laplace, sampling) when the first
(1e-3) leaves a number undecided."""


class NonPrivate(Exception):
    """The event releases something without noise: no finite epsilon (said by the part)."""


def reads(obj: object) -> bool:
    """Whether ``obj`` is a dp_accounting ``DpEvent`` (by its class's module and name)."""
    kind = type(obj)
    return kind.__module__.startswith("dp_accounting") and kind.__name__.endswith("DpEvent")


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
    if name == "GaussianDpEvent":
        s = _exact(ev.noise_multiplier, "noise_multiplier", ev)
        if s == 0:
            raise NonPrivate("GaussianDpEvent(noise_multiplier=0)")
        out.append(("gaussian", {"sigma": s, "sensitivity": scale}, times))
        return
    if name == "LaplaceDpEvent":
        s = _exact(ev.noise_multiplier, "noise_multiplier", ev)
        if s == 0:
            raise NonPrivate("LaplaceDpEvent(noise_multiplier=0)")
        out.append(("laplace", {"scale": s, "sensitivity": scale}, times))
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
        if relation == "replace-one" or len(moving) > 1 or abs(sum(p for _, p in pairs) - 1) > Fraction(1, 2**50):
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


_CERTIFIED: dict[tuple, Any] = {}


@dataclass(frozen=True)
class EventPoint:
    """One accountant run on one event: what :func:`~exactdp.audits.suite_dp_accounting.grid_finding`
    judges (its ``certify`` computes the enclosure of the event's translation)."""

    event: Any = field(compare=False)
    accountant: str
    relation: str
    delta: float
    components: tuple = ()
    non_private: str = ""
    widths: tuple = (None,)
    k: int = 1
    kind: str = "event"
    params: tuple = ()

    @property
    def label(self) -> str:
        acc = "PLDAccountant()" if self.accountant == "pld" else "RdpAccountant()"
        return f"{acc} [{self.relation}] {_short(self.event)} delta={self.delta!r}"

    def library_params(self) -> dict:
        return {"event": repr(self.event), "accountant": self.accountant, "relation": self.relation}

    def certify(self, width):
        from exactdp.mechanisms.accountant import account

        if self.non_private:
            return vacuous(1, self.delta, width or 0, f"{self.non_private}: no finite epsilon", lower=math.inf)
        if not self.components:
            return vacuous(1, self.delta, width or 0, "no privacy loss: epsilon 0", upper=Fraction(0))
        key = (self.components, Fraction(self.delta), width)
        if key not in _CERTIFIED:
            opts = {"delta": Fraction(self.delta)} | ({"width": width} if width is not None else {})
            try:
                if len(self.components) == 1:
                    name, params, times = self.components[0]
                    _CERTIFIED[key] = account((name, dict(params)), times, **opts)
                else:
                    _CERTIFIED[key] = account([(n, {**dict(p), "times": t}) for n, p, t in self.components], 1,
                                              **opts)
            except (InvalidArgument, TooLarge) as e:
                text = str(e).strip().splitlines()[0][:200]
                return vacuous(1, self.delta, width or 0, f"exactdp refused it within its budget ({text}): "
                                                          "undecided, never holds")
        return _CERTIFIED[key]


def _short(event, keep: int = 160) -> str:
    text = repr(event)
    return text if len(text) <= keep else text[: keep - 3] + "..."


def event_points(event, delta: float, *, relation: str | None = None, accountants=("pld", "rdp"),
                 width=None) -> tuple[list[EventPoint], list[str], list[str]]:
    """``(points, notes, unsupported)``: one :class:`EventPoint` per accountant of
    ``accountants`` that supports ``event`` at ``relation`` (default :func:`relation_of`),
    the translation's notes, and the accountants that do not support it."""
    from exactdp.adapters import dp_accounting as A

    A.require()
    relation = relation or relation_of(event)
    non_private = ""
    try:
        comps, notes = translate(event, relation)
    except NonPrivate as e:
        comps, notes, non_private = [], [], str(e)
    frozen = tuple((n, tuple(sorted(p.items())), t) for n, p, t in comps)
    grid = any(n == "laplace" or "sampling" in p for n, p, _ in comps)  # on the certified grid: 1e-3 first
    widths = (Fraction(width),) if width is not None else (SUBSAMPLED_WIDTH, NARROWER) if grid else (None,)
    points, unsupported = [], []
    for which in accountants:
        if A.supports(event, which, relation):
            points.append(EventPoint(event, which, relation, delta, frozen, non_private, widths))
        else:
            unsupported.append(which)
    return points, notes, unsupported


def _read(point: EventPoint):
    from exactdp.adapters import dp_accounting as A

    return call_library(f"dp_accounting {point.label}", A.event_epsilon, point.event, point.accountant,
                        point.relation, point.delta)


def events_finding(points: list[EventPoint], *, what: str, scope: str, single: bool = False) -> Finding:
    """Judge every point's accountant epsilon as an upper bound (``grid_finding``)."""
    deltas = sorted({p.delta for p in points})
    span = (f"{len(points)} accountant run{'s' if len(points) > 1 else ''}, delta {deltas[0]:g}" + (f"..{deltas[-1]:g}" if len(deltas) > 1 else ""))
    return grid_finding(points, _read, "upper", what=what, scope=scope, span=span,
                        evidence=Evidence.BIT_EXACT if single else None)


def _scope(relation: str, notes: list[str], unsupported: list[str]) -> str:
    text = (f"the event translated into exactdp's certified accountant (objects_dp_accounting: Gaussian, Laplace, "
            f"discrete Laplace sensitivity x{2 if relation == 'replace-one' else 1} under {relation} neighbours, "
            f"as dp_accounting's PLDAccountant reads them), its epsilon(delta) enclosed at the exact binary values of "
            f"the event's floats; the library: PLDAccountant() (value_discretization_interval 1e-4) / "
            f"RdpAccountant() (default orders) at that relation, compose(event), get_epsilon(delta), read exactly")
    if unsupported:
        text += f"; not run (the accountant's supports() is False for the event): {', '.join(unsupported)}"
    return text + "".join(f"; {n}" for n in notes)


def audit_of(obj: object, **options: Any) -> Audit:
    """The audit of one ``DpEvent`` (see the module's note); options: ``delta`` (a float in
    (0, 1), default ``1e-5``), ``relation`` (``add-or-remove`` or ``replace-one``; default
    from the event), ``width`` (the certified enclosure's relative width; default the
    accountant's own), ``accountants`` (a subset of ``("pld", "rdp")``)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InvalidArgument(f"option {unknown[0]!r} is not one the dp_accounting reader takes; it takes "
                              f"{', '.join(OPTIONS)}")
    delta = options.get("delta", 1e-5)
    if isinstance(delta, bool) or not isinstance(delta, float) or not 0 < delta < 1:
        raise InvalidArgument(f"delta={delta!r}: expected a float in (0, 1), as dp_accounting takes it, e.g. 1e-5")
    relation = options.get("relation")
    if relation is not None and relation not in RELATIONS:
        raise InvalidArgument(f"relation={relation!r}: expected one of {', '.join(RELATIONS)}")
    accountants = tuple(options.get("accountants", ("pld", "rdp")))
    if not accountants or any(a not in ("pld", "rdp") for a in accountants):
        raise InvalidArgument(f"accountants={options.get('accountants')!r}: expected a non-empty subset of "
                              f"('pld', 'rdp')")
    width = options.get("width")
    if width is not None:
        width = Fraction(width)
        if not 0 < width < 1:
            raise InvalidArgument(f"width={options['width']!r}: expected a relative width in (0, 1), e.g. 0.001")
    points, notes, unsupported = event_points(obj, delta, relation=relation, accountants=accountants, width=width)
    relation = relation or relation_of(obj)
    if not points:
        raise InvalidArgument(f"{type(obj).__name__}: neither of dp_accounting's accountants ({', '.join(accountants)}) "
                              f"supports this event under {relation} neighbours, so there is no number to judge")
    name = type(obj).__name__
    scope = _scope(relation, notes, unsupported)

    def check() -> Finding:
        return events_finding(points, what=f"dp_accounting's epsilon of the {name}", scope=scope, single=True)

    covers = tuple(dict.fromkeys([f"dp_accounting.dp_event.{name}"]
                                 + [("dp_accounting.pld.PLDAccountant" if p.accountant == "pld"
                                     else "dp_accounting.rdp.RdpAccountant") for p in points]))
    return Audit(id=f"dp-accounting/object/{name}", library="dp_accounting",
                 component=f"{name} accounted by {', '.join(p.accountant.upper() for p in points)}",
                 claim=f"the epsilon(delta={delta!r}) each accountant reports is an upper bound", check=check,
                 covers=covers)
