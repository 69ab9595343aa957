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

__all__ = ["register", "run", "check_catalogue", "print_checks"]


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


def print_checks(checks) -> int:
    """Print one block per entry and a summary; return the number of failing derived formulas."""
    failures = sum(not c.ok for c in checks)
    for check in checks:
        print(check)
    counts: dict[str, int] = {}
    for c in checks:
        if c.published_verdict is not None:
            counts[c.published_verdict.value] = counts.get(c.published_verdict.value, 0) + 1
    published = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "none"
    print(f"\n{len(checks)} catalogue entries re-checked ({sum(c.instances for c in checks)} "
          f"parameter bindings); published formulas: {published}; "
          f"{failures} derived formula(s) failed")
    return failures


def run(args) -> int:
    from exactdp import registry

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
re-checked by enumeration against the exact sensitivity on every parameter binding,
with a witness where a published formula is wrong.

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
