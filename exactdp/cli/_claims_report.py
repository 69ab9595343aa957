"""Reports of ``exactdp check`` and ``exactdp verify`` for CI: Markdown, JUnit XML and SARIF 2.1.0
(``--format``, ``--output``), GitHub Actions annotations, and the closing list of the claims
that were not as expected.

A :class:`Row` is one claim as a CI job needs it: its id, whether it was as expected, its
verdict, one line saying why, and labelled details (witness, scope, evidence). Text and JSON
stay each command's own; the formats here are built from the rows:

* ``markdown``: a summary line and a table of every claim, then each failure with its details;
* ``junit``: one ``<testcase>`` per claim, a ``<failure>`` for each not as expected;
* ``sarif``: one result (level ``error``) per claim not as expected, one rule per claim id.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Sequence

from exactdp._usercode import printable
from exactdp._version import __version__
from exactdp.errors import InvalidArgument

__all__ = ["FORMATS", "Row", "render", "closing_line", "github_annotations", "write"]

FORMATS = ("text", "json", "markdown", "junit", "sarif")
"""What ``check`` and ``verify`` write (``--format``); text is the default."""

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class Row:
    id: str
    passed: bool  # the verdict is what was expected
    verdict: str
    line: str  # one line: the claim against the truth
    details: tuple[tuple[str, str], ...] = ()
    expected: str = ""


_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _x(text: Any) -> str:
    """Text XML 1.0 can hold (anything else written as \\uXXXX)."""
    return _XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", str(text))


def _md(text: Any) -> str:
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", printable(text)).replace("\n", "<br>")


def closing_line(rows: Sequence[Row]) -> str:
    """``N claim(s) checked, M as expected; not as expected: a, b`` (ids escaped)."""
    bad = [printable(r.id) for r in rows if not r.passed]
    tail = f"; not as expected: {', '.join(bad)}" if bad else ""
    return f"{len(rows)} claim(s) checked, {len(rows) - len(bad)} as expected{tail}"


def render(rows: Sequence[Row], fmt: str, *, command: str, started: datetime, seconds: float,
           status: int) -> str:
    """The report in ``fmt`` (``markdown``, ``junit`` or ``sarif``), ending with a newline."""
    writers = {"markdown": _markdown, "junit": _junit, "sarif": _sarif}
    if fmt not in writers:
        raise InvalidArgument(f"--format {fmt}: expected one of {', '.join(writers)} here")
    return writers[fmt](rows, command, started, seconds, status)


def _markdown(rows, command, started, seconds, status) -> str:
    out = [f"# exactdp {_md(command)}", "",
           f"- **exactdp**: {__version__}", f"- **run**: {started.strftime('%Y-%m-%d %H:%M:%S')} UTC, "
           f"{seconds:.2f} s, exit status {status}", "", f"**Summary:** {_md(closing_line(rows))}", "",
           "| claim | as expected | verdict |", "| --- | --- | --- |"]
    out += [f"| `{printable(r.id).replace('|', '/')}` | {'yes' if r.passed else '**no**'} | {_md(r.verdict)} |"
            for r in rows]
    for r in rows:
        if r.passed:
            continue
        out += ["", f"## {_md(r.id)}: {_md(r.verdict)}" + (f" (expected {_md(r.expected)})" if r.expected else ""),
                "", _md(r.line), ""]
        out += [f"- **{_md(k)}**: {_md(v)}" for k, v in r.details]
    return "\n".join(out) + "\n"


def _junit(rows, command, started, seconds, status) -> str:
    failures = sum(not r.passed for r in rows)
    totals = {"tests": str(len(rows)), "failures": str(failures), "errors": "0", "time": f"{seconds:.3f}"}
    root = ET.Element("testsuites", {"name": f"exactdp {command}", **totals})
    suite = ET.SubElement(root, "testsuite", {
        "name": f"exactdp {command}", **totals, "skipped": "0",
        "timestamp": started.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
        "package": f"exactdp.{command}"})
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", {"name": "exactdp", "value": __version__})
    for r in rows:
        case = ET.SubElement(suite, "testcase", {"name": _x(r.id), "classname": f"exactdp.{command}", "time": "0.000"})
        body = _x("\n".join([r.line] + [f"{k}: {v}" for k, v in r.details]))
        if r.passed:
            ET.SubElement(case, "system-out").text = body
        else:
            ET.SubElement(case, "failure", {"type": _x(r.verdict), "message": _x(r.line)}).text = body
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _sarif(rows, command, started, seconds, status) -> str:
    rules, results = [], []
    for r in rows:
        if r.passed:
            continue
        results.append({"ruleId": r.id, "ruleIndex": len(rules), "level": "error", "kind": "fail",
                        "message": {"text": "\n".join([r.line] + [f"{k}: {v}" for k, v in r.details])},
                        "locations": [{"logicalLocations": [{"name": r.id, "kind": "member"}]}],
                        "properties": {"verdict": r.verdict, "expected": r.expected}})
        rules.append({"id": r.id, "shortDescription": {"text": r.line[:200]},
                      "defaultConfiguration": {"level": "error"},
                      "properties": {"tags": ["differential-privacy", "sensitivity"]}})
    end = started.timestamp() + seconds
    invocation = {"executionSuccessful": True, "exitCode": status,
                  "startTimeUtc": _utc(started), "endTimeUtc": _utc(datetime.fromtimestamp(end, timezone.utc))}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "exactdp", "version": __version__, "rules": rules}},
        "invocations": [invocation], "results": results, "columnKind": "unicodeCodePoints",
        "properties": {"command": command, "summary": closing_line(rows)}}]}
    return json.dumps(log, indent=2) + "\n"


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def github_annotations(rows: Sequence[Row], where: str) -> list[str]:
    """GitHub Actions workflow commands, one ``::error`` per claim not as expected (only when
    ``GITHUB_ACTIONS`` is ``true``; ``where`` names the file, e.g. the claims file)."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return []

    def escape(text: str) -> str:  # the workflow-command escapes for data and properties
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    out = []
    for r in rows:
        if not r.passed:
            title = escape(f"exactdp: {printable(r.id)} {r.verdict}").replace(":", "%3A").replace(",", "%2C")
            out.append(f"::error file={escape(where).replace(',', '%2C')},title={title}::{escape(printable(r.line))}")
    return out


def write(text: str, output: str | None) -> None:
    """``text`` to the file ``output`` (replaced) or to stdout."""
    if output is None:
        print(text, end="")
        return
    with open(output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
