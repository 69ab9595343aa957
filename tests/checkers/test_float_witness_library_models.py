"""The float-witness search on library summation models (``opendp-pairwise``)."""

import json
import random
from fractions import Fraction

import pytest

from exactdp.checkers._float_sim import Grid, simulate
from exactdp.checkers.float_witness import SEARCH_MODELS, search_float_witness
from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.numeric.floatformat import FloatFormat, format_named
from exactdp.numeric.floatsum import LIBRARY_MODELS, MODEL_NAMES, float_sum

B52 = Fraction(2**52)


def test_search_models_are_the_models_and_the_library_models():
    assert SEARCH_MODELS == MODEL_NAMES + tuple(LIBRARY_MODELS)
    assert "opendp-pairwise" in SEARCH_MODELS


@pytest.mark.parametrize("fmt", ["float64", "float32", FloatFormat.toy(precision=4, emin=-3, emax=6)])
def test_run_length_simulator_matches_float_sum(fmt):
    g = Grid(format_named(fmt))
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        runs = [(g.round(rng.choice((1, -1)) * rng.randint(0, 1 << (g.p + rng.randint(0, 5)))),
                 rng.choice((1, 2, 3, 7, 8, 33))) for _ in range(rng.randint(1, 4))]
        values = [g.value(v) for v, c in runs for _ in range(c)]
        try:
            expected = float_sum(values, "opendp-pairwise", fmt)
        except ArithmeticError:
            continue
        assert g.value(simulate("opendp-pairwise", g, runs)) == expected, runs
        checked += 1
    assert checked > 20


def test_spine_witness_at_offset_bounds():
    r = search_float_witness("opendp-pairwise", "float64", (2**52, 2**52 + 1), 16, 1,
                             neighbors="substitute", maximize=True, budget=60)
    w = r.witness
    assert r.verdict.value == "violated" and w.exact_difference == 16  # the largest over n <= 16
    assert w.x == ((B52 + 1, 15), (B52, 1)) and w.x_prime == ((B52 + 1, 16),)
    assert (w.fx, w.fx_prime) == (16 * B52, 16 * B52 + 16)
    assert w.construction == "halving-tree spine (2^4 records, v=0x1.0000000000001p+52)"
    x, xp = w.expand()
    assert (float_sum(x, "opendp-pairwise"), float_sum(xp, "opendp-pairwise")) == (w.fx, w.fx_prime)


def test_reordered_tie_pattern_gains_two_spacings_per_record():
    r = search_float_witness("opendp-pairwise", "float64", (8, 10), 65, 2,
                             neighbors="substitute", maximize=True, budget=60)
    w = r.witness
    # 64 records in the tie pattern: 2 u per record, u = ulp(8) = 2**-49, plus U - L = 2
    assert w.exact_difference == 2 + Fraction(128, 2**49)
    assert w.construction == "halving-tree ties reordered (1 x 8 runs of 8, B=0x1.0000000000000p+3)"
    assert not w.shared_order and w.sizes == (65, 65)
    x, xp = w.expand()
    assert abs(float_sum(xp, "opendp-pairwise") - float_sum(x, "opendp-pairwise")) == w.exact_difference


def test_same_order_only_finds_no_reordering():
    r = search_float_witness("opendp-pairwise", "float64", (8, 10), 65, 2, neighbors="substitute",
                             same_order=True, maximize=True, budget=60)
    assert r.verdict.value == "not-found" and r.largest.shared_order
    assert r.largest.exact_difference == 2


def test_bad_model_names_every_accepted_model():
    with pytest.raises(InvalidArgument) as e:
        search_float_witness("numpy", "float64", (0, 1), 10, 1)
    assert str(e.value) == ("model='numpy' is not a summation model; pass one of sequential, pairwise, "
                            "kahan, neumaier, fsum, sorted, sorted-magnitude, opendp-pairwise")


def test_cli_takes_opendp_pairwise(capsys):
    rc = main(["floatsum", "--model", "opendp-pairwise", "--bounds", "0x1p+52,0x1.0000000000001p+52",
               "--max-n", "16", "--neighbors", "substitute", "--claim", "1", "--maximize",
               "--budget", "60", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "violated" and out["model"] == "opendp-pairwise"
    assert out["witness"]["exact_difference"] == "16"
    assert out["witness"]["x_prime"] == [["0x1.0000000000001p+52", 16]]


def test_cli_bad_model_lists_every_model(capsys):
    assert main(["floatsum", "--model", "nope", "--bounds", "0,1", "--max-n", "10"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("pass one of sequential, pairwise, kahan, neumaier, fsum, sorted, "
                                "sorted-magnitude, opendp-pairwise")
