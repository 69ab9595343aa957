"""``exactdp catalog``: every catalogue formula (the registry's claims of kind
``"formula"``), re-checked by enumeration.

Also used by ``exactdp verify``, which re-checks the catalogue after the built-in claims.
"""

from __future__ import annotations

import argparse
import json
import sys

from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument
from exactdp import registry
from exactdp.checkers.results import Evidence, Verdict, verdict_counts

__all__ = ["register", "run", "check_catalogue", "print_checks", "summary"]


def check_catalogue(entries: list) -> list:
    """Check each entry (``registry.claims("formula", prefix)``), in order.

    A progress line goes to stderr when it is a terminal.
    """
    tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
    checks = []
    for i, entry in enumerate(entries):
        if tty:
            sys.stderr.write(f"\rexactdp: catalogue {i + 1}/{len(entries)}: {entry.id:<50.50}")
            sys.stderr.flush()
        checks.append(entry.check())
    if tty and entries:
        sys.stderr.write("\r" + " " * 79 + "\r")
    return checks


def summary(checks) -> str:
    """The last line of :func:`print_checks`: the published formulas' verdict words counted
    in the order of :func:`~exactdp.checkers.results.verdict_counts`, how many of those
    holding are tight, and how many derived formulas failed."""
    failures = sum(not c.ok for c in checks)
    counts: dict[str, int] = {}
    holding = tight = 0
    for c in checks:
        if c.published_verdict is not None:
            counts[c.published_verdict.value] = counts.get(c.published_verdict.value, 0) + 1
            if c.published_verdict is Verdict.HOLDS_ON_GRID:
                holding += 1
                tight += c.published_tight
    parts = verdict_counts(counts).split(", ") if counts else ["none"]
    for i, part in enumerate(parts):
        if part.endswith(" " + Verdict.HOLDS_ON_GRID.value):  # tightness apart, as in each block
            parts[i] += f" ({tight} tight on some binding, {holding - tight} with slack on every one)"
    return (f"{len(checks)} catalogue entries re-checked ({sum(c.instances for c in checks)} "
            f"parameter bindings; evidence: {Evidence.BIT_EXACT_GRID.value}); published formulas: "
            f"{', '.join(parts)}; {failures} derived formula(s) failed")


def print_checks(checks) -> int:
    """Print one block per entry and a summary; return the number of failing derived formulas."""
    for check in checks:
        print(check)
    print(f"\n{summary(checks)}")
    return sum(not c.ok for c in checks)


def run(args) -> int:
    checks = check_catalogue(registry.claims("formula", args.only))
    if args.only and not checks:
        raise InvalidArgument(f"--only={args.only!r} matches no catalogue id; "
                              f"run 'exactdp catalog' to list them")
    if args.json:
        print(json.dumps([c.to_dict() for c in checks], indent=2))
        return CLAIM_FAILED if any(not c.ok for c in checks) else OK
    return CLAIM_FAILED if print_checks(checks) else OK


_DESCRIPTION = """\
List the catalogue of published sensitivity formulas (seeds 000, 001 and 002), each
re-checked by enumeration against the exact sensitivity on every parameter binding of
its grid, with a witness where a published formula is wrong.

Evidence: bit-exact-grid (JSON "evidence"): each binding is enumerated in exact
arithmetic, but a formula speaks for every value of its parameters and only the grid's
bindings (named in text and in JSON "grid" / "grid_bindings") were checked. So a formula
never below the exact sensitivity is holds-on-grid, never holds / holds-tight; whether it
is attained is apart (text "tight", JSON "tight" for the published formula and
"derived_tight_everywhere" for the derived one). A violation is a real witness.

Exit status: 0 every derived formula agrees; 1 a derived formula fails; 2 bad input."""

_EPILOG = """\
examples:
  exactdp catalog
  exactdp catalog --only s002/table --json
  exactdp catalog --only s001"""


def register(subparsers) -> None:
    c = subparsers.add_parser(
        "catalog", aliases=["catalogue"],
        help="list the catalogue of sensitivity formulas, each re-checked by enumeration",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    opt.only_option(c, "only entries whose id starts with PREFIX, e.g. s002")
    opt.json_option(c, "a JSON list of objects instead of text")
    c.set_defaults(run=run)
