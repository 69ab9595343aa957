"""The audit frame: the rules a finding obeys, the runner's skips, errors and time limit,
and ``exactdp audit``'s exit codes, on a small fake suite (the real suites have their own tests)."""

from __future__ import annotations

import json
import sys
import time
import types

import pytest

from exactdp.audits import EVIDENCE_TEXT, Audit, Finding, Replay, run_audits, run_one, suite, version_applies, weakest
from exactdp.audits import runner
from exactdp.audits.runner import call_library
from exactdp.checkers.results import Evidence, Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument, LibraryCallFailed, MissingDependency


def _sum_truth() -> Finding:
    # a real (tiny) check: the claim "1" against the exact largest move of a count
    truth = max(abs(len(a) - len(b)) for a in ([], [1]) for b in ([], [1]))
    return Finding(claim="1", truth=str(truth), verdict=Verdict.HOLDS_TIGHT if truth == 1 else Verdict.VIOLATED,
                   evidence=Evidence.BIT_EXACT)


def _violated() -> Finding:
    return Finding("1", "2", Verdict.VIOLATED, witness={"x": [], "x_prime": ["2"]}, replay=Replay.CONFIRMED,
                   evidence=Evidence.BIT_EXACT)


def _on_grid() -> Finding:
    return Finding("1", "1", Verdict.HOLDS_TIGHT, evidence=Evidence.BIT_EXACT_GRID,
                   scope="datasets of 0..1 records over {0, 1}")


def _ideal() -> Finding:
    return Finding("1", "1/2", Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE)


def _raises() -> Finding:
    call_library("fake.tool(0)", lambda: 1 / 0)
    raise AssertionError("unreachable")  # pragma: no cover


def _undecided() -> Finding:
    from exactdp.errors import Undecided
    raise Undecided("could not separate the claim from the truth at 10,000 digits")


def _refused() -> Finding:
    from exactdp.errors import TooLarge
    raise TooLarge("4,000,000 datasets exceed max_datasets=3,000,000", estimate=4_000_000, budget=3_000_000)


def _hangs() -> Finding:
    while True:
        time.sleep(0.01)


FAKE = [
    Audit("fake/count", "fake", "count", "sensitivity 1", _sum_truth),
    Audit("fake/sum", "fake", "sum", "sensitivity 1", _violated, expect={">=1": "violated"}),
    Audit("fake/old", "fake", "old", "only before 1.0", _sum_truth, versions="<1.0"),
    Audit("fake/raises", "fake", "tool", "anything", _raises),
    Audit("fake/hangs", "fake", "loop", "anything", _hangs),
    Audit("fake/undecided", "fake", "tight", "anything", _undecided),
    Audit("fake/refused", "fake", "big", "anything", _refused),
    Audit("fake/grid", "fake", "grid", "sensitivity 1", _on_grid),
    Audit("fake/ideal", "fake", "noise", "epsilon 1", _ideal),
]


@pytest.fixture
def fake_suite(monkeypatch):
    module = types.ModuleType("exactdp_fake_suite")
    module.DISTRIBUTION, module.EXTRA = "pytest", "fake"  # pytest is installed: a real version
    module.audits = lambda: list(FAKE)
    monkeypatch.setitem(sys.modules, "exactdp_fake_suite", module)
    monkeypatch.setitem(runner.SUITES, "fake", "exactdp_fake_suite")
    return module


def test_no_holds_without_evidence_and_no_violation_without_a_replay():
    unmodelled = Finding("1", "1", Verdict.HOLDS_TIGHT, evidence=None).enforced()
    assert unmodelled.verdict is Verdict.UNDECIDED
    assert unmodelled.note == "no model of the library's arithmetic that the audit could rest on: 'holds' withheld"
    assert Finding("1", "1", Verdict.HOLDS).evidence is None  # stating no evidence never holds
    mismatch = Finding("1", "2", Verdict.VIOLATED, witness={"x": []}, replay="model-mismatch").enforced()
    assert mismatch.verdict is Verdict.UNDECIDED and "model mismatch" in mismatch.note
    confirmed = Finding("1", "2", Verdict.VIOLATED, witness={"x": []}, replay="confirmed").enforced()
    assert confirmed.verdict is Verdict.VIOLATED and confirmed.note == ""
    unreplayed = Finding("1", "2", Verdict.VIOLATED, witness={"x": []}).enforced()  # issue 30: no longer violated
    assert unreplayed.verdict is Verdict.UNDECIDED
    assert unreplayed.note == "the witness was not replayed through the library: no verdict"
    unwitnessed = Finding("1", "2", Verdict.VIOLATED, replay="confirmed").enforced()
    assert unwitnessed.verdict is Verdict.UNDECIDED and unwitnessed.note == "a violation without a witness: no verdict"


@pytest.mark.parametrize("verdict, evidence, enforced", [
    (Verdict.HOLDS, Evidence.BIT_EXACT, Verdict.HOLDS),
    (Verdict.HOLDS_TIGHT, Evidence.BIT_EXACT, Verdict.HOLDS_TIGHT),
    (Verdict.HOLDS_TIGHT, Evidence.BIT_EXACT_GRID, Verdict.HOLDS_ON_GRID),
    (Verdict.HOLDS, Evidence.IDEAL_NOISE, Verdict.HOLDS_IDEAL_NOISE),
    (Verdict.HOLDS, Evidence.STATISTICAL, Verdict.HOLDS_STATISTICALLY),
    (Verdict.HOLDS_TIGHT, Evidence.EMPIRICAL_MODEL, Verdict.HOLDS_EMPIRICAL_MODEL),
    (Verdict.HOLDS_ON_GRID, Evidence.BIT_EXACT_GRID, Verdict.HOLDS_ON_GRID),  # already qualified
    (Verdict.VIOLATED, Evidence.IDEAL_NOISE, Verdict.VIOLATED),
    (Verdict.UNDECIDED, None, Verdict.UNDECIDED),
])
def test_holds_only_on_bit_exact_evidence(verdict, evidence, enforced):
    f = Finding("1", "1", verdict, witness={"x": []} if verdict is Verdict.VIOLATED else None,
                replay=Replay.CONFIRMED if verdict is Verdict.VIOLATED else None, evidence=evidence)
    assert f.enforced().verdict is enforced
    assert f.enforced().evidence is evidence and f.enforced().note == ""


@pytest.mark.parametrize("verdict, evidence", [
    ("holds-on-grid", "ideal-noise"), ("holds-statistically", None), ("holds-ideal-noise", "bit-exact"),
])
def test_a_qualified_word_must_match_its_evidence(verdict, evidence):
    with pytest.raises(InvalidArgument, match=f"verdict='{verdict}' with evidence={evidence!r}"):
        Finding("1", "1", verdict, evidence=evidence)


def test_weakest_evidence_and_its_text():
    assert weakest("bit-exact") is Evidence.BIT_EXACT
    assert weakest(Evidence.BIT_EXACT_GRID, "statistical", "ideal-noise") is Evidence.STATISTICAL
    assert weakest("empirical-model", "statistical") is Evidence.EMPIRICAL_MODEL
    with pytest.raises(InvalidArgument, match="no evidence"):
        weakest()
    assert list(EVIDENCE_TEXT) == list(Evidence)


def test_version_specifiers():
    assert version_applies("0.16.0", ">=0.14,<0.17") and not version_applies("0.17.1", ">=0.14,<0.17")
    assert version_applies("0.6.6", "==0.6.6") and version_applies("1.0.0rc1", ">=1.0")
    with pytest.raises(InvalidArgument, match="'~=1.0'"):
        version_applies("1.0", "~=1.0")


def test_runner_verdicts_skips_errors_and_time_limit(fake_suite):
    import importlib.metadata
    version = importlib.metadata.version("pytest")
    results = {r.id: r for r in run_audits("fake", time_limit=0.5)}
    assert results["fake/count"].verdict == "holds-tight" and results["fake/count"].truth == "1"
    assert results["fake/sum"].verdict == "violated" and results["fake/sum"].replay == "confirmed"
    assert results["fake/sum"].expected == "violated" and results["fake/sum"].version == version
    assert results["fake/old"].verdict == "skipped" and f"not to the installed {version}" in results["fake/old"].note
    assert results["fake/raises"].verdict == "error"
    assert results["fake/raises"].note == "fake.tool(0) raised ZeroDivisionError: division by zero"
    assert results["fake/hangs"].verdict == "error" and "time limit of 0.5 s" in results["fake/hangs"].note
    assert results["fake/hangs"].truth is None
    # exactdp's own limits: an undecided comparison is 'undecided', a refused budget an error
    assert results["fake/undecided"].verdict == "undecided" and "10,000 digits" in results["fake/undecided"].note
    assert results["fake/refused"].verdict == "error"
    assert results["fake/refused"].note.startswith("exactdp: TooLarge: 4,000,000 datasets")
    # evidence and tightness: a tight hold on a grid is holds-on-grid, tight kept apart
    assert (results["fake/count"].evidence, results["fake/count"].tight) == ("bit-exact", True)
    assert (results["fake/grid"].verdict, results["fake/grid"].evidence, results["fake/grid"].tight) == (
        "holds-on-grid", "bit-exact-grid", True)
    assert (results["fake/ideal"].verdict, results["fake/ideal"].tight) == ("holds-ideal-noise", False)
    assert results["fake/sum"].evidence == "bit-exact" and not results["fake/sum"].tight
    assert results["fake/raises"].evidence is None and results["fake/undecided"].evidence is None
    assert [r.id for r in results.values() if r.on_weaker_evidence] == ["fake/grid", "fake/ideal"]


def test_only_and_unknown_ids(fake_suite):
    assert [r.id for r in run_audits("fake", ["fake/count"])] == ["fake/count"]
    with pytest.raises(InvalidArgument, match="'fake/nope' is not in the fake suite"):
        run_audits("fake", ["fake/nope"])
    with pytest.raises(InvalidArgument, match="library 'nope'"):
        suite("nope")


def test_missing_library_names_the_extra(fake_suite):
    fake_suite.DISTRIBUTION = "surely-not-installed-dp-library"
    with pytest.raises(MissingDependency) as e:
        run_audits("fake")
    assert str(e.value) == ("surely-not-installed-dp-library is not installed: install it with "
                            "pip install 'exactdp[fake]'")


def test_library_exceptions_keep_opendp_variant():
    class OpenDPException(Exception):
        variant = "FailedFunction"

    def boom():
        raise OpenDPException("bad\nsecond line")

    with pytest.raises(LibraryCallFailed, match=r"^make_sum raised OpenDPException \(FailedFunction\): bad$"):
        call_library("make_sum", boom)


def test_cli_weaker_evidence_exits_0_and_the_summary_counts_it(fake_suite, capsys):
    assert main(["audit", "fake", "--only", "fake/count", "--only", "fake/grid", "--only", "fake/ideal"]) == 0
    out = capsys.readouterr().out
    assert "fake/grid [fake " in out and "grid: HOLDS-ON-GRID (tight)\n" in out
    assert ("  evidence: bit-exact-grid (bit-exact, on the finite grid of values or parameters the "
            "scope names)\n") in out
    assert "count: HOLDS-TIGHT\n" in out  # bit-exact: no '(tight)' after holds-tight
    assert out.rstrip().splitlines()[-1].endswith(
        ": 3 audits: 1 holds-ideal-noise, 1 holds-on-grid, 1 holds-tight; 2 of the 3 that hold rest on "
        "evidence weaker than bit-exact (holds-*: see 'exactdp audit --help')")
    assert main(["audit", "fake", "--only", "fake/grid", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["verdict"], row["evidence"], row["tight"]) == ("holds-on-grid", "bit-exact-grid", True)


def test_cli_help_states_the_vocabulary(capsys):
    with pytest.raises(SystemExit) as e:
        main(["audit", "--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for word in ("bit-exact-grid", "ideal-noise", "statistical", "empirical-model", "holds-on-grid",
                 "holds-ideal-noise", "holds-statistically", "holds-empirical-model"):
        assert word in text
    assert "Exit status: 0 when nothing is violated or undecided (a holds-* verdict on weaker evidence " \
           "counts as holding: the summary line says how many)" in text
    assert "below its own stated formula as a finding of its own" in text


def test_cli_exit_codes_and_json(fake_suite, capsys, monkeypatch):
    assert main(["audit", "fake", "--only", "fake/count"]) == 0
    assert "fake/count [fake " in capsys.readouterr().out
    assert main(["audit", "fake", "--only", "fake/sum", "--json"]) == 1
    (row,) = json.loads(capsys.readouterr().out)
    assert {k: row[k] for k in ("id", "library", "component", "claim", "truth", "verdict", "replay")} == {
        "id": "fake/sum", "library": "fake", "component": "sum", "claim": "sensitivity 1",
        "truth": "2", "verdict": "violated", "replay": "confirmed"}
    assert row["witness"] == {"x": [], "x_prime": ["2"]}
    assert main(["audit", "fake", "--only", "fake/raises"]) == 2
    assert main(["audit", "fake", "--only", "fake/nope"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("exactdp: error: audit id 'fake/nope'")
    assert main(["audit", "fake", "--list"]) == 0
    assert "fake/old: old: only before 1.0 (fake <1.0)" in capsys.readouterr().out


def test_run_one_outside_the_main_thread_runs_without_an_alarm():
    import threading
    box = []
    t = threading.Thread(target=lambda: box.append(run_one(FAKE[0], "1.0", time_limit=1)))
    t.start()
    t.join()
    assert box[0].verdict == "holds-tight"
