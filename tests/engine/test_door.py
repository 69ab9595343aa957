"""One door into the engine (issue 26): the engine chosen once from the space's kind, one
query parser, one options record, one evaluator table per query kind."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from fractions import Fraction

import pytest

from exactdp import IntegerRange, InvalidArgument, Multisets, sensitivity, verify_claim
from exactdp.checkers import sensitivity as sensitivity_module
from exactdp.checkers.graph import graph_sensitivity
from exactdp.engine import door, edits, incremental, kinds, wide
from exactdp.engine.options import Options
from exactdp.queries import parse_query
from exactdp.queries.base import GraphQuery, Query
from exactdp.queries.builtin import QUERY_NAMES, as_query, histogram
from exactdp.spaces.sequences import Sequences
from exactdp.spaces.units import Units

SEQ = Sequences(IntegerRange(0, 3), sizes=(0, 2))
UNITS = Units(IntegerRange(0, 2), ids=2, rows_per_id=(1, 2))
BAG = Multisets(IntegerRange(0, 3), sizes=(0, 2))


@pytest.mark.parametrize("space, name, value", [
    (SEQ, "edits", 3),  # insert one 3
    (UNITS, "edits", 4),  # add an id with two rows of 2
    (BAG, "multiset", 3),  # add one 3
])
def test_the_engine_is_chosen_from_the_space_and_named_by_its_plan(space, name, value):
    assert door.engine_for(space).name == name
    plan = door.make_plan("sum", space, None, [1], Options())
    assert plan.engine == name
    answer = door.compute(plan, 1, Options())
    assert answer.value == value


def test_sensitivity_through_the_door_equals_the_graph_front_door():
    first = lambda xs: xs[0] if xs else 0  # noqa: E731 - a plain function of the sequence
    via_door = sensitivity(first, SEQ)
    direct = graph_sensitivity(first, SEQ)
    assert via_door.value == direct.value == 3
    assert str(via_door.witness) == str(direct.witness) == "x=(), x'=(3): f(x)=0, f(x')=3 (InsertDeleteDistance 1)"
    assert via_door.scope.describe() == direct.scope.describe()
    # a claim in R (rows per id) binds on a units space through the same door
    assert verify_claim("U * R", "sum", UNITS).verdict.value == "holds-tight"


def test_a_curve_on_the_edit_graph_refuses_a_cluster_in_one_line():
    with pytest.raises(InvalidArgument, match="edit-graph engine, which runs in one process"):
        door.curve("sum", SEQ, None, [1, 2], Options(cluster="local"))


def test_one_parser_reads_names_queries_and_functions():
    assert as_query("mean").name == "mean" and isinstance(as_query("mean"), Query)
    q = parse_query("sum")
    assert as_query(q) is q
    f = as_query(len, functions=True)
    assert isinstance(f, GraphQuery) and f.name == "len" and f((1, 2)) == 2
    with pytest.raises(InvalidArgument, match="is not a Query; pass one from exactdp.queries"):
        as_query(len)
    with pytest.raises(InvalidArgument, match="pass make_query"):
        as_query(42, functions=True)
    wrapped = edits.read_query("var")  # a multiset query on the edit graph keeps its name
    assert wrapped.name == "var" and wrapped.fn.name == "var"
    with pytest.raises(InvalidArgument, match="is a square root"):
        edits.read_query("std")


def test_the_options_record_is_frozen_and_defaults_as_the_front_doors():
    o = Options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.scope = "release-centred"  # type: ignore[misc]
    signature = inspect.signature(sensitivity)
    for f in dataclasses.fields(Options):
        assert signature.parameters[f.name].default == getattr(o, f.name), f.name


def _names(module) -> set[str]:
    tree = ast.parse(inspect.getsource(module))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def test_the_front_doors_hold_no_test_of_the_space_kind():
    names = _names(sensitivity_module)
    assert not names & {"Sequences", "Units", "is_graph_space", "is_edit_space", "Multisets"}


def test_no_if_chain_on_the_query_kind_in_the_evaluators():
    for module in (incremental, wide):
        source = inspect.getsource(module)
        for kind in kinds.KINDS:
            assert f'kind == "{kind}"' not in source, (module.__name__, kind)


def test_every_builtin_kind_has_an_evaluator_and_the_wide_ones_are_named():
    values = tuple(Fraction(v) for v in range(4))
    seen = set()
    for name in QUERY_NAMES:
        text = name.replace(":ALPHA:C1,C2,...", ":1/2:0,2").replace(":P", ":50").replace(":Q", ":1/2")
        form = parse_query(text).incremental(values)
        if form is not None:
            seen.add(form.kind)
    seen.add(histogram([0, 2, 4]).incremental(values).kind)
    assert seen == set(kinds.KINDS) == {"count", "sum", "mean", "variance", "quantile", "histogram"}
    assert wide._KINDS == ("count", "sum", "mean", "variance", "quantile")  # no wide histogram
