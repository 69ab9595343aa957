"""``exactdp floatsum``: the sound sensitivity bound of a float sum, and a witness search
against a claim (by default the exact-sum sensitivity, which float sums exceed).

Exit status: 0 the claim is established ("holds": it is at least the sound bound);
1 it is violated (a witness) or not established ("not-found": the search found nothing
within its budget, which is never a proof); 2 bad input, one line on stderr.

The search's cost is about ``--budget`` evaluations; measured on one core of the
benchmark machine (2-vCPU Xeon VM, CPython 3.11): from about 220 per second (Kahan over
long runs of records, when many pairs need single additions) through 2,000 to 12,000
(pairwise, Neumaier, sequential, sorted) to 76,000 (fsum). A budget above
``--max-budget`` (default ``float_witness.MAX_BUDGET``, one million) is refused before
any work.
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

from exactdp._budget import check_budget, refuse_above
from exactdp._floats_option import add_floats_option, floats_note, with_floats
from exactdp._progress import Progress
from exactdp.checkers.float_witness import (
    DEFAULT_BUDGET, MAX_BUDGET, NEIGHBORS, SEARCH_MODELS, SLOWEST_RATE, search_float_witness,
)
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.numeric.exact import format_exact, show_exact, to_exact
from exactdp.numeric.floatformat import format_named
from exactdp.numeric.floatsum import PAIRWISE_BLOCKSIZE
from exactdp.numeric.rounding import float_at_least, float_at_most

__all__ = ["register", "run", "MAX_BUDGET", "VALUE_OPTIONS"]

VALUE_OPTIONS = ("--neighbors", "--d-in", "--claim")
"""Options whose value is always taken as a value, even one that begins with '-'."""



class _SearchProgress(Progress):
    """One stderr line: evaluations done out of the budget (only on a terminal)."""

    def __call__(self, done: int, total: int) -> None:
        self.show(f"{done:,} of {total:,} evaluations")


def _parse_bounds(text: str, fmt) -> tuple:
    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidArgument(f"--bounds={text!r} is not 'L,U'; write e.g. --bounds 0,1")
    # exact numbers, or floats as float.hex prints them (0x1.8p+1), read by to_exact
    lo, hi = to_exact(parts[0].strip(), "--bounds L"), to_exact(parts[1].strip(), "--bounds U")
    if hi < lo:
        raise InvalidArgument(f"Cannot have U={show_exact(hi)} < L={show_exact(lo)}; write --bounds L,U with L <= U")
    for name, b in (("L", lo), ("U", hi)):
        if fmt.name in ("float64", "float32") and not fmt.is_representable(b):
            raise InvalidArgument(_not_a_float(name, b, fmt.name))
    return lo, hi


def _not_a_float(name: str, b: Fraction, dtype: str) -> str:
    shown = show_exact(b, keep=24)
    try:
        below, above = float_at_most(b, dtype), float_at_least(b, dtype)
    except (ExactDPError, OverflowError):
        return (f"--bounds {name}={shown} is beyond the largest {dtype}; records are values "
                f"of --dtype, e.g. {name}={'-' if b < 0 else ''}1e6")
    return (f"--bounds {name}={shown} is not a value of {dtype}; records are values of --dtype: "
            f"write the nearest one below, {below.hex()} ({below!r}), or above, "
            f"{above.hex()} ({above!r}), in this hex form")


def _sound_bound(args, bounds):
    """The sound bound, or (None, reason) when no bound of the proved form exists."""
    from exactdp.numeric.floatsum_bounds import sensitivity_bound  # lazy: loads SymPy, which this module does not import at load

    try:
        return sensitivity_bound(args.model, args.dtype, bounds, args.max_n,
                                 neighbors=args.neighbors, d_in=args.d_in), None
    except InvalidArgument as e:
        return None, str(e)


def _duration(evaluations: int) -> str:
    seconds = evaluations / SLOWEST_RATE
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"about {seconds / size:,.0f} {unit}"
    return f"about {seconds:,.0f} seconds"


def run(args) -> int:
    fmt = format_named(args.dtype)
    bounds = _parse_bounds(args.bounds, fmt)
    if args.model not in SEARCH_MODELS:
        raise InvalidArgument(f"--model={args.model!r} is not a summation model; pass one of "
                              f"{', '.join(SEARCH_MODELS)}")
    if args.neighbors not in NEIGHBORS:
        raise InvalidArgument(f"--neighbors={args.neighbors!r} is not one of {', '.join(NEIGHBORS)}")
    for name in ("max_n", "budget", "d_in"):
        if getattr(args, name) < 1:
            raise InvalidArgument(f"--{name.replace('_', '-')}={getattr(args, name)} is below 1; "
                                  f"pass a whole number >= 1")
    max_budget = check_budget(args.max_budget, "--max-budget")
    refuse_above(args.budget, max_budget,
                 what=f"search evaluations asked for by --budget (up to {_duration(args.budget)} "
                      f"at the slowest measured {SLOWEST_RATE} per second)",
                 option="--max-budget",
                 hint="use a smaller --budget (or several runs with different --seed values)")
    if args.claim is None:
        from exactdp.numeric.floatsum_bounds import exact_sum_sensitivity  # lazy: loads SymPy, which this module does not import at load

        claim = exact_sum_sensitivity(bounds, args.max_n, neighbors=args.neighbors, d_in=args.d_in)
    else:
        claim = to_exact(args.claim, "--claim")
        if claim < 0:
            raise InvalidArgument(f"--claim={show_exact(claim)} is negative; a sensitivity is at least 0")
    bound, why = _sound_bound(args, bounds)
    progress = _SearchProgress(f"floatsum {args.model} {fmt.name}", args.budget)
    try:
        result = search_float_witness(args.model, fmt, bounds, args.max_n, claim,
                                      neighbors=args.neighbors, d_in=args.d_in,
                                      budget=args.budget, max_budget=max_budget, seed=args.seed,
                                      progress=progress if progress.enabled else None,
                                      maximize=args.maximize)
    finally:
        progress.close()
    if result.violated:
        verdict = "violated"
    elif bound is not None and claim >= bound:
        verdict = "holds"
    else:
        verdict = "not-found"
    w = result.witness
    note = floats_note(args)
    if args.json:
        print(json.dumps({
            **({"floats": args.floats} if note else {}),
            "model": args.model,
            "dtype": fmt.name,
            "bounds": [format_exact(b) for b in bounds],
            "max_n": args.max_n,
            "bound": None if bound is None else format_exact(bound),
            "claim": format_exact(claim),
            "verdict": verdict,
            "evidence": result.evidence.value,
            **({"maximize": True, "first_difference": None if result.first is None
                else format_exact(result.first.exact_difference)} if args.maximize else {}),
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
        if note:
            print(note)
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
    return OK if verdict == "holds" else CLAIM_FAILED


_DESCRIPTION = f"""\
The sound sensitivity bound of a float sum over records in [L, U], and a search
for neighbouring datasets whose computed sums differ by more than a claim (by
default the exact sum's sensitivity, which float sums exceed).

Models: sequential (a for loop; Python's sum up to 3.11); pairwise (NumPy's sum,
i.e. add.reduce on a contiguous 1-d array: blocks of at most {PAIRWISE_BLOCKSIZE} values
with 8 interleaved accumulators, longer arrays split in halves recursively);
kahan; neumaier; fsum (the exact sum rounded once: math.fsum); sorted (ascending,
then sequential); sorted-magnitude (ascending |x|, then sequential); opendp-pairwise
(OpenDP's Pairwise<T>: split at n // 2, no blocks).

Exit status: 0 the claim holds (it is at least the sound bound); 1 it is violated
(a witness) or not established (not-found: a search that found nothing is not a
proof); 2 bad input.

Evidence (the JSON's "evidence"): bit-exact. "holds" rests on the proved bound for
the named model over every dataset of at most N records in [L, U], in any order;
"violated" on a witness summed bit for bit as the model stores it; "not-found"
only on the pairs the search evaluated.

Bounds and claim are exact numbers (0.5, 1/4) or floats as float.hex prints them
(0x1.999999999999ap-4); with --floats binary a decimal such as 0.1 is the float64
Python stores (so --bounds 0,0.1 means [0, 0x1.999999999999ap-4])."""

_EPILOG = """\
examples:
  exactdp floatsum --model sequential --dtype float32 --bounds 0,1 --max-n 10000
  exactdp floatsum --model pairwise --bounds -1,1 --max-n 100000 --claim 2 --json
  exactdp floatsum --model pairwise --dtype float32 --bounds 0,1 --max-n 10000 --maximize --budget 300"""


def register(subparsers) -> None:
    """Add ``exactdp floatsum`` to the ``exactdp`` command."""
    p = subparsers.add_parser(
        "floatsum", help="sound sensitivity bound of a float sum, and a witness search against a claim",
        description=_DESCRIPTION, epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True,
                   help=f"summation model: {', '.join(SEARCH_MODELS)} (pairwise is NumPy's sum, "
                        f"opendp-pairwise OpenDP's Pairwise<T>)")
    p.add_argument("--dtype", default="float64", help="float64 (default) or float32")
    p.add_argument("--bounds", required=True, metavar="L,U",
                   help="records lie in [L, U]: values of the dtype, exact (0.5, 1/4) or as float.hex "
                        "prints them (0x1.1ccf385ebc8a0p+1023)")
    p.add_argument("--max-n", type=int, required=True, metavar="N", help="at most N records per dataset")
    p.add_argument("--neighbors", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--d-in", type=int, default=1, metavar="K", help="distance between neighbours (default 1)")
    p.add_argument("--claim", metavar="C", help="claimed sensitivity, an exact number "
                   "(default: the exact-sum sensitivity, the naive claim)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="B",
                   help=f"evaluations the search may spend (default {DEFAULT_BUDGET:,}; "
                        f"220 to 76,000 per second, depending on the model)")
    p.add_argument("--max-budget", type=int, default=MAX_BUDGET, metavar="M",
                   help=f"refuse a --budget above this (default {MAX_BUDGET:,}: up to about "
                        f"{MAX_BUDGET // SLOWEST_RATE // 60} minutes in the slowest case)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomized search (default 0)")
    p.add_argument("--maximize", action="store_true",
                   help="spend the whole --budget and report the largest violation found (with its "
                        "witness), not the first")
    add_floats_option(p)
    p.add_argument("--json", action="store_true", help="a JSON object instead of text")
    p.set_defaults(run=with_floats(run))
