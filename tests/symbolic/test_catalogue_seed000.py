"""Seed 000's catalogue entries: verdicts written by hand from the proofs in proofs/s000-*.md,
the published violations with their witnesses (regression cases), exact values, and one
current proof per entry."""

from fractions import Fraction

import pytest
import sympy

from exactdp import _proofs
from exactdp.checkers.results import Verdict
from exactdp.errors import InvalidArgument
from exactdp.symbolic import entries_seed000
from exactdp.symbolic.catalogue import check_entry, evaluate
from exactdp.symbolic.symbols import epsilon

# (verdict, tight): the evidence is bit-exact-grid, so a formula never below the truth is
# holds-on-grid; tight apart (published: attained on some binding; derived: on every one)
HT, H, V = (Verdict.HOLDS_ON_GRID, True), (Verdict.HOLDS_ON_GRID, False), (Verdict.VIOLATED, False)
ENTRIES = {e.id: e for e in entries_seed000.entries()}

EXPECTED = {
    "s000/count/add-remove": (HT, HT),
    "s000/sum/bounded-values": (V, HT),
    "s000/clipped-sum/add-remove": (V, HT),
    "s000/clipped-sum/substitute": (HT, HT),
    "s000/distance/change-is-two": (HT, HT),
    "s000/average/sequential-composition": (V, HT),
    "s000/clip-sweep/sequential-composition": (H, HT),
    "s000/function/identity": (HT, HT),
    "s000/function/x-plus-x": (HT, HT),
    "s000/function/five-x": (HT, HT),
}

_CHECKS: dict = {}


def _check(entry_id):
    if entry_id not in _CHECKS:
        _CHECKS[entry_id] = check_entry(ENTRIES[entry_id])
    return _CHECKS[entry_id]


def test_the_entries_are_the_expected_ones():
    assert sorted(ENTRIES) == sorted(EXPECTED)


@pytest.mark.parametrize("entry_id", sorted(EXPECTED))
def test_verdicts(entry_id):
    published, derived = EXPECTED[entry_id]
    check = _check(entry_id)
    assert (check.published_verdict, check.published_tight) == published
    assert (check.derived_verdict, check.derived_tight) == derived
    assert check.evidence.value == "bit-exact-grid"
    assert check.ok


@pytest.mark.parametrize("entry_id", ["s000/sum/bounded-values", "s000/clipped-sum/add-remove"])
def test_upper_minus_lower_is_violated_for_positive_bounds(entry_id):
    # L = 0 (ages, 125) and L = 0, U = 3 are tight; the first violation is L = 2, U = 5:
    # adding the record 5 to the empty dataset moves the sum by 5 > U - L = 3
    w = _check(entry_id).published_witness
    assert w.params == dict(L=2, U=5, d_in=1)
    assert (w.formula_value, w.truth.value) == (3, 5)
    assert (w.truth.witness.x, w.truth.witness.x_prime) == ((), (5,))
    assert (w.truth.witness.fx, w.truth.witness.fx_prime) == (0, 5)


def test_seed_example_clip_0_125_is_tight():
    entry = ENTRIES["s000/clipped-sum/add-remove"]
    truth = entry.truth(dict(L=0, U=125, d_in=1))
    assert truth.value == 125 == evaluate(entry.published, dict(L=0, U=125))


def test_average_costs_more_than_two_epsilon_when_L_is_positive():
    # noise scaled to U - L = 8 for a sum that moves by 10: eps*(10/8 + 1) = 9/8 at eps = 1/2
    w = _check("s000/average/sequential-composition").published_witness
    assert w.params == dict(L=2, U=10, epsilon=Fraction(1, 2), d_in=1)
    assert (w.formula_value, w.truth.value) == (1, Fraction(9, 8))
    pair = w.truth.witness
    assert (pair.x, pair.x_prime) == ((), (10,))
    assert pair.fx_prime == (Fraction(5, 8), Fraction(1, 2))


def test_clip_sweep_costs_99_not_100_queries():
    # the query with upper bound 0 is released without noise and is always 0
    check = _check("s000/clip-sweep/sequential-composition")
    w = check.published_witness
    assert w.params == dict(epsilon=Fraction(1, 100), d_in=1)
    assert (w.formula_value, w.truth.value) == (1, Fraction(99, 100))
    assert w.truth.witness.x_prime == (99,)  # every age >= 99 attains it
    assert ENTRIES["s000/clip-sweep/sequential-composition"].derived == 99 * epsilon


@pytest.mark.parametrize("entry_id, params, value", [
    ("s000/average/sequential-composition", dict(L=-2, U=10, epsilon=1, d_in=1), Fraction(11, 6)),
    ("s000/average/sequential-composition", dict(L=0, U=125, epsilon=1, d_in=1), 2),
    ("s000/average/sequential-composition", dict(L=-10, U=-2, epsilon=1, d_in=1), Fraction(9, 4)),
    ("s000/clip-sweep/sequential-composition", dict(epsilon=Fraction(1, 10), d_in=1), Fraction(99, 10)),
    ("s000/clipped-sum/substitute", dict(L=-4, U=-1, N=3, d_in=1), 3),
    ("s000/sum/bounded-values", dict(L=-4, U=-1, d_in=1), 4),
    ("s000/distance/change-is-two", dict(N=2, d_in=1), 2),
    ("s000/function/five-x", dict(d_in=1), 5),
])
def test_exact_values(entry_id, params, value):
    entry = ENTRIES[entry_id]
    assert entry.truth(params).value == value
    assert evaluate(entry.derived, params) == sympy.sympify(value)


def test_every_entry_has_exactly_one_current_proof():
    proofs = [p for p in _proofs.load_proofs() if p.path.name.startswith("s000-")]
    assert sorted(c for p in proofs for c in p.catalogue) == sorted(ENTRIES)
    for p in proofs:
        assert _proofs.stale(p) == [], p.path.name
        for entry_id in p.catalogue:
            assert set(ENTRIES[entry_id].covers) <= set(p.covers)


@pytest.mark.parametrize("call, error, match", [
    (lambda: entries_seed000.linear_function("5"), InvalidArgument, "c='5' is not an int"),
    (lambda: entries_seed000.linear_function(2.0), InvalidArgument, "c=2.0 is not an int"),
    (lambda: entries_seed000.linear_function(True), InvalidArgument, "c=True"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
