"""Reports of an audit run: text, JSON, Markdown, one self-contained HTML page, JUnit XML and
SARIF 2.1.0 (``exactdp audit LIBRARY --format FORMAT [--output PATH]``).

A :class:`Report` holds the results of one run with what a reader needs beside them: the
suite, the installed version and the versions the suite was checked on (with the one-line
:attr:`Report.version_note` when they differ), exactdp's version, when it ran and how long
each audit took. :func:`render` writes it in one of :data:`FORMATS`:

At ``--depth full`` an audit's severity step (the worst case it certifies, replayed: see
:class:`~exactdp.audits.base.Severity`) is shown in every format: a ``severity`` line (and its
witness) in text, JUnit and SARIF messages, a ``severity`` object in JSON and in SARIF's
result properties, a ``severity`` field and witness table in Markdown and HTML; the run's
``depth`` is in every format's header or properties.

* ``text``: each result as ``exactdp audit`` prints it, with its time, then the summary line;
* ``json``: the list of result objects (``--json``), each with ``seconds``, ``checked_on``
  and ``version_note``;
* ``markdown`` and ``html``: for people (an auditor's attachment): the versions, a table of
  every audit with its verdict, evidence and time, then each finding with its witness table,
  evidence, scope, note and source; the HTML page has its style inline and loads nothing;
* ``junit``: one ``<testcase>`` per audit (its time), a ``<failure>`` per violated or
  undecided claim, ``<skipped>`` for a skipped audit, ``<error>`` for one that could not run;
* ``sarif``: SARIF 2.1.0 for code-scanning dashboards: ``tool.driver`` is exactdp (its
  version, one rule per audit), one result per violated (level ``error``) or undecided
  (``warning``) claim with its witness in the message; audits that could not run are tool
  execution notifications.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

from exactdp._display import card
from exactdp.audits.base import EVIDENCE_TEXT, AuditResult
from exactdp.checkers.results import Evidence
from exactdp._version import __version__
from exactdp.errors import InvalidArgument

__all__ = ["FORMATS", "Report", "render", "summary_line", "result_text", "seconds_text"]

FORMATS = ("text", "json", "markdown", "html", "junit", "sarif")
"""The formats :func:`render` writes (``exactdp audit --format``)."""

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

_KEEP = 4000  # characters of one witness value shown in Markdown / HTML (JSON keeps all)


def _exactdp_version() -> str:
    return __version__


@dataclass(frozen=True)
class Report:
    """One run of a suite: its results and what they were run on."""

    suite: str  # the name typed after ``exactdp audit``
    distribution: str  # the audited library's name on PyPI
    version: str  # its installed version
    results: tuple[AuditResult, ...]
    checked_on: tuple[str, ...] = ()
    supported: str = ""
    version_note: str | None = None
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    seconds: float = 0.0  # wall time of the whole run
    plugin: str | None = None  # the distribution that provides a plug-in suite
    exactdp_version: str = field(default_factory=_exactdp_version)
    status: int | None = None  # the exit status of the run, when known
    depth: str = "quick"  # how deep the run went (exactdp.audits.base.DEPTHS)

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        return counts

    def _repr_html_(self) -> str:
        """A card: the run's facts and summary, one row per audit (``render(report, "html")``
        gives the whole page with each audit's witness)."""
        worst = ("violated" if self.counts.get("violated") else "error" if self.counts.get("error")
                 else "undecided" if self.counts.get("undecided") else "holds" if self.results else None)
        rows = _facts(self) + [("summary", summary_line(self.suite, self.results))]
        return card(_title(self), worst, rows,
                    table=(("audit", "component", "verdict", "evidence", "replay"),
                           [(r.id, r.component, r.verdict, r.evidence or "", r.replay or "")
                            for r in self.results]))


def _outcome(r: AuditResult) -> str:
    """pass, fail (violated), undecided (any other non-holding verdict), skipped or error."""
    if r.verdict in ("skipped", "error"):
        return r.verdict
    if r.holding:
        return "pass"
    return "fail" if r.violated else "undecided"


def seconds_text(seconds: float) -> str:
    """``0.012 s``, ``6.31 s``, ``95.2 s``."""
    if seconds < 1:
        return f"{seconds:.3f} s"
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def summary_line(library: str, results: Sequence[AuditResult]) -> str:
    """``opendp 0.16.0: 29 audits: 4 violated, 10 holds-on-grid, ...; 21 of the 25 that
    hold rest on evidence weaker than bit-exact (holds-*)``: each verdict word counted
    apart, the ones holding on weaker evidence said in words."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    version = results[0].version if results else "?"
    line = f"{library} {version}: {len(results)} audits: {summary}"
    holding = sum(1 for r in results if r.holding)
    weaker = sum(1 for r in results if r.on_weaker_evidence)
    if weaker:
        which = f"all {holding}" if weaker == holding else f"{weaker} of the {holding}"
        line += (f"; {which} that hold rest on evidence weaker than bit-exact "
                 f"(holds-*: see 'exactdp audit --help')")
    return line


def result_text(r: AuditResult) -> str:
    """One result as ``exactdp audit`` prints it, with its time (none for a skipped audit; the
    severity step's share when it ran)."""
    text = str(r)
    return text if r.verdict == "skipped" else f"{text}\n  time: {_time_text(r)}"


def _time_text(r: AuditResult) -> str:
    own = f" (severity step {seconds_text(r.severity.seconds)})" if r.severity is not None else ""
    return seconds_text(r.seconds) + own


def render(report: Report, fmt: str) -> str:
    """``report`` in the format ``fmt`` (one of :data:`FORMATS`), ending with a newline."""
    writers = {"text": _text, "json": _json, "markdown": _markdown, "html": _html,
               "junit": _junit, "sarif": _sarif}
    if fmt not in writers:

        raise InvalidArgument(f"fmt={fmt!r}: expected one of {', '.join(FORMATS)}")
    return writers[fmt](report)


# -- text and JSON -----------------------------------------------------------------------

def _text(report: Report) -> str:
    lines = [f"note: {report.version_note}"] if report.version_note else []
    if report.depth != "quick":
        lines.append(f"depth: {report.depth}")
    lines += [result_text(r) for r in report.results]
    lines.append(summary_line(report.suite, report.results))
    return "\n".join(lines) + "\n"


def json_rows(report: Report) -> list[dict[str, Any]]:
    """The JSON list: each result's object with the run's ``checked_on`` and ``version_note``."""
    rows = []
    for r in report.results:
        row = r.to_dict()
        row["checked_on"] = list(report.checked_on)
        row["version_note"] = report.version_note
        row["depth"] = report.depth
        rows.append(row)
    return rows


def _json(report: Report) -> str:
    return json.dumps(json_rows(report), indent=2) + "\n"


# -- what each format shows of one result --------------------------------------------------

def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(value: Any) -> str:
    """Text without control characters (nor anything XML 1.0 cannot hold): each is written
    as ``\\uXXXX``, so that a witness that holds one is shown, not dropped (JSON keeps it)."""
    return _XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", _value(value))


def _shown(value: Any) -> str:
    text = _value(value)
    if len(text) <= _KEEP:
        return text
    return f"{text[:_KEEP]}... ({len(text):,} characters in all; the JSON report has every one)"


def _fields(r: AuditResult) -> list[tuple[str, str]]:
    """The labelled lines of one result, in the order text output shows them."""
    rows = [("claim", r.claim)]
    if r.claimed and r.claimed != r.claim:
        rows.append(("claimed", r.claimed))
    if r.truth is not None:
        rows.append(("truth", r.truth))
    if r.replay:
        rows.append(("replay", r.replay))
    if r.evidence:
        rows.append(("evidence", f"{r.evidence}: {EVIDENCE_TEXT[Evidence(r.evidence)]}"))
    if r.scope:
        rows.append(("scope", r.scope))
    if r.settings is not None:
        rows.append(("settings", r.settings.text))
    if r.note:
        rows.append(("note", r.note))
    if r.expected and r.expected != r.verdict and r.verdict not in ("skipped", "error"):
        rows.append(("expected", f"the suite expected {r.expected} on this version"))
    if r.severity is not None:
        rows.append(("severity", r.severity.summary()))
        if r.severity.scope:
            rows.append(("severity scope", r.severity.scope))
        if r.severity.note:
            rows.append(("severity note", r.severity.note))
    if r.source:
        rows.append(("source", r.source))
    if r.verdict != "skipped":
        rows.append(("time", _time_text(r)))
    return rows


def _message(r: AuditResult) -> str:
    """One paragraph: the verdict, claim against truth, the witness (SARIF, JUnit)."""
    return "\n".join(r.describe(full=False, value=_value))


def _title(report: Report) -> str:
    return f"exactdp audit {report.suite}: {report.distribution} {report.version}"


def _facts(report: Report) -> list[tuple[str, str]]:
    checked = ", ".join(report.checked_on) if report.checked_on else "not stated by the suite"
    rows = [("library", f"{report.distribution} {report.version} (suite {report.suite!r}"
                        + (f", a plug-in from {report.plugin})" if report.plugin else ")")),
            ("checked on", checked)]
    if report.supported:
        rows.append(("applies to", f"{report.distribution} {report.supported}"))
    rows.append(("depth", report.depth))
    rows += [("exactdp", report.exactdp_version),
             ("run", f"{report.started.strftime('%Y-%m-%d %H:%M:%S')} UTC, "
                     f"{len(report.results)} audits in {seconds_text(report.seconds)}")]
    return rows


# -- Markdown ----------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def _md(text: Any) -> str:
    """Inline text or a table cell: Markdown's punctuation backslash-escaped (``**2`` stays
    two asterisks, ``<0.7`` stays text), lines joined with ``<br>``."""
    lines = _MD_SPECIAL.sub(r"\\\1", _clean(text)).splitlines() or [""]
    return "<br>".join(lines)


def _md_code(text: Any) -> str:
    """A code span in a table cell: a fence longer than any run of backticks inside, pipes
    escaped (GitHub's tables split on them even in code), one line."""
    text = " ".join(_clean(text).splitlines()).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _markdown(report: Report) -> str:
    out = [f"# {_md(_title(report))}", ""]
    out += [f"- **{k}**: {_md(v)}" for k, v in _facts(report)]
    if report.version_note:
        out += ["", f"> **Version note:** {_md(report.version_note)}"]
    out += ["", f"**Summary:** {_md(summary_line(report.suite, report.results))}", "",
            "| audit | component | verdict | evidence | replay | time |",
            "| --- | --- | --- | --- | --- | ---: |"]
    for r in report.results:
        time = "" if r.verdict == "skipped" else seconds_text(r.seconds)
        out.append(f"| {_md_code(r.id)} | {_md(r.component)} | **{_md(r.verdict)}**"
                   f"{' (tight)' if r.tight and r.verdict != 'holds-tight' else ''} | "
                   f"{_md(r.evidence or '')} | {_md(r.replay or '')} | {time} |")
    for r in report.results:
        out += ["", f"## {_md(r.id)}: {_md(r.verdict)}", "", f"{_md(r.component)}: {_md(r.claim)}", ""]
        out += [f"- **{k}**: {_md(v)}" for k, v in _fields(r)]
        if r.witness:
            out += ["", "| witness | value |", "| --- | --- |"]
            out += [f"| {_md(k)} | {_md_code(_shown(v))} |" for k, v in r.witness.items()]
        if r.severity is not None and r.severity.witness:
            out += ["", "| severity witness | value |", "| --- | --- |"]
            out += [f"| {_md(k)} | {_md_code(_shown(v))} |" for k, v in r.severity.witness.items()]
    out += ["", "## Evidence words", ""]
    out += [f"- {_md_code(e.value)}: {_md(text)}" for e, text in EVIDENCE_TEXT.items()]
    return "\n".join(out) + "\n"


# -- HTML --------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #c8c8c8; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
code, .witness td { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.v { font-weight: bold; padding: 0 0.3em; border-radius: 0.2em; }
.pass { background: #dcefdc; } .fail { background: #f6d2d2; } .undecided { background: #fbeccb; }
.skipped { background: #e8e8e8; } .error { background: #f0d7f0; }
.note { border-left: 0.3em solid #d9a400; padding: 0.3em 0.8em; background: #fff7dc; }
section { border-top: 1px solid #c8c8c8; margin-top: 1.2em; }
"""


def _h(text: Any) -> str:
    return html.escape(_clean(text), quote=True)


def _link(text: str) -> str:
    """The source as a link when it is a web address (a link, not an asset: nothing loads)."""
    if re.fullmatch(r"https?://\S+", text):
        return f'<a href="{_h(text)}">{_h(text)}</a>'
    return _h(text)


def _html(report: Report) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{_h(_title(report))}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{_h(_title(report))}</h1>", "<table>"]
    out += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in _facts(report)]
    out.append("</table>")
    if report.version_note:
        out.append(f'<p class="note"><strong>Version note:</strong> {_h(report.version_note)}</p>')
    out += [f"<p><strong>Summary:</strong> {_h(summary_line(report.suite, report.results))}</p>",
            "<table>", "<tr><th>audit</th><th>component</th><th>verdict</th><th>evidence</th>"
            "<th>replay</th><th>time</th></tr>"]
    for i, r in enumerate(report.results):
        time = "" if r.verdict == "skipped" else seconds_text(r.seconds)
        tight = " (tight)" if r.tight and r.verdict != "holds-tight" else ""
        out.append(f'<tr><td><a href="#a{i}"><code>{_h(r.id)}</code></a></td><td>{_h(r.component)}</td>'
                   f'<td><span class="v {_outcome(r)}">{_h(r.verdict)}</span>{tight}</td>'
                   f"<td>{_h(r.evidence or '')}</td><td>{_h(r.replay or '')}</td>"
                   f'<td class="num">{time}</td></tr>')
    out.append("</table>")
    for i, r in enumerate(report.results):
        out += [f'<section id="a{i}">',
                f'<h2><code>{_h(r.id)}</code> <span class="v {_outcome(r)}">{_h(r.verdict)}</span></h2>',
                f"<p>{_h(r.component)}: {_h(r.claim)}</p>", "<table>"]
        out += [f"<tr><th>{_h(k)}</th><td>{_link(v) if k == 'source' else _h(v)}</td></tr>"
                for k, v in _fields(r)]
        out.append("</table>")
        if r.witness:
            out += ['<table class="witness">', "<tr><th>witness</th><th>value</th></tr>"]
            out += [f"<tr><td>{_h(k)}</td><td>{_h(_shown(v))}</td></tr>" for k, v in r.witness.items()]
            out.append("</table>")
        if r.severity is not None and r.severity.witness:
            out += ['<table class="witness">', "<tr><th>severity witness</th><th>value</th></tr>"]
            out += [f"<tr><td>{_h(k)}</td><td>{_h(_shown(v))}</td></tr>" for k, v in r.severity.witness.items()]
            out.append("</table>")
        out.append("</section>")
    out += ["<section>", "<h2>Evidence words</h2>", "<table>"]
    out += [f"<tr><th><code>{_h(e.value)}</code></th><td>{_h(text)}</td></tr>" for e, text in EVIDENCE_TEXT.items()]
    out += ["</table>", "</section>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


# -- JUnit XML ---------------------------------------------------------------------------

def _x(text: Any) -> str:
    """Text XML 1.0 can hold (characters it cannot are written as \\uXXXX)."""
    return _clean(text)


def _junit_time(seconds: float) -> str:
    return f"{max(seconds, 0.0):.3f}"


def _junit(report: Report) -> str:
    counts = {o: 0 for o in ("pass", "fail", "undecided", "skipped", "error")}
    for r in report.results:
        counts[_outcome(r)] += 1
    failures = counts["fail"] + counts["undecided"]
    totals = {"tests": str(len(report.results)), "failures": str(failures),
              "errors": str(counts["error"]), "skipped": str(counts["skipped"]),
              "time": _junit_time(report.seconds)}
    # JUnit's <testsuites> has no skipped count (Jenkins' schema refuses it): the suite has it
    root = ET.Element("testsuites", {"name": "exactdp audit", **{k: v for k, v in totals.items() if k != "skipped"}})
    suite = ET.SubElement(root, "testsuite", {
        "name": f"exactdp audit {report.suite}", **totals,
        "timestamp": report.started.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
        "package": f"exactdp.audit.{report.suite}"})
    props = ET.SubElement(suite, "properties")
    for name, value in (("library", report.distribution), ("version", report.version),
                        ("checked_on", ", ".join(report.checked_on)), ("supported", report.supported),
                        ("version_note", report.version_note or ""), ("exactdp", report.exactdp_version),
                        ("plugin", report.plugin or ""), ("depth", report.depth)):
        ET.SubElement(props, "property", {"name": name, "value": _x(value)})
    for r in report.results:
        case = ET.SubElement(suite, "testcase", {"name": _x(r.id), "classname": _x(f"{r.library}.{r.component}"),
                                                 "time": _junit_time(r.seconds)})
        outcome = _outcome(r)
        first = _x(f"{r.verdict}: claim {r.claim}" + (f"; truth {r.truth}" if r.truth is not None else ""))
        if outcome in ("fail", "undecided"):
            ET.SubElement(case, "failure", {"type": r.verdict, "message": first}).text = _x(_message(r))
        elif outcome == "error":
            ET.SubElement(case, "error", {"type": "error", "message": _x(r.note or "the audit could not run")}
                          ).text = _x(_message(r))
        elif outcome == "skipped":
            ET.SubElement(case, "skipped", {"message": _x(r.note)})
        else:
            ET.SubElement(case, "system-out").text = _x(_message(r))
    if report.version_note:
        ET.SubElement(suite, "system-out").text = _x(f"note: {report.version_note}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- SARIF 2.1.0 -------------------------------------------------------------------------

def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _sarif(report: Report) -> str:
    rules, index = [], {}
    for r in report.results:
        if r.id in index:
            continue
        index[r.id] = len(rules)
        rule = {"id": r.id, "name": r.component,
                "shortDescription": {"text": f"{r.component}: {r.claim}"},
                "fullDescription": {"text": f"{r.library} {r.component}: {r.claim}"},
                "defaultConfiguration": {"level": "error"},
                "properties": {"library": r.library, "tags": ["differential-privacy", r.library]}}
        if r.source:
            if re.fullmatch(r"https?://\S+", r.source):
                rule["helpUri"] = r.source
            rule["help"] = {"text": f"source: {r.source}"}
        rules.append(rule)
    results, notifications = [], []
    for r in report.results:
        outcome = _outcome(r)
        if outcome in ("fail", "undecided"):
            props = {"verdict": r.verdict, "claim": r.claim, "claimed": r.claimed, "truth": r.truth,
                     "witness": r.witness, "replay": r.replay, "evidence": r.evidence, "scope": r.scope,
                     "note": r.note, "expected": r.expected, "seconds": round(r.seconds, 3),
                     "library": r.library, "version": r.version,
                     "severity": None if r.severity is None else r.severity.to_dict()}
            results.append({
                "ruleId": r.id, "ruleIndex": index[r.id],
                "level": "error" if outcome == "fail" else "warning",
                "kind": "fail" if outcome == "fail" else "review",
                "message": {"text": _message(r)},
                "locations": [{"logicalLocations": [{
                    "name": r.component, "fullyQualifiedName": f"{r.library} {r.version}: {r.component}",
                    "kind": "function"}]}],
                "properties": {k: v for k, v in props.items() if v not in (None, "")}})
        elif outcome == "error":
            notifications.append({"level": "error", "message": {"text": f"{r.id}: {r.note}"},
                                  "associatedRule": {"id": r.id, "index": index[r.id]}})
    end = report.started + timedelta(seconds=report.seconds)
    invocation: dict[str, Any] = {"executionSuccessful": not notifications,
                                  "startTimeUtc": _utc(report.started), "endTimeUtc": _utc(end)}
    if report.status is not None:
        invocation["exitCode"] = report.status
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run_props: dict[str, Any] = {"suite": report.suite, "library": report.distribution,
                                 "version": report.version, "checked_on": list(report.checked_on),
                                 "version_note": report.version_note,
                                 "summary": summary_line(report.suite, report.results),
                                 "seconds": round(report.seconds, 3), "depth": report.depth}
    severities = {r.id: r.severity.to_dict() for r in report.results
                  if r.severity is not None and _outcome(r) not in ("fail", "undecided")}
    if severities:  # severity steps of audits that are not results (holding ones)
        run_props["severities"] = severities
    if report.supported:
        run_props["supported"] = report.supported
    if report.plugin:
        run_props["plugin"] = report.plugin
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "exactdp", "version": report.exactdp_version, "rules": rules}},
        "invocations": [invocation], "results": results, "columnKind": "unicodeCodePoints",
        "properties": run_props}]}
    return json.dumps(log, indent=2) + "\n"
