"""``exactdp check CLAIMS.toml`` (exactdp/cli/check.py, exactdp/claimsfile.py) on the
sample project's claims file and on a table of bad files."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from exactdp import cli

SAMPLE = Path(__file__).resolve().parent / "sample_project"


@pytest.fixture
def main(monkeypatch: pytest.MonkeyPatch):
    """``exactdp.cli.main``, with ``sys.path`` and the sample project's modules restored after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m == "heights" or m.startswith("heights.")]:
        monkeypatch.delitem(sys.modules, name)
    return cli.main


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the sample project: its package and its claims file."""
    shutil.copytree(SAMPLE / "heights", tmp_path / "heights", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SAMPLE / "claims.toml", tmp_path / "claims.toml")
    return tmp_path


def test_sample_claims_file_passes(main, project, capsys):
    assert main(["check", str(project / "claims.toml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("ok   mean-substitute: clipped_mean: HOLDS, tight: claim (U - L)/N = 20 is attained by "
                      "x=[140, 200, 200], x'=[200, 200, 200]: f(x)=180, f(x')=200")
    assert out[4] == ("ok   total-u-minus-l (expected violated): clipped_total: VIOLATED: claim U - L = 60 "
                      "< sensitivity 200; witness x=[], x'=[200]: f(x)=0, f(x')=200")
    assert out[5].startswith("     scope: all 15 multisets of size 0..2 over {140, 150, 175, 200}; "
                             "SymmetricDistance <= 1 (add/remove)")
    assert out[-1] == "5 claim(s) checked, 5 as expected"


def test_sample_claims_file_json(main, project, capsys):
    assert main(["check", str(project / "claims.toml"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True
    got = {c["id"]: (c["verdict"], c["claim_value"], c["sensitivity"], c["expect"], c["passed"])
           for c in report["claims"]}
    assert got == {
        "mean-substitute": ("holds-tight", "20", "20", "holds", True),
        "total-add-remove": ("holds-tight", "200", "200", "holds", True),
        "total-u-minus-l": ("violated", "60", "200", "violated", True),
        "builtin-clipped-sum[clip=[2, 10]]": ("holds-tight", "10", "10", "holds", True),
        "builtin-clipped-sum[clip=[-3, 1], universe=-5..5]": ("holds-tight", "3", "3", "holds", True),
    }
    wrong = next(c for c in report["claims"] if c["id"] == "total-u-minus-l")
    assert wrong["witness"] == {"x": [], "x_prime": ["200"], "fx": "0", "fx_prime": "200", "distance": "200"}
    assert wrong["scope"]["pairs"] == 20


def test_violation_and_stale_regression_exit_1(main, project, capsys):
    text = (project / "claims.toml").read_text()
    (project / "wrong.toml").write_text(text.replace('expect = "violated"', ""))
    assert main(["check", str(project / "wrong.toml")]) == 1
    out = capsys.readouterr().out
    assert "FAIL total-u-minus-l: clipped_total: VIOLATED: claim U - L = 60 < sensitivity 200; " \
           "witness x=[], x'=[200]" in out
    assert out.splitlines()[-1] == "5 claim(s) checked, 4 as expected; not as expected: total-u-minus-l"
    (project / "stale.toml").write_text(text.replace('claim = "U"  ', 'claim = "U"\nexpect = "violated"'))
    assert main(["check", str(project / "stale.toml"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in report["claims"] if not c["passed"]] == ["total-add-remove"]


GOOD = """\
[[claim]]
id = "c"
function = "heights:clipped_total"
universe = [140, 200]
sizes = "0..2"
claim = "U"
"""

# (what is wrong, the file, the line, the field, words the message must hold)
BAD_FILES = [
    ("unknown field", GOOD.replace('claim = "U"', 'claim = "U"\nepsilon = 1'), 7, "epsilon", "unknown field"),
    ("missing claim", GOOD.replace('claim = "U"\n', ""), 1, "claim", "missing"),
    ("missing id", GOOD.replace('id = "c"\n', ""), 1, "id", "missing"),
    ("module does not import", GOOD.replace("heights:", "heightz:"), 3, "function", "cannot import 'heightz'"),
    ("no such function", GOOD.replace("clipped_total", "nope"), 3, "function", "has no 'nope'"),
    ("not a dotted path", GOOD.replace("heights:clipped_total", "heights.clipped_total"), 3, "function",
     "'package.module:callable'"),
    ("function returns a float", GOOD.replace("clipped_total", "float_mean").replace('"0..2"', '"1..2"'),
     3, "function", "return an int or a Fraction"),
    ("size and sizes", GOOD.replace("[140, 200]", "[140, 200]\nsize = 0"), 6, "sizes",
     "size and sizes both given"),
    ("TOML float", GOOD.replace("[140, 200]", "[140, 0.5]"), 4, "universe", "write it as a string ('0.5')"),
    ("bad formula", GOOD.replace('"U"', '"U +"'), 6, "claim", "claim"),
    ("N on a size range", GOOD.replace('"U"', '"U/N"'), 6, "claim", "uses N"),
    ("bad neighbors", GOOD + 'neighbors = "swap"\n', 7, "neighbors", "not a known relation"),
    ("bad expect", GOOD + 'expect = "fails"\n', 7, "expect", "'holds' or 'violated'"),
    ("bad grid field", GOOD + 'grid = [{id = "x"}]\n', 7, "grid", "not a field a grid can set"),
    ("no claims", "title = 'x'\n", None, "title", "unknown top-level key"),
    ("not TOML", GOOD + "claim = \n", 7, None, "not valid TOML"),
]


@pytest.mark.parametrize("what, text, line, field, words", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_exit_2_one_line(main, project, capsys, what, text, line, field, words):
    path = project / "bad.toml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    head = f"exactdp: error: {path}" + (f":{line}:" if line else ":")
    assert err.startswith(head), err
    if field:
        assert f"field {field!r}" in err, err
    assert words in err, err


def test_function_that_raises_names_the_fix(main, project, capsys):
    (project / "heights" / "broken.py").write_text("def first(xs):\n    return xs[0]\n")
    (project / "bad.toml").write_text(GOOD.replace("heights:clipped_total", "heights.broken:first"))
    assert main(["check", str(project / "bad.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exactdp: error: {project / 'bad.toml'}:3: claim #1 'c', field 'function': "
                          "the function raised IndexError: tuple index out of range; make it defined"), err
    assert "min_size" in err and err.count("\n") == 1


def test_budget_options(main, project, capsys):
    assert main(["check", str(project / "claims.toml"), "--max-datasets", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"exactdp: error: {project / 'claims.toml'}:8: claim #1 'mean-substitute', "
                          "field 'size': "), err
    assert "max_datasets=10" in err and "(--max-pairs/--max-datasets on the command line)" in err
