"""Universes, dataset spaces and neighbour relations, checked against itertools."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from exactdp import InexactInput, InvalidArgument
from exactdp.spaces import (
    ChangeDistance, DatasetSpace, ExactSet, IntegerRange, Multisets, SubMultisets,
    SymmetricDistance, ValueUniverse,
)
from exactdp.spaces.metrics import check_d_in, parse_metric
from exactdp.spaces.universe import parse_values

FAST = settings(max_examples=100, deadline=None, database=None)

SEED003_POOL = [1, 2, 2, 2, 5, 5, 7, 8, 9, 9]


def F(*xs):
    return tuple(Fraction(x) for x in xs)


# == universes ==========================================================================

def test_integer_range_values_bounds_and_description():
    u = IntegerRange(-2, 1)
    assert u.values == F(-2, -1, 0, 1)
    assert (u.lower, u.upper, len(u)) == (Fraction(-2), Fraction(1), 4)
    assert list(u) == list(F(-2, -1, 0, 1))
    assert u.describe() == "{-2..1}"
    assert IntegerRange(3, 3).values == F(3)


def test_exact_set_sorts_deduplicates_and_reads_strings_exactly():
    u = ExactSet(["5/2", -3, "0.25", "1/4", Fraction(1, 4)])
    assert u.values == (Fraction(-3), Fraction(1, 4), Fraction(5, 2))
    assert u.describe() == "{-3, 1/4, 5/2}"
    assert repr(u) == "ExactSet(['-3', '1/4', '5/2'])"
    assert ExactSet(["0.1"]).values == (Fraction(1, 10),)


def test_universe_equality_depends_on_values_only():
    assert IntegerRange(0, 2) == ExactSet([2, 1, 0])
    assert hash(IntegerRange(0, 2)) == hash(ExactSet([0, 1, 2]))
    assert IntegerRange(0, 2) != IntegerRange(0, 3)
    assert IntegerRange(0, 2) != (0, 1, 2)


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda: IntegerRange(3, 1), InvalidArgument),
        (lambda: IntegerRange(0.0, 3), InvalidArgument),
        (lambda: IntegerRange(0, "3"), InvalidArgument),
        (lambda: IntegerRange(True, 3), InvalidArgument),
        (lambda: ExactSet([]), InvalidArgument),
        (lambda: ExactSet([0.5]), InexactInput),
        (lambda: ExactSet(["abc"]), InvalidArgument),
        (lambda: ValueUniverse([]), InvalidArgument),
    ],
)
def test_universe_bad_arguments(build, error):
    with pytest.raises(error):
        build()


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("0..3", F(0, 1, 2, 3)),
        ("-2..-1", F(-2, -1)),
        (" 1 .. 3 ", F(1, 2, 3)),
        ("3..3", F(3)),
        ("5/2, -3, 0.25, 0.25", (Fraction(5, 2), Fraction(-3), Fraction(1, 4), Fraction(1, 4))),
        ("1,2,2,2", F(1, 2, 2, 2)),
        ("7", F(7)),
        ("0.1", (Fraction(1, 10),)),
        ("1e-2, -1/3", (Fraction(1, 100), Fraction(-1, 3))),
    ],
)
def test_parse_values(spec, expected):
    result = parse_values(spec)
    assert tuple(result) == expected
    assert all(type(v) is Fraction for v in result)


@pytest.mark.parametrize(
    "spec",
    ["", "   ", "1,,2", "1,", ",1", "a..b", "1..", "..", "3..1", "1.5..2", "0.1..0.3",
     "1..2,3", "abc", "1, 0.1f", "1;2"],
)
def test_parse_values_bad_arguments(spec):
    with pytest.raises(InvalidArgument):
        parse_values(spec)


def test_parse_values_error_names_the_argument():
    with pytest.raises(InvalidArgument, match=r"^pool='3\.\.1' has upper=1 < lower=3; write '1\.\.3'"):
        parse_values("3..1", name="pool")


# == dataset spaces ========================================================================

def naive_multisets(m, lo, hi):
    """Every multiset over range(m) with size in lo..hi, as sorted index tuples."""
    return {c for n in range(lo, hi + 1) for c in itertools.combinations_with_replacement(range(m), n)}


def naive_submultisets(pool, lo, hi):
    """Every sub-multiset of pool with size in lo..hi, as sorted value tuples."""
    return {tuple(sorted(c)) for n in range(lo, hi + 1) for c in itertools.combinations(pool, n)}


def assert_enumeration_sound(space):
    vectors = list(space)
    assert len(vectors) == len(set(vectors)), "a dataset was enumerated twice"
    assert space.count() == len(space) == len(vectors)
    for v in vectors:
        assert len(v) == len(space.universe)
        assert space.min_size <= sum(v) <= space.max_size
        assert all(0 <= c <= space.max_count(i) for i, c in enumerate(v))
        assert space.contains(v)
    return vectors


def test_seed003_pool_of_size_6_has_53_datasets():
    expected = {tuple(sorted(c)) for c in itertools.combinations(SEED003_POOL, 6)}
    assert len(expected) == 53
    space = SubMultisets(SEED003_POOL, size=6)
    vectors = assert_enumeration_sound(space)
    assert space.count() == 53
    assert {space.to_values(v) for v in vectors} == {F(*d) for d in expected}
    assert space.caps == (1, 3, 2, 1, 1, 2)
    assert space.universe.values == F(1, 2, 5, 7, 8, 9)


def test_multisets_docstring_count():
    # C(8 + 8, 8): multisets of size 0..8 over 8 values
    assert len(Multisets(IntegerRange(0, 7), sizes=(0, 8))) == 12870


@FAST
@given(m=st.integers(1, 4), lo=st.integers(0, 4), extra=st.integers(0, 3))
def test_multisets_count_and_enumeration_match_itertools(m, lo, extra):
    hi = lo + extra
    space = Multisets(IntegerRange(0, m - 1), sizes=(lo, hi))
    vectors = assert_enumeration_sound(space)
    expected = naive_multisets(m, lo, hi)
    assert space.count() == len(expected)
    as_index_tuples = {tuple(i for i, c in enumerate(v) for _ in range(c)) for v in vectors}
    assert as_index_tuples == expected


@FAST
@given(
    pool=st.lists(st.integers(-2, 3), min_size=1, max_size=8),
    data=st.data(),
)
def test_submultisets_count_and_enumeration_match_itertools(pool, data):
    lo = data.draw(st.integers(0, len(pool)), label="lo")
    hi = data.draw(st.integers(lo, len(pool)), label="hi")
    space = SubMultisets(pool, sizes=(lo, hi))
    vectors = assert_enumeration_sound(space)
    expected = naive_submultisets(pool, lo, hi)
    assert space.count() == len(expected)
    assert {space.to_values(v) for v in vectors} == {F(*d) for d in expected}
    counter = Counter(pool)
    assert space.caps == tuple(counter[int(v)] for v in space.universe.values)
    assert space.pool == F(*sorted(pool))


@FAST
@given(
    caps=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=1, max_size=4),
    lo=st.integers(0, 4),
    extra=st.integers(0, 3),
)
def test_dataset_space_with_caps_matches_itertools_product(caps, lo, extra):
    hi = lo + extra
    universe = IntegerRange(0, len(caps) - 1)
    bound = [hi if c is None else min(c, hi) for c in caps]
    expected = {
        v for v in itertools.product(*(range(b + 1) for b in bound)) if lo <= sum(v) <= hi
    }
    if sum(bound) < lo:
        with pytest.raises(InvalidArgument):
            DatasetSpace(universe, caps, lo, hi)
        return
    space = DatasetSpace(universe, caps, lo, hi)
    vectors = assert_enumeration_sound(space)
    assert set(vectors) == expected


def test_enumeration_is_in_canonical_lexicographic_order():
    vectors = list(Multisets(IntegerRange(0, 2), size=2))
    assert vectors == [(0, 0, 2), (0, 1, 1), (0, 2, 0), (1, 0, 1), (1, 1, 0), (2, 0, 0)]


def test_empty_size_space_has_the_empty_dataset_only():
    space = Multisets(IntegerRange(0, 3), size=0)
    assert list(space) == [(0, 0, 0, 0)]
    assert space.count() == 1
    assert space.to_values((0, 0, 0, 0)) == ()


@FAST
@given(
    pool=st.lists(st.sampled_from(["-1", "1/2", "0.25", "2", "7/3"]), min_size=1, max_size=6),
    data=st.data(),
)
def test_to_counts_and_to_values_round_trip(pool, data):
    space = SubMultisets(pool, sizes=(0, len(pool)))
    vector = data.draw(st.sampled_from(list(space)), label="vector")
    values = space.to_values(vector)
    assert list(values) == sorted(values)
    assert space.to_counts(values) == vector
    shuffled = data.draw(st.permutations(values), label="shuffled")
    assert space.to_counts(shuffled) == vector
    assert space.to_counts(str(v) for v in shuffled) == vector


def test_to_values_and_to_counts_examples():
    space = Multisets(ExactSet([1, 2, 3]), sizes=(0, 3))
    assert space.to_values((2, 0, 1)) == F(1, 1, 3)
    assert space.to_counts([3, "1", Fraction(1)]) == (2, 0, 1)


@pytest.mark.parametrize(
    "dataset, error",
    [([4], InvalidArgument), (["1/2"], InvalidArgument), ([1.0], InexactInput), ([True], InvalidArgument)],
)
def test_to_counts_bad_values(dataset, error):
    with pytest.raises(error):
        Multisets(ExactSet([1, 2, 3]), size=1).to_counts(dataset)


@pytest.mark.parametrize(
    "counts, inside",
    [
        ((1, 1), True),
        ((2, 0), False),  # value 1 occurs once in the pool
        ((0, 3), False),  # value 2 occurs twice
        ((0, 1), False),  # size 1 < min size 2
        ((1, 2), True),
        ((1, 1, 0), False),  # wrong length
    ],
)
def test_contains(counts, inside):
    assert SubMultisets([1, 2, 2], sizes=(2, 3)).contains(counts) is inside


def test_with_sizes_keeps_universe_and_caps():
    u = IntegerRange(0, 3)
    m = Multisets(u, size=2).with_sizes(1, 3)
    assert type(m) is Multisets and m == Multisets(u, sizes=(1, 3))
    assert (m.min_size, m.max_size, m.fixed_size) == (1, 3, None)

    s = SubMultisets(SEED003_POOL, size=6).with_sizes(5, 7)
    assert type(s) is SubMultisets and s == SubMultisets(SEED003_POOL, sizes=(5, 7))
    assert s.caps == (1, 3, 2, 1, 1, 2)
    # the pool bounds the size: asking for more is clamped to the pool's 10 records
    assert SubMultisets(SEED003_POOL, size=6).with_sizes(0, 100).max_size == 10

    d = DatasetSpace(u, [1, None, 2, 0], 0, 2).with_sizes(2, 4)
    assert type(d) is DatasetSpace
    assert (d.caps, d.min_size, d.max_size) == ((1, None, 2, 0), 2, 4)
    assert d.count() == len(list(d))


@pytest.mark.parametrize(
    "kwargs, sizes",
    [
        (dict(size=3), (3, 3)),
        (dict(sizes=3), (3, 3)),
        (dict(sizes=(1, 4)), (1, 4)),
        (dict(sizes=[0, 0]), (0, 0)),
        (dict(sizes="2..4"), (2, 4)),
        (dict(sizes=" 2 .. 4 "), (2, 4)),
        (dict(sizes="5"), (5, 5)),
    ],
)
def test_size_arguments(kwargs, sizes):
    space = Multisets(IntegerRange(0, 1), **kwargs)
    assert (space.min_size, space.max_size) == sizes
    assert space.fixed_size == (sizes[0] if sizes[0] == sizes[1] else None)


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda: Multisets([0, 1], size=2), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), size=2, sizes=(1, 2)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), size=-1), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), size=1.0), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), size=True), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes=(3, 1)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes=(1, 2, 3)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes=(1,)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes=(0.0, 2)), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes="a..b"), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes="-1..2"), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes="3..1"), InvalidArgument),
        (lambda: Multisets(IntegerRange(0, 1), sizes=object()), InvalidArgument),
        (lambda: SubMultisets([], size=0), InvalidArgument),
        (lambda: SubMultisets([1, 2], size=3), InvalidArgument),
        (lambda: SubMultisets([1, 2], sizes=(0, 3)), InvalidArgument),
        (lambda: SubMultisets([1, 0.5], size=1), InexactInput),
        (lambda: DatasetSpace(IntegerRange(0, 1), [1, 1], 3, 3), InvalidArgument),
    ],
)
def test_space_bad_arguments(build, error):
    with pytest.raises(error):
        build()


def test_space_descriptions():
    assert Multisets(IntegerRange(0, 7), sizes=(0, 8)).describe() == "multisets of size 0..8 over {0..7}"
    assert repr(Multisets(IntegerRange(0, 1), size=2)) == "Multisets(IntegerRange(0, 1), sizes=(2, 2))"
    s = SubMultisets(["1/2", 1, 1], size=2)
    assert s.describe() == "sub-multisets of size 2 of the pool [1/2,1,1]"
    assert repr(s) == "SubMultisets(['1/2', '1', '1'], sizes=(2, 2))"


def test_space_equality():
    u = IntegerRange(0, 2)
    assert Multisets(u, size=2) == Multisets(ExactSet([0, 1, 2]), sizes=(2, 2))
    assert hash(Multisets(u, size=2)) == hash(Multisets(u, sizes="2"))
    assert Multisets(u, size=2) != Multisets(u, sizes=(1, 2))
    assert SubMultisets([0, 1, 2, 2], size=2) != Multisets(u, size=2)  # caps differ


# == metrics ==============================================================================

SYM, CHG = SymmetricDistance(), ChangeDistance()


@pytest.mark.parametrize(
    "metric, x, y, distance",
    [
        (SYM, (1, 0, 2), (0, 1, 2), 2),
        (SYM, (1, 0, 2), (1, 0, 2), 0),
        (SYM, (3, 0), (0, 0), 3),
        (SYM, (0, 0), (1, 2), 3),
        (SYM, (2, 1, 0), (0, 1, 3), 5),
        (CHG, (1, 0, 2), (0, 1, 2), 1),
        (CHG, (2, 0, 0), (0, 1, 1), 2),
        (CHG, (1, 1), (1, 1), 0),
        (CHG, (1, 0), (0, 0), None),  # sizes differ: not comparable
        (CHG, (2, 1, 0), (0, 1, 3), None),
    ],
)
def test_distance(metric, x, y, distance):
    assert metric.count_distance(x, y) == distance
    assert metric.count_distance(y, x) == distance


@pytest.mark.parametrize(
    "metric, x, y, d_in, exact_k, related",
    [
        (SYM, (1, 1), (2, 1), 1, False, True),
        (SYM, (1, 1), (1, 1), 1, False, False),  # a dataset is not its own neighbour
        (SYM, (1, 1), (0, 2), 1, False, False),  # a change is distance 2
        (SYM, (1, 1), (0, 2), 2, False, True),
        (SYM, (1, 1), (2, 2), 2, False, True),
        (SYM, (1, 1), (2, 2), 1, False, False),
        (SYM, (1, 1), (2, 2), 2, True, True),  # exactly 2 added
        (SYM, (2, 2), (1, 1), 2, True, True),  # exactly 2 removed
        (SYM, (1, 1), (2, 0), 2, True, False),  # one added and one removed: a mix
        (SYM, (1, 1), (2, 0), 2, False, True),
        (SYM, (1, 1), (2, 1), 2, True, False),  # fewer than k
        (SYM, (1, 1), (3, 1), 2, True, True),
        (CHG, (1, 1), (0, 2), 1, False, True),
        (CHG, (1, 1), (1, 1), 1, False, False),
        (CHG, (1, 1), (2, 1), 5, False, False),  # sizes differ
        (CHG, (2, 0), (0, 2), 1, False, False),
        (CHG, (2, 0), (0, 2), 2, False, True),
        (CHG, (2, 0), (0, 2), 2, True, True),  # exactly 2 changes
        (CHG, (2, 0), (1, 1), 2, True, False),  # 1 change, not exactly 2
        (CHG, (2, 0), (1, 1), 2, False, True),
        (CHG, (2, 0, 0), (0, 1, 1), 2, True, True),
    ],
)
def test_related(metric, x, y, d_in, exact_k, related):
    assert metric.related(x, y, d_in, exact_k=exact_k) is related
    assert metric.related(y, x, d_in, exact_k=exact_k) is related


def naive_neighbours(metric, x, d_in, exact_k):
    """Every y != x within reach of x, by the definitions, over count vectors."""
    out = set()
    for y in itertools.product(range(2 * d_in + 1), repeat=len(x)):
        if y == x:
            continue
        added = sum(max(b - a, 0) for a, b in zip(x, y))
        removed = sum(max(a - b, 0) for a, b in zip(x, y))
        if isinstance(metric, SymmetricDistance):
            ok = (added, removed) in ((d_in, 0), (0, d_in)) if exact_k else 0 < added + removed <= d_in
        else:
            ok = added == removed and (added == d_in if exact_k else 0 < added <= d_in)
        if ok:
            out.add(y)
    return out


def apply_move(x, move):
    removed, added = move
    y = list(x)
    for i in removed:
        y[i] -= 1
    for i in added:
        y[i] += 1
    return tuple(y)


@pytest.mark.parametrize("metric", [SYM, CHG], ids=["sym", "change"])
@pytest.mark.parametrize("exact_k", [False, True])
@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("d_in", [0, 1, 2, 3])
def test_moves_realise_exactly_the_neighbours(metric, exact_k, m, d_in):
    moves = metric.moves(m, d_in, exact_k)
    assert len(moves) == len(set(moves)), "a move is listed twice"
    for removed, added in moves:
        assert set(removed).isdisjoint(added)
        assert list(removed) == sorted(removed) and list(added) == sorted(added)
        assert all(0 <= i < m for i in removed + added)
        if isinstance(metric, SymmetricDistance):
            if exact_k:
                assert sorted((len(removed), len(added))) == [0, d_in]
            else:
                assert 1 <= len(removed) + len(added) <= d_in
        else:
            assert len(removed) == len(added)
            assert (len(added) == d_in) if exact_k else (1 <= len(added) <= d_in)
    # From a dataset holding d_in copies of every value, every move is applicable, and
    # the moves reach exactly the neighbours the definition gives, each once.
    x = (d_in,) * m
    reached = [apply_move(x, mv) for mv in moves]
    assert len(reached) == len(set(reached))
    for y in reached:
        assert min(y) >= 0
        assert metric.related(x, y, d_in, exact_k=exact_k)
        distance = metric.count_distance(x, y)
        assert distance is not None and 0 < distance <= d_in
        if exact_k:
            assert distance == d_in
    assert set(reached) == naive_neighbours(metric, x, d_in, exact_k)


@pytest.mark.parametrize("exact_k", [False, True])
@pytest.mark.parametrize("m", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("d_in", [0, 1, 2, 3])
def test_count_moves_bounds_the_number_of_moves(exact_k, m, d_in):
    # count_moves counts (R, A) pairs without the disjointness filter, so it is an upper
    # bound; it is exact exactly when no overlapping pair can be formed.
    sym_count, sym_len = SYM.count_moves(m, d_in, exact_k), len(SYM.moves(m, d_in, exact_k))
    chg_count, chg_len = CHG.count_moves(m, d_in, exact_k), len(CHG.moves(m, d_in, exact_k))
    assert sym_count >= sym_len and chg_count >= chg_len
    # one-sided moves never overlap; two-sided ones can as soon as both sides are non-empty
    assert (sym_count == sym_len) is (exact_k or d_in <= 1 or m == 0)
    # a substitution R -> A with R == A is always counted and never a move
    assert (chg_count == chg_len) is (d_in == 0 or m == 0)


@pytest.mark.parametrize(
    "metric, m, d_in, exact_k, count, n_moves",
    [
        (SYM, 3, 2, False, 27, 24),
        (SYM, 3, 2, True, 12, 12),
        (SYM, 1, 3, False, 9, 6),
        (CHG, 1, 1, False, 1, 0),  # one value: nothing to substitute
        (CHG, 2, 1, False, 4, 2),
        (CHG, 3, 2, True, 36, 12),
        (CHG, 3, 3, False, 145, 36),
    ],
)
def test_count_moves_examples(metric, m, d_in, exact_k, count, n_moves):
    assert metric.count_moves(m, d_in, exact_k) == count
    assert len(metric.moves(m, d_in, exact_k)) == n_moves


def test_change_moves_for_two_values():
    assert sorted(CHG.moves(2, 1)) == [((0,), (1,)), ((1,), (0,))]
    assert sorted(SYM.moves(2, 1)) == [((), (0,)), ((), (1,)), ((0,), ()), ((1,), ())]


def test_to_symmetric_and_size_shift():
    assert ChangeDistance.to_symmetric(3) == 6
    assert CHG.to_symmetric(0) == 0
    assert (SYM.size_shift(3), CHG.size_shift(3)) == (3, 0)


@pytest.mark.parametrize("text, metric", [
    ("add-remove", SYM), ("SymmetricDistance", SYM), (" substitute ", CHG), ("ChangeDistance", CHG),
])
def test_parse_metric(text, metric):
    parsed = parse_metric(text)
    assert parsed == metric and type(parsed) is type(metric)


def test_metric_equality():
    assert SymmetricDistance() == SYM and hash(SymmetricDistance()) == hash(SYM)
    assert SYM != CHG
    assert repr(CHG) == "ChangeDistance()"


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse_metric("bounded"),
        lambda: parse_metric(""),
        lambda: parse_metric("Add-Remove"),
        lambda: ChangeDistance.to_symmetric(-1),
        lambda: ChangeDistance.to_symmetric(1.0),
        lambda: ChangeDistance.to_symmetric(True),
        lambda: check_d_in(-1),
        lambda: check_d_in("1"),
        lambda: check_d_in(None),
    ],
)
def test_metric_bad_arguments(call):
    with pytest.raises(InvalidArgument):
        call()


def test_check_d_in_accepts_whole_numbers():
    assert check_d_in(0) == 0 and check_d_in(4) == 4
