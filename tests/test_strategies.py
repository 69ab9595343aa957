"""exactdp.strategies: every drawn pair is related by the metric the enumerator uses and
lies in the space; bad arguments are refused at the call."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings

import exactdp.strategies as strategies_module
from exactdp import ChangeDistance, IntegerRange, Multisets, SubMultisets, SymmetricDistance
from exactdp.errors import InvalidArgument
from exactdp.numeric.floatformat import FLOAT32, FLOAT64, FloatFormat, format_named
from exactdp.strategies import datasets, float_records, neighbouring_pairs
from exactdp.spaces.pairs import sparse_counts

FEW = settings(max_examples=60, deadline=None, database=None)

HUGE = Multisets(IntegerRange(0, 10**6), sizes=(0, 10**4))
SPACES = [
    Multisets(IntegerRange(-2, 3), sizes=(0, 4)),
    Multisets(IntegerRange(0, 10**6), sizes=(1, 10**4)),
    SubMultisets([1, 2, 2, 2, 5, 5, 7, 8, 9, 9], sizes=(0, 10)),
    SubMultisets([1, 2, 2, 2, 5, 5, 7, 8, 9, 9], size=6),
    SubMultisets(["1/2", "1/2", 3], sizes=(1, 3)),
]
RELATIONS = [
    (SymmetricDistance(), 1, False), (SymmetricDistance(), 3, False), (SymmetricDistance(), 2, True),
    (ChangeDistance(), 1, False), (ChangeDistance(), 2, False), (ChangeDistance(), 2, True),
]


def test_all_matches_the_public_names():
    """Like Hypothesis's ``_check_exports``: ``__all__`` is exactly the public names."""
    # '@py_builtins' and the like: pytest's assertion rewriting of an installed pytest11
    # plugin's distribution (exactdp registers its plugin), not names of the module
    public = {n for n in dir(strategies_module) if not n.startswith(("_", "@"))}
    assert set(strategies_module.__all__) == public
    assert strategies_module.__all__ == sorted(strategies_module.__all__)


def _some_pair(space, metric, d_in, exact_k) -> bool:
    """Brute force over a small space: does any related pair exist?"""
    members = list(space.sorted_indices())
    return any(metric.related(*sparse_counts(x, y), d_in, exact_k) for x in members for y in members)


def _cases():
    for space in SPACES:
        for metric, d_in, exact_k in RELATIONS:
            try:
                strategy = neighbouring_pairs(space, metric, d_in, exact_k)
            except InvalidArgument:
                assert not _some_pair(space, metric, d_in, exact_k)  # refused only when none exists
                continue
            yield pytest.param(space, metric, d_in, exact_k, strategy,
                               id=f"{space!r}-{metric.cli_name}-{d_in}-{'exact' if exact_k else 'le'}")


@pytest.mark.parametrize("space, metric, d_in, exact_k, strategy", list(_cases()))
def test_pairs_are_related_and_in_the_space(space, metric, d_in, exact_k, strategy):
    @FEW
    @given(strategy)
    def check(pair):
        x, y = pair
        assert list(x) == sorted(x) and list(y) == sorted(y)
        assert all(isinstance(v, Fraction) for v in x + y)
        xi, yi = space.to_indices(x), space.to_indices(y)
        assert space.contains_indices(xi) and space.contains_indices(yi)
        cx, cy = sparse_counts(xi, yi)
        assert metric.related(cx, cy, d_in, exact_k)

    check()


@FEW
@given(datasets(HUGE))
def test_datasets_of_a_huge_space_never_build_the_universe(x):
    assert HUGE.contains_indices(HUGE.to_indices(x))
    assert HUGE.universe._values is None  # 10**6 values: never listed


@FEW
@given(datasets(universe=IntegerRange(-10**6, 10**6), min_size=2, max_size=5))
def test_datasets_over_a_universe(x):
    assert 2 <= len(x) <= 5 and all(-10**6 <= v <= 10**6 and v.denominator == 1 for v in x)


@FEW
@given(datasets(SubMultisets([1, 2, 2], sizes=(0, 3))))
def test_sub_multisets_use_a_record_at_most_once(x):
    assert x.count(1) <= 1 and x.count(2) <= 2


def test_pairs_shrink_to_one_record():
    from hypothesis import find

    found = find(neighbouring_pairs(HUGE, "add-remove", 1), lambda p: abs(sum(p[0]) - sum(p[1])) > 10,
                 settings=settings(database=None, derandomize=True, max_examples=500))
    assert found == ((), (Fraction(11),))
    found = find(neighbouring_pairs(HUGE, "substitute", 1), lambda p: True,
                 settings=settings(database=None, derandomize=True))
    assert found == ((Fraction(0),), (Fraction(1),))


@pytest.mark.parametrize("fmt, bounds", [
    (FLOAT64, None), (FLOAT32, (0, 1)), (FLOAT64, ("-1/3", "1e-300")),
    (FloatFormat.toy(3, -2, 3), (-14, 14)), (FloatFormat.toy(3, -2, 3), ("1/10", "9/2")),
    ("float16", (-1, 0)),
])
def test_float_records_are_values_of_the_format_within_bounds(fmt, bounds):
    strategy = float_records(fmt, bounds)
    f = fmt if isinstance(fmt, FloatFormat) else format_named(fmt)

    @FEW
    @given(strategy)
    def check(v):
        assert isinstance(v, Fraction) and f.is_representable(v)
        if bounds is not None:
            lo, hi = (Fraction(b) for b in bounds)
            assert lo <= v <= hi

    check()


def test_float_records_include_edges_tiny_values_and_ties():
    fmt = FloatFormat.toy(3, -2, 3)
    seen: set = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(float_records(fmt, (-14, 14)))
    def collect(v):
        seen.add(v)

    collect()
    assert {Fraction(0), fmt.min_subnormal, fmt.min_normal, fmt.max_value, Fraction(1),
            fmt.next_down(Fraction(1)), Fraction(1, 8)} <= seen  # 1/8: the half-ulp of 1


BAD = [
    (lambda: datasets("0..3"), "space='0..3' is not a dataset space"),
    (lambda: datasets(), "neither space= nor universe="),
    (lambda: datasets(universe=[1, 2], max_size=2), "is not a ValueUniverse"),
    (lambda: datasets(universe=IntegerRange(0, 3)), "max_size=None"),
    (lambda: datasets(universe=IntegerRange(0, 3), min_size=3, max_size=1), "max size=1 < min size=3"),
    (lambda: datasets(HUGE, max_size=3), "not both"),
    (lambda: neighbouring_pairs(HUGE, SymmetricDistance(), -1), "d_in=-1 is negative"),
    (lambda: neighbouring_pairs(HUGE, SymmetricDistance(), 0), "d_in=0 relates no"),
    (lambda: neighbouring_pairs(HUGE, SymmetricDistance(), 1.0), "d_in=1.0 is not an int"),
    (lambda: neighbouring_pairs(HUGE, "swap", 1), "neighbors='swap' is not a known relation"),
    (lambda: neighbouring_pairs(HUGE, 3, 1), "metric=3 is not a metric"),
    (lambda: neighbouring_pairs(HUGE, SymmetricDistance(), 1, exact_k=1), "exact_k=1 is not a bool"),
    (lambda: neighbouring_pairs(Multisets(IntegerRange(0, 3), size=2), "add-remove", 1),
     "has one size (2)"),
    (lambda: neighbouring_pairs(Multisets(IntegerRange(0, 3), sizes=(0, 2)), "add-remove", 3, True),
     "no two datasets in multisets of size 0..2 over {0..3} differ in size by 3"),
    (lambda: neighbouring_pairs(Multisets(IntegerRange(5, 5), sizes=(0, 3)), "substitute", 1),
     "no two datasets"),
    (lambda: neighbouring_pairs(SubMultisets([1, 2], size=2), "substitute", 1), "no two datasets"),
    (lambda: neighbouring_pairs(Multisets(IntegerRange(0, 3), size=0), "substitute", 1), "no two datasets"),
    (lambda: float_records("float80"), "float80"),
    (lambda: float_records(3), "fmt=3 is not a float format"),
    (lambda: float_records(FLOAT64, (1, 0)), "Cannot have upper='0' < lower='1'"),
    (lambda: float_records(FLOAT64, 5), "bounds=5 is not a pair"),
    (lambda: float_records(FloatFormat.toy(3, -2, 3), ("1/100", "1/20")), "hold no value"),
    (lambda: float_records(FLOAT64, ("nan", 1)), "nan"),  # a float NaN: InexactInput (test_trust_output)
]


@pytest.mark.parametrize("call, message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_arguments_are_refused_at_the_call(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert message.lower() in str(info.value).lower()


def test_exactdp_imports_hypothesis_only_for_strategies():
    import subprocess
    import sys

    code = ("import sys, exactdp, exactdp.checkers, exactdp.checkers.search; "
            "assert 'hypothesis' not in sys.modules, 'imported hypothesis'; "
            "import exactdp.strategies; assert 'hypothesis' in sys.modules")
    from pathlib import Path

    import exactdp

    root = Path(exactdp.__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
