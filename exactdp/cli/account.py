"""``exactdp account``: a certified enclosure of epsilon(delta) or delta(epsilon) of k
composed mechanisms (see :mod:`exactdp.mechanisms.accounting.accountant`)."""

from __future__ import annotations

import argparse
import sys
import textwrap

from exactdp._budget import read_budget
from exactdp._floats_option import add_floats_option, print_report, with_floats
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument
from exactdp.mechanisms import specs
from exactdp.mechanisms._params import nonnegative
from exactdp.mechanisms.accounting.accountant import (
    SUBSAMPLED_MAX_SLOTS, SUBSAMPLED_WIDTH,
    DEFAULT_MAX_K, DEFAULT_MAX_SLOTS, DEFAULT_WIDTH, account,
)
from exactdp.mechanisms.accounting.rdp import DEFAULT_MAX_ORDER, rdp
from exactdp.mechanisms._params import parse_params

__all__ = ["register", "run", "VALUE_OPTIONS"]

VALUE_OPTIONS = ("--param",)
"""Options whose value is always taken as a value, even one that begins with '-'."""

_DESCRIPTION = """\
Compose a mechanism k times (or a list of mechanisms, each once per round) and print a
CERTIFIED enclosure of the tight epsilon(delta) (give --delta) or delta(epsilon) (give
--epsilon): the lower bound is rounded down, the upper bound up, so every number shown is
a sound bound, never a float estimate. The working precision is raised until the
enclosure's relative width is at most --width.

Mechanisms (--mechanism NAME, then its --param KEY=VALUE; repeat --mechanism for a list,
each --param applying to the --mechanism before it):
{mechanisms}
Every mechanism also takes times=T (default 1): its own count in each round, the list being
composed --k times; every mechanism but the selection ones also takes sampling=poisson
rate=Q (add/remove neighbours) or sampling=without-replacement batch=M population=N
(shuffled fixed-size batches, substitute neighbours; sensitivity under substitution).
Lattice mechanisms compose with each other exactly; a list with a subsampled mechanism or
laplace, gaussians beside lattice mechanisms, and lattice mechanisms whose losses share no
unit within the budget (randomized-response by p beside others, float epsilons), on one
certified grid.
Numbers are exact: 0.1 is one tenth (with --floats binary, the float64 Python stores
for 0.1, at its exact value: the parameter a library holds).

--rdp ORDERS prints the certified Renyi DP of the composition at each order instead (2..64,
a comma list 2,4,8.5, or both: 2..8,16,32; a subsampled gaussian is exact at integer
orders, by the binomial formula, and enclosed between them), and with --delta the (epsilon, delta) guarantee
it implies, minimised over the orders (Canonne-Kamath-Steinke 2020, and Mironov 2017): a
sound upper bound on epsilon(delta), not the tight value the enclosure above gives.

--check X compares another accountant's number for the same quantity with the enclosure:
below the certified lower bound it UNDERESTIMATES (violated), at or above the upper bound
it HOLDS (conservative), inside it is UNDECIDED at this width.

Exit status: 0 done (and a --check number holds); 1 a --check number underestimates or
cannot be decided, the enclosure missed --width (a line on stderr names what stopped it:
the work budget --max-slots, the precision cap or the finest grid), or NOTHING was certified (epsilon only in [0, inf], delta only in
[0, 1]: the enclosure is the trivial one; a line on stderr says so, and "certified":
"nothing" is in the JSON); 2 bad input or a refused budget (one line on stderr)."""

_EPILOG = """\
examples:
  exactdp account --mechanism discrete-laplace --param scale=10 --k 1000 --delta 1e-6
  exactdp account --mechanism discrete-gaussian --param sigma=10 --k 1000 --delta 1e-6 --width 1e-6 --json
  exactdp account --mechanism gaussian --param sigma=2 --k 50 --epsilon 1
  exactdp account --mechanism gaussian --param sigma=1 --param sampling=poisson --param rate=0.01 --k 10 --delta 1e-6
  exactdp account --mechanism laplace --param scale=1 --param sampling=poisson --param rate=0.01 --k 100 --delta 1e-6
  exactdp account --mechanism randomized-response --param p=3/4 --k 10 --delta 1e-6 --check 10.9
  exactdp account --mechanism gaussian --param sigma=1 --param sampling=poisson --param rate=0.01 --k 1000 --delta 1e-6 --rdp 2..64
  exactdp account --mechanism discrete-laplace --param scale=10 \\
                  --mechanism discrete-gaussian --param sigma=3 --k 20 --delta 1e-5

exit 1 without a --check: nothing was certified (epsilon in [0, inf] or delta in [0, 1]),
e.g. a delta below what the working precision resolves for a discrete Gaussian."""


def mechanism_lines(width: int = 90) -> str:
    """One entry per mechanism the accountant composes (:mod:`exactdp.mechanisms.specs`): its
    name and its parameters, wrapped under the name."""
    lines = []
    for name in specs.names("account"):
        text = specs.spec(name).help_for("account")
        wrapped = textwrap.wrap(text, width - 23) or [""]
        lines.append(f"  {name:<20} {wrapped[0]}")
        lines += [f"  {'':<20} {more}" for more in wrapped[1:]]
    return "\n".join(lines)


class _MechanismAction(argparse.Action):
    """``--mechanism NAME`` starts a new entry; ``--param KEY=VALUE`` adds to the last one."""

    def __call__(self, parser, namespace, values, option_string=None):
        entries = getattr(namespace, "mechanisms", None) or []
        if option_string == "--mechanism":
            entries.append((values, []))
        else:
            if not entries:
                raise argparse.ArgumentError(self, "--param comes after the --mechanism it belongs to")
            entries[-1][1].append(values)
        namespace.mechanisms = entries


def register(subparsers) -> None:
    """Add the ``account`` sub-command to the ``exactdp`` parser."""
    p = subparsers.add_parser(
        "account", help="certified epsilon(delta) or delta(epsilon) of k composed mechanisms",
        description=_DESCRIPTION.format(mechanisms=mechanism_lines()), epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mechanism", action=_MechanismAction, metavar="NAME", dest="mechanisms",
                   help=f"one of {', '.join(specs.names('account'))} (repeat for a list)")
    p.add_argument("--param", action=_MechanismAction, metavar="KEY=VALUE", dest="mechanisms",
                   help="a parameter of the --mechanism before it (repeat)")
    p.add_argument("--k", default="1", metavar="K", help="number of compositions (default 1)")
    p.add_argument("--delta", metavar="D", help="delta: print the enclosure of epsilon(delta)")
    p.add_argument("--epsilon", metavar="E", help="epsilon: print the enclosure of delta(epsilon)")
    p.add_argument("--width", default=None, metavar="W",
                   help=f"target relative width of the enclosure (default {float(DEFAULT_WIDTH):g}; "
                        f"{float(SUBSAMPLED_WIDTH):g} for a subsampled gaussian)")
    p.add_argument("--check", metavar="X", help="another accountant's number, compared with the enclosure")
    p.add_argument("--max-k", default=None, metavar="N",
                   help=f"refuse k above N (default {DEFAULT_MAX_K:,})")
    p.add_argument("--max-slots", default=None, metavar="N",
                   help=f"refuse a privacy-loss lattice above N points (default {DEFAULT_MAX_SLOTS:,}; "
                        f"{SUBSAMPLED_MAX_SLOTS:,} for the certified grid, counted as points of 128 bits "
                        f"with its profile points)")
    p.add_argument("--rdp", metavar="ORDERS",
                   help="print the certified Renyi DP at these orders (2..64 or 2,4,8.5) and, with --delta, "
                        "the epsilon it implies")
    p.add_argument("--max-order", default=None, metavar="N",
                   help=f"with --rdp: refuse an order above N (default {DEFAULT_MAX_ORDER:,})")
    add_floats_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.set_defaults(run=with_floats(run), mechanisms=None)


def _mechanisms(args) -> list:
    if not args.mechanisms:
        raise InvalidArgument("give --mechanism NAME (with its --param KEY=VALUE); e.g. "
                              "exactdp account --mechanism discrete-laplace --param scale=10 --k 100 --delta 1e-6")
    return [(name, parse_params(params)) for name, params in args.mechanisms]


def _k(text: str) -> int:
    t = text.strip().replace("_", "").replace(",", "")
    if not t.isdigit():
        raise InvalidArgument(f"--k={text!r} is not a whole number; pass the number of compositions, e.g. 1000")
    if len(t) > 30:
        raise InvalidArgument(f"--k={text[:12]}... has {len(t)} digits; pass a k of reasonable size")
    return int(t)


def _budgets(args) -> None:
    """``--max-k``, ``--max-slots``, ``--max-order`` as typed: a positive whole number each (a
    non-positive one is refused in one line), or their defaults."""
    args.max_k = DEFAULT_MAX_K if args.max_k is None else read_budget(args.max_k, "--max-k", DEFAULT_MAX_K)
    args.max_order = (DEFAULT_MAX_ORDER if args.max_order is None
                      else read_budget(args.max_order, "--max-order", DEFAULT_MAX_ORDER))
    if args.max_slots is not None:
        args.max_slots = read_budget(args.max_slots, "--max-slots", DEFAULT_MAX_SLOTS)


def run(args) -> int:
    _budgets(args)
    mechanisms = _mechanisms(args)
    k = _k(args.k)
    width = args.width  # None: the accountant's default for the mechanisms given
    published = nonnegative(args.check, "--check") if args.check is not None else None
    target = mechanisms if len(mechanisms) > 1 else mechanisms[0]
    if args.rdp is not None:
        return _run_rdp(args, target, k)
    result = account(target, k, delta=args.delta, epsilon=args.epsilon, width=width,
                     max_k=args.max_k, max_slots="auto" if args.max_slots is None else args.max_slots)
    checked = result.check(published) if published is not None else None
    payload = result.to_dict() if checked is None else {**result.to_dict(), "check": checked.to_dict()}
    print_report(args, payload, str(result) if checked is None else f"{result}\n  check: {checked.message()}")
    if result.vacuous:  # as loud as an undecided verdict: the trivial enclosure is no answer
        other = "delta" if result.quantity == "epsilon" else "epsilon"
        trivial = "[0, inf]" if result.quantity == "epsilon" else "[0, 1]"
        print(f"exactdp account: NOTHING CERTIFIED: {result.quantity}({other}) is only known to lie in "
              f"{trivial} at the largest precision tried ({result.bits} bits); use a larger {other}, a "
              f"smaller k, or other parameters", file=sys.stderr)
        return CLAIM_FAILED
    if not result.width_met and (checked is None or checked.verdict == "undecided"):
        # a missed width is no full answer (a --check decided either way still is one)
        print(f"exactdp account: NOT within --width={float(result.width):g} (relative width "
              f"{float(result.relative_width()):.3g}); stopped: {result.stopped or 'the refinement ended short'}",
              file=sys.stderr)
        return CLAIM_FAILED
    if checked is None:
        return OK
    return OK if checked.ok else CLAIM_FAILED


def _run_rdp(args, target, k: int) -> int:
    """``--rdp ORDERS``: the certified RDP curve and, with ``--delta``, the epsilon it implies."""
    for option, value in (("--epsilon", args.epsilon), ("--check", args.check), ("--width", args.width)):
        if value is not None:
            raise InvalidArgument(f"{option}={value!r} does not go with --rdp, which prints the Renyi DP curve "
                                  f"(and, with --delta, the epsilon it implies); drop {option} or --rdp")
    result = rdp(target, k, orders=args.rdp, max_k=args.max_k, max_order=args.max_order)
    payload, text = result.to_dict(), str(result)
    if args.delta is not None:
        conversions = [result.epsilon(args.delta, method=m) for m in ("cks", "mironov")]
        payload["epsilon_from_rdp"] = [c.to_dict() for c in conversions]
        text += "\n" + "\n".join(str(c) for c in conversions)
    print_report(args, payload, text)
    return OK
