"""Dataset metrics read datasets as datasets (issue 16).

Before: ``SymmetricDistance().distance`` and ``ChangeDistance().distance`` read their
arguments as count vectors, so two datasets gave 0, 0, 1 where 1, 1, 2 are right, with no
word. Now ``distance`` takes datasets (order ignored) and ``count_distance`` count vectors;
``insert-delete`` with a pool said "not a known relation"."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from exactdp import ChangeDistance, HammingDistance, InsertDeleteDistance, IntegerRange, Multisets
from exactdp import SubMultisets, SymmetricDistance, sensitivity
from exactdp.errors import InvalidArgument
from exactdp.spaces.metrics import as_metric, parse_metric

SYM, CHG = SymmetricDistance(), ChangeDistance()


@pytest.mark.parametrize("metric, x, y, right", [
    # the cases: count-vector reading gave 0, 0, 1
    (SYM, (), (5,), 1),
    (SYM, (1, 2), (1, 2, 3), 1),
    (SYM, (1, 2), (1, 3), 2),
    # more
    (SYM, [3, 1, 2], (1, 2, 3), 0),  # order ignored: a dataset is a multiset
    (SYM, (1, 1, 2), (1, 2, 2), 2),
    (SYM, (Fraction(1, 2), 2), (Fraction(1, 2),), 1),
    (SYM, (), (), 0),
    (CHG, (1, 2), (1, 3), 1),
    (CHG, (5,), (6,), 1),
    (CHG, (1, 1, 2), (2, 2, 1), 1),
    (CHG, (1, 2), (3, 4), 2),
    (CHG, (1,), (1, 2), None),  # sizes differ: not comparable
    (CHG, (), (), 0),
])
def test_distance_of_datasets(metric, x, y, right):
    assert metric.distance(x, y) == right
    assert metric.distance(y, x) == right


def test_distance_agrees_with_the_definition():
    """|x Δ x'| and, at equal sizes, the records changed, over every pair of small datasets."""
    datasets = [d for n in range(4) for d in itertools.combinations_with_replacement(range(3), n)]
    for x, y in itertools.product(datasets, repeat=2):
        a, b = Counter(x), Counter(y)
        sym = sum(((a - b) + (b - a)).values())
        assert SYM.distance(x, y) == sym
        assert CHG.distance(x, y) == (sym // 2 if len(x) == len(y) else None)


def test_count_distance_keeps_count_vectors():
    assert SYM.count_distance((1, 0, 2), (0, 1, 2)) == 2
    assert CHG.count_distance((2, 0, 0), (0, 1, 1)) == 2
    assert CHG.count_distance((1, 0), (0, 0)) is None


@pytest.mark.parametrize("call, said", [
    (lambda: SYM.count_distance((1, 0), (1, 0, 0)),
     "count vectors of lengths 2 and 3: a count vector has one entry per value"),
    (lambda: SYM.count_distance((1, -1), (1, 0)),
     "x=(1, -1) is not a count vector (-1 is not a whole number >= 0)"),
    (lambda: CHG.count_distance((1, 0), (Fraction(1, 2), 0)),
     "x_prime=(Fraction(1, 2), 0) is not a count vector"),
    (lambda: SYM.count_distance("10", (1, 0)), "x='10' is not a count vector"),
    (lambda: SYM.distance("abc", (1,)), "x='abc' is not a dataset"),
    (lambda: SYM.distance(5, (1,)), "x=5 is not a dataset"),
    (lambda: CHG.distance((1,), ([1],)), "x_prime holds [1], which cannot be compared as a record"),
    (lambda: SYM.distance((float("nan"),), (1.0,)), "x holds nan, which equals no record"),
])
def test_bad_arguments_refused(call, said):
    with pytest.raises(InvalidArgument) as e:
        call()
    assert said in str(e.value)


# -- ordered relations with multisets -----------------------------------------------------

ORDERED_SAID = ("relates sequences (ordered datasets), not multisets such as a --pool, "
                "Multisets or SubMultisets; for multisets use 'add-remove' (SymmetricDistance) "
                "or 'substitute' (ChangeDistance)")


@pytest.mark.parametrize("name", ["insert-delete", "hamming", "InsertDeleteDistance",
                                  "HammingDistance"])
def test_ordered_relation_names_refused_with_what_to_use(name):
    with pytest.raises(InvalidArgument) as e:
        parse_metric(name)
    assert str(e.value).startswith(f"neighbors={name!r} {ORDERED_SAID}")


@pytest.mark.parametrize("relation", [InsertDeleteDistance(), HammingDistance()])
def test_ordered_relation_objects_refused_with_multisets(relation):
    with pytest.raises(InvalidArgument, match="relates sequences"):
        as_metric(relation)
    with pytest.raises(InvalidArgument, match="relates sequences"):
        sensitivity("sum", Multisets(IntegerRange(0, 2), sizes=(0, 2)), relation)


def test_unknown_relation_still_lists_the_known_ones():
    with pytest.raises(InvalidArgument, match="is not a known relation; use 'add-remove'"):
        parse_metric("add_remove")


def test_cli_pool_with_insert_delete(cli_run):
    code, out, err = cli_run("sensitivity", "--query", "sum", "--pool", "1,2,3", "--size", "2",
                             "--neighbors", "insert-delete")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"neighbors='insert-delete' {ORDERED_SAID}" in err
    assert "not a known relation" not in err


def test_cli_pool_with_substitute_still_runs(cli_run):
    code, out, _ = cli_run("sensitivity", "--query", "sum", "--pool", "1,2,3", "--size", "2",
                           "--neighbors", "substitute", "--claim", "2")
    assert code == 0 and "HOLDS" in out and "x=[1, 2], x'=[2, 3]" in out
    assert sensitivity("sum", SubMultisets([1, 2, 3], sizes=(2, 2)), "substitute").value == 2
