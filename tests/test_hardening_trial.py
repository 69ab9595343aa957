"""Regression tests of a second hostile trial of the sensitivity surfaces: each input once
hung, started thousands of processes, crashed or answered on guesswork.

Reproductions that hung run in a child interpreter with a time limit (``outcomes_in_child``),
so a regression fails instead of stalling the suite.
"""

from __future__ import annotations

import pytest

from exactdp import IntegerRange, Multisets, sensitivity, sensitivity_curve
from exactdp.checkers import _engine
from exactdp.cli import main
from exactdp.errors import TooLarge
from exactdp.queries import sum_

CLI = "import io, contextlib; from exactdp.cli import main"


def _quiet(argv, code):
    """A call for ``outcomes_in_child``: ``main(argv)`` with its output swallowed, exiting ``code``."""
    return (f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    code = main({argv!r})\n"
            f"assert code == {code}, code")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- --workers 10**9 forked one process per part of the table (thousands), or started a
#    LocalCluster of 10**9 Dask workers: now refused before any process starts ----------

def test_workers_beyond_four_per_core_are_refused_before_forking(outcomes_in_child):
    limit = _engine.WORKERS_PER_CORE * _engine.cores()
    pool = ["sensitivity", "--query", "sum", "--universe", "0..30", "--sizes", "0..4",
            "--workers", "1000000000"]
    dask = ["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2", "--dask",
            "--workers", "1000000000"]
    calls = [_quiet(pool, 2), _quiet(dask, 2)]
    assert outcomes_in_child(CLI, calls, 30) == ["returned"] * 2
    for call in (lambda: sensitivity(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 2)), workers=10**9),
                 lambda: sensitivity_curve(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 2)), None,
                                           [1], workers=limit + 1)):
        with pytest.raises(TooLarge, match=f"worker processes, more than {limit}"):
            call()


def test_workers_refusal_is_one_line_naming_the_option(capsys):
    limit = _engine.WORKERS_PER_CORE * _engine.cores()
    code, out, err = run(capsys, "sensitivity", "--query", "sum", "--universe", "0..3",
                         "--sizes", "0..2", "--workers", "1000000000")
    assert (code, out) == (2, "")
    assert err == (f"exactdp: error: 1,000,000,000 worker processes, more than {limit}; pass "
                   f"workers (--workers) of at most 4 per core ({_engine.cores()} here); the "
                   f"answer does not depend on it\n")
    r = sensitivity(sum_, Multisets(IntegerRange(0, 3), sizes=(0, 2)), workers=limit)
    assert r.value == 3
