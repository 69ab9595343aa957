"""Transformations and measurements: map, check, bind, chaining and its refusals, display."""

import re
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument, SpaceMismatch, Undecided
from exactdp.symbolic.constructors import (
    make_clamp, make_count, make_gaussian, make_histogram, make_laplace, make_mean, make_sum,
    make_symmetric_to_change,
)
from exactdp.symbolic.maps import Domain, Measurement, Transformation
from exactdp.symbolic.symbols import sigma
from exactdp.symbolic.symbols import L, N, U, d_in, k


# -- map and check ----------------------------------------------------------------------

def test_map_is_an_expression_until_every_parameter_is_bound():
    t = make_sum()
    assert t.free == ["L", "U"]
    assert t.map() == d_in * sympy.Max(sympy.Abs(L), sympy.Abs(U))
    assert t.map(3) == 3 * sympy.Max(sympy.Abs(L), sympy.Abs(U))
    half = t.bind(L=-5)
    assert half.free == ["U"] and half.map(2) == 2 * sympy.Max(5, sympy.Abs(U))
    bound = half.bind(U=Fraction(7, 2))
    assert bound.map(2) == Fraction(10) and isinstance(bound.map(2), Fraction)
    assert t.free == ["L", "U"]  # bind returns a copy


def test_check_is_exactly_d_out_at_least_map():
    t = make_sum(-3, 2)
    assert t.check(2, 6) and not t.check(2, Fraction(599, 100))
    assert t.check(2, "6.0") and t.check(0, 0)
    # an irrational map: the histogram's L2 map sqrt(2) at d_in=1, k=2
    h = make_histogram(2, "L2")
    assert h.map(1) == sympy.sqrt(2)
    assert h.check(1, sympy.sqrt(2))
    assert not h.check(1, Fraction(141421356, 10**8))
    assert h.check(1, Fraction(141421357, 10**8))


def test_check_refuses_unbound_parameters_and_floats():
    with pytest.raises(InvalidArgument, match=r"free parameters \['L', 'U'\]"):
        make_sum().check(1, 5)
    with pytest.raises(InexactInput, match="d_out=0.5 is a float"):
        make_sum(0, 1).check(1, 0.5)


def test_undecided_propagates_never_a_guess():
    # log(6) - log(2) - log(3) is 0, but neither SymPy nor a numerical sign decides it
    t = Transformation("tricky", Domain("real numbers"), "AbsoluteDistance",
                       Domain("real numbers"), "AbsoluteDistance",
                       d_in * (sympy.log(6) - sympy.log(2) - sympy.log(3)))
    with pytest.raises(Undecided):
        t.check(1, 0)
    assert t.check(1, Fraction(1, 10**6))  # clearly above: decided


def test_d_in_is_a_whole_number_under_dataset_metrics_and_exact_elsewhere():
    assert make_count().map(Fraction(4, 2)) == 2
    with pytest.raises(InvalidArgument, match=re.escape("d_in=Fraction(1, 2) is not a whole number")):
        make_count().map(Fraction(1, 2))
    with pytest.raises(InvalidArgument, match="d_in=-1 is negative"):
        make_count().map(-1)
    lap = make_laplace(2, "L1Distance")
    assert lap.map(Fraction(1, 2)) == Fraction(1, 4)
    assert lap.map("0.5") == Fraction(1, 4)
    with pytest.raises(InexactInput):
        lap.map(0.5)
    with pytest.raises(InexactInput, match="contains a float"):
        lap.map(sympy.Float(0.5))


def test_measurement_maps():
    assert make_laplace().map(1) == d_in.subs(d_in, 1) / sympy.Symbol("scale", positive=True)
    assert make_laplace(Fraction(1, 2)).map(3) == 6
    g = make_gaussian()
    assert g.map(2) == 2 / sigma**2
    assert g.bind(sigma=2).map(2) == Fraction(1, 2)
    assert g.bind(sigma=2).check(2, Fraction(1, 2)) and not g.bind(sigma=2).check(2, Fraction(49, 100))
    assert g.output_measure == "ZeroConcentratedDivergence"


BAD_BINDINGS = [
    (make_sum, dict(L=3, U=1), InvalidArgument, r"Cannot have U='1' < L='3'"),
    (make_sum, dict(L="1/2", U="1/4"), InvalidArgument, r"Cannot have U='1/4' < L='1/2'"),
    (make_sum, dict(L=0.5), InexactInput, r"L=0.5 is a float"),
    (make_sum, dict(M=1), InvalidArgument, r"has no parameter M=1"),
    (lambda: make_sum(size=N), dict(N=0), InvalidArgument, r"N=0 is not a positive integer"),
    (lambda: make_sum(size=N), dict(N=Fraction(3, 2)), InvalidArgument, r"is not a positive integer"),
    (lambda: make_histogram(k=None), dict(k=0), InvalidArgument, r"k=0 is not a positive integer"),
    (make_laplace, dict(scale=0), InvalidArgument, r"scale=0 is not positive"),
    (make_mean, dict(min_size=-1), InvalidArgument, r"min_size=-1 is not a whole number"),
    (make_sum, dict(L=sympy.Symbol("L")), InvalidArgument, r"not a canonical symbol"),
    (make_sum, dict(L=sympy.sqrt(2)), InvalidArgument, r"not an exact rational"),
    (make_sum, dict(L=U), InvalidArgument, r"either a number or left as its own symbol L"),
    (make_sum, dict(d_in=1), InvalidArgument, r"has no parameter d_in=1"),
]


@pytest.mark.parametrize("factory, params, error, message", BAD_BINDINGS)
def test_bind_refuses(factory, params, error, message):
    with pytest.raises(error, match=message):
        factory().bind(**params)


def test_bind_checks_bounds_against_those_already_bound():
    with pytest.raises(InvalidArgument, match=r"Cannot have U='-1' < L='0'"):
        make_sum(L=0).bind(U=-1)


def test_maps_refuse_stray_and_non_canonical_symbols():
    with pytest.raises(InvalidArgument, match=r"uses \['N'\], which are not its parameters"):
        Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", d_in * N)
    with pytest.raises(InvalidArgument, match="non-canonical symbol 'L'"):
        Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", d_in * sympy.Symbol("L"), {"L": L})
    with pytest.raises(InexactInput, match="contains a float"):
        Transformation("t", Domain("real numbers"), "AbsoluteDistance", Domain("real numbers"),
                       "AbsoluteDistance", d_in * sympy.Float(0.5))
    with pytest.raises(InvalidArgument, match="output_measure='EpsilonDP' is not a privacy measure"):
        Measurement("m", Domain("real numbers"), "AbsoluteDistance", "EpsilonDP", d_in)


# -- chaining ---------------------------------------------------------------------------

def test_chain_composes_maps_and_can_be_enumerated():
    t = make_clamp(0, 3) >> make_sum(0, 3)
    assert t.name == "clamp >> sum"
    assert t.input_domain.describe() == "datasets of reals" and t.output_metric == "AbsoluteDistance"
    assert t.map(2) == 6
    truth = t.truth({"d_in": 2})
    # records come from -1..4 and are clamped to [0, 3]: two added 3s (or 4s) move the sum by 6
    assert truth.value == 6
    assert truth.witness.x == () and truth.witness.x_prime == (Fraction(3), Fraction(3))
    sym = make_clamp() >> make_sum()
    assert sym.map() == d_in * sympy.Max(sympy.Abs(L), sympy.Abs(U))
    assert sym.bind(L=-2, U=1).truth({"d_in": 1}).witness.x_prime == (Fraction(-3),)  # clamped to -2


@settings(max_examples=20, deadline=None)
@given(lo=st.fractions(-2, 2, max_denominator=2), width=st.fractions(0, 2, max_denominator=2),
       n=st.integers(1, 3), d=st.integers(1, 3), substitute=st.booleans())
def test_chained_maps_equal_the_enumerated_chain(lo, width, n, d, substitute):
    """clamp >> sum and clamp >> mean with a public size: the composed map is exact."""
    hi = lo + width
    neighbors = "substitute" if substitute else "add-remove"
    for second in (make_sum(lo, hi, neighbors, size=n), make_mean(lo, hi, neighbors, size=n)):
        t = make_clamp(lo, hi, neighbors, size=n) >> second
        assert t.map(d) == t.truth({"d_in": d}).value


def test_chain_into_a_wider_domain_is_valid_and_loose():
    t = make_clamp(0, 2) >> make_sum(0, 3)
    assert t.map(2) == 6  # the sum's map, with its own bounds
    assert t.truth({"d_in": 2}).value == 4  # records never exceed 2 after the clamp


def test_chain_into_a_measurement():
    m = make_histogram(2, "L1") >> make_laplace(4, "L1Distance")
    assert isinstance(m, Measurement) and m.output_measure == "MaxDivergence"
    assert m.map(1) == Fraction(1, 2) and m.check(3, Fraction(3, 2))
    z = make_sum(-1, 2) >> make_gaussian(3)
    assert z.map(2) == Fraction(8, 9)
    sym = make_count() >> make_laplace()
    assert str(sym.map()) == "d_in/scale"


CHAIN_REFUSALS = [
    (lambda: make_clamp(0, 3) >> make_sum(0, 2),
     "clamp outputs datasets of values in [0, 3] under SymmetricDistance, but sum expects "
     "datasets of values in [0, 2] under SymmetricDistance (the structures match; only the "
     "parameters differ)"),
    (lambda: make_histogram(2, "L2") >> make_laplace(4, "L1Distance"),
     "histogram outputs real vectors (L2 norm) under L2Distance, but laplace expects real "
     "vectors under L1Distance (the domains or metrics differ)"),
    (lambda: make_sum(0, 3) >> make_sum(0, 3),
     "sum outputs real numbers under AbsoluteDistance, but sum expects datasets of values in "
     "[0, 3]"),
    (lambda: make_clamp(0, 3, "substitute", size=4) >> make_sum(0, 3),
     "under ChangeDistance, but sum expects"),
    (lambda: make_clamp(0, 3) >> make_sum(0, 3, size=5),
     "clamp outputs datasets of values in [0, 3] under SymmetricDistance, but sum expects "
     "datasets of values in [0, 3], size 5"),
    (lambda: make_laplace(1) >> make_laplace(1), "laplace is a measurement"),
    (lambda: make_clamp() >> make_sum(0, 3), "clamp outputs datasets of values in [L, U]"),
]


@pytest.mark.parametrize("build, message", CHAIN_REFUSALS)
def test_chain_refusals_name_both_sides(build, message):
    with pytest.raises(SpaceMismatch) as info:
        build()
    assert message in str(info.value)
    assert isinstance(info.value, InvalidArgument) and isinstance(info.value, ValueError)


def test_chain_without_a_record_wise_first_step_has_no_exact_form():
    t = make_sum(0, 1) >> make_laplace(1)
    assert not t.has_exact_form
    with pytest.raises(InvalidArgument, match="has no exact form"):
        (make_symmetric_to_change(4) >> make_count("substitute", size=4)).truth({"d_in": 1})


def test_clamp_twice_is_a_chain_with_an_exact_form():
    t = make_clamp(0, 3) >> make_clamp(1, 2)
    assert t.map(2) == 2
    assert t.truth({"d_in": 2}).value == 2


# -- display ----------------------------------------------------------------------------

def test_repr_and_latex():
    t = make_sum(-1, 2)
    assert repr(t) == (
        "Transformation('sum',\n"
        "    input_domain  = datasets of values in [-1, 2],\n"
        "    input_metric  = SymmetricDistance,\n"
        "    output_domain = real numbers,\n"
        "    output_metric = AbsoluteDistance,\n"
        "    map           = d_in -> 2*d_in,\n"
        "    params        = L=-1, U=2)"
    )
    assert str(t) == "sum: SymmetricDistance -> AbsoluteDistance, d_in -> 2*d_in"
    assert make_sum()._repr_latex_() == (
        r"$d_{out} = d_{in} \max\left(\left|{L}\right|, \left|{U}\right|\right)$")
    assert make_laplace()._repr_latex_() == r"$\varepsilon = \frac{d_{in}}{scale}$"
    assert make_gaussian()._repr_latex_() == r"$\rho = \frac{d_{in}^{2}}{2 \sigma^{2}}$"
    assert make_histogram(k=None, norm="L2")._repr_latex_() == r"$d_{out} = d_{in} \sqrt{k}$"
    assert make_histogram(k=None).map() == k * d_in


# Regressions found in review (2026-11-22): a bound parameter could be re-bound, which changed
# the map but not the step's domain (the chain then under-reported the sensitivity), and
# binding skipped the constructor's own requirements.

def test_a_bound_parameter_cannot_be_rebound_to_another_value():
    from exactdp.symbolic.constructors import make_clamp, make_mean, make_sum

    with pytest.raises(InvalidArgument, match="U of 'sum' is already bound to 10"):
        make_clamp(0, 10) >> make_sum(0, 10).bind(U=5)
    with pytest.raises(InvalidArgument, match="N of 'mean' is already bound to 5"):
        make_mean(0, 1, size=5).bind(N=50)
    assert make_sum(0, 10).bind(U=10).map(1) == 10  # the same value is fine


def test_binding_applies_the_constructors_requirements():
    from exactdp.symbolic.constructors import make_mean, make_variance
    from exactdp.symbolic.symbols import N

    with pytest.raises(InvalidArgument, match="the sample variance needs N >= 2"):
        make_variance(size=N, ddof=1).bind(N=1)
    with pytest.raises(InvalidArgument, match="pass min_size >= 1"):
        make_mean().bind(min_size=0)
    assert make_variance(L=0, U=1, size=N, ddof=1).bind(N=2).map(1) == Fraction(1, 2)
