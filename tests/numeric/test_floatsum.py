"""Summation models are bit-exact: against NumPy's add.reduce, Python loops over float and
numpy.float32, math.fsum; the native fast path agrees with the exact general path."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.numeric.floatformat import FLOAT32, FLOAT64, FloatFormat, FloatOverflow
from exactdp.numeric.floatsum import MODEL_NAMES, MODELS, float_sum, float_sum_float

# Same numbers as FLOAT64/FLOAT32 but different objects: float_sum takes the general path
# (Fraction arithmetic, FloatFormat.round after every operation) for them.
SLOW64 = FloatFormat("float64-exact", 53, -1022, 1023)
SLOW32 = FloatFormat("float32-exact", 24, -126, 127)
TOY = FloatFormat.toy(precision=3, emin=-2, emax=5)

LENGTHS = [0, 1, 2, 5, 7, 8, 9, 15, 16, 17, 63, 64, 100, 127, 128, 129, 130, 135, 136, 255,
           256, 257, 1000, 1023, 1024, 1025, 4096, 5000, 8192, 8193, 20001]


def _mixed(rng: np.random.Generator, n: int, dtype) -> np.ndarray:
    """Values of mixed signs and magnitudes (10**-8 .. 10**8), some repeated."""
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    if n > 4:
        a[rng.integers(0, n, n // 4)] = a[0]
    return a.astype(dtype)


@pytest.mark.parametrize("dtype, fmt", [(np.float64, "float64"), (np.float32, "float32")])
def test_pairwise_is_numpy_add_reduce(dtype, fmt):
    rng = np.random.default_rng(20221107)
    checked = 0
    for n in LENGTHS:
        for _ in range(2 if n < 5000 else 1):
            a = _mixed(rng, n, dtype)
            values = a.tolist()
            want = float(np.add.reduce(a))
            assert float(np.sum(a)) == want
            assert float_sum_float(values, "pairwise", fmt) == want, (fmt, n)
            checked += 1
    assert checked == 2 * len(LENGTHS) - 4


def test_pairwise_differs_from_sequential_where_numpy_does():
    # 2**53 + 1 + 1 + ...: a left fold loses every 1; NumPy's 8 accumulators keep pairs.
    values = [2.0 ** 53] + [1.0] * 15
    assert float_sum_float(values, "sequential") == 2.0 ** 53
    assert float_sum_float(values, "pairwise") == float(np.sum(np.array(values))) == 2.0 ** 53 + 14


@pytest.mark.parametrize("n", [0, 1, 3, 17, 200, 1001])
def test_sequential_kahan_neumaier_fsum_match_plain_loops(n):
    rng = np.random.default_rng(n)
    for dtype, fmt in ((np.float64, "float64"), (np.float32, "float32")):
        a = _mixed(rng, n, dtype)
        values = a.tolist()
        t = dtype
        s = t(0)
        for x in a:
            s = t(s + x)
        assert float_sum_float(values, "sequential", fmt) == float(s)
        s = c = t(0)
        for x in a:  # Kahan
            y = t(x - c)
            tt = t(s + y)
            c = t(t(tt - s) - y)
            s = tt
        assert float_sum_float(values, "kahan", fmt) == float(s)
        s = c = t(0)
        for x in a:  # Neumaier
            tt = t(s + x)
            c = t(c + (t(t(s - tt) + x) if abs(s) >= abs(x) else t(t(x - tt) + s)))
            s = tt
        assert float_sum_float(values, "neumaier", fmt) == float(t(s + c))
        exact = sum(map(Fraction, values), Fraction(0))
        want = math.fsum(values) if fmt == "float64" else float(np.float32(float(exact)))
        if fmt == "float32":  # the exact sum rounded once to float32
            want = float(FLOAT32.round(exact))
        assert float_sum_float(values, "fsum", fmt) == want
        assert float_sum_float(values, "sorted", fmt) == float_sum_float(sorted(values), "sequential", fmt)
        by_magnitude = sorted(values, key=lambda v: (abs(v), v))
        assert float_sum_float(values, "sorted-magnitude", fmt) == float_sum_float(by_magnitude, "sequential", fmt)
    if n:
        assert float_sum_float(values, "sequential") == float(sum(values))  # Python 3.11 sum


def test_known_values_and_order_independence():
    assert float_sum([1, 2**53, 1], "sequential") == 2**53
    assert float_sum([1, 2**53, 1], "kahan") == 2**53 + 2
    assert float_sum([2**53, 1, -2**53], "neumaier") == 1
    assert float_sum([0.1] * 10, "fsum") == 1
    assert float_sum([0.1] * 10) == Fraction(0.1 * 0 + sum([0.1] * 10))
    half, seven_quarters = Fraction(1, 2), Fraction(7, 4)
    # toy format (3 bits): 3 + 7/4 = 19/4 rounds to 5, 5 + 1/2 ties to 6
    assert float_sum([3, seven_quarters, half], "sequential", TOY) == 6
    assert float_sum([half, seven_quarters, 3], "sequential", TOY) == 5
    values = [Fraction(-3, 2), Fraction(3, 2), 5, Fraction(1, 16), Fraction(-5, 8)]
    for name in ("fsum", "sorted", "sorted-magnitude"):
        assert MODELS[name].order_independent
        results = {float_sum(p, name, TOY) for p in itertools.permutations(values)}
        assert len(results) == 1
    results = {float_sum(p, "sequential", TOY) for p in itertools.permutations(values)}
    assert len(results) > 1 and not MODELS["sequential"].order_independent


float64s = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
float32s = st.floats(min_value=-(2.0 ** 99), max_value=2.0 ** 99, width=32, allow_nan=False,
                     allow_infinity=False)
tiny32 = st.floats(min_value=-(2.0 ** -123), max_value=2.0 ** -123, width=32)  # subnormal sums


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODEL_NAMES),
       st.lists(st.one_of(float64s, st.sampled_from([1.0, -1.0, 2.0 ** -1074, 2.0 ** 60])),
                max_size=20))
def test_fast_path_agrees_with_exact_path_float64(model, values):
    assert float_sum(values, model, "float64") == float_sum(values, model, SLOW64)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODEL_NAMES), st.lists(st.one_of(float32s, tiny32), max_size=20))
def test_fast_path_agrees_with_exact_path_float32(model, values):
    assert float_sum(values, model, "float32") == float_sum(values, model, SLOW32)


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_overflow_is_raised_never_a_finite_value(model):
    big = float(FLOAT64.max_value)
    for fmt in ("float64", SLOW64):
        with pytest.raises(FloatOverflow):
            float_sum([big, big], model, fmt)
    big32 = float(FLOAT32.max_value)
    for fmt in ("float32", SLOW32):
        with pytest.raises(FloatOverflow):
            float_sum([big32, big32 / 2], model, fmt)
    # the exact sum is finite: only the models whose first partial sum overflows raise
    values = [big, big, -big]
    if model == "fsum":
        assert float_sum(values, model) == FLOAT64.max_value
    elif model in ("sorted", "sorted-magnitude"):
        assert float_sum(values, model) == FLOAT64.max_value  # -big first, then big, big
    else:
        with pytest.raises(FloatOverflow):
            float_sum(values, model)


def test_fsum_exact_path_handles_math_fsum_intermediate_overflow():
    big = float(FLOAT64.max_value)
    assert float_sum([big, big, -big, -big, 1.0], "fsum") == 1


BAD = [
    (lambda: float_sum([1.0], "median"), InvalidArgument, "model='median' is not a known"),
    (lambda: float_sum([Fraction(1, 10)]), InvalidArgument, "values[0]=Fraction(1, 10) is not a value of float64"),
    (lambda: float_sum([1.0, 0.1], "sequential", "float32"), InvalidArgument, "values[1]=0.1 is not a value of float32"),
    (lambda: float_sum([1, Fraction(9, 8)], "sequential", TOY), InvalidArgument, "values[1]=Fraction(9, 8)"),
    (lambda: float_sum([math.inf]), InvalidArgument, "values[0]=inf is not"),
    (lambda: float_sum([1e39], "pairwise", "float32"), InvalidArgument, "values[0]=1e+39 is not a value of float32"),
    (lambda: float_sum("123"), InvalidArgument, "values='123' is not a sequence"),
    (lambda: float_sum([1], "sequential", "float8"), InvalidArgument, "fmt='float8' is not a known"),
    (lambda: float_sum_float([1], "sequential", TOY), InvalidArgument, "has no native float type"),
]


@pytest.mark.parametrize("call, error, fragment", BAD)
def test_bad_arguments(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)
