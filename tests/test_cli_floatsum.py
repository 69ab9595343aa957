"""``exactdp floatsum``: JSON keys, verdicts, exit status, text output, bad input."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.numeric.floatsum_bounds import sensitivity_bound

KEYS = {"model", "dtype", "bounds", "max_n", "bound", "claim", "verdict", "evidence", "witness"}


def _json(capsys, argv):
    code = main(["floatsum", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_sequential_float32_naive_claim_is_violated(capsys):
    code, d = _json(capsys, ["--model", "sequential", "--dtype", "float32", "--bounds", "0,1",
                             "--max-n", "10000"])
    assert code == 1
    assert set(d) == KEYS
    assert d["verdict"] == "violated" and d["claim"] == "1" and d["bounds"] == ["0", "1"]
    assert d["evidence"] == "bit-exact"  # the witness is summed bit for bit as the model stores it
    assert Fraction(d["bound"]) == sensitivity_bound("sequential", "float32", (0, 1), 10000)
    w = d["witness"]
    assert set(w) == {"x", "x_prime", "fx", "fx_prime", "exact_difference"}
    assert w["exact_difference"] == "2"
    assert w["x_prime"][0] == ["0x1.0000000000000p+0", 4096]
    # the witness is real: a float32 cumulative sum of each dataset
    sums = []
    for runs in (w["x"], w["x_prime"]):
        a = np.repeat(np.array([float.fromhex(v) for v, _ in runs], dtype=np.float32),
                      [c for _, c in runs])
        sums.append(np.cumsum(a, dtype=np.float32)[-1])
    assert [float(s).hex() for s in sums] == [w["fx"], w["fx_prime"]]
    assert Fraction(float(sums[1])) - Fraction(float(sums[0])) == 2


def test_pairwise_float64_with_negative_bound_glued(capsys):
    code, d = _json(capsys, ["--model", "pairwise", "--dtype", "float64", "--bounds", "-3,5",
                             "--max-n", "1000000", "--claim", "5"])
    assert code == 1 and d["verdict"] == "violated" and d["bounds"] == ["-3", "5"]
    w = d["witness"]
    xs = [np.repeat(np.array([float.fromhex(v) for v, _ in runs]), [c for _, c in runs])
          for runs in (w["x"], w["x_prime"])]
    diff = abs(Fraction(float(np.sum(xs[1]))) - Fraction(float(np.sum(xs[0]))))
    assert diff == Fraction(w["exact_difference"]) > 5


def test_claim_at_the_sound_bound_holds(capsys):
    bound = sensitivity_bound("kahan", "float32", (0, 1), 1000)
    code, d = _json(capsys, ["--model", "kahan", "--dtype", "float32", "--bounds", "0,1",
                             "--max-n", "1000", "--claim", str(bound), "--budget", "100"])
    assert code == 0 and d["verdict"] == "holds" and d["witness"] is None
    assert Fraction(d["bound"]) == bound == Fraction(d["claim"])


def test_claim_below_the_bound_not_found_is_not_holds(capsys):
    code, d = _json(capsys, ["--model", "fsum", "--bounds", "0,1", "--max-n", "100",
                             "--claim", "2", "--budget", "60", "--seed", "3"])
    assert code == 0 and d["verdict"] == "holds"  # 2 >= 1 + 2**-46: proved by the bound
    code, d = _json(capsys, ["--model", "fsum", "--bounds", "0,1", "--max-n", "100",
                             "--claim", "281474976710657/281474976710656", "--budget", "60"])
    # not-found is not established: exit 1 (a search that found nothing is never a proof)
    assert code == 1 and d["verdict"] == "not-found" and d["witness"] is None


def test_substitute_neighbours(capsys):
    code, d = _json(capsys, ["--model", "sequential", "--dtype", "float32", "--bounds", "-1,0",
                             "--max-n", "10000", "--neighbors", "substitute"])
    assert code == 1 and d["witness"]["exact_difference"] == "2"
    assert sum(c for _, c in d["witness"]["x"]) == sum(c for _, c in d["witness"]["x_prime"])


def test_no_bound_of_the_proved_form(capsys, monkeypatch):
    """When the bound module refuses (e.g. n*u too large), the search still runs."""
    import exactdp.numeric.floatsum_bounds as fb

    def refuse(*args, **kwargs):
        raise InvalidArgument("sequential: no bound of this form; use a smaller max_n")

    monkeypatch.setattr(fb, "sensitivity_bound", refuse)
    argv = ["--model", "sequential", "--dtype", "float32", "--bounds", "0,1", "--max-n", "10000"]
    code, d = _json(capsys, argv)
    assert d["bound"] is None and d["verdict"] == "violated" and code == 1
    assert main(["floatsum", *argv, "--claim", "100"]) == 1  # not-found: not established
    out = capsys.readouterr().out
    assert "sound bound: none of the proved form (sequential: no bound" in out
    assert "NOT FOUND" in out


def test_human_readable(capsys):
    code = main(["floatsum", "--model", "sequential", "--dtype", "float32", "--bounds", "0,1",
                 "--max-n", "10000"])
    out = capsys.readouterr().out
    assert code == 1
    assert "VIOLATED" in out and "claim: 1" in out and "sound bound: " in out
    assert "|f(x') - f(x)| = 2" in out and "scope: model sequential, float32" in out
    code = main(["floatsum", "--model", "fsum", "--bounds", "0,1", "--max-n", "100",
                 "--claim", "281474976710657/281474976710656", "--budget", "40"])
    out = capsys.readouterr().out
    assert code == 1 and "NOT a proof" in out and "budget=40" in out


BAD = [
    (["--model", "cumsum", "--bounds", "0,1", "--max-n", "10"], "--model='cumsum'"),
    (["--model", "sequential", "--bounds", "0", "--max-n", "10"], "--bounds='0'"),
    (["--model", "sequential", "--bounds", "0,0.1", "--max-n", "10"], "not a value of float64"),
    (["--model", "sequential", "--bounds", "1,0", "--max-n", "10"], "Cannot have U=0 < L=1"),
    (["--model", "sequential", "--bounds", "0,1", "--max-n", "0"], "--max-n=0"),
    (["--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--dtype", "float128"],
     "fmt='float128'"),
    (["--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--neighbors", "swap"],
     "--neighbors='swap'"),
    (["--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--claim", "abc"],
     "--claim='abc'"),
    (["--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--budget", "0"], "--budget=0"),
]


@pytest.mark.parametrize("argv,text", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_exits_2_with_one_line(capsys, argv, text):
    assert main(["floatsum", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error: ") and err.count("\n") == 1
    assert text in err


def test_progress_line_on_a_terminal(capsys):
    from exactdp.cli.floatsum import _SearchProgress

    p = _SearchProgress("floatsum kahan float64", 2000, enabled=True, interval=0)
    p(150, 2000)
    p.close()
    err = capsys.readouterr().err
    assert "exactdp: floatsum kahan float64: 150 of 2,000 evaluations" in err
    quiet = _SearchProgress("x", 10, enabled=False)
    quiet(1, 10)
    quiet.close()
    assert capsys.readouterr().err == ""


# --- hardening: budgets, exit status, messages, help ---------------------------------------

import subprocess  # noqa: E402
import sys  # noqa: E402


def _cli(*argv, timeout=60):
    return subprocess.run([sys.executable, "-m", "exactdp", *argv], capture_output=True,
                          text=True, timeout=timeout)


def test_huge_budget_is_refused_at_once():
    """--budget 10**12 used to run for years (220 to 76,000 evaluations per second)."""
    r = _cli("floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "10",
             "--budget", "1000000000000", timeout=30)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith("exactdp: error: 1,000,000,000,000 search evaluations asked for by --budget")
    assert "over --max-budget=1,000,000" in r.stderr and "years" in r.stderr


def test_max_budget_raises_the_limit_and_the_library_refuses_too(capsys):
    from exactdp.checkers.float_witness import MAX_BUDGET, search_float_witness
    from exactdp.errors import TooLarge

    argv = ["floatsum", "--model", "fsum", "--bounds", "0,1", "--max-n", "100", "--claim", "2",
            "--budget", "50"]
    assert main([*argv, "--max-budget", "49"]) == 2
    assert "50 search evaluations asked for by --budget" in capsys.readouterr().err
    assert main([*argv, "--max-budget", "50"]) == 0
    with pytest.raises(TooLarge, match=r"1,000,001 search evaluations .* over max_budget=1,000,000"):
        search_float_witness("fsum", "float64", (0, 1), 100, 2, budget=MAX_BUDGET + 1)
    r = search_float_witness("fsum", "float64", (0, 1), 100, 2, budget=5, max_budget=None)
    assert r.evaluations <= 5


@pytest.mark.parametrize("argv,text", [
    (["--budget", "-3"], "--budget=-3 is below 1"),
    (["--max-budget", "-1"], "--max-budget=-1 is negative"),
    (["--claim", "-1"], "--claim=-1 is negative"),
    (["--claim", "-5/2"], "--claim=-5/2 is negative"),
    (["--bounds", "0,1e308"], "write the nearest one below, 0x1.1ccf385ebc89fp+1023"),
    (["--bounds", "0,1e400"], "is beyond the largest float64"),
    (["--bounds", "0x,1"], "--bounds L='0x'"),
])
def test_more_bad_input_one_line_no_repr(capsys, argv, text):
    base = {"--model": "sequential", "--bounds": "0,1", "--max-n": "10"}
    for i in range(0, len(argv), 2):
        base[argv[i]] = argv[i + 1]
    assert main(["floatsum", *[f"{k}={v}" for k, v in base.items()]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error: ") and err.count("\n") == 1
    assert text in err and "Fraction(" not in err


def test_bounds_as_float_hex_are_exact(capsys):
    code, d = _json(capsys, ["--model", "sequential", "--bounds", "0,0x1.1ccf385ebc8a0p+1023",
                             "--max-n", "10", "--budget", "20"])
    assert d["bounds"][1] == format(Fraction(1e308).numerator) and code in (0, 1)


def test_exit_status_is_0_only_when_the_claim_is_established(capsys):
    """0: holds; 1: violated or not-found (never a proof); matches the README's contract."""
    base = ["--model", "fsum", "--bounds", "0,1", "--max-n", "100", "--budget", "30"]
    assert main(["floatsum", *base, "--claim", "2"]) == 0
    assert "HOLDS" in capsys.readouterr().out
    assert main(["floatsum", *base, "--claim", "281474976710657/281474976710656"]) == 1
    assert "NOT FOUND" in capsys.readouterr().out
    assert main(["floatsum", *base, "--claim", "1"]) == 1
    assert "VIOLATED" in capsys.readouterr().out


def test_help_names_numpy_model_exit_codes_examples_and_defaults():
    r = _cli("floatsum", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "pairwise (NumPy's sum, i.e. add.reduce on a contiguous 1-d array: blocks of at most 128 values" in text
    assert "Exit status: 0 the claim holds" in text and "1 it is violated" in text and "not-found" in text
    assert "default 2,000" in text and "default 1,000,000" in text
    examples = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("exactdp floatsum")]
    assert len(examples) == 3


def test_help_examples_run(capsys):
    from exactdp.cli.floatsum import _EPILOG

    examples = [line.split()[2:] for line in _EPILOG.splitlines() if line.strip().startswith("exactdp floatsum")]
    assert len(examples) == 3
    for argv in examples:
        assert main(["floatsum", *argv]) in (0, 1)
        capsys.readouterr()
