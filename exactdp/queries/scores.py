"""Seed 002's quantile scores: one utility per candidate, for the exponential mechanism.

For the ``alpha``-quantile of a dataset ``x`` of ``n`` records and a candidate ``c``:

* ``"seed"`` (seed 002's formula): ``-|(1 - alpha)*#(x < c) - alpha*#(x > c)|``;
* ``"code"`` (seed 002's Python ``score_quantile_discrete``): ``-|#(x <= c) - alpha*n|``;
* ``"integer"`` (OpenDP's ``make_quantile_score_candidates``, to be minimised):
  ``|(den - num)*#(x < c) - num*#(x > c)|`` for ``alpha = num/den`` in lowest terms.

:func:`quantile_score_values` computes them on a list of values (the one copy, also read by
:func:`exactdp.symbolic.constructors.make_quantile_score`); :func:`quantile_score` is the
vector-valued :class:`~exactdp.queries.base.Query` (L-infinity distance), named
``quantile-score:ALPHA:C1,C2,...[:FORM]`` on the command line.

>>> quantile_score_values([2, 2, 2], [1, 2, 3], "1/2")
(Fraction(-3, 2), Fraction(0, 1), Fraction(-3, 2))
>>> quantile_score_values([2, 2, 2], [1, 2, 3], "1/2", form="code")
(Fraction(-3, 2), Fraction(-3, 2), Fraction(-3, 2))
>>> quantile_score("1/2", [0, 1, 2, 3])([1, 2])
(Fraction(-1, 1), Fraction(-1, 2), Fraction(-1, 2), Fraction(-1, 1))
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Iterable, Sequence

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.queries.base import Query

__all__ = ["QUANTILE_SCORE_FORMS", "quantile_score", "quantile_score_values"]

QUANTILE_SCORE_FORMS = ("seed", "code", "integer")
"""The score formulas (see the module docstring)."""


def _alpha(alpha: object) -> Fraction:
    a = to_exact(alpha, "alpha")
    if not 0 <= a <= 1:
        raise InvalidArgument(f"alpha={format_exact(a)} is outside [0, 1]; the quantile level is "
                              f"between 0 and 1, e.g. 1/2 for the median")
    return a


def _candidates(candidates: Iterable[object]) -> tuple[Fraction, ...]:
    cands = tuple(to_exact(c, "candidate") for c in candidates)
    if not cands:
        raise InvalidArgument("candidates=() is empty; give at least one candidate, e.g. 0,1,2")
    seen: set[Fraction] = set()
    for c in cands:
        if c in seen:
            raise InvalidArgument(f"candidate {format_exact(c)} is listed twice; give each "
                                  f"candidate once (the mechanism's outputs are the candidates)")
        seen.add(c)
    return cands


def _form(form: str) -> str:
    if form not in QUANTILE_SCORE_FORMS:
        raise InvalidArgument(f"form={form!r} is not one of {', '.join(QUANTILE_SCORE_FORMS)}")
    return form


def _score(lt: int, gt: int, n: int, a: Fraction, form: str) -> Fraction:
    """One candidate's score from ``#(x < c)``, ``#(x > c)`` and ``n``."""
    if form == "seed":
        return -abs((1 - a) * lt - a * gt)
    if form == "code":
        return -abs((n - gt) - a * n)  # n - #(x > c) = #(x <= c)
    return Fraction(abs((a.denominator - a.numerator) * lt - a.numerator * gt))


def quantile_score_values(xs: Sequence[object], candidates: Iterable[object], alpha: object,
                          form: str = "seed") -> tuple[Fraction, ...]:
    """The scores of ``candidates`` (in their order) on the dataset ``xs``, exactly."""
    a, cands, form = _alpha(alpha), _candidates(candidates), _form(form)
    data = sorted(to_exact(x, "data value") for x in xs)
    n = len(data)
    return tuple(_score(bisect_left(data, c), n - bisect_right(data, c), n, a, form)
                 for c in cands)


def quantile_score(alpha: object, candidates: Iterable[object], form: str = "seed") -> Query:
    """The vector of quantile scores (one per candidate, in the order given) as a query
    under the L-infinity distance; defined on every dataset (all scores 0 on the empty
    one). Its add/remove sensitivity is ``max(alpha, 1 - alpha)`` for the ``seed`` and
    ``code`` forms (seed 002) and ``max(num, den - num)`` for ``integer``."""
    a, cands, form = _alpha(alpha), _candidates(candidates), _form(form)

    def prep(values):
        # #(x < c) and #(x > c) as sums of counts over index ranges of the sorted universe
        below = [bisect_left(values, c) for c in cands]
        upto = [bisect_right(values, c) for c in cands]

        def f(counts):
            n = sum(counts)
            prefix = [0]
            for c in counts:
                prefix.append(prefix[-1] + c)
            return tuple(_score(prefix[lo], n - prefix[hi], n, a, form)
                         for lo, hi in zip(below, upto))

        return f

    suffix = "" if form == "seed" else f":{form}"
    name = f"quantile-score:{format_exact(a)}:{','.join(format_exact(c) for c in cands)}{suffix}"
    return Query(name, prep, output="vector", norm="Linf")
