"""``exactdp check``: check every sensitivity claim of a project's claims file exactly.

    exactdp check claims.toml
    exactdp check claims.toml --json --max-pairs 1000000

The file format is described in :mod:`exactdp.claimsfile`. One line per claim (``ok`` or
``FAIL``, its id, the verdict, the claim against the exact value and the witness) and its
scope; ``--json`` prints one object ``{"file", "passed", "claims": [...]}`` with, per
claim, ``id``, ``expect``, ``passed``, ``verdict``, ``claim``, ``claim_value``,
``sensitivity``, ``witness`` and ``scope``.

Exit status: 0 every claim as expected; 1 a claim violated (or one marked
``expect = "violated"`` that now holds); 2 a bad file (one line on stderr naming the line,
the claim and the field).
"""

from __future__ import annotations

import argparse
import json

from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK

__all__ = ["register", "run"]

_DESCRIPTION = """\
Check every claim of a claims file (TOML: [[claim]] tables with id, query or function,
universe or pool, sizes, neighbors, d_in, claim, expect, grid) by exact enumeration.

Exit status: 0 every claim as expected; 1 a claim violated, or a claim marked
expect = "violated" that holds; 2 a bad file (one line on stderr: line, claim, field)."""

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
  exactdp check claims.toml --json --max-pairs 1000000"""




def register(subparsers) -> None:
    """Add the ``check`` sub-command to the ``exactdp`` parser."""
    p = subparsers.add_parser(
        "check", help="check every claim of a claims file (TOML) exactly",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("claims_file", metavar="CLAIMS.toml", help="the claims file")
    opt.budget_options(p, "refuse a claim whose enumeration has more neighbouring pairs (default: exactdp's budget)",
                       "refuse a claim whose space has more datasets (default: exactdp's budget)")
    opt.json_option(p, "print one JSON object")
    p.set_defaults(run=run)


def run(args) -> int:
    from exactdp.claimsfile import check_claims, load_claims

    specs = load_claims(args.claims_file)  # ClaimsFileError (an InvalidArgument): exit 2
    checked = []
    for c in check_claims(specs, path=args.claims_file, max_pairs=args.max_pairs,
                          max_datasets=args.max_datasets):
        checked.append(c)
        if not args.json:
            print(c.line(), flush=True)
    passed = all(c.passed for c in checked)
    if args.json:
        print(json.dumps({"file": args.claims_file, "passed": passed,
                          "claims": [c.to_dict() for c in checked]}, indent=2))
    else:
        bad = [c.spec.id for c in checked if not c.passed]
        tail = f"; not as expected: {', '.join(bad)}" if bad else ""
        print(f"{len(checked)} claim(s) checked, {len(checked) - len(bad)} as expected{tail}")
    return OK if passed else CLAIM_FAILED
