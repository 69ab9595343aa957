"""One record per mechanism: everything exactdp knows about a mechanism, in one place.

A :class:`MechanismSpec` names the mechanism (its CLI name), says in one line which
parameters it takes, and points to the code of each operation by a dotted reference
``"module:attribute"`` that is imported only when the mechanism is chosen (as Hypothesis
resolves its providers): the exact model (:func:`exactdp.mechanisms.mechanism.make_mechanism`,
``exactdp privacy``), the certified accountant's component
(:func:`exactdp.mechanisms.accounting.accountant.account`, ``exactdp account``), its Renyi DP
(:func:`exactdp.mechanisms.accounting.rdp.rdp`, ``--rdp``) and the proof notes that argue for
them. Every reader (``make_mechanism``, ``account``, RDP, the command-line help, the docs'
mechanism table) reads :data:`SPECS`; none keeps a list of its own.

Adding a mechanism is one record here and its model module (and, for the accountant, its
component builder): ``tests/mechanisms/test_specs.py`` shows a new record reaching every
reader.

>>> spec("gaussian").operations()
('model', 'account', 'rdp')
>>> names("account")[:3]
('discrete-laplace', 'randomized-response', 'gaussian')
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from exactdp.errors import InvalidArgument

__all__ = ["MechanismSpec", "SPECS", "OPERATIONS", "spec", "names", "resolve"]

OPERATIONS = ("model", "account", "rdp")
"""What a spec may point to: an exact model, an accountant component, a Renyi DP part."""

_WHAT = {"model": "exactdp models exactly", "account": "the accountant composes",
         "rdp": "has a Renyi DP computation"}


@dataclass(frozen=True)
class MechanismSpec:
    """A mechanism: its name, its parameters in one line, and its code by operation.

    ``model``, ``account`` and ``rdp`` are ``"module:attribute"`` references (or ``None``
    when the mechanism has no such operation): ``model`` a constructor ``(**params) ->
    Mechanism``; ``account`` a builder ``(params) -> component`` of the accountant; ``rdp``
    a function ``(component, params) -> part`` of :mod:`exactdp.mechanisms.accounting.rdp`.
    ``help`` describes the model's parameters (``exactdp privacy``), ``account_help`` the
    accountant's (``exactdp account``; defaults to ``help``); ``proofs`` names the notes in
    ``proofs/`` that argue for the code."""

    name: str
    help: str
    model: str | None = None
    account: str | None = None
    rdp: str | None = None
    account_help: str | None = None
    proofs: tuple[str, ...] = ()

    def operations(self) -> tuple[str, ...]:
        """The operations this mechanism has, in :data:`OPERATIONS` order."""
        return tuple(op for op in OPERATIONS if getattr(self, op) is not None)

    def help_for(self, operation: str) -> str:
        """The parameter line shown where ``operation`` is offered."""
        if operation == "account" and self.account_help is not None:
            return self.account_help
        return self.help


SPECS: tuple[MechanismSpec, ...] = (
    MechanismSpec(
        "discrete-laplace",
        "scale=T (P(z) ∝ exp(-|z|/T)); variant=none|clamped|truncated with lower=L upper=U; "
        "integer query values",
        model="exactdp.mechanisms.models.noise:DiscreteLaplace", account="exactdp.mechanisms.accounting.accountant:_discrete_laplace",
        rdp="exactdp.mechanisms.accounting.rdp:_discrete_laplace_part",
        account_help="scale=T (P(z) proportional to exp(-|z|/T)), sensitivity=1",
        proofs=("accountant-rdp.md",)),
    MechanismSpec(
        "randomized-response", "p=P (truth probability) or epsilon=E; k_values=K (default 2)",
        model="exactdp.mechanisms.models.randomized_response:RandomizedResponse", account="exactdp.mechanisms.accounting.accountant:_randomized_response",
        rdp="exactdp.mechanisms.accounting.rdp:_randomized_response_part",
        account_help="p=P (truth probability) or epsilon=E, k_values=2",
        proofs=("exactdp-randomized-response.md", "accountant-rdp.md")),
    MechanismSpec(
        "gaussian", "sigma=S (continuous Gaussian noise; delta is an enclosure); query values: "
                    "numbers, or vectors of the same length (noise on each coordinate; the loss "
                    "depends on the L2 distance)",
        model="exactdp.mechanisms.models.noise:Gaussian", account="exactdp.mechanisms.accounting.accountant:_gaussian", rdp="exactdp.mechanisms.accounting.rdp:_gaussian_part",
        account_help="sigma=S, sensitivity=1; DP-SGD: sampling=poisson rate=Q (each record in a "
                     "batch with probability Q; add/remove neighbours, both directions)",
        proofs=("s002-gaussian-classic.md", "accountant-poisson-gaussian.md", "accountant-rdp.md")),
    MechanismSpec(
        "discrete-gaussian", "sigma_squared=S2 or sigma=S; integer query values (delta is an enclosure)",
        model="exactdp.mechanisms.models.noise:DiscreteGaussian", account="exactdp.mechanisms.accounting.accountant:_discrete_gaussian",
        rdp="exactdp.mechanisms.accounting.rdp:_discrete_gaussian_part",
        account_help="sigma=S or sigma_squared=S2, sensitivity=1",
        proofs=("accountant-rdp.md",)),
    MechanismSpec(
        "laplace", "scale=B (continuous Laplace noise); query values: numbers, or vectors of "
                   "the same length (noise on each coordinate: epsilon is the L1 distance over B)",
        model="exactdp.mechanisms.models.noise:Laplace", account="exactdp.mechanisms.accounting.accountant:_laplace",
        account_help="scale=B, sensitivity=1 (the continuous Laplace mechanism)",
        proofs=("accountant-profile.md",)),
    MechanismSpec(
        "exponential", "epsilon=E sensitivity=DELTA (default 1) form=2delta|monotone (default 2delta); "
                       "query value: the tuple of candidate utilities",
        model="exactdp.mechanisms.models.selection:ExponentialMechanism", account="exactdp.mechanisms.accounting.accountant:_exponential",
        rdp="exactdp.mechanisms.accounting.rdp:_selection_part",
        account_help="epsilon=E, sensitivity=1, form=2delta|monotone (composed through its worst-case "
                     "pure epsilon: sound, not tight)",
        proofs=("s002-exponential-mechanism.md",)),
    MechanismSpec(
        "permute-and-flip", "epsilon=E sensitivity=DELTA (default 1); query value: the tuple of "
                            "candidate utilities",
        model="exactdp.mechanisms.models.selection:PermuteAndFlip", account="exactdp.mechanisms.accounting.accountant:_permute_and_flip",
        rdp="exactdp.mechanisms.accounting.rdp:_selection_part",
        account_help="epsilon=E, sensitivity=1 (composed through its pure epsilon: sound, not tight)"),
    MechanismSpec(
        "report-noisy-max", "noise=gumbel|exponential epsilon=E sensitivity=DELTA (default 1); "
                            "gumbel is the exponential mechanism, exponential is permute-and-flip",
        model="exactdp.mechanisms.models.selection:report_noisy_max", account="exactdp.mechanisms.accounting.accountant:_report_noisy_max",
        rdp="exactdp.mechanisms.accounting.rdp:_selection_part",
        account_help="epsilon=E, sensitivity=1, noise=gumbel|exponential (composed through its pure "
                     "epsilon: sound, not tight)"),
    MechanismSpec(
        "float-randomized-response", "p=P (stored as the nearest float) or epsilon=E "
                                     "(p = exp(E)/(1+exp(E)) in float64); u < p on the 2^-53 grid",
        model="exactdp.mechanisms.models.samplers:FloatRandomizedResponse"),
    MechanismSpec(
        "exponential-float-sampler", "epsilon=E sensitivity=DELTA (default 1): seed 002's "
                                     "argmax(cdf >= u) over float64 probabilities",
        model="exactdp.mechanisms.models.samplers:FloatExponentialSampler"),
    MechanismSpec(
        "float-laplace", "scale=B precision=P emin=A emax=B grid_bits=G: inverse-CDF Laplace "
                         "in a toy float format, enumerated over 2^G uniform grid points",
        model="exactdp.mechanisms.models.samplers:FloatLaplace"),
)
"""Every mechanism exactdp knows, in the order the accountant's help lists them."""


def names(operation: str | None = None) -> tuple[str, ...]:
    """The names of the mechanisms that have ``operation`` (all of them for ``None``), in
    :data:`SPECS` order."""
    if operation is not None and operation not in OPERATIONS:
        raise InvalidArgument(f"operation={operation!r} is not one of {', '.join(OPERATIONS)}")
    return tuple(s.name for s in SPECS if operation is None or getattr(s, operation) is not None)


def spec(name: str, operation: str | None = None) -> MechanismSpec:
    """The spec of ``name``; with ``operation``, refused unless the mechanism has it, naming
    the mechanisms that do."""
    found = next((s for s in SPECS if s.name == name), None)
    if operation is not None and operation not in OPERATIONS:
        raise InvalidArgument(f"operation={operation!r} is not one of {', '.join(OPERATIONS)}")
    if found is None or (operation is not None and getattr(found, operation) is None):
        which = names(operation)
        if operation in (None, "model") and found is None:
            raise InvalidArgument(f"mechanism={name!r} is not known; use one of {', '.join(sorted(which))}")
        raise InvalidArgument(f"mechanism={name!r} is not one {_WHAT[operation]}; use one of "
                              f"{', '.join(which)}")
    return found


def resolve(reference: str) -> Callable[..., Any]:
    """The object a ``"module:attribute"`` reference names (imported now)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
