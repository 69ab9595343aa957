"""The float-witness search's maximize mode and the eight-accumulator reordering
construction for NumPy's pairwise sum."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import numpy as np
import pytest

from exactdp.checkers._float_search import MAX_LANE_BLOCKS, Context, lanes
from exactdp.checkers._float_sim import Grid, simulate
from exactdp.checkers.float_witness import FloatVerdict, search_float_witness
from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.numeric.floatformat import format_named
from exactdp.numeric.floatsum import float_sum

REFERENCE_LIMIT = 40_000  # records up to which the witness is re-summed by floatsum.float_sum


def _expand(runs, dtype=None):
    values = [v for v, c in runs for _ in range(c)]
    return values if dtype is None else np.array([float(v) for v in values], dtype=dtype)


def _model_value(model, fmt, runs) -> Fraction:
    """The model's stored result on the witness: the reference implementation on the
    expanded data when it is small, the (bit-exact, tested) run-length simulator else."""
    if sum(c for _, c in runs) <= REFERENCE_LIMIT:
        return float_sum(_expand(runs), model, fmt)
    g = Grid(format_named(fmt))
    return g.value(simulate(model, g, tuple((g.units(v), c) for v, c in runs)))


def _lanes_ctx(fmt, max_n, hi=1, lo=0, neighbors="add-remove", d_in=1):
    g = Grid(format_named(fmt))
    return Context(model="pairwise", grid=g, lo=g.units(Fraction(lo)), hi=g.units(Fraction(hi)),
                   max_n=max_n, neighbors=neighbors, d_in=d_in, claim_units=Fraction(0),
                   budget=10**6, allow_reorder=True), g


# -- the eight-accumulator construction: exactly 256 spacings of B per block ---------------------

@pytest.mark.parametrize("fmt,p", [("float32", 24), ("float64", 53)])
@pytest.mark.parametrize("blocks", [1, 2, 64, 1024])
def test_lanes_move_the_pairwise_sum_by_256_spacings_per_block(fmt, p, blocks):
    ctx, g = _lanes_ctx(fmt, 128 * blocks + 1)
    cand = next(iter(lanes(ctx)))  # the first: K blocks, 8 copies of B = 1 per accumulator
    assert cand.shared_order is False
    assert f"({blocks:,} block{'s' if blocks > 1 else ''} of 128, 8 B=0x1.0000000000000p+0" in cand.construction
    x, y = [tuple((g.value(v), c) for v, c in r) for r in (cand.x, cand.x_prime)]
    w = Fraction(1, 2 ** (p - 3))  # half a spacing of 8 B = 8: 4 spacings of 1
    assert x == ((Fraction(1), 64), (w, 64)) * blocks
    assert y == ((w, 64), (Fraction(1), 64)) * (blocks - 1) + ((w, 64), (Fraction(1), 65))
    assert sorted(_expand(x) + [Fraction(1)]) == sorted(_expand(y))  # the same records, reordered
    fx, fy = _model_value("pairwise", fmt, x), _model_value("pairwise", fmt, y)
    assert fx == 64 * blocks  # every w absorbed
    assert fy - fx == 1 + 256 * blocks * Fraction(1, 2 ** (p - 1))  # the record + 256 spacings per block
    if blocks <= 64:  # NumPy agrees bit for bit
        dtype = np.float32 if fmt == "float32" else np.float64
        assert Fraction(float(np.sum(_expand(x, dtype)))) == fx
        assert Fraction(float(np.sum(_expand(y, dtype)))) == fy


def test_lanes_need_reordering_pairwise_and_room():
    ctx, _ = _lanes_ctx("float64", 1000)
    assert list(lanes(ctx))
    assert list(lanes(dataclasses.replace(ctx, allow_reorder=False))) == []
    assert list(lanes(dataclasses.replace(ctx, model="sequential"))) == []
    assert list(lanes(dataclasses.replace(ctx, max_n=16))) == []  # 15 records to spare: no block
    small = list(lanes(dataclasses.replace(ctx, max_n=100)))
    assert small and all("1 block of 96" in c.construction for c in small)
    huge = next(iter(lanes(dataclasses.replace(ctx, max_n=10**12))))
    assert f"{MAX_LANE_BLOCKS:,} blocks of 128" in huge.construction


def test_lanes_under_substitution_and_mirrored_bounds():
    r = search_float_witness("pairwise", "float32", (-1, 0), 10_000, 1, neighbors="substitute",
                             maximize=True, budget=300)
    w = r.witness
    assert r.verdict is FloatVerdict.VIOLATED and "eight accumulators" in w.construction
    assert "(mirrored)" in w.construction
    assert w.exact_difference == 1 + Fraction(1, 512)
    assert w.fx_prime - w.fx == -(1 + Fraction(1, 512))
    assert _model_value("pairwise", "float32", w.x) == w.fx
    assert _model_value("pairwise", "float32", w.x_prime) == w.fx_prime


# -- maximize: the largest violation in the budget, with its witness -------------------------------

def test_maximize_float32_pairwise_exact_witness():
    r = search_float_witness("pairwise", "float32", (0, 1), 10_000, 1, maximize=True, budget=300)
    assert r.verdict is FloatVerdict.VIOLATED and r.maximize and r.evaluations == 300
    w = r.witness
    assert w.exact_difference == Fraction(513, 512) and w.shared_order is False
    assert w.construction == ("eight accumulators reordered (64 blocks of 128, 8 B=0x1.0000000000000p+0 "
                              "per accumulator first vs w=0x1.0000000000000p-21 first)")
    assert w.fx == 4096 and w.fx_prime == 4096 + Fraction(513, 512)
    assert w.sizes == (8192, 8193)
    x, y = _expand(w.x, np.float32), _expand(w.x_prime, np.float32)
    assert Fraction(float(np.sum(x))) == w.fx and Fraction(float(np.sum(y))) == w.fx_prime
    assert r.first.exact_difference == Fraction(16777221, 16777216) <= w.exact_difference
    assert r.largest == w
    d = r.to_dict()
    assert d["maximize"] is True and d["first_difference"] == "16777221/16777216"
    assert d["witness"]["exact_difference"] == "513/512"
    assert "(the largest violation found in 300 evaluations; the first was 16777221/16777216)" in r.message
    assert r.scope().endswith("300 of budget=300 evaluations used, maximizing")


@pytest.mark.parametrize("model,fmt,bounds,max_n,same_order", [
    ("sequential", "float32", (0, 1), 10_000, True),
    ("sequential", "float64", (-1, 1), 1_000, False),
    ("pairwise", "float64", (0, 1), 1_000, False),
    ("pairwise", "float32", (0, 1), 300, True),
    ("kahan", "float32", (0, 1), 1_000, True),
    ("neumaier", "float64", (0, 1), 1_000, False),
    ("fsum", "float64", (0, 1), 100, True),
    ("sorted", "float32", (0, 1), 1_000, False),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_maximized_violation_is_at_least_the_first_and_is_the_models_value(
        model, fmt, bounds, max_n, same_order, seed):
    claim = max(abs(b) for b in bounds)
    kw = dict(budget=120, seed=seed, same_order=same_order)
    plain = search_float_witness(model, fmt, bounds, max_n, claim, **kw)
    best = search_float_witness(model, fmt, bounds, max_n, claim, maximize=True, **kw)
    assert plain.violated and best.violated and not plain.maximize
    assert best.evaluations == 120 >= plain.evaluations
    # the same search up to the first violation: the same first witness
    assert best.first == plain.first
    assert best.witness.exact_difference >= best.first.exact_difference > claim
    assert best.witness.exact_difference >= plain.witness.exact_difference
    w = best.witness
    fx, fy = _model_value(model, fmt, w.x), _model_value(model, fmt, w.x_prime)
    assert (fx, fy) == (w.fx, w.fx_prime)
    assert abs(fy - fx) == w.exact_difference
    nx, ny = w.sizes
    assert max(nx, ny) <= max_n and abs(nx - ny) == 1
    if same_order:
        assert w.shared_order


def test_maximize_without_a_violation_is_not_found_with_the_largest_seen():
    r = search_float_witness("fsum", "float64", (0, 1), 100, 2, maximize=True, budget=50)
    assert r.verdict is FloatVerdict.NOT_FOUND and r.witness is None and r.first is None
    assert r.evaluations == 50 and r.largest.exact_difference <= 2
    assert r.to_dict()["first_difference"] is None


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_maximize_must_be_a_bool(bad):
    with pytest.raises(InvalidArgument, match=f"maximize={bad!r} is not a bool"):
        search_float_witness("sequential", "float32", (0, 1), 10, 1, maximize=bad)


# -- the CLI -----------------------------------------------------------------------------------

def test_cli_maximize_json(capsys):
    code = main(["floatsum", "--model", "pairwise", "--dtype", "float32", "--bounds", "0,1",
                 "--max-n", "10000", "--maximize", "--budget", "300", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["verdict"] == "violated" and d["maximize"] is True
    assert d["first_difference"] == "16777221/16777216"
    assert d["witness"]["exact_difference"] == "513/512"
    assert d["witness"]["fx"] == "0x1.0000000000000p+12" and d["witness"]["fx_prime"] == "0x1.0010080000000p+12"
    assert d["witness"]["x"][:2] == [["0x1.0000000000000p+0", 64], ["0x1.0000000000000p-21", 64]]


def test_cli_maximize_text_and_default_unchanged(capsys):
    argv = ["floatsum", "--model", "pairwise", "--dtype", "float32", "--bounds", "0,1",
            "--max-n", "10000", "--budget", "300"]
    assert main([*argv, "--maximize"]) == 1
    out = capsys.readouterr().out
    assert ("VIOLATED: the pairwise sum in float32 moves by 513/512 > claim 1 between neighbouring "
            "datasets (the largest violation found in 300 evaluations; the first was 16777221/16777216)") in out
    assert "|f(x') - f(x)| = 513/512 (~1.001953125); found by: eight accumulators reordered" in out
    assert main([*argv, "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    # without --maximize: the largest pair of the constructions that stopped the search
    assert "maximize" not in d and d["witness"]["exact_difference"] == "2049/2048"


def test_bounds_as_floats_when_asked():
    with pytest.raises(Exception, match="U=0.1 is a float"):
        search_float_witness("sequential", "float64", (0, 0.1), 100, "0.1", budget=5)
    r = search_float_witness("sequential", "float64", (0, 0.1), 100, 0.1, budget=20, floats="binary")
    tenth = Fraction(3602879701896397, 36028797018963968)
    assert r.bounds == (0, tenth) and r.claim == tenth
    with pytest.raises(InvalidArgument, match="floats='octal' is not 'decimal' or 'binary'"):
        search_float_witness("sequential", "float64", (0, 1), 100, 1, floats="octal")
