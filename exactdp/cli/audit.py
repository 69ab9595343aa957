"""``exactdp audit LIBRARY``: run the built-in audit suite against the installed library;
``exactdp audit [LIBRARY] --list`` lists the registry's claims of kind ``"audit"``."""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import sys
import textwrap
import time
from datetime import datetime, timezone

from exactdp._alarm import alarm_after, read_seconds
from exactdp._usercode import Contained, Stopped, contained, printable
from exactdp.audits.objects import audit_object
from exactdp.audits.plugins import PluginBroken
from exactdp.audits.runner import DEFAULT_TIME_LIMIT, check_depth, coverage
from exactdp.cli import _options as opt
from exactdp.cli._status import BAD_INPUT, CLAIM_FAILED, OK
from exactdp.errors import ExactDPError, InvalidArgument, MissingDependency
from exactdp.audits import report as rep, runner
from exactdp.audits.base import DEPTHS, EVIDENCE_TEXT
from exactdp.audits.report import FORMATS, summary_line as line
from exactdp.audits.runner import SUITES, checked_on, installed_version, plugin_suites, suite, suite_names
from exactdp.registry.audits import suites

__all__ = ["register", "run"]

_DESCRIPTION = """\
Run exactdp's audit suite against the installed version of a DP library: each audit runs
the library's own code (its sums, means, counts, clamping, calibrations, samplers, budget
composition), reads its claims at their exact binary values, computes the exact truth, and
replays every witness through the library ('confirmed' when the library's own output moves
by more than it claims, 'model-mismatch' when exactdp's model was wrong, which is never
called a violation). The suite also holds a corpus of publicly reported bugs, each pinned
to the versions where it applies, and flags a parameter a library computes below its own
stated formula as a finding of its own, even where the privacy claim still holds.

Each result says what its verdict rests on (evidence, also in --json):
{evidence}
Verdicts: 'holds' / 'holds-tight' only with bit-exact evidence; on weaker evidence the word
says which: holds-on-grid (bit-exact-grid), holds-ideal-noise, holds-statistically,
holds-empirical-model; '(tight)' when the claim equals the truth on every case checked;
'violated' (with a witness), 'undecided', 'skipped' (version range), 'error'. The summary
counts each word apart and says how many hold on evidence weaker than bit-exact.

Reports: --format text (default: each result with its time, then the summary), json (the
list of results, as --json), markdown, html (one self-contained page: witness tables,
evidence, versions, per-audit times), junit (one test case per audit, a failure per
violated or undecided claim, for CI test reports) or sarif (SARIF 2.1.0, one result per
violated or undecided claim, for code-scanning dashboards); --output PATH writes the report
there (checked before any audit runs) and shows the text on the terminal.

Depth: --depth quick (the default, for CI) runs each audit's check, which stops at its
first witness; --depth full also runs each audit's severity step, where it has one: a
search for the worst case it can certify (a maximizing float-witness search up to millions
of records, a grid of epsilon and delta down to 1e-20), reported as the worst value against
the claim, its ratio to the claim and its excess, with its witness replayed through the
library like a violation's (a worst case the library does not reproduce is 'undecided',
never certified). It never changes a verdict; its time is shown beside the audit's.

Versions: each suite states the versions it was checked on; another installed version is
named in one line of the report ('note: ...'; version_note in JSON). A version outside the
range the suite applies to is refused unless --any-version.

Objects: --object MODULE:EXPR audits one library object (an OpenDP Transformation,
Measurement or Odometer, a Tumult Core transformation or measurement, a diffprivlib
mechanism, a dp_accounting DpEvent, an Opacus accountant): its domain, metric and claimed
map are read from the object, a small space of neighbours is chosen (--set KEY=VALUE
overrides it: d_in, values, sizes, delta, as the object's reader says), and the object's
own code runs on them. In Python: exactdp.audit_object(obj, ...).

Coverage: --coverage lists every public primitive of the installed library that adds noise,
aggregates, bounds contributions, selects partitions or accounts a budget (taken from the
library's own namespace), each with the audits that exercise it or 'not audited' and why.

Settings: a verdict reached on a finite set of parameter settings says how many and how far
they reach ('HOLDS-ON-GRID on 12 settings (epsilon 1e-06..1e+300)'; 'settings' in JSON).

Plug-ins: a package that declares an entry point in the group 'exactdp.audits' (NAME =
"package.module", a suite module like the built-in ones) is audited with 'exactdp audit
NAME' and listed by --list. A plug-in's code runs contained: one that cannot be imported,
exits, hangs, prints or returns anything but a list of audits is refused in one line (exit
2) and marked broken in --list; a check that exits, raises, prints, hangs, moves the working
directory, leaves a thread running or returns no Finding is an 'error' result naming it.
A violation needs a witness and a confirmed replay (else it is 'undecided').

Exit status: 0 when nothing is violated or undecided (a holds-* verdict on weaker evidence
counts as holding: the summary line says how many), 1 when a claim is violated or
undecided, 2 on bad input, a missing library (the message names the extra to install), a
version outside the suite's range, a broken plug-in, an unwritable --output or an audit
whose library call raised or ran out of time. --list without a library lists every suite,
and marks the audits of a library that is not installed as skipped."""


def _evidence_lines() -> str:

    return "\n".join(textwrap.fill(text, 90, initial_indent=f"  {e.value:<17}", subsequent_indent=" " * 19)
                     for e, text in EVIDENCE_TEXT.items())


_EPILOG = """\
examples:
  exactdp audit diffprivlib
  exactdp audit opendp --only opendp/variance/sum-of-squared-deviations --json
  exactdp audit opendp --list
  exactdp audit opendp --only opendp/variance/variance --depth full
  exactdp audit --list
  exactdp audit diffprivlib --only diffprivlib/tools/var/float-rounding --format junit --output audit.xml
  exactdp audit diffprivlib --only diffprivlib/tools/var/float-rounding --format sarif"""


def _line(audit) -> str:
    scope = f" ({audit.library} {audit.versions})" if audit.versions else ""
    return printable(f"{audit.id}: {audit.statement}{scope}")


def _list(library: str | None, as_json: bool = False) -> int:
    """The registry's audits (of ``library``, or of every suite): one line each, then the
    installed version of each library; a missing library's audits are marked skipped.
    ``as_json``: one JSON list of objects (id, suite, library, statement, versions, corpus,
    installed: the version or null, skipped), nothing else on stdout."""
    found = plugin_suites()
    if library is None or library in SUITES:
        listed = suites() if library is None else suites(library)
    else:
        listed = {}
    broken: list[str] = []
    for name, plugin in list(found.items()):  # plug-ins after the built-in suites
        if library is not None and name != library:
            continue
        if name in SUITES:  # it takes a built-in suite's name: never run, marked broken
            key = f"{name} (plug-in)"
            listed[key] = PluginBroken(f"audit plug-in {name!r} ({plugin.origin}): {plugin.problem}")
            broken.append(key)
            found[key] = plugin
            continue
        try:
            listed[name] = suite(name)
        except ExactDPError as e:
            if library is not None:
                raise  # one plug-in asked for: its own one line, exit 2
            broken.append(name)
            listed[name] = e
    if library is not None and library not in listed:
        suite(library)  # an unknown name: the runner's one line
    rows, lines, tail = [], [], []
    for name, audits in listed.items():
        if isinstance(audits, ExactDPError):  # a broken plug-in: marked, never listed as passed
            lines.append(f"{name}: [broken plug-in: {audits}]")
            rows.append({"id": None, "suite": name, "library": None, "statement": None, "versions": "",
                         "corpus": False, "installed": None, "skipped": True, "broken": str(audits),
                         "plugin": found[name].distribution})
            tail.append(f"{name} is a broken plug-in: its audits cannot run")
            continue
        if library is not None:  # one library: it must be installed (MissingDependency: exit 2)
            version, missing = installed_version(name), None
        else:
            try:
                version, missing = installed_version(name), None
            except MissingDependency as e:
                version, missing = None, str(e)
        plugin = found[name].distribution if name in found and name not in SUITES else None
        for audit in audits:
            lines.append(_line(audit) + ("" if missing is None else "  [skipped: not installed]"))
            row = {"id": audit.id, "suite": name, "library": audit.library,
                   "statement": audit.statement, "versions": audit.versions,
                   "corpus": audit.corpus, "installed": version,
                   "skipped": missing is not None}
            if plugin is not None:
                row["plugin"] = plugin
            rows.append(row)
        if missing is None:
            checked = checked_on(name)
            differs = checked and not any(version == c for c in checked)
            tail.append(f"{name} {version} is installed" + (f" (the suite was checked on {', '.join(checked)})"
                                                             if differs else "")
                        + (f" (plug-in from {plugin})" if plugin else ""))
        else:
            tail.append(f"{missing}; its {len(audits)} audits are skipped")
    if as_json:
        print(json.dumps(rows, indent=2))
        for line in tail:  # which suites were skipped, for a reader of the terminal
            print(line, file=sys.stderr)
    else:
        print("\n".join(lines + tail))
    if broken:
        print(f"exactdp: {len(broken)} audit plug-in(s) could not be loaded: {', '.join(broken)} "
              f"(see 'broken' above; 'exactdp audit {broken[0]}' says why)", file=sys.stderr)
        return BAD_INPUT
    return OK


def run(args) -> int:
    fmt = opt.report_format(args)
    if args.list:
        if fmt not in ("text", "json"):
            raise InvalidArgument(f"--format {fmt} with --list: the list is text or json (--json)")
        return _list(args.library, fmt == "json")
    if args.object is not None:
        return _audit_object(args, fmt)
    if args.coverage:
        if args.library is None:
            raise InvalidArgument("--coverage maps one library: give it (exactdp audit LIBRARY --coverage)")
        if fmt not in ("text", "json"):
            raise InvalidArgument(f"--format {fmt} with --coverage: the map is text or json (--json)")
        found = coverage(args.library)
        print(json.dumps(found.to_dict(), indent=2) if fmt == "json" else "\n".join(found.lines()))
        return OK
    if args.library is None:
        raise InvalidArgument("give the library to audit (exactdp audit LIBRARY), or --list")
    depth = runner.check_depth(args.depth)
    # everything that can be refused is refused before the first audit runs
    version = runner.installed_version(args.library)  # an unknown name, a broken plug-in, a missing library
    if not args.any_version:
        runner.require_supported(args.library, version)
    audits = runner.suite(args.library)
    if args.only:
        known = {a.id for a in audits}
        unknown = [i for i in args.only if i not in known]
        if unknown:
            raise InvalidArgument(f"audit id {unknown[0]!r} is not in the {args.library} suite: "
                                  f"'exactdp audit {args.library} --list' shows the {len(known)} ids")
    if args.output is not None:
        opt.check_writable(args.output)
        shown, args.output = args.output, os.path.abspath(args.output)  # the audits cannot move it
    shadow = runner.plugin_suites().get(args.library) if args.library in runner.SUITES else None
    if shadow is not None:
        print(f"exactdp: note: the built-in {args.library} suite runs; the audit plug-in of the same name "
              f"({shadow.origin}) is not used: rename its entry point", file=sys.stderr)
    note = runner.version_note(args.library, version)
    to_terminal = args.output is not None or fmt == "text"  # the text streams to stdout
    if to_terminal and note:
        print(f"note: {note}", flush=True)
    if to_terminal and depth != "quick":
        print(f"depth: {depth}", flush=True)
    total = [0]

    def progress(result) -> None:
        total[0] += 1
        if to_terminal:
            print(rep.result_text(result), flush=True)
        else:
            print(f"[{total[0]}] {printable(result.id)}: {result.verdict} ({rep.seconds_text(result.seconds)})",
                  file=sys.stderr, flush=True)

    started, clock = datetime.now(timezone.utc), time.perf_counter()
    results = runner.run_audits(args.library, args.only, time_limit=args.time_limit, progress=progress,
                                any_version=True, depth=depth, show_progress=False)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    status = (BAD_INPUT if counts.get("error") else
              CLAIM_FAILED if counts.get("violated") or counts.get("undecided") else OK)
    plugin = None
    if args.library not in runner.SUITES:
        plugin = runner.plugin_suites()[args.library].distribution
    report = rep.Report(args.library, runner.distribution(args.library), version, tuple(results),
                        checked_on=runner.checked_on(args.library), supported=runner.supported(args.library),
                        version_note=note, started=started, seconds=time.perf_counter() - clock,
                        plugin=plugin, status=status, depth=depth)
    if to_terminal:
        print(summary_line(args.library, results))
    if args.output is not None:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(rep.render(report, fmt))
        print(f"exactdp: the {fmt} report is in {shown}", file=sys.stderr)
    elif fmt != "text":
        sys.stdout.write(rep.render(report, fmt))
    if counts.get("error"):
        print(f"exactdp: {counts['error']} audit(s) could not run (see 'error' above)", file=sys.stderr)
    failed = [r.id for r in results if r.severity is not None and r.severity.status == "error"]
    if failed:
        print(f"exactdp: the severity step of {len(failed)} audit(s) could not run ({', '.join(failed)}; "
              f"see 'severity' above)", file=sys.stderr)
    return status


def _load_object(target: str):
    """``MODULE:EXPR``: import MODULE (the working directory appended to ``sys.path`` for the
    import only) and evaluate EXPR in its namespace, both contained (an exit, a print or a
    hang is refused in one line)."""
    module_name, sep, expr = target.partition(":")
    if not sep or not module_name or not expr.strip():
        raise InvalidArgument(f"--object={target!r}: expected MODULE:EXPR, such as "
                              f"'mypipeline:make_release()' or 'opendp.measurements:make_laplace(...)'")
    box = Contained()
    added = os.getcwd() not in sys.path
    try:
        with alarm_after(DEFAULT_TIME_LIMIT, _Slow), contained(_Slow, record=box):
            if added:
                sys.path.append(os.getcwd())
            try:
                module = importlib.import_module(module_name)
            finally:
                if added and os.getcwd() in sys.path:
                    sys.path.remove(os.getcwd())
            return eval(expr, vars(module))  # noqa: S307 - the user's own expression, as typed
    except _Slow:
        raise InvalidArgument(f"--object={target!r} did not load within {DEFAULT_TIME_LIMIT:g} s") from None
    except Stopped as e:
        raise InvalidArgument(f"--object={target!r}: loading it {e.describe()}{box.printed.said()}") from None
    except Exception as e:  # noqa: BLE001 - the user's module or expression
        raise InvalidArgument(f"--object={target!r}: {type(e).__name__}: {printable(str(e).splitlines()[0] if str(e) else '')}; "
                              f"check the module path and the expression") from None


class _Slow(BaseException):
    """The alarm in :func:`_load_object`."""


def _object_options(pairs: list[str]) -> dict:
    options = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.isidentifier():
            raise InvalidArgument(f"--set={pair!r}: expected KEY=VALUE, such as d_in=2 or values=[0,1,2]")
        try:
            options[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            options[key] = text  # a word or a range such as 0..3: the reader reads it
    return options


def _audit_object(args, fmt: str) -> int:
    if args.library is not None or args.list or args.coverage:
        raise InvalidArgument("--object audits one object: give it without a library, --list or --coverage")
    if fmt not in ("text", "json"):
        raise InvalidArgument(f"--format {fmt} with --object: the result is text or json (--json)")
    obj = _load_object(args.object)
    result = audit_object(obj, time_limit=args.time_limit, depth=check_depth(args.depth),
                          **_object_options(args.set or []))
    if fmt == "json":
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(rep.result_text(result))
    if result.verdict == "error":
        return BAD_INPUT
    return CLAIM_FAILED if result.verdict in ("violated", "undecided") else OK


def summary_line(library: str, results) -> str:
    """``opendp 0.16.0: 29 audits: 4 violated, 10 holds-on-grid, ...`` (see
    :func:`exactdp.audits.report.summary_line`)."""
    return line(library, results)


def _seconds(text: str) -> float:
    try:
        return read_seconds(text, "--time-limit", DEFAULT_TIME_LIMIT)
    except InvalidArgument as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def register(subparsers) -> None:
    """Add ``exactdp audit`` to the ``exactdp`` command."""
    p = subparsers.add_parser(
        "audit", help="run the audit suite against an installed DP library",
        description=_DESCRIPTION.format(evidence=_evidence_lines()), epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("library", nargs="?", choices=sorted(suite_names()),
                   help="the library to audit (optional with --list); installed plug-ins are listed too")
    opt.only_option(p, "run only this audit (repeatable; --list shows the ids)", metavar="ID", repeat=True)
    p.add_argument("--list", action="store_true",
                   help="list the suite's audits and the installed version (every suite without LIBRARY)")
    p.add_argument("--object", metavar="MODULE:EXPR", default=None,
                   help="audit one library object (an OpenDP Transformation, Measurement or Odometer, a "
                        "Tumult Core transformation or measurement, a diffprivlib mechanism, a dp_accounting "
                        "DpEvent, an Opacus accountant): import MODULE and evaluate EXPR in it")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="with --object: an option of its audit (repeat), e.g. d_in=2, values=[0,1,2], sizes=0..3")
    p.add_argument("--coverage", action="store_true",
                   help="list every public primitive of the installed library that adds noise, aggregates, "
                        "bounds contributions, selects partitions or accounts a budget, each with the ids of "
                        "the audits that exercise it or 'not audited' and why")
    p.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="S",
                   help=f"seconds one audit may take (default {DEFAULT_TIME_LIMIT:g})")
    opt.json_option(p, "a JSON list instead of text (the same as --format json)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="the report's format: " + ", ".join(FORMATS) + " (default text)")
    p.add_argument("--output", metavar="PATH", default=None,
                   help="write the report to PATH (the terminal shows the text as it runs)")
    p.add_argument("--depth", default="quick", metavar="{" + ",".join(DEPTHS) + "}",
                   help="quick: each audit stops at its first witness (default); full: also each "
                        "audit's severity step, the worst case it certifies, replayed")
    p.add_argument("--any-version", action="store_true",
                   help="run a suite on a library version outside the range it applies to "
                        "(the report notes the version)")
    p.set_defaults(run=run)
