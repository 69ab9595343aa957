"""Every constructor's derived map equals the exact sensitivity, found by enumeration, on a
small grid of parameters; and the findings about published formulas, with their witnesses."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp.errors import InvalidArgument
from exactdp.symbolic.constructors import (
    make_change_to_symmetric, make_clamp, make_count, make_histogram, make_mean,
    make_quantile_score, make_sum, make_symmetric_to_change, make_variance, make_vector_sum,
    record_grid,
)
from exactdp.symbolic.symbols import L, N, U, d_in

F = Fraction
BOUNDS = [(-2, -1), (-1, 2), (F(1, 2), 2)]  # U < 0, L < 0 < U, L > 0 with fractions
ALPHAS = [0, F(1, 4), F(1, 3), F(1, 2), F(2, 3), 1]


def _cases():
    """(label, transformation, binding) with the map expected equal to the truth."""
    for lo, hi in BOUNDS:
        for d in (1, 2, 3):
            b = dict(L=lo, U=hi, d_in=d)
            yield "clamp", make_clamp(), b
            yield "sum add-remove", make_sum(), b
            yield "sum substitute", make_sum(neighbors="substitute"), b
            for n in (1, 2, 3):
                yield "clamp substitute N", make_clamp(neighbors="substitute", size=N), dict(b, N=n)
                yield "clamp add-remove N", make_clamp(size=N), dict(b, N=n)
                yield "sum add-remove N", make_sum(size=N), dict(b, N=n)
                yield "sum substitute N", make_sum(neighbors="substitute", size=N), dict(b, N=n)
                yield "mean substitute N", make_mean(neighbors="substitute", size=N), dict(b, N=n)
                yield "mean add-remove N", make_mean(size=N), dict(b, N=n)
                yield "mean add-remove min", make_mean(), dict(b, min_size=n)
                yield "mean substitute min", make_mean(neighbors="substitute"), dict(b, min_size=n)
        for n in (1, 2, 3, 4):
            for d in (1, 2, 3):
                b = dict(L=lo, U=hi, N=n, d_in=d)
                yield "variance", make_variance(), b
                yield "variance add-remove", make_variance(neighbors="add-remove"), b
                if n >= 2:
                    yield "sample variance", make_variance(ddof=1), b
    for d in (1, 2, 3):
        yield "count", make_count(), dict(d_in=d)
        yield "count substitute", make_count("substitute"), dict(d_in=d)
        yield "count N", make_count(size=N), dict(N=2, d_in=d)
        yield "change to symmetric", make_change_to_symmetric(), dict(d_in=d)
        yield "change to symmetric N", make_change_to_symmetric(N), dict(N=2, d_in=d)
        for n in (1, 2, 3):
            yield "symmetric to change", make_symmetric_to_change(), dict(N=n, d_in=d)
        for norm in ("L1", "L2", "LInf"):
            for kk in (1, 2):
                yield f"histogram {norm}", make_histogram(k=None, norm=norm), dict(k=kk, d_in=d)
                if d <= 2:
                    yield (f"histogram {norm} substitute",
                           make_histogram(k=None, norm=norm, neighbors="substitute"), dict(k=kk, d_in=d))
            yield (f"histogram {norm} substitute N",
                   make_histogram(k=1, norm=norm, neighbors="substitute", size=N), dict(N=2, d_in=d))
        for norm in ("L1", "L2"):
            for c in (1, F(3, 2)):
                yield f"vector sum {norm}", make_vector_sum(norm=norm), dict(C=c, d_in=d)
                if d <= 2:
                    yield (f"vector sum {norm} substitute",
                           make_vector_sum(norm=norm, neighbors="substitute"), dict(C=c, d_in=d))
        for a in ALPHAS:
            for form in ("seed", "code"):
                yield (f"quantile {form}", make_quantile_score([1, 2], form=form), dict(alpha=a, d_in=d))
                yield (f"quantile {form} substitute",
                       make_quantile_score([1, 2], form=form, neighbors="substitute"), dict(alpha=a, d_in=d))
            yield "quantile integer", make_quantile_score([1, 2], a, "integer"), dict(d_in=d)
            yield ("quantile integer substitute",
                   make_quantile_score([1, 2], a, "integer", "substitute"), dict(d_in=d))


CASES = list(_cases())


@pytest.mark.parametrize("label", sorted({c[0] for c in CASES}))
def test_derived_map_equals_the_exact_sensitivity(label):
    """The map is derived AND tight: equal to the enumerated maximum on every binding."""
    checked = 0
    for name, t, binding in CASES:
        if name != label:
            continue
        params = {k: v for k, v in binding.items() if k != "d_in"}
        expected = t.bind(**params).map(binding["d_in"])
        truth = t.truth(binding)
        assert sympy.simplify(sympy.sympify(expected) - sympy.sympify(truth.value)) == 0, (
            label, binding, expected, truth.value, str(truth.witness))
        checked += 1
    assert checked >= 3


# -- specific values and witnesses --------------------------------------------------------

def test_sum_add_remove_witness_adds_the_bound_of_larger_magnitude():
    truth = make_sum(-3, 2).truth({"d_in": 2})
    assert truth.value == 6
    assert (truth.witness.x, truth.witness.x_prime) == ((), (F(-3), F(-3)))


def test_seed002_bounded_sum_is_loose_at_odd_d_in():
    """Seed 002 prints d_in/2*(U - L) for the sum with known N: equal at even d_in, above the
    truth at odd d_in (d_in add/removes between equal sizes are floor(d_in/2) changes)."""
    t = make_sum(0, 2, size=3)
    assert [t.truth({"d_in": d}).value for d in (1, 2, 3, 4)] == [0, 2, 2, 4]
    assert [F(d, 2) * 2 for d in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert t.map() == sympy.Min(3, sympy.floor(d_in / 2)) * 2


def test_variance_one_change_is_n_minus_1_over_n_squared_and_seed002_is_loose():
    t = make_variance(size=N)
    assert t.map(1) == sympy.Min(1, sympy.floor(N / 2)) * (N - sympy.Min(1, sympy.floor(N / 2))) * (U - L) ** 2 / N**2
    for n in (2, 3, 4, 5):
        truth = make_variance(0, 1, size=n).truth({"d_in": 1})
        assert truth.value == F(n - 1, n * n)
        assert F(1, n) > truth.value  # seed 002: d_in/2*(U-L)**2/N at d_in = 2 (one change)
    w = make_variance(0, 1, size=3).truth({"d_in": 1}).witness
    # N equal records against one of them moved to the other bound
    assert {len(set(w.x)), len(set(w.x_prime))} == {1, 2}
    assert abs(w.fx - w.fx_prime) == F(2, 9)
    # two changes of four records: 2*2/16 = 1/4, the largest variance on [0, 1]
    assert make_variance(0, 1, size=4).truth({"d_in": 2}).value == F(1, 4)


def test_mean_sum_over_count_depends_on_the_smallest_size():
    t = make_mean(0, 6)
    assert [t.bind(min_size=1).map(d) for d in (1, 2)] == [3, 6]
    assert [t.bind(min_size=2).map(d) for d in (1, 2, 3, 4)] == [2, 3, 4, 6]
    truth = t.truth({"min_size": 2, "d_in": 3})
    assert truth.value == 4
    # [6, 6] against [6, 0, 0]: one 6 removed, two 0s added
    assert sorted([truth.witness.x, truth.witness.x_prime]) == [(F(0), F(0), F(6)), (F(6), F(6))]


def test_quantile_seed_form_under_substitution_exceeds_max_alpha():
    """Seed 002's bound max(alpha, 1 - alpha)*d_in is for add/remove; a change moves a score
    by (1 - alpha) + alpha = 1."""
    t = make_quantile_score([1, 2], F(1, 4), neighbors="substitute")
    truth = t.truth({"d_in": 1})
    assert truth.value == 1 > max(F(1, 4), F(3, 4))
    assert (truth.witness.x, truth.witness.x_prime) == ((F(1), F(1)), (F(1), F(3)))


def test_quantile_integer_form_reproduces_opendp_scores():
    """OpenDP's test of make_quantile_score_candidates (alpha = 0.5, data 0..99)."""
    t = make_quantile_score([20, 33, 40, 50, 72, 100], F(1, 2), "integer")
    query, _, _, _ = t.exact_form({"d_in": 1})
    assert query(list(range(100))) == (59, 33, 19, 1, 45, 100)
    assert t.map(1) == 1


def test_histogram_and_vector_witnesses_are_decoded():
    truth = make_histogram(2, "L1", "substitute").truth({"d_in": 1})
    assert truth.value == 4
    assert "(bin sets)" in str(truth.witness)
    d = truth.witness.to_dict()
    assert d["records"] == "bin sets" and len(d["x"]) == len(d["x_decoded"]) == 1
    assert set(d["x_decoded"] + d["x_prime_decoded"]) in (
        {"{0,1}", "{2,3}"}, {"{0,2}", "{1,3}"}, {"{0,3}", "{1,2}"})
    v = make_vector_sum(2, "L2", "substitute").truth({"d_in": 1})
    assert v.value == 4
    rows = v.witness.to_dict()["x_decoded"] + v.witness.to_dict()["x_prime_decoded"]
    assert sorted(rows) in (["(-2, 0)", "(2, 0)"], ["(0, -2)", "(0, 2)"], ["(-2, 0)", "(4, 0)"])


@settings(max_examples=40, deadline=None)
@given(lo=st.fractions(-3, 3, max_denominator=2), width=st.fractions(0, 3, max_denominator=2),
       d=st.integers(1, 3))
def test_sum_map_equals_truth_on_random_fraction_bounds(lo, width, d):
    hi = lo + width
    t = make_sum(lo, hi)
    assert t.map(d) == t.truth({"d_in": d}).value


def test_record_grid_contains_the_bounds():
    assert record_grid(-1, 1) == (F(-1), F(0), F(1))
    assert record_grid(F(1, 3), F(1, 2)) == (F(1, 3), F(1, 2))
    wide = record_grid(F(-7, 2), F(11, 3))
    assert wide[0] == F(-7, 2) and wide[-1] == F(11, 3) and F(1, 12) in wide


BAD_ARGUMENTS = [
    (lambda: make_sum(neighbors="hamming"), "neighbors='hamming' is not a neighbour relation"),
    (lambda: make_sum(3, 1), "Cannot have U='1' < L='3'"),
    (lambda: make_mean(0, 1, size=3, min_size=1), "size=3 and min_size=1 both given"),
    (lambda: make_variance(0, 1, size=1, ddof=1), "the sample variance needs N >= 2"),
    (lambda: make_variance(ddof=2), "ddof=2 is not the int 0"),
    (lambda: make_histogram(norm="L3"), "norm='L3' is not one of"),
    (lambda: make_histogram(size=3), "convert first with make_symmetric_to_change"),
    (lambda: make_quantile_score([], F(1, 2)), "candidates=[] is empty"),
    (lambda: make_quantile_score([1], form="float"), "form='float' is not one of"),
    (lambda: make_quantile_score([1], None, "integer"), "the integer form needs a number"),
    (lambda: make_quantile_score([1], 2), "alpha=2 is outside [0, 1]"),
    (lambda: make_vector_sum(norm="LInf"), "norm='LInf' is not 'L1' or 'L2'"),
    (lambda: make_vector_sum(C=-1), "C=-1 is negative"),
    (lambda: record_grid(2, 1), "Cannot have U='1' < L='2'"),
    (lambda: make_sum(0, 1).truth({}), "no value for d_in"),
    (lambda: make_sum().truth({"d_in": 1}), "no value for ['L', 'U']"),
    (lambda: make_sum(0, 1).truth({"d_in": 1, "N": 3}), "has no parameter N=3"),
    (lambda: make_histogram(2, neighbors="substitute", bins=3).truth({"d_in": 1}), "bins=3 < 2*k=4"),
]


@pytest.mark.parametrize("call, message", BAD_ARGUMENTS)
def test_bad_arguments(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert message in str(info.value)
