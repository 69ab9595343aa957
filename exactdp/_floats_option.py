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
from fractions import Fraction
from typing import Callable

from exactdp.numeric.exact import FLOAT_READINGS, float_reading, to_exact

__all__ = ["add_floats_option", "read_number", "with_floats", "floats_note"]

HELP = ("how numbers are read: decimal (default; 0.1 is one tenth) or binary (0.1 is the "
        "float64 Python stores, 0x1.999999999999ap-4, at its exact value, as a library spends it)")


def add_floats_option(parser) -> None:
    """Add ``--floats {decimal,binary}`` (default ``decimal``) to a sub-command's parser."""
    parser.add_argument("--floats", choices=FLOAT_READINGS, default="decimal", help=HELP)


def read_number(text: object, floats: str = "decimal", name: str = "value") -> Fraction:
    """One number as typed, read the ``floats`` way (``to_exact`` with that reading)."""
    return to_exact(text, name, floats=floats)


def with_floats(run: Callable) -> Callable:
    """A command's ``run(args)`` executed under ``args.floats``'s reading."""

    @functools.wraps(run)
    def wrapped(args) -> int:
        with float_reading(getattr(args, "floats", "decimal")):
            return run(args)

    return wrapped


def floats_note(args) -> str | None:
    """The line a text report adds under ``--floats binary`` (``None`` for decimal)."""
    if getattr(args, "floats", "decimal") != "binary":
        return None
    return ("numbers read as float64 (--floats binary): each decimal is the float Python "
            "stores, at its exact binary value")


def print_report(args, payload: dict, text: str) -> None:
    """Print a command's report: ``payload`` as JSON under ``--json`` (with ``"floats"`` under
    ``--floats binary``), else ``text`` (after the note line under ``--floats binary``)."""
    import json

    note = floats_note(args)
    if args.json:
        print(json.dumps({**payload, "floats": args.floats} if note else payload, indent=2))
    else:
        if note:
            print(note)
        print(text)
