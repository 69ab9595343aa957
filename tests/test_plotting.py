"""exactdp.plotting and ``exactdp sensitivity`` with several --query: the figures are
written, and the data they show is the exact data."""

import json
from fractions import Fraction

import pytest
import sympy

pytest.importorskip("matplotlib")

from exactdp import IntegerRange, Multisets, SubMultisets, sensitivity_curve
from exactdp.cli import main
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.mechanisms import Distribution, account, make_mechanism
from exactdp.mechanisms.calibration.utility import error_table
from exactdp.numeric.decide import compare
from exactdp.plotting import (
    PlotData, composition, plot_error_vs_epsilon, plot_privacy_profile, plot_sensitivity_curves,
    privacy_profile,
)
from exactdp.registry.seed004 import typical_sensitivities

PNG = b"\x89PNG\r\n\x1a\n"
SPACE = Multisets(IntegerRange(0, 4), sizes=(1, 3))


@pytest.fixture(scope="module")
def curves():
    return {q: sensitivity_curve(q, SPACE, "add-remove", (1, 2, 3)) for q in ("mean", "sum", "std")}


def is_png(path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == PNG and path.stat().st_size > 1000


# -- sensitivity curves ----------------------------------------------------------------

def test_overlay_draws_the_exact_sensitivities(tmp_path, curves):
    out = tmp_path / "overlay.png"
    data = plot_sensitivity_curves(curves, str(out))
    assert is_png(out) and data.path == str(out)
    assert data.labels() == ["mean", "sum", "std"] and data.panels() == [""]
    assert data["sum"].x == (1, 2, 3) and data["sum"].y == (4, 8, 8)
    for label, curve in curves.items():
        assert data[label].y == tuple(r.value for r in curve.results)
    assert data["mean"].y == (Fraction(2), Fraction(4), Fraction(4))


def test_grid_has_one_panel_per_curve_and_nested_panels(tmp_path, curves):
    data = plot_sensitivity_curves(curves, str(tmp_path / "grid.png"), layout="grid", columns=2)
    assert data.panels() == ["mean", "sum", "std"]
    nested = {"centre": {"mean": curves["mean"], "std": curves["std"]}, "total": {"sum": curves["sum"]}}
    data = plot_sensitivity_curves(nested, str(tmp_path / "nested.svg"))
    assert (tmp_path / "nested.svg").read_text().lstrip().startswith("<?xml")
    assert data.panels() == ["centre", "total"]
    assert [s.panel for s in data.series] == ["centre", "centre", "total"]
    assert data["std"].y == (2, 2, 2) and data["centre", "std"] is data["std"]
    with pytest.raises(KeyError):
        data["total", "std"]


def test_irrational_values_are_kept_exact_and_bracketed_when_drawn(tmp_path):
    pool = SubMultisets([1, 2, 2, 2, 5, 5, 7, 8, 9, 9], size=6)  # seed 003's school years
    pool_curve = sensitivity_curve("std", pool, "substitute", (1, 2))
    data = plot_sensitivity_curves([pool_curve], str(tmp_path / "std.png"))
    series = data["std"]
    assert series.y == tuple(r.value for r in pool_curve.results)
    assert series.y[0] == (sympy.sqrt(273) - sympy.sqrt(89)) / 6  # square roots, not floats
    xs, ys, lows, highs = series.drawn()
    for exact, lo, y, hi in zip(series.y, lows, ys, highs):
        assert compare(Fraction(lo), exact) <= 0 <= compare(Fraction(hi), exact)
        assert lo <= y <= hi


# -- privacy profiles -------------------------------------------------------------------

def test_privacy_profile_exact_values_and_certified_bands(tmp_path):
    rr = make_mechanism("randomized-response", p="3/4")
    P, Q = Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"})
    out = tmp_path / "profile.png"
    data = plot_privacy_profile({"rr": (rr, 0, 1), "pair": (P, Q)}, str(out), [0, "1/2", sympy.log(3), 2])
    assert is_png(out)
    half = sympy.Rational(3, 4) - sympy.exp(sympy.Rational(1, 2)) / 4
    assert data["rr"].y == (Fraction(1, 2), half, 0, 0)
    assert data["pair"].y == data["rr"].y            # the same pair of distributions
    assert data["rr"].x[2] == sympy.log(3)

    eps = [0, "1/4", "1/2", 1]
    data = plot_privacy_profile({"dlap x3": composition("discrete-laplace", 3, params={"scale": 2})},
                                str(tmp_path / "band.png"), eps)
    band = data["dlap x3"]
    assert not band.exact and band.y[-1] is None or band.y[-1] == 0
    for e, lo, hi in zip(eps, band.lower, band.upper):
        r = account("discrete-laplace", 3, epsilon=e, params={"scale": 2}, width="1e-6")
        assert (lo, hi) == (r.delta_lower, r.delta_upper) and lo <= hi
    # one composition of discrete Laplace: the band encloses the mechanism's exact delta
    one = privacy_profile({"acc": composition("discrete-laplace", 1, params={"scale": 2}),
                           "exact": (make_mechanism("discrete-laplace", scale=2), 0, 1)}, [0, "1/4"])
    assert one.path is None
    for exact, lo, hi in zip(one["exact"].y, one["acc"].lower, one["acc"].upper):
        assert compare(lo, exact) <= 0 <= compare(hi, exact)


def test_function_sources_and_log_axis(tmp_path):
    data = plot_privacy_profile({"f": lambda e: Fraction(1, 2) / (1 + e),
                                 "band": lambda e: (Fraction(1, 10), Fraction(1, 5))},
                                str(tmp_path / "f.pdf"), [0, 1], log_delta=True)
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"
    assert data["f"].y == (Fraction(1, 2), Fraction(1, 4))
    assert data["band"].points() == [(0, (Fraction(1, 10), Fraction(1, 5))), (1, (Fraction(1, 10), Fraction(1, 5)))]


# -- error against epsilon --------------------------------------------------------------

def test_error_vs_epsilon_is_error_table(tmp_path):
    out = tmp_path / "error.png"
    data = plot_error_vs_epsilon(str(out), ["1/10", 1, 10], typical_sensitivities(), n=50)
    assert is_png(out)
    table = error_table(["1/10", 1, 10], typical_sensitivities(), n=50)
    assert data.labels() == list(table.sensitivities)
    for s in data.series:
        rows = [r for r in table.rows if r[0] == s.label]
        assert s.x == (Fraction(1, 10), Fraction(1), Fraction(10))
        assert s.y == tuple(r[2] for r in rows)
        assert s.lower == tuple(r[3] for r in rows) and s.upper == tuple(r[4] for r in rows)
    again = plot_error_vs_epsilon(str(tmp_path / "again.png"), table=table)
    assert again.series == data.series


# -- the target is checked before any computation ----------------------------------------

def test_bad_target_refused_before_computing(tmp_path):
    calls = []

    def source(e):
        calls.append(e)
        return Fraction(0)
    for path in (str(tmp_path / "nowhere" / "x.png"), str(tmp_path / "x.jpg"), ""):
        with pytest.raises(InvalidArgument):
            plot_privacy_profile({"s": source}, path, [0, 1])
        with pytest.raises(InvalidArgument):
            plot_error_vs_epsilon(path, [1], n=10)
    assert calls == []


BAD = [
    (lambda p, c: plot_sensitivity_curves([], p), "empty"),
    (lambda p, c: plot_sensitivity_curves({}, p), "empty"),
    (lambda p, c: plot_sensitivity_curves(["mean"], p), "not a SensitivityCurve"),
    (lambda p, c: plot_sensitivity_curves(c, p, layout="stacked"), "layout"),
    (lambda p, c: plot_sensitivity_curves({"a": {"m": c["mean"]}}, p, layout="overlay"), "nested"),
    (lambda p, c: plot_sensitivity_curves({"a": {"m": c["mean"]}, "b": c["sum"]}, p), "mixes"),
    (lambda p, c: plot_sensitivity_curves(c, p, layout="grid", columns=0), "columns"),
    (lambda p, c: plot_privacy_profile({"s": ("not", "a", "source")}, p, [0]), "not a privacy-profile source"),
    (lambda p, c: plot_privacy_profile({"s": lambda e: 0.5}, p, [0]), "float"),
    (lambda p, c: plot_privacy_profile({"s": lambda e: (1, 0)}, p, [0]), "upper"),
    (lambda p, c: plot_privacy_profile({"s": lambda e: 0}, p, [-1]), "negative"),
    (lambda p, c: plot_privacy_profile({"s": lambda e: 0}, p, [0.5]), "float"),
    (lambda p, c: plot_privacy_profile({"s": lambda e: 0}, p, []), "empty"),
    (lambda p, c: plot_privacy_profile({}, p, [0]), "non-empty"),
    (lambda p, c: plot_error_vs_epsilon(p, [1], table="t"), "ErrorTable"),
]


@pytest.mark.parametrize("call, message", BAD, ids=[f"{i}-{m}" for i, (_, m) in enumerate(BAD)])
def test_invalid_arguments(tmp_path, curves, call, message):
    with pytest.raises(ExactDPError, match=message):  # InvalidArgument, or InexactInput for a float
        call(str(tmp_path / "bad.png"), curves)
    assert not (tmp_path / "bad.png").exists()


def test_plot_data_lookup_and_display(tmp_path, curves):
    data = PlotData(None, ())
    with pytest.raises(KeyError):
        data["missing"]
    assert data._repr_png_() is None                       # nothing drawn, nothing shown
    out = tmp_path / "shown.png"
    drawn = plot_sensitivity_curves(curves, str(out))
    assert drawn._repr_png_() == out.read_bytes()          # Jupyter displays the figure
    assert "sum\n           1  4" in drawn.table()


# -- exactdp sensitivity with several --query ----------------------------------------------

ARGS = ["sensitivity", "--universe", "0..4", "--sizes", "1..3"]


def test_cli_several_queries_share_one_figure(tmp_path, capsys):
    out = tmp_path / "many.png"
    code = main(ARGS + ["--query", "mean", "--query", "sum", "--query", "std", "--d-in", "1..3",
                        "--plot", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and is_png(out)
    assert text.count(" over multisets of size 1..3 over {0..4}") == 3
    assert "sum over" in text and "std over" in text and text.rstrip().endswith(f"plot written to {out}")
    assert text.count("plot written") == 1


def test_cli_several_queries_without_plot_print_each(capsys):
    code = main(ARGS + ["--query", "mean", "--query", "sum", "--claim", "U-L", "--json"])
    objs = json.loads(capsys.readouterr().out)
    assert [o["query"] for o in objs] == ["mean", "sum"]
    assert [o["sensitivity"] for o in objs] == ["2", "4"]
    assert [o["verdict"] for o in objs] == ["holds", "holds-tight"]
    assert code == 0
    code = main(ARGS + ["--query", "mean", "--query", "sum", "--d-in", "2", "--claim", "U-L"])
    text = capsys.readouterr().out
    assert code == 1 and "VIOLATED" in text and "HOLDS" in text  # the worst of the two


def test_cli_single_query_output_unchanged(capsys, tmp_path):
    code = main(ARGS + ["--query", "sum", "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0 and isinstance(obj, dict) and obj["sensitivity"] == "4"
    out = tmp_path / "one.png"
    assert main(ARGS + ["--query", "sum", "--d-in", "1..2", "--plot", str(out)]) == 0
    assert is_png(out) and capsys.readouterr().out.rstrip().endswith(f"plot written to {out}")


@pytest.mark.parametrize("extra, message", [
    (["--query", "mean", "--query", "bogus"], "bogus"),
    (["--query", "mean", "--query", "sum", "--claim", "Q+1"], "Q"),
    (["--query", "mean", "--query", "sum", "--local", "1,2", "--plot", "x.png"], "--local"),
    (["--query", "mean", "--query", "sum", "--plot", "/no/such/folder/x.png"], "does not exist"),
    (["--query", "sum", "--query", "mean", "--sizes", "0..3"], "undefined"),  # found in the 2nd
])
def test_cli_several_queries_refused_before_any_output(capsys, extra, message):
    assert main(ARGS + extra) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1


def test_a_privacy_curve_is_a_profile_source():
    """A PrivacyCurve (what ``composition`` now returns) draws its certified band, each epsilon
    answered from the one composition it keeps: the same enclosures as ``account``."""
    from exactdp.mechanisms.accounting.curve import PrivacyCurve

    params = {"sigma": 1, "sampling": "poisson", "rate": "1/100"}
    curve = PrivacyCurve("gaussian", 10, params=params, width="1e-3")
    data = privacy_profile({"dp-sgd": curve}, ["1/2", 1])
    band = data["dp-sgd"]
    assert curve.queries == 2 and not band.exact
    for e, lo, hi in zip(["1/2", 1], band.lower, band.upper):
        r = account("gaussian", 10, epsilon=e, params=params, width="1e-3")
        assert (lo, hi) == (r.delta_lower, r.delta_upper) and 0 < lo <= hi
    assert isinstance(composition("discrete-laplace", 3, params={"scale": 2}), PrivacyCurve)
