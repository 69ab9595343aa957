"""``exactdp check``: check every sensitivity claim of a project's claims file exactly.

    exactdp check claims.toml
    exactdp check claims.toml --json --max-pairs 1000000

The file format is described in :mod:`exactdp.claimsfile`. One line per claim (``ok`` or
``FAIL``, its id, the verdict, the claim against the exact value and the witness) and its
scope; ``--json`` prints one object ``{"file", "passed", "claims": [...]}`` with, per
claim, ``id``, ``expect``, ``passed``, ``verdict``, ``claim``, ``claim_value``,
``sensitivity``, ``witness`` and ``scope``.

Only the code the file names runs: a ``function``'s module is imported with the claims
file's folder appended to ``sys.path`` for that import only, after exactdp's own imports
(see :mod:`exactdp.claimsfile`). Each claim is stopped after ``--time-limit`` seconds
(default :data:`~exactdp.claimsfile.DEFAULT_TIME_LIMIT`); on a terminal a line on stderr
names the claim being checked.

Exit status: 0 every claim as expected; 1 a claim violated (or one marked
``expect = "violated"`` that now holds); 2 a bad file, or a claim refused: its function
raised, exited, printed its own usage or ran past the time limit, its space is over a
budget (one line on stderr naming the line, the claim and the field; with ``--json`` the
object also carries ``"error"`` and the claims checked before it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone

from exactdp.cli import _claims_report as report
from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.claimsfile import DEFAULT_TIME_LIMIT, check_claims, load_claims, printable, read_time_limit

__all__ = ["register", "run"]

_DESCRIPTION = """\
Check every claim of a claims file (TOML: [[claim]] tables with id, query or function,
universe or pool, sizes, neighbors, d_in, claim, expect, grid) by exact enumeration.

Only the code the file names runs: a function's module is imported with the claims
file's folder appended to the module search path for that import only (the working
directory is not searched). A claim whose function raises, exits, or runs past the time
limit is refused, naming the claim.

Exit status: 0 every claim as expected; 1 a claim violated, or a claim marked
expect = "violated" that holds; 2 a bad file or a refused claim (one line on stderr:
line, claim, field)."""

_EPILOG = """\
example claims.toml:
  [[claim]]
  id = "clipped-sum"
  query = "sum"
  clip = [2, 10]
  universe = "0..12"
  sizes = "0..3"
  claim = "U"

examples:
  exactdp check claims.toml
  exactdp check claims.toml --json --max-pairs 1000000
  exactdp check claims.toml --time-limit 600"""


def _seconds(text: str) -> float:
    try:
        return read_time_limit(text, "--time-limit")
    except InvalidArgument as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def register(subparsers) -> None:
    """Add the ``check`` sub-command to the ``exactdp`` parser."""
    p = subparsers.add_parser(
        "check", help="check every claim of a claims file (TOML) exactly",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("claims_file", metavar="CLAIMS.toml", help="the claims file")
    opt.budget_options(p, "refuse a claim whose enumeration has more neighbouring pairs (default: exactdp's budget)",
                       "refuse a claim whose space has more datasets (default: exactdp's budget)")
    p.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help=f"stop a claim (importing its function and checking it) after SECONDS and "
                        f"refuse it, exit 2 (default {DEFAULT_TIME_LIMIT:g})")
    opt.json_option(p, "print one JSON object (the same as --format json)")
    p.add_argument("--format", choices=report.FORMATS, default=None,
                   help="text (default), json, markdown, junit (JUnit XML) or sarif (SARIF 2.1.0): one "
                        "report of every claim; under GitHub Actions each claim not as expected is also "
                        "an ::error annotation")
    p.add_argument("--output", metavar="PATH", help="write the report to PATH (checked before any claim runs)")
    p.set_defaults(run=run)


def _row(c) -> report.Row:
    r = c.result
    details = [("scope", r.sensitivity.scope.describe()), ("evidence", r.evidence.value)]
    if r.witness is not None:
        details.insert(0, ("witness", str(r.witness)))
    return report.Row(c.spec.id, c.passed, r.verdict.value, f"{r.sensitivity.query.name}: {r.summary()}",
                      tuple(details), "" if c.passed else c.spec.expect)


def run(args) -> int:
    fmt = opt.report_format(args)
    if args.output is not None:
        opt.check_writable(args.output)
    started, clock = datetime.now(timezone.utc), time.monotonic()
    checked = []
    try:
        specs = load_claims(args.claims_file, time_limit=args.time_limit)
        for c in check_claims(specs, path=args.claims_file, time_limit=args.time_limit,
                              max_pairs=args.max_pairs, max_datasets=args.max_datasets):
            checked.append(c)
            if c.printed:
                print(f"exactdp check: note: claim {printable(c.spec.id)}: the function ran{c.printed}",
                      file=sys.stderr, flush=True)
            if fmt == "text" and args.output is None:
                print(c.line(), flush=True)
    except ExactDPError as e:  # ClaimsFileError: one line on stderr, exit 2 (exactdp.cli.main)
        if fmt == "json":  # never an empty report: what was checked, and why the rest was not
            report.write(json.dumps({"file": args.claims_file, "passed": False, "error": str(e),
                                     "claims": [c.to_dict() for c in checked]}, indent=2) + "\n", args.output)
        raise
    passed = all(c.passed for c in checked)
    status = OK if passed else CLAIM_FAILED
    rows = [_row(c) for c in checked]
    if fmt == "json":
        report.write(json.dumps({"file": args.claims_file, "passed": passed,
                                 "claims": [c.to_dict() for c in checked]}, indent=2) + "\n", args.output)
    elif fmt == "text":
        text = "".join(c.line() + "\n" for c in checked) if args.output is not None else ""
        report.write(text + report.closing_line(rows) + "\n", args.output)
    else:
        report.write(report.render(rows, fmt, command="check", started=started,
                                   seconds=time.monotonic() - clock, status=status), args.output)
    for line in report.github_annotations(rows, args.claims_file):  # the runner reads stderr too
        print(line, file=sys.stderr)
    if args.output is not None:
        print(f"exactdp check: {report.closing_line(rows)}; report written to {args.output}", file=sys.stderr)
    return status
