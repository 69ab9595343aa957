"""verify(): claims judged over parameter grids, with the first breaking binding and pair."""

import json
from fractions import Fraction

import pytest
import sympy

from exactdp.checkers.results import Verdict
from exactdp.errors import ClaimViolated, InexactInput, InvalidArgument
from exactdp.symbolic.constructors import (
    make_clipped_sum, make_count, make_mean, make_quantile_score, make_sum, make_variance,
)
from exactdp.symbolic.maps import Domain, Transformation
from exactdp.symbolic.symbols import L, N, U, d_in
from exactdp.symbolic.verify import assert_verified, default_grid, verify

F = Fraction


def test_violated_claim_reports_the_first_breaking_binding_and_pair():
    """Seed 000's clipping rule U - L under add/remove, on the default grid."""
    r = verify("U - L", make_sum())
    assert r.verdict is Verdict.VIOLATED and not r.ok
    w = r.witness
    assert w.params == {"L": -2, "U": -1, "d_in": 1}
    assert w.formula_value == 1 and w.truth.value == 2
    assert (w.truth.witness.x, w.truth.witness.x_prime) == ((), (F(-2),))
    # the derived map d_in*max(|L|,|U|) is exact on every binding of the grid
    assert r.map_verdict is Verdict.HOLDS_ON_GRID and r.map_tight
    assert r.bindings == 16
    assert str(r).splitlines()[-1] == (  # the verdict line comes last
        "sum: VIOLATED: claim U - L is below the exact sensitivity at L=-2, U=-1, d_in=1: "
        "formula 1 vs exact 2; pair x=[], x'=[-2]: f(x)=0, f(x')=-2")
    assert "(L, U) in {(-2, -1), (-1, 2), (0, 2), (1, 3)}; d_in in {1, 2, 3, 4}" in r.scope()


def test_holding_claims_tight_and_with_slack():
    tight = verify(d_in * sympy.Max(abs(L), abs(U)), make_sum())
    assert tight.verdict is Verdict.HOLDS_ON_GRID and tight.tight and tight.ok
    assert tight.evidence.value == "bit-exact-grid" and not tight.verdict.proven
    assert tight.witness.params == {"L": -2, "U": -1, "d_in": 1}
    # seed 002's bounded sum d_in/2*(U - L): attained at even d_in, loose at odd
    seed = verify("d_in/2*(U-L)", make_sum(size=N))
    assert seed.verdict is Verdict.HOLDS_ON_GRID and seed.tight and seed.bindings == 80
    # seed 002's variance cell d_in/2*(U - L)**2/N: above the truth on every binding
    var = verify("d_in/2*(U-L)^2/N", make_variance(size=N, neighbors="add-remove"),
                 grid={"L": [0], "U": [1, 2], "N": [2, 3, 4]}, d_in=(2, 4))
    assert var.verdict is Verdict.HOLDS_ON_GRID and not var.tight and var.ok
    assert var.witness.params == {"L": 0, "U": 1, "N": 2, "d_in": 2}
    assert var.witness.formula_value == F(1, 2) and var.witness.truth.value == F(1, 4)


def test_verify_a_chain_clipped_sum_seed000_rule():
    """Seed 000's U - L for the clipped sum: violated under add/remove (a record outside the
    bounds is clamped, then added), tight under one substitution."""
    r = verify("U - L", make_clipped_sum())
    assert r.verdict is Verdict.VIOLATED
    assert r.witness.params == {"L": -2, "U": -1, "d_in": 1}
    assert (r.witness.truth.witness.x, r.witness.truth.witness.x_prime) == ((), (F(-3),))
    assert r.witness.truth.witness.fx_prime == -2  # -3 clamped to L = -2
    sub = verify("U - L", make_clipped_sum(neighbors="substitute", size=N), d_in=1)
    assert sub.verdict is Verdict.HOLDS_ON_GRID and sub.tight
    assert sub.map_verdict is Verdict.HOLDS_ON_GRID and sub.map_tight


def test_verify_binds_the_transformation_s_own_parameters():
    r = verify("U - L", make_sum(-2, 1), d_in=(1, 2))
    assert r.verdict is Verdict.VIOLATED
    # U - L = 3 covers one record (2) but not two (4)
    assert r.witness.params == {"d_in": 2} and r.witness.truth.value == 4
    assert r.bindings == 2


def test_quantile_claim_violated_under_substitution_with_its_witness():
    t = make_quantile_score([1, 2], neighbors="substitute")
    r = verify("max(alpha, 1 - alpha) * d_in", t, d_in=1)
    assert r.verdict is Verdict.VIOLATED
    assert r.witness.params == {"alpha": F(1, 4), "d_in": 1}
    assert r.witness.truth.value == 1
    assert (r.witness.truth.witness.x, r.witness.truth.witness.x_prime) == ((F(1), F(1)), (F(1), F(3)))
    one = verify("d_in", t, d_in=1)
    assert one.verdict is Verdict.HOLDS_ON_GRID and one.tight


def test_grid_forms_mapping_list_and_skip_of_reversed_bounds():
    t = make_sum()
    r = verify("d_in*max(abs(L), abs(U))", t, grid={"L": [0, 2], "U": [1, 3]}, d_in=2)
    assert r.bindings == 3  # (2, 1) skipped: U < L
    r = verify("d_in*max(abs(L), abs(U))", t, grid=[{"L": -1, "U": 0, "d_in": 3}])
    assert r.bindings == 1 and r.witness.truth.value == 3
    assert len(default_grid(make_mean())) == 4 * 3 * 4
    assert len(default_grid(make_variance(ddof=1, size=N))) == 4 * 4 * 4  # N >= 2


def test_results_as_dict_and_latex():
    r = verify("U - L", make_sum(), grid={"L": [1], "U": [3]}, d_in=1)
    d = r.to_dict()
    assert d["verdict"] == "violated" and d["claim"] == "U - L"
    assert d["witness"]["parameters"] == {"L": 1, "U": 3, "d_in": 1}
    assert d["witness"]["pair"] == {"x": [], "x_prime": ["3"], "fx": "0", "fx_prime": "3",
                                    "distance": "3"}
    assert d["evidence"] == "bit-exact-grid" and d["tight"] is False
    assert d["grid"] == "(L, U) in {(1, 3)}; d_in in {1}"
    assert d["derived"] == "d_in*Max(Abs(L), Abs(U))" and d["derived_verdict"] == "holds-on-grid"
    assert d["derived_tight"] is True
    json.dumps(d)
    assert r._repr_latex_() == (
        r"$\displaystyle - L + U \not\geq \Delta_{\mathrm{sum}}\ \text{(violated on 1 bindings)}$")


def test_assert_verified_raises_carrying_the_result():
    with pytest.raises(ClaimViolated) as info:
        assert_verified("U - L", make_sum(), grid={"L": [1], "U": [3]}, d_in=1)
    assert info.value.result.witness.truth.value == 3
    assert isinstance(info.value, AssertionError)
    ok = assert_verified("d_in", make_count(), d_in=(1, 2))  # holds-on-grid passes
    assert ok.verdict is Verdict.HOLDS_ON_GRID and ok.tight


def test_sympy_claims_are_read_by_name_into_canonical_symbols():
    plain = sympy.Symbol("U") - sympy.Symbol("L")  # no assumptions: mapped by name
    assert verify(plain, make_sum(), grid={"L": [1], "U": [3]}, d_in=1).verdict is Verdict.VIOLATED
    five = verify(5, make_sum(0, 5), d_in=1)
    assert five.verdict is Verdict.HOLDS_ON_GRID and five.tight


NASTY_CLAIMS = [
    ("__import__('os').system('true')", "calls"),
    ("__import__('os')", "calls '__import__', which is not allowed"),
    ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
    ("U.__class__", "contains Attribute"),
    ("(lambda: 1)()", "not allowed"),
    ("lambda x: x", "contains Lambda"),
    ("open('/etc/passwd')", "calls 'open'"),
    ("[d_in for d_in in range(9**9)]", "contains ListComp"),
    ("d_in if 1 else 0", "contains IfExp"),
    ("'U - L'", "contains the literal 'U - L'"),
    ("eval('1')", "calls 'eval'"),
    ("U - L; import os", "is not a formula"),
    ("N * d_in", "uses the unknown name 'N'"),
    ("epsilon * d_in", "uses the unknown name 'epsilon'"),
    ("", "is empty"),
]


@pytest.mark.parametrize("claim, message", NASTY_CLAIMS)
def test_string_claims_that_are_not_arithmetic_are_refused(claim, message):
    with pytest.raises(InvalidArgument) as info:
        verify(claim, make_sum(), d_in=1)
    assert message in str(info.value)


BAD_ARGUMENTS = [
    (lambda: verify("d_in", "sum"), "transformation='sum' is not a Transformation"),
    (lambda: verify("d_in", Transformation("t", Domain("real numbers"), "AbsoluteDistance",
                                           Domain("real numbers"), "AbsoluteDistance", d_in)),
     "has no exact form"),
    (lambda: verify("d_in", make_sum(), grid=[{"L": 0, "d_in": 1}]), "has no value for ['U']"),
    (lambda: verify("d_in", make_sum(), grid=[{"L": 0, "U": 1}]), "has no value for ['d_in']"),
    (lambda: verify("d_in", make_sum(0, 1), grid=[{"L": 0, "d_in": 1}]), "binds ['L']"),
    (lambda: verify("d_in", make_sum(), grid={"L": [0], "U": [1], "d_in": [1]}, d_in=2),
     "d_in given both"),
    (lambda: verify("d_in", make_sum(), grid={"L": [0], "Q": [1]}), "no parameter name='Q'"),
    (lambda: verify("d_in", make_sum(), grid=[]), "has no binding"),
    (lambda: verify("d_in", make_sum(), d_in=[]), "d_in=[] is empty"),
    (lambda: verify("d_in", make_sum(), grid={"L": range(40), "U": range(40, 80)}),
     "over 2,000"),
    (lambda: verify(sympy.Symbol("N") * d_in, make_sum(), d_in=1), "uses ['N'], which are not"),
    (lambda: verify(sympy.Float(1.5), make_sum(0, 1), d_in=1), "contains a float"),
    # was: raw TypeError / ValueError from deep inside (found in review)
    (lambda: verify("U - L", make_sum(), grid=42), "grid=42 is not a grid; pass a mapping"),
    (lambda: verify("U - L", make_sum(), grid="abc"), "grid='abc' is not a grid"),
    (lambda: verify("U - L", make_sum(), grid=[1, 2]), "grid binding 1 is not a mapping"),
    (lambda: verify("U - L", make_sum(), grid=[{"L": 0, "U": 1, "d_in": 1}, 5]),
     "grid binding 5 is not a mapping"),
    (lambda: verify("U - L", make_sum(), grid={"L": [0], "U": None}),
     "grid['U']=None is not a value or a list of values"),
    (lambda: verify("U - L", make_sum(), grid={"L": [0], "U": []}), "grid['U'] is empty"),
    (lambda: verify("U - L", make_sum(), grid={3: [1]}), "grid has the key 3"),
    (lambda: verify("U - L", make_sum(), grid={"L": [None], "U": [1]}),
     "grid value L=None is not a rational number"),
    (lambda: verify("U - L", make_sum(), grid={"L": [0], "U": [sympy.sqrt(2)]}),
     "grid value U=sqrt(2) is not a rational number"),
    (lambda: verify("U - L", make_sum(), grid=[{"L": True, "U": 1, "d_in": 1}]),
     "grid value L=True is not a rational number"),
    (lambda: verify("U - L", make_sum(0, 1), d_in=[None]), "grid value d_in=None is not a rational"),
    (lambda: verify("U - L", make_sum(0, 1), d_in={"a": 1}), "d_in={'a': 1} is not a distance"),
    (lambda: verify(None, make_sum(0, 1)), "claim=None of type NoneType is not a claim"),
    (lambda: verify([1], make_sum(0, 1)), "claim=[1] of type list is not a claim"),
    (lambda: verify(sympy.Eq(U, 1), make_sum(0, 1)), "claim=Eq(U, 1) is a Equality, not a formula"),
    (lambda: verify("10**10**10**d_in", make_sum()), "a tower of powers is refused"),
    (lambda: verify(10 ** (10**U), make_sum()), "a tower of powers is refused"),
    (lambda: verify("2**(10*d_in)", make_count(), d_in=7),
     "claim='2**(10*d_in)' at d_in=7 raises to the power 70, which is too large"),
    (lambda: verify("(9**60)**60*(9**60)**60*d_in", make_count()), "builds a number of about 6,870 digits"),
    (lambda: verify(sympy.Integer(9) ** 3600 * U, make_sum(), grid={"L": [0], "U": [9**3600]}, d_in=1),
     "builds a number of about 6,870 digits"),
]


@pytest.mark.parametrize("call, message", BAD_ARGUMENTS)
def test_bad_arguments(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert message in str(info.value)


def test_an_undecidable_comparison_is_undecided_never_holds():
    # log(6) - log(2) - log(3) is zero, but no sign decision can tell it from zero
    r = verify("d_in + log(6) - log(2) - log(3)", make_count(), d_in=(1, 2))
    assert r.verdict is Verdict.UNDECIDED and not r.ok
    assert r.witness.params == {"d_in": 1}
    assert str(r).splitlines()[-1].startswith(
        "count: UNDECIDED: claim d_in + log(6) - log(2) - log(3) could not be compared")
    with pytest.raises(ClaimViolated):
        assert_verified("d_in + log(6) - log(2) - log(3)", make_count(), d_in=1)


def test_string_grid_values_are_read_exactly():
    # was: TypeError "value='1' is not an exact number" from the catalogue's evaluation
    r = verify("U - L", make_sum(), grid={"L": ["-2"], "U": ["-1/2"]}, d_in="1")
    assert r.verdict is Verdict.VIOLATED  # 3/2 < 2
    assert r.witness.params == {"L": -2, "U": F(-1, 2), "d_in": 1}
    assert r.witness.truth.value == 2


def test_float_grid_values_are_inexact_input_with_the_exact_door():
    with pytest.raises(InexactInput, match="L=0.5 is a float"):
        verify("U - L", make_sum(), grid={"L": [0.5], "U": [1]})


TOWER_CALLS = [
    "verify('10**10**10**d_in', make_sum())",
    "verify('U**U**U', make_sum())",
    "verify(10**(10**U), make_sum(), grid={'L': [0], 'U': [9]}, d_in=1)",
    "verify(U**(U**U), make_sum(0, 9), d_in=1)",
]


def test_claims_that_would_build_huge_numbers_are_refused_quickly(outcomes_in_child):
    # was: verify('10**10**10**d_in', make_sum()) hung (10**(10**10) built on the first binding)
    setup = ("from exactdp.symbolic.verify import verify; from exactdp.symbolic.constructors import "
             "make_sum; from exactdp.symbolic.symbols import U")
    assert outcomes_in_child(setup, TOWER_CALLS, 20.0) == ["InvalidArgument"] * len(TOWER_CALLS)


def test_repr_is_one_short_line_and_str_ends_with_the_verdict():
    r = verify("U - L", make_sum())
    assert repr(r) == ("<GridResult violated: claim 'U - L' for sum on 16 bindings; "
                       "first failing at L=-2, U=-1, d_in=1>")
    ok = verify(d_in * sympy.Max(abs(L), abs(U)), make_sum())
    assert repr(ok) == ("<GridResult holds-on-grid, tight: claim 'd_in*Max(Abs(L), Abs(U))' for sum "
                        "on 16 bindings>")
    assert ok.summary() == (
        "HOLDS ON GRID, tight (evidence: bit-exact-grid, 16 bindings: (L, U) in {(-2, -1), "
        "(-1, 2), (0, 2), (1, 3)}; d_in in {1, 2, 3, 4}): claim d_in*Max(Abs(L), Abs(U)) is never "
        "below, and attained at L=-2, U=-1, d_in=1: formula 2 vs exact 2; pair x=[], x'=[-2]: "
        "f(x)=0, f(x')=-2")
    assert ok._repr_latex_() == (
        r"$\displaystyle d_{in} \max\left(\left|{L}\right|, \left|{U}\right|\right) \geq "
        r"\Delta_{\mathrm{sum}}\ \text{(holds-on-grid on 16 bindings)}$")
    lines = str(r).splitlines()
    assert [line.split(":")[0] for line in lines] == ["scope", "witness enumeration", "self-check", "sum"]
    assert lines[2] == ("self-check: the derived map d_in*Max(Abs(L), Abs(U)) equals the exact "
                        "sensitivity on every binding")
    assert lines[-1] == f"sum: {r.summary()}"
