"""Exact, run-length simulators of float summation models (private to the witness search).

Datasets are lists of runs ``(value, count)`` in data order, values held as integers in
units of the format's smallest subnormal ``2**(emin - p + 1)``, so every rounding is
integer arithmetic. A run of equal values is simulated by *jumps*: inside a stretch of
the number line where the format's values are equally spaced (``u`` apart), rounding
``s + v`` to nearest-even depends only on ``s mod 2u``, so once one addition of ``v``
changed ``s`` by ``d`` (with ``d`` a multiple of ``2u``, or ``v`` not a tie), every later
addition of ``v`` changes it by ``d`` again until ``s + v`` leaves the stretch. A run of
millions of records costs a few jumps per binade. The answers agree bit for bit with
:func:`exactdp.numeric.floatsum.float_sum` on the expanded data (tested).
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from typing import Sequence

from exactdp.numeric.floatformat import FloatFormat, FloatOverflow

Runs = Sequence[tuple[int, int]]

PAIRWISE_BLOCKSIZE = 128


class StepLimit(Exception):
    """An evaluation needed more single steps than allowed (the search skips it)."""


class Grid:
    """A format's values as integer multiples of its smallest subnormal."""

    def __init__(self, fmt: FloatFormat):
        self.fmt = fmt
        self.p = fmt.precision
        self.q = fmt.emin - fmt.precision + 1  # log2 of the unit
        self.max_units = ((1 << self.p) - 1) << (fmt.emax - fmt.emin)
        self.zone = 1 << self.p  # |m| <= zone: spacing 1 unit (subnormals, first binade)

    # -- conversions ------------------------------------------------------------------
    def units(self, x: Fraction) -> int:
        x = Fraction(x)
        if self.q <= 0:
            num, rem = divmod(x.numerator << -self.q, x.denominator)
        else:
            num, rem = divmod(x.numerator, x.denominator << self.q)
        if rem or abs(num) > self.max_units or self.round(num) != num:
            raise ValueError(f"x={x!r} is not a value of {self.fmt.name}")
        return num

    def value(self, m: int) -> Fraction:
        return Fraction(m << self.q) if self.q >= 0 else Fraction(m, 1 << -self.q)

    # -- rounding ---------------------------------------------------------------------
    def round(self, m: int) -> int:
        """The integer ``m`` (in units) rounded to the format, nearest, ties to even."""
        a = -m if m < 0 else m
        if a > self.zone:
            sh = a.bit_length() - self.p
            r = a >> sh
            rem = a - (r << sh)
            half = 1 << (sh - 1)
            if rem > half or (rem == half and r & 1):
                r += 1
            a = r << sh
            if a > self.max_units:
                raise FloatOverflow(
                    f"an intermediate sum {self.value(m)} overflows {self.fmt.name} "
                    f"(largest finite value {self.fmt.max_value})")
        return -a if m < 0 else a

    def ulp(self, m: int) -> int:
        a = abs(m)
        if a < self.zone:
            return 1
        return 1 << (a.bit_length() - self.p)

    def region(self, s: int, up: bool) -> tuple[int, int, int]:
        """``(a, b, u)``: a stretch ``[a, b]`` around ``s`` (extending in the direction of
        motion) on which the format's values are exactly the multiples of ``u``."""
        if not up:
            a, b, u = self.region(-s, True)
            return -b, -a, u
        if -self.zone <= s < self.zone:
            return -self.zone, self.zone, 1
        if s > 0:
            e = s.bit_length() - 1
            return 1 << e, min(1 << (e + 1), self.max_units), 1 << (e - self.p + 1)
        # s < -zone moving up (towards zero): 2**e < |s| <= 2**(e+1)
        e = (-s - 1).bit_length() - 1
        return -(1 << (e + 1)), -(1 << e), 1 << (e - self.p + 1)


class Counter:
    """Counts explicit single steps of one evaluation and stops it past ``limit``."""

    __slots__ = ("steps", "limit")

    def __init__(self, limit: int):
        self.steps = 0
        self.limit = limit

    def tick(self, k: int = 1) -> None:
        self.steps += k
        if self.steps > self.limit:
            raise StepLimit


def _jump(g: Grid, s: int, v: int, d: int, count: int) -> int:
    """How many additions of ``v`` from ``s`` are known to add exactly ``d`` each
    (``d = round(s + v) - s`` already computed, nonzero); 0 when none can be vouched for."""
    a, b, u = g.region(s, v > 0)
    t = s + v
    if not (a <= t <= b and a <= s <= b):
        return 0
    if 2 * ((t - a) % u) == u and (d // u) % 2:
        return 0  # a tie that changes the parity of s: the next increment differs
    if d > 0:
        k = (b - v - s) // d + 1
    else:
        k = (s + v - a) // (-d) + 1
    return max(0, min(k, count))


def seq_run(g: Grid, s: int, v: int, count: int, ctr: Counter) -> int:
    """``s`` after adding ``v`` ``count`` times, each sum rounded."""
    while count > 0:
        s1 = g.round(s + v)
        d = s1 - s
        if d == 0:
            return s  # absorbed: s never changes again
        k = _jump(g, s, v, d, count)
        if k <= 1:
            ctr.tick()
            s, count = s1, count - 1
        else:
            s, count = s + k * d, count - k
    return s


def sequential(g: Grid, runs: Runs, ctr: Counter) -> int:
    s = 0
    for v, c in runs:
        s = seq_run(g, s, v, c, ctr)
    return s


def kahan(g: Grid, runs: Runs, ctr: Counter) -> int:
    """Kahan summation, with two kinds of jumps.

    * Absorption: while ``s + y`` rounds back to ``s``, the compensation collects the
      records: with ``z = -c`` each step is ``z <- round(z + x)``, a sequential run,
      and its length is found by binary search.
    * Cycles: inside a stretch of equal spacing ``u`` a step depends on ``s`` only
      through ``s mod 2u``, so when ``(c, s mod 2u)`` repeats, the (macro-)steps in
      between repeat too; whole cycles are jumped while every sum they form stays in
      the stretch.
    """
    R = g.round
    s = c = 0
    for x, count in runs:
        seen: dict[tuple[int, int], int] = {}
        trace: list[tuple[int, int, int, int]] = []  # (s before, lowest, highest touched, steps)
        region = None
        cooldown = 0
        while count > 0:
            y = R(x - c)
            t = R(s + y)
            d = t - s
            cn = R(R(d) - y)
            if d == 0 and cn == c:
                break  # a fixed point: every further x leaves (s, c) unchanged
            if cn == c and d != 0:  # the same y again: a sequential jump
                k = _jump(g, s, y, d, count)
                if k > 1:
                    s, count = s + k * d, count - k
                    region, seen, trace, cooldown = None, {}, [], 0
                    continue
            reg = g.region(s, y > 0)
            if reg != region:
                region, seen, trace, cooldown = reg, {}, [], 0
            a, b, u = reg
            key = (c, (s - a) % (2 * u))
            if key in seen and len(trace) >= cooldown:
                i0 = seen[key]
                s0 = trace[i0][0]
                L = sum(e[3] for e in trace[i0:])
                D = s - s0
                if D == 0:  # (s, c) is back where it was: skip whole cycles
                    count %= L
                    seen, trace, cooldown = {}, [], 0
                    continue
                hi_ex = max(e[2] - s0 for e in trace[i0:])
                lo_ex = min(e[1] - s0 for e in trace[i0:])
                cycles = 0
                if s + lo_ex >= a and s + hi_ex <= b:
                    if D > 0:
                        cycles = (b - s - hi_ex) // D + 1
                    else:
                        cycles = (s + lo_ex - a) // (-D) + 1
                    cycles = min(cycles, count // L)
                if cycles > 1:
                    s, count = s + cycles * D, count - cycles * L
                    region, seen, trace, cooldown = None, {}, [], 0
                    continue
                cooldown = len(trace) + (len(trace) - i0)
            if len(trace) > 512:
                seen, trace, cooldown = {}, [], 0
            seen[key] = len(trace)
            if d == 0:
                # x is absorbed into s and collected in c: with z = -c each step is
                # z <- round(z + x), a sequential run, as long as s + z rounds to s.
                k = _absorbed_steps(g, s, -c, x, count, ctr)
                if k > 1:
                    z_end = seq_run(g, -c, x, k, ctr)
                    touched = (s + y, s + z_end, s)
                    if k < count:  # the step that ends the stretch (only if it happens)
                        touched += (s + seq_run(g, z_end, x, 1, ctr),)
                    trace.append((s, min(touched), max(touched), k))
                    c = -z_end
                    count -= k
                    continue
            trace.append((s, min(s, s + y), max(s, s + y), 1))
            ctr.tick()
            s, c, count = t, cn, count - 1
    return s


def _absorbed_steps(g: Grid, s: int, z: int, x: int, count: int, ctr: Counter) -> int:
    """The largest ``k <= count`` such that ``round(s + z_j) == s`` for ``z_j`` the run
    ``z`` plus ``j`` copies of ``x`` (``j = 1..k``); the ``z_j`` are monotone, so the
    condition holds for a prefix of ``j`` and a binary search finds it. A probe past the
    prefix may overflow (the real algorithm never computes it): that probe is just "no",
    since a sum that rounds back to ``s`` is within half a spacing of ``s``."""
    def ok(j: int) -> bool:
        try:
            return g.round(s + seq_run(g, z, x, j, ctr)) == s
        except FloatOverflow:
            return False
    if not ok(1):
        return 0
    lo, hi = 1, count
    if ok(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def neumaier(g: Grid, runs: Runs, ctr: Counter) -> int:
    R = g.round
    s = c = 0
    for x, count in runs:
        while count > 0:
            t = R(s + x)
            d = t - s
            if abs(s) >= abs(x):
                e = R(R(s - t) + x)
                if d != 0:
                    k = _jump(g, s, x, d, count)
                    # the branch must hold at the last step of the jump too (|s| is
                    # monotone along the jump, which stays on one side of zero)
                    if k > 1 and abs(s + (k - 1) * d) >= abs(x) and (s >= 0) == (s + (k - 1) * d >= 0):
                        c = seq_run(g, c, e, k, ctr)
                        s, count = s + k * d, count - k
                        continue
                elif e == 0:
                    break
                else:
                    c = seq_run(g, c, e, count, ctr)
                    break
            else:
                e = R(R(x - t) + s)
            ctr.tick()
            c = R(c + e)
            s, count = t, count - 1
    return R(s + c)


def fsum(g: Grid, runs: Runs, ctr: Counter) -> int:
    return g.round(sum(v * c for v, c in runs))


def _merged(runs: Runs, key) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for v, c in runs:
        if c:
            counts[v] = counts.get(v, 0) + c
    return [(v, counts[v]) for v in sorted(counts, key=key)]


def sorted_sum(g: Grid, runs: Runs, ctr: Counter) -> int:
    return sequential(g, _merged(runs, lambda v: v), ctr)


def sorted_magnitude(g: Grid, runs: Runs, ctr: Counter) -> int:
    return sequential(g, _merged(runs, lambda v: (abs(v), v)), ctr)


class _Pairwise:
    """NumPy's ``pairwise_sum`` on run-length data. Segments inside one run are memoised
    by ``(value, length)``, segments spanning runs by their run-length content (the sum of
    a segment depends only on its values in order), so data made of one repeated pattern,
    such as the eight-accumulator reordering construction, costs a few blocks per level."""

    def __init__(self, g: Grid, runs: Runs, ctr: Counter):
        self.g = g
        self.ctr = ctr
        self.runs = [(v, c) for v, c in runs if c > 0]
        self.starts = []
        pos = 0
        for _, c in self.runs:
            self.starts.append(pos)
            pos += c
        self.n = pos
        self.memo: dict[tuple[int, int], int] = {}
        self.content_memo: dict[tuple[tuple[int, int], ...], int] = {}

    def elements(self, lo: int, n: int) -> list[int]:
        out: list[int] = []
        i = bisect.bisect_right(self.starts, lo) - 1
        while len(out) < n:
            v, c = self.runs[i]
            take = min(self.starts[i] + c - max(lo, self.starts[i]), n - len(out))
            out.extend([v] * take)
            lo += take
            i += 1
        return out

    def block(self, a: list[int]) -> int:
        R = self.g.round
        n = len(a)
        self.ctr.tick(n)
        if n < 8:
            s = 0
            for v in a:
                s = R(s + v)
            return s
        r = a[:8]
        stop = n - n % 8
        for i in range(8, stop, 8):
            for j in range(8):
                r[j] = R(r[j] + a[i + j])
        s = R(R(R(r[0] + r[1]) + R(r[2] + r[3])) + R(R(r[4] + r[5]) + R(r[6] + r[7])))
        for i in range(stop, n):
            s = R(s + a[i])
        return s

    def uniform(self, v: int, n: int) -> int:
        key = (v, n)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        R = self.g.round
        if n < 8:
            out = seq_run(self.g, 0, v, n, self.ctr)
        elif n <= PAIRWISE_BLOCKSIZE:
            lane = seq_run(self.g, v, v, (n - n % 8) // 8 - 1, self.ctr)
            pair = R(lane + lane)
            quad = R(pair + pair)
            out = seq_run(self.g, R(quad + quad), v, n % 8, self.ctr)
        else:
            n2 = n // 2
            n2 -= n2 % 8
            out = R(self.uniform(v, n2) + self.uniform(v, n - n2))
        self.memo[key] = out
        return out

    def content(self, i: int, lo: int, n: int) -> tuple[tuple[int, int], ...]:
        """The runs of positions ``lo .. lo + n - 1`` (starting in run ``i``), clipped."""
        out = []
        end = lo + n
        while lo < end:
            v, c = self.runs[i]
            stop = min(self.starts[i] + c, end)
            out.append((v, stop - lo))
            lo = stop
            i += 1
        return tuple(out)

    def segment(self, lo: int, n: int) -> int:
        i = bisect.bisect_right(self.starts, lo) - 1
        v, c = self.runs[i]
        if lo + n <= self.starts[i] + c:
            return self.uniform(v, n)
        key = self.content(i, lo, n)
        hit = self.content_memo.get(key)
        if hit is not None:
            return hit
        if n <= PAIRWISE_BLOCKSIZE:
            out = self.block(self.elements(lo, n))
        else:
            n2 = n // 2
            n2 -= n2 % 8
            out = self.g.round(self.segment(lo, n2) + self.segment(lo + n2, n - n2))
        self.content_memo[key] = out
        return out

    def total(self) -> int:
        return 0 if self.n == 0 else self.segment(0, self.n)


def pairwise(g: Grid, runs: Runs, ctr: Counter) -> int:
    return _Pairwise(g, runs, ctr).total()


class _OpenDPPairwise(_Pairwise):
    """OpenDP's ``Pairwise<T>`` (the model ``opendp-pairwise``) on run-length data: no
    value -> 0, one value -> itself, else split at ``m = n // 2`` and add the two sums (no
    blocks, no accumulators). A run of ``n`` equal values has at most two distinct lengths
    per level, memoised by ``(value, length)``; segments spanning runs by their content."""

    def uniform(self, v: int, n: int) -> int:
        if n <= 1:
            return v if n == 1 else 0
        key = (v, n)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        m = n // 2
        self.ctr.tick()
        out = self.g.round(self.uniform(v, m) + self.uniform(v, n - m))
        self.memo[key] = out
        return out

    def segment(self, lo: int, n: int) -> int:
        i = bisect.bisect_right(self.starts, lo) - 1
        v, c = self.runs[i]
        if lo + n <= self.starts[i] + c:
            return self.uniform(v, n)
        key = self.content(i, lo, n)
        hit = self.content_memo.get(key)
        if hit is not None:
            return hit
        m = n // 2
        self.ctr.tick()
        out = self.g.round(self.segment(lo, m) + self.segment(lo + m, n - m))
        self.content_memo[key] = out
        return out


def opendp_pairwise(g: Grid, runs: Runs, ctr: Counter) -> int:
    return _OpenDPPairwise(g, runs, ctr).total()


SIMULATORS = {
    "sequential": sequential,
    "pairwise": pairwise,
    "kahan": kahan,
    "neumaier": neumaier,
    "fsum": fsum,
    "sorted": sorted_sum,
    "sorted-magnitude": sorted_magnitude,
    "opendp-pairwise": opendp_pairwise,  # a library model (floatsum.LIBRARY_MODELS)
}
ORDER_INDEPENDENT = frozenset({"fsum", "sorted", "sorted-magnitude"})


def simulate(model: str, g: Grid, runs: Runs, step_limit: int = 2_000_000) -> int:
    """The model's stored result (in units) on run-length data."""
    return SIMULATORS[model](g, runs, Counter(step_limit))
