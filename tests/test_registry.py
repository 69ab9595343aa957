"""The claim registry (:mod:`exactdp.registry`): one list of every claim, of every kind, and
the commands that are views of it; and the ``exactdp.cli`` package's lazy command table."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from collections import Counter
from importlib import metadata

import pytest

from exactdp import registry
from exactdp.audits import Audit, AuditResult, Finding, runner
from exactdp.registry import seed000, seed003
from exactdp.registry.privacy import privacy_claims
from exactdp.registry.seed003 import seed003_tables
from exactdp.checkers.results import Verdict
from exactdp.cli import COMMANDS, main
from exactdp.cli._status import BAD_INPUT, CLAIM_FAILED, INTERRUPTED, OK
from exactdp.errors import InvalidArgument
from exactdp.symbolic.catalogue import catalogue


def ids(claims) -> list[str]:
    return [c.id for c in claims]


# -- one list ------------------------------------------------------------------------

def test_every_id_is_unique_across_kinds():
    every = ids(registry.claims(all_k=True))
    assert [i for i, n in Counter(every).items() if n > 1] == []
    # the built-in count claim and the catalogue's count formula once shared an id
    assert registry.claim("s000/count/add-remove").kind == "formula"
    assert registry.claim("s000/count/add-remove/sizes=0..4").kind == "sensitivity"


# the registry's first sources; the modules added for issue 20 (each with its own tests)
# are counted apart, so that each of them changes no count here
FIRST_SOURCES = ("exactdp.registry.seed000", "exactdp.registry.seed003", "exactdp.registry.privacy",
                 "exactdp.registry.catalogue", "exactdp.registry.audits")


def added_by_later_sources(all_k: bool = False) -> Counter:
    import importlib

    return Counter(c.kind for module, _ in registry.SOURCES if module not in FIRST_SOURCES
                   for c in importlib.import_module(module).claims(all_k))


def test_each_kind_with_its_count():
    rows = seed003_tables()["tables"]
    counts = Counter(c.kind for c in registry.claims()) - added_by_later_sources()
    assert set(counts) == set(registry.KINDS) == {"sensitivity", "privacy", "formula", "audit"}
    assert counts["sensitivity"] == 13 + sum(1 for r in rows if r["k"] in (1, 2)) == 213
    every = Counter(c.kind for c in registry.claims(all_k=True)) - added_by_later_sources(True)
    assert every["sensitivity"] == 13 + 320
    assert counts["privacy"] == 11
    assert counts["formula"] == 55
    by_library = Counter(c.id.split("/")[0] for c in registry.claims("audit"))
    assert by_library["opendp"] == 102 and by_library["diffprivlib"] == 60  # issue 25: generic audits, edges
    assert counts["audit"] == sum(len(runner.suite(name)) for name in runner.SUITES)
    assert all(c.kind in registry.KINDS and isinstance(c, registry.Claim) for c in registry.claims())


def test_lookup_by_prefix_and_by_id():
    assert ids(registry.claims(prefix="s000/clipped-sum/add-remove/L")) == [
        "s000/clipped-sum/add-remove/L=0", "s000/clipped-sum/add-remove/L>0",
        "s000/clipped-sum/add-remove/L<0<U"]
    assert ids(registry.claims("privacy", "s004/laplace/")) == [
        "s004/laplace/expected-sensitivity", "s004/laplace/sampled-sensitivity",
        "s004/laplace/expected-plus-sigma", "s004/laplace/expected-plus-2sigma",
        "s004/laplace/high-percentile"]  # issue 28 (exactdp.registry.seed_last)
    # a prefix across kinds, in registry order: sensitivity, privacy, formula
    assert [c.kind for c in registry.claims(prefix="s000/count")] == ["sensitivity", "sensitivity", "formula"]
    assert registry.claims(prefix="nope/") == []
    assert ids(registry.claims(("privacy", "formula"), "s000/")) == ids(
        [c for c in registry.claims(prefix="s000/") if c.kind in ("privacy", "formula")])
    found = registry.claim("s002/exponential/median/monotone")
    assert (found.kind, found.expect) == ("privacy", "violated")
    with pytest.raises(InvalidArgument, match="no claim has id='nope'"):
        registry.claim("nope")
    with pytest.raises(InvalidArgument, match="kind='mechanism': expected one of sensitivity, "
                                              "privacy, formula, audit"):
        registry.claims("mechanism")


def test_a_duplicate_id_is_refused(monkeypatch):
    twice = types.ModuleType("exactdp_registry_twice")
    twice.claims = lambda all_k: seed000.claims()[:1]
    monkeypatch.setitem(sys.modules, "exactdp_registry_twice", twice)
    monkeypatch.setattr(registry, "SOURCES", (*registry.SOURCES, ("exactdp_registry_twice", "sensitivity")))
    with pytest.raises(InvalidArgument, match=r"claim id='s000/count/add-remove/sizes=0\.\.4' is "
                                              r"registered twice \(as sensitivity and as sensitivity\)"):
        registry.claims("sensitivity")


def test_one_claim_of_each_kind_checks_and_meets_its_expectation():
    violated = registry.claim("s000/clipped-sum/add-remove/L>0")
    result = violated.check()
    assert result.verdict is Verdict.VIOLATED and result.witness.distance == 10
    assert violated.meets_expectation(result)

    rr = registry.claim("exactdp/randomized-response/p=3/4")
    result = rr.check()
    assert result.verdict is Verdict.HOLDS_TIGHT and rr.meets_expectation(result)

    formula = registry.claim("s000/count/add-remove")
    result = formula.check()
    assert formula.expect == "holds-on-grid" and result.verdict is Verdict.HOLDS_ON_GRID
    assert result.tight and result.derived_tight  # tightness apart: bit-exact-grid evidence
    assert result.witness is result.published_witness and formula.meets_expectation(result)


def _finding() -> Finding:
    return Finding("1", "2", Verdict.VIOLATED, witness={"x": [], "x_prime": ["2"]}, replay="confirmed")


FAKE = [
    Audit("fake/fixed", "fake", "sum", "sensitivity 1", _finding, expect={"<1": "violated", ">=1": "holds"}),
    Audit("fake/unpinned", "fake", "sum", "sensitivity 1", _finding),
]


@pytest.fixture
def fake_suite(monkeypatch):
    module = types.ModuleType("exactdp_registry_fake_suite")
    module.DISTRIBUTION, module.EXTRA = "pytest", "fake"  # pytest is installed: a real version
    module.audits = lambda: list(FAKE)
    monkeypatch.setitem(sys.modules, "exactdp_registry_fake_suite", module)
    monkeypatch.setitem(runner.SUITES, "fake", "exactdp_registry_fake_suite")


def test_an_audit_is_a_claim_whose_expectation_depends_on_the_version(fake_suite):
    fixed, unpinned = registry.claims("audit", "fake/")
    assert (fixed.kind, fixed.statement) == ("audit", "sum: sensitivity 1")
    old = runner.run_one(fixed, "0.9")
    assert old.verdict == "violated" and fixed.meets_expectation(old)
    new = runner.run_one(fixed, "1.2")
    assert new.verdict == "violated" and not fixed.meets_expectation(new)  # expected holds there
    assert not unpinned.meets_expectation(new)  # no expectation: violated departs from it
    # check() gives the finding; its version is the installed one (pytest's, >= 1)
    assert not fixed.meets_expectation(fixed.check())
    skipped = AuditResult("fake/fixed", "fake", "0.9", "sum", "sensitivity 1", None, "skipped")
    assert not fixed.meets_expectation(skipped)  # skipped is never passed


# -- the commands are views of it ------------------------------------------------------

def test_the_python_views_are_the_registry_filtered():
    # the first sources come first in registry order (later sources follow them)
    first = ids(seed000.claims() + seed003.claims())
    assert first == ids(registry.claims("sensitivity"))[:len(first)]
    every = ids(seed000.claims() + seed003.claims(all_k=True))
    assert every == ids(registry.claims("sensitivity", all_k=True))[:len(every)]
    private = ids(privacy_claims())
    assert private == ids(registry.claims("privacy"))[:len(private)]
    assert ids(catalogue()) == ids(registry.claims("formula"))
    assert [a.id for name in runner.SUITES for a in runner.suite(name)] == ids(registry.claims("audit"))


def test_verify_runs_the_registry_but_its_audits(capsys):
    assert main(["verify", "--only", "s000/c", "--json"]) == OK
    rows = json.loads(capsys.readouterr().out)
    expected = [c for c in registry.claims(prefix="s000/c") if c.kind != "audit"]
    assert [r["id"] for r in rows] == ids(expected)
    # s000/clip-sweep/noise-overwhelms-signal (issue 28) is the one privacy claim of the prefix
    assert Counter(c.kind for c in expected) == {"sensitivity": 12, "privacy": 1, "formula": 4}
    assert [r["kind"] for r in rows] == ["claim"] * 12 + ["privacy"] + ["catalogue"] * 4
    assert all(r["as_expected"] for r in rows)


def test_catalog_is_the_formulas_filtered(capsys):
    assert main(["catalog", "--only", "s000", "--json"]) == OK
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ids(registry.claims("formula", "s000"))


def test_audit_list_is_every_audit_and_a_missing_library_is_skipped(fake_suite, monkeypatch, capsys):
    real = metadata.version

    def version(name):
        if name == "pytest":
            return real(name)
        raise metadata.PackageNotFoundError(name)  # no real DP library is installed here

    monkeypatch.setattr(metadata, "version", version)
    assert main(["audit", "--list"]) == OK
    lines = capsys.readouterr().out.splitlines()
    audits = registry.claims("audit")
    listed, tail = lines[:len(audits)], lines[len(audits):]
    assert [line.split(": ")[0] for line in listed] == ids(audits)
    for audit, line in zip(audits, listed):
        assert line.endswith("  [skipped: not installed]") == (audit.library != "fake")
    assert len(tail) == len(runner.SUITES)
    assert tail[-1] == f"fake {real('pytest')} is installed"
    opendp = sum(1 for a in audits if a.library == "opendp")
    assert tail[0] == "opendp is not installed: install it with pip install 'exactdp[opendp]'; " \
                      f"its {opendp} audits are skipped"
    assert not any("installed" in t and "skipped" not in t for t in tail[:-1])


def test_audit_without_a_library_or_list_is_bad_input(capsys):
    assert main(["audit"]) == BAD_INPUT
    assert capsys.readouterr().err == ("exactdp: error: give the library to audit "
                                       "(exactdp audit LIBRARY), or --list\n")


# -- the cli package -----------------------------------------------------------------

def test_status_codes():
    assert (OK, CLAIM_FAILED, BAD_INPUT, INTERRUPTED) == (0, 1, 2, 130)


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import contextlib, io, sys\nfrom exactdp.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
            "print('\\n'.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


def test_help_imports_no_command_module_and_a_command_only_its_own():
    commands = {c.module for c in COMMANDS.values()}
    loaded = _modules_after(["--help"])
    assert not commands & loaded
    assert not {m for m in loaded if m.split(".")[0] in ("sympy", "numpy", "mpmath")}
    loaded = _modules_after(["calibrate", "--help"])
    assert commands & loaded == {"exactdp.cli.calibrate"}


def test_help_lists_every_command_summary(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split()).replace("re- checked", "re-checked")
    for name, command in COMMANDS.items():
        assert f"{name} {' '.join(command.summary.split())}" in out.replace(" (catalogue)", "")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_module_keeps_the_contract(name):
    import argparse
    import importlib

    module = importlib.import_module(COMMANDS[name].module)
    subparsers = argparse.ArgumentParser(prog="exactdp").add_subparsers()
    module.register(subparsers)
    sub = subparsers.choices[name]
    options = {o for a in sub._actions for o in a.option_strings if a.nargs != 0}
    assert set(getattr(module, "VALUE_OPTIONS", ())) <= options  # no stale name
    assert callable(module.run) and sub.get_default("run") is not None


def test_negative_values_glue_per_command(capsys):
    # --universe is one of sensitivity's VALUE_OPTIONS: '-3..1' is its value, not an option
    assert main(["sensitivity", "--query", "count", "--universe", "-3..1", "--sizes", "0..1"]) == OK
    assert "sensitivity 1" in capsys.readouterr().out
