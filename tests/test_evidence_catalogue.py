"""Issue 16, the evidence vocabulary for the rest: the catalogue (bit-exact-grid: holds-on-grid,
tightness apart, the grid named), verify_conversion (bit-exact) and the pytest plugin's
failure text for every verdict word."""

from __future__ import annotations

import importlib
import json
from fractions import Fraction

import pytest
import sympy

from exactdp import IntegerRange, Multisets, verify_claim
from exactdp.checkers.graph import verify_conversion
from exactdp.checkers.results import ClaimResult, Evidence, Verdict
from exactdp.cli import main
from exactdp.cli.catalog import summary
from exactdp.errors import Undecided
from exactdp.queries import clipped, sum_
from exactdp.spaces.sequences import Sequences
from exactdp.symbolic import entries_seed000
from exactdp.symbolic.catalogue import Entry, Truth, check_entry, describe_grid
from exactdp.symbolic.symbols import L, U, d_in

entry_module = importlib.import_module("exactdp.symbolic.entry")  # where check_entry compares

S000 = {e.id: e for e in entries_seed000.entries()}


# -- the catalogue --------------------------------------------------------------------------

def test_a_published_formula_with_slack_is_holds_on_grid_not_tight():
    check = check_entry(S000["s000/clip-sweep/sequential-composition"])
    assert check.evidence is Evidence.BIT_EXACT_GRID
    assert (check.published_verdict, check.published_tight) == (Verdict.HOLDS_ON_GRID, False)
    assert (check.verdict, check.tight) == (Verdict.HOLDS_ON_GRID, False)
    assert (check.derived_verdict, check.derived_tight, check.ok) == (Verdict.HOLDS_ON_GRID, True, True)
    w = check.published_witness  # 100 queries at epsilon/100 cost 99/100: the clip at 0 is free
    assert w.params == {"epsilon": Fraction(1, 100), "d_in": 1}
    assert (w.formula_value, w.truth.value) == (1, Fraction(99, 100))
    assert check.grid_text() == "epsilon in {1/100, 1/10}; d_in in {1}"
    lines = str(check).splitlines()
    assert lines[1].startswith("  published 100*epsilon: HOLDS ON GRID with slack on every binding, "
                               "e.g. at epsilon=1/100, d_in=1: formula 1 vs exact 99/100; pair x=[], x'=[99]")
    assert lines[2:] == [
        "  derived   99*epsilon: HOLDS ON GRID, tight on every binding",
        "  evidence: bit-exact-grid, 2 parameter bindings each enumerated exactly: "
        "epsilon in {1/100, 1/10}; d_in in {1}",
    ]
    d = check.to_dict()
    assert (d["verdict"], d["evidence"], d["tight"]) == ("holds-on-grid", "bit-exact-grid", False)
    assert (d["derived_verdict"], d["derived_tight_everywhere"]) == ("holds-on-grid", True)
    assert d["grid"] == "epsilon in {1/100, 1/10}; d_in in {1}"
    assert d["grid_bindings"] == [{"epsilon": "1/100", "d_in": 1}, {"epsilon": "1/10", "d_in": 1}]
    assert d["instances"] == 2


def test_a_tight_published_formula_and_a_violated_one():
    tight = check_entry(S000["s000/clipped-sum/substitute"])
    assert (tight.published_verdict, tight.published_tight) == (Verdict.HOLDS_ON_GRID, True)
    assert tight.published_witness.params == {"L": 0, "U": 125, "d_in": 1, "N": 1}
    assert str(tight).splitlines()[1].startswith(
        "  published -L + U: HOLDS ON GRID, tight at L=0, U=125, d_in=1, N=1: formula 125 vs exact 125")
    wrong = check_entry(S000["s000/clipped-sum/add-remove"])
    assert (wrong.published_verdict, wrong.published_tight) == (Verdict.VIOLATED, False)
    assert wrong.to_dict()["tight"] is False and wrong.ok
    assert wrong.grid_text() == "5 of the 16 combinations of L in {-4, -2, 0, 2}; U in {-1, 3, 5, 125}; d_in in {1}"
    assert str(wrong).splitlines()[1] == ("  published -L + U: VIOLATED at L=2, U=5, d_in=1: formula 3 vs "
                                          "exact 5; pair x=[], x'=[5]: f(x)=0, f(x')=5")


def test_the_expected_verdict_of_a_formula_claim_is_holds_on_grid():
    entry = S000["s000/count/add-remove"]
    assert entry.expect == "holds-on-grid"
    result = entry.check()
    assert entry.meets_expectation(result) and result.verdict is Verdict.HOLDS_ON_GRID


MEANINGS = {"L": "lower", "U": "upper", "d_in": "distance"}
GRID = [dict(L=l, U=u, d_in=k) for l, u in ((-2, -1), (-1, 2), (1, 3)) for k in (1, 2)]


def _sum_truth(p):
    from exactdp.checkers.sensitivity import sensitivity

    return Truth.from_result(sensitivity("sum", Multisets(IntegerRange(p["L"], p["U"]), sizes=(0, 3)),
                                         d_in=p["d_in"]))


def _entry(published, derived, **kw):
    return Entry("t/sum", "test", "sum", "add-remove", published, derived, MEANINGS, GRID, _sum_truth, **kw)


def test_ok_means_holding_and_tight_where_promised():
    slack = d_in * (sympy.Abs(L) + sympy.Abs(U))  # above max(|L|, |U|) d_in on the whole grid
    assert check_entry(_entry(None, slack, derived_tight=False)).ok          # no promise of tightness
    promised = check_entry(_entry(None, slack))
    assert (promised.derived_verdict, promised.derived_tight, promised.ok) == (Verdict.HOLDS_ON_GRID, False, False)
    assert str(promised).splitlines()[1] == (
        "  derived   d_in*(Abs(L) + Abs(U)): HOLDS ON GRID, above the exact value at L=-2, U=-1, "
        "d_in=1: formula 3 vs exact 2; pair x=[], x'=[-2]: f(x)=0, f(x')=-2  <-- DERIVED FORMULA FAILS")
    below = check_entry(_entry(None, U - L, derived_tight=False))
    assert (below.derived_verdict, below.ok) == (Verdict.VIOLATED, False)


def test_undecided_stays_undecided_and_fails(monkeypatch):
    def undecided(a, b):
        raise Undecided("cannot tell")

    monkeypatch.setattr(entry_module, "compare", undecided)
    check = check_entry(_entry(U - L, d_in * sympy.Max(abs(L), abs(U))))
    assert (check.published_verdict, check.derived_verdict) == (Verdict.UNDECIDED, Verdict.UNDECIDED)
    assert (check.published_tight, check.derived_tight, check.ok) == (False, False, False)
    assert check.to_dict()["verdict"] == "undecided"
    assert str(check).splitlines()[1].startswith("  published -L + U: UNDECIDED at L=-2, U=-1, d_in=1")


def test_the_summary_counts_words_in_verdict_counts_order(monkeypatch):
    checks = [check_entry(S000[i]) for i in ("s000/clipped-sum/add-remove", "s000/clipped-sum/substitute",
                                               "s000/clip-sweep/sequential-composition")]
    checks.append(check_entry(_entry(None, d_in * sympy.Max(abs(L), abs(U)))))
    monkeypatch.setattr(entry_module, "compare", lambda a, b: (_ for _ in ()).throw(Undecided("x")))
    checks.append(check_entry(_entry(U - L, d_in * sympy.Max(abs(L), abs(U)))))
    assert summary(checks) == (
        "5 catalogue entries re-checked (29 parameter bindings; evidence: bit-exact-grid); "
        "published formulas: 2 holds-on-grid (1 tight on some binding, 1 with slack on every one), "
        "1 violated, 1 undecided; 1 derived formula(s) failed")
    assert summary([]).endswith("published formulas: none; 0 derived formula(s) failed")


@pytest.mark.parametrize("grid, text", [
    ([dict(d_in=1), dict(d_in=3), dict(d_in=2)], "d_in in {1, 2, 3}"),
    ([dict(d_in=1, norm="l2"), dict(d_in=1, norm="l1")], "norm in {l1, l2}; d_in in {1}"),
    ([dict(K=2, d_in=1)], "the one binding K=2, d_in=1"),
    ([dict(a=i) for i in range(14)], "a in {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (14 values)}"),
    ([dict(L=-1, U=Fraction(1, 2)), dict(L=0, U=Fraction(1, 2)), dict(L=0, U=2)],
     "3 of the 4 combinations of L in {-1, 0}; U in {1/2, 2}"),
])
def test_describe_grid(grid, text):
    assert describe_grid(grid) == text


def test_verify_json_catalogue_rows_say_bit_exact_grid_and_never_plain_holds(capsys):
    assert main(["verify", "--only", "s000/c", "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == "catalogue"]
    assert [(r["id"], r["verdict"], r["evidence"], r["tight"], r["derived_verdict"],
             r["derived_tight_everywhere"], r["as_expected"]) for r in rows] == [
        ("s000/count/add-remove", "holds-on-grid", "bit-exact-grid", True, "holds-on-grid", True, True),
        ("s000/clipped-sum/add-remove", "violated", "bit-exact-grid", False, "holds-on-grid", True, True),
        ("s000/clipped-sum/substitute", "holds-on-grid", "bit-exact-grid", True, "holds-on-grid", True, True),
        ("s000/clip-sweep/sequential-composition", "holds-on-grid", "bit-exact-grid", False, "holds-on-grid",
         True, True),
    ]
    assert rows[0]["grid"] == "query in {count, count(x > 2)}; d_in in {1}"
    assert main(["verify", "--only", "s002/exercise/duplicate", "--json"]) == 0  # nothing published
    # the prefix also selects seed 002's exercise-code claim (issue 28): take the catalogue row
    [row] = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == "catalogue"]
    assert (row["verdict"], row["tight"], row["evidence"], row["derived_verdict"]) == (
        None, None, "bit-exact-grid", "holds-on-grid")
    assert row["grid_bindings"] == [{"d_in": k} for k in (1, 2, 3, 4)] and row["instances"] == 4


def test_verify_and_catalog_text_name_the_evidence(capsys):
    assert main(["verify", "--only", "s000/c"]) == 0
    lines = capsys.readouterr().out.splitlines()
    formula_lines = [line for line in lines if line.startswith(("  published ", "  derived   "))]
    assert len(formula_lines) == 8
    assert all(": HOLDS ON GRID" in line or ": VIOLATED at " in line for line in formula_lines)
    assert not any("HOLDS" in line.replace("HOLDS ON GRID", "") for line in formula_lines)
    assert sum(line.startswith("  evidence: bit-exact-grid, ") for line in lines) == 4
    assert ("4 catalogue entries re-checked (19 parameter bindings; evidence: bit-exact-grid); published "
            "formulas: 3 holds-on-grid (2 tight on some binding, 1 with slack on every one), 1 violated; "
            "0 derived formula(s) failed") in lines
    with pytest.raises(SystemExit) as e:
        main(["catalog", "--help"])
    assert e.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "Evidence: bit-exact-grid" in help_text and "holds-on-grid, never holds / holds-tight" in help_text


# -- conversions --------------------------------------------------------------------------

def test_conversion_result_carries_bit_exact_evidence_in_json():
    r = verify_conversion(Sequences(IntegerRange(0, 1), size=2), "insert-delete", "hamming", 2, 1)
    assert r.evidence is Evidence.BIT_EXACT and not r.ok
    assert r.to_dict() == {
        "source": "InsertDeleteDistance", "target": "HammingDistance", "d_in": 2, "claim": 1, "value": 2,
        "verdict": "violated", "evidence": "bit-exact", "witness": {"x": ["0", "1"], "x_prime": ["1", "0"]},
        "pairs": 5, "space": "sequences of length 2 over {0..1}"}
    unbounded = verify_conversion(Sequences(IntegerRange(0, 1), sizes=(1, 2)), "insert-delete", "hamming", 1, None)
    d = unbounded.to_dict()
    assert (d["value"], d["verdict"], d["evidence"], unbounded.ok) == (None, "holds-tight", "bit-exact", True)
    assert str(unbounded).splitlines()[0] == ("InsertDeleteDistance <= 1 -> HammingDistance: claim None, exact "
                                              "maximum infinite: HOLDS-TIGHT; witness x=(0,), x'=(0, 0)")


# -- the pytest plugin ----------------------------------------------------------------------

SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))


def _as(result, evidence):
    return ClaimResult(result.claim_text, result.claim, result.verdict, result.sensitivity,
                       result.parameters, evidence=evidence)


def test_describe_a_holds_on_grid_result():
    from exactdp._pytestplugin import describe

    grid = _as(verify_claim(3, clipped(sum_, 0, 3), SPACE), "bit-exact-grid")
    assert grid.verdict is Verdict.HOLDS_ON_GRID
    assert describe(grid).splitlines()[:3] == [
        "exactdp: claim 3 on clipped(sum, 0, 3): HOLDS-ON-GRID (evidence: bit-exact-grid)",
        "  claim 3 == computed maximum 3",
        "  witness: x=[], x'=[3]: f(x)=0, f(x')=3",
    ]
    loose = _as(verify_claim(5, clipped(sum_, 0, 3), SPACE), "statistical")
    assert describe(loose, "violated").splitlines()[:2] == [
        "exactdp: claim 5 on clipped(sum, 0, 3): HOLDS-STATISTICALLY (evidence: statistical) (expected violated)",
        "  claim 5 > computed maximum 3",
    ]


@pytest.mark.parametrize("claim, evidence, verdict, relation", [
    (2, "bit-exact", "violated", "<"),
    (3, "bit-exact", "holds-tight", "=="),
    (4, "bit-exact", "holds", ">"),
    (3, "bit-exact-grid", "holds-on-grid", "=="),
    (4, "ideal-noise", "holds-ideal-noise", ">"),
    (3, "statistical", "holds-statistically", "=="),
    (4, "empirical-model", "holds-empirical-model", ">"),
    (2, "statistical", "violated", "<"),
])
def test_describe_has_a_relation_for_each_verdict(claim, evidence, verdict, relation):
    from exactdp._pytestplugin import describe

    r = _as(verify_claim(claim, clipped(sum_, 0, 3), SPACE), evidence)
    assert r.verdict.value == verdict
    value = "exact sensitivity" if r.verdict.proven or verdict == "violated" else "computed maximum"
    assert describe(r).splitlines()[1] == f"  claim {claim} {relation} {value} 3"


def test_describe_undecided_and_vacuous_say_vs():
    import dataclasses

    from exactdp._pytestplugin import describe

    r = verify_claim(3, clipped(sum_, 0, 3), SPACE)
    assert describe(dataclasses.replace(r, verdict=Verdict.UNDECIDED)).splitlines()[1] == \
        "  claim 3 vs exact sensitivity 3"
    vacuous = verify_claim(1, clipped(sum_, 0, 3), Multisets(IntegerRange(0, 3), size=1))
    assert vacuous.verdict is Verdict.VACUOUS
    lines = describe(vacuous).splitlines()
    assert lines[1] == "  claim 1 vs exact sensitivity 0" and lines[2].startswith("  nothing was checked: ")


def test_failure_help_explains_every_verdict_word():
    from exactdp._pytestplugin import VERDICT_HELP, pytest_assertrepr_compare

    assert set(VERDICT_HELP) == {v.value for v in Verdict}
    lines = pytest_assertrepr_compare(None, "==", Verdict.HOLDS_ON_GRID, "holds")
    assert lines[0] == "exactdp verdict 'holds-on-grid' == 'holds'"
    for v in Verdict:
        assert sum(line.startswith(f"  {v.value}: ") for line in lines) == 1, v
    assert "  holds-on-grid: never below, on the finite grid the scope names only (evidence bit-exact-grid)" in lines
