"""run_audits' progress line (issue 29, item 2): the running audit and the results so far on
stderr, nothing on stdout, off when asked."""

from __future__ import annotations

import time

from exactdp.audits import runner
from exactdp.audits.base import Audit, Finding
from exactdp.checkers.results import Verdict


def _slow(verdict):
    def check():
        time.sleep(0.6)  # past the line's half-second throttle, so every start is shown
        return Finding("1", "1", verdict, note="a test audit")
    return check


def _fake_suite(monkeypatch):
    # undecided: a violation without a replayed witness would be turned into one anyway
    audits = [Audit(f"toy/{i}", "toy", "component", "claim", _slow(Verdict.UNDECIDED))
              for i in (1, 2, 3)]
    monkeypatch.setattr(runner, "suite", lambda library: audits)
    monkeypatch.setattr(runner, "installed_version", lambda library: "1.0")
    monkeypatch.setattr(runner, "require_supported", lambda library, version: None)


def test_the_progress_line_names_the_running_audit_and_the_tally(monkeypatch, capsys):
    _fake_suite(monkeypatch)
    results = runner.run_audits("toy", time_limit=None, show_progress=True)
    out, err = capsys.readouterr()
    assert [r.verdict for r in results] == ["undecided"] * 3
    assert out == ""
    assert "exactdp: toy audits: [2/3] toy/2 (1 undecided)" in err
    assert "[3/3] toy/3 (2 undecided)" in err
    assert err.endswith("\r")  # the line is cleared at the end


def test_no_line_when_turned_off(monkeypatch, capsys):
    _fake_suite(monkeypatch)
    runner.run_audits("toy", time_limit=None, show_progress=False)
    assert capsys.readouterr() == ("", "")
