"""Drop-in privacy accountants whose numbers are certified: the interfaces of dp_accounting's
``PrivacyAccountant`` and Opacus's ``IAccountant``, answered by exactdp's certified accountant.

A training loop keeps calling what it calls today (``compose(event)`` and
``get_epsilon(delta)``; ``step(noise_multiplier=..., sample_rate=...)`` and
``get_epsilon(delta)``), and every epsilon it gets back is the upper end of a certified
enclosure, rounded up to a float: never below the tight epsilon of what was composed (the
floats the loop passed, at their exact binary values). ``get_delta`` is rounded up the same
way. Each call composes from scratch what the history holds (the accountant's time, seconds at
most for the DP-SGD configurations of the benchmark grid).

For example (dp_accounting installed)::

    acc = dp_accounting_accountant()
    acc.compose(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), 1000)
    acc.get_epsilon(1e-6)  # 2.1250152587890625, the certified upper end

The two classes subclass the libraries' own base classes, so they are built when first asked
for (neither library is needed to import this module).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import AccountResult, account
from exactdp.mechanisms.accounting.events import NonPrivate, as_account, history_components, merged, translate
from exactdp.numeric.rounding import float_at_least

__all__ = ["dp_accounting_accountant", "opacus_accountant", "certified_upper"]

_RELATIONS = {"ADD_OR_REMOVE_ONE": "add-or-remove", "REPLACE_ONE": "replace-one",
              "REPLACE_SPECIAL": "replace-special"}
"""dp_accounting's ``NeighboringRelation`` names -> the relations of
:mod:`exactdp.mechanisms.accounting.events`."""


def certified_upper(components: list, *, delta=None, epsilon=None) -> float:
    """The float at or above the certified upper end of ``epsilon(delta)`` (give ``delta``) or
    ``delta(epsilon)`` (give ``epsilon``) of ``components``, ``(name, params, times)`` triples
    composed together (``[]``: no privacy loss, 0.0). Floats are read at their exact values."""
    if not components:
        return 0.0
    mechanisms, k = as_account(components)
    result = account(mechanisms, k, delta=Fraction(delta) if delta is not None else None,
                     epsilon=Fraction(epsilon) if delta is None else None)
    return _upper_float(result)


def _upper_float(result: AccountResult) -> float:
    upper = result.upper
    if isinstance(upper, float):  # infinite: nothing certified
        return math.inf
    return float_at_least(upper)


@cache
def _dp_accounting_class():
    base = _optional.require("dp_accounting.privacy_accountant", library="dp_accounting", extra="dp-accounting")

    class CertifiedAccountant(base.PrivacyAccountant):
        """dp_accounting's ``PrivacyAccountant`` answered by exactdp's certified accountant: the
        composed events read by :func:`exactdp.mechanisms.accounting.events.translate` under the
        accountant's neighbouring relation; ``get_epsilon`` and ``get_delta`` are the certified
        upper ends, rounded up to floats (``inf`` once a non-private event is composed)."""

        def __init__(self, neighboring_relation=None):
            relation = neighboring_relation or base.NeighboringRelation.ADD_OR_REMOVE_ONE
            super().__init__(relation)
            self._relation = _RELATIONS[relation.name]
            self._components: list = []
            self._non_private = False

        def _maybe_compose(self, event, count, do_compose):
            try:
                new, _ = translate(event, self._relation)
            except NonPrivate:
                new, private = [], False
            except InvalidArgument as e:
                return self.CompositionErrorDetails(invalid_event=event, error_message=str(e))
            else:
                private = True
            if do_compose and count:
                self._non_private = self._non_private or not private
                self._components = merged(self._components, new, count)
            return None

        def get_epsilon(self, target_delta: float) -> float:
            if self._non_private:
                return math.inf
            return certified_upper(self._components, delta=target_delta)

        def get_delta(self, target_epsilon: float) -> float:
            if self._non_private:
                return 1.0
            return min(1.0, certified_upper(self._components, epsilon=target_epsilon))

    return CertifiedAccountant


def dp_accounting_accountant(neighboring_relation=None):
    """A dp_accounting ``PrivacyAccountant`` (``compose``, ``supports``, ``get_epsilon``,
    ``get_delta``) whose numbers are certified upper bounds; ``neighboring_relation`` is
    dp_accounting's (default add/remove)."""
    return _dp_accounting_class()(neighboring_relation)


@cache
def _opacus_class():
    base = _optional.require("opacus.accountants.accountant", library="opacus", extra="opacus")

    class CertifiedOpacusAccountant(base.IAccountant):
        """Opacus's ``IAccountant`` answered by exactdp's certified accountant: ``history``
        holds ``(noise_multiplier, sample_rate, steps)`` as Opacus's own accountants keep it
        (so ``state_dict`` and the optimizer hook work unchanged); ``get_epsilon(delta)`` is
        the certified upper end of the Poisson-subsampled Gaussians it lists, composed,
        rounded up to a float."""

        def __init__(self):
            super().__init__()

        def step(self, *, noise_multiplier: float, sample_rate: float):
            if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
                s, q, n = self.history.pop()
                self.history.append((s, q, n + 1))
            else:
                self.history.append((noise_multiplier, sample_rate, 1))

        def get_epsilon(self, delta: float, *args, **kwargs) -> float:
            try:
                parts = history_components(self.history)
            except NonPrivate:
                return math.inf
            return certified_upper(parts, delta=delta)

        def __len__(self) -> int:
            return sum(n for _, _, n in self.history)

        @classmethod
        def mechanism(cls) -> str:
            return "exactdp-certified"

    return CertifiedOpacusAccountant


def opacus_accountant():
    """An Opacus ``IAccountant`` (``step``, ``get_epsilon``, ``history``, ``state_dict``)
    whose epsilons are certified upper bounds: set it as ``privacy_engine.accountant``."""
    return _opacus_class()()
