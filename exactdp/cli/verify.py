"""``exactdp verify``: re-check every claim of the registry (:mod:`exactdp.registry`) of
kinds sensitivity, privacy and formula (the catalogue), in registry order; one block per
claim, the summary last."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone

from exactdp.cli import _claims_report as report
from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp._progress import Progress
from exactdp.errors import InvalidArgument
from exactdp import registry
from exactdp.checkers.results import Verdict, evidence_note, format_value, verdict_counts
from exactdp.cli.catalog import check_catalogue, print_checks

__all__ = ["register", "run"]


def _claims(args) -> tuple[list, list, list]:
    """The registry's sensitivity claims, privacy claims and catalogue entries to check
    (its audits run with ``exactdp audit``)."""
    kinds = ("sensitivity", "privacy") + (() if args.no_catalogue else ("formula",))
    chosen = registry.claims(kinds, args.only or None, all_k=args.all)
    sensitivity, privacy, formula = ([c for c in chosen if c.kind == kind]
                                     for kind in ("sensitivity", "privacy", "formula"))
    return sensitivity, privacy, formula


def run(args) -> int:
    from exactdp.checkers.builtin import FLOAT_CLOSE, float_gap  # lazy: loads SymPy, which this module does not import at load

    fmt = opt.report_format(args)
    if args.output is not None:
        opt.check_writable(args.output)
    started, clock = datetime.now(timezone.utc), time.monotonic()
    collect = fmt != "text"  # build the JSON rows, print nothing per claim
    claims, private, entries = _claims(args)
    if args.only and not claims and not entries and not private:
        raise InvalidArgument(f"--only={args.only!r} matches no built-in claim or catalogue id; "
                              f"try 's000' or 's003/a'")
    checks = check_catalogue(entries)
    failures = 0
    rows = []
    counts: dict[str, int] = {}
    shown = Progress("verify", len(claims)) if collect else None  # text mode prints a line per claim
    for number, claim in enumerate(claims, 1):
        if shown is not None:
            shown.show(f"claim {number:,} of {len(claims):,} ({claim.id})")
        result = claim.check(progress=None)
        met = claim.meets_expectation(result)
        failures += not met
        counts[result.verdict.value] = counts.get(result.verdict.value, 0) + 1
        if collect:
            obj = result.to_dict()
            obj.update(kind="claim", id=claim.id, source=claim.source, statement=claim.statement,
                       expected=claim.expect, as_expected=met)
            rows.append(obj)
            continue
        note = ""
        if claim.expect == FLOAT_CLOSE and result.verdict is not Verdict.HOLDS_TIGHT:
            gap = float_gap(result)
            note = f" (float rounding: claim - exact = {gap:.1e} relative)"
        mark = "" if met else "  <-- UNEXPECTED (expected " + claim.expect + ")"
        if not hasattr(result, "sensitivity"):  # a statement: unbounded, relation mismatch
            print(f"{result.verdict.value.upper():<11} {claim.id}: {claim.statement}"
                  f"{evidence_note(result.evidence)}{mark}")
            print(f"            {result.summary()}")
            print(f"            scope: {result.scope_text}")
            continue
        s = result.sensitivity
        print(f"{result.verdict.value.upper():<11} {claim.id}: claim {result.claim_shown} vs exact "
              f"{format_value(s.value)}{note}{evidence_note(result.evidence)}{mark}")
        if s.witness is not None:
            print(f"            witness {s.witness}")
        print(f"            scope: {s.scope.describe()}")
    if shown is not None:
        shown.close()
    private_counts: dict[str, int] = {}
    if private and not collect:
        print()
    for claim in private:
        result = claim.check()
        met = claim.meets_expectation(result)
        failures += not met
        verdict = result.verdict.value if result.verdict is not None else "none"
        private_counts[verdict] = private_counts.get(verdict, 0) + 1
        if collect:
            rows.append(claim.to_dict(result))
            continue
        mark = "" if met else "  <-- UNEXPECTED (expected " + claim.expect + ")"
        print(f"{verdict.upper():<11} {claim.id}: {claim.statement}"
              f"{evidence_note(result.evidence)}{mark}")
        print(f"            {result.summary()}")
        print(f"            scope: {result.scope_text}")
    catalogue_failures = sum(not c.ok for c in checks)
    status = CLAIM_FAILED if failures or catalogue_failures else OK
    if collect:
        rows.extend(dict(c.to_dict(), kind="catalogue", as_expected=c.ok) for c in checks)
        if fmt == "json":
            report.write(json.dumps(rows, indent=2) + "\n", args.output)
        else:
            report.write(report.render([_row(r) for r in rows], fmt, command="verify", started=started,
                                       seconds=time.monotonic() - clock, status=status), args.output)
    else:
        if checks:
            print()
            print_checks(checks)
        if claims or private:  # the summary comes last
            print()
        if private:
            summary = verdict_counts(private_counts)
            tail = "" if claims else f"; {failures} departed from what was expected"
            print(f"{len(private)} built-in privacy claims checked: {summary}{tail}")
        if claims:
            summary = verdict_counts(counts)
            print(f"{len(claims)} built-in claims checked: {summary}; "
                  f"{failures} departed from what was expected")
    if collect:
        summary = report.closing_line([_row(r) for r in rows])
        for line in report.github_annotations([_row(r) for r in rows], "exactdp verify"):
            print(line, file=sys.stderr)
        if args.output is not None:
            print(f"exactdp verify: {summary}; report written to {args.output}", file=sys.stderr)
    return status


def _row(obj: dict) -> report.Row:
    """A JSON row of ``verify --json`` (a claim, a privacy claim or a catalogue entry) as a report row."""
    verdict = str(obj.get("verdict") or ("ok" if obj.get("as_expected") else "failed"))
    line = obj.get("statement") or obj.get("summary") or obj.get("claim") or obj.get("id", "")
    details = [(k, json.dumps(obj[k]) if not isinstance(obj[k], str) else obj[k])
               for k in ("witness", "scope_text", "evidence", "source") if obj.get(k) not in (None, "")]
    expected = obj.get("expected")
    return report.Row(str(obj.get("id", "?")), bool(obj.get("as_expected")), verdict, str(line), tuple(details),
                      "" if expected is None or obj.get("as_expected") else str(expected))


def register(subparsers) -> None:
    """Add ``exactdp verify`` to the ``exactdp`` command."""
    v = subparsers.add_parser("verify", help="re-check every built-in claim (the main job)", **opt.command_help(
        "Re-check every built-in claim of the seed texts by exhaustive enumeration, then the "
        "catalogue of sensitivity formulas; one line per claim, the summary last. Each built-in "
        "claim's result states its evidence (JSON: \"evidence\"): bit-exact (exact arithmetic "
        "over the whole stated domain; a built-in claim's space is its domain), bit-exact-grid "
        "(exact on a finite grid the scope names), ideal-noise, statistical or empirical-model. "
        "holds / holds-tight are said only on bit-exact evidence; other evidence says "
        "holds-on-grid, holds-ideal-noise, holds-statistically or holds-empirical-model, with "
        "the evidence in brackets after the verdict, and the summary counts each word apart. "
        "The catalogue's formulas are checked on the grid of bindings each entry names.",
        "  exactdp verify\n  exactdp verify --only s000 --no-catalogue\n  exactdp verify --all --json"))
    v.add_argument("--all", action="store_true", help="seed 003 at every k the notebook ran (default: k = 1, 2)")
    opt.only_option(v, "only claims whose id starts with PREFIX, e.g. s000")
    v.add_argument("--no-catalogue", action="store_true", help="only the built-in claims, not the catalogue")
    opt.json_option(v, "a JSON list instead of text (the same as --format json)")
    v.add_argument("--format", choices=report.FORMATS, default=None,
                   help="text (default), json, markdown, junit or sarif: one report of every claim; "
                        "under GitHub Actions each claim not as expected is also an ::error annotation")
    v.add_argument("--output", metavar="PATH", help="write the report to PATH (checked before any claim runs)")
    v.set_defaults(run=run)
