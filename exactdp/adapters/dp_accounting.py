"""Adapter to Google's ``dp_accounting``: call its own accountants and read the epsilon each
returns at the exact binary value of that float.

``dp_accounting`` is imported only inside functions (:func:`require`), so importing this
module never fails; a missing library raises :class:`~exactdp.errors.MissingDependency`
naming ``pip install 'exactdp[dp-accounting]'``. Written against dp_accounting 0.6.0 (its
``dp_event.py``, ``pld/pld_privacy_accountant.py``, ``pld/privacy_loss_distribution.py``,
``rdp/rdp_privacy_accountant.py``).

The mechanisms (``kind``) and their parameters, as dp_accounting names them:

* ``"poisson-gaussian"`` (DP-SGD): ``PoissonSampledDpEvent(q, GaussianDpEvent(sigma))``;
* ``"gaussian"``: ``GaussianDpEvent(sigma)`` (noise multiplier, sensitivity 1);
* ``"discrete-laplace"``: ``DiscreteLaplaceDpEvent(a, 1)``, the mass ``exp(-a|x|) tanh(a/2)``
  (exactdp's ``discrete-laplace`` of scale ``1/a``);
* ``"discrete-gaussian"``: no DpEvent exists; ``privacy_loss_distribution.
  from_discrete_gaussian_mechanism(sigma)`` (mass proportional to ``exp(-x**2/(2 sigma**2))``,
  exactdp's ``discrete-gaussian``), composed by ``self_compose(k)``.

Each is composed ``k`` times the way :class:`PLDAccountant` composes ``(event, k)``:

* :func:`pld_epsilon` -- ``PLDAccountant(value_discretization_interval=...)``, its default
  neighbouring relation (``ADD_OR_REMOVE_ONE``: for the Poisson-subsampled Gaussian it
  composes the remove and the add distributions and returns the larger epsilon),
  ``compose(event, k)``, ``get_epsilon(delta)``. With ``pessimistic=False`` (there is no
  accountant for it) the same privacy-loss distributions are built through
  ``privacy_loss_distribution.from_*`` with ``pessimistic_estimate=False`` and composed as the
  accountant composes them (the Gaussian as one Gaussian of ``sigma / sqrt(k)``, the others
  by ``self_compose(k)``); the optimistic rounding needs the privacy-buckets construction
  (``use_connect_dots=False``, which dp_accounting would otherwise switch to with a warning).
* :func:`rdp_epsilon` -- ``RdpAccountant()`` (its default orders and relation),
  ``compose(event, k)``, ``get_epsilon(delta)``.

What dp_accounting documents: a *pessimistic* estimate "gives an upper estimate" of the
hockey-stick divergence, so its epsilon is an upper bound; ``pessimistic_estimate=False`` a
lower estimate; RDP's epsilon is an upper bound (a conversion from Renyi DP).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import returned_float

__all__ = [
    "DISTRIBUTION", "EXTRA", "KINDS", "INTERVALS", "require", "exact", "event", "neighbouring_relation",
    "pld_epsilon", "rdp_epsilon", "RELATIONS", "ACCOUNTANTS", "accountant", "supports", "event_epsilon",
]

DISTRIBUTION = "dp-accounting"
EXTRA = "dp-accounting"

KINDS = ("poisson-gaussian", "gaussian", "discrete-laplace", "discrete-gaussian")
"""The mechanisms this adapter composes (see the module's docstring)."""

INTERVALS = (1e-2, 1e-3, 1e-4)
"""The ``value_discretization_interval`` values the suite audits (1e-4 is dp_accounting's default)."""

_PARAMS = {
    "poisson-gaussian": ("q", "sigma"),
    "gaussian": ("sigma",),
    "discrete-laplace": ("a",),
    "discrete-gaussian": ("sigma",),
}


def require():
    """The ``dp_accounting`` module, or :class:`MissingDependency` naming the extra."""
    # the package, its PLD accountant and distributions, and its RDP accountant
    return _optional.require("dp_accounting", "dp_accounting.pld", "dp_accounting.rdp",
                             library=DISTRIBUTION, extra=EXTRA)


def exact(value: Any) -> Fraction | float:
    """A number dp_accounting returned (Python or NumPy float) at its exact binary value;
    ``math.inf`` stays ``math.inf`` (no finite epsilon: an upper bound that says nothing)."""
    return returned_float(value, "dp_accounting")


def _check(kind: str, params: dict) -> dict:
    if kind not in _PARAMS:
        raise InvalidArgument(f"kind={kind!r}: expected one of {', '.join(KINDS)}")
    want = _PARAMS[kind]
    if set(params) != set(want):
        raise InvalidArgument(f"params={params!r} for kind={kind!r}: expected exactly {', '.join(want)}")
    for name, v in params.items():
        if isinstance(v, bool) or not isinstance(v, float):
            raise InvalidArgument(f"{name}={v!r} is not a float; dp_accounting takes floats (pass e.g. 1.0)")
    return params


def event(kind: str, params: dict):
    """The ``DpEvent`` of one application of ``kind`` (None for the discrete Gaussian, which
    has none in dp_accounting 0.6)."""
    _check(kind, params)
    require()
    from dp_accounting import dp_event

    if kind == "poisson-gaussian":
        return dp_event.PoissonSampledDpEvent(params["q"], dp_event.GaussianDpEvent(params["sigma"]))
    if kind == "gaussian":
        return dp_event.GaussianDpEvent(params["sigma"])
    if kind == "discrete-laplace":
        return dp_event.DiscreteLaplaceDpEvent(params["a"], 1)
    return None


def neighbouring_relation(accountant: str = "pld") -> str:
    """The name of the neighbouring relation ``PLDAccountant()`` (``"pld"``) or
    ``RdpAccountant()`` (``"rdp"``) uses by default, read from the library."""
    require()
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    if accountant not in ("pld", "rdp"):
        raise InvalidArgument(f"accountant={accountant!r}: expected 'pld' or 'rdp'")
    made = PLDAccountant() if accountant == "pld" else RdpAccountant()
    return made.neighboring_relation.name


def _positive_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={k!r} is not a whole number >= 1; pass the number of compositions")
    return k


def pld_epsilon(kind: str, params: dict, k: int, delta: float, interval: float,
                pessimistic: bool = True) -> Fraction | float:
    """dp_accounting's PLD epsilon of ``k`` compositions of ``kind`` at ``delta``, exactly
    (see the module's docstring for the calls). Anything the library raises propagates."""
    _check(kind, params)
    k = _positive_k(k)
    require()
    from dp_accounting.pld import privacy_loss_distribution as PLD
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if pessimistic and kind != "discrete-gaussian":
            acc = PLDAccountant(value_discretization_interval=interval)
            acc.compose(event(kind, params), k)
            return exact(acc.get_epsilon(delta))
        opts = {"pessimistic_estimate": pessimistic, "value_discretization_interval": interval}
        if kind == "discrete-gaussian":
            pld = PLD.from_discrete_gaussian_mechanism(params["sigma"], **opts).self_compose(k)
        elif kind == "discrete-laplace":
            pld = PLD.from_discrete_laplace_mechanism(params["a"], sensitivity=1, **opts).self_compose(k)
        elif kind == "gaussian":  # as PLDAccountant composes k Gaussians: one of sigma / sqrt(k)
            pld = PLD.from_gaussian_mechanism(params["sigma"] / math.sqrt(k), use_connect_dots=False, **opts)
        else:
            pld = PLD.from_gaussian_mechanism(params["sigma"], sampling_prob=params["q"],
                                              use_connect_dots=False, **opts).self_compose(k)
        return exact(pld.get_epsilon_for_delta(delta))


def rdp_epsilon(kind: str, params: dict, k: int, delta: float) -> Fraction | float:
    """dp_accounting's RDP epsilon of ``k`` compositions of ``kind`` at ``delta``, exactly
    (``RdpAccountant()``: its default orders). The discrete mechanisms have no RDP event."""
    _check(kind, params)
    k = _positive_k(k)
    if kind not in ("poisson-gaussian", "gaussian"):
        raise InvalidArgument(f"kind={kind!r}: dp_accounting's RdpAccountant composes only "
                              "'poisson-gaussian' and 'gaussian' here")
    require()
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = RdpAccountant()
        acc.compose(event(kind, params), k)
        return exact(acc.get_epsilon(delta))


RELATIONS = {"add-or-remove": "ADD_OR_REMOVE_ONE", "replace-one": "REPLACE_ONE",
             "replace-special": "REPLACE_SPECIAL"}
"""exactdp's names of the neighbouring relations -> dp_accounting's ``NeighboringRelation``."""

ACCOUNTANTS = ("pld", "rdp")


def accountant(which: str, relation: str = "add-or-remove"):
    """A fresh ``PLDAccountant`` (``"pld"``, its default ``value_discretization_interval``)
    or ``RdpAccountant`` (``"rdp"``, its default orders) at ``relation``."""
    if which not in ACCOUNTANTS:
        raise InvalidArgument(f"accountant={which!r}: expected 'pld' or 'rdp'")
    if relation not in RELATIONS:
        raise InvalidArgument(f"relation={relation!r}: expected one of {', '.join(RELATIONS)}")
    dpa = require()
    rel = dpa.NeighboringRelation[RELATIONS[relation]]
    if which == "pld":
        return dpa.pld.PLDAccountant(neighboring_relation=rel)
    return dpa.rdp.RdpAccountant(neighboring_relation=rel)


def supports(event, which: str, relation: str) -> bool:
    """Whether dp_accounting's ``which`` accountant at ``relation`` accounts ``event``
    (its own ``supports``)."""
    return bool(accountant(which, relation).supports(event))


def event_epsilon(event, which: str, relation: str, delta: float) -> Fraction | float:
    """The epsilon dp_accounting's ``which`` accountant (``"pld"`` or ``"rdp"``, defaults
    otherwise) reports for ``event`` at ``delta`` under ``relation``, exactly
    (``compose(event)``, ``get_epsilon(delta)``). Anything the library raises propagates."""
    acc = accountant(which, relation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc.compose(event)
        return exact(acc.get_epsilon(delta))
