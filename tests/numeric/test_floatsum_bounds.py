"""The float-sum sensitivity bounds are sound: exhaustively in toy formats (every multiset,
every order of both neighbours), and on random float32/float64 neighbours; OpenDP's
published relaxation values are reproduced exactly."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.numeric.decide import sign
from exactdp.numeric.floatformat import FLOAT64, FloatFormat
from exactdp.numeric.floatsum import MODEL_NAMES, MODELS, float_sum
from exactdp.numeric.floatsum_bounds import (
    sequential_stagnation,
    _pairwise_envelope,
    exact_sum_sensitivity,
    numpy_pairwise_depths,
    opendp_relaxation,
    opendp_stability_map,
    rounding_error_bound,
    sensitivity_bound,
)

F = Fraction
TOY = FloatFormat.toy(precision=3, emin=-2, emax=5)   # u = 1/8, largest value 56


# -- exhaustive search in a toy format -------------------------------------------------------

def _ranges(fmt, values, max_n, model):
    """Smallest and largest stored result over all orders, for every multiset."""
    out = {}
    for n in range(max_n + 1):
        for ms in itertools.combinations_with_replacement(values, n):
            results = {float_sum(p, model, fmt, check=False) for p in set(itertools.permutations(ms))}
            out[ms] = (min(results), max(results))
    return out


def _true_sensitivities(fmt, bounds, max_n, model):
    """The exact float sensitivity under add/remove and under one substitution (d_in = 1),
    with a witness pair of multisets for each."""
    values = fmt.values_between(*bounds)
    r = _ranges(fmt, values, max_n, model)
    add_remove, substitute = (F(-1), None), (F(-1), None)
    for ms, (lo, hi) in r.items():
        if len(ms) == max_n:
            continue
        group = [(tuple(sorted(ms + (v,))), r[tuple(sorted(ms + (v,)))]) for v in values]
        for other, (lo2, hi2) in group:     # ms and ms + {v}: add/remove neighbours
            d = max(hi - lo2, hi2 - lo)
            if d > add_remove[0]:
                add_remove = (d, (ms, other))
        # ms + {a} and ms + {b} are exactly the substitution neighbours of size len(ms) + 1
        low = min(group, key=lambda g: g[1][0])
        high = max(group, key=lambda g: g[1][1])
        if high[1][1] - low[1][0] > substitute[0]:
            substitute = (high[1][1] - low[1][0], (low[0], high[0]))
    return add_remove, substitute


# (bounds, max_n) -> model -> (true add/remove, true substitute), measured exhaustively.
# The exact-sum sensitivities are (3, 3), (2, 4) and (3, 2): every float model exceeds
# them somewhere, i.e. the rounding terms of the bounds are needed.
TRUE = {
    ((0, 3), 3): {"sequential": (4, 4), "pairwise": (4, 4), "kahan": (4, 4),
                  "neumaier": (4, 4), "fsum": (4, 4), "sorted": (F(7, 2), F(7, 2)),
                  "sorted-magnitude": (F(7, 2), F(7, 2))},
    ((-2, 2), 2): {m: (F(9, 4), F(17, 4)) for m in MODEL_NAMES},
    ((1, 3), 3): {"sequential": (4, 3), "pairwise": (4, 3), "kahan": (4, 3),
                  "neumaier": (4, F(5, 2)), "fsum": (4, F(5, 2)), "sorted": (F(7, 2), 3),
                  "sorted-magnitude": (F(7, 2), 3)},
}
# Bound / true maximum (the slack) is at most 1.6 (fsum, sequential), 2.0 (pairwise),
# 2.6 (neumaier) and 8.3 (kahan, whose O(n u^2) terms are large at u = 1/8).
SLACK = {"fsum": 2, "sequential": 2, "pairwise": F(5, 2), "sorted": F(5, 2),
         "sorted-magnitude": F(5, 2), "neumaier": 3, "kahan": 9}


@pytest.mark.parametrize("bounds, max_n", list(TRUE))
def test_bounds_are_sound_by_exhaustive_search_in_a_toy_format(bounds, max_n):
    for model in MODEL_NAMES:
        (ar, ar_witness), (sub, sub_witness) = _true_sensitivities(TOY, bounds, max_n, model)
        assert (ar, sub) == TRUE[(bounds, max_n)][model], (model, ar_witness, sub_witness)
        for neighbors, true in (("add-remove", ar), ("substitute", sub)):
            bound = sensitivity_bound(model, TOY, bounds, max_n, neighbors=neighbors)
            assert true <= bound <= SLACK[model] * true, (model, neighbors, true, bound)


def test_csvw22_sequential_float_sum_moves_by_more_than_u_minus_l():
    """CSVW22: after clipping to [0, 3], changing one record moves a 3-bit float sum by 4."""
    x = [0, F(1, 2), F(7, 4)]
    x_prime = [3, F(7, 4), F(1, 2)]         # 0 replaced by 3, the order chosen by the adversary
    assert {float_sum(p, "sequential", TOY) for p in itertools.permutations(x)} == {2}
    assert float_sum(x_prime, "sequential", TOY) == 6   # 3 + 7/4 -> 5; 5 + 1/2 ties to 6
    assert sum(x_prime) - sum(x) == 3 == exact_sum_sensitivity((0, 3), 3, neighbors="substitute")
    assert float_sum(x_prime, "sequential", TOY) - float_sum(x, "sequential", TOY) == 4
    assert sensitivity_bound("sequential", TOY, (0, 3), 3, neighbors="substitute") == 6
    # adding the record 3 to [1/2, 7/4] also moves it by 4 > max(|L|, |U|) = 3
    assert float_sum(x_prime, "sequential", TOY) - float_sum(x[1:], "sequential", TOY) == 4


def test_sequential_float_sum_in_0_1_moves_by_twice_u_minus_l():
    """With 4 records in [0, 1], adding a 1 moves the 3-bit left fold by 2 = 2(U - L):
    every addition of x' ties and rounds up, every addition of x ties and rounds down."""
    x = [F(3, 4), F(7, 8), F(3, 4)]                 # 13/8 -> 3/2, 9/4 -> 2   (exact 19/8)
    x_prime = [1, F(7, 8), F(3, 4), F(3, 4)]        # 15/8 -> 2, 11/4 -> 3, 15/4 -> 4 (exact 27/8)
    assert float_sum(x, "sequential", TOY) == 2 and float_sum(x_prime, "sequential", TOY) == 4
    (add_remove, _), (substitute, _) = _true_sensitivities(TOY, (0, 1), 4, "sequential")
    assert add_remove == substitute == 2                           # exhaustive, every order
    assert sensitivity_bound("sequential", TOY, (0, 1), 4) == F(5, 2)
    assert sensitivity_bound("sequential", TOY, (0, 1), 4, neighbors="substitute") == 3


def test_float32_left_fold_moves_by_two_when_one_record_1_is_added():
    """A real float32 instance: 4095 or 4096 ones, then 4096 copies of 1.25 * 2**-12.
    Below 4096 each small value is 1.25 ulp (rounds to 1 ulp), from 4096 on it is 0.625
    ulp (rounds up to 1 ulp): the exact sums differ by 1, the float32 sums by 2."""
    small = 1.25 * 2.0**-12
    x = [1.0] * 4095 + [small] * 4096
    x_prime = [1.0] * 4096 + [small] * 4096
    assert float_sum(x, "sequential", "float32") == 4096
    assert float_sum(x_prime, "sequential", "float32") == 4098
    bound = sensitivity_bound("sequential", "float32", (0, 1), 8192)
    assert 2 < bound < F(367, 100)                      # measured: 3.6676...
    for model in ("pairwise", "kahan", "neumaier", "fsum"):
        assert float_sum(x_prime, model, "float32") - float_sum(x, model, "float32") == 1


# -- random neighbours in float32 and float64 -------------------------------------------------

CASES = [("float64", (-10, 10)), ("float64", (0, 1)), ("float64", (2, 10)),
         ("float64", (F(-15, 2), F(-1, 4))), ("float32", (0, 1)), ("float32", (-1, 3))]


@functools.cache
def _bound(model, fmt, bounds, max_n, neighbors):
    return sensitivity_bound(model, fmt, bounds, max_n, neighbors=neighbors)


@st.composite
def neighbour_pairs(draw):
    fmt, (lower, upper) = draw(st.sampled_from(CASES))
    width = 32 if fmt == "float32" else 64
    lo, hi = float(lower), float(upper)
    element = st.one_of(st.sampled_from([lo, hi]),
                        st.floats(lo, hi, width=width),
                        st.floats(hi - (hi - lo) / 64, hi, width=width))
    max_n = draw(st.sampled_from([1, 2, 5, 12]))
    neighbors = draw(st.sampled_from(["add-remove", "substitute"]))
    size = draw(st.integers(1 if neighbors == "substitute" else 0, max_n))
    x = draw(st.lists(element, min_size=size, max_size=size))
    if neighbors == "substitute":
        i = draw(st.integers(0, size - 1))
        x_prime = x[:i] + [draw(element)] + x[i + 1:]
    elif size == max_n or (size > 0 and draw(st.booleans())):
        x_prime = list(x)
        del x_prime[draw(st.integers(0, size - 1))]
    else:
        x_prime = x + [draw(element)]
    x_prime = draw(st.permutations(x_prime))
    return fmt, (lower, upper), max_n, neighbors, x, x_prime


@settings(max_examples=1000, deadline=None)
@given(neighbour_pairs())
def test_random_neighbours_never_exceed_the_bound(case):
    """1,000 random neighbouring pairs, each summed by all 7 models (7,000 checks)."""
    fmt, bounds, max_n, neighbors, x, x_prime = case
    for model in MODEL_NAMES:
        moved = abs(float_sum(x, model, fmt) - float_sum(x_prime, model, fmt))
        assert moved <= _bound(model, fmt, bounds, max_n, neighbors), model


# -- the depth counts behind the pairwise bound ----------------------------------------------

class _Depths:
    """An 'arithmetic' whose values record, per input, how many roundings it went through
    (0 + x is exact, as in the models)."""
    zero = None

    @staticmethod
    def add(a, b):
        if a is None or b is None:
            return b if a is None else a
        return {i: d + 1 for part in (a, b) for i, d in part.items()}


def _traced(model, n):
    depths = MODELS[model]._run([{i: 0} for i in range(n)], _Depths) or {}
    return sum(depths.values()), max(depths.values(), default=0)


def test_depth_counts_match_a_trace_of_the_models():
    for n in list(range(200)) + [511, 1000, 1031]:
        assert numpy_pairwise_depths(n) == _traced("pairwise", n), n
        assert _traced("sequential", n) == ((n - 1) * (n + 2) // 2 if n else 0, max(n - 1, 0))
    running_total = running_depth = 0
    for n in range(1200):
        total, depth = numpy_pairwise_depths(n)
        running_total, running_depth = max(running_total, total), max(running_depth, depth)
        envelope_total, envelope_depth = _pairwise_envelope(n)
        assert envelope_total >= running_total and envelope_depth >= running_depth, n
    # not monotone: 127 values are summed less accurately than 128
    assert numpy_pairwise_depths(127) == (2180, 24) and numpy_pairwise_depths(128) == (1464, 18)


# -- exact values and comparisons with OpenDP --------------------------------------------------

def test_rounding_error_bounds_exact_values():
    u = F(1, 2**53)
    # staircase: x1 + x2 <= 2 and x1 + x2 + x3 <= 3 + error both lie in [2, 4): 2 half-ulps
    assert rounding_error_bound("sequential", "float64", 1, 3) == 4 * u < u * 5 / (1 - 2 * u)
    assert rounding_error_bound("sorted", "float64", 1, 3) == 4 * u
    # with n*u > 1 the gamma form does not exist, the staircase does
    assert 8 * 10**6 < rounding_error_bound("sequential", "float32", 1, 16908288) < 9 * 10**6
    assert rounding_error_bound("pairwise", "float64", 1, 8, exact_size=True) == u * 24 / (1 - 3 * u)
    assert rounding_error_bound("fsum", "float64", 10, 1000) == F(1, 2**40)   # ulp(10000) / 2
    assert rounding_error_bound("fsum", "float32", 1, 8192) == F(1, 2**11)
    for model in MODEL_NAMES:
        assert rounding_error_bound(model, "float64", 7, 1) == 0   # one value: stored exactly
    neumaier = rounding_error_bound("neumaier", "float64", 1, 2**20)
    kahan = rounding_error_bound("kahan", "float64", 1, 2**20)
    assert 2**20 * u < neumaier < F(11, 10) * 2**20 * u        # about u * n * M
    assert 3 * 2**20 * u < kahan < F(31, 10) * 2**20 * u      # about 3u * n * M


def test_exact_sum_sensitivity_table():
    assert exact_sum_sensitivity((2, 10), 5) == 10                   # not U - L = 8
    assert exact_sum_sensitivity((-7, -3), 5) == 7
    assert exact_sum_sensitivity((-3, 1), 5, d_in=2) == 6
    assert exact_sum_sensitivity((-3, 1), 1, d_in=2) == 4              # one removed, one added
    assert exact_sum_sensitivity((2, 10), 5, d_in=0) == 0
    assert exact_sum_sensitivity((2, 10), 5, neighbors="substitute", d_in=3) == 24
    assert exact_sum_sensitivity((2, 10), 2, neighbors="substitute", d_in=3, known_n=True) == 16


def _printed_at_least_exact(printed: str, exact) -> bool:
    """OpenDP's printed float is at least the exact value, and above it by only the few
    float64 steps its upward rounding of each operation adds (measured: 0.8, 3, 6 and 0.04
    steps above the four exact values)."""
    gap = sympy.Rational(Fraction(float(printed))) - exact
    return sign(gap) >= 0 and sign(gap - sympy.Rational(8 * FLOAT64.ulp(float(printed)))) < 0


def test_opendp_published_values_are_reproduced():
    sized = opendp_stability_map("pairwise", "float64", (-10, 10), 2, size=1000)
    assert _printed_at_least_exact("20.00000000004426", sized)
    limit = opendp_stability_map("pairwise", "float64", (-10, 10), 1, size_limit=2**20)
    assert limit == 20 + F(400, 2**32) / (1 - F(20, 2**52))
    assert _printed_at_least_exact("20.000000093132268", limit)
    negative = opendp_stability_map("pairwise", "float64", (-10, 0), 1, size_limit=2**20)
    assert _printed_at_least_exact("10.000000093132268", negative)
    small = opendp_stability_map("pairwise", "float64", (-10, 0), 1, size_limit=100)
    assert _printed_at_least_exact("10.00000000000295", small)
    assert opendp_relaxation("sequential", "float64", (-10, 10), 2**20) == F(5, 1024)
    assert opendp_relaxation("sequential", "float32", (0, 1), 8192) == 16
    assert abs(float(opendp_relaxation("pairwise", "float32", (0, 1), 8192)) - 0.02539) < 1e-5


def test_where_our_bounds_are_tighter_or_looser_than_opendp():
    ours = sensitivity_bound("pairwise", "float64", (-10, 10), 1000, neighbors="substitute",
                             known_n=True)
    opendp = opendp_stability_map("pairwise", "float64", (-10, 10), 2, size=1000)
    assert sign(opendp - sympy.Rational(ours)) > 0        # 20 + 3.2e-11 vs 20 + 4.4e-11
    for n in (10, 1000, 2**20):                           # sequential: 5x smaller rounding term
        ours = 2 * rounding_error_bound("sequential", "float64", 10, n)
        theirs = opendp_relaxation("sequential", "float64", (-10, 10), n)
        assert 5 * ours < theirs < 6 * ours
    # NumPy's blocks are sequential inside: at n = 127 our (NumPy) bound exceeds the
    # term OpenDP states for its own recursive pairwise sum.
    ours = 2 * rounding_error_bound("pairwise", "float64", 1, 127, exact_size=True)
    assert sign(opendp_relaxation("pairwise", "float64", (0, 1), 127) - sympy.Rational(ours)) < 0


BAD = [
    (lambda: sensitivity_bound("median", "float64", (0, 1), 5), InvalidArgument, "model='median'"),
    (lambda: sensitivity_bound("sequential", "float64", (1, 0), 5), InvalidArgument, "L=1 > U=0"),
    (lambda: sensitivity_bound("sequential", "float64", (0.0, 1), 5), InexactInput, "L=0.0 is a float"),
    (lambda: sensitivity_bound("sequential", "float64", (0, 1, 2), 5), InvalidArgument, "not a pair"),
    (lambda: sensitivity_bound("sequential", "float64", (0, 1), 0), InvalidArgument, "max_n=0"),
    (lambda: sensitivity_bound("sequential", "float64", (0, 1), 5, d_in=-1), InvalidArgument, "d_in=-1"),
    (lambda: sensitivity_bound("sequential", "float64", (0, 1), 5, neighbors="swap"), InvalidArgument, "neighbors='swap'"),
    (lambda: sensitivity_bound("sequential", "float64", (0, 1), 5, known_n=True), InvalidArgument, "known_n=True needs"),
    (lambda: sensitivity_bound("fsum", "float32", (0, 2**127), 3), InvalidArgument, "above the largest finite value of float32"),
    (lambda: sensitivity_bound("pairwise", TOY, (0, 1), 16), InvalidArgument, "10 chained roundings"),
    (lambda: rounding_error_bound("sequential", TOY, 3, 30), InvalidArgument, "sequential: intermediate results may reach"),
    (lambda: sensitivity_bound("kahan", FloatFormat.toy(3, -2, 3), (0, 3), 3), InvalidArgument, "kahan: intermediate results"),
    (lambda: rounding_error_bound("fsum", "float64", -1, 3), InvalidArgument, "magnitude=-1 is negative"),
    (lambda: opendp_relaxation("kahan", "float64", (0, 1), 5), InvalidArgument, "'sequential' and 'pairwise' only"),
    (lambda: opendp_stability_map("pairwise", "float64", (0, 1), 1), InvalidArgument, "pass exactly one"),
]


@pytest.mark.parametrize("call, error, fragment", BAD)
def test_bad_arguments(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)


# The stagnation ceiling (proofs/floatsum-stagnation.md): a left fold over values with
# |x| <= M never leaves [-T, T], however many values; so two results differ by <= 2T (T when
# the bounds do not straddle 0), which caps the sequential bounds at large n.

def test_stagnation_ceiling_is_attained_in_a_toy_format():
    # p = 3, M = 3: T = 32 (spacing 8 > 6 from 32 on); 30 threes climb 3, 6, 8, 12, 16, 20,
    # 24, 28, 32 and stay there (32 + 3 rounds back to 32)
    assert sequential_stagnation(TOY, 3) == 32
    assert float_sum([3] * 30, "sequential", TOY) == 32
    # where the error bound has no form any more (partial sums could pass 56), the ceiling stands
    assert sensitivity_bound("sequential", TOY, (0, 3), 30) == 32
    assert sensitivity_bound("sequential", TOY, (-3, 3), 30) == 64


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 5), st.data())
def test_no_partial_sum_leaves_the_stagnation_ceiling(p, data):
    fmt = FloatFormat.toy(precision=p, emin=-2, emax=9)
    grid = [v for v in fmt.values_between(Fraction(-6), Fraction(6), limit=10_000)]
    m = data.draw(st.sampled_from([v for v in grid if v > 0]))
    values = data.draw(st.lists(st.sampled_from([v for v in grid if abs(v) <= m]),
                                min_size=1, max_size=120))
    t = sequential_stagnation(fmt, m)
    s = Fraction(0)
    for v in values:  # the left fold, every partial sum
        s = fmt.round(s + v)
        assert abs(s) <= t


def test_float32_sums_stay_under_the_ceiling_at_any_size():
    from exactdp.checkers._float_sim import Grid, simulate
    from exactdp.numeric.floatformat import format_named

    f32 = format_named("float32")
    g = Grid(f32)
    t = sequential_stagnation(f32, 1)
    assert t == 2 ** 25
    for runs in ([(1, 10 ** 9)], [(1, 10 ** 8), (Fraction(1, 2), 10 ** 8)]):
        total = g.value(simulate("sequential", g, [(g.units(Fraction(v)), c) for v, c in runs]))
        assert 0 < total <= t
    assert sensitivity_bound("sequential", "float32", (0, 1), 2 * 10 ** 9) == t
