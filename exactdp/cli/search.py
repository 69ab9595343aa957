"""``exactdp search``: look for a violated sensitivity claim on a domain too large to
enumerate (see :func:`exactdp.checkers.search.search_claim`)."""

from __future__ import annotations

import argparse
import json

from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED

__all__ = ["register", "run", "VALUE_OPTIONS"]

VALUE_OPTIONS = ("--query", "--clip", "--universe", "--sizes", "--claim", "--neighbors", "--d-in")
"""Options whose value is always taken as a value, even one that begins with '-'."""

_DESCRIPTION = """\
Search neighbouring pairs of a domain too large to enumerate for one whose exact distance
exceeds a claimed sensitivity: first the small corner (the smallest values and sizes)
exactly, then a seeded Hypothesis search that evaluates every pair exactly and shrinks a
violation to a small witness. 'not-found' is the result of a search, not a proof. Exit
status, as for every exactdp command: 1 when violated and also when nothing was found (a
search never establishes a claim; read the verdict from --json), 2 on bad input. Needs
Hypothesis (pip install 'exactdp[hypothesis]')."""

_EPILOG = """\
examples:
  exactdp search --query sum --clip 10,20 --universe 0..1000000 --sizes 0..10000 --claim 'U-L'
      (violated: adding one record moves a sum clipped to [10, 20] by up to U = 20, not U-L)
  exactdp search --query mean --universe 0..1000000 --sizes 100..100 --neighbors substitute \\
      --claim '(U-L)/N' --budget 200 --seed 3
      (not-found: a true claim; N needs one size, and a search is never a proof)
  exactdp search --query sum --clip 0,5 --universe=-10..1000000 --sizes 0..100 \\
      --neighbors substitute --d-in 2 --claim 'U-L' --json
      (violated, found by the search: two records changed move the sum by up to 2(U-L);
      the corner's values -10..-3 all clip to 0)"""


def run(args) -> int:
    from exactdp.checkers.search import search_claim  # lazy: loads SymPy, which this module does not import at load

    query = opt.query(args)  # --query with --clip, as for exactdp sensitivity
    result = search_claim(args.claim, query, args.universe, args.sizes, args.neighbors, args.d_in,
                          exact_k=args.exact_k, budget=args.budget, seed=args.seed,
                          enumerate_corner=not args.no_corner)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result)
    return CLAIM_FAILED  # violated, or not-found: a search never establishes a claim


def register(subparsers) -> None:
    """Add ``exactdp search`` to the ``exactdp`` command."""
    from exactdp.checkers.search import DEFAULT_BUDGET  # lazy: loads SymPy, which this module does not import at load

    p = subparsers.add_parser(
        "search", help="search a domain too large to enumerate for a violated sensitivity claim",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--query", required=True, help="a built-in query: sum, mean, count, median, ...")
    p.add_argument("--clip", metavar="L,U", help="clamp every record to [L, U] first")
    p.add_argument("--universe", required=True, metavar="SPEC", help="values: 'A..B' (never listed) or '1,2,5/2'")
    p.add_argument("--sizes", required=True, metavar="A..B", help="dataset sizes, both included")
    p.add_argument("--claim", required=True, metavar="EXPR",
                   help="the claimed sensitivity: a number or a formula in L, U, N, d_in, k")
    p.add_argument("--neighbors", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--d-in", type=int, default=1, metavar="K", help="distance between neighbours (default 1)")
    p.add_argument("--exact-k", action="store_true", help="pairs exactly --d-in apart (seed 003's convention)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="B",
                   help=f"pairs the search generates (default {DEFAULT_BUDGET:,})")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0); the same seed repeats it")
    p.add_argument("--no-corner", action="store_true", help="skip the exact enumeration of the small corner")
    opt.json_option(p)
    p.set_defaults(run=run)
