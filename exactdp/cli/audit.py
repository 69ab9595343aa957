"""``exactdp audit LIBRARY``: run the built-in audit suite against the installed library;
``exactdp audit [LIBRARY] --list`` lists the registry's claims of kind ``"audit"``."""

from __future__ import annotations

import argparse
import json
import sys

from exactdp.cli import _options as opt
from exactdp.cli._status import BAD_INPUT, CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument, MissingDependency

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

Exit status: 0 when nothing is violated or undecided (a holds-* verdict on weaker evidence
counts as holding: the summary line says how many), 1 when a claim is violated or
undecided, 2 on bad input, a missing library (the message names the extra to install) or
an audit whose library call raised or ran out of time. --list without a library lists
every suite, and marks the audits of a library that is not installed as skipped."""


def _evidence_lines() -> str:
    from exactdp.audits.base import EVIDENCE_TEXT

    import textwrap

    return "\n".join(textwrap.fill(text, 90, initial_indent=f"  {e.value:<17}", subsequent_indent=" " * 19)
                     for e, text in EVIDENCE_TEXT.items())


_EPILOG = """\
examples:
  exactdp audit diffprivlib
  exactdp audit opendp --only opendp/variance/sum-of-squared-deviations --json
  exactdp audit opendp --list
  exactdp audit --list"""


def _line(audit) -> str:
    scope = f" ({audit.library} {audit.versions})" if audit.versions else ""
    return f"{audit.id}: {audit.statement}{scope}"


def _list(library: str | None, as_json: bool = False) -> int:
    """The registry's audits (of ``library``, or of every suite): one line each, then the
    installed version of each library; a missing library's audits are marked skipped.
    ``as_json``: one JSON list of objects (id, suite, library, statement, versions, corpus,
    installed: the version or null, skipped), nothing else on stdout."""
    from exactdp.audits.runner import installed_version
    from exactdp.registry.audits import suites

    listed = suites() if library is None else suites(library)
    rows, lines, tail = [], [], []
    for name, audits in listed.items():
        if library is not None:  # one library: it must be installed (MissingDependency: exit 2)
            version, missing = installed_version(name), None
        else:
            try:
                version, missing = installed_version(name), None
            except MissingDependency as e:
                version, missing = None, str(e)
        for audit in audits:
            lines.append(_line(audit) + ("" if missing is None else "  [skipped: not installed]"))
            rows.append({"id": audit.id, "suite": name, "library": audit.library,
                         "statement": audit.statement, "versions": audit.versions,
                         "corpus": audit.corpus, "installed": version,
                         "skipped": missing is not None})
        tail.append(f"{name} {version} is installed" if missing is None
                    else f"{missing}; its {len(audits)} audits are skipped")
    if as_json:
        print(json.dumps(rows, indent=2))
        for line in tail:  # which suites were skipped, for a reader of the terminal
            print(line, file=sys.stderr)
    else:
        print("\n".join(lines + tail))
    return OK


def run(args) -> int:
    from exactdp.audits.runner import run_audits

    if args.list:
        return _list(args.library, args.json)
    if args.library is None:
        raise InvalidArgument("give the library to audit (exactdp audit LIBRARY), or --list")
    total = [0]

    def progress(result) -> None:
        total[0] += 1
        if args.json:
            print(f"[{total[0]}] {result.id}: {result.verdict}", file=sys.stderr, flush=True)
        else:
            print(result, flush=True)

    results = run_audits(args.library, args.only, time_limit=args.time_limit, progress=progress)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        print(summary_line(args.library, results))
    if counts.get("error"):
        print(f"exactdp: {counts['error']} audit(s) could not run (see 'error' above)", file=sys.stderr)
        return BAD_INPUT
    return CLAIM_FAILED if counts.get("violated") or counts.get("undecided") else OK


def summary_line(library: str, results) -> str:
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


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of seconds, such as 60")
    return value


def register(subparsers) -> None:
    """Add ``exactdp audit`` to the ``exactdp`` command."""
    from exactdp.audits.runner import DEFAULT_TIME_LIMIT, SUITES

    p = subparsers.add_parser(
        "audit", help="run the audit suite against an installed DP library",
        description=_DESCRIPTION.format(evidence=_evidence_lines()), epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("library", nargs="?", choices=sorted(SUITES),
                   help="the library to audit (optional with --list)")
    opt.only_option(p, "run only this audit (repeatable; --list shows the ids)", metavar="ID", repeat=True)
    p.add_argument("--list", action="store_true",
                   help="list the suite's audits and the installed version (every suite without LIBRARY)")
    p.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="S",
                   help=f"seconds one audit may take (default {DEFAULT_TIME_LIMIT:g})")
    opt.json_option(p, "a JSON list instead of text")
    p.set_defaults(run=run)
