"""Issue 30's smaller items: the pytest plugin's report and arguments, ``--d-in 0`` on the
command line.

Before: ``--exactdp-report ''`` wrote nothing and exited 0; the report left out every claim
whose check raised, exited, ran past the time limit or was refused over a budget (and,
under xdist, every claim at all); ``exactdp_claim(..., colour=...)`` raised
``TypeError: sensitivity() got an unexpected keyword argument 'colour'``; ``exactdp privacy
... --d-in 0`` and ``exactdp sensitivity ... --d-in 0`` answered VACUOUS (exit 1) and
``--d-in 0..2`` printed a row at d_in=0 and exited 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactdp import cli

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ("-p", "exactdp._pytestplugin")


@pytest.fixture
def plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner runs are subprocesses importing this checkout and no other installed plugin."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


WARM = """
from exactdp import IntegerRange, Multisets, verify_claim

# the first check imports SymPy and the engine; done here, outside every claim's time limit
verify_claim("U", "sum", Multisets(IntegerRange(0, 3), sizes=(0, 2)))
"""

ERRORED = """
import sys

import pytest
from exactdp import IntegerRange, Multisets
from exactdp.queries import sum_

SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))


def boom(xs):
    raise ZeroDivisionError("no value here")


def test_holds(exactdp_claim):
    exactdp_claim("U", sum_, SPACE, id="holds")

def test_raises(exactdp_claim):
    exactdp_claim("U", boom, SPACE, id="raises")

def test_exits(exactdp_claim):
    exactdp_claim(3, lambda xs: sys.exit(3), SPACE, id="exits")

def test_budget(exactdp_claim):
    exactdp_claim("U", sum_, SPACE, id="budget", max_pairs=2)

def test_unknown_keyword(exactdp_claim):
    exactdp_claim("U", sum_, SPACE, id="colour", colour="red")

def test_spins(exactdp_claim):
    def spin(xs):
        while True:
            pass
    exactdp_claim("U", spin, SPACE, id="spins")

@pytest.mark.exactdp_claim("U", sum_, id="marker-no-space")
def test_marker_missing_space():
    pass
"""

BUDGET = ("TooLarge: 4 candidate neighbour pairs for sum on multisets of size 0..2 over {0..3} at "
          "d_in=1 (each dataset x 4 values added), over max_pairs=2; shrink the universe, the sizes "
          "or d_in, or raise max_pairs")
KEYWORDS = ("claim, query, space, metric, d_in, id, expect, exact_k, scope, undefined, max_pairs, "
            "max_datasets, progress, workers, cluster")
COLOUR = (f"InvalidArgument: exactdp_claim(colour='red'): unknown keyword 'colour'; the keywords "
          f"accepted are {KEYWORDS}; check the spelling or drop it")
NO_SPACE = ("InvalidArgument: @pytest.mark.exactdp_claim: missing a required argument: 'space'; call "
            "it as @pytest.mark.exactdp_claim(claim, query, space, metric='add-remove', d_in=1, *, "
            "id=None, expect='holds', **options)")
ERRORS = {  # id -> (claim as given, error)
    "raises": ("U", "ZeroDivisionError: no value here"),
    "exits": ("3", "SystemExit: 3"),
    "budget": ("U", BUDGET),
    "colour": ("U", COLOUR),
    "spins": ("U", "TimeLimitExceeded: exactdp: claim 'spins' did not finish within the time limit of "
                   "1 s (--exactdp-time-limit or the exactdp_time_limit ini option raises it; or "
                   "make the space smaller)"),
    "marker-no-space": ("U", NO_SPACE),
}


def _claims(report: Path) -> dict[str, dict]:
    data = json.loads(report.read_text())
    assert data["exactdp_report"] == 1
    return {c["id"]: c for c in data["claims"]}


def _assert_every_claim_reported(claims: dict[str, dict]) -> None:
    assert sorted(claims) == sorted(["holds", *ERRORS])
    held = claims["holds"]
    assert (held["verdict"], held["sensitivity"], held["passed"]) == ("holds-tight", "3", True)
    for claim_id, (claim, error) in ERRORS.items():
        entry = claims[claim_id]
        assert entry == {"id": claim_id, "test": entry["test"], "expect": "holds", "passed": False,
                         "verdict": "error", "claim": claim, "error": error}, claim_id
    assert claims["marker-no-space"]["test"] == "test_errored.py::test_marker_missing_space"


def test_report_keeps_the_claims_that_errored(pytester, plugin_env):
    pytester.makeconftest(WARM)
    pytester.makepyfile(test_errored=ERRORED)
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-time-limit", "1",
                                           "--exactdp-report", str(report))
    result.assert_outcomes(passed=1, failed=6)
    result.stdout.fnmatch_lines([f"E   *exactdp.errors.{COLOUR}", f"E   *exactdp.errors.{NO_SPACE}"])
    assert "got an unexpected keyword" not in result.stdout.str()
    _assert_every_claim_reported(_claims(report))


def test_report_gathers_the_claims_of_every_xdist_worker(pytester, plugin_env):
    """Before: under ``-n 2`` the report held no claim at all (each worker kept its own)."""
    pytest.importorskip("xdist")
    pytester.makeconftest(WARM)
    pytester.makepyfile(test_errored=ERRORED)
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "xdist", "-n", "2", "--exactdp-time-limit",
                                           "1", "--exactdp-report", str(report))
    result.assert_outcomes(passed=1, failed=6)
    _assert_every_claim_reported(_claims(report))


@pytest.mark.parametrize("value", ["", "  "])
def test_empty_report_path_is_a_usage_error(pytester, plugin_env, value):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess(*PLUGIN, "--exactdp-report", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().strip().splitlines() == [f"ERROR: --exactdp-report={value!r} is empty; give the path of the "
                                   "JSON file to write, e.g. --exactdp-report exactdp-report.json"]
    assert result.stdout.str() == "" and list(pytester.path.rglob("*.json")) == []  # nothing ran


# -- the arguments of exactdp_claim, in process (no pytester run needed) --------------------

class _Config:
    def __init__(self):
        self.stash = pytest.Stash()

    def getoption(self, name, default=None):
        return default


BAD_CALLS = [  # (args, kwargs, the message)
    (("U", "sum"), {"space": None, "colour": "red", "max_pair": 3},
     "exactdp_claim(colour='red', max_pair=3): unknown keywords 'colour', 'max_pair'; the keywords "
     f"accepted are {KEYWORDS}; check the spelling or drop them"),
    (("U",), {},
     "exactdp_claim: missing a required argument: 'query'; call it as exactdp_claim(claim, query, "
     "space, metric='add-remove', d_in=1, *, id=None, expect='holds', **options)"),
    (("U", "sum", None, "add-remove", 1, 2), {},
     "exactdp_claim: too many positional arguments; call it as exactdp_claim(claim, query, space, "
     "metric='add-remove', d_in=1, *, id=None, expect='holds', **options)"),
    (("U", "sum", None), {"claim": 2},
     "exactdp_claim: multiple values for argument 'claim'; call it as exactdp_claim(claim, query, "
     "space, metric='add-remove', d_in=1, *, id=None, expect='holds', **options)"),
]


@pytest.mark.parametrize("args, kwargs, message", BAD_CALLS)
def test_bad_call_is_invalid_argument_and_reported(args, kwargs, message):
    from exactdp import _pytestplugin as plugin
    from exactdp.errors import InvalidArgument

    config = _Config()
    with pytest.raises(InvalidArgument) as e:
        plugin._check(config, "t.py::test", plugin.MARKER, args, kwargs)
    assert str(e.value) == message
    [entry] = config.stash[plugin._RECORDS]
    assert entry == {"id": "t.py::test", "test": "t.py::test", "expect": "holds", "passed": False,
                     "verdict": "error", "claim": "U", "error": f"InvalidArgument: {message}"}


def test_good_call_by_keyword_is_checked():
    from exactdp import IntegerRange, Multisets
    from exactdp import _pytestplugin as plugin

    config = _Config()
    space = Multisets(IntegerRange(0, 3), sizes=(0, 2))
    r = plugin._check(config, "t.py::test", plugin.MARKER, (),
                      {"claim": "2*U", "query": "sum", "space": space, "d_in": 2, "id": 5,
                       "max_pairs": 1000})
    assert (r.verdict.value, r.sensitivity.value) == ("holds-tight", 6)
    [entry] = config.stash[plugin._RECORDS]
    assert (entry["id"], entry["verdict"], entry["sensitivity"], entry["d_in"]) == ("5", "holds-tight", "6", 2)


# -- --d-in 0 on the command line -----------------------------------------------------------

PRIVACY = ["privacy", "--mechanism", "randomized-response", "--param", "p=3/4", "--query", "count",
           "--universe", "0..3", "--sizes", "0..1"]
SENSITIVITY = ["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2"]
ZERO = ("--d-in=0: expected a positive whole number (a distance of 0 relates no two distinct "
        "datasets, so nothing would be checked); pass e.g. --d-in 1")

BAD_D_IN = [
    (PRIVACY + ["--d-in", "0"], ZERO),
    (SENSITIVITY + ["--d-in", "0"], ZERO),
    (SENSITIVITY + ["--d-in", "00"], ZERO.replace("=0:", "=00:")),
    (SENSITIVITY + ["--d-in", "0", "--local", "1"], ZERO),
    (SENSITIVITY + ["--d-in", "0", "--claim", "U"], ZERO),
    (SENSITIVITY + ["--d-in", "0..2"],
     "--d-in=0..2: expected positive whole numbers (a distance of 0 relates no two distinct "
     "datasets, so nothing would be checked); start the range at 1: --d-in 1..2"),
    (SENSITIVITY + ["--d-in", "-1"],
     "--d-in=-1 is negative: expected a positive whole number; pass e.g. --d-in 1"),
    (PRIVACY + ["--d-in", "-1"],
     "--d-in=-1 is negative: expected a positive whole number; pass e.g. --d-in 1"),
    (PRIVACY + ["--d-in", "1..2"],
     "--d-in=1..2: expected one positive whole number, not a range (privacy checks one distance); "
     "pass e.g. --d-in 1"),
    (PRIVACY + ["--d-in", "\u00b2"],  # '²'.isdigit() is True, int('²') raised ValueError
     "--d-in=\u00b2 is not a whole number; pass e.g. --d-in 1"),
    (PRIVACY + ["--d-in", "2.5"], "--d-in=2.5 is not a whole number; pass e.g. --d-in 1"),
    (SENSITIVITY + ["--d-in", "x"], "--d-in=x is not a whole number or a range A..B; pass e.g. --d-in 1 "
                                    "or --d-in 1..3"),
]


@pytest.mark.parametrize("argv, message", BAD_D_IN)
def test_bad_d_in_is_refused_in_one_line(capsys, argv, message):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"exactdp: error: {message}\n")


def test_d_in_from_1_still_answers(capsys):
    assert cli.main(PRIVACY + ["--d-in", " 1", "--json"]) == 0  # spaces around it are read as elsewhere
    assert json.loads(capsys.readouterr().out)["epsilon"] == "log(3)"
    assert cli.main(SENSITIVITY + ["--d-in", "1..2", "--json"]) == 0
    assert [r["sensitivity"] for r in json.loads(capsys.readouterr().out)] == ["3", "6"]
