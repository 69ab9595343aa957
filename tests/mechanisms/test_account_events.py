"""account() and PrivacyCurve take a dp_accounting DpEvent (issue 27, item 6): the event read
into the components exactdp composes, with the same certified enclosure as those components
given by name."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account
from exactdp.mechanisms.accounting.curve import PrivacyCurve

D = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402

DELTA = Fraction(1, 10**6)


def test_a_self_composed_poisson_gaussian_is_dp_sgd_at_its_exact_rate():
    event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0)), 1000)
    got = account(event, delta=DELTA)
    # the float 0.01 dp_accounting holds, at its exact binary value (not one hundredth)
    rate = Fraction(5764607523034235, 576460752303423488)
    assert rate == Fraction(0.01) != Fraction(1, 100)
    by_name = account(("gaussian", {"sigma": 1, "sampling": "poisson", "rate": rate}), 1000, delta=DELTA)
    assert (got.k, got.lower, got.upper) == (1000, by_name.lower, by_name.upper) and got.width_met
    assert "SelfComposedDpEvent read under add-or-remove neighbours" in got.notes
    # dp_accounting's pessimistic PLD (documented as an upper bound) lies at or above the lower end
    pld = D.pld.PLDAccountant(value_discretization_interval=1e-3).compose(event).get_epsilon(1e-6)
    assert Fraction(pld) >= got.lower


def test_a_composed_event_is_the_list_of_its_parts():
    event = E.ComposedDpEvent([E.GaussianDpEvent(3.0), E.SelfComposedDpEvent(E.LaplaceDpEvent(2.0), 3)])
    got = account(event, delta="1e-5")
    listed = account([("gaussian", {"sigma": 3, "times": 1}), ("laplace", {"scale": 2, "times": 3})], delta="1e-5")
    assert (got.lower, got.upper) == (listed.lower, listed.upper) and got.k == 1


def test_randomized_response_is_read_under_replace_one_with_the_gaussian_at_sensitivity_2():
    event = E.ComposedDpEvent([E.GaussianDpEvent(3.0), E.RandomizedResponseDpEvent(0.5, 4)])
    got = account(event, delta="1e-5")
    listed = account([("gaussian", {"sigma": 3, "sensitivity": 2}), ("randomized-response", {"p": "5/8", "k_values": 4})],
                     delta="1e-5")
    assert (got.lower, got.upper) == (listed.lower, listed.upper)
    assert "read under replace-one neighbours" in got.notes


def test_privacy_curve_takes_an_event_and_multiplies_its_count():
    event = E.SelfComposedDpEvent(E.GaussianDpEvent(2.0), 5)
    curve = PrivacyCurve(event, 2)
    assert curve.k == 10
    assert curve.epsilon(delta="1e-5").upper == account("gaussian", 10, params={"sigma": 2}, delta="1e-5").upper


@pytest.mark.parametrize("event, message", [
    (E.NonPrivateDpEvent(), "NonPrivateDpEvent: NonPrivateDpEvent releases without noise, so it has no finite epsilon"),
    (E.NoOpDpEvent(), "NoOpDpEvent: no privacy loss"),
    (E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 1.0, 1.0), "RepeatAndSelectDpEvent: exactdp's certified accountant has no model of it"),
    (E.PoissonSampledDpEvent(0.1, E.ComposedDpEvent([E.GaussianDpEvent(1.0), E.GaussianDpEvent(2.0)])),
     "PoissonSampledDpEvent of ComposedDpEvent: exactdp's accountant samples one"),
])
def test_events_that_cannot_be_certified_are_refused_naming_them(event, message):
    with pytest.raises(InvalidArgument) as e:
        account(event, delta="1e-5")
    assert str(e.value).startswith(message)
    with pytest.raises(InvalidArgument):
        PrivacyCurve(event)


def test_params_do_not_go_with_an_event():
    with pytest.raises(InvalidArgument, match="not with a DpEvent"):
        account(E.GaussianDpEvent(1.0), delta="1e-5", params={"sigma": 2})


class _Stepped:
    """The shape of an Opacus accountant (history, step, get_epsilon), for the main environment;
    tests/audits/test_opacus.py passes Opacus's own."""

    def __init__(self, history):
        self.history = history

    def step(self, *, noise_multiplier, sample_rate):
        raise NotImplementedError

    def get_epsilon(self, delta):
        raise NotImplementedError


def test_an_opacus_history_is_dp_sgd_at_its_exact_floats():
    acc = _Stepped([(1.0, 0.01, 600), (1.0, 0.01, 400), (2.0, 0.01, 0)])
    got = account(acc, delta=DELTA)
    rate = Fraction(0.01)
    alone = account(("gaussian", {"sigma": 1, "sampling": "poisson", "rate": rate}), 1000, delta=DELTA)
    assert (got.k, got.lower, got.upper) == (1000, alone.lower, alone.upper)
    assert "history of 3 entries read as DP-SGD steps" in got.notes
    mixed = account(_Stepped([(1.0, 0.01, 500), (2.0, 0.05, 300)]), delta=DELTA)
    listed = account([("gaussian", {"sigma": 1, "sampling": "poisson", "rate": rate, "times": 500}),
                      ("gaussian", {"sigma": 2, "sampling": "poisson", "rate": Fraction(0.05), "times": 300})],
                     delta=DELTA)
    assert (mixed.lower, mixed.upper) == (listed.lower, listed.upper)
    with pytest.raises(InvalidArgument, match="noise_multiplier=0 releases without noise"):
        account(_Stepped([(0.0, 0.01, 10)]), delta=DELTA)
    with pytest.raises(InvalidArgument, match="no privacy loss"):
        account(_Stepped([]), delta=DELTA)
