"""Hostile arguments through every sub-command of the CLI (issue 8's property).

Whatever the arguments, ``exactdp`` ends with exit 0, 1 or 2, never a traceback, and a
refusal (exit 2) comes before any work. A hang is caught by an alarm: each call gets
:data:`SECONDS` (a hang detector, not a speed claim: over 400 generated calls the
refusals took under 0.2 s, the slowest call, the whole catalogue, 1.7 s).
"""

from __future__ import annotations

import contextlib
import io
import signal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from exactdp.cli import main

SECONDS = 10

HOSTILE = [
    "", " ", "-1", "0", "1", "2", "-0", "1.5", "1e400", "-1e400", "1e-400", "nan", "inf", "-inf",
    "10**30", "99999999999999999999", "1/0", "0/0", "abc", "a..b", "..", "1..", "..1", "3..1",
    "0..1000", "0..10000000000", "-5..5", "1,2,,3", "1,2,3", "5/2,-3,0.25", "0x1p-1074",
    "\u00e9", "(" * 200, "9" * 5000, "--", "-", "1;2", "U**U**U", "10**(10**U)", "2**(1/4096)",
    "sqrt(-1)", "x+1", "U-L", "(U-L)/N", "d_in*(U-L)", "0.1x10", "0.5,1e-5", "1e-5",
]
SMALL = ["0..3", "-2..2", "1,5/2,4", "0..1"]
SIZES = ["0..2", "1..2", "2", "5..5", "0..100000000", "-1..2", "x"]

COMMANDS = {
    "sensitivity": {
        "--query": ["count", "sum", "mean", "median", "percentile:37", "std", "var:1",
                    "quantile:2", "histogram", ""],
        "--universe": SMALL, "--sizes": SIZES, "--pool": ["1,2,2,5", "0..1199"], "--size": SIZES,
        "--neighbors": ["add-remove", "substitute", "hamming", "insert-delete"],
        "--d-in": ["1", "2", "0", "1..3", "99999999999999999999", "1..1000000"],
        "--clip": ["0,2", "2,0", "a,b"], "--claim": HOSTILE, "--local": ["1", "1,2", ""],
        "--undefined": ["error", "exclude", "0", "-1"],
        "--max-pairs": ["10", "-1", "0"], "--max-datasets": ["10", "-1"],
        "--plot": ["/nonexistent/x.png", "x.txt"], "--workers": ["1", "2", "0", "-1", "x"],
        "--exact-k": None, "--release-centred": None, "--json": None,
    },
    "calibrate": {
        "--floats": ["decimal", "binary", "x"],
        "": ["laplace", "gaussian-classic", "gaussian-analytic", "zcdp-to-approx", "nope"],
        "--epsilon": HOSTILE, "--delta": HOSTILE, "--sensitivity": HOSTILE, "--rho": HOSTILE,
        "--method": ["cks", "bun-steinke", "nope"], "--json": None,
    },
    "compose": {
        "--floats": ["decimal", "binary", "x"],
        "--spend": ["0.1x10", "0.1x100000000000", "1e400", "0.5,1e-5", "x", ""],
        "--rho": ["0.5x3", "1e400", "-1"], "--rho-budget": HOSTILE,
        "--method": ["sequential", "advanced", "nope"], "--delta-prime": HOSTILE,
        "--budget": HOSTILE, "--json": None,
    },
    "floatsum": {
        "--floats": ["decimal", "binary", "x"],
        "--model": ["sequential", "pairwise", "kahan", "nope"],
        "--dtype": ["float32", "float64", "float8", ""], "--bounds": ["0,1", "1,0", "-1e400,1"],
        "--max-n": ["10", "0", "-1", "99999999999999999999"],
        "--neighbors": ["add-remove", "substitute", "x"], "--d-in": ["1", "0", "-1", "1e400"],
        "--budget": ["10", "0", "1000000000000"], "--max-budget": ["5", "-1"],
        "--seed": ["0", "-1", "x"], "--claim": HOSTILE, "--json": None,
    },
    "catalog": {"--only": ["s000", "nope", ""], "--json": None},
    "privacy": {
        "--floats": ["decimal", "binary", "x"],
        "--mechanism": ["randomized-response", "exponential", "discrete-laplace", "nope", ""],
        "--param": ["p=3/4", "epsilon=1", "p=2", "k_values=3", "scale=1", "x", "p=1e400"],
        "--values": ["0,1", "1,0", "0", "0,1,2", "a,b"], "--query": ["count", "sum", "std"],
        "--universe": SMALL, "--sizes": SIZES, "--d-in": ["1", "0", "x"],
        "--epsilon": HOSTILE, "--delta": HOSTILE, "--rho": ["1"], "--json": None,
    },
    "search": {
        "--query": ["sum", "mean", "nope"], "--clip": ["10,20", "a,b"],
        "--universe": ["0..1000000", "0..3", "x"], "--sizes": ["0..10000", "0..2", "-1..2"],
        "--claim": HOSTILE, "--budget": ["20", "0", "-1", "99999999999"], "--seed": ["0", "x"],
        "--json": None,
    },
    "check": {
        "": ["", "/nonexistent/claims.toml", "tests/sample_project/claims.toml", "README.md"],
        "--json": None, "--max-pairs": ["10", "-1"], "--max-datasets": ["10", "-1"],
    },
    "audit": {  # no real library here: the suites are exercised in tests/audits
        "": ["nope", "", "tumult"], "--only": ["nope", ""], "--list": None,
        "--time-limit": HOSTILE, "--json": None,
    },
    "account": {
        "--floats": ["decimal", "binary", "x"],
        "--mechanism": ["discrete-laplace", "randomized-response", "gaussian", "discrete-gaussian", "nope"],
        "--param": ["scale=10", "p=3/4", "sigma=10", "sigma=0", "x"],
        "--k": ["1", "0", "-1", "10", "99999999999999999999", "x"],
        "--delta": HOSTILE, "--epsilon": HOSTILE, "--check": HOSTILE, "--width": HOSTILE,
        "--json": None,
    },
}


@st.composite
def argvs(draw):
    command = draw(st.sampled_from(sorted(COMMANDS)))
    options = COMMANDS[command]
    argv = [command]
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=7, unique=True)):
        values = options[name]
        if values is None:
            argv.append(name)
            continue
        value = draw(st.sampled_from(values) | st.sampled_from(HOSTILE))
        argv.extend([value] if name == "" else [name, value])
    return argv


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def run_hostile(argv):
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse: usage errors (2), --help (0)
                code = e.code
    except _Hang:
        pytest.fail(f"exactdp {' '.join(argv)} ran for more than {SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argvs())
def test_hostile_arguments_end_in_0_1_or_2_without_a_traceback(argv):
    code, out, err = run_hostile(argv)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err + out
    if code == 2 and err.startswith("exactdp: error: "):
        assert err.count("\n") == 1, err  # our own refusals: one line


@pytest.mark.parametrize("argv", [
    ["sensitivity", "--query", "sum", "--universe", "0..1500", "--sizes", "0..1"],
    ["sensitivity", "--query", "mean", "--universe", "0..100000000000", "--sizes", "0..1"],
    ["sensitivity", "--query", "mean", "--universe", "0..3", "--sizes", "1..2", "--d-in",
     "100000000000"],
    ["sensitivity", "--query", "sum", "--universe", "0..9", "--sizes", "0..2", "--claim",
     "10**(10**U)"],
    ["sensitivity", "--query", "sum", "--universe", "0..9", "--sizes", "0..2", "--claim",
     "2**(1/3000)"],
])
def test_the_stop_hook_smoke_inputs(argv):
    code, out, err = run_hostile(argv)
    assert code in (0, 1, 2) and "Traceback" not in err
