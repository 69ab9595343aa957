"""Every MyST notebook in docs/ runs cell by cell, as Jupyter would run it.

Each code cell is executed in order in one namespace; where a cell ends with an
expression (what Jupyter displays), its value is rendered as Jupyter would render it:
``_repr_latex_()`` for exactdp objects that have it and ``sympy.latex`` for SymPy
expressions must return a string, and a figure's ``_repr_png_()`` a PNG. Figures go to a
temporary folder (the notebooks read ``EXACTDP_FIGURES``). Each notebook then has its own
check of the values it printed or computed (``CHECKS``); a notebook that needs optional
libraries is skipped with the reason when they are missing (``REQUIRES``).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from fractions import Fraction
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
CELL = re.compile(r"^```\{code-cell\} ipython3\n(.*?)^```$", re.S | re.M)
NOTEBOOKS = sorted(p for p in DOCS.glob("*.md")  # MyST notebooks, not plain pages such as tumult-environment.md
                   if p.read_text(encoding="utf-8").startswith("---\njupytext:"))

REQUIRES = {"audit-libraries.md": ("opendp", "diffprivlib"), "accounting-dpsgd.md": ("matplotlib",)}
"""Notebooks that run only with optional libraries (the test is skipped, naming them)."""


def cells(path: Path) -> list[str]:
    return CELL.findall(path.read_text(encoding="utf-8"))


def render(value, where: str) -> str | None:
    """What Jupyter would show for a cell's last value, checked to render."""
    import sympy

    if value is None:
        return None
    latex = getattr(value, "_repr_latex_", None)
    if callable(latex) and not isinstance(value, type):
        text = latex()
        assert isinstance(text, str) and text, f"{where}: _repr_latex_() returned {text!r}"
        return text
    if isinstance(value, sympy.Basic):
        text = sympy.latex(value)
        assert isinstance(text, str) and text, f"{where}: sympy.latex returned {text!r}"
        return text
    png = getattr(value, "_repr_png_", None)  # a figure (exactdp.plotting.PlotData)
    if callable(png) and not isinstance(value, type):
        data = png()
        assert data is None or data[:8] == b"\x89PNG\r\n\x1a\n", f"{where}: _repr_png_() is not a PNG"
        return None
    if isinstance(value, tuple):
        for item in value:
            render(item, where)
    return None


def run_notebook(path: Path, figures: Path) -> tuple[dict, list]:
    """Run every cell; returns the namespace and each cell's displayed value."""
    namespace: dict = {"__name__": "__notebook__"}
    shown = []
    for i, source in enumerate(cells(path)):
        where = f"{path.name}, cell {i + 1}"
        tree = ast.parse(source, where)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        try:
            exec(compile(tree, where, "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), where, "eval"), namespace) if last else None
        except Exception as e:  # pragma: no cover - the message says which cell failed
            pytest.fail(f"{where} raised {e!r}:\n{source}")
        render(value, where)
        shown.append(value)
    return namespace, shown


def _corrections_as_expected(ns: dict, out: str, ids: int) -> None:
    """The notebook's cell of built-in claims ran each one and found what it expects."""
    corrections, seed_claims = ns["corrections"], ns["seed_claims"]
    assert len(corrections) == ids
    assert all(seed_claims[id_].meets_expectation(r) for id_, r in corrections.items())
    assert all(f" {id_}: " in out for id_ in corrections)


# -- what each notebook must have shown ------------------------------------------------

def check_explore_catalogue(out: str, ns: dict, shown: list, figures: Path) -> None:
    assert "VIOLATED" in out and "s002/table/sum/LU" in out
    assert "SpaceMismatch" not in out and "sum" in out
    # the table cell printed one line per cell of seed 002's table (12 cells, plus variants)
    assert sum(line.startswith("s002/table/") for line in out.splitlines()) >= 12
    assert ns["bound"].map(2) == 6


def check_seed003(out: str, ns: dict, shown: list, figures: Path) -> None:
    import sympy

    assert ns["grid_data"] in shown      # the figure cell ends with it: Jupyter shows the PNG
    assert (figures / "seed003-sensitivity-vs-k.png").is_file()
    grid = ns["grid_data"]
    assert len(grid.panels()) == 10
    # scenario (a), school years: the exact std at k = 1 in both modes
    assert grid["std", "bounded"].y[0] == (sympy.sqrt(273) - sympy.sqrt(89)) / 6
    assert grid["count", "unbounded"].y == (1, 2, 3, 4)
    assert grid["count", "bounded"].y == (0, 0, 0, 0)
    assert ns["agree"] == ns["checked"] > 100 and ns["below"] > 0
    assert "2.833333333333333" in out and "17/6" in out
    _corrections_as_expected(ns, out, 3)
    assert ns["corrections"]["s003/limitations/count-bounded"].data["bounded"] == "0"
    assert "adding records only gives 2" in out and "removing only gives 6" in out


def check_seed000(out: str, ns: dict, shown: list, figures: Path) -> None:
    assert "add/remove: 1\n" in out and "one record changed, size known: 0\n" in out
    verdicts = ns["verdicts"]
    assert verdicts == {"L=0": "holds-tight", "L>0": "violated", "L<0<U": "holds", "U<0": "violated"}
    w = ns["witness_sum"].sensitivity
    assert w.value == 10 and w.witness.x == () and w.witness.x_prime == (10,)
    assert "d_in*Max(Abs(L), Abs(U))" in out
    assert ns["ledger"].spent()["epsilon"] == 1 and "1.0000000000000007" in out and "refused: spend #101" in out
    assert [ns["sweep_data"][f"clip [0, {u}]"].y for u in (3, 12)] == [(3, 6, 9), (12, 24, 36)]
    assert (figures / "seed000-clip-sweep.png").is_file()
    assert ns["float_gap"] == 0 and "0.30000000000000004" in out
    assert shown[-1] == Fraction(3602879701896397, 36028797018963968)  # from_float(0.1)
    _corrections_as_expected(ns, out, 10)
    assert ns["corrections"]["s000/average/post-processing-budget"].data["budget"] == "1"


def check_seed001(out: str, ns: dict, shown: list, figures: Path) -> None:
    import sympy

    assert ns["flat"].value == 3 and ns["public"].value == 2
    for line in ("DropExcess(2), DropExcess(2)   formula 8  exact 8",
                 "DropNonUnique, DropExcess(2)   formula 4  exact 4",
                 "DropExcess(1), DropExcess(2)   formula 6  exact 6"):
        assert line in out
    assert ns["users_join"] == 4 and ns["tumult_formula"] == 8
    assert ns["l1"].value == 4 and ns["l2"].value == 2 * sympy.sqrt(2)
    assert ns["checks"]["s001/private-join/docstring-swapped"].published_verdict.value == "violated"
    assert all(c.ok for c in ns["checks"].values())
    assert "formula 8 vs exact 10" in out
    _corrections_as_expected(ns, out, 3)
    assert "the Gaussian's (L2) sensitivity is 2*sqrt(3) and the Laplace's (L1) is 6" in out
    assert ns["corrections"]["s001/add-rows-with-id/truncation"].data["max_rows_per_id"]["4"] == 4


def check_seed002(out: str, ns: dict, shown: list, figures: Path) -> None:
    assert sum(line.startswith("s002/table/") for line in out.splitlines()) >= 12
    assert all(c.ok for c in ns["checks"])
    assert any(c.published_verdict is not None and c.published_verdict.value == "holds-on-grid"
               and not c.published_tight for c in ns["checks"])  # the population variance's cell: loose
    assert "holds-tight" not in out  # the catalogue's evidence is bit-exact-grid
    assert ns["bounded_sum_d3"] == 4 and ns["formula_d3"] == 6
    fig = ns["figure"]
    assert fig["sum", "L, U, N"].y == (0, 4, 4, 8) and fig["sum", "L, U"].y == (4, 8, 8, 12)
    assert fig["count", "L, U, N"].y == (0, 0, 0, 0)
    assert (figures / "seed002-table-d-in.png").is_file()
    assert "s002/quantile-score/formula/substitute       violated" in out
    _corrections_as_expected(ns, out, 8)
    assert "gives (-3/2, 0, -3/2) but the Python -|#(x <= c) - alpha n| gives (-3/2, -3/2, -3/2)" in out
    assert ns["corrections"]["s002/bounded/edits-vs-add-remove"].data["witness"]["symmetric"] == 2


def check_floatsum(out: str, ns: dict, shown: list, figures: Path) -> None:
    r = ns["r"]
    assert r.verdict.value == "violated" and r.witness.exact_difference == 2
    assert "8191 8192 4096.0 4098.0 2" in out                    # NumPy re-computed it
    assert 1 < ns["bound"] and ns["np_agrees"] is True
    assert ns["exact_total"] != Fraction(sum(ns["values"]))      # the float sum is not the real one
    assert "fsum minus the real sum: 143/9007199254740992" in out
    assert shown[3] == Fraction(244140625, 549755813888)         # OpenDP's relaxation, exact
    assert "140737488355329/140737488355328" in out and out.rstrip().endswith("not-found")


def check_privacy(out: str, ns: dict, shown: list, figures: Path) -> None:
    import sympy

    assert ns["rr_check"].verdict.value == "holds-tight" and ns["rr_check"].epsilon == sympy.log(3)
    assert ns["rr_delta"].delta == sympy.Rational(3, 4) - sympy.E / 4
    assert ns["em_loss"].value == Fraction(1, 2) and ns["em_loss"].output == 2
    profile = ns["profile"]
    assert (figures / "privacy-profile.png").is_file() and (figures / "error-vs-epsilon.png").is_file()
    assert profile["randomized response p=3/4"].y[0] == Fraction(1, 2)
    assert profile["Laplace b=1"].y[8] == 0 and profile["Laplace b=1"].y[4] == 1 - sympy.exp(-sympy.Rational(1, 4))
    band = profile["10 x discrete Laplace t=10"]
    assert not band.exact and all(lo <= hi for lo, hi in zip(band.lower, band.upper))
    assert ns["acc"].check("19.3446").verdict == "violated" and ns["acc"].check("19.345").verdict == "holds"
    assert Fraction("19.3446714464") < ns["lo"] <= ns["hi"] < Fraction("19.3446714613")
    assert [ns["errors"].labels()[0]] == ["E[Delta f]"] and "0.6051" in out


def check_seed004(out: str, ns: dict, shown: list, figures: Path) -> None:
    import sympy

    assert ns["mixture"].variance == Fraction(877, 8) and ns["mixture"].sigma == sympy.sqrt(1754) / 4
    assert "E[Delta f]             in [11.99, 12.00] cm" in out
    assert "E[Delta f] + sigma     true epsilon = [13.35, 13.36] x epsilon" in out
    assert "E[Delta f] + 2 sigma   true epsilon = [9.109, 9.110] x epsilon" in out
    assert (ns["plans"]["shfl"].m, ns["plans"]["diffpriv"].m) == (1325, 1305)
    assert ns["printed_output"].verdict == "plausible" and ns["printed_mean"].verdict == "plausible"
    assert "P(X <= 47.38) in [0.7128, 0.7129]" in out
    figure = ns["heights_figure"]
    assert figure.figure is not None and figure.labels() == ["male", "female", "general"]
    assert figure["general"].y[170] == ns["mixture"].density(170)
    assert "density at 170 cm: [0.0292197, 0.0292198]" in out
    _corrections_as_expected(ns, out, 10)


def check_audit(out: str, ns: dict, shown: list, figures: Path) -> None:
    from exactdp.audits import suite

    results = ns["results"]
    assert {r.library for r in results} == set(ns["installed"]) == {"opendp", "diffprivlib"}
    assert {r.id for r in results} <= {i for ids in ns["SELECTION"].values() for i in ids}
    assert all(r.holding or r.verdict in ("violated", "undecided", "skipped", "error") for r in results)
    assert not [r.id for r in results if r.verdict in ("holds", "holds-tight") and r.evidence != "bit-exact"]
    for library in ("opendp", "diffprivlib"):
        assert f"{library}: {len(suite(library))} audits" in out
    assert all(r.version == ns["installed"][r.library] for r in results)


def check_accounting_dpsgd(out: str, ns: dict, shown: list, figures: Path) -> None:
    band = ns["band"]
    assert list(band) == [100, 1000, 10_000] and all(r.width_met for r in band.values())
    for line in ("k=   100: epsilon in [0.95275, 0.95527]", "k=  1000: epsilon in [2.11593, 2.12840]",
                 "k= 10000: epsilon in [6.87198, 6.92148]"):
        assert line in out
    assert (figures / "accounting-dpsgd.png").is_file()
    others = ns["others"]
    if importlib.util.find_spec("dp_accounting") is not None:
        assert others["dp_accounting RDP"][1000] == 2.4366938030221523 and "2.4367 above by 0.308" in out
        assert all(Fraction(v) > band[k].epsilon_upper for k, v in others["dp_accounting RDP"].items())
    if importlib.util.find_spec("prv_accountant") is not None:
        assert all(Fraction(v) > band[k].epsilon_upper for k, v in others["prv_accountant upper (0.1)"].items())
    if importlib.util.find_spec("opacus") is None:
        assert "Opacus: not installed; its accountants are skipped" in out and not ns["opacus_installed"]
    else:  # GDP, Opacus's CLT approximation, lies below the certified band at every k
        assert all(Fraction(v) < band[k].epsilon_lower for k, v in others["Opacus GDP (approximation)"].items())


CHECKS = {
    "explore-catalogue.md": check_explore_catalogue,
    "seed003-global-sensitivity.md": check_seed003,
    "seed000-clipping.md": check_seed000,
    "seed001-joins.md": check_seed001,
    "seed002-table.md": check_seed002,
    "seed004-sensitivity-sampler.md": check_seed004,
    "float-sums.md": check_floatsum,
    "privacy-accountant.md": check_privacy,
    "audit-libraries.md": check_audit,
    "accounting-dpsgd.md": check_accounting_dpsgd,
}


def test_every_notebook_has_a_check():
    assert {p.name for p in NOTEBOOKS} <= set(CHECKS), "add a check for each new notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_cells_run_in_order(path, tmp_path, monkeypatch, capsys):
    missing = [m for m in REQUIRES.get(path.name, ()) if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{path.name} needs {', '.join(missing)} (not installed)")
    assert len(cells(path)) >= 4
    monkeypatch.setenv("EXACTDP_FIGURES", str(tmp_path))
    namespace, shown = run_notebook(path, tmp_path)
    out = capsys.readouterr().out
    CHECKS[path.name](out, namespace, shown, tmp_path)


def test_last_expressions_render_as_latex():
    """The runner renders what Jupyter would display (and refuses a broken repr)."""
    import sympy

    class Broken:
        def _repr_latex_(self):
            return None

    assert r"\sqrt{2}" in render(sympy.sqrt(2), "x")
    assert render(None, "x") is None
    with pytest.raises(AssertionError, match="_repr_latex_"):
        render(Broken(), "x")


def test_audit_notebook_without_the_libraries(tmp_path, monkeypatch, capsys):
    """Without OpenDP and diffprivlib the audit notebook still runs: it lists the suites,
    says what is missing and audits nothing."""
    if any(importlib.util.find_spec(m) is not None for m in REQUIRES["audit-libraries.md"]):
        pytest.skip("a library is installed: the notebook's own test runs it")
    monkeypatch.setenv("EXACTDP_FIGURES", str(tmp_path))
    namespace, shown = run_notebook(DOCS / "audit-libraries.md", tmp_path)
    out = capsys.readouterr().out
    assert namespace["results"] == [] and namespace["installed"] == {}
    assert "opendp: not installed" in out and "pip install 'exactdp[diffprivlib]'" in out
    assert "opendp: " in out and " audits" in out
    assert shown[-1] == "no violation in this selection on the installed versions"
