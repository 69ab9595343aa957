"""``exactdp audit --depth quick|full`` (issue 18, parts 1-2): the Severity an audit's
severity step returns, the runner and every report format showing it, and the diffprivlib
steps on reduced grids (real witnesses, ratios and replays); the diffprivlib coverage
added beside them (nansum, GaussianDiscrete, the float Laplace's precision witness)."""

from __future__ import annotations

import collections
import importlib.util
import json
import time
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.audits import Audit, AuditResult, Finding, Replay, runner
from exactdp.audits.base import DEPTHS, Severity
from exactdp.audits.report import FORMATS, Report, render
from exactdp.checkers.results import Evidence, Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument


def _report_helpers():
    """The JUnit XSD-subset validator and the SARIF schema check of test_report.py."""
    path = Path(__file__).resolve().parent / "test_report.py"
    spec = importlib.util.spec_from_file_location("_h7_test_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.JUNIT, module.sarif_errors


# -- Severity --------------------------------------------------------------------------------


def test_severity_ratio_excess_status_and_replay_rule():
    s = Severity("|sum(x') - sum(x)|", 1, Fraction(2**32 + 1, 2**32), replay=Replay.CONFIRMED,
                 evidence=Evidence.BIT_EXACT)
    assert (s.ratio, s.excess, s.status, s.exceeds) == (Fraction(2**32 + 1, 2**32), Fraction(1, 2**32), "exceeds", True)
    assert s.summary() == ("exceeds: worst |sum(x') - sum(x)| = 4294967297/4294967296 (~1.00000000023) against the "
                           "claim 1: ratio = 4294967297/4294967296 (~1.00000000023), excess = 1/4294967296 "
                           "(~2.32830643654e-10) (replay confirmed; evidence bit-exact)")
    d = s.to_dict()
    assert (d["worst"], d["ratio"], d["excess"], d["excess_float"], d["replay"]) == (
        "4294967297/4294967296", "4294967297/4294967296", "1/4294967296", 2.0**-32, "confirmed")
    # the replay rule: a worst case the library did not reproduce, or never fed back, is not certified
    mismatch = Severity("d", 1, 3, replay=Replay.MODEL_MISMATCH).enforced()
    assert mismatch.status == "undecided" and "did not reproduce in the library" in mismatch.note
    unreplayed = Severity("d", 1, 3).enforced()
    assert unreplayed.status == "undecided" and unreplayed.note.endswith("not replayed through the library: not certified")
    assert Severity("d", 2, 1).status == "within" and Severity("d", None, None, note="x").status == "none"
    assert Severity.failed("d", "boom").summary() == "error: the severity step could not run: boom"
    # a lower bound (an enclosure's lower end): '>=' and floats rounded down
    low = Severity("delta", Fraction(1, 10**20), Fraction(6, 10**16), at_least=True, replay="confirmed")
    assert low.summary().startswith("exceeds: worst delta >= 3/5000000000000000 (~6e-16) against the claim")
    assert low.to_dict()["ratio_float"] == 60000.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(claim=0.5, worst=1), "claim=0.5: a Severity's claim is an exact number"),
    (dict(claim=1, worst=True), "worst=True: a Severity's worst is an exact number"),
    (dict(claim=0, worst=1), "claim=Fraction(0, 1): a Severity compares with a positive claim"),
])
def test_severity_refuses_inexact_or_nonpositive_claims(kwargs, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        Severity("d", **kwargs)


# -- the runner ------------------------------------------------------------------------------

CALLS: list[str] = []


def _violated() -> Finding:
    CALLS.append("check")
    return Finding("1", "2", Verdict.VIOLATED, witness={"x": [1]}, replay=Replay.CONFIRMED, evidence=Evidence.BIT_EXACT)


def _severity() -> Severity:
    CALLS.append("severity")
    return Severity("|f(x') - f(x)|", 1, 8, witness={"n": 4096}, replay=Replay.CONFIRMED, evidence=Evidence.BIT_EXACT)


def _raising_severity() -> Severity:
    runner.call_library("fake.sum(huge)", lambda: 1 / 0)
    raise AssertionError("unreachable")  # pragma: no cover


def _slow_severity() -> Severity:
    time.sleep(5)
    raise AssertionError("unreachable")  # pragma: no cover


def _audit(severity=_severity) -> Audit:
    return Audit("fake/sum", "fake", "sum", "sensitivity 1", _violated, severity=severity)


def test_quick_never_runs_the_severity_step_and_full_does():
    CALLS.clear()
    quick = runner.run_one(_audit(), "1.0")
    assert CALLS == ["check"] and quick.severity is None and quick.to_dict()["severity"] is None
    CALLS.clear()
    full = runner.run_one(_audit(), "1.0", depth="full")
    assert CALLS == ["check", "severity"] and full.verdict == "violated"
    assert (full.severity.status, full.severity.worst, full.severity.ratio) == ("exceeds", 8, 8)
    assert full.to_dict()["severity"]["excess"] == "7" and full.seconds >= full.severity.seconds
    assert "  severity: exceeds: worst |f(x') - f(x)| = 8 against the claim 1: ratio = 8, excess = 7" in str(full)
    assert "  severity witness: n=4096" in str(full)
    # an audit without a step is the same at both depths
    plain = Audit("fake/plain", "fake", "plain", "sensitivity 1", _violated)
    assert runner.run_one(plain, "1.0", depth="full").severity is None


def test_a_severity_step_that_cannot_run_keeps_the_verdict():
    r = runner.run_one(_audit(_raising_severity), "1.0", depth="full")
    assert r.verdict == "violated" and r.severity.status == "error"
    assert r.severity.error == "fake.sum(huge) raised ZeroDivisionError: division by zero"
    slow = runner.run_one(_audit(_slow_severity), "1.0", time_limit=0.2, depth="full")
    assert slow.verdict == "violated"
    assert slow.severity.error == "stopped after the time limit of 0.2 s (--time-limit raises it)"


@pytest.mark.parametrize("depth", ["deep", "", None, "FULL"])
def test_bad_depth_is_refused_in_one_line(depth):
    assert DEPTHS == ("quick", "full")
    with pytest.raises(InvalidArgument, match=f"depth={depth!r}: expected one of quick, full"):
        runner.run_audits("diffprivlib", depth=depth)
    with pytest.raises(InvalidArgument, match="expected one of quick, full"):
        runner.run_one(_audit(), "1.0", depth=depth)


def test_cli_bad_depth_exits_2_before_any_audit(capsys):
    CALLS.clear()
    assert main(["audit", "diffprivlib", "--depth", "deep"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "depth='deep': expected one of quick, full" in captured.err


# -- every report format shows the severity ---------------------------------------------------

SEVERE = AuditResult("fake/sum", "fake", "1.0", "sum", "sensitivity 1", "2", "violated", {"x": [1]}, "confirmed",
                     evidence="bit-exact", seconds=2.5, claimed="1",
                     severity=Severity("|f(x') - f(x)|", 1, 2097152, witness={"n": 2765821, "bounds": [2.0**52, 2.0**52 + 1]},
                                       replay=Replay.CONFIRMED, evidence=Evidence.BIT_EXACT, scope="a grid", seconds=2.0))
HOLDING = AuditResult("fake/count", "fake", "1.0", "count", "sensitivity 1", "1", "holds-tight", evidence="bit-exact",
                      seconds=0.5, severity=Severity("|f(x') - f(x)|", 1, 1, replay=None, seconds=0.25))
REPORT = Report("fake", "fake-dist", "1.0", (SEVERE, HOLDING), checked_on=("1.0",), seconds=3.0, status=1,
                depth="full")
LINE = "severity: exceeds: worst |f(x') - f(x)| = 2097152 against the claim 1: ratio = 2097152, excess = 2097151"


def test_every_format_shows_the_severity_and_the_depth():
    junit, sarif_errors = _report_helpers()
    assert FORMATS == ("text", "json", "markdown", "html", "junit", "sarif")
    text = render(REPORT, "text")
    assert text.startswith("depth: full\n") and f"  {LINE}" in text
    assert "  time: 2.50 s (severity step 2.00 s)" in text
    rows = json.loads(render(REPORT, "json"))
    assert [r["depth"] for r in rows] == ["full", "full"]
    assert rows[0]["severity"]["ratio"] == "2097152" and rows[0]["severity"]["witness"]["n"] == 2765821
    assert rows[1]["severity"]["status"] == "within"
    markdown = render(REPORT, "markdown")
    assert "- **depth**: full" in markdown and "| severity witness | value |" in markdown
    assert "- **severity**: exceeds: worst \\|f\\(x'\\) - f\\(x\\)\\| = 2097152" in markdown
    page = render(REPORT, "html")
    assert "<tr><th>depth</th><td>full</td></tr>" in page and "<th>severity witness</th>" in page
    assert f"<tr><th>severity</th><td>{LINE.split(': ', 1)[1].replace(chr(39), '&#x27;')}" in page
    root = ET.fromstring(render(REPORT, "junit").split("\n", 1)[1])
    assert junit.errors(root) == []
    props = {p.get("name"): p.get("value") for p in root.find("testsuite/properties")}
    assert props["depth"] == "full"
    assert LINE in root.find("testsuite/testcase/failure").text
    assert "severity: within: worst" in root.findall("testsuite/testcase")[1].find("system-out").text
    log = json.loads(render(REPORT, "sarif"))
    assert sarif_errors(log) == []
    (run,) = log["runs"]
    assert run["properties"]["depth"] == "full"
    assert run["results"][0]["properties"]["severity"]["ratio"] == "2097152"
    assert LINE in run["results"][0]["message"]["text"]
    assert run["properties"]["severities"]["fake/count"]["status"] == "within"


def test_quick_reports_say_depth_quick_and_carry_no_severity():
    quick = Report("fake", "fake-dist", "1.0", (AuditResult("fake/count", "fake", "1.0", "count", "c", "1",
                                                              "holds-tight", evidence="bit-exact"),))
    assert "depth" not in render(quick, "text") and json.loads(render(quick, "json"))[0]["severity"] is None
    assert json.loads(render(quick, "json"))[0]["depth"] == "quick"


# -- diffprivlib at depth full (reduced grids) -------------------------------------------------

dpl = pytest.importorskip("diffprivlib")

from exactdp.adapters import diffprivlib as A  # noqa: E402
from exactdp.audits import suite_diffprivlib as S  # noqa: E402

needs_066 = pytest.mark.skipif(dpl.__version__ != "0.6.6", reason="witnesses pinned on diffprivlib 0.6.6")
BIG = 2.0**52


@pytest.fixture
def reduced(monkeypatch):
    monkeypatch.setattr(S, "_SUM_FAMILY", ((0.0, 1.0), (BIG, BIG + 1)))
    monkeypatch.setattr(S, "_SUM_SIZES", (2**10,))
    monkeypatch.setattr(S, "_SUM_BUDGET", 100)
    monkeypatch.setattr(S, "_GA_EPSILONS", (1.0, 5.0))
    monkeypatch.setattr(S, "_GA_DELTAS", (1e-16, 1e-20))
    monkeypatch.setattr(S, "_GD_GRID", ((1.0, 1e-8, 1), (5.0, 1e-8, 1), (1.0, 1e-2, 1)))


def _steps():
    return {a.id: a.severity for a in S.audits() if a.severity is not None}


@needs_066
def test_sum_severity_reordering_finds_a_larger_excess(monkeypatch):
    """Issue 25: the severity step also searches reorderings of the records; at bounds (0, 1)
    and 1024 records the reordered pair (NumPy's eight accumulators, absorbing vs exact) moves
    np.sum by 3/2**44 beyond the claim, three times the same-order pair's 1/2**44."""
    monkeypatch.setattr(S, "_SUM_FAMILY", ((0.0, 1.0),))
    monkeypatch.setattr(S, "_SUM_SIZES", (2**10,))
    monkeypatch.setattr(S, "_SUM_BUDGET", 600)
    s = _steps()["diffprivlib/tools/sum/float-rounding"]()
    same, any_order = s.witness["by_bounds_and_size"]
    assert (same["order"], any_order["order"]) == ("same", "any")
    assert Fraction(same["difference"]) - 1 == Fraction(1, 2**44)
    assert Fraction(any_order["difference"]) - 1 == Fraction(3, 2**44)
    assert (s.status, s.excess, s.witness["order"], s.replay) == ("exceeds", Fraction(3, 2**44), "any", Replay.CONFIRMED)
    x, xp = A.array_of_runs(s.witness["x"]), A.array_of_runs(s.witness["x_prime"])
    gone = collections.Counter(x.tolist()) - collections.Counter(xp.tolist())
    assert len(x) == len(xp) and sum(gone.values()) == 1  # one record substituted, then each in its own order
    fx = A.tool_release("sum", x, bounds=(0.0, 1.0)).value
    fxp = A.tool_release("sum", xp, bounds=(0.0, 1.0)).value
    assert abs(A.exact(fxp) - A.exact(fx)) == 1 + Fraction(3, 2**44)


def test_which_diffprivlib_audits_have_a_severity_step():
    assert set(_steps()) == {"diffprivlib/tools/sum/float-rounding", "diffprivlib/mechanisms/gaussian-analytic/sigma",
                             "diffprivlib/mechanisms/gaussian-discrete/scale",
                             "diffprivlib/tools/mean/float-rounding", "diffprivlib/tools/var/float-rounding"}


@needs_066
def test_sum_severity_far_from_zero_moves_by_512_against_1(reduced):
    s = _steps()["diffprivlib/tools/sum/float-rounding"]()
    assert (s.status, s.claim, s.worst, s.ratio, s.excess) == ("exceeds", 1, 512, 512, 511)
    assert (s.replay, s.evidence) == (Replay.CONFIRMED, Evidence.BIT_EXACT)
    w = s.witness
    assert w["bounds"] == [BIG, BIG + 1] and w["n"] <= 2**10
    # two searches per bounds and size since issue 25: common records in the same order, then reordered
    assert [r["replayed"] for r in w["by_bounds_and_size"]] == [True] * 4
    assert [r["order"] for r in w["by_bounds_and_size"]] == ["same", "any"] * 2
    assert w["by_bounds_and_size"][0]["bounds"] == [0.0, 1.0]
    assert Fraction(w["by_bounds_and_size"][0]["difference"]) > 1  # (0, 1): beyond the claim too
    # certified exactly, and replayed here once more through diffprivlib's own sum
    x, xp = A.array_of_runs(w["x"]), A.array_of_runs(w["x_prime"])
    assert (len(x), len(xp)) == (w["n"], w["n"]) and sum(a != b for a, b in zip(x, xp)) == 1
    fx = A.tool_release("sum", x, bounds=(BIG, BIG + 1)).value
    fxp = A.tool_release("sum", xp, bounds=(BIG, BIG + 1)).value
    assert (A.exact(fx), A.exact(fxp)) == (Fraction(w["fx"]), Fraction(w["fx_prime"]))
    assert abs(A.exact(fxp) - A.exact(fx)) == 512


@needs_066
def test_analytic_gaussian_delta_60407_times_its_claim_at_1e_20(reduced):
    s = _steps()["diffprivlib/mechanisms/gaussian-analytic/sigma"]()
    w = s.witness
    assert (s.status, s.at_least, s.replay, s.evidence) == ("exceeds", True, Replay.CONFIRMED, Evidence.IDEAL_NOISE)
    assert (w["epsilon"], w["delta"], w["sigma_exact"]) == (5.0, 1e-20, "3597647334698093/2251799813685248")
    assert s.claim == Fraction(1e-20) and s.worst == Fraction(6.040743565147503e-16)
    assert 60407 < s.ratio < 60408 and w["delta_of_sigma"] == [6.040743565147503e-16, 6.040743565147504e-16]
    assert (w["settings"], w["settings_exceeding"]) == (4, 4)
    assert round(w["worst_ratio_by_delta"]["1e-16"], 6) == 6.124469


@needs_066
def test_gaussian_discrete_exceeds_its_delta_in_3_of_6_settings():
    f = S._check_gaussian_discrete().enforced()
    assert (f.verdict, f.replay, f.evidence) == (Verdict.VIOLATED, Replay.CONFIRMED, Evidence.IDEAL_NOISE)
    w = f.witness
    assert w["settings_above"] == "3 of 6"
    assert [(r["epsilon"], r["delta"]) for r in w["settings"] if r["above"]] == [(1.0, 1e-8), (2.0, 1e-3), (5.0, 1e-8)]
    assert (w["epsilon"], w["delta"], w["scale_exact"]) == (5.0, 1e-8, "2384315/2097152")
    assert w["delta_of_scale"] == [1.0001099548372697e-08, 1.0001099548372698e-08]
    assert A.gaussian_discrete_scale(5.0, 1e-8, 1) == w["scale"]  # the library's own scale


@needs_066
def test_gaussian_discrete_severity(reduced):
    s = _steps()["diffprivlib/mechanisms/gaussian-discrete/scale"]()
    assert (s.status, s.witness["epsilon"], s.witness["delta"], s.witness["settings_exceeding"]) == ("exceeds", 5.0, 1e-8, 2)
    assert s.worst == Fraction(1.0001099548372697e-08) and 1.0001099 < s.ratio < 1.00011


@needs_066
def test_nansum_counts_a_nan_as_zero_2_against_1():
    f = S._check_nansum().enforced()
    assert (f.verdict, f.claim, f.truth, f.replay) == (Verdict.VIOLATED, "1", "2", Replay.CONFIRMED)
    assert f.witness == {"bounds": [1.0, 2.0], "x": [1.0, 2.0], "x_prime": [1.0, "nan"], "fx": "3", "fx_prime": "1"}
    # the library's own nansum and claimed sensitivity on the witness
    a = A.tool_release("nansum", [1.0, 2.0], bounds=(1.0, 2.0))
    b = A.tool_release("nansum", [1.0, float("nan")], bounds=(1.0, 2.0))
    assert (A.exact(a.value), A.exact(b.value), a.sensitivity) == (3, 1, 1)


@needs_066
def test_float_laplace_precision_witness_infinite_epsilon():
    f = S._check_laplace_precision().enforced()
    assert (f.verdict, f.truth, f.replay, f.evidence) == (Verdict.VIOLATED, "inf", Replay.CONFIRMED, Evidence.BIT_EXACT)
    y = f.witness["output"]
    assert y == 7.850462293418876e-17 and 0 < y < 2.0**-53
    assert f.witness["draws_k"] == [1, 2**51, 0, 0]
    assert A.laplace_output(1.0, 0.0, 1.0, 0.0, [1, 2**51, 0, 0]) == y


def test_every_output_of_one_minus_a_float_is_zero_or_at_least_2_to_minus_53():
    # the fact the Laplace witness rests on: fl(1 - t) for any float t
    import math
    import random

    rng = random.Random(18)
    ts = [0.5, 1.0, 2.0, 1.0 - 2.0**-53, 1.0 + 2.0**-52, 0.5 - 2.0**-54, 2.0 + 2.0**-51, 1e-300, -1e-300, 0.0]
    ts += [rng.uniform(0.25, 4.0) for _ in range(2000)] + [1.0 + rng.randint(-2**20, 2**20) * 2.0**-52 for _ in range(2000)]
    ts += [math.nextafter(1.0, 0.0) * rng.random() for _ in range(500)]
    for t in ts:
        y = 1.0 - t
        assert y == 0 or abs(y) >= 2.0**-53, t


def test_cli_depth_full_on_one_audit(reduced, capsys):
    assert main(["audit", "diffprivlib", "--only", "diffprivlib/mechanisms/gaussian-discrete/scale",
                 "--depth", "full"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("depth: full\n")
    assert "  severity: exceeds: worst delta(epsilon) of the ideal discrete Gaussian at the library's scale >=" in out
    assert "(severity step " in out
    assert main(["audit", "diffprivlib", "--only", "diffprivlib/mechanisms/gaussian-discrete/scale", "--json"]) == 1
    (row,) = json.loads(capsys.readouterr().out)
    assert row["severity"] is None and row["depth"] == "quick"
