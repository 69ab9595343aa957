"""The Tumult Core suite and adapter.

Tumult Core (``tmlt.core``) pins ``numpy<2`` and needs pyspark and Java, so it lives in an
environment of its own (``.ci/tumult``, ``docs/tumult-environment.md``). The tests that run
the library skip with that reason where it is absent; the tests at the top run everywhere
and check that ``exactdp audit tumult`` without the library exits 2 naming the extra.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.adapters import tumult as adapter
from exactdp.errors import InvalidArgument, MissingDependency

import importlib.util as _util

_spec = _util.spec_from_file_location("hidden_library", Path(__file__).resolve().parent.parent / "hidden_library.py")
_hidden = _util.module_from_spec(_spec)
_spec.loader.exec_module(_hidden)  # the code that hides a library in a child process

ROOT = Path(__file__).resolve().parents[2]
# pyspark leaves its result sockets to the garbage collector (a ResourceWarning, raised as an
# "unraisable" warning at the next test): pyspark's, not exactdp's, so not an error here.
# tmlt.core 0.19.1 (the version tmlt.analytics 0.21.0 pins) loads its bundled Arb with
# importlib.resources.path, deprecated on CPython 3.11: Tumult's, not exactdp's.
pytestmark = [pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
              pytest.mark.filterwarnings(r"ignore:path is deprecated\. Use files\(\) instead:DeprecationWarning")]

SKIP_REASON = ("Tumult Core is not installed: it needs its own environment (numpy<2); "
               "see docs/tumult-environment.md")


def _has_tmlt() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("tmlt.core") is not None
    except ModuleNotFoundError:
        return False


# --- everywhere: the library missing ----------------------------------------------------

# Where tmlt.core is installed (its own environment), the child hides it: the import fails
# and the distribution's metadata is not found, as in an environment without it.
_HIDE = _hidden.hide("tmlt.core", "tmlt", "tmlt.core")


def _run_cli_without_tmlt(*args: str) -> subprocess.CompletedProcess:
    code = (_HIDE if _has_tmlt() else "import sys\n") + textwrap.dedent(f"""
        from exactdp.cli import main
        sys.exit(main({list(args)!r}))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120, env=env, cwd=ROOT)


@pytest.mark.parametrize("args", [("audit", "tumult"), ("audit", "tumult", "--list")])
def test_audit_without_tumult_exits_2_naming_the_extra(args):
    done = _run_cli_without_tmlt(*args)
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines == [("exactdp: error: tmlt.core is not installed (in an environment of its own: numpy<2, "
                      "pyspark and Java 17; .ci/tumult and docs/tumult-environment.md): install it with "
                      "pip install 'exactdp[tumult]'")]


@pytest.mark.skipif(_has_tmlt(), reason="tmlt.core is installed here")
def test_adapter_without_tumult_raises_missing_dependency_naming_the_extra():
    with pytest.raises(MissingDependency, match=r"pip install 'exactdp\[tumult\]'") as info:
        adapter.require()
    assert (info.value.library, info.value.extra) == ("tmlt.core", "tumult")
    with pytest.raises(MissingDependency):
        adapter.spark_session()


def test_suite_lists_without_importing_the_library():
    from exactdp.audits.runner import suite

    ids = [a.id for a in suite("tumult") if not a.id.startswith("tumult/api/")]
    assert ids[0] == "tumult/laplace/privacy-function"
    assert all(i.startswith("tumult/") for i in ids) and len(ids) == len(set(ids)) == 13


# --- everywhere: the Spark sum model on its own ----------------------------------------

@pytest.mark.parametrize("partitions, kind, expected", [
    ([[1.0, 3 * 2.0**-52, 1.0]], "float", Fraction(2) + Fraction(1, 2**50)),
    ([[1.0, 3 * 2.0**-52], [1.0]], "float", Fraction(2) + Fraction(1, 2**50)),
    ([[2.0**53], [1.0], [1.0]], "float", Fraction(2**53)),       # partials folded in order
    ([[2.0**53, 1.0], [1.0]], "float", Fraction(2**53)),
    ([[1.0, 1.0], [2.0**53]], "float", Fraction(2**53 + 2)),
    ([], "float", Fraction(0)),
    ([[], []], "int", Fraction(0)),
    ([[2**62, 2**62]], "int", Fraction(-2**63)),
    ([[2**62], [2**62, -1]], "int", Fraction(2**63 - 1)),
])
def test_spark_sum_model_values(partitions, kind, expected):
    assert adapter.spark_sum_model(partitions, kind) == expected


def test_wrap_int64():
    assert [adapter.wrap_int64(n) for n in (2**63 - 1, 2**63, -2**63 - 1, 2**64 + 5)] == [
        2**63 - 1, -2**63, 2**63 - 1, 5]


@pytest.mark.parametrize("bad", [
    lambda: adapter.spark_sum_model([[1.0]], "decimal"),
    lambda: adapter.exact(0.5),
    lambda: adapter.exact(True),
])
def test_invalid_arguments(bad):
    with pytest.raises(InvalidArgument):
        bad()


# --- with Tumult Core: its own environment ----------------------------------------------

@pytest.fixture(scope="module")
def tmlt():
    module = pytest.importorskip("tmlt.core", reason=SKIP_REASON)
    yield module
    adapter.stop_spark()


def test_exact_reads_exact_numbers(tmlt):
    import sympy
    from tmlt.core.utils.exact_number import ExactNumber

    assert adapter.exact(ExactNumber(sympy.Rational(1, 3))) == Fraction(1, 3)
    assert adapter.exact(ExactNumber(7)) == Fraction(7)
    assert adapter.exact(ExactNumber(sympy.sqrt(2))) == sympy.sqrt(2)
    with pytest.raises(InvalidArgument, match="infinite"):
        adapter.exact(ExactNumber(float("inf")))


@pytest.mark.parametrize("kind", ["float", "int"])
def test_spark_sum_model_matches_spark_on_random_partitioned_inputs(tmlt, kind):
    from exactdp.audits.suite_tumult import _spark_sum

    spark_sum = _spark_sum(adapter, kind)
    assert adapter.check_spark_sum_model(spark_sum, trials=8, seed=1, kind=kind) == []
    # and the check does catch a wrong model: Spark is not a pairwise sum
    rng = random.Random(2)
    values = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-40, 40) for _ in range(30)]
    if kind == "float":
        from exactdp.numeric.floatsum import float_sum

        assert spark_sum([values], "float") == float_sum(values, "sequential")
        assert spark_sum([values], "float") != float_sum(values, "fsum")


@pytest.fixture(scope="module")
def results(tmlt):
    from exactdp.audits.runner import run_audits

    # the hand-written audits (the generic API audits: test_tumult_objects.py samples them,
    # .ci/tumult runs them all through exactdp audit tumult)
    return {r.id: r for r in run_audits("tumult", only=list(EXPECTED))}


# id -> (verdict, replay)
EXPECTED = {
    "tumult/laplace/privacy-function": ("holds-ideal-noise", None),
    "tumult/geometric/privacy-function": ("holds-ideal-noise", None),
    "tumult/discrete-gaussian/privacy-function": ("holds-ideal-noise", None),
    "tumult/exact-number/to-float-direction": ("holds-on-grid", None),
    "tumult/count/stability": ("holds-on-grid", None),
    "tumult/add-unique-column/stability": ("violated", "confirmed"),
    "tumult/sum/integer-bounded": ("holds-on-grid", None),
    "tumult/sum/float-rounding": ("violated", "confirmed"),
    "tumult/sum/float-rounding-hamming": ("violated", "confirmed"),
    "tumult/sum/integer-overflow": ("violated", "confirmed"),
    "tumult/sum/equal-bounds": ("violated", "confirmed"),
    "tumult/sum/tiny-upper-bound": ("violated", "confirmed"),
    "tumult/accountant/sequential-budget": ("holds-ideal-noise", None),
}


@pytest.mark.parametrize("audit_id", sorted(EXPECTED))
def test_verdicts(results, audit_id):
    r = results[audit_id]
    assert (r.verdict, r.replay) == EXPECTED[audit_id], str(r)
    assert r.expected == r.verdict  # the suite's own expectation on 0.19.1 and 0.20
    assert r.library == "tmlt.core" and r.version
    # no plain holds here: the noise is taken as ideal, the rest is enumerated on a grid
    assert r.evidence == {"holds-ideal-noise": "ideal-noise", "holds-on-grid": "bit-exact-grid",
                          "violated": "bit-exact"}[r.verdict], str(r)


def test_sum_witnesses_are_exact(results):
    w = results["tumult/sum/float-rounding"].witness
    assert (w["x"], w["x_prime"]) == (["6.661338147750939e-16", "1.0"],
                                      ["6.661338147750939e-16", "1.0", "1.0"])
    assert Fraction(w["distance"]) == 1 + Fraction(1, 2**52)
    assert results["tumult/sum/float-rounding"].truth == "4503599627370497/4503599627370496"
    assert results["tumult/sum/float-rounding"].claimed == "1"

    w = results["tumult/sum/float-rounding-hamming"].witness
    assert Fraction(w["distance"]) == 2 + Fraction(1, 2**52)
    assert results["tumult/sum/float-rounding-hamming"].claimed == "2"

    w = results["tumult/sum/integer-overflow"].witness
    assert (Fraction(w["fx"]), Fraction(w["fx_prime"])) == (2**62, -2**63)
    assert Fraction(w["distance"]) == 3 * 2**62

    w = results["tumult/sum/equal-bounds"].witness
    third_up = Fraction(w["fx_prime"])
    assert third_up > Fraction(1, 3) and float(third_up) == 0.3333333333333343

    w = results["tumult/add-unique-column/stability"].witness
    assert (w["x"], w["x_prime"], w["d_in"], w["d_out"]) == (["0.0"], ["-0.0", "0.0"], "1", "3")
    assert w["ids_x"] == ['{"X":0.0,"A":1}']
    assert w["ids_x_prime"] == ['{"X":-0.0,"A":1}', '{"X":0.0,"A":2}']

    w = results["tumult/sum/tiny-upper-bound"].witness
    assert Fraction(w["fx_prime"]) == -Fraction(1e-15)


def test_holds_are_modelled_and_scoped(results):
    for audit_id in ("tumult/sum/integer-bounded", "tumult/count/stability"):
        r = results[audit_id]
        assert "'holds' withheld" not in r.note and r.evidence == "bit-exact-grid"
        assert "multisets" in r.scope
    assert "modelled bit for bit" in results["tumult/sum/integer-bounded"].scope
    assert (results["tumult/sum/integer-bounded"].truth, results["tumult/sum/integer-bounded"].claimed) == ("5", "5")
    assert results["tumult/sum/integer-bounded"].tight and results["tumult/count/stability"].tight
    laplace = results["tumult/laplace/privacy-function"]
    assert laplace.claimed.startswith("3 (AddLaplaceNoise(NumpyFloatDomain(), scale=1/3), d_in=1")
    assert laplace.truth.startswith(f"{Fraction(1) / Fraction(0.3333333333333343)} there")


def test_every_audit_says_what_it_expects_on_the_version_it_was_reproduced_on():
    from exactdp.audits.runner import suite

    for audit in suite("tumult"):
        assert audit.expected("0.20.0") in ("holds-ideal-noise", "holds-on-grid", "violated"), audit.id
        assert audit.expected("0.19.1") == audit.expected("0.20.0"), audit.id
        assert audit.expected("0.19.0") is None, audit.id
        assert audit.expected("0.21.0") is None, audit.id
