"""The exact budget ledger: exact splits accepted, overspends refused, floats only by choice."""

from __future__ import annotations

import json
from fractions import Fraction

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.accounting.ledger import BudgetExceeded, BudgetLedger, Spend


def test_exact_split_of_one_is_accepted_opendp_2131():
    # opendp/opendp#2131: floats refused [0.1, 0.9] of 1.0 ("1.0000000000000002 > 1.0").
    ledger = BudgetLedger(epsilon=1)
    ledger.spend(epsilon="0.1", label="a")
    ledger.spend(epsilon="0.9", label="b")
    assert ledger.spent()["epsilon"] == 1
    assert ledger.remaining() == {"epsilon": 0, "delta": 0, "rho": None}
    # and nothing more fits, not even the smallest positive amount
    assert not ledger.check(epsilon=Fraction(1, 10**30))
    assert ledger.check(epsilon=0)


def test_ten_tenths_fit_exactly_and_an_eleventh_is_refused():
    ledger = BudgetLedger(epsilon=1, delta="1e-5")
    for i in range(10):
        ledger.spend(epsilon="0.1", delta="1e-6", label=f"q{i}")
    # deltas compose optimally at the sum of the epsilons: 1 - (1 - 1e-6)^10 < 1e-5
    spent_delta = 1 - (1 - Fraction(1, 10**6)) ** 10
    assert ledger.spent() == {"epsilon": 1, "delta": spent_delta, "rho": None}
    with pytest.raises(BudgetExceeded) as info:
        ledger.spend(epsilon="0.1", label="q10")
    assert len(ledger.history) == 10  # unchanged
    assert info.value.spend == Spend(11, "q10", epsilon=Fraction(1, 10), delta=Fraction(0))
    left = (Fraction(1, 10**5) - spent_delta) / (1 - spent_delta)
    assert info.value.remaining == {"epsilon": 0, "delta": left, "rho": None}
    assert Fraction(45, 10**12) < left < Fraction(46, 10**12)  # C(10, 2) * 1e-12, about


def test_overspend_message_names_the_spend_what_is_left_and_what_to_do():
    ledger = BudgetLedger(epsilon=1, delta="1e-6")
    ledger.spend(epsilon="0.25", delta="1e-7", label="count")
    with pytest.raises(BudgetExceeded) as info:
        ledger.spend(epsilon="0.8", delta="1e-7", label="sum")
    msg = str(info.value)
    assert "spend #2 'sum' (epsilon=4/5, delta=1/10000000)" in msg
    assert "epsilon: spent 1/4 + 4/5 = 21/20 > budget 1" in msg
    # the largest delta a next spend may take: 1 - (1 - 1e-7)(1 - d) = 1e-6 at d = 9/9999999
    assert "Left: epsilon=3/4, delta=1/1111111" in msg
    assert "Spend at most what is left" in msg
    assert ledger.spent()["epsilon"] == Fraction(1, 4)


def test_delta_alone_can_overspend():
    ledger = BudgetLedger(epsilon=10, delta="1e-6")
    ledger.spend(epsilon=0, delta="1e-6")
    with pytest.raises(BudgetExceeded, match=r"delta: 1 - \(1 - 1/1000000\)\(1 - 1/10000000000\) = "
                                             r"10000999999/\.\.\.000000000000 \(29 characters\) > budget 1/1000000"):
        ledger.spend(epsilon="0.1", delta="1e-10")


def test_rho_account_adds_exactly_and_is_separate():
    ledger = BudgetLedger(epsilon=1, rho="1/2")
    ledger.spend(rho="1/8")
    ledger.spend(rho="3/8")
    ledger.spend(epsilon="1")
    assert ledger.spent() == {"epsilon": 1, "delta": 0, "rho": Fraction(1, 2)}
    with pytest.raises(BudgetExceeded, match="rho: spent 1/2 \\+ 1/1000 = 501/1000 > budget 1/2"):
        ledger.spend(rho="0.001", label="late")
    assert [s.rho for s in ledger.history] == [Fraction(1, 8), Fraction(3, 8), None]


def test_pure_epsilon_against_a_rho_budget_via_the_exact_conversion():
    # A pure eps-DP mechanism is eps**2/2-zCDP: spend that against a rho budget.
    ledger = BudgetLedger(rho="1/2")
    ledger.spend(rho=Fraction(1, 2) ** 2 / 2)
    assert ledger.remaining()["rho"] == Fraction(3, 8)


def test_rho_total_read_as_approx_dp_at_the_end():
    # anchors §6: rho = 0.5, delta = 1e-6: CKS20 epsilon 5.22153444453, Bun-Steinke 5.75652176976
    ledger = BudgetLedger(rho=1)
    ledger.spend(rho="0.2")
    ledger.spend(rho="0.3")
    assert round(ledger.approx_dp_of_rho("1e-6").safe_float, 11) == 5.22153444453
    assert round(ledger.approx_dp_of_rho("1e-6", method="bun-steinke").safe_float, 11) == 5.75652176976
    # converting once is tighter than converting each spend and adding (delta split in two)
    from exactdp.mechanisms.accounting.zcdp import epsilon_of_rho
    per_spend = epsilon_of_rho("0.2", "5e-7").safe_float + epsilon_of_rho("0.3", "5e-7").safe_float
    assert per_spend > 7 > ledger.approx_dp_of_rho("1e-6").safe_float


def test_floats_refused_by_default_with_how_to_pass_them():
    ledger = BudgetLedger(epsilon=1)
    with pytest.raises(InexactInput, match=r"spend #1 'x' epsilon=0.1 is a float.*'0.1'"):
        ledger.spend(epsilon=0.1, label="x")
    assert ledger.history == ()


def test_floats_at_their_binary_value_do_not_split_one_exactly():
    # Fraction(0.1) + Fraction(0.9) = 1 + 2**-55: NOT exactly 1, although 0.1 + 0.9 == 1.0
    # in float arithmetic. Taken at their binary values, the second spend overspends.
    assert 0.1 + 0.9 == 1.0
    assert Fraction(0.1) + Fraction(0.9) == 1 + Fraction(1, 2**55)
    ledger = BudgetLedger(epsilon=1, floats="binary")
    ledger.spend(epsilon=0.1)
    with pytest.raises(BudgetExceeded, match="> budget 1"):
        ledger.spend(epsilon=0.9)
    # the binary value of 0.5 is exact, so halves do fit
    halves = BudgetLedger(epsilon=1.0, floats="binary")
    halves.spend(epsilon=0.5)
    halves.spend(epsilon=0.5)
    assert halves.remaining()["epsilon"] == 0


def test_to_dict_is_json_with_safe_floats():
    ledger = BudgetLedger(epsilon=1, delta="1e-5", rho="1/3")
    ledger.spend(epsilon="1/3", delta="1e-6", label="a")
    ledger.spend(rho="1/10")
    d = json.loads(json.dumps(ledger.to_dict()))
    assert d["budget"] == {"epsilon": "1", "delta": "1/100000", "rho": "1/3"}
    assert d["spent"]["epsilon"] == {"exact": "1/3", "float_at_least": 0.33333333333333337}
    assert d["remaining"]["epsilon"] == {"exact": "2/3", "float_at_most": 0.6666666666666666}
    assert Fraction(d["spent"]["epsilon"]["float_at_least"]) > Fraction(1, 3)
    assert Fraction(d["remaining"]["epsilon"]["float_at_most"]) < Fraction(2, 3)
    assert d["remaining"]["rho"]["exact"] == "7/30"
    assert d["history"] == [
        {"index": 1, "label": "a", "epsilon": "1/3", "delta": "1/1000000", "rho": None},
        {"index": 2, "label": None, "epsilon": None, "delta": None, "rho": "1/10"},
    ]
    assert d["floats"] == "refuse"
    assert repr(ledger) == "BudgetLedger(epsilon='1', delta='1/100000', rho='1/3', spends=2)"


def test_approx_dp_of_rho_is_the_ledgers_not_a_spends():
    # it was pasted onto Spend too, where it raised AttributeError ('_budget')
    assert not hasattr(Spend, "approx_dp_of_rho")
    assert not hasattr(Spend(1, None, rho=Fraction(1)), "approx_dp_of_rho")
    ledger = BudgetLedger(rho="1/2")
    ledger.spend(rho="1/4")
    ledger.spend(rho="1/4")
    assert ledger.approx_dp_of_rho("1e-6").safe_float == 5.221534444530169


def test_messages_show_exact_values_short():
    with pytest.raises(InvalidArgument) as info:
        BudgetLedger(epsilon=1).spend(epsilon=0, delta=Fraction(3, 2))
    assert "spend #1 delta=3/2 is above 1" in str(info.value)
    huge = Fraction(10**400)
    ledger = BudgetLedger(epsilon=huge)
    with pytest.raises(BudgetExceeded) as info:
        ledger.spend(epsilon=huge + 1, label="big")
    msg = str(info.value)
    assert "Fraction(" not in msg and len(msg) < 500
    assert re.search(r"epsilon: spent 0 \+ 100000000000\d*\.\.\.0*1 \(401 characters\)", msg)
    assert info.value.spend.epsilon == huge + 1  # the record itself stays exact


BAD = [
    (lambda: BudgetLedger(), InvalidArgument, "no budget given"),
    (lambda: BudgetLedger(delta="1e-6"), InvalidArgument, "delta='1e-6' given without epsilon"),
    (lambda: BudgetLedger(epsilon=-1), InvalidArgument, "budget epsilon=-1 is negative"),
    (lambda: BudgetLedger(epsilon=1, delta=2), InvalidArgument, "budget delta=2 is above 1"),
    (lambda: BudgetLedger(epsilon=1.0), InexactInput, "budget epsilon=1.0 is a float"),
    (lambda: BudgetLedger(epsilon=1, floats="round"), InvalidArgument, "floats='round' is not a float policy"),
    (lambda: BudgetLedger(epsilon=1).spend(), InvalidArgument, "spend #1 spends nothing"),
    (lambda: BudgetLedger(epsilon=1).spend(delta="1e-6"), InvalidArgument, "without epsilon; pass epsilon=0"),
    (lambda: BudgetLedger(epsilon=1).spend(epsilon="-0.1"), InvalidArgument, "spend #1 epsilon='-0.1' is negative"),
    (lambda: BudgetLedger(epsilon=1).spend(epsilon=0, delta="1.5"), InvalidArgument, "delta='1.5' is above 1"),
    (lambda: BudgetLedger(epsilon=1).spend(rho="0.1"), InvalidArgument, "has no rho budget"),
    (lambda: BudgetLedger(rho=1).spend(epsilon="0.1"), InvalidArgument, "spend rho=epsilon**2/2"),
    (lambda: BudgetLedger(epsilon=1, rho=1).spend(epsilon=1, rho=1), InvalidArgument, "a spend goes to one account"),
    (lambda: BudgetLedger(epsilon=1).spend(epsilon=1, label=3), InvalidArgument, "label=3 is not a string"),
    (lambda: BudgetLedger(epsilon=1).spend(epsilon="abc"), InvalidArgument, "'abc' is not an exact number"),
    (lambda: BudgetLedger(epsilon=1).approx_dp_of_rho("1e-6"), InvalidArgument, "has no rho account"),
    (lambda: BudgetLedger(rho=1).approx_dp_of_rho("1e-6"), InvalidArgument, "nothing has been spent"),
    # a validated Spend recorded directly (as `exactdp compose` does) to an account the ledger lacks:
    # refused by name (it was a TypeError from None + amount)
    (lambda: BudgetLedger(rho=1)._record(Spend(1, "sum", epsilon=Fraction(1, 10), delta=Fraction(0))),
     InvalidArgument, "spend #1 'sum' spends epsilon=1/10 but this ledger has no epsilon budget"),
    (lambda: BudgetLedger(epsilon=1)._record(Spend(1, None, rho=Fraction(1, 2))),
     InvalidArgument, "spend #1 spends rho=1/2 but this ledger has no rho budget"),
]


@pytest.mark.parametrize("call, exc, fragment", BAD)
def test_bad_arguments(call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)
    assert "Fraction(" not in str(info.value)


# --- properties ---------------------------------------------------------------------

def _fractions(numerators: int, denominators: int):
    # cheaper to generate than st.fractions(...) and just as exact
    return st.builds(Fraction, st.integers(0, numerators), st.integers(1, denominators))


fractions = _fractions(3 * 10**6, 10**6)


@settings(max_examples=1000, deadline=None)
@given(budget=fractions, spends=st.lists(fractions, max_size=6))
def test_never_accepts_a_total_above_the_budget(budget, spends):
    ledger = BudgetLedger(epsilon=budget)
    accepted = Fraction(0)
    for s in spends:
        fits = accepted + s <= budget
        assert ledger.check(epsilon=s) == fits
        if fits:
            ledger.spend(epsilon=s)
            accepted += s
        else:
            with pytest.raises(BudgetExceeded):
                ledger.spend(epsilon=s)
    assert ledger.spent()["epsilon"] == accepted <= budget
    assert ledger.remaining()["epsilon"] == budget - accepted >= 0


@settings(max_examples=700, deadline=None)
@given(budget=_fractions(5 * 10**9, 10**9),
       weights=st.lists(st.integers(1, 10**6), min_size=1, max_size=8),
       delta=st.builds(lambda n, d: Fraction(min(n, d), d), st.integers(0, 10**12), st.integers(1, 10**12)))
def test_always_accepts_an_exact_split_of_the_whole_budget(budget, weights, delta):
    # parts are exact fractions of the budget that add up to it exactly
    # (basic composition would use the whole delta; the optimal rule uses at most that)
    total = sum(weights)
    ledger = BudgetLedger(epsilon=budget, delta=delta)
    survival = Fraction(1)
    for w in weights:
        ledger.spend(epsilon=budget * w / total, delta=delta * w / total)
        survival *= 1 - delta * w / total
    spent = 1 - survival
    assert spent <= delta
    assert ledger.spent()["delta"] == spent
    left = Fraction(1) if spent == 1 else (delta - spent) / (1 - spent)
    assert ledger.remaining() == {"epsilon": 0, "delta": left, "rho": None}
    assert not ledger.check(epsilon=Fraction(1, 10**40))
    # exactly what is left fits, and one part in 10^40 more does not
    assert ledger.check(epsilon=0, delta=left)
    if left < 1:
        assert not ledger.check(epsilon=0, delta=left + Fraction(1, 10**40))


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=1, max_size=5))
def test_binary_floats_are_charged_at_their_exact_value(parts):
    exact = sum(Fraction(p) for p in parts)
    ledger = BudgetLedger(epsilon=exact, floats="binary")
    for p in parts:
        ledger.spend(epsilon=p)
    assert ledger.remaining()["epsilon"] == 0
    assert ledger.to_dict()["spent"]["epsilon"]["float_at_least"] >= exact  # rounded up, never below
