"""audits/base.py imports neither the runner nor the registry (issue 19: it imported
``registry/audits.py``, which imports the audits back). The runner tells each audit it loads
how to read its library's installed version; the suites and adapters call the library through
``adapters._calls.call_library`` (below the adapters, so no adapter imports the audits)."""

from __future__ import annotations

import sys
import types
from importlib import metadata

import pytest

from exactdp.adapters import _calls
from exactdp.audits import base, runner
from exactdp.audits.base import Audit, Finding
from exactdp.checkers.results import Verdict
from exactdp.errors import InvalidArgument, LibraryCallFailed


def _finding() -> Finding:
    return Finding("1", "2", Verdict.VIOLATED, witness={"x": [], "x_prime": ["2"]}, replay="confirmed")


PINNED = Audit("layers/pinned", "fake", "sum", "sensitivity 1", _finding, expect={"<1": "violated", ">=1": "holds"})


@pytest.fixture
def fake_suite(monkeypatch):
    module = types.ModuleType("exactdp_layers_fake_suite")
    module.DISTRIBUTION, module.EXTRA = "pytest", "fake"  # pytest is installed: a real version
    module.audits = lambda: [PINNED]
    monkeypatch.setitem(sys.modules, "exactdp_layers_fake_suite", module)
    monkeypatch.setitem(runner.SUITES, "layers-fake", "exactdp_layers_fake_suite")


def test_an_audit_from_a_suite_reads_its_library_version_through_the_runner(fake_suite):
    (loaded,) = runner.suite("layers-fake")
    assert loaded == PINNED and loaded.installed() == metadata.version("pytest")
    # pytest >= 1 is installed, where the suite expects holds: the violated finding departs
    assert loaded.meets_expectation(loaded.check()) is False
    assert loaded.meets_expectation(runner.run_one(loaded, "0.9")) is True


def test_an_audit_built_by_hand_needs_a_result_that_carries_the_version():
    with pytest.raises(InvalidArgument, match="'layers/pinned' was not loaded from a suite"):
        PINNED.meets_expectation(PINNED.check())
    assert PINNED.meets_expectation(runner.run_one(PINNED, "0.9")) is True


def test_call_library_lives_below_the_adapters_and_the_runner_re_exports_it():
    assert runner.call_library is _calls.call_library and base.Replay is _calls.Replay
    with pytest.raises(LibraryCallFailed, match=r"^fake\.tool\(0\) raised ZeroDivisionError: division by zero$"):
        _calls.call_library("fake.tool(0)", lambda: 1 / 0)
