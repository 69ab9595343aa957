"""The :func:`~exactdp.audits.objects.audit_object` reader of dp_accounting ``DpEvent``\\ s.

A ``DpEvent`` describes what a DP computation did (a Gaussian, Poisson-sampled, composed
100 times beside a Laplace ...). The audit translates it into the mechanisms exactdp's
certified accountant composes (:func:`~exactdp.mechanisms.accounting.accountant.account`), computes the
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

from fractions import Fraction
from typing import Any

from exactdp.audits.base import Audit, Finding, refuse_unknown_options
from exactdp.audits.suite_dp_accounting import (
    RELATIONS, EventPoint, NonPrivate, event_points, events_finding, event_scope, relation_of, translate,
)
from exactdp.errors import InvalidArgument

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "RELATIONS", "NonPrivate", "reads", "translate", "relation_of",
           "EventPoint", "event_points", "events_finding", "audit_of"]

DISTRIBUTION = "dp-accounting"
EXTRA = "dp-accounting"
OPTIONS = ("delta", "relation", "width", "accountants")
"""The options :func:`audit_of` takes."""


def reads(obj: object) -> bool:
    """Whether ``obj`` is a dp_accounting ``DpEvent`` (by its class's module and name)."""
    kind = type(obj)
    return kind.__module__.startswith("dp_accounting") and kind.__name__.endswith("DpEvent")


def audit_of(obj: object, **options: Any) -> Audit:
    """The audit of one ``DpEvent`` (see the module's note); options: ``delta`` (a float in
    (0, 1), default ``1e-5``), ``relation`` (``add-or-remove``, ``replace-one`` or ``replace-special``; default
    from the event), ``width`` (the certified enclosure's relative width; default the
    accountant's own), ``accountants`` (a subset of ``("pld", "rdp")``)."""
    refuse_unknown_options(options, OPTIONS, "the dp_accounting reader")
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
    scope = event_scope(relation, notes, unsupported)

    def check() -> Finding:
        return events_finding(points, what=f"dp_accounting's epsilon of the {name}", scope=scope, single=True)

    covers = tuple(dict.fromkeys([f"dp_accounting.dp_event.{name}"]
                                 + [("dp_accounting.pld.PLDAccountant" if p.accountant == "pld"
                                     else "dp_accounting.rdp.RdpAccountant") for p in points]))
    return Audit(id=f"dp-accounting/object/{name}", library="dp_accounting",
                 component=f"{name} accounted by {', '.join(p.accountant.upper() for p in points)}",
                 claim=f"the epsilon(delta={delta!r}) each accountant reports is an upper bound", check=check,
                 covers=covers)
