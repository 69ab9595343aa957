"""Audit reports (exactdp/audits/report.py, ``exactdp audit --format/--output``): JUnit XML
validated against a JUnit XSD and SARIF against the SARIF 2.1.0 JSON schema (faithful
subsets vendored in tests/audits/schemas: the full schemas are not downloadable at test
time), Markdown, one self-contained HTML page, JSON and text with per-audit times, the
version note, and the bad inputs refused in one line before any audit runs."""

from __future__ import annotations

import json
import re
import sys
import types
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

import exactdp
from exactdp.audits import Audit, AuditResult, Finding, Replay, runner
from exactdp.audits.report import FORMATS, Report, render
from exactdp.checkers.results import Evidence, Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument

SCHEMAS = Path(__file__).resolve().parent / "schemas"
XS = "{http://www.w3.org/2001/XMLSchema}"


# -- a validator of the XSD constructs tests/audits/schemas/junit.xsd uses ---------------------

class XsdSubset:
    """Global xs:element declarations (a named xs:string type, or an xs:complexType with
    ``mixed``, xs:sequence / xs:choice with minOccurs / maxOccurs of xs:element refs, and
    xs:attribute with ``use="required"``), xs:simpleType restrictions of xs:string by
    xs:pattern. As in XSD: an undeclared attribute or child is an error, patterns match the
    whole value, elements of simple type hold no children, text outside a mixed type is an
    error. Content models are checked by turning them into a regular expression over the
    children's names."""

    def __init__(self, path: Path):
        root = ET.parse(path).getroot()
        self.elements = {e.get("name"): e for e in root.findall(f"{XS}element")}
        self.patterns = {t.get("name"): [p.get("value") for p in t.iter(f"{XS}pattern")]
                         for t in root.findall(f"{XS}simpleType")}

    def errors(self, document: ET.Element) -> list[str]:
        out: list[str] = []
        if document.tag not in self.elements:
            return [f"root <{document.tag}> is not declared"]
        self._element(document, self.elements[document.tag], f"/{document.tag}", out)
        return out

    def _value_ok(self, type_name: str, value: str) -> bool:
        if type_name in (None, "xs:string"):
            return True
        return all(re.fullmatch(p, value) for p in self.patterns[type_name])

    def _model(self, node: ET.Element) -> str:
        """A regular expression over '<name>' tokens for a sequence/choice/element particle."""
        lo = int(node.get("minOccurs", "1"))
        hi = node.get("maxOccurs", "1")
        if node.tag == f"{XS}element":
            body = "<" + re.escape(node.get("ref") or node.get("name")) + ">"
        else:
            parts = [self._model(child) for child in node]
            body = ("|" if node.tag == f"{XS}choice" else "").join(f"(?:{p})" for p in parts)
        return f"(?:{body}){{{lo},{'' if hi == 'unbounded' else hi}}}"

    def _element(self, elem: ET.Element, decl: ET.Element, where: str, out: list[str]) -> None:
        complex_type = decl.find(f"{XS}complexType")
        if complex_type is None:  # a simple type: text only
            if len(elem) or elem.attrib:
                out.append(f"{where}: <{elem.tag}> holds text only, no children or attributes")
            return
        declared = {a.get("name"): a for a in complex_type.findall(f"{XS}attribute")}
        for name, value in elem.attrib.items():
            if name not in declared:
                out.append(f"{where}: attribute {name!r} is not declared")
            elif not self._value_ok(declared[name].get("type"), value):
                out.append(f"{where}: attribute {name}={value!r} does not match its type {declared[name].get('type')}")
        for name, a in declared.items():
            if a.get("use") == "required" and name not in elem.attrib:
                out.append(f"{where}: required attribute {name!r} is missing")
        if complex_type.get("mixed") != "true":
            texts = [elem.text] + [c.tail for c in elem]
            if any(t and t.strip() for t in texts):
                out.append(f"{where}: text in <{elem.tag}>, which is not mixed")
        particles = [c for c in complex_type if c.tag in (f"{XS}sequence", f"{XS}choice")]
        model = "".join(self._model(p) for p in particles)
        names = "".join(f"<{c.tag}>" for c in elem)
        if not re.fullmatch(model, names):
            out.append(f"{where}: children {[c.tag for c in elem]} do not match the content model of <{elem.tag}>")
            return
        for i, child in enumerate(elem):
            self._element(child, self.elements[child.tag], f"{where}/{child.tag}[{i}]", out)


JUNIT = XsdSubset(SCHEMAS / "junit.xsd")
SARIF = json.loads((SCHEMAS / "sarif-2.1.0-subset.json").read_text(encoding="utf-8"))


def sarif_errors(log: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(SARIF, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


@pytest.mark.parametrize("document, problem", [
    ('<testsuites><testsuite name="a" tests="1" failures="0"/></testsuites>', "required attribute 'errors'"),
    ('<testsuites><testsuite name="a" tests="1" failures="0" errors="0" colour="red"/></testsuites>',
     "attribute 'colour' is not declared"),
    ('<testsuites skipped="1"/>', "attribute 'skipped' is not declared"),
    ('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><failure/></testsuite></testsuites>',
     "do not match the content model of <testsuite>"),
    ('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" time="1,5s"/>'
     '</testsuite></testsuites>', "time='1,5s' does not match its type seconds"),
    ('<testsuites><testsuite name="a" tests="one" failures="0" errors="0"/></testsuites>', "tests='one'"),
    ('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>',
     "required attribute 'name'"),
    ('<testsuites>text</testsuites>', "text in <testsuites>"),
    ('<testsuite name="a" tests="1" failures="0" errors="0"><system-out><b/></system-out></testsuite>',
     "holds text only"),
])
def test_the_junit_validator_refuses_what_the_schema_refuses(document, problem):
    errors = JUNIT.errors(ET.fromstring(document))
    assert any(problem in e for e in errors), errors


def test_the_sarif_schema_refuses_what_sarif_refuses():
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"ruleId": "r", "level": "error", "message": {"text": "m"}}]}]}
    assert sarif_errors(good) == []
    for broken, problem in [
        ({"version": "2.0.0", "runs": []}, "'2.1.0'"),
        ({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}, "'name' is a required property"),
        ({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "fatal",
                                                                                       "message": {"text": "m"}}]}]},
         "'fatal' is not one of"),
        ({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r"}]}]},
         "'message' is a required property"),
        ({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "colour": 1}]}, "Additional properties"),
        ({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "invocations": [{}]}]},
         "'executionSuccessful' is a required property"),
    ]:
        errors = sarif_errors(broken)
        assert any(problem in e for e in errors), (broken, errors)


# -- a report with every outcome ------------------------------------------------------------

WIDE = [f"0x1.{i:013x}p+0" for i in range(400)]  # a witness longer than Markdown/HTML show


def _result(i, verdict, **kw) -> AuditResult:
    base = dict(id=f"fake/{verdict}", library="fake", version="1.0", component=f"comp{i}",
                claim="sensitivity (U - L)**2 <= 1 | a<b & c", truth="1", verdict=verdict, seconds=0.25 * i,
                source="https://example.org/issue/1", evidence="bit-exact")
    base.update(kw)
    return AuditResult(**base)


RESULTS = (
    _result(1, "holds-tight", tight=True),
    _result(2, "holds-on-grid", evidence="bit-exact-grid", tight=True, scope="a grid of 3 values"),
    _result(3, "violated", truth=">= 4503599627370497/4503599627370496", replay="confirmed",
            witness={"x": [1.0, 3 * 2.0**-52], "x_prime": [1.0, 1.0, 3 * 2.0**-52], "fx": "1", "wide": WIDE,
                     "odd": "nul\x00 and \x1b escape | pipe `tick`"}, claimed="1"),
    _result(4, "undecided", truth=None, evidence=None, note="exactdp could not decide: 10,000 digits"),
    _result(5, "skipped", truth=None, evidence=None, seconds=0.0, note="applies to fake <1.0, not to the installed 1.0"),
    _result(6, "error", truth=None, evidence=None, note="fake.tool(0) raised ZeroDivisionError: division by zero"),
)
NOTE = "fake 1.0 is installed; the fake suite was checked on 0.9 only: its verdicts on 1.0 are what the audits find there"
REPORT = Report("fake", "fake-dist", "1.0", RESULTS, checked_on=("0.9",), supported=">=0.9,<2",
                version_note=NOTE, started=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), seconds=5.25,
                status=2)


def test_junit_one_testcase_per_audit_valid_against_the_schema():
    text = render(REPORT, "junit")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(text.split("\n", 1)[1])
    assert JUNIT.errors(root) == []
    (suite,) = root
    assert {k: suite.get(k) for k in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp")} == {
        "name": "exactdp audit fake", "tests": "6", "failures": "2", "errors": "1", "skipped": "1",
        "time": "5.250", "timestamp": "2026-01-02T03:04:05"}
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert (props["version"], props["checked_on"], props["version_note"], props["exactdp"]) == (
        "1.0", "0.9", NOTE, exactdp.__version__)
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert [c.get("time") for c in cases.values()] == ["0.250", "0.500", "0.750", "1.000", "0.000", "1.500"]
    failure = cases["fake/violated"].find("failure")
    assert failure.get("type") == "violated"
    assert failure.get("message") == ("violated: claim sensitivity (U - L)**2 <= 1 | a<b & c; "
                                      "truth >= 4503599627370497/4503599627370496")
    assert "witness: x=[1.0, 2.220446049250313e-16" not in failure.text  # floats are exact, as in JSON
    assert "witness: x=[1.0, 6.661338147750939e-16], x_prime=[1.0, 1.0, 6.661338147750939e-16]" in failure.text
    assert "nul\\u0000 and \\u001b escape" in failure.text  # XML 1.0 cannot hold them: escaped, not dropped
    assert cases["fake/undecided"].find("failure").get("type") == "undecided"
    assert cases["fake/error"].find("error").get("message") == "fake.tool(0) raised ZeroDivisionError: division by zero"
    assert cases["fake/skipped"].find("skipped").get("message").startswith("applies to fake <1.0")
    assert cases["fake/holds-tight"].find("failure") is None and cases["fake/holds-tight"].find("system-out") is not None


def test_sarif_one_result_per_violation_or_undecided_valid_against_the_schema():
    log = json.loads(render(REPORT, "sarif"))
    assert sarif_errors(log) == []
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("exactdp", exactdp.__version__)
    assert [r["id"] for r in driver["rules"]] == [r.id for r in RESULTS]
    assert driver["rules"][0]["helpUri"] == "https://example.org/issue/1"
    assert [(r["ruleId"], r["ruleIndex"], r["level"], r["kind"]) for r in run["results"]] == [
        ("fake/violated", 2, "error", "fail"), ("fake/undecided", 3, "warning", "review")]
    violated = run["results"][0]
    assert "witness: x=[1.0, 6.661338147750939e-16], x_prime=" in violated["message"]["text"]
    assert violated["properties"]["witness"]["x_prime"] == [1.0, 1.0, 3 * 2.0**-52]
    assert violated["properties"]["replay"] == "confirmed"
    assert violated["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "fake 1.0: comp3"
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["startTimeUtc"] == "2026-01-02T03:04:05.000Z" and invocation["endTimeUtc"] == "2026-01-02T03:04:10.250Z"
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["associatedRule"] == {"id": "fake/error", "index": 5}
    assert run["properties"]["version_note"] == NOTE and run["properties"]["checked_on"] == ["0.9"]


class _Page(HTMLParser):
    """Tags, attributes and nesting of an HTML page (void elements need no end tag)."""

    VOID = {"meta", "br", "hr", "img", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.tags, self.problems, self.text = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"</{tag}> does not close the open element")

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_one_self_contained_page():
    page = render(REPORT, "html")
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert parser.problems == [] and parser.stack == []
    tags = [t for t, _ in parser.tags]
    # nothing loads from elsewhere: no scripts, stylesheets, images, frames; style inline
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(tags)
    assert all("src" not in attrs for _, attrs in parser.tags) and tags.count("style") == 1
    assert [a["href"] for t, a in parser.tags if t == "a" and not a["href"].startswith("#")] == [
        "https://example.org/issue/1"] * 6  # the sources: links, not assets
    text = "".join(parser.text)
    assert f"Version note: {NOTE}" in text
    assert "checked on0.9" in text.replace("\n", "") and "exactdp" + exactdp.__version__ in text.replace("\n", "")
    assert "6 audits in 5.25 s" in text
    assert "sensitivity (U - L)**2 <= 1 | a<b & c" in text  # escaped in the page, itself in the text
    assert page.count('<table class="witness">') == 1 and "0x1.000000000018fp+0" not in text  # cut at 4,000 characters
    assert "characters in all; the JSON report has every one" in text
    for seconds in ("0.250 s", "0.750 s", "1.50 s"):
        assert seconds in text


def test_markdown_tables_and_escaping():
    md = render(REPORT, "markdown")
    lines = md.splitlines()
    assert lines[0] == "# exactdp audit fake: fake-dist 1.0"
    assert f"> **Version note:** " in md and "checked on 0.9 only" in md
    table = [l for l in lines if l.startswith("| `` ") or l.startswith("| `fake/")]
    assert len(table) == 6
    assert table[2] == "| `fake/violated` | comp3 | **violated** | bit-exact | confirmed | 0.750 s |"
    assert "| `fake/skipped` | comp5 | **skipped** |  |  |  |" in lines  # nothing ran: no time
    # Markdown's own characters stay text: ** is not bold, | does not split a cell, < is no tag
    assert "sensitivity \\(U - L\\)\\*\\*2 \\<= 1 \\| a\\<b & c" in md
    assert "| odd | `` nul\\u0000 and \\u001b escape \\| pipe `tick` `` |" in md  # padded: it ends with a tick
    assert all(l.count(" | ") >= 1 for l in lines if l.startswith("| "))


def test_text_and_json_carry_times_and_the_note():
    text = render(REPORT, "text")
    lines = text.splitlines()
    assert lines[0] == f"note: {NOTE}"
    assert "  time: 0.750 s" in lines and "  time: 1.50 s" in lines
    assert sum(l.startswith("  time: ") for l in lines) == 5  # not for the skipped audit
    assert lines[-1] == ("fake 1.0: 6 audits: 1 error, 1 holds-on-grid, 1 holds-tight, 1 skipped, 1 undecided, "
                         "1 violated; 1 of the 2 that hold rest on evidence weaker than bit-exact (holds-*: see "
                         "'exactdp audit --help')")
    rows = json.loads(render(REPORT, "json"))
    assert [r["seconds"] for r in rows] == [0.25, 0.5, 0.75, 1.0, 0.0, 1.5]
    assert {(r["version_note"], tuple(r["checked_on"])) for r in rows} == {(NOTE, ("0.9",))}


def test_render_refuses_an_unknown_format():
    assert FORMATS == ("text", "json", "markdown", "html", "junit", "sarif")
    with pytest.raises(InvalidArgument, match="fmt='pdf': expected one of text, json, markdown, html, junit, sarif"):
        render(REPORT, "pdf")


# -- the command line ---------------------------------------------------------------------

CALLS: list[str] = []


def _holds() -> Finding:
    CALLS.append("holds")
    return Finding("1", "1", Verdict.HOLDS_TIGHT, evidence=Evidence.BIT_EXACT)


def _violated() -> Finding:
    CALLS.append("violated")
    return Finding("1", "2", Verdict.VIOLATED, witness={"x": [], "x_prime": ["2"]}, replay=Replay.CONFIRMED,
                   evidence=Evidence.BIT_EXACT)


def _raises() -> Finding:
    CALLS.append("raises")
    runner.call_library("fake.tool(0)", lambda: 1 / 0)
    raise AssertionError("unreachable")  # pragma: no cover


FAKE = [Audit("fake/count", "fake", "count", "sensitivity 1", _holds),
        Audit("fake/sum", "fake", "sum", "sensitivity 1", _violated),
        Audit("fake/old", "fake", "old", "only before 1.0", _holds, versions="<1.0"),
        Audit("fake/raises", "fake", "tool", "anything", _raises)]


@pytest.fixture
def fake_suite(monkeypatch):
    from importlib import metadata

    module = types.ModuleType("exactdp_report_fake_suite")
    module.DISTRIBUTION, module.EXTRA = "pytest", "fake"  # pytest is installed: a real version
    module.CHECKED_ON, module.SUPPORTED = (metadata.version("pytest"),), ">=1"
    module.audits = lambda: list(FAKE)
    monkeypatch.setitem(sys.modules, "exactdp_report_fake_suite", module)
    monkeypatch.setitem(runner.SUITES, "fake", "exactdp_report_fake_suite")
    CALLS.clear()
    return module


def test_cli_junit_to_a_file_and_text_on_the_terminal(fake_suite, tmp_path, capsys):
    path = tmp_path / "audit.xml"
    assert main(["audit", "fake", "--only", "fake/count", "--only", "fake/sum", "--only", "fake/old",
                 "--format", "junit", "--output", str(path)]) == 1
    captured = capsys.readouterr()
    assert "fake/sum [fake " in captured.out and "  time: " in captured.out
    assert captured.out.rstrip().splitlines()[-1].endswith(": 3 audits: 1 holds-tight, 1 skipped, 1 violated")
    assert captured.err == f"exactdp: the junit report is in {path}\n"
    root = ET.fromstring(path.read_text(encoding="utf-8").split("\n", 1)[1])
    assert JUNIT.errors(root) == []
    (suite,) = root
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    assert [c.get("name") for c in suite.iter("testcase")] == ["fake/count", "fake/sum", "fake/old"]


def test_cli_sarif_on_stdout_with_an_error(fake_suite, capsys):
    assert main(["audit", "fake", "--format", "sarif"]) == 2
    captured = capsys.readouterr()
    log = json.loads(captured.out)
    assert sarif_errors(log) == []
    (run,) = log["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["fake/sum"]
    assert run["invocations"][0]["exitCode"] == 2 and not run["invocations"][0]["executionSuccessful"]
    assert "fake.tool(0) raised ZeroDivisionError" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    # the progress is on stderr, one line per audit with its time
    assert re.search(r"^\[2\] fake/sum: violated \(\d\.\d{3} s\)$", captured.err, re.M)


@pytest.mark.parametrize("fmt", ["markdown", "html", "json", "text"])
def test_cli_every_format_to_a_file(fake_suite, tmp_path, capsys, fmt):
    path = tmp_path / f"audit.{fmt}"
    assert main(["audit", "fake", "--only", "fake/sum", "--format", fmt, "--output", str(path)]) == 1
    body = path.read_text(encoding="utf-8")
    assert "fake/sum" in body and body.endswith("\n")
    assert "fake/sum [fake " in capsys.readouterr().out


def test_json_flag_is_format_json(fake_suite, capsys):
    assert main(["audit", "fake", "--only", "fake/sum", "--json"]) == 1
    a = json.loads(capsys.readouterr().out)
    assert main(["audit", "fake", "--only", "fake/sum", "--format", "json"]) == 1
    b = json.loads(capsys.readouterr().out)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in a] == [
        {k: v for k, v in r.items() if k != "seconds"} for r in b]
    assert a[0]["version_note"] is None  # pytest's version is the one the fake suite was checked on


@pytest.mark.parametrize("args, message", [
    (["--format", "pdf"], "argument --format: invalid choice: 'pdf'"),
    (["--json", "--format", "markdown"], "--json and --format markdown: --json is --format json; give one of them"),
    (["--list", "--format", "junit"], "--format junit with --list: the list is text or json (--json)"),
    (["--output", "/nonexistent-folder-h14/audit.xml"],
     "--output='/nonexistent-folder-h14/audit.xml': the folder '/nonexistent-folder-h14' does not exist"),
])
def test_bad_input_is_one_line_before_any_audit_runs(fake_suite, capsys, args, message):
    try:
        code = main(["audit", "fake", *args])
    except SystemExit as e:  # argparse's own usage errors: one line, exit 2
        code = e.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert CALLS == []


def test_unwritable_output_paths(fake_suite, tmp_path, capsys):
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    for path, message in [(tmp_path, "is a folder: give the path of a file"),
                          (a_file / "audit.xml", f"the folder {str(a_file)!r} is not a folder")]:
        assert main(["audit", "fake", "--output", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err, captured.err
    if sys.platform.startswith("linux"):  # a file even root cannot write
        assert main(["audit", "fake", "--output", "/proc/version"]) == 2
        assert "--output='/proc/version' cannot be written (" in capsys.readouterr().err
    assert CALLS == [] and sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_missing_report_is_not_left_behind_by_the_check(fake_suite, tmp_path):
    from exactdp.cli._options import check_writable

    check_writable(str(tmp_path / "new.xml"))
    assert not (tmp_path / "new.xml").exists()


# -- versions of the built-in suites ---------------------------------------------------------

def test_tumult_versions_checked_noted_and_refused():
    # issue 18: the Tumult suite ran on tmlt.core 0.19.1 silently though checked on 0.20.0; it is
    # now checked on 0.19.1 too (the version tmlt.analytics 0.21.0 pins), and says so
    assert runner.checked_on("tumult") == ("0.19.1", "0.20.0") and runner.supported("tumult") == ">=0.19.1"
    for version in ("0.19.1", "0.20.0", "0.20"):
        assert runner.version_note("tumult", version) is None
        runner.require_supported("tumult", version)
    assert runner.version_note("tumult", "0.20.0rc1") is not None
    assert runner.version_note("tumult", "0.18.2") == (
        "tmlt.core 0.18.2 is installed; the tumult suite was checked on 0.19.1, 0.20.0 only: its verdicts on "
        "0.18.2 are what the audits find there, not reviewed against that version's code")
    with pytest.raises(InvalidArgument) as e:
        runner.require_supported("tumult", "0.18.2")
    assert str(e.value).startswith("tmlt.core 0.18.2 is installed, but the tumult suite applies to tmlt.core >=0.19.1 "
                                   "(checked on 0.19.1, 0.20.0): install a version in that range")
    runner.require_supported("tumult", "0.21.0")  # in the range: runs, with the note


def test_a_suite_that_states_no_versions_says_so(fake_suite):
    del fake_suite.CHECKED_ON
    assert runner.version_note("fake", "1.0") == (
        "pytest 1.0 is installed; the fake suite does not say which versions it was checked on (CHECKED_ON)")


def test_a_real_library_report_validates(tmp_path, capsys):
    pytest.importorskip("diffprivlib")
    path = tmp_path / "audit.sarif"
    assert main(["audit", "diffprivlib", "--only", "diffprivlib/tools/var/float-rounding", "--format", "sarif",
                 "--output", str(path)]) == 1
    assert "tools.var and tools.std: VIOLATED" in capsys.readouterr().out
    log = json.loads(path.read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    (result,) = log["runs"][0]["results"]
    assert result["properties"]["witness"]["x_prime"] == [1.0, 0.0, 0.0]
    assert result["properties"]["truth"] == ">= 8006399337547549/36028797018963968"
    assert main(["audit", "diffprivlib", "--only", "diffprivlib/tools/var/float-rounding", "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    assert JUNIT.errors(root) == [] and root.find("testsuite/testcase/failure").get("type") == "violated"
