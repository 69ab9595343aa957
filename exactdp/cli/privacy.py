"""``exactdp privacy``: a mechanism's exact privacy loss over every neighbouring pair."""

from __future__ import annotations

import argparse
import shlex
from fractions import Fraction

from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS
from exactdp._floats_option import add_floats_option, print_report, with_floats
from exactdp.checkers.privacy import MAX_VALUE_PAIRS, check_mechanism
from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.mechanisms._params import parse_params
from exactdp.mechanisms.mechanism import make_mechanism, mechanism_names, takes
from exactdp.numeric.exact import clip_text, refuse_non_finite, to_exact
from exactdp.spaces.metrics import parse_metric

__all__ = ["register", "run", "VALUE_OPTIONS", "query_values"]

VALUE_OPTIONS = ("--param", "--values", "--query", "--universe", "--sizes", "--pool", "--size",
                 "--clip", "--neighbors", "--d-in", "--undefined", "--epsilon", "--delta", "--rho")
"""Options whose value is always taken as a value, even one that begins with '-'."""

_DESCRIPTION = """\
The exact privacy loss of a mechanism applied to a query, over every neighbouring pair of
a small space of datasets (or on two query values given by --values): the worst pure
epsilon with the pair and the output that attain it, or with --delta the tight
delta(epsilon), and a verdict on the claim. Probabilities are exact (Fractions or exact
reals), never sampled. Numbers are exact (0.1 is one tenth); with --floats binary each
number (parameters, values, claims) is the float64 Python stores, at its exact value.

Mechanisms (--mechanism NAME, parameters as --param KEY=VALUE, exact values):
{names}

Exit status: 0 the claim holds (or no claim was given); 1 it is violated, undecided or
vacuous; 2 bad input or a refused budget."""

_EPILOG = """\
examples:
  exactdp privacy --mechanism randomized-response --param p=3/4 --values 0,1 --epsilon 'log(3)'
  exactdp privacy --mechanism randomized-response --param epsilon=1 --values 0,1 --epsilon 1 --delta 0
  exactdp privacy --mechanism randomized-response --param p=3/4 --query count --universe 0..3 --sizes 0..1 --json
  exactdp privacy --mechanism exponential --param epsilon=1 --values '0,0;1,-1' --epsilon 1
  exactdp privacy --mechanism exponential --param epsilon=1 --query quantile-score:1/2:0,1,2,3 --universe 0..3 --sizes 0..3
  exactdp privacy --mechanism laplace --param scale=1 --values '1,2;3,4' --epsilon 4 --delta 0"""


def run(args) -> int:
    for option in ("epsilon", "delta", "rho"):
        _check_claim(getattr(args, option), f"--{option}")
    mechanism = make_mechanism(args.mechanism, **parse_params(args.param))
    if args.values is not None:
        if args.query or args.universe or args.pool:
            raise InvalidArgument("--values A,B checks two query values; drop --query/--universe/--pool")
        vals = query_values(args.values, mechanism)
        result = check_mechanism(mechanism, values=vals, epsilon=args.epsilon,
                                 delta=args.delta, rho=args.rho)
    else:
        if args.query is None:
            raise InvalidArgument("give --query with a space (--universe/--sizes or --pool/--size), "
                                  "or --values A,B")
        d_in = opt.d_in_value(args.d_in, "privacy")
        result = check_mechanism(
            mechanism, opt.query(args), opt.space(args), parse_metric(args.neighbors), d_in,
            epsilon=args.epsilon, delta=args.delta, rho=args.rho, exact_k=args.exact_k,
            undefined=opt.undefined(args.undefined), max_pairs=args.max_pairs,
            max_datasets=args.max_datasets, max_value_pairs=args.max_value_pairs, progress=None,
        )
    print_report(args, result.to_dict(), str(result))
    if result.verdict is None:
        return OK
    return OK if result.ok else CLAIM_FAILED


_FLOAT_MAX = Fraction((2**53 - 1) * 2**971)


def _check_claim(text: str | None, option: str) -> None:
    """Refuse a claimed epsilon, delta or rho that is not finite (``inf``, ``nan``, ``oo``:
    a claim of inf holds of every mechanism and says nothing) or, typed as a number, beyond
    the largest float (``1e999``, which Python reads as inf), naming the option."""
    if text is None:
        return
    refuse_non_finite(text, option)
    try:
        value = to_exact(text, option)
    except ExactDPError:  # an expression such as log(3): the checker reads it
        return
    if abs(value) > _FLOAT_MAX:
        raise InvalidArgument(
            f"{option}={clip_text(text.strip())!r} is beyond the largest float ({float(_FLOAT_MAX)!r}; "
            f"Python reads it as inf), where no privacy guarantee is left to claim; use a smaller number")


def query_values(text: str, mechanism) -> tuple:
    """The two query values of ``--values``: ``'A,B'`` (two numbers) for a mechanism that
    takes one number per query value, ``'A1,A2;B1,B2'`` (two vectors of the same length)
    for one that takes a vector (the utilities of a selection mechanism's candidates), either
    for one whose ``input_kind`` is ``"scalar-or-vector"`` (laplace, gaussian: noise on
    each coordinate). Every refusal quotes ``--values`` as it was typed, its first 60
    characters when longer."""

    typed = f"--values {shlex.quote(clip_text(text))}"
    numbers, vectors = takes(mechanism)
    vector = vectors and not numbers  # vectors only
    name = getattr(mechanism, "name", "the mechanism")
    example = "--values '0,1;1,0'" if vector else "--values 0,1"
    if vector:
        expected = "two vectors of candidate utilities of the same length, A1,A2;B1,B2"
    elif vectors:
        expected = "two numbers A,B or two vectors of the same length A1,A2;B1,B2"
    else:
        expected = "two numbers A,B"
    if not text.strip():
        raise InvalidArgument(f"{typed} is empty; give {expected}, e.g. {example}")
    parts = text.split(";")
    if len(parts) == 1 and ".." in text and "," not in text:
        raise InvalidArgument(f"{typed} is a range; --values takes {expected}, e.g. {example} "
                              f"(for a space of datasets use --query with --universe/--sizes)")
    if any(not part.strip() for part in parts):
        raise InvalidArgument(f"{typed} has an empty vector; give {expected}, e.g. {example}")
    lists = [part.split(",") for part in parts]
    if any(not entry.strip() for entries in lists for entry in entries):
        raise InvalidArgument(f"{typed} has an empty entry; give {expected}, e.g. {example}")
    if len(parts) == 1:  # numbers
        if vector:
            raise InvalidArgument(
                f"{name} takes a vector (the utilities of its candidates) per query value; "
                f"{typed} gives numbers: write two vectors of the same length A1,A2;B1,B2, "
                f"e.g. {example}")
        if len(lists[0]) != 2:
            count = "one number" if len(lists[0]) == 1 else f"{len(lists[0])} numbers"
            raise InvalidArgument(f"{typed} gives {count}; give exactly two, A,B, e.g. {example}")
        return tuple(_entry(entry, typed) for entry in lists[0])
    if not vectors:
        if all(len(entries) == 1 for entries in lists) and len(lists) == 2:
            fix = f"--values {shlex.quote(clip_text(','.join(e[0].strip() for e in lists)))}"
        else:
            fix = example
        raise InvalidArgument(f"{name} takes one number per query value; {typed} gives "
                              f"vectors: write {fix}")
    if len(parts) != 2:
        raise InvalidArgument(f"{typed} gives {len(parts)} vectors; give exactly two, "
                              f"A1,A2;B1,B2, e.g. --values '0,1;1,0'")
    if len(lists[0]) != len(lists[1]):
        each = "one utility per candidate" if vector else "one number per coordinate"
        example = example if vector else "--values '0,1;1,0'"
        raise InvalidArgument(
            f"{typed} gives vectors of different lengths ({len(lists[0])} and {len(lists[1])}); "
            f"give {each} in each, e.g. {example}")
    return tuple(tuple(_entry(entry, typed) for entry in entries) for entries in lists)


def _entry(text: str, typed: str):
    """One number of ``--values``, read exactly (or as a float under --floats binary)."""
    try:
        return to_exact(text.strip(), "value")
    except ExactDPError as e:
        raise type(e)(f"{typed}: {e}") from None


def register(subparsers) -> None:
    names = "\n".join(f"  {k:<22} {v}" for k, v in mechanism_names().items())
    p = subparsers.add_parser(
        "privacy", help="exact privacy loss of a mechanism over every neighbouring pair",
        description=_DESCRIPTION.format(names=names), epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mechanism", required=True, metavar="NAME", help="a mechanism name (above)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="a mechanism parameter (repeat)")
    p.add_argument("--values", metavar="A,B",
                   help="check on these two query values instead of a space (vectors: 'A1,A2;B1,B2')")
    p.add_argument("--query", help="the query (as for exactdp sensitivity), e.g. count")
    p.add_argument("--universe", metavar="SPEC")
    p.add_argument("--sizes", metavar="A..B")
    p.add_argument("--pool", metavar="SPEC")
    p.add_argument("--size", metavar="N")
    p.add_argument("--clip", metavar="L,U")
    p.add_argument("--neighbors", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--d-in", default="1", metavar="K", help="distance bound, at least 1 (default 1)")
    p.add_argument("--exact-k", action="store_true")
    p.add_argument("--undefined", metavar="POLICY")
    p.add_argument("--epsilon", metavar="E", help="claimed epsilon: a number or e.g. 'log(3)'")
    p.add_argument("--delta", metavar="D", help="claimed delta (with --epsilon)")
    p.add_argument("--rho", metavar="R",
                   help="claimed zCDP rho, alone (the Gaussian and the discrete Gaussian)")
    opt.budget_options(p, f"refuse above N candidate neighbour pairs (default {DEFAULT_MAX_PAIRS:,})",
                       f"refuse above N datasets (default {DEFAULT_MAX_DATASETS:,})",
                       pairs=DEFAULT_MAX_PAIRS, datasets=DEFAULT_MAX_DATASETS, metavar="N")
    opt.budget_option(p, "--max-value-pairs", default=MAX_VALUE_PAIRS,
                      help=f"refuse above N distinct pairs of query values (default {MAX_VALUE_PAIRS:,})")
    add_floats_option(p)
    opt.json_option(p)
    p.set_defaults(run=with_floats(run))
