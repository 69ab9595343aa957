"""``exactdp floatsum``: the sound sensitivity bound of a float sum, and a witness search
against a claim (by default the exact-sum sensitivity, which float sums exceed).

Exit status: 1 when a witness violates the claim, 0 otherwise ("holds" when the claim
is at least the sound bound; "not-found" when the search found nothing, which proves
nothing), 2 for bad input.
"""

from __future__ import annotations

import json

from exactdp._progress import Progress
from exactdp.checkers.float_witness import DEFAULT_BUDGET, NEIGHBORS, search_float_witness
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, show_exact, to_exact
from exactdp.numeric.floatformat import format_named
from exactdp.numeric.floatsum import MODEL_NAMES

__all__ = ["register"]


class _SearchProgress(Progress):
    """One stderr line: evaluations done out of the budget (only on a terminal)."""

    def __call__(self, done: int, total: int) -> None:
        self.show(f"{done:,} of {total:,} evaluations")


def _parse_bounds(text: str) -> tuple:
    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidArgument(f"--bounds={text!r} is not 'L,U'; write e.g. --bounds 0,1")
    lo, hi = to_exact(parts[0].strip(), "--bounds L"), to_exact(parts[1].strip(), "--bounds U")
    if hi < lo:
        raise InvalidArgument(f"Cannot have U={show_exact(hi)} < L={show_exact(lo)}; write --bounds L,U with L <= U")
    return lo, hi


def _sound_bound(args, bounds):
    """The sound bound, or (None, reason) when no bound of the proved form exists."""
    from exactdp.numeric.floatsum_bounds import sensitivity_bound

    try:
        return sensitivity_bound(args.model, args.dtype, bounds, args.max_n,
                                 neighbors=args.neighbors, d_in=args.d_in), None
    except InvalidArgument as e:
        return None, str(e)


def _run(args) -> int:
    fmt = format_named(args.dtype)
    bounds = _parse_bounds(args.bounds)
    if args.model not in MODEL_NAMES:
        raise InvalidArgument(f"--model={args.model!r} is not a summation model; pass one of "
                              f"{', '.join(MODEL_NAMES)}")
    if args.neighbors not in NEIGHBORS:
        raise InvalidArgument(f"--neighbors={args.neighbors!r} is not one of {', '.join(NEIGHBORS)}")
    for name in ("max_n", "budget", "d_in"):
        if getattr(args, name) < 1:
            raise InvalidArgument(f"--{name.replace('_', '-')}={getattr(args, name)!r} is below 1; "
                                  f"pass a whole number >= 1")
    if args.claim is None:
        from exactdp.numeric.floatsum_bounds import exact_sum_sensitivity

        claim = exact_sum_sensitivity(bounds, args.max_n, neighbors=args.neighbors, d_in=args.d_in)
    else:
        claim = to_exact(args.claim, "--claim")
    bound, why = _sound_bound(args, bounds)
    progress = _SearchProgress(f"floatsum {args.model} {fmt.name}", args.budget)
    try:
        result = search_float_witness(args.model, fmt, bounds, args.max_n, claim,
                                      neighbors=args.neighbors, d_in=args.d_in,
                                      budget=args.budget, seed=args.seed,
                                      progress=progress if progress.enabled else None)
    finally:
        progress.close()
    if result.violated:
        verdict = "violated"
    elif bound is not None and claim >= bound:
        verdict = "holds"
    else:
        verdict = "not-found"
    w = result.witness
    if args.json:
        print(json.dumps({
            "model": args.model,
            "dtype": fmt.name,
            "bounds": [format_exact(b) for b in bounds],
            "max_n": args.max_n,
            "bound": None if bound is None else format_exact(bound),
            "claim": format_exact(claim),
            "verdict": verdict,
            "witness": None if w is None else {
                "x": [[float(v).hex(), c] for v, c in w.x],
                "x_prime": [[float(v).hex(), c] for v, c in w.x_prime],
                "fx": float(w.fx).hex(),
                "fx_prime": float(w.fx_prime).hex(),
                "exact_difference": format_exact(w.exact_difference),
            },
        }, indent=2))
    else:
        lo, hi = bounds
        print(f"{args.model} sum in {fmt.name}, records in [{format_exact(lo)}, {format_exact(hi)}], "
              f"at most {args.max_n:,} records, {args.neighbors} neighbours (d_in={args.d_in})")
        if bound is None:
            print(f"sound bound: none of the proved form ({why})")
        else:
            print(f"sound bound: {format_exact(bound)} (~{float(bound):.17g})")
        print(f"claim: {format_exact(claim)}")
        if verdict == "holds":
            print(f"HOLDS: the claim is at least the sound bound (the search found no "
                  f"violation in {result.evaluations:,} evaluations either)")
        else:
            print(result.message)
            if w is not None:
                print(w)
        print(f"  scope: {result.scope()}")
    return 1 if verdict == "violated" else 0


def register(subparsers) -> None:
    """Add ``exactdp floatsum`` to the ``exactdp`` command."""
    p = subparsers.add_parser(
        "floatsum", help="sound sensitivity bound of a float sum, and a witness search against a claim")
    p.add_argument("--model", required=True, help=f"summation model: {', '.join(MODEL_NAMES)}")
    p.add_argument("--dtype", default="float64", help="float64 (default) or float32")
    p.add_argument("--bounds", required=True, metavar="L,U", help="records lie in [L, U] (values of the dtype)")
    p.add_argument("--max-n", type=int, required=True, metavar="N", help="at most N records per dataset")
    p.add_argument("--neighbors", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--d-in", type=int, default=1, metavar="K", help="distance between neighbours (default 1)")
    p.add_argument("--claim", metavar="C", help="claimed sensitivity, an exact number "
                   "(default: the exact-sum sensitivity, the naive claim)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help=f"evaluations the search may spend (default {DEFAULT_BUDGET})")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomized search (default 0)")
    p.add_argument("--json", action="store_true", help="a JSON object instead of text")
    p.set_defaults(run=_run)
