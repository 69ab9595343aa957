"""The ``exactdp`` command: a thin layer over the Python API.

``exactdp verify`` re-checks every built-in claim and the catalogue of formulas;
``exactdp sensitivity`` computes one exact sensitivity (optionally against a claim, per
``d_in``, or locally); ``exactdp catalog`` lists the catalogue; further sub-commands live in
``exactdp/_cli_*.py`` modules.

Exit status (the same for every sub-command; :data:`EXIT_CODES`): 0 done, every claim
asked holds; 1 a claim is violated, undecided or vacuous, a search found nothing, or a
built-in claim departs from its expectation; 2 bad input or a refused budget, with a
one-line message and no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from exactdp._budget import MAX_D_IN_ROWS, refuse_above
from exactdp.checkers.builtin import FLOAT_CLOSE, builtin_claims, float_gap
from exactdp.checkers.privacy_claims import privacy_claims
from exactdp.checkers.results import Verdict, format_value
from exactdp.checkers.sensitivity import (
    DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, bind_claim, check_plot_target, claim_parameters,
    judge, local_sensitivity, sensitivity_curve,
)
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.numeric.exact import to_exact
from exactdp.queries import clipped, parse_query
from exactdp.spaces.datasets import Multisets, SubMultisets
from exactdp.spaces.metrics import parse_metric
from exactdp.spaces.universe import parse_universe, parse_values

__all__ = ["main"]


def _int_bounds(text: str, name: str) -> tuple[int, int]:
    """``(A, B)`` from ``'A..B'`` or ``'N'`` (whole numbers, never expanded here)."""
    lo, sep, hi = text.strip().partition("..")
    try:
        if len(text) > 200:
            raise ValueError
        a = int(lo)
        b = int(hi) if sep else a
    except ValueError:
        raise InvalidArgument(f"{name}={text[:40]!r} is not a whole number or a range 'A..B'") from None
    if a < 0 or b < 0:
        raise InvalidArgument(f"{name}={text!r} is negative; use values of at least 0")
    if b < a:
        raise InvalidArgument(f"{name}={text!r} has B < A; write '{b}..{a}'")
    return a, b


def _d_in_values(text: str) -> range:
    a, b = _int_bounds(text, "--d-in")
    refuse_above(b - a + 1, MAX_D_IN_ROWS, what=f"d_in values in --d-in {text}", option=None,
                 hint="ask for a shorter range (beyond the space's largest distance the "
                      "sensitivity no longer changes)")
    return range(a, b + 1)


def _space(args):
    if (args.universe is None) == (args.pool is None):
        raise InvalidArgument(
            "give either --universe SPEC with --sizes A..B (multisets over values), or "
            "--pool SPEC with --size N (sub-multisets of a record pool)"
        )
    if args.universe is not None:
        if args.size is not None and args.sizes is not None:
            raise InvalidArgument("--size and --sizes both given; use one")
        sizes = args.sizes if args.sizes is not None else args.size
        if sizes is None:
            raise InvalidArgument("--universe needs --sizes A..B (or --size N)")
        universe = parse_universe(args.universe, "--universe")
        return Multisets(universe, sizes=_int_bounds(sizes, "--sizes"))
    sizes = args.size if args.size is not None else args.sizes
    if sizes is None:
        raise InvalidArgument("--pool needs --size N (or --sizes A..B)")
    return SubMultisets(parse_values(args.pool, "--pool"), sizes=_int_bounds(sizes, "--size"))


def _query(args):
    query = parse_query(args.query)
    if args.clip is not None:
        parts = args.clip.split(",")
        if len(parts) != 2:
            raise InvalidArgument(f"--clip={args.clip!r} is not 'L,U'; write e.g. --clip 0,10")
        query = clipped(query, to_exact(parts[0].strip(), "clip L"), to_exact(parts[1].strip(), "clip U"))
    return query


def _undefined(text: str | None):
    if text is None or text in ("error", "exclude"):
        return text or "error"
    return to_exact(text, "--undefined")


def _cmd_sensitivity_many(args) -> int:
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
        query, space = _query(one), _space(one)
        for d in (_d_in_values(one.d_in) if one.claim is not None else ()):
            bind_claim(one.claim, claim_parameters(query, space, d))
    import contextlib
    import io

    collect: dict = {"curves": {}, "json": []}
    status, shown = 0, io.StringIO()
    with contextlib.redirect_stdout(shown):  # printed once all succeeded: a later error prints nothing
        for i, one in enumerate(each):
            if i and not args.json:
                print()
            status = max(status, _cmd_sensitivity(one, collect))
    print(shown.getvalue(), end="")
    if args.plot:
        from exactdp.plotting import plot_sensitivity_curves

        plot_sensitivity_curves(collect["curves"], args.plot)
    if args.json:
        print(json.dumps(collect["json"], indent=2))
    elif args.plot:
        print(f"plot written to {args.plot}")
    return status


def _cmd_sensitivity(args, _collect: dict | None = None) -> int:
    if isinstance(args.query, list):  # --query is repeatable
        if len(args.query) > 1:
            return _cmd_sensitivity_many(args)
        args = argparse.Namespace(**dict(vars(args), query=args.query[0]))
    space = _space(args)
    query = _query(args)
    metric = parse_metric(args.neighbors)
    d_ins = _d_in_values(args.d_in)
    scope = "release-centred" if args.release_centred else "standard"
    opts = dict(exact_k=args.exact_k, scope=scope, undefined=_undefined(args.undefined))
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
                                  max_datasets=args.max_datasets, progress=None, **opts)
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
        return 1  # violated, undecided or vacuous
    return 1 if len(vacuous) == len(results) else 0


def _cmd_verify(args) -> int:
    from exactdp._cli_catalog import check_catalogue, print_checks

    claims = builtin_claims(all_k=args.all)
    if args.only:
        claims = [c for c in claims if c.id.startswith(args.only)]
    checks = [] if args.no_catalogue else check_catalogue(args.only)
    private = [c for c in privacy_claims() if not args.only or c.id.startswith(args.only)]
    if args.only and not claims and not checks and not private:
        raise InvalidArgument(f"--only={args.only!r} matches no built-in claim or catalogue id; "
                              f"try 's000' or 's003/a'")
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
        s = result.sensitivity
        witness = f"; witness {s.witness}" if s.witness is not None else ""
        print(f"{result.verdict.value.upper():<11} {claim.id}: claim {result.claim_shown} vs exact "
              f"{format_value(s.value)}{note}{mark}")
        if witness:
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
        print(f"{verdict.upper():<11} {claim.id}: {claim.statement}{mark}")
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
            summary = ", ".join(f"{n} {v}" for v, n in sorted(private_counts.items()))
            tail = "" if claims else f"; {failures} departed from what was expected"
            print(f"{len(private)} built-in privacy claims checked: {summary}{tail}")
        if claims:
            summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
            print(f"{len(claims)} built-in claims checked: {summary}; "
                  f"{failures} departed from what was expected")
    return 1 if failures or catalogue_failures else 0


EXIT_CODES = """exit status:
  0  done: every claim asked holds (or no claim was asked)
  1  a claim is violated, undecided or vacuous (no neighbouring pair), a search found
     nothing (never a proof), or a built-in claim departs from what is expected of it
  2  bad input or a budget refused: one line on stderr, nothing computed"""


def _help(description: str, examples: str) -> dict:
    """Keyword arguments of a sub-command parser: a description, ready-to-run examples
    and the exit codes, laid out as written."""
    return dict(description=description, epilog=f"examples:\n{examples}\n\n{EXIT_CODES}",
                formatter_class=argparse.RawDescriptionHelpFormatter)


def _version() -> str:
    try:
        from exactdp import __version__
    except ImportError:  # a stripped-down import of the package (the tests' child processes)
        return "unknown"
    return __version__


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="exactdp", epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check differential-privacy claims (sensitivities, privacy parameters, "
                    "float sums) with exact arithmetic.")
    p.add_argument("--version", action="version", version=f"exactdp {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("verify", help="re-check every built-in claim (the main job)", **_help(
        "Re-check every built-in claim of the seed texts by exhaustive enumeration, then the "
        "catalogue of sensitivity formulas; one line per claim, the summary last.",
        "  exactdp verify\n  exactdp verify --only s000 --no-catalogue\n  exactdp verify --all --json"))
    v.add_argument("--all", action="store_true", help="seed 003 at every k the notebook ran (default: k = 1, 2)")
    v.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX, e.g. s000")
    v.add_argument("--no-catalogue", action="store_true", help="only the built-in claims, not the catalogue")
    v.add_argument("--json", action="store_true", help="a JSON list instead of text")
    v.set_defaults(run=_cmd_verify)

    s = sub.add_parser("sensitivity", help="exact sensitivity of one query over one space", **_help(
        "Enumerate every neighbouring pair of a finite space of datasets in exact arithmetic: "
        "the true sensitivity, the pair that attains it, and a verdict on a claim. Budgets "
        "are checked from counts before any work.",
        "  exactdp sensitivity --query sum --universe=-3..13 --sizes 0..3 --clip 2,10 --claim 'U-L'\n"
        "  exactdp sensitivity --query mean --universe 0..7 --sizes 1..8 --d-in 1..4\n"
        "  exactdp sensitivity --query median --pool 1,2,2,2,5,5,7,8,9,9 --size 6 "
        "--neighbors substitute --json"))
    s.add_argument("--query", required=True, action="append",
                   help="count|sum|mean|median|percentile:P[:METHOD]|quantile:Q|var|var:1|std|std:1; "
                        "repeat it for several queries (each printed; with --plot, one figure)")
    s.add_argument("--universe", metavar="SPEC", help="values: 'A..B' (integers) or '1,5/2,0.25'")
    s.add_argument("--sizes", metavar="A..B", help="dataset sizes with --universe (inclusive)")
    s.add_argument("--pool", metavar="SPEC", help="a record pool such as '1,2,2,2,5,5,7,8,9,9'")
    s.add_argument("--size", metavar="N", help="dataset size with --pool")
    s.add_argument("--neighbors", default="add-remove", help="add-remove (default) or substitute")
    s.add_argument("--d-in", default="1", metavar="K",
                   help=f"distance bound (default 1), or a range A..B for a table of at most {MAX_D_IN_ROWS:,} rows")
    s.add_argument("--exact-k", action="store_true", help="pairs at exactly k (seed 003's convention)")
    s.add_argument("--release-centred", "--release-centered", action="store_true",
                   help="x in the space, x' any neighbour (default: both in the space)")
    s.add_argument("--clip", metavar="L,U", help="clamp records to [L, U] before the query")
    s.add_argument("--claim", metavar="EXPR", help="a claimed sensitivity: a number or a formula in L, U, N, d_in, k")
    s.add_argument("--local", metavar="DATASET", help="local sensitivity at this dataset (comma list)")
    s.add_argument("--undefined", metavar="POLICY", help="error (default), exclude, or a value to use")
    s.add_argument("--max-pairs", type=int, default=DEFAULT_MAX_PAIRS, metavar="N",
                   help=f"refuse above N candidate neighbour pairs per d_in (default {DEFAULT_MAX_PAIRS:,})")
    s.add_argument("--max-datasets", type=int, default=DEFAULT_MAX_DATASETS, metavar="N",
                   help=f"refuse above N datasets in the value table (default {DEFAULT_MAX_DATASETS:,})")
    s.add_argument("--plot", metavar="FILE",
                   help="write sensitivity against d_in to FILE (.png, .pdf or .svg; needs the plot "
                        "extra: pip install 'exactdp[plot]'); several --query share the figure")
    s.add_argument("--json", action="store_true", help="a JSON object instead of text")
    s.set_defaults(run=_cmd_sensitivity)
    for register in _extra_commands():
        register(sub)
    return p


_EXTRA_COMMAND_MODULES = ("exactdp._cli_calibrate", "exactdp._cli_compose",
                          "exactdp._cli_floatsum", "exactdp._cli_catalog", "exactdp._cli_privacy",
                          "exactdp._cli_account", "exactdp._cli_search", "exactdp._cli_check",
                          "exactdp._cli_audit")


def _extra_commands():
    """Each module has ``register(subparsers)``; it adds its sub-command(s) with
    ``set_defaults(run=...)``, a function ``args -> exit status``."""
    import importlib

    return [importlib.import_module(name).register for name in _EXTRA_COMMAND_MODULES]


_VALUE_OPTIONS = {"--universe", "--pool", "--sizes", "--size", "--d-in", "--clip", "--claim",
                  "--local", "--undefined", "--query", "--neighbors", "--values", "--param"}


def _looks_negative(token: str | None) -> bool:
    return token is not None and len(token) > 1 and token[0] == "-" and (token[1].isdigit() or token[1] == ".")


def _glue_values(argv: Sequence[str]) -> list[str]:
    """``--universe -3..13`` -> ``--universe=-3..13``, so values may start with '-'
    (for any ``--option`` followed by a value that looks like a negative number)."""
    out: list[str] = []
    argv = list(argv)
    it = iter(range(len(argv)))
    for i in it:
        token = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else None
        if following == "--":  # argparse reads '--opt=--' as an empty list: let it refuse '--opt --'
            out.append(token)
        elif token in _VALUE_OPTIONS or (token.startswith("--") and "=" not in token
                                        and _looks_negative(following)):
            j = next(it, None)
            out.append(token if j is None else f"{token}={argv[j]}")
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(_glue_values(sys.argv[1:] if argv is None else argv))
    try:
        return args.run(args)
    except ExactDPError as e:
        print(f"exactdp: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - output piped into e.g. `head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # pragma: no cover
        print("exactdp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
