"""``exactdp verify``: re-check every claim of the registry (:mod:`exactdp.registry`) of
kinds sensitivity, privacy and formula (the catalogue), in registry order; one block per
claim, the summary last."""

from __future__ import annotations

import json

from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
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

    claims, private, entries = _claims(args)
    if args.only and not claims and not entries and not private:
        raise InvalidArgument(f"--only={args.only!r} matches no built-in claim or catalogue id; "
                              f"try 's000' or 's003/a'")
    checks = check_catalogue(entries)
    failures = 0
    rows = []
    counts: dict[str, int] = {}
    for claim in claims:
        result = claim.check(progress=None)
        met = claim.meets_expectation(result)
        failures += not met
        counts[result.verdict.value] = counts.get(result.verdict.value, 0) + 1
        if args.json:
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
    private_counts: dict[str, int] = {}
    if private and not args.json:
        print()
    for claim in private:
        result = claim.check()
        met = claim.meets_expectation(result)
        failures += not met
        verdict = result.verdict.value if result.verdict is not None else "none"
        private_counts[verdict] = private_counts.get(verdict, 0) + 1
        if args.json:
            rows.append(claim.to_dict(result))
            continue
        mark = "" if met else "  <-- UNEXPECTED (expected " + claim.expect + ")"
        print(f"{verdict.upper():<11} {claim.id}: {claim.statement}"
              f"{evidence_note(result.evidence)}{mark}")
        print(f"            {result.summary()}")
        print(f"            scope: {result.scope_text}")
    catalogue_failures = sum(not c.ok for c in checks)
    if args.json:
        rows.extend(dict(c.to_dict(), kind="catalogue", as_expected=c.ok) for c in checks)
        print(json.dumps(rows, indent=2))
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
    return CLAIM_FAILED if failures or catalogue_failures else OK


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
    opt.json_option(v, "a JSON list instead of text")
    v.set_defaults(run=run)
