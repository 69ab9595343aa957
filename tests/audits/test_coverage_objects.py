"""Coverage maps, the settings a verdict rests on, and audit_object's dispatch (issue 25),
on a small fake suite and plain objects (each library's own reader has its own tests)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from exactdp.audits import Audit, Finding, Settings, run_one
from exactdp.audits import runner
from exactdp.audits.coverage import NO_AUDIT_YET, public_callables
from exactdp.audits.runner import coverage
from exactdp.audits.objects import audit_object
from exactdp.checkers.results import Evidence, Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument


def _grid() -> Finding:
    settings = [(eps, n) for eps in (1e-6, 1.0, 1e300) for n in (1, 2**20)]
    # a count moves by 1 when a record is added, whatever the setting: the truth on each
    worst = max(abs(n - (n + 1)) for _, n in settings)
    return Finding("1", str(worst), Verdict.HOLDS_TIGHT, evidence=Evidence.BIT_EXACT_GRID,
                   settings=Settings(len(settings), "epsilon 1e-06..1e+300, n up to 2^20"))


FAKE = [
    Audit("fake/count", "fake", "count", "sensitivity 1", _grid, covers=("fakelib.count", "fakelib.noise")),
    Audit("fake/sum", "fake", "sum", "sensitivity 1", _grid, covers=("fakelib.sum",)),
]


@pytest.fixture
def fake_suite(monkeypatch):
    lib = types.ModuleType("fakelib")
    for name in ("count", "sum", "noise", "quantile", "select"):
        setattr(lib, name, lambda *a: None)
    lib.helper_constant = 3  # not callable: not a primitive
    lib.__all__ = ["count", "sum", "noise", "quantile", "select", "helper_constant"]
    module = types.ModuleType("exactdp_fake_suite")
    module.DISTRIBUTION, module.EXTRA = "pytest", "fake"
    module.audits = lambda: list(FAKE)
    module.primitives = lambda: list(public_callables("fakelib", exclude=["*.select"]))
    module.NOT_AUDITED = {"fakelib.quantile": "its output is not a number"}
    monkeypatch.setitem(sys.modules, "fakelib", lib)
    monkeypatch.setitem(sys.modules, "exactdp_fake_suite", module)
    monkeypatch.setitem(runner.SUITES, "fake", "exactdp_fake_suite")
    return module


def test_public_callables_take_the_namespace_and_leave_out_exclusions(fake_suite):
    assert list(public_callables("fakelib")) == ["fakelib.count", "fakelib.noise", "fakelib.quantile",
                                                 "fakelib.select", "fakelib.sum"]
    assert list(public_callables("fakelib", prefix="s", exclude=["fakelib.sel*"])) == ["fakelib.sum"]


def test_coverage_maps_each_primitive_to_its_audits_or_why_not(fake_suite):
    found = coverage("fake")
    assert [(p.name, p.audits, p.why) for p in found.primitives] == [
        ("fakelib.count", ("fake/count",), ""), ("fakelib.noise", ("fake/count",), ""),
        ("fakelib.quantile", (), "its output is not a number"), ("fakelib.sum", ("fake/sum",), "")]
    assert (found.audited, found.share) == (3, 0.75)
    assert found.lines()[-1] == f"fake {found.version}: 3 of 4 listed primitives audited (75.0%)"
    fake_suite.NOT_AUDITED = {}
    assert coverage("fake").primitives[2].why == NO_AUDIT_YET


def test_coverage_on_the_command_line(fake_suite, capsys):
    assert main(["audit", "fake", "--coverage", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["library"], data["listed"], data["audited"], data["share"]) == ("fake", 4, 3, 0.75)
    assert data["primitives"][2] == {"primitive": "fakelib.quantile", "audited": False, "audits": [],
                                     "why": "its output is not a number"}
    assert main(["audit", "fake", "--coverage"]) == 0
    assert capsys.readouterr().out.splitlines()[2] == "fakelib.quantile  not audited: its output is not a number"


def test_a_suite_that_lists_nothing_is_one_line(fake_suite, capsys):
    del fake_suite.primitives
    assert main(["audit", "fake", "--coverage"]) == 2
    assert capsys.readouterr().err == ("exactdp: error: the fake suite does not list its library's primitives "
                                       "(primitives()), so its coverage cannot be mapped\n")


def test_a_verdict_on_a_grid_says_on_how_many_settings(fake_suite):
    r = run_one(FAKE[0], "1.0")
    assert r.verdict == "holds-on-grid" and r.settings == Settings(6, "epsilon 1e-06..1e+300, n up to 2^20")
    assert str(r).splitlines()[0] == ("fake/count [fake 1.0] count: HOLDS-ON-GRID (tight) on 6 settings "
                                      "(epsilon 1e-06..1e+300, n up to 2^20)")
    assert r.to_dict()["settings"] == {"count": 6, "span": "epsilon 1e-06..1e+300, n up to 2^20"}


@pytest.mark.parametrize("count", [0, -1, True, 2.0])
def test_settings_count_at_least_one(count):
    with pytest.raises(InvalidArgument, match=r"a verdict rests on at least one setting"):
        Settings(count)


@pytest.mark.parametrize("obj, kind", [(42, "builtins.int"), ({"epsilon": 1}, "builtins.dict"),
                                       (types.SimpleNamespace(), "types.SimpleNamespace")])
def test_audit_object_refuses_what_no_reader_takes(obj, kind):
    with pytest.raises(InvalidArgument, match=rf"exactdp cannot read an object of type {kind}: it reads OpenDP"):
        audit_object(obj)


def test_audit_object_on_the_command_line_refuses_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mypipeline.py").write_text("def release():\n    return 42\n")
    assert main(["audit", "--object", "mypipeline:release()"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error: exactdp cannot read an object of type builtins.int") and err.count("\n") == 1
    assert main(["audit", "--object", "mypipeline:nothing_here()"]) == 2
    assert "--object='mypipeline:nothing_here()': NameError" in capsys.readouterr().err
    assert main(["audit", "--object", "mypipeline"]) == 2
    assert "expected MODULE:EXPR" in capsys.readouterr().err
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(0)\n")
    assert main(["audit", "--object", "exits:1"]) == 2
    assert "loading it called sys.exit(0) (SystemExit)" in capsys.readouterr().err
