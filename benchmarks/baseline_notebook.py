"""Brute-force baseline: the "Global Sensitivity From Scratch" notebook's algorithm,
re-implemented independently in exact arithmetic.

This is the reference that ``bench_engine.py`` times ``exactdp`` against. It follows the
notebook's *enumeration* exactly (see ``exactdp/data/seed003_tables.json``,
``"algorithms"``) but computes every query exactly (``fractions.Fraction``) instead of
with numpy floats, so its answers can be compared with exactdp's for equality.

Enumeration (as the notebook):

* **unbounded** ``(pool, n, k)``: every release ``R`` in ``itertools.combinations(pool, n)``
  (positional: records with equal values are distinct, so equal-valued releases are
  visited repeatedly). Its neighbours are the ``n - k`` sub-combinations of ``R``
  ("less") and ``R + c`` for ``c`` in ``combinations(pool - R, k)`` ("more", ``pool - R``
  the multiset difference). As the notebook's ``L1_norm_max``, each group of neighbours
  contributes ``max(|f(R) - min f|, |f(R) - max f|)``; the result is the maximum over
  every ``R`` and both groups.
* **bounded** ``(pool, n, k)``: every base ``B`` in ``combinations(pool, n - k)``; its
  group is ``B + c`` for ``c`` in ``combinations(pool - B, k)``; the result is the
  maximum over groups of ``|f(g_i) - f(g_j)|`` over every pair ``i < j`` of the group
  (quadratic in the group size). By default the query is evaluated on both members of
  every pair, as the notebook does (``run_query`` inside the double loop);
  ``cache_values=True`` evaluates each group member once instead (still quadratic
  pairs), a cheaper variant reported alongside.

Queries take a tuple of ints and return a ``Fraction``; ``std`` is handled through its
radicand (the population variance) and an exact comparison of square-root gaps done in
rational arithmetic, so no floats and no SymPy inside the loops. The final std value is
returned as a SymPy expression ``sqrt(a) - sqrt(b)``.

Differences from the notebook, on purpose: exact values instead of floats; a running
maximum instead of a list ``L1_norms`` of every norm (the notebook stores them all).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Callable, Sequence

__all__ = ["QUERIES", "unbounded", "bounded", "Stats", "exact_std_value"]


# -- exact queries on tuples of ints ----------------------------------------------------

def q_count(xs: Sequence[int]) -> Fraction:
    return Fraction(len(xs))


def q_sum(xs: Sequence[int]) -> Fraction:
    return Fraction(sum(xs))


def q_mean(xs: Sequence[int]) -> Fraction:
    return Fraction(sum(xs), len(xs))


def q_median(xs: Sequence[int]) -> Fraction:
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    if n % 2:
        return Fraction(s[mid])
    return Fraction(s[mid - 1] + s[mid], 2)


def q_var(xs: Sequence[int]) -> Fraction:
    """Population variance (numpy's ``np.var``, ddof=0), via deviations from the mean."""
    m = Fraction(sum(xs), len(xs))
    return sum(((x - m) ** 2 for x in xs), Fraction(0)) / len(xs)


def make_percentile(p: int) -> Callable[[Sequence[int]], Fraction]:
    """numpy's default ('linear') percentile, exactly: ``h = (n-1) p / 100``,
    ``x[floor h] + (h - floor h) (x[ceil h] - x[floor h])``."""
    pp = Fraction(p, 100)

    def q(xs: Sequence[int]) -> Fraction:
        s = sorted(xs)
        h = (len(s) - 1) * pp
        lo = h.numerator // h.denominator  # floor (h >= 0)
        frac = h - lo
        if frac == 0:
            return Fraction(s[lo])
        return s[lo] + frac * (s[lo + 1] - s[lo])

    q.__name__ = f"percentile_{p}"
    return q


# name -> (function, kind); kind "sqrt" means the function returns the radicand
QUERIES: dict[str, tuple[Callable[[Sequence[int]], Fraction], str]] = {
    "mean": (q_mean, "scalar"),
    "median": (q_median, "scalar"),
    "count": (q_count, "scalar"),
    "sum": (q_sum, "scalar"),
    "std": (q_var, "sqrt"),
    "var": (q_var, "scalar"),
    "p25": (make_percentile(25), "scalar"),
    "p50": (make_percentile(50), "scalar"),
    "p75": (make_percentile(75), "scalar"),
    "p90": (make_percentile(90), "scalar"),
}


# -- exact comparison of square-root gaps -------------------------------------------

def _sgn(x) -> int:
    return (x > 0) - (x < 0)


def _sign_lin(a: Fraction, b: Fraction, r: Fraction) -> int:
    """Sign of ``a + b*sqrt(r)`` for rationals ``a``, ``b`` and ``r >= 0``."""
    sa = _sgn(a)
    sb = 0 if r == 0 else _sgn(b)
    if sb == 0:
        return sa
    if sa == 0 or sa == sb:
        return sb
    # opposite signs: the larger magnitude wins
    return sa * _sgn(a * a - b * b * r)


def _cmp_root_sums(p, q, r, s) -> int:
    """Sign of ``(sqrt(p) + sqrt(q)) - (sqrt(r) + sqrt(s))``, all radicands >= 0."""
    # both sides are >= 0, so compare their squares:
    # p + q + 2 sqrt(pq)  vs  r + s + 2 sqrt(rs);  t + sqrt(P) - sqrt(Q), t = p+q-r-s
    t = p + q - r - s
    big_p, big_q = 4 * p * q, 4 * r * s
    left = _sign_lin(t, Fraction(1), big_p)  # sign of t + sqrt(P)
    if left < 0:
        return -1  # a negative number is below sqrt(Q) >= 0
    # t + sqrt(P) >= 0 and sqrt(Q) >= 0: compare squares
    # (t + sqrt(P))^2 - Q = (t^2 + P - Q) + 2t sqrt(P)
    return _sign_lin(t * t + big_p - big_q, 2 * t, big_p)


class _MaxGap:
    """Running maximum of ``|f(x) - f(y)|`` (scalar) or ``|sqrt(a) - sqrt(b)|`` (sqrt)."""

    __slots__ = ("kind", "best", "hi", "lo", "comparisons")

    def __init__(self, kind: str):
        self.kind = kind
        self.best = None  # scalar: Fraction gap
        self.hi = self.lo = None  # sqrt: radicands with gap sqrt(hi) - sqrt(lo)
        self.comparisons = 0

    def offer(self, a: Fraction, b: Fraction) -> None:
        self.comparisons += 1
        if self.kind == "scalar":
            d = abs(a - b)
            if self.best is None or d > self.best:
                self.best = d
            return
        hi, lo = (a, b) if a >= b else (b, a)
        if self.hi is None:
            self.hi, self.lo = hi, lo
            return
        # sqrt(hi) - sqrt(lo) > sqrt(H) - sqrt(L)  <=>  sqrt(hi) + sqrt(L) > sqrt(H) + sqrt(lo)
        if _cmp_root_sums(hi, self.lo, self.hi, lo) > 0:
            self.hi, self.lo = hi, lo

    def value(self):
        if self.kind == "scalar":
            return self.best
        if self.hi is None:
            return None
        return exact_std_value(self.hi, self.lo)


def exact_std_value(hi: Fraction, lo: Fraction):
    """``sqrt(hi) - sqrt(lo)`` as a SymPy number (a Rational when rational)."""
    import sympy

    return sympy.sqrt(sympy.Rational(hi.numerator, hi.denominator)) - sympy.sqrt(
        sympy.Rational(lo.numerator, lo.denominator))


class Stats:
    """What a baseline run did: datasets enumerated, query evaluations, pair norms."""

    def __init__(self):
        self.datasets = 0
        self.evaluations = 0
        self.norms = 0

    def __repr__(self) -> str:
        return f"Stats(datasets={self.datasets}, evaluations={self.evaluations}, norms={self.norms})"


def _remaining(pool: Sequence[int], used: Sequence[int]) -> list[int]:
    """The multiset ``pool - used`` as a list (the notebook's Counter difference)."""
    return list((Counter(pool) - Counter(used)).elements())


def _check(pool: Sequence[int], n: int, k: int) -> None:
    # the notebook's verify_sensitivity_inputs, in its order
    big = len(pool)
    if big < n:
        raise ValueError("the pool cannot be smaller than the release")
    if k >= n:
        raise ValueError("k must be smaller than the release size n")
    if k > abs(big - n):
        raise ValueError("k is larger than len(pool) - n: not enough records to add")
    if k == 0:
        raise ValueError("k cannot be 0")


# -- the two algorithms ---------------------------------------------------------------

def unbounded(pool: Sequence[int], n: int, k: int, query: str, stats: Stats | None = None):
    """Unbounded sensitivity: releases of size ``n``, neighbours with exactly ``k``
    records removed or exactly ``k`` records added from the rest of the pool."""
    _check(pool, n, k)
    f, kind = QUERIES[query]
    st = stats if stats is not None else Stats()
    gap = _MaxGap(kind)
    for release in itertools.combinations(pool, n):
        st.datasets += 1
        fr = f(release)
        st.evaluations += 1
        less = [f(sub) for sub in itertools.combinations(release, n - k)]
        rest = _remaining(pool, release)
        more = [f(release + extra) for extra in itertools.combinations(rest, k)]
        st.evaluations += len(less) + len(more)
        st.datasets += len(less) + len(more)
        for group in (less, more):
            if group:  # L1_norm_max: the extreme neighbours of the group
                gap.offer(fr, min(group))
                gap.offer(fr, max(group))
    st.norms = gap.comparisons
    return gap.value()


def bounded(pool: Sequence[int], n: int, k: int, query: str, stats: Stats | None = None,
            cache_values: bool = False):
    """Bounded sensitivity: groups ``B + c`` sharing an ``n - k`` base, every pair of a
    group compared (they differ in at most ``k`` records)."""
    _check(pool, n, k)
    f, kind = QUERIES[query]
    st = stats if stats is not None else Stats()
    gap = _MaxGap(kind)
    offer = gap.offer
    for base in itertools.combinations(pool, n - k):
        rest = _remaining(pool, base)
        group = [base + extra for extra in itertools.combinations(rest, k)]
        st.datasets += len(group)
        m = len(group)
        if cache_values:
            vals = [f(g) for g in group]
            st.evaluations += m
            for i in range(m - 1):
                vi = vals[i]
                for j in range(i + 1, m):
                    offer(vi, vals[j])
        else:  # as the notebook: run_query on both members of every pair
            for i in range(m - 1):
                gi = group[i]
                for j in range(i + 1, m):
                    offer(f(gi), f(group[j]))
            st.evaluations += m * (m - 1)
    st.norms = gap.comparisons
    return gap.value()


def check_against_notebook(path: str | None = None) -> tuple[int, list[str]]:
    """Recompute every value the notebook printed (``exactdp/data/seed003_tables.json``,
    ``"tables"``) and compare with the printed float to 1e-9 relative."""
    import json
    import os

    if path is None:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "exactdp", "data", "seed003_tables.json")
    with open(path) as fh:
        data = json.load(fh)
    names = {"percentile_25": "p25", "percentile_50": "p50", "percentile_75": "p75",
             "percentile_90": "p90"}
    bad = []
    for row in data["tables"]:
        run = data["runs"][row["scenario"]]
        if "value_ranges" in run:  # scenario (b): the notebook's [1, 2]*4, list replication
            pool = list(run["value_ranges"][row["column"]]) * run["release_size"]
        else:
            pool = run["universe"][row["column"]]
        fn = unbounded if row["mode"] == "unbounded" else bounded
        value = fn(pool, run["release_size"], row["k"], names.get(row["query"], row["query"]))
        approx = float(value.evalf(30)) if hasattr(value, "evalf") else float(value)
        printed = float(row["value"])
        if abs(approx - printed) > 1e-9 * max(1.0, abs(printed)):
            bad.append(f"{row}: baseline {value} = {approx!r}")
    return len(data["tables"]), bad


if __name__ == "__main__":  # self-check: reproduce every value the notebook printed
    import time

    t0 = time.perf_counter()
    total, bad = check_against_notebook()
    for line in bad:
        print("DIFFERS", line)
    print(f"{total} printed notebook values recomputed exactly, {len(bad)} differ "
          f"(float tolerance 1e-9), {time.perf_counter() - t0:.1f} s")
