"""Drop-in accountants (issue 27, item 6): dp_accounting's PrivacyAccountant interface answered
with certified epsilons (the Opacus one is tested in tests/audits/test_opacus.py, in Opacus's
own environment)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactdp.accountants import certified_upper, dp_accounting_accountant
from exactdp.mechanisms.accounting.accountant import account

D = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant, UnsupportedEventError  # noqa: E402


def test_it_is_a_privacy_accountant_and_its_epsilon_is_the_certified_upper_end():
    acc = dp_accounting_accountant()
    assert isinstance(acc, PrivacyAccountant) and acc.neighboring_relation == NeighboringRelation.ADD_OR_REMOVE_ONE
    step = E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0))
    acc.compose(step, 400).compose(step, 600)  # two calls: 1000 steps in all
    eps = acc.get_epsilon(1e-6)
    truth = account(("gaussian", {"sigma": 1, "sampling": "poisson", "rate": Fraction(0.01)}), 1000,
                    delta=Fraction(1e-6))
    assert isinstance(eps, float) and Fraction(eps) >= truth.upper and Fraction(eps) - truth.upper < Fraction(1, 10**15)
    # dp_accounting's own pessimistic PLD accountant (1e-4) lands at or above the certified lower end
    pld = D.pld.PLDAccountant(value_discretization_interval=1e-4).compose(step, 1000).get_epsilon(1e-6)
    assert Fraction(pld) >= truth.lower
    delta = acc.get_delta(1.0)  # epsilon 1 (delta about 2.6e-3): a third of epsilon 2's time (8 s)
    assert Fraction(delta) >= account(("gaussian", {"sigma": 1, "sampling": "poisson", "rate": Fraction(0.01)}), 1000,
                                      epsilon=1).upper


def test_replace_one_reads_the_gaussian_at_sensitivity_2():
    acc = dp_accounting_accountant(NeighboringRelation.REPLACE_ONE)
    acc.compose(E.GaussianDpEvent(3.0))
    assert acc.get_epsilon(1e-5) == certified_upper([("gaussian", {"sigma": 3, "sensitivity": 2}, 1)], delta=1e-5)
    assert acc.get_epsilon(1e-5) > dp_accounting_accountant().compose(E.GaussianDpEvent(3.0)).get_epsilon(1e-5)


def test_unsupported_and_non_private_events():
    acc = dp_accounting_accountant()
    bad = E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 1.0, 1.0)
    assert not acc.supports(bad)
    with pytest.raises(UnsupportedEventError, match="has no model of it"):
        acc.compose(bad)
    assert acc.get_epsilon(1e-5) == 0.0  # nothing composed
    acc.compose(E.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(1.0) == 1.0
