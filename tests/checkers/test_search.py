"""search_claim: a violation found beyond enumeration, with an exact shrunk witness and
the seed that reproduces it; not-found (never a proof) on a true claim; bad inputs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp import IntegerRange
from exactdp.checkers.search import SearchResult, SearchVerdict, search_claim
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.queries import clipped, mean, sum_
from exactdp.spaces.universe import ExactSet

HUGE = IntegerRange(0, 10**6)
SIZES = (0, 10**4)
CLIPPED = clipped(sum_, 10, 20)  # L = 10 > 0: adding one record moves the sum by up to 20


def test_u_minus_l_is_violated_with_a_one_record_witness():
    r = search_claim("U - L", CLIPPED, HUGE, SIZES, "add-remove", 1, budget=300, seed=0)
    assert isinstance(r, SearchResult)
    assert r.verdict is SearchVerdict.VIOLATED and not r.ok
    assert r.found_by == "search"
    assert r.claim_value == Fraction(10)
    w = r.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime, w.distance) == (
        (), (Fraction(11),), Fraction(0), Fraction(11), Fraction(11))
    assert r.seed == 0 and "seed=0" in str(r)
    assert r.corner is not None and r.corner.value == Fraction(10)  # values 0..7 clip to L
    d = r.to_dict()
    assert d["verdict"] == "violated" and d["proof"] is False and d["seed"] == 0
    assert d["witness"] == {"x": [], "x_prime": ["11"], "fx": "0", "fx_prime": "11", "distance": "11"}


@pytest.mark.parametrize("seed", [0, 7, 2**31 + 5])
def test_the_seed_reproduces_the_run(seed):
    runs = [search_claim("U - L", CLIPPED, "0..1000000", SIZES, budget=200, seed=seed)
            for _ in range(2)]
    assert runs[0].to_dict() == runs[1].to_dict()
    assert runs[0].witness.x_prime == (Fraction(11),)


def test_a_fresh_seed_is_returned_and_reproduces():
    first = search_claim("U - L", CLIPPED, HUGE, SIZES, budget=200, seed=None)
    again = search_claim("U - L", CLIPPED, HUGE, SIZES, budget=200, seed=first.seed)
    assert first.to_dict() == again.to_dict()


def test_a_true_claim_is_not_found_never_proved():
    r = search_claim("d_in*Max(Abs(L), Abs(U))", CLIPPED, HUGE, SIZES, budget=300, seed=0)
    assert r.verdict is SearchVerdict.NOT_FOUND and r.ok and r.witness is None
    assert r.claim_value == Fraction(20)
    assert r.examples == 300
    assert "not a proof" in str(r) and r.to_dict()["proof"] is False


def test_substitute_and_d_in_2():
    # bounded DP: changing one record of a clipped sum moves it by up to U - L
    r = search_claim("U - L", CLIPPED, HUGE, SIZES, "substitute", 1, budget=200)
    assert r.verdict is SearchVerdict.NOT_FOUND
    r = search_claim("U - L - 1", CLIPPED, HUGE, SIZES, "substitute", 1, budget=300)
    w = r.witness
    assert r.verdict is SearchVerdict.VIOLATED and w.distance == 10
    assert len(w.x) == len(w.x_prime) == 1
    r = search_claim("d_in*U", CLIPPED, HUGE, SIZES, "add-remove", 2, budget=200)
    assert r.verdict is SearchVerdict.NOT_FOUND


def test_the_corner_finds_what_lies_in_it():
    r = search_claim("U - L - 1", clipped(sum_, 0, 5), HUGE, SIZES, budget=100)
    assert r.verdict is SearchVerdict.VIOLATED and r.found_by == "corner"
    assert r.witness.distance == 5 and r.examples == 0
    assert "enumerated all" in r.scope
    # without the corner, the search finds it and shrinks it
    r = search_claim("U - L - 1", clipped(sum_, 0, 5), HUGE, SIZES, budget=300, enumerate_corner=False)
    assert r.found_by == "search" and (r.witness.x, r.witness.x_prime) == ((), (Fraction(5),))


def test_a_query_undefined_on_small_datasets_is_searched_where_defined():
    r = search_claim("(U - L)/3", mean, ExactSet([0, 1, 10**6]), (0, 50), budget=300)
    assert r.verdict is SearchVerdict.VIOLATED  # |mean([0]) - mean([0, 10**6])| = 5*10**5
    assert "left out" in r.scope and min(len(r.witness.x), len(r.witness.x_prime)) >= 1


BAD = [
    (dict(budget=0), InvalidArgument, "budget=0 examines no pair"),
    (dict(budget=-3), InvalidArgument, "budget=-3 examines no pair"),
    (dict(budget=10**9), TooLarge, "more than 10,000,000"),
    (dict(budget=1.5), InvalidArgument, "budget=1.5 is not an int"),
    (dict(seed="x"), InvalidArgument, "seed='x' is not an int"),
    (dict(universe=[0, 1]), InvalidArgument, "universe=[0, 1] is not a universe"),
    (dict(sizes=(3, 1)), InvalidArgument, "max size=1 < min size=3"),
    (dict(sizes=(2, 2)), InvalidArgument, "has one size (2)"),
    (dict(metric="swap"), InvalidArgument, "neighbors='swap'"),
    (dict(d_in=-1), InvalidArgument, "d_in=-1 is negative"),
    (dict(d_in=0), InvalidArgument, "d_in=0 relates no"),
    (dict(claim="U - Q"), InvalidArgument, "Q"),
    (dict(claim="N"), InvalidArgument, "uses N"),
    (dict(query=len), InvalidArgument, "is not a Query"),
    (dict(exact_k="yes"), InvalidArgument, "exact_k='yes' is not a bool"),
    (dict(enumerate_corner=1), InvalidArgument, "enumerate_corner=1 is not a bool"),
]


@pytest.mark.parametrize("change, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_inputs_are_refused_before_any_work(change, error, message):
    args = dict(claim="U - L", query=CLIPPED, universe=HUGE, sizes=SIZES)
    args.update(change)
    with pytest.raises(error) as info:
        search_claim(args.pop("claim"), args.pop("query"), args.pop("universe"), args.pop("sizes"), **args)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("corner", [True, False])
def test_a_user_function_returning_a_float_is_named_with_the_fix(corner):
    from exactdp.errors import InexactInput
    from exactdp.queries.builtin import user_query

    fsum = user_query(lambda xs: float(sum(xs)), name="fsum")
    with pytest.raises(InexactInput, match="returned the float 0.0 .*return an int or a Fraction"):
        search_claim("1", fsum, "0..1000", (0, 5), budget=50, enumerate_corner=corner)
