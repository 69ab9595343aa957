"""Regression tests of issue 8 (hardening): each reproduction once hung, crashed or answered
vacuously; every budget is now checked from counts before any work.

Reproductions that hung run in a child interpreter with a time limit (``outcomes_in_child``),
so a regression fails instead of stalling the suite.
"""

from __future__ import annotations

import json

import pytest

from exactdp import (
    ChangeDistance, IntegerRange, Multisets, TooLarge, local_sensitivity,
    sensitivity, sensitivity_curve, verify_claim,
)
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.queries import mean, sum_


def _refused_in_child(outcomes_in_child, quiet_main, argvs, seconds=30):
    """Each CLI call exits 2 (a one-line refusal) in a fresh interpreter, all within ``seconds``."""
    calls = [quiet_main(argv, 2) for argv in argvs]
    assert outcomes_in_child(quiet_main.setup, calls, seconds) == ["returned"] * len(argvs)


# -- 1. a universe of more than ~990 values crashed with a RecursionError -------------

def test_1_universe_of_1001_values(cli_run):
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..1000",
                     "--sizes", "0..1", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["sensitivity"] == "1000"
    assert (obj["witness"]["x"], obj["witness"]["x_prime"]) == ([], ["1000"])


def test_1_universes_of_10_to_the_5_values_and_large_pools(outcomes_in_child):
    calls = [
        "r = sensitivity(sum_, Multisets(IntegerRange(0, 100_000), sizes=(0, 1))); "
        "assert (r.value, r.scope.pairs) == (100_000, 100_001)",
        "r = sensitivity(sum_, Multisets(IntegerRange(0, 1000), sizes=(0, 1))); assert r.value == 1000",
        "r = sensitivity(sum_, SubMultisets(range(1200), sizes=(0, 1))); assert r.value == 1199",
    ]
    setup = ("from exactdp.checkers.sensitivity import sensitivity; "
             "from exactdp.spaces.datasets import Multisets, SubMultisets; "
             "from exactdp.spaces.universe import IntegerRange; "
             "from exactdp.queries.builtin import sum_")
    assert outcomes_in_child(setup, calls, 60) == ["returned"] * 3


# -- 2, 3. ranges and sizes were materialised before the budget ----------------------

def test_2_3_huge_universes_and_sizes_are_refused_at_once(outcomes_in_child, quiet_main):
    _refused_in_child(outcomes_in_child, quiet_main, [
        ["sensitivity", "--query", "sum", "--universe", "0..10000000000", "--sizes", "0..1"],
        ["sensitivity", "--query", "sum", "--universe", "0..10000000", "--sizes", "0..1"],
        ["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..100000000"],
        ["sensitivity", "--query", "sum", "--pool", "0..100000000000", "--size", "1"],
    ], seconds=20)


def test_2_3_refusal_names_the_count_and_the_option(hang_guard):
    with hang_guard(30), pytest.raises(TooLarge) as e:
        sensitivity(sum_, Multisets(IntegerRange(0, 10**12), sizes=(0, 1)))
    assert e.value.estimate == 10**12 + 2
    assert "1,000,000,000,002 datasets" in str(e.value) and "max_datasets" in str(e.value)
    with hang_guard(30), pytest.raises(TooLarge) as e:
        sensitivity(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 10**9)))
    assert "about 10^34 datasets" in str(e.value)  # C(10**9 + 4, 4)


# -- 4. d_in beyond the space's diameter ---------------------------------------------

def test_4_large_d_in_is_computed_at_the_diameter(hang_guard):
    space = Multisets(IntegerRange(0, 3), sizes=(1, 2))
    with hang_guard(30):
        huge = sensitivity(sum_, space, d_in=10**20)
    at_diameter = sensitivity(sum_, space, d_in=4)  # two datasets of <= 2 records: <= 4 apart
    assert (huge.value, huge.scope.pairs) == (at_diameter.value, at_diameter.scope.pairs) == (6, 91)
    assert huge.scope.d_in == 10**20 and huge.scope.d_in_effective == 4
    assert "relates the same pairs as d_in=4" in huge.scope.describe()
    assert at_diameter.scope.d_in_effective is None
    with hang_guard(30):
        change = sensitivity(sum_, space, ChangeDistance(), 10**9)
    assert change.scope.d_in_effective == 2 and change.value == 6  # [0, 0] -> [3, 3]


def test_4_large_d_in_through_the_cli_and_curves(outcomes_in_child, quiet_main):
    space = ["sensitivity", "--query", "mean", "--universe", "0..3", "--sizes", "1..2"]
    calls = [
        quiet_main(space + ["--d-in", "99999999999999999999"], 0),
        quiet_main(space + ["--local", "1", "--d-in", "100000000"], 0),
        quiet_main(space + ["--d-in", "1..1000000"], 2),
        "from exactdp.checkers.sensitivity import sensitivity_curve\n"
        "from exactdp.spaces.datasets import Multisets\n"
        "from exactdp.spaces.universe import IntegerRange\n"
        "c = sensitivity_curve('mean', Multisets(IntegerRange(0, 3), sizes=(1, 2)), None, [1, 10**9])\n"
        "assert [r.scope.d_in_effective for r in c.results] == [None, 4]",
    ]
    assert outcomes_in_child(quiet_main.setup, calls, 30) == ["returned"] * 4


def test_4_exactly_k_beyond_the_diameter_has_no_pairs(hang_guard):
    with hang_guard(30):
        r = sensitivity(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 3)), d_in=10**20,
                        exact_k=True)
    assert (r.value, r.scope.pairs, r.witness) == (0, 0, None)


# -- 10. the pair budget is checked before the value table is built ------------------

def test_10_pair_budget_refused_before_evaluating_the_query(outcomes_in_child, quiet_main):
    _refused_in_child(outcomes_in_child, quiet_main, [
        ["sensitivity", "--query", "percentile:37", "--universe", "0..13", "--sizes", "0..10",
         "--d-in", "3", "--undefined", "exclude"],
    ], seconds=10)


def test_10_pair_refusal_names_d_in_and_the_option(hang_guard):
    with hang_guard(60), pytest.raises(TooLarge) as e:
        sensitivity(mean, Multisets(IntegerRange(0, 13), sizes=(0, 10)), d_in=3, undefined="exclude")
    assert "(1,961,256 datasets x 4,494 moves)" in str(e.value)
    assert "at d_in=3" in str(e.value) and "max_pairs=50,000,000" in str(e.value)


# -- 8, 9, 18. plots are checked before computing -------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["--plot", "/nonexistent/dir/x.png"], "does not exist"),
    (["--plot", "x.txt"], "does not end in .png"),
    (["--local", "1,2", "--plot", "local.png"], "does not apply to --local"),
])
def test_8_9_bad_plot_targets_are_refused_before_computing(cli_run, tmp_path, argv, fragment):
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..4",
                     "--sizes", "1..3", *argv)
    assert (code, out) == (2, "")
    assert fragment in err and err.count("\n") == 1


def test_18_missing_matplotlib_is_reported_before_computing(cli_run, monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..4",
                     "--sizes", "1..3", "--d-in", "1..2", "--plot", str(tmp_path / "s.png"))
    assert (code, out) == (2, "")
    assert "pip install 'exactdp[plot]'" in err


def test_plot_is_written(cli_run, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "s.png"
    code, out, _ = cli_run("sensitivity", "--query", "sum", "--universe", "0..4",
                   "--sizes", "1..3", "--d-in", "1..2", "--plot", str(target))
    assert code == 0 and target.read_bytes().startswith(b"\x89PNG")


# -- 13. a bad claim is refused before the enumeration ----------------------------------

def test_13_bad_claim_refused_before_enumerating(cli_run, monkeypatch):
    from exactdp.engine import tables as _engine

    def boom(*a, **k):
        raise AssertionError("the table was built before the claim was read")

    monkeypatch.setattr(_engine, "make_table", boom)
    code, _, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..3",
                   "--sizes", "0..3", "--claim", "x+1")
    assert code == 2 and "unknown name 'x'" in err
    with pytest.raises(InvalidArgument, match="unknown name 'x'"):
        verify_claim("x+1", sum_, Multisets(IntegerRange(0, 3), sizes=(0, 3)))


# -- 15. no pairs is VACUOUS, never "holds" ----------------------------------------------

def test_15_a_check_without_pairs_is_vacuous(cli_run):
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..10",
                     "--sizes", "5..5", "--claim", "(U-L)/N")
    assert code == 1
    assert out.startswith("sum: VACUOUS: claim (U-L)/N = 2 was not checked: 0 neighbouring pairs")
    assert "--neighbors substitute" in out and "--neighbors substitute" in err
    r = verify_claim("(U-L)/N", sum_, Multisets(IntegerRange(0, 10), size=5))
    assert r.verdict is Verdict.VACUOUS and not r.ok
    code, out, _ = cli_run("sensitivity", "--query", "sum", "--universe", "0..10",
                   "--sizes", "5..5", "--json")
    assert code == 1 and json.loads(out)["vacuous"] is True


def test_15_a_table_with_some_vacuous_rows_says_so(cli_run):
    code, out, err = cli_run("sensitivity", "--query", "sum", "--universe", "0..3",
                     "--sizes", "0..3", "--exact-k", "--d-in", "3..4")
    assert code == 0  # d_in=3 was checked
    assert "(no pair: nothing checked)" in out and "None" not in out
    assert "no neighbouring pair at d_in=4" in err


# -- 16, 17. messages without Python reprs; API arguments validated ---------------------

def test_16_dataset_not_in_the_space_is_shown_exactly(cli_run):
    code, _, err = cli_run("sensitivity", "--query", "mean", "--universe", "0..4",
                   "--sizes", "1..3", "--local", "1,2,3,4,1,2,3")
    assert code == 2 and "dataset=[1, 1, 2, 2, 3, 3, 4] is not in" in err
    assert "Fraction" not in err


@pytest.mark.parametrize("call, fragment", [
    (lambda s: sensitivity(sum_, s, max_pairs="10"), "max_pairs='10' is not an int"),
    (lambda s: sensitivity(sum_, s, max_datasets=-1), "max_datasets=-1 is negative"),
    (lambda s: sensitivity(sum_, s, exact_k="yes"), "exact_k='yes' is not a bool"),
    (lambda s: local_sensitivity("mean", None, s), "dataset=None is not a collection"),
    (lambda s: sensitivity_curve(sum_, s, None, 42), "d_ins=42 is not a sequence"),
])
def test_17_bad_api_arguments_are_invalid_argument(call, fragment):
    with pytest.raises(InvalidArgument, match=fragment.replace("(", r"\(").replace("[", r"\[")):
        call(Multisets(IntegerRange(0, 3), sizes=(1, 2)))


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("exactdp 0.")


def test_huge_exact_values_are_written_out_not_a_traceback(cli_run):
    # var of {0, 10**3999} has 7,998 digits: past Python's 4,300-digit int-to-text limit
    code, out, err = cli_run("sensitivity", "--query", "var", "--universe", "0,1e3999",
                     "--sizes", "1..2", "--json")
    assert code == 0, err
    value = json.loads(out)["sensitivity"]
    assert value == "25" + "0" * 7996  # (10**3999)**2 / 4, from {10**3999} to {0, 10**3999}


def test_a_map_given_as_text_is_parsed_safely_never_run(tmp_path):
    # Transformation(expression=<str>) went through sympy.sympify, which evaluates Python
    from exactdp.symbolic.maps import Domain, Transformation

    target = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(target)!r}).touch()"
    with pytest.raises(InvalidArgument):
        Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", payload)
    assert not target.exists()
    t = Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", "2*d_in")
    assert t.map(3) == 6


def test_a_map_tower_is_refused_at_its_d_in(hang_guard):
    from exactdp.symbolic.maps import Domain, Transformation
    from exactdp.symbolic.symbols import d_in

    t = Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", 10 ** (10 ** d_in))
    with hang_guard(30), pytest.raises(InvalidArgument, match="a tower of powers is refused"):
        t.map(9)
