"""The command line: JSON schema, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest
import sympy

from exactdp.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sensitivity_json_schema(capsys):
    code, out, err = run(capsys, "sensitivity", "--query", "mean", "--universe", "0..7",
                         "--sizes", "1..3", "--json")
    assert code == 0
    obj = json.loads(out)
    assert {"query", "neighbors", "d_in", "sensitivity", "witness", "claim", "verdict", "pairs"} <= set(obj)
    assert obj["query"] == "mean" and obj["neighbors"] == "add-remove" and obj["d_in"] == 1
    assert obj["sensitivity"] == "7/2"
    assert sorted([obj["witness"]["x"], obj["witness"]["x_prime"]], key=len) == [["7"], ["0", "7"]]
    assert obj["claim"] is None and obj["verdict"] is None
    assert obj["pairs"] > 0


def test_irrational_sensitivity_is_a_sympy_string(capsys):
    code, out, _ = run(capsys, "sensitivity", "--query", "std", "--universe", "0..2", "--sizes", "3",
                       "--neighbors", "substitute", "--json")
    obj = json.loads(out)
    assert sympy.simplify(sympy.sympify(obj["sensitivity"]) - 2 * sympy.sqrt(2) / 3) == 0


@pytest.mark.parametrize("claim, verdict, code", [
    ("U - L", "violated", 1),
    ("Max(Abs(L), Abs(U))", "holds-tight", 0),
    ("11", "holds", 0),
])
def test_claim_verdicts_and_exit_codes(capsys, claim, verdict, code):
    got, out, _ = run(capsys, "sensitivity", "--query", "sum", "--universe", "-3..13", "--sizes", "0..2",
                      "--clip", "2,10", "--claim", claim, "--json")
    obj = json.loads(out)
    assert obj["verdict"] == verdict and obj["claim"] == claim and obj["sensitivity"] == "10"
    assert got == code


def test_pool_scenario_and_exact_k(capsys):
    code, out, _ = run(capsys, "sensitivity", "--query", "count", "--pool", "1,2,2,2,5,5,7,8,9,9",
                       "--size", "6", "--d-in", "2", "--exact-k", "--release-centred", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["sensitivity"] == "2" and obj["scope"]["datasets"] == 53


def test_d_in_range_prints_a_table(capsys):
    code, out, _ = run(capsys, "sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..3",
                       "--d-in", "1..3")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [(r[0], r[1]) for r in rows] == [("1", "3"), ("2", "6"), ("3", "9")]


def test_local(capsys):
    code, out, _ = run(capsys, "sensitivity", "--query", "mean", "--universe", "0..4", "--sizes", "1..3",
                       "--local", "1,2", "--json")
    assert json.loads(out)["sensitivity"] == "5/6"


def test_undefined_policy_flag(capsys):
    code, out, err = run(capsys, "sensitivity", "--query", "mean", "--universe", "0..3", "--sizes", "0..2")
    assert code == 2 and "undefined on x=[]" in err and "\n" == err[-1] and err.count("\n") == 1
    code, out, _ = run(capsys, "sensitivity", "--query", "mean", "--universe", "0..3", "--sizes", "0..2",
                       "--undefined", "exclude", "--json")
    assert code == 0 and json.loads(out)["sensitivity"] == "3/2"


@pytest.mark.parametrize("argv, fragment", [
    (["--query", "mean", "--universe", "3..1", "--sizes", "1..2"], "upper=1 < lower=3"),
    (["--query", "mean", "--universe", "", "--sizes", "1..2"], "empty"),
    (["--query", "mean", "--universe", "0..3", "--sizes", "-1..2"], "negative"),
    (["--query", "mean", "--universe", "0..3", "--sizes", "1..2", "--d-in", "-1"], "negative"),
    (["--query", "mode", "--universe", "0..3", "--sizes", "1..2"], "not a known query"),
    (["--query", "mean", "--universe", "0..3", "--sizes", "1..2", "--clip", "5,1"], "Cannot have upper"),
    (["--query", "mean", "--universe", "0..3", "--sizes", "1..2", "--neighbors", "swap"], "not a known relation"),
    (["--query", "mean", "--universe", "0..3", "--sizes", "1..2", "--claim", "__import__('os')"], "not allowed"),
    (["--query", "mean", "--universe", "0.1.2", "--sizes", "1..2"], "universe"),
    (["--query", "mean", "--universe", "0..30", "--sizes", "0..12"], "max_datasets"),
    (["--query", "mean", "--universe", "0..3", "--pool", "1,2", "--sizes", "1..2"], "either --universe"),
    (["--query", "mean", "--pool", "1,2", "--size", "3"], "exceeds the pool"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, "sensitivity", *argv)
    assert code == 2
    assert fragment in err
    assert err.startswith("exactdp: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_verify_subset_text_and_json(capsys):
    code, out, _ = run(capsys, "verify", "--only", "s000/clipped-sum/add-remove/L>0")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "VIOLATED    s000/clipped-sum/add-remove/L>0: claim U - L = 8 vs exact 10"
    assert lines[1] == "            witness x=[], x'=[10]: f(x)=0, f(x')=10"
    assert lines[2].startswith("            scope: all 1,140 multisets")
    # the summary comes last
    assert lines[-1] == "1 built-in claims checked: 1 violated; 0 departed from what was expected"
    code, out, _ = run(capsys, "verify", "--only", "s003/b/mood/bounded/k=1/", "--json")
    rows = json.loads(out)
    assert len(rows) == 10 and all(r["as_expected"] for r in rows)
    assert {r["verdict"] for r in rows} <= {"holds", "holds-tight", "violated"}


def test_start_up_imports_only_what_the_path_needs():
    """Issue 12, part 5: --help imports neither SymPy nor NumPy; a sensitivity without a claim
    imports NumPy (the engine) but not SymPy; a claim brings SymPy in (measured: 0.1 s, 0.13 s)."""
    import subprocess
    import sys

    probe = ("import sys\nfrom exactdp.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n"
             "    pass\nprint('sympy' in sys.modules, 'numpy' in sys.modules)")

    def loaded(argv):
        out = subprocess.run([sys.executable, "-c", probe.format(argv=argv)], capture_output=True,
                             text=True, check=True).stdout.split()
        return out[-2:]

    assert loaded(["--help"]) == ["False", "False"]
    assert loaded(["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2"]) == ["False", "True"]
    assert loaded(["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2",
                   "--claim", "U-L"]) == ["True", "True"]
