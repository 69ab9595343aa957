"""Audit plug-ins (the entry-point group ``exactdp.audits``): the sample project in
tests/sample_audit_plugin, installed into a temporary folder as pip would lay it out (the
packages beside a ``*.dist-info`` folder with ``METADATA`` and ``entry_points.txt``, the
latter written from the sample's pyproject.toml), found by importlib.metadata and run
with ``exactdp audit toydp``: real verdicts of the toy library's real floats."""

from __future__ import annotations

import json
import shutil
import sys
from fractions import Fraction
from importlib import metadata
from pathlib import Path

import pytest

from exactdp.audits import runner
from exactdp.audits.plugins import GROUP, PluginBroken, plugins
from exactdp.cli import main
from exactdp.errors import InvalidArgument, MissingDependency

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

SAMPLE = Path(__file__).resolve().parent.parent / "sample_audit_plugin"
PYPROJECT = tomllib.loads((SAMPLE / "pyproject.toml").read_text(encoding="utf-8"))


def _entry_points_txt(entry_points: dict[str, dict[str, str]]) -> str:
    return "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
                   for group, eps in entry_points.items())


@pytest.fixture
def install(tmp_path, monkeypatch):
    """``install(version=..., entry_points=..., modules=...)``: the sample project installed
    as distribution ``toydp`` (``version``; ``entry_points`` added to its own), plus any
    extra top-level ``modules`` (name -> source), on a temporary ``sys.path`` entry that
    is removed afterwards with every module imported from it."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    before = set(sys.modules)

    def do(version: str = "0.1.0", entry_points: dict[str, str] | None = None,
           modules: dict[str, str] | None = None) -> Path:
        for package in PYPROJECT["tool"]["setuptools"]["packages"]:
            shutil.copytree(SAMPLE / package, site / package, ignore=shutil.ignore_patterns("__pycache__"))
        dist = site / f"toydp-{version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: toydp\nVersion: {version}\n",
                                       encoding="utf-8")
        declared = {group: dict(eps) for group, eps in PYPROJECT["project"]["entry-points"].items()}
        declared[GROUP].update(entry_points or {})
        (dist / "entry_points.txt").write_text(_entry_points_txt(declared), encoding="utf-8")
        for name, source in (modules or {}).items():
            (site / f"{name}.py").write_text(source, encoding="utf-8")
        import importlib

        importlib.invalidate_caches()
        return site

    yield do
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("toydp", "toydp_audit") or name.startswith("toyplugin_"):
            del sys.modules[name]


def test_the_sample_declares_its_suite_in_the_entry_point_group():
    assert PYPROJECT["project"]["entry-points"] == {"exactdp.audits": {"toydp": "toydp_audit.suite"}}
    assert PYPROJECT["project"]["name"] == "toydp" and PYPROJECT["project"]["version"] == "0.1.0"


def test_no_plugin_is_installed_here_without_the_fixture():
    assert "toydp" not in plugins()


def test_exactdp_audit_runs_the_plugin_with_real_verdicts(install, capsys):
    install()
    found = plugins(builtin=set(runner.SUITES))
    assert (found["toydp"].module, found["toydp"].distribution, found["toydp"].version, found["toydp"].problem) == (
        "toydp_audit.suite", "toydp", "0.1.0", "")
    assert main(["audit", "toydp"]) == 1
    out = capsys.readouterr().out
    assert not out.startswith("note:")  # 0.1.0 is the version the suite was checked on
    assert "toydp/count/sensitivity [toydp 0.1.0] count: HOLDS-ON-GRID (tight)\n  claim: sensitivity 1 under add/remove = 1\n  truth: 1\n" in out
    # the float sum: [1, 3*2^-52] -> [1, 1, 3*2^-52] moves toydp's sum by 1 + 2^-52 against a claimed 1
    assert "toydp/bounded_sum/float-rounding [toydp 0.1.0] bounded_sum: VIOLATED\n" in out
    assert f"  truth: >= {Fraction(2**52 + 1, 2**52)}\n" in out
    assert ("  witness: x=['0x1.0000000000000p+0', '0x1.8000000000000p-51'], x_prime=['0x1.0000000000000p+0', "
            "'0x1.0000000000000p+0', '0x1.8000000000000p-51'], fx=4503599627370499/4503599627370496, "
            "fx_prime=2251799813685249/1125899906842624\n") in out
    # the Laplace scale 0.1/3.0 rounds down: the true epsilon is above 3
    true_epsilon = Fraction(0.1) / Fraction(0.1 / 3.0)
    assert true_epsilon > 3 and f"  truth: {true_epsilon} (sensitivity/scale)\n" in out
    assert out.count("  replay: confirmed\n") == 2 and out.count("  time: ") == 3
    assert out.rstrip().splitlines()[-1] == (
        "toydp 0.1.0: 3 audits: 1 holds-on-grid, 2 violated; all 1 that hold rest on evidence weaker than "
        "bit-exact (holds-*: see 'exactdp audit --help')")


def test_the_plugin_in_json_and_sarif(install, capsys):
    install()
    assert main(["audit", "toydp", "--json"]) == 1
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["toydp/bounded_sum/float-rounding"]["verdict"] == "violated"
    assert rows["toydp/bounded_sum/float-rounding"]["replay"] == "confirmed"
    assert rows["toydp/count/sensitivity"]["evidence"] == "bit-exact-grid"
    assert {r["checked_on"] == ["0.1.0"] and r["version_note"] is None for r in rows.values()} == {True}
    assert main(["audit", "toydp", "--format", "sarif", "--only", "toydp/laplace/scale"]) == 1
    log = json.loads(capsys.readouterr().out)
    (result,) = log["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("toydp/laplace/scale", "error")
    assert log["runs"][0]["properties"]["plugin"] == "toydp"


def test_list_includes_the_plugin(install, capsys):
    install()
    assert main(["audit", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "toydp/laplace/scale: laplace_scale: scale sensitivity/epsilon gives epsilon-DP" in out
    assert out[-1] == "toydp 0.1.0 is installed (plug-in from toydp)"
    assert main(["audit", "toydp", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["toydp/count/sensitivity", "toydp/bounded_sum/float-rounding",
                                       "toydp/laplace/scale"]
    assert {(r["suite"], r["installed"], r["skipped"], r["plugin"]) for r in rows} == {("toydp", "0.1.0", False, "toydp")}


BROKEN = "raise RuntimeError('the plug-in cannot start')\n"


def test_a_plugin_raising_on_import_is_one_line_exit_2_and_broken_in_the_list(install, capsys):
    install(entry_points={"toybroken": "toyplugin_broken"}, modules={"toyplugin_broken": BROKEN})
    line = ("exactdp: error: audit plug-in 'toybroken' (entry point exactdp.audits 'toybroken = "
            "toyplugin_broken' of toydp 0.1.0) raised RuntimeError on import: the plug-in cannot start: "
            "fix or uninstall toydp\n")
    assert main(["audit", "toybroken"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", line)
    assert main(["audit", "toybroken", "--list"]) == 2
    assert capsys.readouterr().err == line
    # the list: every other suite listed, the broken one marked (never passed), exit 2
    assert main(["audit", "--list"]) == 2
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "toydp/count/sensitivity: count: sensitivity 1 under add/remove" in lines
    (marked,) = [l for l in lines if l.startswith("toybroken: ")]
    assert marked.startswith("toybroken: [broken plug-in: audit plug-in 'toybroken'") and "RuntimeError" in marked
    assert "toybroken is a broken plug-in: its audits cannot run" in lines
    assert captured.err == ("exactdp: 1 audit plug-in(s) could not be loaded: toybroken (see 'broken' above; "
                            "'exactdp audit toybroken' says why)\n")
    assert main(["audit", "--list", "--json"]) == 2
    rows = json.loads(capsys.readouterr().out)
    (row,) = [r for r in rows if r["suite"] == "toybroken"]
    assert row["id"] is None and row["skipped"] and "RuntimeError" in row["broken"]


@pytest.mark.parametrize("entry, source, problem", [
    ("toyplugin_empty", "X = 1\n", "module 'toyplugin_empty' lacks DISTRIBUTION and audits: a suite module defines "
                                   "DISTRIBUTION (the library's name on PyPI) and audits() (its Audit list)"),
    ("toyplugin_empty:audits", "X = 1\n", "its value 'toyplugin_empty:audits' is not a module path: expected "
                                          "'package.module' of a suite module (DISTRIBUTION, audits())"),
    ("toyplugin_nodist", "def audits():\n    return []\n", "module 'toyplugin_nodist' lacks DISTRIBUTION"),
])
def test_a_plugin_without_the_interface_is_refused(install, capsys, entry, source, problem):
    install(entry_points={"toyodd": entry}, modules={entry.split(":")[0]: source})
    assert main(["audit", "toyodd"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert problem in captured.err and "audit plug-in 'toyodd'" in captured.err


def test_a_plugin_cannot_take_a_builtin_name(install, capsys):
    install(entry_points={"opendp": "toydp_audit.suite"})
    found = plugins(builtin=set(runner.SUITES))
    assert "is the name of a built-in suite" in found["opendp"].problem
    assert runner.suite_names().count("opendp") == 1
    # the built-in suite is untouched; the list marks the plug-in broken
    assert [a.id for a in runner.suite("opendp")][0].startswith("opendp/")
    with pytest.raises(PluginBroken, match="rename the entry point"):
        from exactdp.audits.plugins import load

        load(found["opendp"])


def test_the_plugins_library_missing_names_its_install_command(install, capsys):
    source = ("DISTRIBUTION = 'surely-not-installed-toy-library'\nINSTALL = 'pip install surely-not-installed-toy-library'\n"
              "def audits():\n    return []\n")
    install(entry_points={"toymissing": "toyplugin_missing"}, modules={"toyplugin_missing": source})
    with pytest.raises(MissingDependency) as e:
        runner.installed_version("toymissing")
    assert str(e.value) == ("surely-not-installed-toy-library is not installed: install it with "
                            "pip install surely-not-installed-toy-library")
    assert main(["audit", "toymissing"]) == 2
    assert capsys.readouterr().err == f"exactdp: error: {e.value}\n"


def test_another_version_is_noted_and_one_outside_the_range_refused(install, capsys):
    install(version="0.1.5")
    note = ("toydp 0.1.5 is installed; the toydp suite was checked on 0.1.0 only: its verdicts on 0.1.5 are "
            "what the audits find there, not reviewed against that version's code")
    assert runner.version_note("toydp", "0.1.5") == note
    assert main(["audit", "toydp", "--only", "toydp/count/sensitivity"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"note: {note}"
    assert main(["audit", "toydp", "--only", "toydp/count/sensitivity", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["version"], row["version_note"], row["checked_on"]) == ("0.1.5", note, ["0.1.0"])


def test_a_version_outside_the_suites_range_is_refused_unless_asked(install, capsys):
    install(version="0.2.0")
    assert main(["audit", "toydp"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("exactdp: error: toydp 0.2.0 is installed, but the toydp suite applies to toydp "
                            ">=0.1,<0.2 (checked on 0.1.0): install a version in that range, or pass any_version "
                            "(--any-version) to run it anyway with the version noted in the report\n")
    with pytest.raises(InvalidArgument, match="applies to toydp >=0.1,<0.2"):
        runner.run_audits("toydp")
    assert main(["audit", "toydp", "--any-version", "--only", "toydp/laplace/scale"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("note: toydp 0.2.0 is installed; the toydp suite was checked on 0.1.0 only")
    assert "laplace_scale: VIOLATED" in out


def test_unknown_library_names_the_plugins_too(install):
    install()
    with pytest.raises(InvalidArgument, match=r"library 'nope': expected one of opendp, .*; installed plug-ins: toydp"):
        runner.suite("nope")


def test_discovery_reads_metadata_without_importing(install):
    install(entry_points={"toybroken": "toyplugin_broken"}, modules={"toyplugin_broken": BROKEN})
    found = plugins()
    assert set(found) >= {"toydp", "toybroken"} and "toyplugin_broken" not in sys.modules
    assert metadata.version("toydp") == "0.1.0"
