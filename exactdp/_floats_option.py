"""``--floats {decimal,binary}``: one option, one reading, for every command that takes numbers.

``decimal`` (the default) reads ``0.1`` as one tenth. ``binary`` reads every number the way
a Python library holds it: ``0.1`` (and ``1/3``) as the float64 Python stores, at its exact
binary value; integers stay integers, hexadecimal floats (``0x1.999999999999ap-4``) are
exact either way. The reading is :func:`exactdp.numeric.exact.float_reading`, set around
the whole command, so every number reaches the exact path through ``to_exact`` the same
way (options, ``--param KEY=VALUE``, budgets, bounds).

>>> read_number("0.1", "decimal")
Fraction(1, 10)
>>> read_number("0.1", "binary")
Fraction(3602879701896397, 36028797018963968)
"""

from __future__ import annotations

import functools
import re
import sys
from fractions import Fraction
from typing import Callable

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import FLOAT_READINGS, float_reading, to_exact
from exactdp.errors import ExactDPError

__all__ = ["add_floats_option", "read_number", "with_floats", "floats_note", "stored_as_zero",
           "print_report"]

HELP = ("how numbers are read: decimal (default; 0.1 is one tenth) or binary (0.1 is the "
        "float64 Python stores, 0x1.999999999999ap-4, at its exact value, as a library spends it)")


def add_floats_option(parser) -> None:
    """Add ``--floats {decimal,binary}`` (default ``decimal``) to a sub-command's parser."""
    parser.add_argument("--floats", choices=FLOAT_READINGS, default="decimal", help=HELP)


def read_number(text: object, floats: str = "decimal", name: str = "value") -> Fraction:
    """One number as typed, read the ``floats`` way (``to_exact`` with that reading)."""
    return to_exact(text, name, floats=floats)


def with_floats(run: Callable) -> Callable:
    """A command's ``run(args)`` executed under ``args.floats``'s reading. Under ``--floats
    binary`` a number typed in an option that is beyond the largest float (``1e400``, which
    Python stores as ``inf``) is refused first, naming the option; a refusal that follows a
    number stored as ``0.0`` (``--epsilon 1e-400``: "not positive") says so."""

    @functools.wraps(run)
    def wrapped(args) -> int:
        if getattr(args, "floats", "decimal") == "binary":
            huge = [where for where, kind in _out_of_float_range(args) if kind == "inf"]
            if huge:
                raise InvalidArgument(
                    f"{huge[0]} is beyond the largest float64 ({sys.float_info.max!r}): "
                    f"--floats binary would read it as inf; write a smaller number, or drop "
                    f"--floats binary to read it exactly")
        try:
            with float_reading(getattr(args, "floats", "decimal")):
                return run(args)
        except InvalidArgument as e:  # e.g. "epsilon='1e-400' is not positive": say why
            zeros = stored_as_zero(args)
            if zeros and len(e.args) == 1 and isinstance(e.args[0], str):
                verb = "is" if len(zeros) == 1 else "are"
                said = f"{', '.join(zeros)} {verb} stored as 0.0, below the smallest float64"
                e.args = (f"{e.args[0]} (--floats binary: {said})",)
            raise

    return wrapped


def stored_as_zero(args) -> list[str]:
    """The numbers typed in ``args``'s options that ``--floats binary`` stores as ``0.0``
    (nonzero, but below half the smallest float64), each as typed: ``['--delta=1e-400']``.
    Empty under ``--floats decimal``."""
    if getattr(args, "floats", "decimal") != "binary":
        return []
    return [where for where, kind in _out_of_float_range(args) if kind == "zero"]


def floats_note(args) -> str | None:
    """The line a text report adds under ``--floats binary`` (``None`` for decimal): how
    numbers are read, and every number typed that the reading stores as ``0.0``."""
    if getattr(args, "floats", "decimal") != "binary":
        return None
    note = ("numbers read as float64 (--floats binary): each decimal is the float Python "
            "stores, at its exact binary value")
    zeros = stored_as_zero(args)
    if zeros:
        verb = "is" if len(zeros) == 1 else "are"
        note += (f"; {', '.join(zeros)} {verb} stored as 0.0 (below the smallest float64, "
                 f"{_SMALLEST!r}; drop --floats binary to read {'it' if len(zeros) == 1 else 'them'} exactly)")
    return note


def print_report(args, payload: dict, text: str) -> None:
    """Print a command's report: ``payload`` as JSON under ``--json`` (with ``"floats"`` under
    ``--floats binary``, and ``"floats_stored_as_zero"`` listing the numbers typed that
    became ``0.0``), else ``text`` (after the note line under ``--floats binary``)."""
    import json

    note = floats_note(args)
    if args.json:
        extra = {"floats": args.floats} if note else {}
        zeros = stored_as_zero(args)
        if zeros:
            extra["floats_stored_as_zero"] = zeros
        print(json.dumps({**payload, **extra}, indent=2))
    else:
        if note:
            print(note)
        print(text)


# -- numbers typed in the options that the float reading sends to 0.0 or inf -------------

_SMALLEST = 5e-324
"""The smallest positive float64; a number at most half of it is stored as 0.0."""

_DECIMAL = r"(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"(?<![\w.])(?:0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*[pP][+-]?\d+|"
                     rf"{_DECIMAL}(?:/{_DECIMAL})?)(?![\d.])")
_KEY_VALUE = re.compile(r"^\s*[A-Za-z_]\w*\s*=")
_SKIPPED = {"floats", "command", "run", "json"}


def _texts(value):
    """The strings in an option's value (a string, or lists and tuples of them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def _out_of_float_range(args) -> list[tuple[str, str]]:
    """``(where, "zero" | "inf")`` for each number typed in ``args``'s options that is not
    zero but is stored as 0.0, or is stored as inf, when read as a float64. ``where`` shows
    it as typed: ``--delta=1e-400``, ``--param scale=1e-400``, ``1e-400 in --epsilon='...'``."""
    import shlex


    found: list[tuple[str, str]] = []
    for dest, value in sorted(vars(args).items()):
        if dest in _SKIPPED or dest.startswith("_"):
            continue
        for text in _texts(value):
            if len(text) > 100_000:  # read (and refused) by the command itself
                continue
            for match in _NUMBER.finditer(text):
                token = match.group()
                try:
                    exact = to_exact(token, "value", floats="decimal")
                except ExactDPError:
                    continue
                if exact == 0 or Fraction(1, 2**1070) < abs(exact) < 2**1020:
                    continue  # neither below nor beyond the float64 range: cheap to tell
                try:
                    kind = "zero" if to_exact(token, "value", floats="binary") == 0 else None
                except ExactDPError:
                    kind = "inf"
                if kind is None:
                    continue
                if _KEY_VALUE.match(text):
                    where = f"--param {text.strip()}"
                    if text.partition("=")[2].strip() != token:
                        where = f"{token} in {where}"
                else:
                    option = "--" + dest.replace("_", "-")
                    where = f"{option}={token}" if text.strip() == token else \
                        f"{token} in {option}={shlex.quote(text)}"
                if (where, kind) not in found:
                    found.append((where, kind))
    return found
