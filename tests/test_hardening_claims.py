"""Claims that once hung or crashed: each is refused in one line, or decided, promptly.

Every reproduction runs in a child process with a time limit, so a regression to a hang
fails the test instead of stalling the suite (the limits are far above the times
measured: about 0.35 s each for the command line, most of it start-up).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SENSITIVITY = ["sensitivity", "--query", "sum", "--universe", "0..9", "--sizes", "0..2", "--claim"]
NESTED_12 = "sqrt(2+" * 11 + "sqrt(2)" + ")" * 11


def exactdp_cli(*args: str, seconds: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exactdp", *args], capture_output=True,
                          text=True, timeout=seconds)


REFUSED = {
    # found in review: each hung (10**(10**9) built once U=9 was substituted)
    "tower-10-10-U": ("10**(10**U)", "raises to the power 10**U, itself a power of a parameter"),
    "tower-U-U-U": ("U**U**U", "raises to the power U**U, itself a power of a parameter"),
    "tower-caret": ("10^10^U", "a tower of powers is refused"),
    "exp-exp": ("exp(exp(U))", "a tower of powers is refused"),
    # hung before this change too, refused only once a value is substituted
    "power-at-U": ("2**(10*U)", "claim='2**(10*U)' at U=9 raises to the power 90, which is too large"),
    # found in review: a ValueError traceback (Python's 4,300-digit limit) while formatting
    "product-of-big-powers": ("(9**60)**60*(9**60)**60", "builds a number of about 6,870 digits"),
    "sum-of-big-powers": ("(9**60)**60 + 1/(9**60)**60", "builds a number of about 6,870 digits"),
    # the refusal that 9**9**9 already got, unchanged
    "numeric-tower": ("9**9**9", "raises to the power 387420489, which is too large"),
}


@pytest.mark.parametrize("key", list(REFUSED))
def test_claims_that_would_build_huge_numbers_are_refused_in_one_line(key):
    claim, message = REFUSED[key]
    done = exactdp_cli(*SENSITIVITY, claim)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"exactdp: error: claim={claim!r}")
    assert message in done.stderr


DECIDED = {
    # found in review: each hung in SymPy's minimal polynomial (degree 4096) before any
    # numeric look; the sign is plain numerically
    "root-4096": ("2**(1/4096)", 1, "VIOLATED: claim 2**(1/4096) < sensitivity 9"),
    "nested-12": (NESTED_12, 1, "< sensitivity 9"),
    "nested-12-times-5": (f"5*{NESTED_12}", 0, "HOLDS with slack"),
    "std-like-tie": ("sqrt(2)+sqrt(3) - sqrt(5+2*sqrt(6)) + 9", 0, "HOLDS, tight"),
}


@pytest.mark.parametrize("key", list(DECIDED))
def test_high_degree_claims_are_decided(key):
    claim, code, shown = DECIDED[key]
    done = exactdp_cli(*SENSITIVITY, claim)
    assert (done.returncode, done.stderr) == (code, "")
    assert shown in done.stdout.splitlines()[0]


def test_python_api_refuses_the_same_claims(outcomes_in_child):
    setup = ("from exactdp.checkers.sensitivity import verify_claim; "
             "from exactdp.symbolic.verify import verify; "
             "from exactdp.symbolic.constructors import make_sum; "
             "from exactdp.symbolic.symbols import U; "
             "from exactdp.queries import sum_; "
             "from exactdp.spaces.datasets import Multisets; "
             "from exactdp.spaces.universe import IntegerRange; "
             "space = Multisets(IntegerRange(0, 9), sizes=(0, 2))")
    calls = [
        "verify('10**10**10**d_in', make_sum())",
        "verify(10**(10**U), make_sum(), grid={'L': [0], 'U': [9]}, d_in=1)",
        "verify_claim('10**(10**U)', sum_, space)",
        "verify_claim(10**(10**U), sum_, space)",
        "verify_claim(U**(U**U), sum_, space)",
        "verify_claim('(9**60)**60*(9**60)**60', sum_, space)",
    ]
    assert outcomes_in_child(setup, calls, 30.0) == ["InvalidArgument"] * len(calls)
