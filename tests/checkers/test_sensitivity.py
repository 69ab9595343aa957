"""Exact sensitivities, witnesses and verdicts, each derived by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp import (
    ChangeDistance, ClaimViolated, IntegerRange, InvalidArgument, Multisets, SubMultisets,
    SymmetricDistance, TooLarge, UndefinedQuery, Verdict, assert_claim, local_sensitivity,
    sensitivity, sensitivity_curve, verify_claim,
)
from exactdp._progress import Progress
from exactdp.queries import clipped, count, histogram, mean, median, percentile, std, sum_, variance

RECORDS = IntegerRange(-3, 13)  # reaches past every clip bound below


def test_clipped_sum_add_remove_is_max_abs_bound():
    # adding one record of value >= 10 moves the clipped sum by U = 10, not U - L = 8
    r = sensitivity(clipped(sum_, 2, 10), Multisets(RECORDS, sizes=(0, 3)), SymmetricDistance(), 1)
    assert r.value == Fraction(10)
    w = r.witness
    assert abs(len(w.x) - len(w.x_prime)) == 1  # one record added or removed
    assert abs(w.fx - w.fx_prime) == 10
    assert w.distance == 10


def test_clipped_sum_substitute_is_u_minus_l():
    r = sensitivity(clipped(sum_, 2, 10), Multisets(RECORDS, size=3), ChangeDistance(), 1)
    assert r.value == 8
    assert len(r.witness.x) == len(r.witness.x_prime) == 3
    assert abs(r.witness.fx - r.witness.fx_prime) == 8


def test_clipped_sum_grows_linearly_in_d_in():
    space = Multisets(RECORDS, sizes=(0, 3))
    curve = sensitivity_curve(clipped(sum_, -2, 10), space, "add-remove", (1, 2, 3))
    assert [r.value for r in curve.results] == [10, 20, 30]
    assert "d_in" in curve.table() and "30" in curve.table()


def test_mean_witness():
    r = sensitivity(mean, Multisets(IntegerRange(0, 4), sizes=(1, 3)))
    assert r.value == 2
    assert sorted([r.witness.x, r.witness.x_prime], key=len) == [(4,), (0, 4)]
    assert r.scope.pairs == 100  # every unordered add/remove pair of sizes 1..3 over 5 values


def test_std_is_exact_and_irrational():
    # size 3 over {0, 1, 2}, one change: [0,0,0] -> [0,0,2] moves std from 0 to 2*sqrt(2)/3
    r = sensitivity(std(), Multisets(IntegerRange(0, 2), size=3), ChangeDistance(), 1)
    assert sympy.simplify(r.value - 2 * sympy.sqrt(2) / 3) == 0
    assert {r.witness.fx, r.witness.fx_prime} == {0, 2 * sympy.sqrt(2) / 3}


@pytest.mark.parametrize("norm, expected", [("L1", 2), ("Linf", 1), ("L2", sympy.sqrt(2))])
def test_histogram_norms_under_one_change(norm, expected):
    r = sensitivity(histogram([0, 2, 4], norm), Multisets(IntegerRange(0, 3), size=3), ChangeDistance(), 1)
    assert r.value == expected


@pytest.mark.parametrize("query", [sum_, mean, median, percentile(90), variance(1), std(), count])
def test_one_change_is_two_add_removes_on_fixed_size(query):
    space = Multisets(IntegerRange(-1, 3), size=3)
    for k in (1, 2):
        change = sensitivity(query, space, ChangeDistance(), k)
        symmetric = sensitivity(query, space, SymmetricDistance(), ChangeDistance.to_symmetric(k))
        assert change.value == symmetric.value


def test_exact_k_is_one_sided_and_release_centred_reaches_other_sizes():
    space = Multisets(IntegerRange(0, 3), size=2)
    r = sensitivity(count, space, SymmetricDistance(), 2, exact_k=True, scope="release-centred")
    assert r.value == 2
    assert {len(r.witness.x), len(r.witness.x_prime)} in ({2, 4}, {2, 0})
    # in the standard scope a fixed-size space has no add/remove pair at all
    r = sensitivity(count, space, SymmetricDistance(), 1)
    assert r.value == 0 and r.witness is None and r.scope.pairs == 0


def test_local_sensitivity_of_mean():
    # x = [1, 2]: removing gives 1 or 2 (moves 1/2); adding v gives (3 + v)/3, farthest at v = 4
    r = local_sensitivity(mean, [1, 2], Multisets(IntegerRange(0, 4), sizes=(1, 3)))
    assert r.value == Fraction(5, 6)
    assert r.witness.x == (1, 2) and r.witness.x_prime == (1, 2, 4)
    assert r.scope.pairs == 7  # two removals, five additions
    assert "local at x=[1, 2]" in r.scope.describe()


def test_local_sensitivity_refuses_a_dataset_outside_the_space():
    with pytest.raises(InvalidArgument, match="not in"):
        local_sensitivity(mean, [1, 2, 3, 4], Multisets(IntegerRange(0, 4), sizes=(1, 3)))


def test_undefined_policies():
    space = Multisets(IntegerRange(0, 3), sizes=(0, 2))
    with pytest.raises(UndefinedQuery, match=r"mean is undefined on x=\[\] \(size 0\)"):
        sensitivity(mean, space)
    excluded = sensitivity(mean, space, undefined="exclude")
    assert excluded.value == Fraction(3, 2) and excluded.scope.excluded == 1
    stated = sensitivity(mean, space, undefined=0)
    assert stated.value == 3 and stated.witness.x == () and stated.witness.x_prime == (3,)


def test_undefined_neighbour_in_release_centred_scope_is_named():
    with pytest.raises(UndefinedQuery, match=r"x'=\[3\] \(size 1\), a neighbour of x=\[3, 3, 3\]"):
        sensitivity(variance(1), Multisets(IntegerRange(0, 3), size=3), d_in=2, scope="release-centred")


def test_budgets_refuse_before_enumerating():
    with pytest.raises(TooLarge, match="datasets") as info:
        sensitivity(sum_, Multisets(IntegerRange(0, 30), sizes=(0, 12)))
    assert info.value.estimate > info.value.budget
    with pytest.raises(TooLarge, match=r"neighbour pairs.*max_pairs=100") as info:
        sensitivity(sum_, Multisets(IntegerRange(0, 7), sizes=(0, 8)), max_pairs=100)
    assert info.value.estimate > 100


def test_claims_verdicts():
    space = Multisets(RECORDS, sizes=(0, 3))
    violated = verify_claim("U - L", clipped(sum_, 2, 10), space)
    assert violated.verdict is Verdict.VIOLATED
    assert violated.claim == 8 and violated.sensitivity.value == 10
    tight = verify_claim("Max(Abs(L), Abs(U))", clipped(sum_, 2, 10), space)
    assert tight.verdict is Verdict.HOLDS_TIGHT
    slack = verify_claim(sympy.Symbol("U") - sympy.Symbol("L"), clipped(sum_, -2, 10), space)
    assert slack.verdict is Verdict.HOLDS and slack.claim == 12
    assert verify_claim("10.0000000001", clipped(sum_, 2, 10), space).verdict is Verdict.HOLDS
    assert verify_claim("9.9999999999", clipped(sum_, 2, 10), space).verdict is Verdict.VIOLATED


def test_claim_with_irrational_value():
    space = Multisets(IntegerRange(0, 2), size=3)
    assert verify_claim("2*sqrt(2)/3", std(), space, "substitute").verdict is Verdict.HOLDS_TIGHT
    assert verify_claim("0.9428", std(), space, "substitute").verdict is Verdict.VIOLATED
    assert verify_claim("0.9429", std(), space, "substitute").verdict is Verdict.HOLDS


def test_claim_parameters_n_only_for_fixed_sizes():
    fixed = Multisets(IntegerRange(0, 4), size=4)
    r = verify_claim("(U - L)/N", mean, fixed, "substitute")
    assert r.verdict is Verdict.HOLDS_TIGHT and r.parameters["N"] == 4
    with pytest.raises(InvalidArgument, match="uses N"):
        verify_claim("(U - L)/N", mean, Multisets(IntegerRange(0, 4), sizes=(1, 4)))


def test_assert_claim_carries_the_witness():
    with pytest.raises(ClaimViolated) as info:
        assert_claim("U - L", clipped(sum_, 2, 10), Multisets(RECORDS, sizes=(0, 3)))
    result = info.value.result
    assert result.verdict is Verdict.VIOLATED
    assert abs(result.witness.fx - result.witness.fx_prime) == 10


def test_pool_space_never_reuses_a_record():
    # pool [1, 9]: sizes 0..2, add/remove; the only datasets are [], [1], [9], [1, 9]
    r = sensitivity(sum_, SubMultisets([1, 9], sizes=(0, 2)))
    assert r.value == 9 and r.scope.datasets == 4 and r.scope.pairs == 4


def test_progress_line_goes_to_stderr(capsys):
    bar = Progress("mean, d_in=1", 100, enabled=True, interval=0.0)
    bar.update(50, 1234)
    bar.close()
    err = capsys.readouterr().err
    assert "50.0% of 100 datasets, 1,234 pairs" in err


def test_results_render_for_humans_and_jupyter():
    r = verify_claim("U - L", clipped(sum_, 2, 10), Multisets(RECORDS, sizes=(0, 3)))
    text = str(r)
    assert text.startswith("clipped(sum, 2, 10): VIOLATED: claim U - L = 8 < sensitivity 10")
    assert "all 1,140 multisets of size 0..3 over {-3..13}" in text
    assert r._repr_latex_().startswith("$\\displaystyle")
    d = r.to_dict()
    assert d["verdict"] == "violated" and d["sensitivity"] == "10" and d["claim"] == "U - L"


def test_curve_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    curve = sensitivity_curve(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 2)), d_ins=(1, 2))
    figure = curve.plot(str(tmp_path / "curve.png"))
    with open(tmp_path / "curve.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert [float(y) for y in figure.axes[0].lines[0].get_ydata()] == [3.0, 6.0]


def test_building_the_value_table_shows_progress(capsys, monkeypatch):
    # the table phase was silent (a 1.1 million-dataset run said nothing for 16 s): each
    # universe value built and the values phase are shown, then the line is cleared
    import exactdp._progress as progress_module

    real = progress_module.Progress.__init__

    def eager(self, label, total, enabled=None, interval=0.5):
        real(self, label, total, enabled=True, interval=0.0)

    monkeypatch.setattr(progress_module.Progress, "__init__", eager)
    from exactdp.engine import wide

    monkeypatch.setattr(wide, "ENABLED", False)  # a value table (the wide strategy has none)
    r = sensitivity("median", Multisets(IntegerRange(0, 5), sizes=(1, 4)), progress=True)
    err = capsys.readouterr().err
    assert "median: building the value table: universe value 1 of 6" in err
    assert "universe value 6 of 6" in err
    assert "building the value table: the values of 209 datasets" in err
    assert r.scope.datasets == 209 and r.value == 5 / Fraction(2)


def test_an_undefined_query_is_refused_before_the_table_is_built(monkeypatch):
    # median on sizes 0..8: the empty dataset is in the space; the refusal took 2.5 s of
    # table building (2.2 million datasets) and now comes from the sizes alone
    from exactdp.engine import tables as _engine
    from exactdp.errors import UndefinedQuery

    def no_table(*args, **kwargs):
        raise AssertionError("the table was built")

    monkeypatch.setattr(_engine, "make_table", no_table)
    space = Multisets(IntegerRange(0, 18), sizes=(0, 8))
    with pytest.raises(UndefinedQuery, match=r"median is undefined on x=\[\] \(size 0\)"):
        sensitivity("median", space, max_pairs=10**8)
    # a pool whose smallest datasets are too small: the first one the enumeration meets
    with pytest.raises(UndefinedQuery, match=r"var:1 is undefined on x=\[1\] \(size 1\)"):
        sensitivity(variance(ddof=1), SubMultisets([1, 1, 2, 5], sizes=(1, 4)))
