"""Budgets before work: the one place that bounds a size and refuses above its budget.

Every size a computation will reach (values in a universe, datasets, moves, pairs, rows
of a ``d_in`` table, digits of a number, degree of a polynomial, evaluations of a search)
is estimated from the inputs alone, in time that does not depend on the size, and
handed to :func:`refuse_above` *before* any work starts. A refusal is a
:class:`~exactdp.errors.TooLarge` whose message names the count, the budget and the
option that raises it.

Counts here may be astronomically large (``10**12`` datasets, ``C(10**9, 4)`` moves): they
are kept as exact integers only while they are small, and otherwise as a lower bound
that is already over the budget (:func:`comb_capped`), so that estimating never costs
more than refusing.

>>> comb_capped(10**12, 3, cap=10**6) > 10**6
True
>>> comb_capped(10, 3, cap=10**6)
120
>>> show_count(10**40)
'about 10^40'
"""

from __future__ import annotations

import math

from exactdp.errors import InvalidArgument, TooLarge
from exactdp.errors import ExactDPError
from exactdp.numeric.exact import to_exact

__all__ = [
    "DEFAULT_MAX_DATASETS", "DEFAULT_MAX_PAIRS", "MAX_D_IN_ROWS", "MAX_LISTED_VALUES",
    "refuse_above", "check_budget", "read_budget", "budget_argument", "comb_capped", "show_count",
    "MoreThan",
]

DEFAULT_MAX_DATASETS = 3_000_000
"""Default budget on datasets held in a value table (memory: about 70 bytes each at peak for
the built-in queries' NumPy tables, about 260 for other queries; 2026-11-24)."""

DEFAULT_MAX_PAIRS = 50_000_000
"""Default budget on candidate neighbour pairs (datasets x moves, an upper bound on the
pairs examined). On one core of the benchmark machine: a few seconds for built-in queries
(8-13 million exact pairs per second since the NumPy engine, 2026-11-24), tens of seconds
for user queries and sparse universes (the pure-Python scan: 327 million candidates,
31 million pairs examined took 34 s on 2026-11-21)."""

MAX_D_IN_ROWS = 1_000
"""Most ``d_in`` values one sensitivity table (``--d-in A..B``) may hold."""

MAX_LISTED_VALUES = 1_000_000
"""Most values a range may expand to where values are listed one by one (a record pool,
a dataset); a universe ``A..B`` is never expanded before its budget is checked. Reading a
pool costs about 3 s per million records (exact values, counted and sorted): 10 million
took 24 s before its dataset budget could refuse it."""

_LARGEST_SHOWN = 4000
"""Counts are shown up to ``10**4000``; beyond, "more than 10^4000"."""

_EXACT_BELOW = 10**30
"""Counts below this are kept exact; above it :func:`comb_capped` may return a bound."""


class MoreThan(int):
    """A count known only to be larger than this number: what a capped count (``comb_capped``,
    ``count_capped``) returns once counting stopped past its cap. Shown as "more than N"
    (:func:`show_count`), never as if it were the count; arithmetic on it gives a plain
    ``int``, a bound like it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"MoreThan({int(self)!r})"

    def __str__(self) -> str:  # the digits, as for an int (object.__str__ would call repr)
        return int.__repr__(self)


def show_count(count: int) -> str:
    """``'1,234'`` for a count of reasonable size, ``'about 10^40'`` beyond 10**18; a
    :class:`MoreThan` bound as ``'more than 1,234'`` or ``'more than 10^40'``."""
    if isinstance(count, MoreThan):
        if count < 10**18:
            return f"more than {int(count):,}"
        bits = count.bit_length()  # 10^k <= 2^(bits - 1) <= count, k rounded down safely
        k = len(str(count)) - 1 if bits < 1000 else int((bits - 1) * math.log10(2) - 1e-6)
        return f"more than 10^{min(k, _LARGEST_SHOWN)}"
    if count < 10**18:
        return f"{count:,}"
    if count.bit_length() > _LARGEST_SHOWN * math.log2(10) + 1:
        return f"more than 10^{_LARGEST_SHOWN}"
    return f"about 10^{_log10(count)}"


def _log10(count: int) -> int:
    """``floor(log10(count))`` for ``count >= 1``, in time independent of its digits' value
    (off by at most one for numbers of many thousands of digits, which is fine in a message)."""
    bits = count.bit_length()
    if bits < 1000:
        return len(str(count)) - 1
    return int((bits - 1) * math.log10(2))


def refuse_above(count: int, budget: int | None, *, what: str, option: str | None, hint: str = "") -> None:
    """Raise :class:`TooLarge` if ``count > budget`` (``None``: no budget).

    ``what`` names the thing counted with its context (``"datasets in multisets of size
    0..1 over {0..10000000000}"``); ``option`` the keyword or CLI option that raises the
    budget; ``hint`` how to shrink the input instead. A :class:`MoreThan` count (counting
    stopped past the budget) is shown as "more than N" and is the error's ``estimate``, so
    ``isinstance(e.estimate, MoreThan)`` tells a lower bound from a count.
    """
    if budget is None or (count <= budget and not (isinstance(count, MoreThan) and count == budget)):
        return
    if option is None:  # a fixed limit: nothing to raise
        over, shrink = f"more than {budget:,}", hint
    else:
        over = f"over {option}={budget:,}"
        shrink = f"{hint}, or raise {option}" if hint else f"raise {option}"
    raise TooLarge(
        f"{show_count(count)} {what}, {over}; {shrink}",
        estimate=count,
        budget=budget,
    )


def check_budget(value: object, name: str) -> int | None:
    """Validate a budget given by a caller: a whole number >= 0, or ``None`` (no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(
            f"{name}={value!r} is not an int; a budget is a whole number such as 1000000, "
            f"or None for no limit"
        )
    if value < 0:
        raise InvalidArgument(f"{name}={value!r} is negative; a budget is at least 0")
    return value


def read_budget(text: str, option: str | None = None, example: int | None = None) -> int:
    """A budget option's value as typed (``'50000000'``, ``'5e7'``, ``'50_000_000'``): a
    whole number of at least 1, else :class:`InvalidArgument` naming the option and the
    value as typed, e.g. ``--max-pairs=0 is not a positive whole number; pass e.g.
    --max-pairs 50000000`` (without ``option``: ``'0' is not a positive whole number; pass
    e.g. 1000000``).

    >>> read_budget("5e7", "--max-pairs")
    50000000
    """
    typed = text if text and not any(c.isspace() or c in "'\"" for c in text) else repr(text)
    shown = f"{option}={typed}" if option else repr(text)
    suggested = example if example is not None else 1_000_000
    fix = f"pass e.g. {option} {suggested}" if option else f"pass e.g. {suggested}"
    try:
        value = int(text)
    except ValueError:
        try:
            exact = to_exact(text.strip(), option or "budget", floats="decimal")
        except ExactDPError:
            raise InvalidArgument(f"{shown} is not a whole number; {fix}") from None
        if exact.denominator != 1:
            raise InvalidArgument(f"{shown} is not a whole number; {fix}") from None
        value = int(exact)
    if value < 1:
        raise InvalidArgument(f"{shown} is not a positive whole number; {fix}")
    return value


def budget_argument(text: str) -> int:
    """An argparse ``type`` for a budget option, :func:`read_budget` for parsers that are not
    ``exactdp``'s own (pytest's options; argparse names the option in its message)."""
    import argparse

    try:
        return read_budget(text)
    except InvalidArgument as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def comb_capped(n: int, k: int, cap: int) -> int:
    """``C(n, k)`` exactly when it is at most ``max(cap, 10**30)``; otherwise some number
    greater than ``cap`` (a lower bound on ``C(n, k)``), found without building it."""
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    limit = max(cap, _EXACT_BELOW)
    if k == 0:
        return 1
    log_c = _log_comb(n, k)  # accurate to far better than one part in 10**6 of the log
    if log_c > math.log(limit) + 1.0:
        # a power of ten of the right magnitude, at most C(n, k) and above the limit
        digits = min(int(log_c / math.log(10)) - 1, _LARGEST_SHOWN + 1)
        return MoreThan(max(10**digits, limit + 1))  # C(n, k) > e * limit: strictly more
    return math.comb(n, k)
