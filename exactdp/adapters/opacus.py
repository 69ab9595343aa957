"""Adapter to Meta's Opacus: call its own privacy accountants (``opacus.accountants``) and read
the epsilon each returns at the exact binary value of that float.

``opacus`` (and with it ``torch``) is imported only inside functions (:func:`require`), so
importing this module never fails; a missing library raises
:class:`~exactdp.errors.MissingDependency` naming ``pip install 'exactdp[opacus]'`` (Opacus
needs torch: install the CPU build first, or use the environment of ``.ci/opacus``, see
``docs/opacus-environment.md``). Written against Opacus 1.6.0 (its ``accountants/rdp.py``,
``prv.py``, ``gdp.py`` and ``accountants/analysis/``).

Each accountant is driven as Opacus's ``DPOptimizer`` hook drives it: ``step(noise_multiplier=
sigma, sample_rate=q)`` once per training step, ``k`` times, then ``get_epsilon(delta)``. The
mechanism is DP-SGD: the Poisson-subsampled Gaussian of rate ``q`` and noise multiplier
``sigma`` (sensitivity 1). What Opacus documents for each:

* :func:`rdp_epsilon` -- ``RDPAccountant``: the Renyi DP of the sampled Gaussian (Mironov,
  Talwar and Zhang 2019) at its ``DEFAULT_ALPHAS``, converted by Balle et al. 2020, Thm. 21:
  an upper bound on epsilon;
* :func:`prv_epsilon` -- ``PRVAccountant`` (Gopi, Lee and Wutschitz 2021): its ``get_epsilon``
  returns the upper end of the PRV enclosure ("return upper bound as we want guarantee, not
  just estimate", ``eps_error=0.01``, ``delta_error=delta/1000`` by default); its privacy random
  variable is the *remove* direction of add/remove neighbours (``(1 - q) N(0, sigma**2) +
  q N(1, sigma**2)`` against ``N(0, sigma**2)``), as in Microsoft's prv_accountant;
* :func:`gdp_epsilon` -- ``GaussianAccountant``: the central-limit approximation of Bu, Dong,
  Long and Su 2020 (``mu = q sqrt(k (exp(1/sigma**2) - 1))``, then the mu-GDP dual). Opacus
  documents it as an approximation, not a bound: constructing it warns "GDP accounting is
  experimental and can underestimate privacy expenditure".

:func:`noise_multiplier` calls ``opacus.accountants.utils.get_noise_multiplier``, which
``PrivacyEngine.make_private_with_epsilon`` uses to pick sigma: "an appropriate sigma to
ensure privacy budget of (target_epsilon, target_delta)" after the given steps, by bisection
on the chosen accountant's epsilon.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import returned_float

__all__ = ["DISTRIBUTION", "EXTRA", "ACCOUNTANTS", "require", "exact", "rdp_epsilon", "prv_epsilon", "engine_noise",
           "gdp_epsilon", "epsilon", "noise_multiplier"]

DISTRIBUTION = "opacus"
EXTRA = "opacus"

ACCOUNTANTS = ("rdp", "prv", "gdp")
"""Opacus's accountants, by the names ``opacus.accountants.create_accountant`` knows."""

_DETAIL = ("it needs torch; a CPU build keeps the install small, or use the environment of "
           ".ci/opacus (docs/opacus-environment.md)")


def require():
    """The ``opacus.accountants`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("opacus.accountants", library=DISTRIBUTION, extra=EXTRA, note=_DETAIL)


def exact(value: Any) -> Fraction | float:
    """A number Opacus returned (Python or NumPy float) at its exact binary value; ``math.inf``
    stays ``math.inf`` (no finite epsilon: an upper bound that says nothing)."""
    return returned_float(value, "Opacus")


def _check(params: dict, k) -> tuple[float, float, int]:
    if set(params) != {"q", "sigma"}:
        raise InvalidArgument(f"params={params!r}: expected exactly q (the sample rate) and sigma "
                              "(the noise multiplier)")
    for name, v in params.items():
        if isinstance(v, bool) or not isinstance(v, float):
            raise InvalidArgument(f"{name}={v!r} is not a float; Opacus takes floats (pass e.g. 1.0)")
    if not 0 < params["q"] <= 1:
        raise InvalidArgument(f"q={params['q']!r} is outside (0, 1]; pass the sample rate")
    if not params["sigma"] > 0:
        raise InvalidArgument(f"sigma={params['sigma']!r} is not positive; pass the noise multiplier")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={k!r} is not a whole number >= 1; pass the number of training steps")
    return params["q"], params["sigma"], k


def _stepped(name: str, params: dict, k: int):
    q, sigma, k = _check(params, k)
    accountants = require()
    made = accountants.create_accountant(mechanism=name)
    for _ in range(k):
        made.step(noise_multiplier=sigma, sample_rate=q)
    return made


def rdp_epsilon(params: dict, k: int, delta: float) -> Fraction | float:
    """``RDPAccountant`` stepped ``k`` times, ``get_epsilon(delta)`` (its default orders), exactly.
    Anything the library raises propagates."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Optimal order is the largest alpha": the value stands
        return exact(_stepped("rdp", params, k).get_epsilon(delta))


def prv_epsilon(params: dict, k: int, delta: float, eps_error: float = 0.01,
                delta_error: float | None = None) -> Fraction | float:
    """``PRVAccountant`` stepped ``k`` times, ``get_epsilon(delta, eps_error=...,
    delta_error=...)`` (Opacus's defaults: 0.01 and ``delta / 1000``), exactly."""
    kwargs = {"eps_error": eps_error} if delta_error is None else {"eps_error": eps_error,
                                                                    "delta_error": delta_error}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return exact(_stepped("prv", params, k).get_epsilon(delta, **kwargs))


def gdp_epsilon(params: dict, k: int, delta: float) -> Fraction | float:
    """``GaussianAccountant`` stepped ``k`` times, ``get_epsilon(delta, poisson=True)``, exactly:
    Opacus's central-limit approximation (not a bound; see the module's docstring)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "GDP accounting is experimental and can underestimate ..."
        return exact(_stepped("gdp", params, k).get_epsilon(delta, poisson=True))


def epsilon(accountant: str, params: dict, k: int, delta: float) -> Fraction | float:
    """The epsilon of Opacus's ``accountant`` (one of :data:`ACCOUNTANTS`) at its defaults."""
    if accountant not in ACCOUNTANTS:
        raise InvalidArgument(f"accountant={accountant!r}: expected one of {', '.join(ACCOUNTANTS)}")
    return {"rdp": rdp_epsilon, "prv": prv_epsilon, "gdp": gdp_epsilon}[accountant](params, k, delta)


def noise_multiplier(accountant: str, target_epsilon: float, delta: float, q: float, k: int,
                     epsilon_tolerance: float = 0.01) -> float:
    """The float sigma ``get_noise_multiplier(target_epsilon=..., target_delta=delta,
    sample_rate=q, steps=k, accountant=..., epsilon_tolerance=...)`` returns (Opacus's
    ``make_private_with_epsilon`` noise), as the library returned it."""
    if accountant not in ACCOUNTANTS:
        raise InvalidArgument(f"accountant={accountant!r}: expected one of {', '.join(ACCOUNTANTS)}")
    for name, v in (("target_epsilon", target_epsilon), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, float) or not v > 0:
            raise InvalidArgument(f"{name}={v!r} is not a positive float; Opacus takes floats (pass e.g. 1.0)")
    _check({"q": q, "sigma": 1.0}, k)
    require()
    from opacus.accountants.utils import get_noise_multiplier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sigma = get_noise_multiplier(target_epsilon=target_epsilon, target_delta=delta, sample_rate=q,
                                     steps=k, accountant=accountant, epsilon_tolerance=epsilon_tolerance)
    return float(sigma)


def engine_noise(target_epsilon: float, delta: float, n: int, batch_size: int, epochs: int,
                 accountant: str = "prv") -> tuple[float, float, int]:
    """``PrivacyEngine(accountant=...).make_private_with_epsilon(...)`` on a one-weight linear
    model and a data loader of ``n`` records in batches of ``batch_size`` (Opacus replaces it by
    Poisson sampling at rate ``batch_size / n``), for ``epochs``: the ``(noise_multiplier,
    sample_rate, steps)`` of the optimizer and loader it returns, as the library set them
    (``steps`` = epochs x batches per epoch, as its ``get_noise_multiplier`` call counts them)."""
    if accountant not in ACCOUNTANTS:
        raise InvalidArgument(f"accountant={accountant!r}: expected one of {', '.join(ACCOUNTANTS)}")
    for name, v in (("n", n), ("batch_size", batch_size), ("epochs", epochs)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgument(f"{name}={v!r} is not a whole number >= 1")
    require()
    import torch  # lazy: Opacus's own dependency, heavy
    from opacus import PrivacyEngine  # lazy: optional library

    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.zeros(n, 1), torch.zeros(n, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # secure-RNG and GDP warnings: the numbers stand
        _, made, private_loader = PrivacyEngine(accountant=accountant).make_private_with_epsilon(
            module=model, optimizer=optimizer, data_loader=loader, target_epsilon=target_epsilon,
            target_delta=delta, epochs=epochs, max_grad_norm=1.0)
    return float(made.noise_multiplier), float(private_loader.sample_rate), epochs * len(private_loader)
