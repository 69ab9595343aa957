"""Issue 16, part 2 (checkers side): every non-audit result states its evidence, and holds /
holds-tight appear only with bit-exact evidence."""

import dataclasses
import json
from fractions import Fraction

import pytest

from exactdp import IntegerRange, Multisets, verify_claim
from exactdp.checkers.float_witness import FloatVerdict, search_float_witness
from exactdp.checkers.privacy import check_mechanism
from exactdp.checkers.privacy_claims import StatementResult
from exactdp.registry.privacy import privacy_claims
from exactdp.checkers.results import Evidence, Verdict, evidence_note, verdict_counts
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.calibration.typical import true_epsilon
from exactdp.queries import clipped, sum_
from exactdp.symbolic.constructors import make_sum
from exactdp.symbolic.verify import verify

SPACE = Multisets(IntegerRange(-3, 13), sizes=(0, 3))


def test_verify_claim_on_an_enumerated_space_is_bit_exact_holds_tight():
    r = verify_claim("U - L", clipped(sum_, 0, 10), SPACE)
    assert r.verdict is Verdict.HOLDS_TIGHT and r.verdict.proven and r.ok
    assert r.evidence is Evidence.BIT_EXACT and r.sensitivity.evidence is Evidence.BIT_EXACT
    d = r.to_dict()
    assert d["verdict"] == "holds-tight" and d["evidence"] == "bit-exact"
    assert r.summary() == "HOLDS, tight: claim U - L = 10 is attained by x=[], x'=[10]: f(x)=0, f(x')=10"
    assert r.sensitivity.to_dict()["evidence"] == "bit-exact"


def test_a_claim_result_on_grid_evidence_never_says_holds():
    r = verify_claim("U - L", clipped(sum_, 0, 10), SPACE)
    grid = dataclasses.replace(r, evidence="bit-exact-grid")
    assert grid.verdict is Verdict.HOLDS_ON_GRID and grid.ok and not grid.verdict.proven
    assert grid.to_dict()["verdict"] == "holds-on-grid" and grid.to_dict()["evidence"] == "bit-exact-grid"
    assert grid.summary() == "HOLDS ON GRID (evidence: bit-exact-grid): claim U - L = 10 >= computed maximum 10"
    bad = verify_claim("U - L", clipped(sum_, 2, 10), SPACE)
    assert dataclasses.replace(bad, evidence="statistical").verdict is Verdict.VIOLATED  # unchanged


def test_check_mechanism_is_bit_exact_for_the_stated_mechanism():
    rr = make_mechanism("randomized-response", p="3/4")
    r = check_mechanism(rr, values=(0, 1), epsilon="log(3)")
    assert r.verdict is Verdict.HOLDS_TIGHT and r.evidence is Evidence.BIT_EXACT and r.ok
    d = r.to_dict()
    assert d["verdict"] == "holds-tight" and d["evidence"] == "bit-exact"
    ideal = dataclasses.replace(r, evidence="ideal-noise")
    assert ideal.verdict is Verdict.HOLDS_IDEAL_NOISE and ideal.ok and not ideal.verdict.proven
    assert ideal.summary() == (
        "randomized-response(p=3/4, k_values=2): HOLDS IDEAL NOISE (evidence: ideal-noise): claim "
        "epsilon log(3) ~ [1.09861228866, 1.09861228867], exact epsilon = log(3) ~ [1.09861228866, "
        "1.09861228867]; witness f(x)=0, f(x')=1, output 0")
    assert ideal.to_dict()["verdict"] == "holds-ideal-noise"
    # no claim: no verdict, the evidence is still stated
    none = check_mechanism(rr, values=(0, 1))
    assert none.verdict is None and not none.ok and none.to_dict()["evidence"] == "bit-exact"


def test_symbolic_verify_of_a_correct_formula_is_holds_on_grid():
    r = verify("d_in*Max(Abs(L), Abs(U))", make_sum(), grid={"L": [-2, 0], "U": [-1, 2]}, d_in=(1, 2))
    assert r.verdict is Verdict.HOLDS_ON_GRID and r.tight and r.ok and not r.verdict.proven
    assert r.evidence is Evidence.BIT_EXACT_GRID
    d = r.to_dict()
    assert (d["verdict"], d["evidence"], d["tight"]) == ("holds-on-grid", "bit-exact-grid", True)
    assert d["grid"] == "(L, U) in {(-2, -1), (-2, 2), (0, 2)}; d_in in {1, 2}"
    assert r.summary().startswith(
        "HOLDS ON GRID, tight (evidence: bit-exact-grid, 6 bindings: (L, U) in {(-2, -1), (-2, 2), "
        "(0, 2)}; d_in in {1, 2}): claim d_in*Max(Abs(L), Abs(U)) is never below")
    wrong = verify("U - L", make_sum(), grid={"L": [1], "U": [3]}, d_in=1)
    assert wrong.verdict is Verdict.VIOLATED and wrong.to_dict()["evidence"] == "bit-exact-grid"


def test_a_float_search_that_finds_nothing_is_not_found_and_says_its_evidence():
    r = search_float_witness("fsum", "float64", bounds=(0, 1), max_n=100, claim=2, budget=200)
    assert r.verdict is FloatVerdict.NOT_FOUND and not r.violated
    assert r.evidence is Evidence.BIT_EXACT
    d = r.to_dict()
    assert d["verdict"] == "not-found" and d["evidence"] == "bit-exact"
    assert d["message"].startswith(
        "NOT FOUND (evidence: bit-exact evaluations of the pairs a randomized search tried, no "
        "more): no pair moved the fsum sum in float64 by more than claim 2 within budget=200")
    hit = search_float_witness("sequential", "float32", bounds=(0, 1), max_n=10_000, claim=1)
    assert hit.verdict is FloatVerdict.VIOLATED and hit.to_dict()["evidence"] == "bit-exact"
    assert hit.witness.exact_difference == 2


def test_statement_results_and_true_epsilon_state_bit_exact():
    s = StatementResult(Verdict.HOLDS, "a statement", "scope", {"k": 1})
    assert s.to_dict() == {"verdict": "holds", "evidence": "bit-exact", "text": "a statement",
                           "scope": "scope", "k": 1}
    weak = StatementResult(Verdict.HOLDS_TIGHT, "a statement", "scope", {}, "empirical-model")
    assert weak.verdict is Verdict.HOLDS_EMPIRICAL_MODEL and weak.ok
    assert weak.summary() == "HOLDS-EMPIRICAL-MODEL (evidence: empirical-model): a statement"
    t = true_epsilon("47.38", "1/2", (0, 300))
    assert t.verdict == "violated" and t.to_dict()["evidence"] == "bit-exact"
    assert true_epsilon(300, 1, (0, 300)).to_dict()["verdict"] == "holds-tight"


def test_the_built_in_privacy_claim_carries_evidence_in_its_registry_json():
    rr = next(c for c in privacy_claims() if c.id == "exactdp/randomized-response/p=3/4")
    d = rr.to_dict(rr.check())
    assert (d["verdict"], d["evidence"], d["as_expected"]) == ("holds-tight", "bit-exact", True)


def test_evidence_note_and_summary_counts():
    assert evidence_note(Evidence.BIT_EXACT, "anything") == ""
    assert evidence_note("statistical", "error probability 1e-9") == " (evidence: statistical, error probability 1e-9)"
    assert verdict_counts({"violated": 23, "holds-tight": 165, "holds": 25, "holds-on-grid": 3}) == (
        "25 holds, 165 holds-tight, 3 holds-on-grid, 23 violated")
    assert verdict_counts({"none": 1, "vacuous": 2, "holds-ideal-noise": 1}) == (
        "1 holds-ideal-noise, 2 vacuous, 1 none")


def test_cli_sensitivity_json_states_the_evidence(cli_run):
    code, out, _ = cli_run("sensitivity", "--query", "sum", "--universe=-3..13", "--sizes", "0..3",
                           "--clip", "2,10", "--claim", "U-L", "--json")
    d = json.loads(out)
    assert code == 1 and d["verdict"] == "violated" and d["evidence"] == "bit-exact"
    code, out, _ = cli_run("sensitivity", "--query", "count", "--universe", "0..3", "--sizes", "0..2",
                           "--json")
    d = json.loads(out)
    assert code == 0 and d["verdict"] is None and d["evidence"] == "bit-exact" and d["sensitivity"] == "1"


def test_cli_verify_json_and_summary(cli_run):
    code, out, _ = cli_run("verify", "--only", "s000/count", "--no-catalogue", "--json")
    rows = json.loads(out)
    assert code == 0
    assert [(r["id"], r["verdict"], r["evidence"]) for r in rows] == [
        ("s000/count/add-remove/sizes=0..4", "holds-tight", "bit-exact"),
        ("s000/count/substitute", "holds", "bit-exact")]
    code, out, _ = cli_run("verify", "--only", "s000/clipped-sum/add-remove/", "--no-catalogue")
    assert code == 0
    assert out.splitlines()[-1] == ("4 built-in claims checked: 1 holds, 1 holds-tight, 2 violated; "
                                    "0 departed from what was expected")
    assert "(evidence:" not in out  # bit-exact evidence adds nothing to the verdict word


@pytest.mark.parametrize("evidence, word", [
    ("bit-exact", "holds-tight"), ("bit-exact-grid", "holds-on-grid"),
    ("ideal-noise", "holds-ideal-noise"), ("statistical", "holds-statistically"),
    ("empirical-model", "holds-empirical-model")])
def test_every_evidence_word_through_a_claim_result(evidence, word):
    r = verify_claim(1, "count", Multisets(IntegerRange(0, 1), sizes=(0, 1)))
    q = dataclasses.replace(r, evidence=evidence)
    assert q.verdict.value == word and q.ok and q.verdict.proven == (evidence == "bit-exact")
    assert q.to_dict()["evidence"] == evidence and q.sensitivity.value == Fraction(1)
