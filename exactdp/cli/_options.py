"""Options shared by several sub-commands: factories that add them to a parser (one call
per parser, so no option object is shared between parses), and the readers that turn the
space and query options into exactdp objects."""

from __future__ import annotations

import argparse
import os

from exactdp._budget import (
    DEFAULT_MAX_DATASETS,
    DEFAULT_MAX_PAIRS,
    MAX_D_IN_ROWS,
    read_budget,
    refuse_above,
)
from exactdp.cli._status import EXIT_CODES
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import to_exact
from exactdp.queries import clipped, parse_query
from exactdp.spaces.datasets import Multisets, SubMultisets
from exactdp.spaces.sequences import Sequences
from exactdp.spaces.universe import parse_universe, parse_values

__all__ = ["command_help", "json_option", "only_option", "budget_options", "budget_option",
           "BudgetAction", "int_bounds",
           "d_in_values", "d_in_value", "space", "query", "undefined", "cluster_options", "cluster"]


def command_help(description: str, examples: str) -> dict:
    """Keyword arguments of a sub-command parser: a description, ready-to-run examples
    and the exit codes, laid out as written."""
    return dict(description=description, epilog=f"examples:\n{examples}\n\n{EXIT_CODES}",
                formatter_class=argparse.RawDescriptionHelpFormatter)


def json_option(parser: argparse.ArgumentParser, help: str = "a JSON object instead of text") -> None:
    """``--json``: machine-readable output instead of text."""
    parser.add_argument("--json", action="store_true", help=help)


def only_option(parser: argparse.ArgumentParser, help: str, *, metavar: str = "PREFIX",
                repeat: bool = False) -> None:
    """``--only``: a prefix of claim ids (or, with ``repeat``, ids given one by one)."""
    parser.add_argument("--only", metavar=metavar, help=help,
                        **({"action": "append"} if repeat else {}))


class BudgetAction(argparse.Action):
    """Store a budget option's value read by :func:`exactdp._budget.read_budget`: a bad value
    raises :class:`~exactdp.errors.InvalidArgument` out of ``parse_args``, which
    :func:`exactdp.cli.main` reports in one line like every other bad input (argparse's own
    ``type=`` errors print the usage block instead)."""

    def __init__(self, option_strings, dest, example: int | None = None, **kwargs):
        self.example = example
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        example = self.example if self.example is not None else self.default
        setattr(namespace, self.dest, read_budget(values, option_string or self.dest, example))


def budget_option(parser: argparse.ArgumentParser, flag: str, help: str, *, default: int | None = None,
                  example: int | None = None, metavar: str | None = "N") -> None:
    """One budget option ``flag``: a whole number of at least 1 (``default`` when not given),
    a bad value refused in one line naming ``flag`` (``example`` is the value suggested,
    ``default`` unless given)."""
    parser.add_argument(flag, action=BudgetAction, default=default, metavar=metavar, help=help,
                        example=example)


def budget_options(parser: argparse.ArgumentParser, pairs_help: str, datasets_help: str, *,
                   pairs: int | None = None, datasets: int | None = None,
                   metavar: str | None = None) -> None:
    """``--max-pairs`` and ``--max-datasets`` (:func:`budget_option`): whole numbers of at
    least 1, defaulting to ``pairs`` and ``datasets``."""
    budget_option(parser, "--max-pairs", pairs_help, default=pairs, example=DEFAULT_MAX_PAIRS,
                  metavar=metavar)
    budget_option(parser, "--max-datasets", datasets_help, default=datasets,
                  example=DEFAULT_MAX_DATASETS, metavar=metavar)


def int_bounds(text: str, name: str) -> tuple[int, int]:
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


_D_IN_ZERO = "a distance of 0 relates no two distinct datasets, so nothing would be checked"


def _typed(text: str) -> str:
    """An option's value as typed, quoted only when it has spaces or quotes (as budgets are)."""
    text = text if len(text) <= 40 else text[:37] + "..."
    return text if text and not any(c.isspace() or c in "'\"" for c in text) else repr(text)


def _d_in_bounds(text: str, ranges: bool = True) -> tuple[int, int]:
    """``(A, B)`` of ``--d-in K`` or (``ranges``) ``--d-in A..B``: whole numbers of at least 1. A
    distance bound of 0 is refused (no two distinct datasets are 0 apart: the answer would
    be VACUOUS, nothing checked), naming the value typed and what to pass."""
    shown = f"--d-in={_typed(text)}"
    lo, sep, hi = text.strip().partition("..")
    try:
        if len(text) > 200 or not (lo.strip().isascii() and hi.strip().isascii()):
            raise ValueError
        a = int(lo)
        b = int(hi) if sep else a
    except ValueError:
        if not ranges:
            raise InvalidArgument(f"{shown} is not a whole number; pass e.g. --d-in 1") from None
        raise InvalidArgument(f"{shown} is not a whole number or a range A..B; pass e.g. --d-in 1 "
                              f"or --d-in 1..3") from None
    if a < 0 or b < 0:
        raise InvalidArgument(f"{shown} is negative: expected a positive whole number; pass e.g. "
                              f"--d-in 1")
    if b < a:
        raise InvalidArgument(f"{shown} has B < A; write --d-in {b}..{a}")
    if a == 0:
        if b == 0:
            raise InvalidArgument(f"{shown}: expected a positive whole number ({_D_IN_ZERO}); "
                                  f"pass e.g. --d-in 1")
        raise InvalidArgument(f"{shown}: expected positive whole numbers ({_D_IN_ZERO}); start "
                              f"the range at 1: --d-in 1..{b}")
    return a, b


def d_in_values(text: str) -> range:
    """The ``d_in`` values of ``--d-in K`` or ``--d-in A..B`` (whole numbers of at least 1,
    at most ``MAX_D_IN_ROWS`` of them)."""
    a, b = _d_in_bounds(text)
    refuse_above(b - a + 1, MAX_D_IN_ROWS, what=f"d_in values in --d-in {text}", option=None,
                 hint="ask for a shorter range (beyond the space's largest distance the "
                      "sensitivity no longer changes)")
    return range(a, b + 1)


def d_in_value(text: str, command: str) -> int:
    """The one ``d_in`` of ``--d-in K`` for a command that checks one distance (``command``
    names it in the refusal of a range): a whole number of at least 1."""
    if ".." in text:
        _d_in_bounds(text)  # a range that is bad in itself is refused as such
        raise InvalidArgument(f"--d-in={_typed(text)}: expected one positive whole number, not a "
                              f"range ({command} checks one distance); pass e.g. --d-in 1")
    return _d_in_bounds(text, ranges=False)[0]


def space(args):
    """The space of ``--universe SPEC --sizes A..B`` or ``--pool SPEC --size N``."""
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
        if getattr(args, "neighbors", None) in ("insert-delete", "hamming"):  # ordered data

            return Sequences(universe, sizes=int_bounds(sizes, "--sizes"))
        return Multisets(universe, sizes=int_bounds(sizes, "--sizes"))
    sizes = args.size if args.size is not None else args.sizes
    if sizes is None:
        raise InvalidArgument("--pool needs --size N (or --sizes A..B)")
    return SubMultisets(parse_values(args.pool, "--pool"), sizes=int_bounds(sizes, "--size"))


def query(args):
    """The query of ``--query``, clamped by ``--clip L,U`` when given."""
    q = parse_query(args.query)
    if args.clip is not None:
        parts = args.clip.split(",")
        if len(parts) != 2:
            raise InvalidArgument(f"--clip={args.clip!r} is not 'L,U'; write e.g. --clip 0,10")
        q = clipped(q, to_exact(parts[0].strip(), "clip L"), to_exact(parts[1].strip(), "clip U"))
    return q


def undefined(text: str | None):
    """``--undefined``: ``"error"`` (default), ``"exclude"`` or an exact value."""
    if text is None or text in ("error", "exclude"):
        return text or "error"
    return to_exact(text, "--undefined")


def cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--dask`` (an embedded LocalCluster of ``--workers`` processes) and ``--scheduler
    ADDRESS`` (a running Dask scheduler): the pair scan on Dask (the ``dask`` extra)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dask", action="store_true",
                       help="scan the pairs on an embedded Dask LocalCluster of --workers processes "
                            "(needs the dask extra: pip install 'exactdp[dask]'); the budgets are "
                            "then per worker")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="scan the pairs on the workers of a running Dask scheduler, e.g. "
                            "tcp://host:8786 (start it with `dask scheduler`, workers with `dask "
                            "worker ADDRESS`); the budgets are per worker")


def cluster(args):
    """``cluster=`` for :func:`exactdp.sensitivity`: ``"local"``, an address, or ``None``."""
    address = getattr(args, "scheduler", None)
    if address is not None:
        if not address.strip():
            raise InvalidArgument("--scheduler is empty; pass an address such as tcp://host:8786")
        return address.strip()
    return "local" if getattr(args, "dask", False) else None


def report_format(args) -> str:
    """``--format``, with ``--json`` as ``--format json`` (both given and different: refused)."""
    if args.json and args.format not in (None, "json"):
        raise InvalidArgument(f"--json and --format {args.format}: --json is --format json; give one of them")
    return "json" if args.json else (args.format or "text")


def check_writable(path: str) -> None:
    """Refuse, in one line, a report path that cannot be written (before any audit runs)."""
    target = os.path.abspath(path)
    folder = os.path.dirname(target) or "."
    if os.path.isdir(target):
        raise InvalidArgument(f"--output={path!r} is a folder: give the path of a file to write the report to")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InvalidArgument(f"--output={path!r}: the folder {folder!r} is not a folder: give a path in a "
                              f"folder that exists")
    if not os.path.isdir(folder):
        raise InvalidArgument(f"--output={path!r}: the folder {folder!r} does not exist: create it or "
                              f"give a path in a folder that exists")
    existed = os.path.exists(target)
    try:
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise InvalidArgument(f"--output={path!r} cannot be written ({e.strerror or type(e).__name__}): "
                              f"give a path you can write to") from None
    if not existed:
        os.remove(target)
