"""Seed 002's catalogue entries: verdicts written by hand from the proofs in proofs/s002-*.md,
exact values at chosen bindings, the published violation with its witness, and one current
proof per entry."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp import _proofs
from exactdp.checkers.results import Verdict
from exactdp.errors import InexactInput, InvalidArgument
from exactdp.symbolic import entries_seed002
from exactdp.symbolic.catalogue import check_entry, evaluate
from exactdp.symbolic.constructors import (
    make_clamp, make_histogram, make_mean, make_sum, make_variance, make_vector_sum,
)
from exactdp.symbolic.symbols import N, L, U, d_in

# (verdict, tight): the evidence is bit-exact-grid, so a formula never below the truth is
# holds-on-grid; tight apart (published: attained on some binding; derived: on every one)
HT, H, V = (Verdict.HOLDS_ON_GRID, True), (Verdict.HOLDS_ON_GRID, False), (Verdict.VIOLATED, False)
ENTRIES = {e.id: e for e in entries_seed002.entries()}

# id: (published verdict or None when the seed leaves it blank, derived verdict)
EXPECTED = {
    "s002/table/count/any": (HT, HT),
    "s002/table/count/LU": (HT, HT),
    "s002/table/count/LUN": (HT, HT),
    "s002/table/sum/any": (None, HT),
    "s002/table/sum/LU": (HT, HT),
    "s002/table/sum/LUN": (HT, HT),
    "s002/table/mean/any": (None, HT),
    "s002/table/mean/LU": (None, HT),
    "s002/table/mean/LUN": (HT, HT),
    "s002/table/variance/any": (None, HT),
    "s002/table/variance/LU": (None, HT),
    "s002/table/variance/LUN": (HT, HT),
    "s002/table/variance-population/LUN": (H, HT),
    "s002/histogram/L1": (HT, HT),
    "s002/histogram/L1/k-partitions": (HT, HT),
    "s002/histogram/L2/one-per-partition": (HT, HT),
    "s002/histogram/L2/rows": (HT, HT),
    "s002/vector-sum/L1": (HT, HT),
    "s002/vector-sum/L2": (HT, HT),
    "s002/quantile-score/formula/add-remove": (HT, HT),
    "s002/quantile-score/code/add-remove": (HT, HT),
    "s002/quantile-score/formula/substitute": (V, HT),
    "s002/conversion/change-to-symmetric": (HT, HT),
    "s002/conversion/symmetric-to-change": (HT, HT),
    "s002/exercise/duplicate": (None, HT),
    "s002/exercise/resize": (None, HT),
    "s002/exercise/row-map": (None, HT),
    "s002/exercise/mean-size-lower-bound": (None, HT),
    "s002/laplace/histogram": (HT, HT),
    "s002/function/double": (HT, HT),
}

_CHECKS: dict = {}


def _check(entry_id):
    if entry_id not in _CHECKS:
        _CHECKS[entry_id] = check_entry(ENTRIES[entry_id])
    return _CHECKS[entry_id]


def test_every_table_cell_and_seed002_formula_is_an_entry():
    assert sorted(ENTRIES) == sorted(EXPECTED)
    cells = [f"s002/table/{s}/{c}" for s in ("count", "sum", "mean", "variance")
             for c in ("any", "LU", "LUN")]
    assert set(cells) <= set(ENTRIES)


@pytest.mark.parametrize("entry_id", sorted(EXPECTED))
def test_verdicts(entry_id):
    published, derived = EXPECTED[entry_id]
    check = _check(entry_id)
    if published is None:
        assert check.published_verdict is None and check.to_dict()["tight"] is None
    else:
        assert (check.published_verdict, check.published_tight) == published
    assert (check.derived_verdict, check.derived_tight) == derived
    assert check.ok  # tight everywhere, or HOLDS where the entry documents it
    assert check.instances == len(ENTRIES[entry_id].grid)


def test_quantile_score_read_with_changes_is_violated_with_its_witness():
    # one changed record moves a score by (1 - alpha) + alpha = 1 > max(alpha, 1 - alpha)
    w = _check("s002/quantile-score/formula/substitute").published_witness
    assert w.params == dict(alpha=Fraction(1, 2), N=4, d_in=1)
    assert w.formula_value == sympy.Rational(1, 2) and w.truth.value == 1
    pair = w.truth.witness
    assert (pair.x, pair.x_prime) == ((1, 3, 3, 3), (3, 3, 3, 3))
    # candidate 2: g = 1/2*#(<2) - 1/2*#(>2) goes from 1/2 - 3/2 = -1 to -2
    assert (pair.fx, pair.fx_prime) == ((Fraction(-3, 2), -1), (-2, -2))


def test_slack_witnesses():
    pop = _check("s002/table/variance-population/LUN").published_witness
    # the first binding with slack where the variance moves at all (N = 1 is skipped: one
    # record's variance is always 0): one change among 2 records moves it by (U-L)^2/4
    assert pop.params == dict(L=2, U=5, N=2, d_in=2)
    assert (pop.formula_value, pop.truth.value) == (sympy.Rational(9, 2), sympy.Rational(9, 4))
    # 2*d_in changes-to-add/removes is loose once d_in > N: one record changes at most once
    conv = ENTRIES["s002/conversion/change-to-symmetric"]
    assert conv.truth(dict(N=1, d_in=2)).value == 2
    assert evaluate(conv.published, dict(N=1, d_in=2)) == 4
    assert evaluate(conv.derived, dict(N=1, d_in=2)) == 2


def test_first_tight_bindings_of_the_sized_cells():
    # odd d_in is loose (floor(d_in/2) changes); the first tight binding is d_in = 2
    s = _check("s002/table/sum/LUN").published_witness
    assert s.params == dict(L=2, U=5, N=1, d_in=2) and s.truth.value == 3
    v = _check("s002/table/variance/LUN").published_witness
    assert v.params == dict(L=2, U=5, N=2, d_in=2) and v.truth.value == Fraction(9, 2)


@pytest.mark.parametrize("entry_id, params, value", [
    # hand-computed exact sensitivities at single bindings
    ("s002/table/sum/any", dict(L=-4, U=-1, d_in=3), 12),           # 3 records -4
    ("s002/table/sum/LUN", dict(L=-4, U=-1, N=1, d_in=4), 3),       # one record changes once
    ("s002/table/mean/LU", dict(L=-2, U=3, d_in=1), Fraction(5, 2)),  # [L] vs [L, U]
    ("s002/table/mean/LUN", dict(L=-2, U=3, N=4, d_in=3), Fraction(5, 4)),
    ("s002/table/variance/any", dict(L=0, U=3, d_in=1), 3),          # 9/3: [0,0] vs [0,0,3]
    ("s002/table/variance/any", dict(L=0, U=3, d_in=2), Fraction(9, 2)),
    ("s002/table/variance-population/LUN", dict(L=2, U=5, N=4, d_in=2), Fraction(27, 16)),
    ("s002/table/variance-population/LUN", dict(L=2, U=5, N=4, d_in=4), Fraction(9, 4)),
    ("s002/table/variance/LUN", dict(L=-2, U=1, N=5, d_in=4), Fraction(27, 10)),  # 2*3/20*9
    ("s002/quantile-score/formula/add-remove", dict(alpha=Fraction(9, 10), d_in=3), Fraction(27, 10)),
    ("s002/quantile-score/code/add-remove", dict(alpha=Fraction(1, 4), d_in=2), Fraction(3, 2)),
    ("s002/histogram/L2/one-per-partition", dict(d_in=3), sympy.sqrt(3)),
    ("s002/vector-sum/L2", dict(C=Fraction(1, 2), d_in=3), Fraction(3, 2)),
    ("s002/exercise/resize", dict(N=2, d_in=4), 4),
    # m = 3 zeros vs the same plus 2 ones (2/5) beats one change of 3 (1/3): 3 * 2/5
    ("s002/exercise/mean-size-lower-bound", dict(L=2, U=5, min_size=3, d_in=2), Fraction(6, 5)),
    ("s002/laplace/histogram", dict(scale=Fraction(1, 2), d_in=3), 6),
])
def test_exact_values(entry_id, params, value):
    truth = ENTRIES[entry_id].truth(params)
    assert sympy.simplify(sympy.sympify(truth.value) - sympy.sympify(value)) == 0
    assert evaluate(ENTRIES[entry_id].derived, params) == sympy.sympify(value)


@pytest.mark.parametrize("entry_id, make, params, value", [
    ("s002/table/sum/any", lambda: make_sum(), dict(L=-4, U=-1, d_in=3), 12),
    ("s002/table/mean/LUN", lambda: make_clamp(size=N) >> make_mean(size=N),
     dict(L=-2, U=3, N=4, d_in=3), Fraction(5, 4)),
    ("s002/table/variance/LUN", lambda: make_variance(ddof=1, neighbors="add-remove"),
     dict(L=-2, U=1, N=5, d_in=4), Fraction(27, 10)),
    ("s002/vector-sum/L2", lambda: make_vector_sum(norm="L2"), dict(C=Fraction(1, 2), d_in=3),
     Fraction(3, 2)),
    ("s002/histogram/L1/k-partitions", lambda: make_histogram(k=None), dict(k=3, d_in=1), 3),
    ("s002/exercise/mean-size-lower-bound", lambda: make_clamp() >> make_mean(),
     dict(L=2, U=5, min_size=3, d_in=2), Fraction(6, 5)),
])
def test_entry_truth_agrees_with_the_constructors_exact_form(entry_id, make, params, value):
    # two enumerations over different finite spaces (the entry's and the constructor's)
    ours = ENTRIES[entry_id].truth(params).value
    theirs = make().truth(params).value
    assert ours == theirs == value


def test_mean_any_calculus_formula_reduces_to_the_hand_formula():
    # make_mean's general formula at min_size = 1 is (U - L)*min(d_in, 2)/2 (proof s002-table-mean-any)
    calc = make_mean(min_size=1).map()
    hand = (U - L) * sympy.Min(d_in, 2) / 2
    for d in range(0, 9):
        assert sympy.simplify(calc.subs(d_in, d) - hand.subs(d_in, d)) == 0


@settings(max_examples=300, deadline=None)
@given(st.integers(-50, 50), st.integers(0, 100), st.integers(0, 5))
def test_published_max_abs_L_U_equals_max_abs_L_abs_U_when_L_le_U(lo, width, d):
    # seed 002 writes max(|L|, U); with L <= U this is max(|L|, |U|) (proof s002-table-sum-LU)
    params = dict(L=lo, U=lo + width, d_in=d)
    published = ENTRIES["s002/table/sum/LU"].published
    assert evaluate(published, params) == evaluate(ENTRIES["s002/table/sum/LU"].derived, params)


def test_every_entry_has_exactly_one_current_proof():
    proofs = [p for p in _proofs.load_proofs() if p.path.name.startswith("s002-")]
    named = [c for p in proofs for c in p.catalogue]
    assert sorted(named) == sorted(ENTRIES)
    for p in proofs:
        assert _proofs.stale(p) == [], p.path.name
        for entry_id in p.catalogue:
            assert set(ENTRIES[entry_id].covers) <= set(p.covers)


def test_json_form_of_a_violation():
    d = _check("s002/quantile-score/formula/substitute").to_dict()
    assert d["verdict"] == "violated" and d["derived_verdict"] == "holds-on-grid"
    assert (d["evidence"], d["tight"], d["derived_tight_everywhere"]) == ("bit-exact-grid", False, True)
    assert d["witness"]["parameters"] == {"alpha": "1/2", "N": 4, "d_in": 1}
    assert d["witness"]["pair"]["x"] == ["1", "3", "3", "3"]
    assert d["symbols"]["alpha"] and d["neighbors"] == "substitute"


@pytest.mark.parametrize("call, error, match", [
    (lambda: entries_seed002.meanings("zeta"), InvalidArgument, "not a canonical symbol"),
    (lambda: entries_seed002.meanings("d_in", L2="x"), InvalidArgument, "'L2'"),
    (lambda: entries_seed002.count_vector(0.5), InexactInput, "float"),
    (lambda: entries_seed002.additive_vector("q", lambda v: (v,), 1, "L3"), InvalidArgument, "norm"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
