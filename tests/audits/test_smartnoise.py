"""The SmartNoise SQL suite and adapter.

smartnoise-sql 1.0.10 installs only with opendp 0.14.2, which exactdp's test extra
(opendp>=0.16) excludes, so it lives in an environment of its own (``.ci/smartnoise``). The
tests that run the library skip with that reason where it is absent; the tests at the top
run everywhere and check that ``exactdp audit smartnoise-sql`` without it exits 2 naming
the extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.adapters import smartnoise as adapter
from exactdp.errors import InvalidArgument, MissingDependency

import importlib.util as _util

_spec = _util.spec_from_file_location("hidden_library", Path(__file__).resolve().parent.parent / "hidden_library.py")
_hidden = _util.module_from_spec(_spec)
_spec.loader.exec_module(_hidden)  # the code that hides a library in a child process

ROOT = Path(__file__).resolve().parents[2]

SKIP_REASON = ("smartnoise-sql is not installed: it needs its own environment (it pins "
               "opendp 0.14.2, the test extra needs opendp>=0.16); see .ci/smartnoise")


def _has_snsql() -> bool:
    import importlib.util

    return importlib.util.find_spec("snsql") is not None


needs_snsql = pytest.mark.skipif(not _has_snsql(), reason=SKIP_REASON)

# --- everywhere: the library missing ----------------------------------------------------

_HIDE = _hidden.hide("smartnoise-sql", "snsql")


def _run_cli_without_snsql(*args: str) -> subprocess.CompletedProcess:
    code = (_HIDE if _has_snsql() else "import sys\n") + textwrap.dedent(f"""
        from exactdp.cli import main
        sys.exit(main({list(args)!r}))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120, env=env, cwd=ROOT)


@pytest.mark.parametrize("args", [("audit", "smartnoise-sql"), ("audit", "smartnoise-sql", "--list")])
def test_audit_without_smartnoise_exits_2_naming_the_extra(args):
    done = _run_cli_without_snsql(*args)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "exactdp: error: smartnoise-sql is not installed (in an environment of its own: it pins opendp "
        "0.14.2; .ci/smartnoise): install it with pip install 'exactdp[smartnoise-sql]'"]


@pytest.mark.skipif(_has_snsql(), reason="snsql is installed here")
def test_adapter_without_smartnoise_raises_missing_dependency_naming_the_extra():
    with pytest.raises(MissingDependency, match=r"pip install 'exactdp\[smartnoise-sql\]'") as info:
        adapter.require()
    assert (info.value.library, info.value.extra) == ("smartnoise-sql", "smartnoise-sql")
    with pytest.raises(MissingDependency):
        adapter.private_reader([(0, 1.0)], adapter.metadata(0.0, 1.0))


FIRST_IDS = [
    "smartnoise-sql/count/sensitivity", "smartnoise-sql/count-distinct/sensitivity",
    "smartnoise-sql/sum/float", "smartnoise-sql/sum/int", "smartnoise-sql/avg/sensitivity",
    "smartnoise-sql/var/sensitivity", "smartnoise-sql/sum/metadata-sensitivity-range",
    "smartnoise-sql/corpus/317-unbounded-column",
    "smartnoise-sql/corpus/201-expression-in-aggregate"]
LATER_IDS = [
    "smartnoise-sql/sum/extreme-bounds", "smartnoise-sql/aggregate/max", "smartnoise-sql/aggregate/min",
    "smartnoise-sql/aggregate/percentile_cont", "smartnoise-sql/aggregate/percentile_disc",
    "smartnoise-sql/aggregate/std", "smartnoise-sql/aggregate/stddev", "smartnoise-sql/aggregate/stdev",
    "smartnoise-sql/aggregate/variance", "smartnoise-sql/odometer/homogeneous",
    "smartnoise-sql/odometer/heterogeneous", "smartnoise-sql/odometer/private-reader",
    "smartnoise-sql/mechanism/laplace-scale", "smartnoise-sql/mechanism/gaussian-scale",
    "smartnoise-sql/threshold/laplace", "smartnoise-sql/threshold/gaussian",
    "smartnoise-sql/approx-bounds/histogram"]


def test_suite_lists_without_importing_the_library():
    from exactdp.audits.runner import checked_on, suite, supported

    audits = suite("smartnoise-sql")
    ids = [a.id for a in audits]
    assert ids == FIRST_IDS + LATER_IDS
    assert checked_on("smartnoise-sql") == ("1.0.10",)
    assert supported("smartnoise-sql") == ">=1.0,<1.1"
    corpus = [a.id for a in audits if a.corpus]
    assert corpus == FIRST_IDS[-2:]
    assert "snsql" not in sys.modules or _has_snsql()
    # every audit names the primitives it runs; the severity step is on the homogeneous odometer
    assert all(a.covers for a in audits), [a.id for a in audits if not a.covers]
    assert [a.id for a in audits if a.severity is not None] == ["smartnoise-sql/odometer/homogeneous"]
    by_id = {a.id: a for a in audits}
    assert by_id["smartnoise-sql/aggregate/percentile_cont"].covers == (
        "snsql.sql.private_reader.PrivateReader.execute[PERCENTILE_CONT]",
        "snsql.sql.private_reader.PrivateReader.execute")
    assert by_id["smartnoise-sql/odometer/homogeneous"].covers == (
        "snsql.sql.odometer.Odometer", "snsql.sql.privacy.Privacy")
    expected = {i: a.expected("1.0.10") for i, a in by_id.items()}
    assert [i for i, v in expected.items() if v == "violated"] == [
        "smartnoise-sql/sum/metadata-sensitivity-range", "smartnoise-sql/sum/extreme-bounds",
        "smartnoise-sql/odometer/homogeneous",
        "smartnoise-sql/odometer/heterogeneous", "smartnoise-sql/odometer/private-reader",
        "smartnoise-sql/threshold/laplace", "smartnoise-sql/threshold/gaussian",
        "smartnoise-sql/approx-bounds/histogram"]


def test_generated_aggregate_audits_follow_the_grammar_list():
    from exactdp.audits import suite_smartnoise as s

    assert s.AGGREGATES == ("AVG", "COUNT", "MAX", "MIN", "PERCENTILE_CONT", "PERCENTILE_DISC", "STD",
                            "STDDEV", "STDEV", "SUM", "VAR", "VARIANCE")
    generated = [i for i in (a.id for a in s.audits()) if i.startswith("smartnoise-sql/aggregate/")]
    assert generated == [f"smartnoise-sql/aggregate/{n.lower()}" for n in s.AGGREGATES
                         if n not in ("COUNT", "SUM", "AVG", "VAR")]
    assert sorted(s.NOT_AUDITED) == ["snsql.sql.dpsu.policy_laplace", "snsql.sql.dpsu.run_dpsu"]
    assert "AttributeError" in s.NOT_AUDITED["snsql.sql.dpsu.run_dpsu"]


@pytest.mark.skipif(_has_snsql(), reason="snsql is installed here")
def test_coverage_without_smartnoise_says_how_to_install_it():
    done = _run_cli_without_snsql("audit", "smartnoise-sql", "--coverage")
    assert done.returncode == 2, done
    assert "pip install 'exactdp[smartnoise-sql]'" in done.stderr


def test_pyproject_extra_pins_the_checked_release():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["smartnoise-sql"] == ["smartnoise-sql>=1.0,<1.1"]
    assert not any("smartnoise" in d for d in extras["test"])  # its own environment


@pytest.mark.parametrize("call, message", [
    (lambda: adapter.metadata(0, 1, kind="decimal"), "kind='decimal'"),
    (lambda: adapter.exact("3"), "value='3'"),
])
def test_adapter_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_adapter_exact_and_metadata_without_the_library():
    assert adapter.exact(0.1) == Fraction(3602879701896397, 36028797018963968)
    assert adapter.exact(7) == 7 and adapter.exact(True) == 1
    meta = adapter.metadata(2.0, 10.0, max_ids=2, sensitivity=8.0)
    table = meta[""][""]["T"]
    assert table["x"] == {"type": "float", "lower": 2.0, "upper": 10.0, "sensitivity": 8.0}
    assert (table["max_ids"], table["censor_dims"], table["clamp_counts"]) == (2, False, False)
    assert table["pid"] == {"type": "int", "private_id": True}


# --- with snsql (its own environment) ---------------------------------------------------


@needs_snsql
def test_noised_columns_read_the_sensitivity_and_scale():
    reader = adapter.private_reader([(0, 3.0)], adapter.metadata(2.0, 10.0, max_ids=2))
    (col,) = adapter.noised_columns(reader, "SELECT SUM(x) FROM T")
    assert (col.name, col.sensitivity, col.max_contrib, col.claimed, col.epsilon) == (
        "sum_x", 10, 2, 20, 1)
    assert 20 < col.scale < Fraction(2001, 100)  # OpenDP's binary search, a little above 20
    names = [(c.name, c.sensitivity) for c in adapter.noised_columns(reader, "SELECT AVG(x) FROM T")]
    assert names == [("sum_x", 10), ("count_x", 1)]
    var = {c.sensitivity for c in adapter.noised_columns(reader, "SELECT VAR(x) FROM T")}
    assert var == {100, 1, 10}  # SUM(x * x) gets max(|L|, |U|)**2


@needs_snsql
def test_exact_aggregates_pins_the_reservoir_sample():
    reader = adapter.private_reader([(0, 3.0)], adapter.metadata(2.0, 10.0, max_ids=2))
    rows = [(1, 3.0), (1, 20.0), (1, 12.0), (2, 5.0)]  # id 1 has 3 rows; 20 and 12 clamp to 10
    big = adapter.exact_aggregates(reader, "SELECT SUM(x) FROM T", rows, keep="largest")
    small = adapter.exact_aggregates(reader, "SELECT SUM(x) FROM T", rows, keep="smallest")
    assert (big, small) == ([{"sum_x": 25}], [{"sum_x": 18}])
    assert adapter.exact_aggregates(reader, "SELECT COUNT(*) FROM T", rows) == [{"count_star": 3}]
    assert adapter.exact_aggregates(reader, "SELECT SUM(x) FROM T", []) == [{"sum_x": None}]
    with pytest.raises(InvalidArgument, match="keep='middle'"):
        adapter.plan(reader, "SELECT SUM(x) FROM T", "middle")


@needs_snsql
def test_release_with_the_noise_removed_replays_the_range_override():
    meta = adapter.metadata(2.0, 10.0, max_ids=2, sensitivity=8.0)
    assert adapter.private_reader([(0, 2.0)], meta).warned == []  # accepted silently
    assert adapter.release([(0, 10.0), (0, 10.0)], meta, "SELECT SUM(x) FROM T") == [[20.0]]
    assert adapter.release([], meta, "SELECT SUM(x) FROM T") == [[0.0]]
    other = adapter.private_reader([(0, 2.0)], adapter.metadata(2.0, 10.0, sensitivity=7.0))
    assert other.warned and "will override sensitivity" in other.warned[0]


@pytest.fixture(scope="module")
def results():
    from exactdp.audits.runner import run_audits

    return {r.id: r for r in run_audits("smartnoise-sql")}


@needs_snsql
def test_the_suite_on_the_installed_version(results):
    assert all(r.verdict == r.expected for r in results.values()), {
        i: (r.verdict, r.note) for i, r in results.items() if r.verdict != r.expected}
    bad = results["smartnoise-sql/sum/metadata-sensitivity-range"]
    assert (bad.verdict, bad.replay, bad.evidence) == ("violated", "confirmed", "bit-exact")
    assert (bad.claimed, bad.truth) == ("2 * 8 = 16 (sum_x)", "20")
    assert bad.witness == {"column": "sum_x", "x": [], "x_prime": [[0, "10"], [0, "10"]],
                           "fx": "0", "fx_prime": "20", "distance": "20", "d_in": 1,
                           "replayed_by": "PrivateReader.execute with the noise removed"}
    assert "it raised no warning here" in bad.note and "20/b = 1.25 against the epsilon 1" in bad.note
    total = results["smartnoise-sql/sum/float"]
    assert (total.claimed, total.truth, total.evidence, total.tight) == (
        "sum_x: 2 * 5 = 10", "sum_x: 10", "bit-exact-grid", True)
    assert "all 1,225 (id, value) datasets" in total.scope
    assert results["smartnoise-sql/sum/int"].truth == "sum_x: 6"
    assert results["smartnoise-sql/count/sensitivity"].truth == "count_star: 2; count_x: 2"
    assert results["smartnoise-sql/avg/sensitivity"].truth == "count_x: 2; sum_x: 10"
    var = results["smartnoise-sql/var/sensitivity"].truth
    assert var.startswith("count_x: 2; sum_alias_") and var.endswith(": 50; sum_x: 10")
    refused = results["smartnoise-sql/corpus/201-expression-in-aggregate"].truth
    assert refused == ("all 4 refused (e.g. 'SELECT SUM(x + 100) FROM T': ValueError \"We don't "
                       "support aggregation over expressions: SUM(T.x + 100)\")")
    assert "Attempting to query an unbounded column" in results[
        "smartnoise-sql/corpus/317-unbounded-column"].truth


@needs_snsql
def test_coverage_from_the_namespace():
    from exactdp.audits import suite_smartnoise as s
    from exactdp.audits.runner import coverage

    cov = coverage("smartnoise-sql")
    assert (len(cov.primitives), cov.audited) == (26, 24)
    assert cov.summary() == "smartnoise-sql 1.0.10: 24 of 26 listed primitives audited (92.3%)"
    listed = [p.name for p in cov.primitives]
    assert listed[:6] == ["snsql.sql._mechanisms.Gaussian", "snsql.sql._mechanisms.Laplace",
                          "snsql.sql._mechanisms.Unbounded", "snsql.sql._mechanisms.Gaussian.threshold",
                          "snsql.sql._mechanisms.Laplace.threshold",
                          "snsql.sql._mechanisms.approx_bounds.approx_bounds"]
    assert [p.name for p in cov.primitives if not p.audited] == sorted(s.NOT_AUDITED)
    assert adapter.aggregate_names() == s.AGGREGATES  # the grammar the suite's ids were written from


@needs_snsql
def test_certified_delta_is_the_optimal_composition():
    from exactdp.audits.suite_smartnoise import certified_delta

    # at epsilon >= the sum, exactly 1 - prod(1 - delta_i)
    assert certified_delta([(1.0, 0.5), (1.0, 0.5)], Fraction(2)) == (Fraction(3, 4), Fraction(3, 4))
    # one randomized response of epsilon 1 at epsilon 0: its total variation (e - 1)/(e + 1)
    lo, hi = certified_delta([(1.0, 0.0)], Fraction(0))
    # tanh(1/2) = 0.46211715726000975850...
    assert lo < Fraction(462117157260009759, 10**18) and hi > Fraction(462117157260009758, 10**18)
    assert 0 < hi - lo < Fraction(1, 10**6)


@needs_snsql
def test_odometers_judged(results):
    homo = results["smartnoise-sql/odometer/homogeneous"]
    assert (homo.verdict, homo.replay, homo.evidence) == ("violated", "confirmed", "bit-exact")
    assert homo.settings.count == 11  # 13 settings, 2 raise ZeroDivisionError (delta/2 is 0)
    assert homo.witness["odometer"] == "Odometer(Privacy(epsilon=0.5, delta=0.1)), spend(20)"
    assert homo.witness["spent"] == [7.922514929149065, 0.15679577164913472]
    truth = 1 - (1 - adapter.exact(0.1)) ** 20  # epsilon below 20 * 0.5: at least the optimal delta at 10
    assert homo.witness["certified_delta"][0] >= float(truth) - 1e-12
    assert "ZeroDivisionError" in homo.note and "delta=5e-324" in homo.note
    hetero = results["smartnoise-sql/odometer/heterogeneous"]
    assert (hetero.verdict, hetero.replay) == ("violated", "confirmed")
    assert hetero.witness["spent"] == [3e-06, 0.0] and hetero.witness["certified_delta"] == [1.5e-323, 1.5e-323]
    reader = results["smartnoise-sql/odometer/private-reader"]
    assert (reader.verdict, reader.replay) == ("violated", "confirmed")
    assert (reader.witness["privacy"], reader.witness["spent"], reader.witness["mechanisms"]) == (
        [700.0, 1e-300], [6300.0, 0.0], 9)


@needs_snsql
def test_mechanisms_thresholds_and_approx_bounds(results):
    lap = results["smartnoise-sql/threshold/laplace"]
    assert (lap.verdict, lap.replay, lap.evidence) == ("violated", "confirmed", "ideal-noise")
    assert {k: lap.witness[k] for k in ("epsilon", "delta", "max_ids", "scale")} == {
        "epsilon": 0.001, "delta": 1e-06, "max_ids": 1, "scale": 1000.0000093132269}
    gauss = results["smartnoise-sql/threshold/gaussian"]
    assert (gauss.verdict, gauss.witness["max_ids"]) == ("violated", 5)
    ab = results["smartnoise-sql/approx-bounds/histogram"]
    assert (ab.verdict, ab.replay) == ("violated", "confirmed")
    assert {k: ab.witness[k] for k in ("epsilon", "scale", "x", "x_prime", "histogram_l1")} == {
        "epsilon": 1e-06, "scale": 1000000.0, "x": [], "x_prime": [0.0], "histogram_l1": "1"}
    for i, n in (("laplace-scale", 29), ("gaussian-scale", 20)):
        r = results[f"smartnoise-sql/mechanism/{i}"]
        assert (r.verdict, r.settings.count) == ("holds-ideal-noise", n)
    assert results["smartnoise-sql/aggregate/stddev"].truth == results["smartnoise-sql/var/sensitivity"].truth


@needs_snsql
def test_sum_at_bounds_2_to_52_rounds_past_its_sensitivity(results):
    r = results["smartnoise-sql/sum/extreme-bounds"]
    assert (r.verdict, r.replay, r.evidence, r.truth) == ("violated", "confirmed", "bit-exact", str(2**53 + 2))
    assert r.claimed == f"2 * {2**52} = {2**53} (sum_x)"
    w = r.witness
    assert (w["x"], w["fx"], w["fx_prime"], w["distance"]) == (
        [[1, str(2**52 - 1)], [1, "-1"]], str(2**52 - 2), str(3 * 2**52), str(2**53 + 2))
    assert r.settings.count == 1  # the first of the three bounds already exceeds
    assert "(0.99999999" in r.note  # OpenDP's scale search leaves room for it: loss still below epsilon
    assert results["smartnoise-sql/aggregate/max"].truth.startswith("all 2 refused")


@needs_snsql
def test_odometer_severity_is_replayed():
    from exactdp.audits.runner import run_one, suite

    (audit,) = [a for a in suite("smartnoise-sql") if a.id == "smartnoise-sql/odometer/homogeneous"]
    sev = run_one(audit, adapter.version(), depth="full").severity
    assert (sev.status, sev.replay, sev.at_least) == ("exceeds", "confirmed", True)
    assert sev.witness["odometer"] == "Odometer(Privacy(epsilon=1.0, delta=1e-300)), spend(3)"
    assert sev.witness["spent"] == [3.0, 5e-301]  # 1 - (1 - 1e-300)^3 is 0 in floats: only delta/2 is left
    assert sev.claim == adapter.exact(5e-301) and sev.worst == 1 - (1 - adapter.exact(1e-300)) ** 3
