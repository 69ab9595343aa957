"""The catalogue contract: verdicts and witnesses of check_entry on hand-made entries."""

from fractions import Fraction

import pytest
import sympy

from exactdp.checkers.results import Verdict
from exactdp.checkers.sensitivity import sensitivity
from exactdp.errors import InvalidArgument
from exactdp.spaces import IntegerRange, Multisets
from exactdp.symbolic.catalogue import Entry, Truth, check_entry, evaluate
from exactdp.symbolic.symbols import L, U, d_in

MEANINGS = {"L": "lower", "U": "upper", "d_in": "distance"}
GRID = [dict(L=l, U=u, d_in=k) for l, u in ((-2, -1), (-1, 2), (1, 3)) for k in (1, 2)]


def _sum_truth(p):
    space = Multisets(IntegerRange(p["L"], p["U"]), sizes=(0, 3))
    return Truth.from_result(sensitivity("sum", space, d_in=p["d_in"]))


def _entry(published, derived, **kw):
    return Entry("t/sum", "test", "sum", "add-remove", published, derived, MEANINGS, GRID,
                 _sum_truth, **kw)


def test_published_violated_with_first_breaking_binding_and_pair():
    check = check_entry(_entry(U - L, d_in * sympy.Max(abs(L), abs(U))))
    assert check.published_verdict is Verdict.VIOLATED
    w = check.published_witness
    # sum over {-2, -1}, add/remove 1: the empty set vs {-2} moves by 2 > U - L = 1
    assert w.params == dict(L=-2, U=-1, d_in=1)
    assert w.truth.value == 2 and w.formula_value == 1
    assert (w.truth.witness.x, w.truth.witness.x_prime) == ((), (Fraction(-2),))
    assert (check.derived_verdict, check.derived_tight) == (Verdict.HOLDS_ON_GRID, True) and check.ok
    d = check.to_dict()
    assert d["verdict"] == "violated" and d["witness"]["parameters"] == {"L": -2, "U": -1, "d_in": 1}
    assert (d["evidence"], d["tight"], d["derived_verdict"]) == ("bit-exact-grid", False, "holds-on-grid")
    assert d["published"] == "-L + U" and d["derived"] == "d_in*Max(Abs(L), Abs(U))"


def test_tight_somewhere_is_tight_for_published_but_slack_for_derived():
    # d_in*(|L| + |U|) is above d_in*max(|L|, |U|) unless L or U is 0, never on this grid
    expr = d_in * (sympy.Abs(L) + sympy.Abs(U))
    check = check_entry(_entry(expr, expr, derived_tight=False))
    assert (check.published_verdict, check.published_tight) == (Verdict.HOLDS_ON_GRID, False)
    assert check.published_witness.params == dict(L=-2, U=-1, d_in=1)  # first binding with slack
    assert (check.derived_verdict, check.derived_tight) == (Verdict.HOLDS_ON_GRID, False) and check.ok
    mixed = d_in * sympy.Max(abs(L), abs(U)) + sympy.Max(0, L)  # equal unless L > 0
    check = check_entry(_entry(mixed, mixed))
    assert (check.published_verdict, check.published_tight) == (Verdict.HOLDS_ON_GRID, True)
    assert (check.derived_verdict, check.derived_tight) == (Verdict.HOLDS_ON_GRID, False)
    assert not check.ok  # promised tight everywhere
    assert check.derived_witness.params == dict(L=1, U=3, d_in=1)


def test_evaluate_binds_by_name_and_refuses_missing_parameters():
    assert evaluate(d_in * sympy.Max(abs(L), abs(U)), dict(L=-3, U=2, d_in=2)) == 6
    assert evaluate(U - L, dict(L=Fraction(1, 2), U=2)) == sympy.Rational(3, 2)
    with pytest.raises(InvalidArgument, match="no value for \\['U'\\]"):
        evaluate(U - L, dict(L=1))


@pytest.mark.parametrize("kw, match", [
    (dict(grid=[]), "empty grid"),
    (dict(symbols={"L": "lower"}), "without a meaning"),
])
def test_bad_entries(kw, match):
    args = dict(id="t", source="s", statistic="sum", neighbors="add-remove", published=None,
                derived=U - L, symbols=MEANINGS, grid=GRID, truth=_sum_truth)
    args.update(kw)
    with pytest.raises(InvalidArgument, match=match):
        Entry(**args)


def test_every_catalogue_witness_attains_the_exact_value_it_reports():
    """Across all entries: the reported pair really moves by the exact sensitivity (a pair's
    recorded distance equals the truth), and an entry without a pair has sensitivity 0."""
    from exactdp.symbolic.catalogue import catalogue

    for entry in catalogue():
        check = check_entry(entry)
        for w in (check.published_witness, check.derived_witness):
            if w is None:
                continue
            if w.truth.witness is None:
                assert w.truth.value == 0, entry.id
                continue
            moved = sympy.sympify(w.truth.witness.to_dict()["distance"])
            assert sympy.simplify(moved - sympy.sympify(w.truth.value)) == 0, entry.id
