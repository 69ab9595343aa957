"""``exactdp audit LIBRARY``: run the built-in audit suite against the installed library."""

from __future__ import annotations

import argparse
import json
import sys

_DESCRIPTION = """\
Run exactdp's audit suite against the installed version of a DP library: each audit runs
the library's own code (its sums, means, counts, clamping, calibrations, samplers, budget
composition), reads its claims at their exact binary values, computes the exact truth, and
replays every witness through the library ('confirmed' when the library's own output moves
by more than it claims, 'model-mismatch' when exactdp's model was wrong, which is never
called a violation). An audit says 'holds' only for arithmetic exactdp models bit for bit.
The suite also holds a corpus of publicly reported bugs, each pinned to the versions where
it applies. Exit status: 0 when nothing is violated or undecided, 1 when a claim is
violated or undecided, 2 on bad input, a missing library (the message names the extra to
install) or an audit whose library call raised or ran out of time."""

_EPILOG = """\
examples:
  exactdp audit diffprivlib
  exactdp audit opendp --only opendp/variance/sum-of-squared-deviations --json
  exactdp audit opendp --list"""


def _run(args) -> int:
    from exactdp.audits.runner import installed_version, run_audits, suite

    if args.list:
        version = installed_version(args.library)
        for audit in suite(args.library):
            scope = f" ({args.library} {audit.versions})" if audit.versions else ""
            print(f"{audit.id}: {audit.component}: {audit.claim}{scope}")
        print(f"{args.library} {version} is installed")
        return 0
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
        summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        version = results[0].version if results else "?"
        print(f"{args.library} {version}: {len(results)} audits: {summary}")
    if counts.get("error"):
        print(f"exactdp: {counts['error']} audit(s) could not run (see 'error' above)", file=sys.stderr)
        return 2
    return 1 if counts.get("violated") or counts.get("undecided") else 0


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
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("library", choices=sorted(SUITES), help="the library to audit")
    p.add_argument("--only", action="append", metavar="ID",
                   help="run only this audit (repeatable; --list shows the ids)")
    p.add_argument("--list", action="store_true", help="list the suite's audits and the installed version")
    p.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="S",
                   help=f"seconds one audit may take (default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--json", action="store_true", help="a JSON list instead of text")
    p.set_defaults(run=_run)
