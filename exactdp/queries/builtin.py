"""The built-in exact queries.

Every query works on count vectors over the sorted universe and returns exact
rationals (standard deviation returns its radicand; see :mod:`exactdp.queries.base`).

Quantiles follow numpy's methods exactly. For ``n`` sorted values ``x[0..n-1]`` and
a percentile ``p`` the *virtual index* is ``h = (n - 1) * p / 100``;

* ``linear`` (numpy's default): ``x[floor h] + (h - floor h) * (x[ceil h] - x[floor h])``
* ``lower``: ``x[floor h]``; ``higher``: ``x[ceil h]``
* ``nearest``: ``x[round(h)]`` with ties to even, as ``numpy.around`` does
* ``midpoint``: ``x[h]`` when ``h`` is whole, else ``(x[floor h] + x[ceil h]) / 2``
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import common_denominator, format_exact, to_exact
from exactdp.queries.base import UNDEFINED, GraphQuery, IncrementalForm, Query, check_result, make_query
from exactdp.queries.scores import quantile_score

__all__ = [
    "count", "sum_", "mean", "median", "quantile", "percentile", "variance",
    "std", "histogram", "clipped", "user_query", "parse_query", "as_query", "QUERY_NAMES",
    "QUANTILE_METHODS",
]

QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _prep_count(values):
    return sum


def _integer_scale(values):
    """``(numerators, D)`` with ``values[i] == numerators[i] / D``: integer arithmetic
    inside the per-dataset loops, one ``Fraction`` at the end."""
    den = common_denominator(values)
    return tuple(int(v * den) for v in values), den


def _prep_sum(values):
    nums, den = _integer_scale(values)

    def f(counts):
        return Fraction(sum(c * v for c, v in zip(counts, nums) if c), den)

    return f


def _moments(values):
    """Prepared ``counts -> (n, S1, S2)`` over the integer numerators, and ``D``."""
    nums, den = _integer_scale(values)
    sq = tuple(v * v for v in nums)

    def f(counts):
        n = s1 = s2 = 0
        for c, v, w in zip(counts, nums, sq):
            if c:
                n += c
                s1 += c * v
                s2 += c * w
        return n, s1, s2

    return f, den


def _prep_mean(values):
    mom, den = _moments(values)

    def f(counts):
        n, s1, _ = mom(counts)
        if n == 0:
            return UNDEFINED
        return Fraction(s1, n * den)

    return f


def _variance_prep(ddof: int):
    def prep(values):
        mom, den = _moments(values)

        def f(counts):
            n, s1, s2 = mom(counts)
            if n <= ddof:
                return UNDEFINED
            # sum of squared deviations = (n*S2 - S1^2) / (n * D^2)
            return Fraction(n * s2 - s1 * s1, n * (n - ddof) * den * den)

        return f

    return prep


def _order_stat_factory(values):
    """``(counts, j) -> x[j]``: the j-th smallest value (0-based)."""
    vs = values

    def kth(counts, j):
        acc = 0
        for c, v in zip(counts, vs):
            acc += c
            if j < acc:
                return v
        raise IndexError(j)

    return kth



def _quantile_prep(q: Fraction, method: str):
    def prep(values):
        kth = _order_stat_factory(values)

        def f(counts):
            n = sum(counts)
            if n == 0:
                return UNDEFINED
            h = (n - 1) * q
            lo = h.numerator // h.denominator
            frac = h - lo
            if method == "lower" or frac == 0:
                return kth(counts, lo)
            if method == "higher":
                return kth(counts, lo + 1)
            if method == "nearest":
                return kth(counts, round(h))  # round: a Fraction rounds half to even
            a, b = kth(counts, lo), kth(counts, lo + 1)
            if method == "midpoint":
                return (a + b) / 2
            return a + frac * (b - a)

        return f

    return prep


# -- public constructors ---------------------------------------------------------------

def _form(kind: str, **extra):
    """The incremental-form hook of a built-in query (see :class:`IncrementalForm`)."""
    def hook(values):
        return IncrementalForm(kind, tuple(values), **extra)

    return hook


count = Query("count", _prep_count, incremental=_form("count"))
"""Number of records."""

sum_ = Query("sum", _prep_sum, incremental=_form("sum"))
"""Sum of the records (``sum`` in the CLI)."""

mean = Query("mean", _prep_mean, min_size=1, incremental=_form("mean"))
"""Arithmetic mean; undefined on the empty dataset."""


def quantile(q: object, method: str = "linear") -> Query:
    """The ``q``-quantile (``0 <= q <= 1``, exact) with a numpy method.

    >>> quantile("1/4")([1, 2, 3, 4])
    Fraction(7, 4)
    """
    qq = to_exact(q, "q")
    if not 0 <= qq <= 1:
        raise InvalidArgument(f"q={q!r} is outside [0, 1]; a quantile level is between 0 and 1")
    if method not in QUANTILE_METHODS:
        raise InvalidArgument(
            f"method={method!r} is not a quantile method; use one of {', '.join(QUANTILE_METHODS)}"
        )
    suffix = "" if method == "linear" else f":{method}"
    return Query(f"quantile:{format_exact(qq)}{suffix}", _quantile_prep(qq, method), min_size=1,
                 incremental=_form("quantile", q=qq, method=method))


def percentile(p: object, method: str = "linear") -> Query:
    """The ``p``-th percentile (``0 <= p <= 100``), as ``numpy.percentile``.

    >>> percentile(90)([1, 2])
    Fraction(19, 10)
    """
    pp = to_exact(p, "p")
    if not 0 <= pp <= 100:
        raise InvalidArgument(f"p={p!r} is outside [0, 100]; a percentile is between 0 and 100")
    query = quantile(pp / 100, method)
    suffix = "" if method == "linear" else f":{method}"
    query.name = f"percentile:{format_exact(pp)}{suffix}"
    return query


median = Query("median", _quantile_prep(Fraction(1, 2), "linear"), min_size=1,
               incremental=_form("quantile", q=Fraction(1, 2), method="linear"))
"""The median (numpy's: the mean of the two middle values when the size is even)."""


def variance(ddof: int = 0) -> Query:
    """Population variance (``ddof=0``) or sample variance (``ddof=1``).

    >>> variance(1)([1, 2, 3, 4])
    Fraction(5, 3)
    """
    if type(ddof) is not int or ddof not in (0, 1):
        raise InvalidArgument(f"ddof={ddof!r} is not the int 0 (population) or 1 (sample)")
    name = "var" if ddof == 0 else "var:1"
    return Query(name, _variance_prep(ddof), min_size=ddof + 1,
                 incremental=_form("variance", ddof=ddof))


def std(ddof: int = 0) -> Query:
    """Standard deviation, exact: the square root of :func:`variance`.

    >>> std()([1, 3])
    Fraction(1, 1)
    >>> std()([0, 1, 2])
    sqrt(6)/3
    """
    var = variance(ddof)
    return Query("std" if ddof == 0 else "std:1", var._prepare, output="sqrt",
                 min_size=var.min_size, incremental=var._incremental)


def histogram(edges: Sequence[object], norm: str = "L1") -> Query:
    """Counts per bin. ``edges`` are increasing exact numbers ``e0 < e1 < ... < ek``;
    bin ``i`` is ``[e_i, e_{i+1})`` and the last bin is closed, as ``numpy.histogram``.
    Values outside ``[e0, ek]`` are not counted. ``norm`` is the output distance:
    ``"L1"``, ``"L2"`` or ``"Linf"``.

    >>> histogram([0, 2, 4])([0, 1, 2, 4, 5])
    (2, 2)
    """
    es = [to_exact(e, "bin edge") for e in edges]
    if len(es) < 2:
        raise InvalidArgument(f"edges={list(edges)!r} needs at least two edges (one bin)")
    if any(b <= a for a, b in zip(es, es[1:])):
        raise InvalidArgument(f"edges={[format_exact(e) for e in es]!r} must increase strictly")
    if norm not in ("L1", "L2", "Linf"):
        raise InvalidArgument(f"norm={norm!r} is not one of 'L1', 'L2', 'Linf'")
    nbins = len(es) - 1

    def bins_of(values) -> list[int | None]:
        """Each value's bin: ``[e_i, e_{i+1})``, the last bin closed; None outside the edges."""
        bins = []
        for v in values:
            b = None
            if es[0] <= v <= es[-1]:
                b = nbins - 1
                for i in range(nbins):
                    if v < es[i + 1]:
                        b = i
                        break
            bins.append(b)
        return bins

    def prep(values):
        bins = bins_of(values)

        def f(counts):
            out = [0] * nbins
            for c, b in zip(counts, bins):
                if c and b is not None:
                    out[b] += c
            return tuple(out)

        return f

    def hook(values):
        return IncrementalForm("histogram", tuple(values), bins=tuple(bins_of(values)), nbins=nbins)

    name = f"histogram[{','.join(format_exact(e) for e in es)}]:{norm}"
    return Query(name, prep, output="vector", norm=norm, incremental=hook)


def clipped(query: Query, lower: object, upper: object) -> Query:
    """Clamp every record to ``[lower, upper]``, then apply ``query``.

    >>> clipped(sum_, 0, 2)([-1, 1, 5])
    Fraction(3, 1)
    """
    if not isinstance(query, Query):
        raise InvalidArgument(f"query={query!r} is not a Query; pass e.g. exactdp.queries.sum_")
    lo = to_exact(lower, "lower")
    hi = to_exact(upper, "upper")
    if hi < lo:
        raise InvalidArgument(
            f"Cannot have upper={format_exact(hi)!r} < lower={format_exact(lo)!r}; swap the clip bounds"
        )

    def prep(values):
        return query.prepare(tuple(min(max(v, lo), hi) for v in values))

    def hook(values):
        return query.incremental(tuple(min(max(v, lo), hi) for v in values))

    name = f"clipped({query.name}, {format_exact(lo)}, {format_exact(hi)})"
    return Query(name, prep, output=query.output, min_size=query.min_size,
                 norm=query.norm, clip=(lo, hi), incremental=hook)


def user_query(
    fn: Callable[[tuple[Fraction, ...]], object],
    *,
    name: str | None = None,
    min_size: int = 0,
) -> Query:
    """Wrap a Python function of a sorted tuple of exact values (``Fraction``).

    It must return an ``int`` or a ``Fraction``; a float is refused, because the
    checker would then compare rounded numbers.

    >>> spread = user_query(lambda xs: xs[-1] - xs[0], name="range", min_size=1)
    >>> spread([3, "1/2", 2])
    Fraction(5, 2)
    """
    if not callable(fn):
        raise InvalidArgument(f"fn={fn!r} is not callable; pass a function of a sorted tuple")
    if isinstance(min_size, bool) or not isinstance(min_size, int) or min_size < 0:
        raise InvalidArgument(f"min_size={min_size!r} must be a whole number >= 0")
    label = name or getattr(fn, "__name__", "user query")

    def prep(values):
        def f(counts):
            if sum(counts) < min_size:
                return UNDEFINED
            xs: list[Fraction] = []
            for c, v in zip(counts, values):
                if c:
                    xs.extend([v] * c)
            return check_result(label, fn(tuple(xs)), xs)

        return f

    return Query(label, prep, min_size=min_size)


QUERY_NAMES = ("count", "sum", "mean", "median", "percentile:P", "quantile:Q", "var",
               "var:1", "std", "std:1", "quantile-score:ALPHA:C1,C2,...")

_SIMPLE = {"count": lambda: count, "sum": lambda: sum_, "mean": lambda: mean,
           "median": lambda: median, "var": lambda: variance(0), "var:0": lambda: variance(0),
           "var:1": lambda: variance(1), "std": lambda: std(0), "std:0": lambda: std(0),
           "std:1": lambda: std(1)}


def parse_query(text: str) -> Query:
    """Parse a CLI query name: ``count``, ``sum``, ``mean``, ``median``,
    ``percentile:P[:METHOD]``, ``quantile:Q[:METHOD]``, ``var``, ``var:1``, ``std``,
    ``std:1``, and the vector ``quantile-score:ALPHA:C1,C2,...[:FORM]`` (seed 002's scores
    of the candidates for the ALPHA-quantile, FORM ``seed`` (default) or ``code``; see
    :mod:`exactdp.queries.scores`).

    >>> parse_query("percentile:25").name
    'percentile:25'
    >>> parse_query("quantile-score:1/2:0,1,2").name
    'quantile-score:1/2:0,1,2'
    """
    key = text.strip()
    if key in _SIMPLE:
        return _SIMPLE[key]()
    head, _, rest = key.partition(":")
    if head in ("percentile", "quantile") and rest:
        level, _, method = rest.partition(":")
        make = percentile if head == "percentile" else quantile
        return make(level, method or "linear")
    if head == "quantile-score":
        return _parse_quantile_score(text, rest)
    raise InvalidArgument(
        f"query={text!r} is not a known query; use one of {', '.join(QUERY_NAMES)} "
        f"(P in 0..100, Q in 0..1, METHOD one of {', '.join(QUANTILE_METHODS)})"
    )


def _parse_quantile_score(text: str, rest: str) -> Query:
    """``quantile-score:ALPHA:C1,C2,...[:FORM]`` after its head."""
    example = "e.g. quantile-score:1/2:0,1,2,3"
    parts = rest.split(":")
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise InvalidArgument(f"query={text!r} is not quantile-score:ALPHA:C1,C2,...[:FORM] "
                              f"(an exact level, the candidates, FORM seed or code); {example}")
    form = parts[2].strip() if len(parts) == 3 else "seed"
    if form not in ("seed", "code"):
        raise InvalidArgument(f"query={text!r}: form {form!r} is not seed or code (seed 002's "
                              f"formula or its Python); {example}:code")
    entries = [c.strip() for c in parts[1].split(",")]
    if any(not c for c in entries):
        raise InvalidArgument(f"query={text!r} has an empty candidate; give exact numbers "
                              f"separated by commas, {example}")
    return quantile_score(parts[0].strip(), entries, form)


def as_query(query: object, *, functions: bool = False) -> Query | GraphQuery:
    """The one reader of a query argument, for both engines: a :class:`Query` as it is, a
    name through :func:`parse_query`; with ``functions=True`` (the edit-graph engine,
    which sees a dataset's public form) also a :class:`~exactdp.queries.base.GraphQuery`
    as it is and any other function of the dataset wrapped by
    :func:`~exactdp.queries.base.make_query` under its ``__name__``."""
    if isinstance(query, str):
        return parse_query(query)
    if isinstance(query, Query):
        return query
    if functions:
        if isinstance(query, GraphQuery):
            return query
        if callable(query):
            return make_query(getattr(query, "__name__", "query"), query)
        raise InvalidArgument(
            f"query={query!r} is not a query; pass make_query(name, fn), a Query from "
            f"exactdp.queries, a query name such as 'sum', or a function of the dataset"
        )
    raise InvalidArgument(
        f"query={query!r} is not a Query; pass one from exactdp.queries or a name such as 'mean'"
    )
