"""Exact numbers from user input.

:func:`to_exact` is the one door through which user-supplied numbers enter the exact
path. It accepts ``int``, :class:`~fractions.Fraction`, :class:`~decimal.Decimal`,
SymPy rationals and strings written exactly (``"5/2"``, ``"-3"``, ``"0.25"``,
``"1e-5"``, and hexadecimal floats as :meth:`float.hex` prints them, with the binary
exponent ``p``: ``"0x1.999999999999ap-4"``, read exactly). A ``float`` is refused, because ``0.1`` is
not one tenth; the message says how to pass the number meant. :func:`from_float` is
the explicit door for a float's exact binary value.

How floats are read is one choice, ``floats="decimal"`` (the default: ``"0.1"`` is one
tenth, a ``float`` is refused) or ``floats="binary"`` (a number is what Python stores for
it: ``"0.1"`` and ``"1/3"`` are the float64 values Python computes for those
expressions, a ``float`` its exact binary value; integers stay integers). Pass it to
:func:`to_exact` or set it for a block of code with :func:`float_reading`, which every
function that reads numbers through :func:`to_exact` then follows.

>>> to_exact("0.1")
Fraction(1, 10)
>>> to_exact("5/2")
Fraction(5, 2)
>>> from_float(0.1)
Fraction(3602879701896397, 36028797018963968)
>>> to_exact("0x1.999999999999ap-4") == to_exact("0.1", floats="binary") == from_float(0.1)
True
>>> with float_reading("binary"):
...     to_exact(0.5), to_exact("1/3") == Fraction(1 / 3)
(Fraction(1, 2), True)
>>> format_exact(Fraction(7, 2))
'7/2'
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import re
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Iterable, Iterator

from exactdp.errors import InexactInput, InvalidArgument

__all__ = [
    "to_exact", "from_float", "format_exact", "format_dataset", "common_denominator",
    "show_exact", "float_reading", "current_float_reading", "FLOAT_READINGS",
    "MAX_DECIMAL_EXPONENT", "MAX_BINARY_EXPONENT", "MAX_DIGITS", "MAX_FORMATTED_BITS",
    "is_non_finite", "refuse_non_finite", "clip_text", "returned_float", "library_number",
]

MAX_DECIMAL_EXPONENT = 4000
"""Largest ``|e|`` accepted in a decimal string such as ``'1e-5'`` (``Fraction`` would
otherwise build ``10**e`` digit by digit: ``'1e999999999'`` is eleven characters)."""

_EXACT_STRING = re.compile(
    r"""\A\s*[-+]?(
        \d+\s*/\s*\d+                      # a ratio of integers: 5/2
      | (\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?  # a decimal literal: 0.25, 1e-5
    )\s*\Z""",
    re.VERBOSE,
)


MAX_BINARY_EXPONENT = 13_288
"""Largest ``|e|`` accepted in a hexadecimal float such as ``'0x1p-1074'`` (as far as
:data:`MAX_DECIMAL_EXPONENT` reaches: ``2**13288`` is about ``10**4000``)."""

_HEX_STRING = re.compile(
    r"""\A\s*(?P<sign>[-+]?)0[xX]
        (?P<whole>[0-9a-fA-F]*)(?:\.(?P<frac>[0-9a-fA-F]*))?   # hex digits, at least one
        (?:[pP](?P<exp>[-+]?\d+))?                             # a power of two
        \s*\Z""",
    re.VERBOSE,
)
_LOOKS_HEX = re.compile(r"\A\s*[-+]?0[xX]")

_NON_FINITE_TEXT = re.compile(r"\A\s*[-+]?\s*(inf|infinity|nan|oo|zoo)\s*\Z", re.IGNORECASE)
"""How an infinity or a NaN is spelled as text (Python's ``float()`` spellings and SymPy's)."""

_NON_FINITE_HINT = "a privacy parameter or claim is a finite number; write e.g. '1', '5/2' or '1e-5'"


def is_non_finite(value: object) -> bool:
    """Whether ``value`` is an infinity or a NaN in any spelling: a float, a Decimal, text
    such as ``'inf'``, ``'-Infinity'``, ``'nan'``, ``'oo'``, or a SymPy ``oo``/``zoo``/``nan``.

    >>> [is_non_finite(v) for v in ("inf", "-inf", " NaN ", "oo", float("inf"), "1e999", 1)]
    [True, True, True, True, True, False, False]
    """
    if isinstance(value, str):
        return bool(_NON_FINITE_TEXT.match(value))
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, Decimal):
        return not value.is_finite()
    if getattr(value, "is_number", False) is True:  # a SymPy number, without importing SymPy
        return getattr(value, "is_finite", None) is False or str(value) in ("nan", "zoo", "oo", "-oo")
    return False


def refuse_non_finite(value: object, name: str) -> None:
    """Raise :class:`InvalidArgument` naming ``name`` if ``value`` is an infinity or a NaN
    (see :func:`is_non_finite`): a claim of ``epsilon = inf`` holds of every mechanism and
    says nothing, so it is refused like any other number that is not finite.

    >>> refuse_non_finite("inf", "--epsilon")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: --epsilon='inf' is not finite; a privacy parameter or claim is a finite number; write e.g. '1', '5/2' or '1e-5'
    """
    if is_non_finite(value):
        shown = _clip(value) if isinstance(value, str) else repr(value)
        raise InvalidArgument(f"{name}={shown} is not finite; {_NON_FINITE_HINT}")


def clip_text(text: str, keep: int = 60) -> str:
    """``text`` as typed, cut after ``keep`` characters with its length when longer: what a
    message quotes of a user's input.

    >>> clip_text("0," * 40)
    '0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,... (80 characters)'
    """
    if len(text) <= keep:
        return text
    return f"{text[:keep]}... ({len(text):,} characters)"


MAX_DIGITS = 4000
"""Longest string ``to_exact`` reads (Python refuses to convert ints of over 4,300 digits)."""

FLOAT_READINGS = ("decimal", "binary")
"""How numbers are read: ``decimal`` (``'0.1'`` is one tenth; a ``float`` is refused) or
``binary`` (the float64 Python stores for the text; a ``float`` at its exact value)."""

_READING: contextvars.ContextVar[str] = contextvars.ContextVar("exactdp_float_reading", default="decimal")


def _check_reading(floats: object) -> str:
    if floats not in FLOAT_READINGS:
        raise InvalidArgument(f"floats={floats!r} is not 'decimal' or 'binary'; pass floats='decimal' "
                              f"('0.1' is one tenth) or floats='binary' (the float64 Python stores)")
    return floats  # type: ignore[return-value]


@contextlib.contextmanager
def float_reading(floats: str) -> Iterator[str]:
    """Read numbers the ``floats`` way (``"decimal"`` or ``"binary"``) inside a ``with``
    block: every :func:`to_exact` call without its own ``floats=`` follows it.

    >>> with float_reading("binary"):
    ...     to_exact("0.1") - Fraction(1, 10)
    Fraction(1, 180143985094819840)
    """
    token = _READING.set(_check_reading(floats))
    try:
        yield floats
    finally:
        _READING.reset(token)


def current_float_reading() -> str:
    """``"decimal"`` or ``"binary"``: how :func:`to_exact` reads numbers here."""
    return _READING.get()


def _clip(text: str, keep: int = 40) -> str:
    """``repr`` of a text, shortened in the middle when it is long."""
    if len(text) <= keep:
        return repr(text)
    return repr(text[: keep // 2] + "..." + text[-keep // 2:])


def to_exact(value: object, name: str = "value", *, floats: str | None = None) -> Fraction:
    """Convert ``value`` to a :class:`~fractions.Fraction` without any rounding.

    ``name`` is used in error messages, e.g. ``to_exact(0.1, "lower")`` raises
    ``InexactInput: lower=0.1 is a float; ...``. ``floats`` is ``"decimal"`` or
    ``"binary"`` (see the module's docstring); ``None`` follows :func:`float_reading`
    (``"decimal"`` unless a ``with float_reading("binary")`` block is active).
    """
    floats = _READING.get() if floats is None else _check_reading(floats)
    if isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} is a bool; pass a number such as 0 or 1")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if floats == "binary" and math.isfinite(value):
            return Fraction(value)
        if floats == "binary":
            raise InvalidArgument(f"{name}={value!r} is not finite; pass a finite number")
        if not math.isfinite(value):  # a float, and not finite: no string spells it exactly
            raise InexactInput(f"{name}={value!r} is a float that is not finite; {_NON_FINITE_HINT}")
        raise InexactInput(
            f"{name}={value!r} is a float, which is not exact; pass the number you mean "
            f"as a string ({str(value)!r}), an int or a Fraction, or use "
            f"exactdp.from_float({value!r}) (or floats='binary') for the float's exact binary value"
        )
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidArgument(f"{name}={value!r} is not finite; pass a finite number")
        if value and abs(value.adjusted()) > MAX_DECIMAL_EXPONENT:
            raise InvalidArgument(
                f"{name}={_clip(str(value))} has a decimal exponent beyond "
                f"+-{MAX_DECIMAL_EXPONENT}; write a number of reasonable size"
            )
        return Fraction(value)
    if isinstance(value, str):
        if len(value) > MAX_DIGITS:
            raise InvalidArgument(
                f"{name}={_clip(value)} has {len(value):,} characters, more than "
                f"{MAX_DIGITS:,}; write a number of reasonable size"
            )
        if _LOOKS_HEX.match(value):
            x = _hex_value(value, name)
            return _as_float64(x, value, name) if floats == "binary" else x
        if _NON_FINITE_TEXT.match(value):
            raise InvalidArgument(f"{name}={value!r} is not finite; {_NON_FINITE_HINT}")
        if not _EXACT_STRING.match(value):
            raise InvalidArgument(
                f"{name}={_clip(value)} is not an exact number; write an integer ('-3'), "
                f"a ratio ('5/2'), a decimal ('0.25', '1e-5') or a hexadecimal float ('0x1.8p+1')"
            )
        text = "".join(value.split())
        mantissa, _, exponent = text.lower().partition("e")
        if exponent and abs(int(exponent)) > MAX_DECIMAL_EXPONENT:
            raise InvalidArgument(
                f"{name}={value!r} has the exponent {exponent}, beyond +-{MAX_DECIMAL_EXPONENT}; "
                f"write a number of reasonable size"
            )
        try:
            x = Fraction(text)
        except ZeroDivisionError:
            raise InvalidArgument(f"{name}={value!r} divides by zero; write a nonzero denominator") from None
        if floats == "binary" and not text.lstrip("+-").isdigit():
            return _as_float64(x, value, name)  # a float literal or p/q: a float in Python
        return x
    # SymPy Integer/Rational (and any exact numbers.Rational) without importing SymPy.
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if getattr(value, "is_Rational", False):
        return Fraction(int(value.p), int(value.q))  # type: ignore[attr-defined]
    if is_non_finite(value):
        raise InvalidArgument(f"{name}={value!r} is not finite; {_NON_FINITE_HINT}")
    raise InexactInput(
        f"{name}={value!r} (type {type(value).__name__}) is not an exact number; pass an "
        f"int, a Fraction, a Decimal or a string such as '5/2'"
    )


def _hex_value(text: str, name: str) -> Fraction:
    """A hexadecimal float (what :meth:`float.fromhex` reads), exactly: never via a float."""
    m = _HEX_STRING.match(text)
    if m is None or not (m.group("whole") or m.group("frac")):
        raise InvalidArgument(
            f"{name}={_clip(text)} is not a hexadecimal float; write one as float.hex prints it, "
            f"e.g. '0x1.999999999999ap-4' (the float64 nearest 0.1) or '-0x1p-1074'")
    whole, frac, exp = m.group("whole"), m.group("frac") or "", m.group("exp")
    if exp is None:  # float.fromhex reads '0x10' as 16; as text, 0x10 looks like an int: ask
        raise InvalidArgument(
            f"{name}={_clip(text)} has no binary exponent; write a hexadecimal float as "
            f"float.hex prints it, with p: {_clip(text.strip() + 'p+0')}")
    digits = exp.lstrip("+-").lstrip("0")
    if len(digits) > 6 or abs(int(exp)) > MAX_BINARY_EXPONENT:
        raise InvalidArgument(
            f"{name}={_clip(text)} has the binary exponent {_clip(exp, 12)[1:-1]}, beyond "
            f"+-{MAX_BINARY_EXPONENT:,}; write a number of reasonable size")
    e = int(exp) - 4 * len(frac)
    mantissa = int(whole + frac, 16)
    x = Fraction(mantissa << e) if e >= 0 else Fraction(mantissa, 1 << -e)
    return -x if m.group("sign") == "-" else x


def _as_float64(x: Fraction, text: str, name: str) -> Fraction:
    """The float64 nearest ``x`` (ties to even), as Python stores ``float(text)``, exactly."""
    try:
        f = x.numerator / x.denominator  # correctly rounded, like float('0.1') and 1/3
    except OverflowError:
        f = math.inf
    if math.isinf(f):
        raise InvalidArgument(
            f"{name}={_clip(text)} is beyond the largest float64 ({sys.float_info.max!r}); "
            f"read as a float (floats='binary') it is infinite: write a smaller number")
    return Fraction(f)


def from_float(value: float) -> Fraction:
    """The exact binary value of a float: the explicit door for float semantics."""
    if isinstance(value, bool) or not isinstance(value, (float, int)):
        raise InvalidArgument(f"value={value!r} is not a float; from_float takes a float")
    if value != value or value in (float("inf"), float("-inf")):
        raise InvalidArgument(f"value={value!r} is not finite; pass a finite float")
    return Fraction(value)


def library_number(value, library: str = "the library", *, infinite: bool = False) -> Fraction | float:
    """A number an audited library returned or stores, at its exact value: the one reader
    of library floats. An integer (Python or NumPy) is itself; a float (Python or NumPy
    float64) is its exact binary value, never its decimal look. ``infinite=True`` keeps
    ``math.inf`` (an epsilon bound that says nothing); otherwise an infinity, a NaN, a
    ``bool`` or anything else is one line of :class:`InvalidArgument` naming ``library``.

    >>> library_number(0.1, "a library")
    Fraction(3602879701896397, 36028797018963968)
    >>> library_number(7)
    Fraction(7, 1)
    >>> library_number(float("inf"), infinite=True)
    inf
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"value={value!r} is a bool; expected a number {library} computed")
    if isinstance(value, numbers.Integral):  # int, NumPy integers
        return Fraction(int(value))
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"value={value!r} ({type(value).__name__}) is not a number {library} "
                              f"returns; expected an int or a float") from None
    if f != f:
        raise InvalidArgument(f"value={value!r} is NaN: {library} returned no number")
    if f != value:  # pragma: no cover - a type wider than float64 (np.longdouble)
        raise InvalidArgument(f"value={value!r} is not a float64; expected a float64 or an integer")
    if math.isinf(f):
        if infinite and f > 0:
            return math.inf
        raise InvalidArgument(f"value={value!r} is not finite: {library} returned no finite number")
    return from_float(f)


def returned_float(value, library: str) -> Fraction | float:
    """A number ``library`` returned (a Python or NumPy float) at its exact binary value;
    ``math.inf`` stays ``math.inf`` (for an epsilon: an upper bound that says nothing):
    :func:`library_number` with ``infinite=True``.

    >>> returned_float(0.1, "a library")
    Fraction(3602879701896397, 36028797018963968)
    """
    return library_number(value, library, infinite=True)


MAX_FORMATTED_BITS = 200_000
"""Largest integer (about 60,000 digits) :func:`format_exact` writes out in full; Python's
own limit on int-to-text conversion (4,300 digits) is lifted up to it."""


def _int_text(n: int) -> str:
    if n.bit_length() < 14_000:  # below Python's default limit of 4,300 digits
        return str(n)
    if n.bit_length() > MAX_FORMATTED_BITS:
        raise InvalidArgument(
            f"a number of {n.bit_length():,} bits is too large to write out (at most "
            f"{MAX_FORMATTED_BITS:,}); use values of reasonable size"
        )
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:  # a Python without the limit
        return str(n)
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        return str(n)
    finally:
        sys.set_int_max_str_digits(old)


def format_exact(value: Fraction | int) -> str:
    """Exact string of a rational that SymPy and :func:`to_exact` both parse: ``'7/2'``."""
    value = to_exact(value)
    if value.denominator == 1:
        return _int_text(value.numerator)
    return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"


def format_dataset(values: Iterable[Fraction | int]) -> str:
    """A dataset as exact text: ``[1, 5/2, 5/2]``."""
    return "[" + ", ".join(format_exact(v) for v in values) + "]"


def show_exact(value: Fraction | int, keep: int = 40) -> str:
    """``format_exact`` for messages: a number of many digits shows its ends and its size.

    >>> show_exact(Fraction(10) ** 400)
    '10000000000000000000...00000000000000000000 (401 characters)'
    >>> show_exact(Fraction(-5, 2))
    '-5/2'
    >>> show_exact(Fraction(1, 10 ** 5000))
    'a number near 2**-16609'
    """
    value = Fraction(value)
    if max(abs(value.numerator).bit_length(), value.denominator.bit_length()) > 12_000:
        k = abs(value.numerator).bit_length() - value.denominator.bit_length()
        return f"{'-' if value < 0 else ''}a number near 2**{k}"
    text = format_exact(value)
    if len(text) <= keep:
        return text
    return f"{text[: keep // 2]}...{text[-keep // 2:]} ({len(text):,} characters)"


def common_denominator(values: Iterable[Fraction | int]) -> int:
    """The least common multiple of the denominators: every value times it is an integer.

    >>> common_denominator([Fraction(1, 4), Fraction(5, 6), 3])
    12
    """
    den = 1
    for v in values:
        d = Fraction(v).denominator
        den = den * d // math.gcd(den, d)
    return den
