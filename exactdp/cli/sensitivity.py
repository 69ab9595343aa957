"""``exactdp sensitivity``: one exact sensitivity (optionally against a claim, per
``d_in``, or locally), by enumerating every neighbouring pair of a finite space."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys

from exactdp._budget import MAX_D_IN_ROWS
from exactdp.engine.plan import cores
from exactdp.checkers.sensitivity import (
    DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, bind_claim, check_plot_target, claim_parameters,
    judge, local_sensitivity, sensitivity_curve,
)
from exactdp.cli import _options as opt
from exactdp.cli._status import CLAIM_FAILED, OK
from exactdp.errors import InvalidArgument
from exactdp.spaces.metrics import parse_metric
from exactdp.spaces.universe import parse_values

__all__ = ["register", "run", "VALUE_OPTIONS"]

VALUE_OPTIONS = ("--universe", "--pool", "--sizes", "--size", "--d-in", "--clip", "--claim",
                 "--local", "--undefined", "--query", "--neighbors")
"""Options whose value is always taken as a value, even one that begins with '-'."""


def _run_many(args) -> int:
    """Several --query: each computed and printed as if alone (with --json, one list of
    their outputs); the exit status is the worst of them. With --plot their curves share
    one figure (:func:`exactdp.plotting.plot_sensitivity_curves`). Every query and claim is
    checked, and the plot target too, before anything is enumerated; the output is printed
    once every query has succeeded (an error in a later one prints nothing but the error)."""
    if args.plot:
        if args.local is not None:
            raise InvalidArgument("--plot draws sensitivity against d_in; it does not apply to "
                                  "--local (drop one of them)")
        check_plot_target(args.plot)
    each = [argparse.Namespace(**dict(vars(args), query=text, plot=None)) for text in args.query]
    for one in each:
        query, space = opt.query(one), opt.space(one)
        for d in (opt.d_in_values(one.d_in) if one.claim is not None else ()):
            bind_claim(one.claim, claim_parameters(query, space, d))

    collect: dict = {"curves": {}, "json": []}
    status, shown = OK, io.StringIO()
    with contextlib.redirect_stdout(shown):  # printed once all succeeded: a later error prints nothing
        for i, one in enumerate(each):
            if i and not args.json:
                print()
            status = max(status, run(one, collect))
    print(shown.getvalue(), end="")
    if args.plot:
        from exactdp.plotting import plot_sensitivity_curves  # lazy: loads SymPy, which this module does not import at load

        plot_sensitivity_curves(collect["curves"], args.plot)
    if args.json:
        print(json.dumps(collect["json"], indent=2))
    elif args.plot:
        print(f"plot written to {args.plot}")
    return status


def run(args, _collect: dict | None = None) -> int:
    if isinstance(args.query, list):  # --query is repeatable
        if len(args.query) > 1:
            return _run_many(args)
        args = argparse.Namespace(**dict(vars(args), query=args.query[0]))
    space = opt.space(args)
    query = opt.query(args)
    # ordered relations (sequences: --neighbors insert-delete or hamming) are named as is
    ordered = args.neighbors in ("insert-delete", "hamming")
    metric = args.neighbors if ordered else parse_metric(args.neighbors)
    d_ins = opt.d_in_values(args.d_in)
    scope = "release-centred" if args.release_centred else "standard"
    opts = dict(exact_k=args.exact_k, scope=scope, undefined=opt.undefined(args.undefined))
    cluster = opt.cluster(args)
    if cluster is not None and args.local is not None:
        raise InvalidArgument("--local runs in one process; drop --dask/--scheduler")
    if args.local is not None and len(d_ins) != 1:
        raise InvalidArgument(f"--local takes one --d-in, not the range {args.d_in!r}")
    if args.plot:
        if args.local is not None:
            raise InvalidArgument("--plot draws sensitivity against d_in; it does not apply to "
                                  "--local (drop one of them)")
        check_plot_target(args.plot)
    # the claim is bound (and a bad one refused) before anything is enumerated
    bound = []
    if args.claim is not None:
        for d in d_ins:
            params = claim_parameters(query, space, d)
            bound.append((params, *bind_claim(args.claim, params)))
    if args.local is not None:
        dataset = parse_values(args.local, "--local") if args.local.strip() else []
        results = [local_sensitivity(query, dataset, space, metric, d_ins[0],
                                     max_datasets=args.max_datasets, **opts)]
    else:
        curve = sensitivity_curve(query, space, metric, d_ins, max_pairs=args.max_pairs,
                                  max_datasets=args.max_datasets, progress=None,
                                  workers=args.workers or cores(), cluster=cluster, **opts)
        results = list(curve.results)
        if _collect is not None:
            _collect["curves"][f"{args.query} ({len(_collect['curves']) + 1})"
                               if args.query in _collect["curves"] else args.query] = curve
        if args.plot:
            curve.plot(args.plot)
    claims = [judge(text, value, r, params) for r, (params, text, value) in zip(results, bound)]
    if args.json:
        objs = []
        for i, r in enumerate(results):
            obj = claims[i].to_dict() if claims else dict(r.to_dict(), claim=None, verdict=None)
            objs.append(obj)
        if _collect is not None:
            _collect["json"].append(objs[0] if len(objs) == 1 else objs)
        else:
            print(json.dumps(objs[0] if len(objs) == 1 else objs, indent=2))
    else:
        if len(results) > 1:
            print(curve.table())
            for c in claims:
                print(f"d_in={c.sensitivity.scope.d_in}: {c.summary()}")
        else:
            print(claims[0] if claims else results[0])
        if args.plot:
            print(f"plot written to {args.plot}")
    vacuous = [r for r in results if r.scope.pairs == 0]
    if vacuous:
        shown = ", ".join(str(r.scope.d_in) for r in vacuous)
        print(f"exactdp: warning: no neighbouring pair at d_in={shown}: nothing was checked "
              f"there; {vacuous[0].scope.no_pairs_hint()}", file=sys.stderr)
    if claims and not all(c.ok for c in claims):
        return CLAIM_FAILED  # violated, undecided or vacuous
    return CLAIM_FAILED if len(vacuous) == len(results) else OK


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of processes >= 1, such as 2")
    return n


def register(subparsers) -> None:
    """Add ``exactdp sensitivity`` to the ``exactdp`` command."""
    s = subparsers.add_parser("sensitivity", help="exact sensitivity of one query over one space", **opt.command_help(
        "Enumerate every neighbouring pair of a finite space of datasets in exact arithmetic: "
        "the true sensitivity, the pair that attains it, and a verdict on a claim. Budgets "
        "are checked from counts before any work. Evidence (JSON: \"evidence\"): bit-exact, "
        "exact arithmetic over every dataset of the stated space (the space is the domain), so "
        "a claim may be said to hold (holds / holds-tight); exactdp says holds only on "
        "bit-exact evidence (else holds-on-grid, holds-ideal-noise, holds-statistically, "
        "holds-empirical-model).",
        "  exactdp sensitivity --query sum --universe=-3..13 --sizes 0..3 --clip 2,10 --claim 'U-L'\n"
        "  exactdp sensitivity --query mean --universe 0..7 --sizes 1..6 --d-in 1..4\n"
        "  exactdp sensitivity --query median --pool 1,2,2,2,5,5,7,8,9,9 --size 6 "
        "--neighbors substitute --json"))
    s.add_argument("--query", required=True, action="append",
                   help="count|sum|mean|median|percentile:P[:METHOD]|quantile:Q|var|var:1|std|std:1, "
                        "or the vector quantile-score:ALPHA:C1,C2,...[:seed|code] (seed 002's "
                        "candidate scores, L-infinity distance); repeat it for several queries "
                        "(each printed; with --plot, one figure)")
    s.add_argument("--universe", metavar="SPEC", help="values: 'A..B' (integers) or '1,5/2,0.25'")
    s.add_argument("--sizes", metavar="A..B", help="dataset sizes with --universe (inclusive)")
    s.add_argument("--pool", metavar="SPEC", help="a record pool such as '1,2,2,2,5,5,7,8,9,9'")
    s.add_argument("--size", metavar="N", help="dataset size with --pool")
    s.add_argument("--neighbors", default="add-remove", help="add-remove (default), substitute; for ordered data "
                   "(sequences, every order enumerated): insert-delete or hamming")
    s.add_argument("--d-in", default="1", metavar="K",
                   help=f"distance bound, at least 1 (default 1), or a range A..B for a table of at most "
                        f"{MAX_D_IN_ROWS:,} rows")
    s.add_argument("--exact-k", action="store_true", help="pairs at exactly k (seed 003's convention)")
    s.add_argument("--release-centred", "--release-centered", action="store_true",
                   help="x in the space, x' any neighbour (default: both in the space)")
    s.add_argument("--clip", metavar="L,U", help="clamp records to [L, U] before the query")
    s.add_argument("--claim", metavar="EXPR", help="a claimed sensitivity: a number or a formula in L, U, N, d_in, k")
    s.add_argument("--local", metavar="DATASET", help="local sensitivity at this dataset (comma list)")
    s.add_argument("--undefined", metavar="POLICY", help="error (default), exclude, or a value to use")
    s.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="processes for the pair scan (default: every core; 1: no pool); "
                        "the answer and the witness do not depend on it")
    opt.cluster_options(s)
    opt.budget_options(
        s, f"refuse above N candidate neighbour pairs per d_in (default {DEFAULT_MAX_PAIRS:,})",
        f"refuse above N datasets in the value table (default {DEFAULT_MAX_DATASETS:,})",
        pairs=DEFAULT_MAX_PAIRS, datasets=DEFAULT_MAX_DATASETS, metavar="N")
    s.add_argument("--plot", metavar="FILE",
                   help="write sensitivity against d_in to FILE (.png, .pdf or .svg; needs the plot "
                        "extra: pip install 'exactdp[plot]'); several --query share the figure")
    opt.json_option(s)
    s.set_defaults(run=run)
