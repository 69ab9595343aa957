"""The built-in exact queries: hand-computed values, numpy and statistics as oracles."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
import sympy
from hypothesis import assume, given, settings, strategies as st

from exactdp import InexactInput, InvalidArgument, Query
from exactdp.queries import (
    QUANTILE_METHODS, QUERY_NAMES, UNDEFINED, clipped, count, histogram, mean, median,
    parse_query, percentile, quantile, std, sum_, user_query, variance,
)

FAST = settings(max_examples=120, deadline=None, database=None)

small_datasets = st.lists(st.integers(-10, 10), min_size=1, max_size=9)
half_percentiles = st.integers(0, 200).map(lambda k: Fraction(k, 2))  # 0, 1/2, ..., 100


# == hand-computed values ===================================================================

@pytest.mark.parametrize(
    "query, dataset, expected",
    [
        (count, [], 0),
        (count, [1, 1, 1], 3),
        (count, ["1/2", 7], 2),
        (sum_, [], 0),
        (sum_, ["0.1", "0.2"], Fraction(3, 10)),
        (sum_, [-3, "5/2", 1], Fraction(1, 2)),
        (mean, ["1", "2", "5/2"], Fraction(11, 6)),
        (mean, [-1, 1], Fraction(0)),
        (mean, ["1/3"], Fraction(1, 3)),
        (median, [3, 1, 2], Fraction(2)),
        (median, [1, 2, 3, 4], Fraction(5, 2)),
        (median, [5], Fraction(5)),
        (median, ["1/2", "1/3"], Fraction(5, 12)),
        (median, [1, 1, 1, 9], Fraction(1)),
        (quantile("1/4"), [1, 2, 3, 4], Fraction(7, 4)),
        (quantile(0), [4, 9, 1], Fraction(1)),
        (quantile(1), [4, 9, 1], Fraction(9)),
        (quantile("0.5", "nearest"), [1, 3], Fraction(1)),  # h = 1/2: ties to even -> x[0]
        (percentile(90), [1, 2], Fraction(19, 10)),
        (variance(0), [1, 2, 3, 4], Fraction(5, 4)),
        (variance(1), [1, 2, 3, 4], Fraction(5, 3)),
        (variance(0), [7], Fraction(0)),
        (variance(1), ["1/2", "3/2"], Fraction(1, 2)),
    ],
)
def test_scalar_query_values(query, dataset, expected):
    result = query(dataset)
    assert result == expected
    assert isinstance(result, (int, Fraction)) and not isinstance(result, bool)


# For x = [1, 2, 4, 8] (n = 4) the virtual index is h = 3 p / 100.
PERCENTILE_TABLE = {
    # p: (linear, lower, higher, nearest, midpoint)
    0: (1, 1, 1, 1, 1),
    10: (Fraction(13, 10), 1, 2, 1, Fraction(3, 2)),  # h = 3/10
    25: (Fraction(7, 4), 1, 2, 2, Fraction(3, 2)),  # h = 3/4
    Fraction(100, 3): (2, 2, 2, 2, 2),  # h = 1 exactly
    50: (3, 2, 4, 4, 3),  # h = 3/2: nearest rounds half to even, index 2
    Fraction(250, 3): (6, 4, 8, 4, 6),  # h = 5/2: nearest rounds half to even, index 2
    100: (8, 8, 8, 8, 8),
}


@pytest.mark.parametrize("p", list(PERCENTILE_TABLE), ids=str)
@pytest.mark.parametrize("method", QUANTILE_METHODS)
def test_percentile_methods_by_hand(p, method):
    expected = Fraction(PERCENTILE_TABLE[p][QUANTILE_METHODS.index(method)])
    assert percentile(p, method)([8, 1, 4, 2]) == expected
    assert quantile(Fraction(p) / 100, method)([8, 1, 4, 2]) == expected


def test_quantile_methods_list():
    assert QUANTILE_METHODS == ("linear", "lower", "higher", "nearest", "midpoint")


@pytest.mark.parametrize(
    "p, method, expected",
    [
        (50, "nearest", 30),  # n = 6, h = 5/2 -> index 2 (even)
        (30, "nearest", 30),  # h = 3/2 -> index 2 (even)
        (10, "nearest", 10),  # h = 1/2 -> index 0 (even)
        (70, "nearest", 50),  # h = 7/2 -> index 4 (even)
        (90, "nearest", 50),  # h = 9/2 -> index 4 (even)
        ("12.5", "linear", Fraction(65, 4)),  # h = 5/8
        ("12.5", "midpoint", 15),
    ],
)
def test_percentile_ties_and_fractions(p, method, expected):
    assert percentile(p, method)([10, 20, 30, 40, 50, 60]) == expected


def test_std_is_an_exact_square_root():
    assert std()([0, 1, 2]) == sympy.sqrt(6) / 3
    assert std()([1, 3]) == Fraction(1)
    assert type(std()([1, 3])) is Fraction
    assert std(1)([1, 2, 3, 4]) == sympy.sqrt(15) / 3
    assert std(1)([1, 2, 3, 4]) ** 2 == sympy.Rational(5, 3)
    assert std()([5]) == Fraction(0)
    assert std()(["1/2", "3/2"]) == Fraction(1, 2)


def test_std_prepared_function_returns_the_rational_radicand():
    prepared = std().prepare((Fraction(0), Fraction(1), Fraction(2)))
    assert prepared((1, 1, 1)) == Fraction(2, 3)
    assert std().output == "sqrt"
    assert std().public_value(Fraction(2, 3)) == sympy.sqrt(6) / 3


@pytest.mark.parametrize(
    "edges, dataset, expected",
    [
        ([0, 2, 4], [0, 1, 2, 4, 5], (2, 2)),
        ([0, 2, 4], [-1, 0, 2, 4, 4], (1, 3)),  # last bin closed, outside ignored
        ([0, 2, 4], [], (0, 0)),
        ([0, 2, 4], [-5, 9], (0, 0)),
        (["1/2", "3/2", "5/2"], ["1/2", 1, "3/2", "5/2", 3], (2, 2)),
        ([-2, 0, 1, 3], [-2, -1, 0, 1, 2, 3], (2, 1, 3)),
    ],
)
def test_histogram_values(edges, dataset, expected):
    result = histogram(edges)(dataset)
    assert result == expected
    assert type(result) is tuple


def test_histogram_attributes():
    h = histogram(["0", "1/2", 1], "L2")
    assert (h.output, h.norm, h.min_size) == ("vector", "L2", 0)
    assert h.name == "histogram[0,1/2,1]:L2"


@pytest.mark.parametrize(
    "query, dataset, expected",
    [
        (clipped(sum_, 0, 2), [-1, 1, 5], Fraction(3)),
        (clipped(sum_, "-1/2", "1/2"), [-3, 0, 3], Fraction(0)),
        (clipped(mean, -1, 1), [-5, 0, 5, "1/2"], Fraction(1, 8)),
        (clipped(median, 0, 10), [-4, 20, 3], Fraction(3)),
        (clipped(count, 0, 1), [-7, 7, 0], 3),
        (clipped(variance(0), 0, 2), [-1, 3], Fraction(1)),
        (clipped(histogram([0, 1, 2]), 0, 2), [-5, 5, "1/2"], (2, 1)),
        (clipped(percentile(50, "higher"), 1, 2), [0, 0, 5, 5], Fraction(2)),
        (clipped(sum_, 3, 3), [1, 2, 9], Fraction(9)),
    ],
)
def test_clipped_clamps_then_aggregates(query, dataset, expected):
    assert query(dataset) == expected


def test_clipped_keeps_output_kind_norm_and_min_size():
    c = clipped(std(1), 0, 2)
    assert (c.output, c.min_size, c.clip) == ("sqrt", 2, (Fraction(0), Fraction(2)))
    assert c([-1, 3]) == sympy.sqrt(2)
    h = clipped(histogram([0, 1, 2], "Linf"), "0", "2")
    assert (h.output, h.norm) == ("vector", "Linf")
    assert clipped(sum_, 0, 2).name == "clipped(sum, 0, 2)"
    with pytest.raises(InvalidArgument):
        clipped(mean, 0, 1)([])


# == user queries ============================================================================

def test_user_query_receives_a_sorted_tuple_of_fractions():
    seen = []

    def spread(xs):
        seen.append(xs)
        return xs[-1] - xs[0]

    q = user_query(spread, min_size=1)
    assert q([3, "1/2", 2, 2]) == Fraction(5, 2)
    assert seen == [(Fraction(1, 2), Fraction(2), Fraction(2), Fraction(3))]
    assert type(seen[0]) is tuple and all(type(v) is Fraction for v in seen[0])
    assert q.name == "spread"
    assert user_query(lambda xs: 0).name == "<lambda>"
    assert user_query(lambda xs: 0, name="zero").name == "zero"


@pytest.mark.parametrize(
    "returned, expected",
    [(3, Fraction(3)), (Fraction(1, 3), Fraction(1, 3)), (sympy.Rational(2, 7), Fraction(2, 7))],
)
def test_user_query_exact_results(returned, expected):
    result = user_query(lambda xs: returned)([1])
    assert result == expected and type(result) is Fraction


@pytest.mark.parametrize(
    "returned, error",
    [
        (0.5, InexactInput),
        (1.0, InexactInput),
        (None, InexactInput),
        (sympy.sqrt(2), InexactInput),
        (sympy.Float(0.5), InexactInput),
        (True, InvalidArgument),
        ("abc", InvalidArgument),
    ],
)
def test_user_query_inexact_results_are_refused(returned, error):
    q = user_query(lambda xs: returned, name="f")
    with pytest.raises(error):
        q([1, 2])


def test_user_query_float_message_names_the_query():
    with pytest.raises(InexactInput, match=r"query 'half' returned the float 0\.5"):
        user_query(lambda xs: 0.5, name="half")([1])


def test_user_query_is_undefined_below_min_size():
    calls = []
    q = user_query(lambda xs: calls.append(xs) or len(xs), min_size=2)
    prepared = q.prepare((Fraction(1), Fraction(2)))
    assert prepared((1, 0)) is UNDEFINED
    assert prepared((0, 0)) is UNDEFINED
    assert calls == []  # the function is never called below min_size
    assert prepared((1, 1)) == Fraction(2)
    assert q.min_size == 2
    with pytest.raises(InvalidArgument, match="needs at least 2"):
        q([5])


@pytest.mark.parametrize(
    "call",
    [
        lambda: user_query(42),
        lambda: user_query(len, min_size=-1),
        lambda: user_query(len, min_size=True),
        lambda: user_query(len, min_size=1.0),
    ],
)
def test_user_query_bad_arguments(call):
    with pytest.raises(InvalidArgument):
        call()


# == undefined datasets and bad arguments ==================================================

@pytest.mark.parametrize(
    "query, dataset",
    [
        (mean, []),
        (median, []),
        (quantile("1/2"), []),
        (percentile(50, "nearest"), []),
        (variance(0), []),
        (variance(1), [7]),
        (std(1), [7]),
        (user_query(len, min_size=3), [1, 2]),
        (clipped(variance(1), 0, 1), [5]),
    ],
)
def test_queries_below_min_size_raise_invalid_argument(query, dataset):
    with pytest.raises(InvalidArgument, match="is undefined on a dataset of"):
        query(dataset)


@pytest.mark.parametrize(
    "query, values, counts",
    [
        (mean, (Fraction(1),), (0,)),
        (median, (Fraction(1), Fraction(2)), (0, 0)),
        (variance(1), (Fraction(1), Fraction(2)), (0, 1)),
    ],
)
def test_prepared_queries_return_undefined(query, values, counts):
    assert query.prepare(values)(counts) is UNDEFINED
    assert repr(UNDEFINED) == "UNDEFINED"


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: quantile(2), InvalidArgument),
        (lambda: quantile("-1/2"), InvalidArgument),
        (lambda: quantile(0.5), InexactInput),
        (lambda: quantile("1/2", "cubic"), InvalidArgument),
        (lambda: percentile(101), InvalidArgument),
        (lambda: percentile(-1), InvalidArgument),
        (lambda: percentile(50.0), InexactInput),
        (lambda: percentile(50, "Linear"), InvalidArgument),
        (lambda: variance(2), InvalidArgument),
        (lambda: variance(True), InvalidArgument),
        (lambda: std(-1), InvalidArgument),
        (lambda: histogram([1]), InvalidArgument),
        (lambda: histogram([]), InvalidArgument),
        (lambda: histogram([0, 0, 1]), InvalidArgument),
        (lambda: histogram([1, 0]), InvalidArgument),
        (lambda: histogram([0, 1], "L3"), InvalidArgument),
        (lambda: histogram([0, 0.5]), InexactInput),
        (lambda: clipped(sum, 0, 1), InvalidArgument),
        (lambda: clipped(sum_, 2, 1), InvalidArgument),
        (lambda: clipped(sum_, 0, 1.5), InexactInput),
        (lambda: Query("q", lambda values: len, output="matrix"), InvalidArgument),
        (lambda: Query("q", lambda values: len, output="vector"), InvalidArgument),
        (lambda: Query("q", lambda values: len, output="vector", norm="L3"), InvalidArgument),
        (lambda: mean([0.5]), InexactInput),
        (lambda: sum_(["abc"]), InvalidArgument),
    ],
)
def test_query_bad_arguments(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("ddof", [0.0, 1.0])
def test_float_ddof_is_refused(ddof):
    with pytest.raises((InvalidArgument, InexactInput)):
        variance(ddof)
    with pytest.raises((InvalidArgument, InexactInput)):
        std(ddof)


# == parse_query ===========================================================================

DATA = [4, 1, 3, 2]


@pytest.mark.parametrize(
    "text, name, value",
    [
        ("count", "count", 4),
        ("sum", "sum", Fraction(10)),
        ("mean", "mean", Fraction(5, 2)),
        (" mean ", "mean", Fraction(5, 2)),
        ("median", "median", Fraction(5, 2)),
        ("var", "var", Fraction(5, 4)),
        ("var:0", "var", Fraction(5, 4)),
        ("var:1", "var:1", Fraction(5, 3)),
        ("std", "std", sympy.sqrt(5) / 2),
        ("std:0", "std", sympy.sqrt(5) / 2),
        ("std:1", "std:1", sympy.sqrt(15) / 3),
        ("percentile:25", "percentile:25", Fraction(7, 4)),
        ("percentile:12.5", "percentile:25/2", Fraction(11, 8)),
        ("percentile:25:linear", "percentile:25", Fraction(7, 4)),
        ("percentile:25:lower", "percentile:25:lower", Fraction(1)),
        ("percentile:25:higher", "percentile:25:higher", Fraction(2)),
        ("percentile:25:nearest", "percentile:25:nearest", Fraction(2)),
        ("percentile:25:midpoint", "percentile:25:midpoint", Fraction(3, 2)),
        ("quantile:1/4", "quantile:1/4", Fraction(7, 4)),
        ("quantile:0.25:nearest", "quantile:1/4:nearest", Fraction(2)),
        ("quantile:1", "quantile:1", Fraction(4)),
        ("quantile:0.5:", "quantile:1/2", Fraction(5, 2)),  # an empty method is linear
    ],
)
def test_parse_query(text, name, value):
    q = parse_query(text)
    assert isinstance(q, Query)
    assert q.name == name and str(q) == name
    assert q(DATA) == value


@pytest.mark.parametrize("listed", QUERY_NAMES)
def test_every_listed_query_name_parses(listed):
    text = listed.replace(":ALPHA:C1,C2,...", ":1/2:0,2,5").replace(":P", ":50").replace(":Q", ":1/2")
    q = parse_query(text)
    assert q(DATA) == {
        "count": 4, "sum": 10, "mean": Fraction(5, 2), "median": Fraction(5, 2),
        "percentile:50": Fraction(5, 2), "quantile:1/2": Fraction(5, 2), "var": Fraction(5, 4),
        "var:1": Fraction(5, 3), "std": sympy.sqrt(5) / 2, "std:1": sympy.sqrt(15) / 3,
        "quantile-score:1/2:0,2,5": (Fraction(-2), Fraction(-1, 2), Fraction(-2)),
    }[text]


@pytest.mark.parametrize(
    "text",
    ["avg", "", "Mean", "sum_", "percentile", "percentile:", "quantile:", "percentile:101",
     "percentile:-1", "quantile:1.5", "percentile:50:cubic", "percentile:abc", "var:2",
     "std:2", "median:1", "percentile:0.5f", "quantile", "count:1"],
)
def test_parse_query_rejects(text):
    with pytest.raises(InvalidArgument):
        parse_query(text)


# == numpy and statistics as oracles =======================================================

def _discrete_choice_agrees(n: int, p: Fraction) -> bool:
    """Whether numpy's float virtual index (n - 1) * (p / 100) picks the same order
    statistics as the exact one (floor, ceil and round-half-even all agree)."""
    exact = (n - 1) * p / 100
    approx = Fraction((n - 1) * (float(p) / 100))
    return (
        math.floor(approx) == math.floor(exact)
        and math.ceil(approx) == math.ceil(exact)
        and round(approx) == round(exact)  # Fraction rounds half to even, like numpy.around
    )


def _percentiles_for(n: int):
    """Any multiple of 1/2, or one that puts the virtual index on a whole number or
    exactly halfway between two (where floor, ceil and ties-to-even matter)."""
    if n == 1:
        return half_percentiles
    on_grid = st.integers(0, 2 * (n - 1)).map(lambda j: Fraction(100 * j, 2 * (n - 1)))
    return st.one_of(half_percentiles, on_grid)


@FAST
@given(dataset=small_datasets, data=st.data(), method=st.sampled_from(QUANTILE_METHODS))
def test_percentile_matches_numpy(dataset, data, method):
    np = pytest.importorskip("numpy")
    p = data.draw(_percentiles_for(len(dataset)), label="p")
    if method != "linear":
        assume(_discrete_choice_agrees(len(dataset), p))
    exact = percentile(p, method)(dataset)
    reference = np.percentile(np.array(dataset, dtype=float), float(p), method=method)
    assert abs(exact - Fraction(float(reference))) < Fraction(1, 10**9)


@FAST
@given(dataset=small_datasets)
def test_mean_and_median_match_numpy(dataset):
    np = pytest.importorskip("numpy")
    assert abs(mean(dataset) - Fraction(float(np.mean(dataset)))) < Fraction(1, 10**9)
    assert median(dataset) == Fraction(float(np.median(dataset)))  # halves are exact floats


@settings(max_examples=60, deadline=None, database=None)
@given(
    dataset=st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=6), min_size=2, max_size=8)
)
def test_variance_matches_statistics_exactly(dataset):
    assert variance(0)(dataset) == statistics.pvariance(dataset)
    assert variance(1)(dataset) == statistics.variance(dataset)
    assert mean(dataset) == statistics.mean(dataset)
    assert median(dataset) == statistics.median(dataset)
    assert sum_(dataset) == sum(dataset)
    values = tuple(sorted(set(dataset)))
    counts = tuple(dataset.count(v) for v in values)
    assert std(1).prepare(values)(counts) == statistics.variance(dataset)  # the radicand


@FAST
@given(
    dataset=st.lists(st.integers(-6, 6), max_size=12),
    edges=st.lists(st.integers(-8, 8).map(lambda k: Fraction(k, 2)), min_size=2, max_size=6, unique=True)
    .map(sorted),
)
def test_histogram_matches_numpy(dataset, edges):
    np = pytest.importorskip("numpy")
    counts, _ = np.histogram(np.array(dataset, dtype=float), bins=np.array([float(e) for e in edges]))
    assert histogram(edges)(dataset) == tuple(int(c) for c in counts)
