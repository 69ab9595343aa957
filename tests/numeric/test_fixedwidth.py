"""Fixed-width integer sums: the wrap model bit for bit against NumPy, saturation against
its definition, and sums whose claimed sensitivity fails because they wrap (witnesses
found by enumeration at int8 and built directly at int32)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from exactdp import ExactSet, InexactInput, IntegerRange, InvalidArgument, Multisets
from exactdp.checkers.graph import make_query, verify_graph_claim
from exactdp.checkers.sensitivity import verify_claim
from exactdp.numeric.fixedwidth import (
    INT8, INT32, INT64, IntFormat, add, b_ary_tree, int_format, int_sum, saturate, wrap,
)
from exactdp.queries.base import Query
from exactdp.spaces.sequences import Sequences

FAST = settings(max_examples=200, deadline=None, database=None)
NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}


def F(*xs):
    return tuple(Fraction(x) for x in xs)


def _ints(fmt):
    f = int_format(fmt)
    return st.lists(st.integers(f.min, f.max), max_size=40)


# == the wrap model against NumPy ========================================================

@pytest.mark.parametrize("fmt", ["int8", "int16", "int32", "int64"])
def test_wrap_sum_matches_numpy_on_random_inputs(fmt):
    f, dt = int_format(fmt), NP[fmt]
    rng = np.random.default_rng(12)
    for n in (0, 1, 2, 7, 100):
        for _ in range(20):
            arr = rng.integers(f.min, f.max, size=n, endpoint=True, dtype=dt)
            values = [int(v) for v in arr]
            assert int_sum(values, fmt) == int(np.add.reduce(arr, dtype=dt))
            assert [int_sum(values[:k + 1], fmt) for k in range(n)] == [int(v) for v in np.cumsum(arr, dtype=dt)]


@FAST
@given(_ints("int32"))
def test_sequential_wrap_matches_numpy_scalar_arithmetic(values):
    acc = np.int32(0)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        for v in values:
            acc = np.int32(acc + np.int32(v))
    assert int_sum(values, "int32") == int(acc)
    assert int_sum(values, "int32") == wrap(sum(values), "int32")  # order does not matter


@FAST
@given(_ints("int8"), st.sampled_from([2, 3, 4]))
def test_b_ary_tree_nodes_match_numpy_layer_sums(values, arity):
    nodes = b_ary_tree(values, "int8", arity=arity)
    width = 1
    while width < len(values):
        width *= arity
    layer = np.zeros(width, dtype=np.int8)
    layer[: len(values)] = values
    layers = [layer]
    while len(layer) > 1:
        layer = layer.reshape(-1, arity).sum(axis=1, dtype=np.int8)
        layers.append(layer)
    expected = [int(v) for lay in reversed(layers) for v in lay]
    pad = width - len(values)  # OpenDP drops the trailing zero leaves it padded with
    assert nodes == expected[:len(expected) - pad]
    root = nodes[0] if nodes else 0
    assert int_sum(values, "int8", model="tree", arity=arity) == root == int_sum(values, "int8")


# == saturation ==========================================================================

@FAST
@given(_ints("int8"))
def test_saturation_is_a_clamp_after_every_add(values):
    acc = 0
    for v in values:
        acc = min(max(acc + v, -128), 127)
    assert int_sum(values, "int8", "saturate") == acc
    if all(v >= 0 for v in values):  # one sign: the clamp of the exact sum
        assert acc == min(sum(values), 127)


def test_saturation_depends_on_order_and_on_the_tree():
    assert int_sum([100, 100, -100], "int8", "saturate") == 27
    assert int_sum([-100, 100, 100], "int8", "saturate") == 100
    assert int_sum([100, 100, -100, 0], "int8", "saturate", "tree") == 27
    assert int_sum([100, -100, 100, 0], "int8", "saturate", "tree") == 100
    assert add(100, 100, "int8", "saturate") == 127 and add(100, 100, "int8") == -56


def test_scalars_and_formats():
    assert (INT8.min, INT8.max, INT32.max, INT64.min) == (-128, 127, 2**31 - 1, -2**63)
    assert int_format("i32") is INT32 and int_format(INT8) is INT8
    assert (wrap(255, "uint8"), wrap(256, "uint8"), wrap(-1, "uint8")) == (255, 0, 255)
    assert saturate(300, "uint8") == 255 and saturate(-5, "uint8") == 0
    assert wrap(np.int64(2**31), "int32") == -2**31
    assert int_sum([Fraction(4), 4], IntFormat("int4", 4)) == -8
    assert int_sum([500, -500, 3], "int8", bounds=(-100, 100)) == 3
    assert b_ary_tree([], "int8") == [] and int_sum([], "int8", model="tree") == 0
    # OpenDP's make_b_ary_tree(leaf_count=4, branching_factor=3) on [1, 2, 3, 4] and on [1]
    assert b_ary_tree([1, 2, 3, 4], "int32", arity=3) == [10, 6, 4, 0, 1, 2, 3, 4]
    assert b_ary_tree([1], "int32", arity=3, leaf_count=4) == [1, 1, 0, 0, 1]
    assert b_ary_tree([1, 2, 3], "int32", leaf_count=2) == [3, 1, 2]  # extra values ignored


@pytest.mark.parametrize("build, error", [
    (lambda: int_sum([1.0], "int8"), InexactInput),
    (lambda: int_sum([Fraction(1, 2)], "int8"), InvalidArgument),
    (lambda: int_sum([200], "int8"), InvalidArgument),
    (lambda: int_sum([1], "int7"), InvalidArgument),
    (lambda: int_sum([1], "int8", "checked"), InvalidArgument),
    (lambda: int_sum([1], "int8", model="pairwise"), InvalidArgument),
    (lambda: int_sum([1], "int8", bounds=(5, 1)), InvalidArgument),
    (lambda: int_sum([1], "int8", bounds=(0, 300)), InvalidArgument),
    (lambda: b_ary_tree([1], "int8", arity=1), InvalidArgument),
    (lambda: b_ary_tree([1], "int8", leaf_count=0), InvalidArgument),
    (lambda: IntFormat("x", 0), InvalidArgument),
    (lambda: wrap(True, "int8"), InvalidArgument),
])
def test_bad_arguments(build, error):
    with pytest.raises(error):
        build()


# == sums that wrap: claimed U - L fails ===================================================

def _wrapped_sum_query(fmt):
    """A multiset Query for the existing engine: a wrapped sum is order-free."""
    def prepare(values):
        ints = [int(v) for v in values]
        return lambda counts: Fraction(wrap(sum(c * v for c, v in zip(counts, ints)), fmt))
    return Query(f"{fmt} wrapped sum", prepare)


def test_int8_clipped_sum_wraps_enumeration_finds_the_witness():
    """Substitute one record in [0, 64]: the exact sum moves by U - L = 64; the int8 sum
    wraps past 127 and moves by 255."""
    space = Sequences(ExactSet([0, 1, 32, 63, 64]), size=2)
    q = make_query("int8 sum", lambda xs: int_sum(xs, "int8"), clip=(0, 64))
    r = verify_graph_claim("U - L", q, space, "hamming")
    assert r.verdict.value == "violated"
    assert (r.claim, r.sensitivity.value) == (64, 255)
    w = r.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime) == (F(63, 64), F(64, 64), 127, -128)
    # the same with the count-vector engine (order-free: multisets and ChangeDistance)
    m = verify_claim("U - L", _wrapped_sum_query("int8"), Multisets(IntegerRange(0, 64), size=2),
                     "substitute")
    assert m.verdict.value == "violated" and m.sensitivity.value == 255
    assert {m.witness.x, m.witness.x_prime} == {F(63, 64), F(64, 64)}


def test_int32_clipped_sum_wraps_direct_construction():
    """Clip bounds [0, 2**30]: U - L = 2**30, yet one substituted record moves the int32
    sum by 2**32 - 1, from 2**31 - 1 to -2**31."""
    x, x_prime = [2**30, 2**30 - 1], [2**30, 2**30]
    fx, fx_prime = int_sum(x, "int32", bounds=(0, 2**30)), int_sum(x_prime, "int32", bounds=(0, 2**30))
    assert (fx, fx_prime) == (2**31 - 1, -2**31)
    assert abs(fx - fx_prime) == 2**32 - 1 > 2**30
    assert int(np.array(x_prime, dtype=np.int32).sum(dtype=np.int32)) == fx_prime
    assert int(np.array(x, dtype=np.int32).sum(dtype=np.int32)) == fx


def test_b_ary_tree_of_int8_counts_wraps():
    """OpenDP #2925 in small: the tree's L1 sensitivity under a changed leaf in [0, 64] is
    claimed layers * (U - L) = 3 * 64; a node that wraps moves by 255 on its own."""
    space = Sequences(ExactSet([0, 1, 63, 64]), size=4)
    q = make_query("int8 2-ary tree", lambda xs: tuple(b_ary_tree(xs, "int8")), output="vector",
                   norm="L1", clip=(0, 64))
    r = verify_graph_claim("3 * (U - L)", q, space, "hamming")
    assert r.verdict.value == "violated"
    w = r.witness
    assert r.sensitivity.value == 1 + 255 + 255  # the leaf moves by 1, its parent and the root wrap
    assert (w.x, w.x_prime) == (F(0, 0, 63, 64), F(0, 0, 64, 64))
    assert w.fx == (127, 0, 127, 0, 0, 63, 64) and w.fx_prime == (-128, 0, -128, 0, 0, 64, 64)
    plain = make_query("exact tree", lambda xs: tuple(b_ary_tree(xs, "int64")), output="vector",
                       norm="L1", clip=(0, 64))
    assert verify_graph_claim("3 * (U - L)", plain, space, "hamming").verdict.value == "holds-tight"


def test_saturating_sum_keeps_its_bound_under_both_relations():
    """Saturation is a clamp (1-Lipschitz) after every add: one changed, inserted or deleted
    record moves the result by at most its own size, at any position (checked exactly)."""
    fmt = IntFormat("int3", 3)
    q = make_query("int3 saturating sum", lambda xs: int_sum(xs, fmt, "saturate"), clip=(-4, 3))
    assert verify_graph_claim("U - L", q, Sequences(IntegerRange(-4, 3), size=3),
                              "hamming").verdict.value == "holds-tight"
    r = verify_graph_claim("max(-L, U)", q, Sequences(IntegerRange(-4, 3), sizes=(0, 3)),
                           "insert-delete")
    assert r.verdict.value == "holds-tight" and (r.witness.x, r.witness.x_prime) == ((), F(-4))
