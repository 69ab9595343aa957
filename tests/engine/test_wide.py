"""The wide strategy (exactdp/engine/wide.py, issue 19 part 3): the same values, witnesses
and pair counts as the move lists and scans, and no space refused that one of them answers."""

import random
from fractions import Fraction

import pytest

from exactdp import ExactSet, IntegerRange, Multisets, SubMultisets, sensitivity
from exactdp.engine import plan as _plan
from exactdp.engine import wide
from exactdp.errors import TooLarge
from exactdp.queries.builtin import clipped, parse_query

F = Fraction


def _answer(query, space, **kw):
    r = sensitivity(query, space, workers=1, **kw)
    w = r.witness
    return (r.value, None if w is None else (w.x, w.x_prime, w.fx, w.fx_prime),
            r.scope.pairs, r.scope.excluded)


def _kinds(query, space, scope="standard", undefined="error"):
    plan = _plan.make_plan(query, space, "add-remove", [1], scope, undefined, None, None, False,
                           False, build=False)
    return plan.plans[1].kind


@pytest.fixture
def forced(monkeypatch):
    """Compare with the wide strategy taken wherever it applies, then switched off."""
    def both(query, space, **kw):
        monkeypatch.setattr(wide, "FORCE", True)
        got = _answer(query, space, **kw)
        kind = _kinds(query, space, kw.get("scope", "standard"), kw.get("undefined", "error"))
        monkeypatch.setattr(wide, "FORCE", False)
        monkeypatch.setattr(wide, "ENABLED", False)
        before = _answer(query, space, **kw)
        monkeypatch.setattr(wide, "ENABLED", True)
        return kind, got, before
    return both


# -- the 1,023 / 1,024 hole (regression) ---------------------------------------------

def test_1023_values_sizes_0_2_answered_not_refused():
    space = Multisets(IntegerRange(0, 1023), sizes=(0, 2))
    value, witness, pairs, excluded = _answer("sum", space)
    assert value == 1023
    assert witness == ((), (F(1023),), 0, 1023)
    assert pairs == 1_049_600 and excluded == 0
    assert _kinds("sum", space) == "wide"


def test_python_api_0_1000_answered():
    value, witness, pairs, _ = _answer("mean", Multisets(IntegerRange(0, 1000), sizes=(1, 2)))
    assert value == 500
    assert witness == ((F(1000),), (F(0), F(1000)), 1000, 500)  # count-vector order: [1000] first
    assert pairs == 1001 * 1001


def test_cli_0_1023_exit_0(capsys):
    from exactdp.cli import main

    code = main(["sensitivity", "--query", "sum", "--universe", "0..1023", "--sizes", "0..2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "sum: sensitivity 1023, attained by x=[], x'=[1023]" in out
    assert "1,049,600 unordered pairs examined" in out


def test_refused_only_over_budget_with_the_smaller_count():
    space = Multisets(IntegerRange(0, 1023), sizes=(0, 2))
    with pytest.raises(TooLarge) as e:
        sensitivity("sum", space, max_pairs=1_000_000)
    assert e.value.estimate == 1_049_600  # the wide count, not the move lists' 1,076,889,600
    assert "over max_pairs=1,000,000" in str(e.value)


def test_deep_space_keeps_the_move_lists():
    assert _kinds("mean", Multisets(IntegerRange(0, 7), sizes=(1, 6))) == "delta"


def test_not_applicable_keeps_the_other_strategies():
    space = Multisets(IntegerRange(0, 40), sizes=(0, 2))
    assert _kinds("sum", space) == "wide"
    plan = _plan.make_plan("sum", space, "substitute", [1], "standard", "error", None, None,
                           False, False, build=False)
    assert plan.plans[1].kind != "wide"
    plan = _plan.make_plan("sum", space, "add-remove", [2], "standard", "error", None, None,
                           False, False, build=False)
    assert plan.plans[2].kind != "wide"


def test_sparse_universe_same_as_sparse_strategy(forced):
    space = Multisets(IntegerRange(-3, 1030), sizes=(0, 1))
    kind, got, before = forced("sum", space)
    assert kind == "wide"
    assert got == before
    assert got == (1030, ((), (F(1030),), 0, 1030), 1034, 0)


def test_release_centred_undefined_neighbour_refused_as_before():
    from exactdp.errors import UndefinedQuery

    space = Multisets(IntegerRange(0, 40), sizes=(1, 2))
    assert _kinds("median", space, "release-centred", "1/2") == "wide"
    assert _kinds("median", space, "release-centred", "exclude") != "wide"
    with pytest.raises(UndefinedQuery, match=r"x'=\[\] \(size 0\), a neighbour of x=\[40\]"):
        sensitivity("median", space, scope="release-centred", workers=1)


# -- the property: same value, witness, pairs, excluded on random small spaces ----------

QUERIES = ["count", "sum", "mean", "median", "var", "var:1", "percentile:30",
           "quantile:3/4:nearest", "percentile:50:lower"]


def _random_case(rng):
    kind = rng.randrange(3)
    lo = rng.randrange(0, 2)
    hi = lo + rng.randrange(0, 3)
    if kind == 0:
        a = rng.randrange(-5, 3)
        space = Multisets(IntegerRange(a, a + rng.randrange(0, 9)), sizes=(lo, hi))
    elif kind == 1:
        vals = sorted({F(rng.randrange(-20, 20), rng.choice([1, 2, 3, 7])) for _ in range(rng.randrange(1, 8))})
        space = Multisets(ExactSet(vals), sizes=(lo, hi))
    else:
        pool = [rng.randrange(0, 6) for _ in range(rng.randrange(2, 9))]
        space = SubMultisets(pool, sizes=(lo, min(hi, len(pool))))
    query = parse_query(rng.choice(QUERIES))
    if rng.random() < 0.2:
        query = clipped(parse_query("sum"), -1, 3)
    scope = rng.choice(["standard", "release-centred"])
    undefined = rng.choice(["exclude", "1/3", "-2"]) if query.min_size > 0 else "error"
    return query, space, scope, undefined


def test_random_spaces_same_answers_as_before(forced):
    rng = random.Random(19)
    used = 0
    for _ in range(300):
        query, space, scope, undefined = _random_case(rng)
        try:
            kind, got, before = forced(query, space, scope=scope, undefined=undefined)
        except Exception as e:  # the same refusal both ways is checked below
            with pytest.raises(type(e)):
                _answer(query, space, scope=scope, undefined=undefined)
            continue
        assert got == before, (query.name, space, scope, undefined)
        used += kind == "wide"
    assert used >= 150  # most cases exercised the wide strategy
