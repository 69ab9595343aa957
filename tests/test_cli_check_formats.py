"""``exactdp check --format markdown|junit|sarif --output PATH``: reports for CI, valid against
the JUnit and SARIF schemas the audit reports are checked with; GitHub annotations."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
pytest.importorskip("jsonschema", reason="the SARIF schema is checked with jsonschema (test extra)")
_spec = importlib.util.spec_from_file_location("_audit_report_tests", ROOT / "audits" / "test_report.py")
_schemas = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_schemas)  # its JUnit XSD subset and SARIF schema validators

CLAIMS = "".join(f'''
[[claim]]
id = "{name}"
function = "heights:clipped_total"
universe = [140, 150, 175, 200]
sizes = "0..2"
claim = "{claim}"
''' for name, claim in (("total-add-remove", "U"), ("total-u-minus-l", "U - L")))


@pytest.fixture
def project(tmp_path):
    shutil.copytree(ROOT / "sample_project" / "heights", tmp_path / "heights",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "claims.toml").write_text(CLAIMS, encoding="utf-8")
    return tmp_path


def _check(project, *args, env=None):
    return subprocess.run([sys.executable, "-m", "exactdp", "check", "claims.toml", *args], cwd=project,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GITHUB_ACTIONS": "", **(env or {})})


def test_junit_one_testcase_per_claim_a_failure_for_the_wrong_one(project):
    done = _check(project, "--format", "junit", "--output", "report.xml")
    assert done.returncode == 1 and done.stdout == ""
    assert "2 claim(s) checked, 1 as expected; not as expected: total-u-minus-l" in done.stderr
    root = ET.fromstring((project / "report.xml").read_text(encoding="utf-8").split("\n", 1)[1])
    assert _schemas.JUNIT.errors(root) == []
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["total-add-remove"].find("failure") is None
    failure = cases["total-u-minus-l"].find("failure")
    assert failure.get("type") == "violated" and "claim U - L = 60 < sensitivity 200" in failure.get("message")
    assert "witness: x=[], x'=[200]: f(x)=0, f(x')=200" in failure.text


def test_sarif_one_result_for_the_wrong_claim(project):
    done = _check(project, "--format", "sarif")
    assert done.returncode == 1
    log = json.loads(done.stdout)
    assert _schemas.sarif_errors(log) == []
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "total-u-minus-l" and result["level"] == "error"
    assert log["runs"][0]["invocations"][0]["exitCode"] == 1


def test_markdown_lists_every_claim_and_details_the_failure(project):
    done = _check(project, "--format", "markdown")
    assert "| `total-add-remove` | yes | holds-tight |" in done.stdout
    assert "## total-u-minus-l: violated" in done.stdout and "x=\\[\\], x'=\\[200\\]" in done.stdout


def test_github_annotations_under_actions_only(project):
    quiet = _check(project)
    assert "::error" not in quiet.stdout + quiet.stderr
    loud = _check(project, env={"GITHUB_ACTIONS": "true"})
    assert loud.stdout.endswith("2 claim(s) checked, 1 as expected; not as expected: total-u-minus-l\n")
    (line,) = [l for l in loud.stderr.splitlines() if l.startswith("::error")]
    assert line.startswith("::error file=claims.toml,title=exactdp%3A total-u-minus-l violated::")


def test_bad_format_options_are_one_line_exit_2(project):
    both = _check(project, "--json", "--format", "junit")
    assert both.returncode == 2 and "--json is --format json" in both.stderr
    folder = _check(project, "--output", str(project))
    assert folder.returncode == 2 and "is a folder" in folder.stderr


# -- the JSON outputs' schemas (shipped in exactdp/schemas) -----------------------------------

import jsonschema  # noqa: E402

SCHEMAS = Path(__file__).resolve().parent.parent / "exactdp" / "schemas"


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def test_check_json_matches_its_schema_and_the_schema_refuses_garbage(project):
    done = _check(project, "--json")
    out = json.loads(done.stdout)
    jsonschema.Draft7Validator(_schema("check-v1.json")).validate(out)
    assert [c["verdict"] for c in out["claims"]] == ["holds-tight", "violated"]
    bad = dict(out, claims=[dict(out["claims"][0], verdict="fine")])
    with pytest.raises(jsonschema.ValidationError, match="'fine' is not one of"):
        jsonschema.Draft7Validator(_schema("check-v1.json")).validate(bad)


def test_verify_json_and_junit_match_their_schemas(tmp_path):
    run = [sys.executable, "-m", "exactdp", "verify", "--only", "s000/count", "--no-catalogue"]
    out = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=300).stdout)
    jsonschema.Draft7Validator(_schema("verify-v1.json")).validate(out)
    assert out and all(r["as_expected"] for r in out)
    done = subprocess.run(run + ["--format", "junit", "--output", str(tmp_path / "v.xml")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout == ""
    root = ET.fromstring((tmp_path / "v.xml").read_text(encoding="utf-8").split("\n", 1)[1])
    assert _schemas.JUNIT.errors(root) == []
    assert sorted(c.get("name") for c in root.iter("testcase")) == sorted(r["id"] for r in out)
