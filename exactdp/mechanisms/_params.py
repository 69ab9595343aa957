"""Argument checks shared by the mechanism modules and their commands.

Each takes a value as the caller wrote it (``'0.1'``, ``2``, a ``Fraction``), converts it
with :func:`~exactdp.numeric.exact.to_exact` and refuses it with a message that shows the
value as written (long numbers shortened), what was expected and what to do.

>>> positive("0.5", "epsilon")
Fraction(1, 2)
>>> probability("1e-5", "delta")
Fraction(1, 100000)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import from_float, show_exact, to_exact

__all__ = ["parse_params", "shown", "positive", "nonnegative", "probability", "open_probability",
           "stored_positive", "whole", "check_parameter_names"]

_LONG = 24


def shown(value: Any) -> str:
    """A value as the caller wrote it; an exact number as ``1/3``; long ones shortened
    (never a long ``Fraction(...)`` repr)."""
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        return show_exact(value, keep=_LONG)
    text = repr(value)
    half = _LONG // 2
    return text if len(text) <= _LONG else f"{text[:half]}...{text[-half:]} ({len(text):,} characters)"


def positive(value: Any, name: str) -> Fraction:
    """``value`` as an exact number, refused unless ``> 0``."""
    x = to_exact(value, name)
    if x <= 0:
        raise InvalidArgument(f"{name}={shown(value)} is not positive; pass a number > 0")
    return x


def nonnegative(value: Any, name: str) -> Fraction:
    """``value`` as an exact number, refused unless ``>= 0``."""
    x = to_exact(value, name)
    if x < 0:
        raise InvalidArgument(f"{name}={shown(value)} is negative; pass a number of at least 0")
    return x


def probability(value: Any, name: str) -> Fraction:
    """``value`` as an exact number in ``[0, 1]`` (a spend's delta)."""
    x = nonnegative(value, name)
    if x > 1:
        raise InvalidArgument(f"{name}={shown(value)} is above 1; delta is a probability in [0, 1]")
    return x


def open_probability(value: Any, name: str) -> Fraction:
    """``value`` as an exact number strictly between 0 and 1 (a calibration's delta)."""
    x = to_exact(value, name)
    if not 0 < x < 1:
        raise InvalidArgument(
            f"{name}={shown(value)} is not strictly between 0 and 1; pass e.g. '1e-5'")
    return x


def stored_positive(value: Any, name: str) -> Fraction:
    """A parameter a library stores: a float is taken at its exact binary value
    (:func:`~exactdp.numeric.exact.from_float`), anything else through ``to_exact``."""
    if isinstance(value, float):
        x = from_float(value)
        if x <= 0:
            raise InvalidArgument(f"{name}={value!r} is not positive; pass a number > 0")
        return x
    return positive(value, name)


def whole(value: Any, name: str, least: int = 0) -> int:
    """``value`` (any exact number, e.g. ``'3'``) as an ``int``, refused unless it is a
    whole number ``>= least``."""
    x = to_exact(value, name)
    if x.denominator != 1 or x < least:
        raise InvalidArgument(f"{name}={show_exact(x)} is not a whole number >= {least}")
    return int(x)


def check_parameter_names(mechanism: str, given, accepted, required=(), help_text: str = "") -> None:
    """Refuse parameter names a mechanism does not take, or a required one left out, in the
    user's words: ``discrete-laplace has no parameter bogus; its parameters are scale,
    variant, lower, upper`` / ``report-noisy-max needs the parameter noise (noise=...)``.

    ``accepted`` lists every parameter name in the constructor's order, ``required`` those
    without a default, ``help_text`` the registered one-line description (shown after a
    missing one).

    >>> check_parameter_names("gaussian", ["sigma2"], ["sigma"], ["sigma"])
    Traceback (most recent call last):
    exactdp.errors.InvalidArgument: gaussian has no parameter sigma2 (did you mean sigma?); its parameters are sigma
    """
    import difflib

    accepted = list(accepted)
    unknown = [k for k in given if k not in accepted]
    if unknown:
        guesses = [g for k in unknown for g in difflib.get_close_matches(k, accepted, n=1)]
        guess = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
        plural = "parameters" if len(unknown) > 1 else "parameter"
        takes = f"its parameters are {', '.join(accepted)}" if accepted else "it takes no parameters"
        raise InvalidArgument(
            f"{mechanism} has no {plural} {', '.join(unknown)}{guess}; {takes}")
    missing = [k for k in required if k not in given]
    if missing:
        plural = "parameters" if len(missing) > 1 else "parameter"
        described = f": {help_text}" if help_text else f"; its parameters are {', '.join(accepted)}"
        raise InvalidArgument(f"{mechanism} needs the {plural} {', '.join(missing)}{described}")


def parse_params(items: list[str] | None) -> dict[str, str]:
    """``['p=3/4', 'k_values=3']`` -> ``{'p': '3/4', 'k_values': '3'}`` (values stay text,
    read exactly by each model)."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise InvalidArgument(f"--param {item!r} is not KEY=VALUE; write e.g. --param p=3/4")
        if key in out:
            raise InvalidArgument(f"--param {key} given twice")
        out[key] = value.strip()
    return out
