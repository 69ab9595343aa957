"""The edit-graph engine against an independent brute force (every pair, distance computed
directly), its witnesses, scope, budgets and bad arguments."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import pytest
import sympy

from exactdp import (
    ClaimViolated, ExactSet, InexactInput, IntegerRange, InvalidArgument, Multisets, SpaceMismatch, TooLarge,
    UndefinedQuery,
)
from exactdp.checkers.graph import (
    GraphScope, assert_graph_claim, graph_sensitivity, is_graph_space, make_query, verify_conversion, verify_graph_claim,
)
from exactdp.checkers.results import SensitivityResult, Verdict
from exactdp.queries.base import UNDEFINED
from exactdp.spaces.sequences import HammingDistance, InsertDeleteDistance, Sequences
from exactdp.spaces.units import AddRemoveID, MaxRowsPerID, Units, compose, group_counts, row_sum


# == an independent brute force ============================================================

def _edit_distance(x, y):
    """Insert/delete distance by the textbook recursion (no LCS shortcut)."""
    @lru_cache(maxsize=None)
    def d(i, j):
        if i == len(x):
            return len(y) - j
        if j == len(y):
            return len(x) - i
        if x[i] == y[j]:
            return d(i + 1, j + 1)
        return 1 + min(d(i + 1, j), d(i, j + 1))
    return d(0, 0)


def _hamming(x, y):
    return None if len(x) != len(y) else sum(a != b for a, b in zip(x, y))


def _id_distance(x, y):
    a, b = dict(x), dict(y)
    return sum(1 if (i in a) != (i in b) else 2 * (a[i] != b[i]) for i in set(a) | set(b))


DIRECT = {InsertDeleteDistance: _edit_distance, HammingDistance: _hamming, AddRemoveID: _id_distance}


def _norm(q, a, b):
    if q.output == "scalar":
        return abs(a - b)
    diffs = [abs(u - v) for u, v in zip(a, b)]
    return {"L1": sum(diffs), "Linf": max(diffs), "L2": sum(d * d for d in diffs)}[q.norm]


def brute_force(q, space, relation, d_in, exact_k=False):
    keys = list(space)
    values = [q.fn(space.public(k)) for k in keys]
    dist = DIRECT[type(relation)]
    best, pair, pairs = None, None, 0
    for i, j in itertools.combinations(range(len(keys)), 2):
        d = dist(keys[i], keys[j])
        if d is None or d == 0 or d > d_in or (exact_k and d != d_in):
            continue
        pairs += 1
        g = _norm(q, values[i], values[j])
        if best is None or g > best:
            best, pair = g, (i, j)
    if pair is None:
        return 0, None, None, 0
    if q.output == "vector" and q.norm == "L2":
        best = sympy.sqrt(sympy.Rational(best.numerator, best.denominator))
    return best, space.public(keys[pair[0]]), space.public(keys[pair[1]]), pairs


SEQ = Sequences(IntegerRange(-1, 2), sizes=(0, 3))
SEQ_FIXED = Sequences(IntegerRange(0, 2), size=3)
UNITS = Units(IntegerRange(0, 2), ids=2, rows_per_id=(1, 2))

FIRST = make_query("first", lambda xs: Fraction(xs[0]) if xs else Fraction(0))
WEIGHTED = make_query("position-weighted sum", lambda xs: sum((i + 1) * v for i, v in enumerate(xs)))
PREFIX = make_query("prefix sums", lambda xs: tuple(sum(xs[:k], Fraction(0)) for k in range(1, 4)),
                    output="vector", norm="L1")  # short sequences: the missing terms are 0
PREFIX_L2 = make_query("prefix sums L2", PREFIX.fn, output="vector", norm="L2")
PREFIX_INF = make_query("prefix sums Linf", PREFIX.fn, output="vector", norm="Linf")
USUM2 = make_query("sum of MaxRowsPerID(1)", compose(MaxRowsPerID(1, keep="largest"), row_sum))
HIST = make_query("histogram", group_counts([0, 1, 2]), output="vector", norm="L2")

CASES = [
    (FIRST, SEQ, InsertDeleteDistance(), 1, False),
    (FIRST, SEQ, InsertDeleteDistance(), 2, False),
    (WEIGHTED, SEQ, InsertDeleteDistance(), 2, True),
    (WEIGHTED, SEQ_FIXED, HammingDistance(), 1, False),
    (WEIGHTED, SEQ_FIXED, HammingDistance(), 2, True),
    (PREFIX, SEQ, InsertDeleteDistance(), 1, False),
    (PREFIX_L2, SEQ_FIXED, HammingDistance(), 2, False),
    (PREFIX_INF, SEQ, InsertDeleteDistance(), 3, False),
    (make_query("sum", row_sum), UNITS, AddRemoveID(), 1, False),
    (USUM2, UNITS, AddRemoveID(), 2, False),
    (HIST, UNITS, AddRemoveID(), 2, True),
]


@pytest.mark.parametrize("q, space, relation, d_in, exact_k", CASES)
def test_engine_matches_brute_force_over_all_pairs(q, space, relation, d_in, exact_k):
    value, x, x_prime, pairs = brute_force(q, space, relation, d_in, exact_k)
    r = graph_sensitivity(q, space, relation, d_in, exact_k=exact_k)
    assert sympy.simplify(sympy.sympify(r.value) - sympy.sympify(value)) == 0
    assert r.scope.pairs == pairs > 0
    assert (r.witness.x, r.witness.x_prime) == (x, x_prime)  # the first maximiser, deterministically
    assert r.witness.d == DIRECT[type(relation)](space.to_key(x), space.to_key(x_prime))
    assert r.scope.datasets == len(list(space))


def test_witness_values_and_scope_text():
    r = graph_sensitivity(FIRST, Sequences(IntegerRange(0, 3), sizes=(0, 2)), InsertDeleteDistance())
    assert isinstance(r, SensitivityResult) and isinstance(r.scope, GraphScope)
    assert (r.value, r.witness.x, r.witness.x_prime, r.witness.fx, r.witness.fx_prime) == (
        3, (), (Fraction(3),), 0, 3)
    assert r.scope.describe() == (
        "all 21 sequences of length 0..2 over {0..3}; InsertDeleteDistance <= 1 (ordered; one "
        "insertion or deletion at any position = 1); both datasets in the space; 32 unordered "
        "pairs examined")
    d = r.to_dict()
    assert (d["sensitivity"], d["neighbors"], d["pairs"], d["witness"]["x_prime"]) == ("3", "insert-delete", 32, "(3)")
    assert str(r).startswith("first: sensitivity 3, attained by x=(), x'=(3): f(x)=0, f(x')=3")


def test_claims_verdicts_and_parameters():
    space = Sequences(IntegerRange(0, 2), size=3)
    assert verify_graph_claim("(N + 1) * U", WEIGHTED, space, "hamming").verdict is Verdict.HOLDS
    tight = verify_graph_claim("N * (U - L)", WEIGHTED, space, "hamming")
    assert tight.verdict is Verdict.HOLDS_TIGHT and tight.claim == 6
    v = verify_graph_claim("U - L", WEIGHTED, space, "hamming")
    assert v.verdict is Verdict.VIOLATED and v.sensitivity.value == 6
    assert v.summary().startswith("VIOLATED: claim U - L = 2 < sensitivity 6; witness x=(0, 0, 0), x'=(0, 0, 2)")
    vac = verify_graph_claim(1, WEIGHTED, space, "hamming", d_in=0)
    assert vac.verdict is Verdict.VACUOUS
    with pytest.raises(InvalidArgument, match="unknown name 'R'"):
        verify_graph_claim("R * U", WEIGHTED, space, "hamming")  # R belongs to units


def test_undefined_policies():
    space = Sequences(IntegerRange(0, 2), sizes=(0, 2))
    with pytest.raises(UndefinedQuery, match=r"\(\)"):
        graph_sensitivity("mean", space)
    r = graph_sensitivity("mean", space, undefined="exclude")
    assert r.value == 1 and r.scope.excluded == 1  # (a) against (a, b): |a - b| / 2
    assert graph_sensitivity("mean", space, undefined=5).value == 5
    first = make_query("first or undefined", lambda xs: xs[0] if xs else UNDEFINED)
    assert graph_sensitivity(first, space, undefined="exclude").value == 2


def test_budgets_are_checked_before_any_evaluation():
    calls = []
    q = make_query("counting", lambda xs: calls.append(1) or 0)
    with pytest.raises(TooLarge, match="max_datasets"):
        graph_sensitivity(q, Sequences(IntegerRange(0, 9), sizes=(0, 6)), max_datasets=10**5)
    with pytest.raises(TooLarge, match="max_pairs"):
        graph_sensitivity(q, Units(IntegerRange(0, 9), ids=2, rows_per_id=(1, 2)), d_in=2,
                          max_pairs=10**6)
    assert calls == []


@pytest.mark.parametrize("call, error", [
    (lambda: graph_sensitivity("sum", Multisets(IntegerRange(0, 1), size=1)), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, AddRemoveID()), SpaceMismatch),
    (lambda: graph_sensitivity("sum", UNITS, "hamming"), SpaceMismatch),
    (lambda: graph_sensitivity("sum", SEQ, "add-remove"), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, d_in=-1), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, d_in=0, exact_k=True), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, exact_k="yes"), InvalidArgument),
    (lambda: graph_sensitivity("std", SEQ), InvalidArgument),
    (lambda: graph_sensitivity(42, SEQ), InvalidArgument),
    (lambda: graph_sensitivity(make_query("f", lambda xs: 0.5), SEQ), InexactInput),
    (lambda: graph_sensitivity(make_query("v", lambda xs: 1, output="vector", norm="L1"), SEQ), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, max_pairs=1.5), InvalidArgument),
    (lambda: graph_sensitivity("sum", SEQ, scope="release-centred"), InvalidArgument),
    (lambda: make_query("v", len, output="vector"), InvalidArgument),
    (lambda: make_query("v", len, norm="L1"), InvalidArgument),
    (lambda: make_query("", len), InvalidArgument),
    (lambda: make_query("c", len, clip=(3, 1)), InvalidArgument),
    (lambda: verify_conversion(SEQ, "insert-delete", "hamming", 1, -1), InvalidArgument),
])
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()


def test_plain_functions_and_multiset_queries():
    assert is_graph_space(SEQ) and is_graph_space(UNITS) and not is_graph_space(Multisets(IntegerRange(0, 1), size=1))
    def last(xs):
        return xs[-1] if xs else 0
    r = graph_sensitivity(last, SEQ_FIXED, "hamming")
    assert r.query.name == "last" and r.value == 2
    # a multiset query on sequences: the count-vector engine's answer
    assert graph_sensitivity("sum", Sequences(ExactSet(["1/2", 3]), sizes=(0, 2))).value == 3


def test_conversion_result_text():
    r = verify_conversion(Sequences(IntegerRange(0, 1), size=2), "insert-delete", "hamming", 2, 1)
    assert str(r).startswith("InsertDeleteDistance <= 2 -> HammingDistance: claim 1, exact maximum 2: VIOLATED")


def test_assert_graph_claim_raises_with_the_witness():
    space = Sequences(IntegerRange(0, 2), size=3)
    assert assert_graph_claim("N * (U - L)", WEIGHTED, space, "hamming").ok
    with pytest.raises(ClaimViolated) as info:
        assert_graph_claim("U - L", WEIGHTED, space, "hamming")
    w = info.value.result.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime) == ((0, 0, 0), (0, 0, 2), 0, 6)
