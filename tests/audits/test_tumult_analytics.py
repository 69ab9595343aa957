"""The Tumult Analytics suite: seed 001's library defaults, established by running the library.

Tumult Analytics (``tmlt.analytics``) pins ``tmlt-core<0.20``, ``numpy<2`` and pyspark, and
needs Java: it lives in the Tumult environment (``.ci/tumult``,
``docs/tumult-environment.md``). The tests at the top run everywhere; the others skip with
that reason where the library does not import, and share one Spark session per module.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.adapters import tumult as adapter
from exactdp.audits import runner
from exactdp.audits import suite_tumult_analytics as suite
from exactdp.checkers.results import Verdict

import importlib.util as _util

_spec = _util.spec_from_file_location("hidden_library", Path(__file__).resolve().parent.parent / "hidden_library.py")
_hidden = _util.module_from_spec(_spec)
_spec.loader.exec_module(_hidden)  # the code that hides a library in a child process

ROOT = Path(__file__).resolve().parents[2]
# pyspark's socket ResourceWarnings, tmlt.core 0.19.1's importlib.resources.path, and what
# pyspark says when tmlt.analytics runs its pandas UDFs (a type-hint UserWarning; its pandas
# version check through distutils' LooseVersion, deprecated): theirs, not exactdp's.
pytestmark = [pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
              pytest.mark.filterwarnings(r"ignore:path is deprecated\. Use files\(\) instead:DeprecationWarning"),
              pytest.mark.filterwarnings(r"ignore:In Python 3\.6\+ and Spark 3\.0\+:UserWarning"),
              pytest.mark.filterwarnings("ignore:distutils Version classes are deprecated:DeprecationWarning")]

SKIP_REASON = ("Tumult Analytics is not installed: it needs the Tumult environment (tmlt.core<0.20, "
               "numpy<2, Java 17); see docs/tumult-environment.md")
IDS = ["s001/defaults/pure-dp-laplace", "s001/defaults/rhozcdp-gaussian"]


def _has_analytics() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("tmlt.analytics") is not None
    except ModuleNotFoundError:
        return False


# --- everywhere -------------------------------------------------------------------------

def test_the_suite_is_registered_and_lists_without_importing_the_library():
    assert runner.SUITES["tumult-analytics"] == "exactdp.audits.suite_tumult_analytics"
    audits = runner.suite("tumult-analytics")
    assert [a.id for a in audits] == IDS
    assert {a.library for a in audits} == {"tmlt.analytics"}
    assert [a.expected("0.21.0") for a in audits] == ["holds-on-grid", "holds-on-grid"]
    assert [a.expected("0.22.0") for a in audits] == [None, None]
    assert runner.distribution("tumult-analytics") == "tmlt.analytics"
    assert runner.checked_on("tumult-analytics") == ("0.21.0",)


def test_families_name_the_seed_and_tumults_classes():
    assert suite.FAMILIES == {"PureDP": ("Laplace", ("AddLaplaceNoise", "AddGeometricNoise")),
                              "RhoZCDP": ("Gaussian", ("AddGaussianNoise", "AddDiscreteGaussianNoise"))}


# Where tmlt.analytics is installed, the child hides it: the import fails and its metadata is
# not found, as in an environment without it.
_HIDE = _hidden.hide("tmlt.analytics", "tmlt.analytics")


def test_audit_without_the_library_exits_2_saying_where_it_runs():
    code = (_HIDE if _has_analytics() else "import sys\n") + textwrap.dedent("""
        from exactdp.cli import main
        sys.exit(main(["audit", "tumult-analytics"]))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "exactdp: error: tmlt.analytics is not installed (in the Tumult environment: tmlt.core<0.20, numpy<2, "
        "pyspark and Java 17; .ci/tumult and docs/tumult-environment.md): install it with pip install "
        "tmlt.analytics"]


@pytest.mark.parametrize("measure, case, expected", [
    ("PureDP", 0, None),  # AddOneRow: the seed's formula is for AddRowsWithID
    ("PureDP", 5, Fraction(6)),  # count: 3 rows per group * 2 groups * 1
    ("PureDP", 6, Fraction(18)),  # sum on [0, 3]: 3 * 2 * 3
    ("RhoZCDP", 5, Fraction(9)),  # (3 * sqrt(2) * 1)**2 / 2
    ("RhoZCDP", 6, Fraction(81)),  # (3 * sqrt(2) * 3)**2 / 2
])
def test_seed_parameter(measure, case, expected):
    assert suite._seed_parameter(measure, suite._cases()[case]) == expected


# --- with Tumult Analytics: the Tumult environment --------------------------------------

@pytest.fixture(scope="module")
def ta():
    module = pytest.importorskip("tmlt.analytics", reason=SKIP_REASON)
    suite._spark()
    yield module
    adapter.stop_spark()


@pytest.fixture(scope="module")
def runs(ta):
    return {measure: suite._run_all(ta, measure) for measure in ("PureDP", "RhoZCDP")}


def _by_case(rows):
    return [(r["query"].split("(")[0] if r["protected_change"] == "AddOneRow" else "grouped " + r["query"].split(".")[-1]
             .split("(")[0], r["column_type"], r["noise"], r["parameters"]) for r in rows]


def test_pure_dp_defaults_read_from_the_library(runs):
    assert _by_case(runs["PureDP"]) == [
        ("count", None, ["AddGeometricNoise"], [Fraction(1)]),
        ("sum", "INTEGER", ["AddGeometricNoise"], [Fraction(3)]),
        ("sum", "DECIMAL", ["AddLaplaceNoise"], [Fraction(3)]),
        # average: a sum and a count, half the budget each (the sum's noise shifted to the middle)
        ("average", "INTEGER", ["AddGeometricNoise", "AddGeometricNoise"], [Fraction(2), Fraction(4)]),
        ("average", "DECIMAL", ["AddLaplaceNoise", "AddLaplaceNoise"], [Fraction(2), Fraction(3)]),
        ("grouped count", None, ["AddGeometricNoise"], [Fraction(6)]),
        ("grouped sum", "DECIMAL", ["AddLaplaceNoise"], [Fraction(18)]),
    ]
    assert all(sorted(r["reported"]) == sorted(r["noise"]) for r in runs["PureDP"])
    assert all(r["rows_returned"] == (2 if r["protected_change"] != "AddOneRow" else 1) for r in runs["PureDP"])


def test_rhozcdp_defaults_read_from_the_library(runs):
    assert _by_case(runs["RhoZCDP"]) == [
        ("count", None, ["AddDiscreteGaussianNoise"], [Fraction(1, 2)]),
        ("sum", "INTEGER", ["AddDiscreteGaussianNoise"], [Fraction(9, 2)]),
        ("sum", "DECIMAL", ["AddGaussianNoise"], [Fraction(9, 2)]),
        ("average", "INTEGER", ["AddDiscreteGaussianNoise", "AddDiscreteGaussianNoise"], [Fraction(1), Fraction(4)]),
        ("average", "DECIMAL", ["AddGaussianNoise", "AddGaussianNoise"], [Fraction(1), Fraction(9, 4)]),
        ("grouped count", None, ["AddDiscreteGaussianNoise"], [Fraction(9)]),
        ("grouped sum", "DECIMAL", ["AddGaussianNoise"], [Fraction(81)]),
    ]
    assert all(sorted(r["reported"]) == sorted(r["noise"]) for r in runs["RhoZCDP"])


@pytest.mark.parametrize("measure, family", [("PureDP", "Laplace"), ("RhoZCDP", "Gaussian")])
def test_the_seeds_defaults_hold_on_every_column_type(ta, runs, measure, family):
    version = runner.installed_version("tumult-analytics")
    finding = suite._finding(ta, measure, runs[measure], version).enforced()
    assert finding.verdict is Verdict.HOLDS_ON_GRID
    assert finding.claim.startswith(f"the default noise under {measure} is {family} noise")
    assert finding.scope.startswith(f"tmlt.analytics {version}: 7 queries")
    assert finding.settings.count == 7
    assert "on DECIMAL columns" in finding.note and "on counts and INTEGER columns" in finding.note
    assert "parameters are seed 001's sensitivity formula" in finding.note


def test_another_family_is_a_violation_replayed_on_a_fresh_session(ta, runs, monkeypatch):
    # were the seed's sentence "continuous Laplace only", the integer columns and counts would
    # refute it: the first such query is the witness, and a fresh Session gives it again
    monkeypatch.setitem(suite.FAMILIES, "PureDP", ("continuous Laplace", ("AddLaplaceNoise",)))
    finding = suite._finding(ta, "PureDP", runs["PureDP"], "0.21.0").enforced()
    assert finding.verdict is Verdict.VIOLATED
    assert finding.replay.value == "confirmed"
    assert finding.witness == {"query": "count()", "protected_change": "AddOneRow", "budget": "PureDPBudget(1)",
                               "column": None, "column_type": None, "noise": ["AddGeometricNoise"],
                               "reported": ["AddGeometricNoise"], "parameters": ["1"]}


def test_a_report_that_disagrees_withholds_the_verdict(ta, runs):
    rows = [dict(r) for r in runs["RhoZCDP"]]
    rows[2]["reported"] = ["AddDiscreteGaussianNoise"]
    finding = suite._finding(ta, "RhoZCDP", rows, "0.21.0").enforced()
    assert finding.verdict is Verdict.UNDECIDED
    assert "disagree on 1 of 7 queries" in finding.note


def test_recording_restores_the_queryable(ta):
    from tmlt.core.measurements.interactive_measurements import SequentialQueryable

    before = SequentialQueryable.__call__
    with suite._recording() as seen:
        assert SequentialQueryable.__call__ is not before
    assert SequentialQueryable.__call__ is before and seen == []
