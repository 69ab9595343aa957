"""Adapter to Microsoft's ``prv_accountant``: call its own ``PRVAccountant`` and read the
three numbers ``compute_epsilon`` returns at the exact binary values of those floats.

``prv_accountant`` is imported only inside functions (:func:`require`), so importing this
module never fails; a missing library raises :class:`~exactdp.errors.MissingDependency`
naming ``pip install 'exactdp[prv-accountant]'``. Written against prv_accountant 0.2.0 (its
``accountant.py``, ``discrete_privacy_random_variable.py`` and ``privacy_random_variables/``).

The privacy random variables (``kind``), as prv_accountant names them:

* ``"poisson-gaussian"`` (DP-SGD): ``PoissonSubsampledGaussianMechanism(sampling_probability=q,
  noise_multiplier=sigma)``: the privacy loss of ``P = (1 - q) N(0, sigma**2) + q N(1,
  sigma**2)`` against ``Q = N(0, sigma**2)`` (its density lives on ``t > log(1 - q)``): the
  *remove* direction of add/remove neighbours only;
* ``"gaussian"``: ``GaussianMechanism(noise_multiplier=sigma)`` (sensitivity 1);
* ``"laplace"``: ``LaplaceMechanism(mu)``, the Laplace mechanism of scale ``1/mu`` (loss in
  ``[-mu, mu]``);
* ``"approx-dp"``: ``ApproximateDPMechanism(eps, delta0)``, ``PureDPMechanism(eps)`` beside a
  mass ``delta0`` at infinite loss (the tight pair of ``(eps, delta0)``-DP);
* ``"pure-dp"``: ``PureDPMechanism(eps)``, the loss ``+eps`` with probability
  ``e**eps / (1 + e**eps)`` and ``-eps`` otherwise: the tight pair of an ``eps``-DP mechanism,
  exactly the privacy-loss distribution of the discrete Laplace of scale ``1/eps`` (and of
  randomized response at ``eps``).

:func:`epsilon_bounds` builds ``PRVAccountant(prvs=[prv], max_self_compositions=[k],
eps_error=..., delta_error=...)`` and returns ``compute_epsilon(delta, [k])``: "lower bound
for epsilon, estimate for epsilon and upper bound for epsilon", as its docstring says.
``delta_error`` defaults to ``delta / 1000`` (the library's own ``Accountant`` and Opacus
use that).
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import returned_float

__all__ = ["DISTRIBUTION", "EXTRA", "KINDS", "require", "exact", "random_variable", "epsilon_bounds", "dpsgd_bounds",
           "legacy_bounds", "rdp_bounds", "find_noise_multiplier"]

DISTRIBUTION = "prv-accountant"
EXTRA = "prv-accountant"

KINDS = ("poisson-gaussian", "gaussian", "pure-dp", "laplace", "approx-dp")

_PARAMS = {"poisson-gaussian": ("q", "sigma"), "gaussian": ("sigma",), "pure-dp": ("eps",), "laplace": ("mu",),
           "approx-dp": ("eps", "delta0")}


def require():
    """The ``prv_accountant`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("prv_accountant", library=DISTRIBUTION, extra=EXTRA)


def exact(value: Any) -> Fraction | float:
    """A number prv_accountant returned at its exact binary value (``math.inf`` kept)."""
    return returned_float(value, "prv_accountant")


def random_variable(kind: str, params: dict):
    """prv_accountant's privacy random variable for ``kind`` (see the module's docstring)."""
    if kind not in _PARAMS:
        raise InvalidArgument(f"kind={kind!r}: expected one of {', '.join(KINDS)}")
    if set(params) != set(_PARAMS[kind]):
        raise InvalidArgument(f"params={params!r} for kind={kind!r}: expected exactly "
                              f"{', '.join(_PARAMS[kind])}")
    for name, v in params.items():
        if isinstance(v, bool) or not isinstance(v, float):
            raise InvalidArgument(f"{name}={v!r} is not a float; prv_accountant takes floats (pass e.g. 1.0)")
    P = require()
    if kind == "poisson-gaussian":
        return P.PoissonSubsampledGaussianMechanism(sampling_probability=params["q"],
                                                    noise_multiplier=params["sigma"])
    if kind == "gaussian":
        return P.GaussianMechanism(noise_multiplier=params["sigma"])
    if kind == "laplace":
        return P.LaplaceMechanism(mu=params["mu"])
    if kind == "approx-dp":
        return P.ApproximateDPMechanism(epsilon=params["eps"], delta=params["delta0"])
    return P.PureDPMechanism(eps=params["eps"])


def epsilon_bounds(kind: str, params: dict, k: int, delta: float, eps_error: float,
                   delta_error: float | None = None) -> tuple[Fraction | float, Fraction | float, Fraction | float]:
    """``(lower, estimate, upper)`` of ``PRVAccountant(...).compute_epsilon(delta, [k])``, each
    at its exact binary value. Anything the library raises propagates."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={k!r} is not a whole number >= 1; pass the number of compositions")
    prv = random_variable(kind, params)
    if delta_error is None:
        delta_error = delta / 1000
    from prv_accountant import PRVAccountant

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = PRVAccountant(prvs=[prv], max_self_compositions=[k], eps_error=eps_error,
                            delta_error=delta_error)
        lower, estimate, upper = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
    return exact(lower), exact(estimate), exact(upper)


def _triple(values) -> tuple[Fraction | float, Fraction | float, Fraction | float]:
    lower, estimate, upper = values
    return exact(lower), exact(estimate), exact(upper)


def dpsgd_bounds(q: float, sigma: float, k: int, delta: float, eps_error: float = 0.1):
    """``(lower, estimate, upper)`` of ``dpsgd.DPSGDAccountant(sigma, q, max_steps=k,
    eps_error=...).compute_epsilon(delta, k)`` (its default ``delta_error=1e-9``), exactly."""
    require()
    from prv_accountant.dpsgd import DPSGDAccountant

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = DPSGDAccountant(noise_multiplier=sigma, sampling_probability=q, max_steps=k, eps_error=eps_error)
        return _triple(acc.compute_epsilon(delta=delta, num_steps=k))


def legacy_bounds(q: float, sigma: float, k: int, delta: float, eps_error: float = 0.1):
    """``(lower, estimate, upper)`` of the deprecated ``Accountant(sigma, q, delta, k,
    eps_error).compute_epsilon(k)``, exactly."""
    P = require()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = P.Accountant(noise_multiplier=sigma, sampling_probability=q, delta=delta, max_compositions=k,
                           eps_error=eps_error)
        return _triple(acc.compute_epsilon(k))


def rdp_bounds(kind: str, params: dict, k: int, delta: float):
    """``(lower, estimate, upper)`` of ``other_accountants.RDP(prvs=[prv]).compute_epsilon(delta,
    [k])`` (its default orders; it returns ``(0, eps, eps)``), exactly."""
    prv = random_variable(kind, params)
    from prv_accountant.other_accountants import RDP

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _triple(RDP(prvs=[prv]).compute_epsilon(delta=delta, num_self_compositions=[k]))


def find_noise_multiplier(q: float, k: int, target_epsilon: float, target_delta: float,
                          eps_error: float = 0.1) -> float:
    """``dpsgd.find_noise_multiplier(q, k, target_epsilon, target_delta, eps_error)``: the
    float it returns (a noise multiplier, given back to the library as it is)."""
    require()
    from prv_accountant.dpsgd import find_noise_multiplier as find

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(find(sampling_probability=q, num_steps=k, target_epsilon=target_epsilon,
                          target_delta=target_delta, eps_error=eps_error))
