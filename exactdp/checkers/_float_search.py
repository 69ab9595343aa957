"""The search behind :func:`exactdp.checkers.float_witness.search_float_witness`.

Everything here works in integer units of the format's smallest subnormal (see
:mod:`exactdp.checkers._float_sim`). A candidate is a pair of neighbouring datasets in
run-length form. Most candidates *share the order* of their common records: a base
sequence of runs with a slot at position ``pos``; ``x`` has ``slot_a`` there and ``x'``
has ``slot_b`` (add/remove: ``slot_a`` is empty and ``slot_b`` holds the added records;
substitute: both hold ``k`` records). Reordering candidates give ``x`` and ``x'`` their
own orders.

The search (:func:`run_search`) evaluates the constructions first, each derived in its
docstring: :func:`cascade` (doubles the gap between the partial sums of ``x`` and ``x'``
in every binade: sequential sums), :func:`straddle` (one binade crossing with a few
records; NumPy's 8 accumulators), :func:`filled_straddle` (the crossing at a large
partial sum: compensated and pairwise sums), :func:`reorder` (large records first in
one dataset, last in the other), :func:`lanes` (NumPy's eight accumulators under
reordering) and :func:`halving` (ties in OpenDP's halving tree, ``opendp-pairwise``, under
reordering; the other families assume no block structure and serve it as they are). Then :func:`climb`: seeded hill climbing on the exact difference from the
five best constructions and from random starts, mixing random mutations, coordinate
sweeps (:func:`sweep`) and a few downhill moves, until a violation or the end of the
budget; with ``maximize`` the whole budget is spent and the largest difference kept.
"""

from __future__ import annotations

import dataclasses
import math
import random
from fractions import Fraction
from typing import Callable, Iterator, Sequence

from exactdp.checkers._float_sim import (
    ORDER_INDEPENDENT, PAIRWISE_BLOCKSIZE, Counter, Grid, StepLimit, seq_run, simulate,
)
from exactdp.errors import ExactDPError

Runs = tuple[tuple[int, int], ...]

STEP_LIMIT = 5_000
"""Single (un-jumped) additions allowed in one evaluation; beyond, the candidate is skipped."""


@dataclasses.dataclass(frozen=True)
class Candidate:
    """Two neighbouring datasets; ``shared_order`` when they come from one base sequence."""

    x: Runs
    x_prime: Runs
    shared_order: bool
    construction: str


@dataclasses.dataclass(frozen=True)
class Slotted:
    """A base sequence with a slot: the shape the hill-climber mutates."""

    base: Runs
    pos: int
    slot_a: Runs
    slot_b: Runs
    construction: str

    def candidate(self) -> Candidate:
        before, after = self.base[:self.pos], self.base[self.pos:]
        return Candidate(_compact(before + self.slot_a + after),
                         _compact(before + self.slot_b + after), True, self.construction)


def _compact(runs) -> Runs:
    out: list[list[int]] = []
    for v, c in runs:
        if c <= 0:
            continue
        if out and out[-1][0] == v:
            out[-1][1] += c
        else:
            out.append([v, c])
    return tuple((v, c) for v, c in out)


def size(runs: Runs) -> int:
    return sum(c for _, c in runs)


@dataclasses.dataclass
class Context:
    """The search problem in units, and the running tally."""

    model: str
    grid: Grid
    lo: int
    hi: int
    max_n: int
    neighbors: str
    d_in: int
    claim_units: Fraction
    budget: int
    allow_reorder: bool
    progress: Callable[[int, int], None] | None = None
    maximize: bool = False
    evaluations: int = 0
    skipped: int = 0
    invalid: int = 0
    best: tuple[int, Candidate, int, int] | None = None  # (diff, cand, fx, fx')
    first: tuple[int, Candidate, int, int] | None = None  # the first violation seen

    def valid(self, cand: Candidate) -> bool:
        for runs in (cand.x, cand.x_prime):
            if size(runs) > self.max_n:
                return False
            for v, c in runs:
                if c < 0 or not (self.lo <= v <= self.hi) or self.grid.round(v) != v:
                    return False  # outside the bounds, or not a value of the format
        return True

    def evaluate(self, cand: Candidate) -> int | None:
        """``|f(x') - f(x)|`` in units; None when skipped (invalid, overflow, too slow)."""
        if self.evaluations >= self.budget:
            raise _BudgetSpent
        if not self.valid(cand):
            self.invalid += 1
            if self.invalid > 20 * self.budget:  # e.g. max_n leaves no room: stop anyway
                raise _BudgetSpent
            return None
        self.evaluations += 1
        if self.progress is not None:
            self.progress(self.evaluations, self.budget)
        try:
            fx = simulate(self.model, self.grid, cand.x, STEP_LIMIT)
            fy = simulate(self.model, self.grid, cand.x_prime, STEP_LIMIT)
        except (StepLimit, OverflowError):
            self.skipped += 1
            return None
        diff = abs(fy - fx)
        if self.first is None and diff > self.claim_units:
            self.first = (diff, cand, fx, fy)
        if self.best is None or diff > self.best[0] or (
                diff == self.best[0] and _cost(cand) < _cost(self.best[1])):
            self.best = (diff, cand, fx, fy)
        return diff

    def violated(self) -> bool:
        return self.best is not None and self.best[0] > self.claim_units

    def done(self) -> bool:
        """Stop searching: a violation was found and the search does not maximize."""
        return not self.maximize and self.violated()


def _cost(cand: Candidate) -> tuple[int, int]:
    return (size(cand.x) + size(cand.x_prime), len(cand.x) + len(cand.x_prime))


class _BudgetSpent(ExactDPError):
    pass


# -- helpers on values in units --------------------------------------------------------------

def _pow2_at_most(m: int) -> int:
    return 1 << (m.bit_length() - 1)


def _spacing_below(g: Grid, P: int) -> int:
    """Spacing of the format just below the power of two ``P`` (units)."""
    return max(1, P >> g.p)


def _slots(ctx: Context, top: int, k: int) -> tuple[Runs, Runs]:
    """The neighbouring slot: ``k`` added copies of ``top``, or ``k`` records ``lo -> top``."""
    if ctx.neighbors == "add-remove":
        return (), ((top, k),)
    return ((ctx.lo, k),), ((top, k),)


# -- constructive families -----------------------------------------------------------------------

def cascade(ctx: Context) -> Iterator[Slotted]:
    """Binade-straddling cascade (sequential summation, values of one sign).

    Put the neighbouring record(s) first, so ``x'`` runs ahead of ``x`` by a gap
    ``g``. Fill both with copies of the largest power of two ``F <= U`` until ``x'``
    sits exactly on a power of two ``P`` and ``x`` just below it, at ``P - g``. Then add
    copies of ``w = 1.25 u``, where ``u`` is the spacing just below ``P``: in ``x`` every
    ``w`` rounds *down* to ``u`` (``w < 1.5 u``), in ``x'``, whose spacing is ``2u``, it
    rounds *up* to ``2u``. After ``g/u`` of them ``x`` reaches ``P`` and ``x'`` is at
    ``P + 2g``: the gap has doubled. Fill up to ``2P`` and repeat: every binade doubles
    the gap, until ``w`` would exceed ``U``. With float32 and bounds ``[0, 1]`` the
    difference is ``2**j`` for about ``2**(24 - k) * j + 2**(k + j)`` records.
    Starting binades are varied so that one of the cascades fits ``max_n``.
    """
    g = ctx.grid
    if ctx.hi <= 0:
        return
    F = _pow2_at_most(ctx.hi)
    ctr_limit = 10 * STEP_LIMIT
    for k in sorted({1, ctx.d_in}):
        for top in sorted({F, ctx.hi}):
            slot_a, slot_b = _slots(ctx, top, k)
            try:
                ctr = Counter(ctr_limit)
                sx0 = seq_run(g, 0, slot_a[0][0], k, ctr) if slot_a else 0
                sy0 = seq_run(g, 0, top, k, ctr)
            except (OverflowError, StepLimit):
                continue
            if sy0 <= sx0:
                continue
            first = 1 << max(sy0, 1).bit_length()
            for shift in range(0, 64):
                P = first << shift
                if (P - sy0) // F + k > ctx.max_n:
                    break
                # one aligning record so that x' can land exactly on P with copies of F
                r = (P - sy0) % F
                runs: list[tuple[int, int]] = [(r, 1)] if r else []
                if r and not (ctx.lo <= r <= ctx.hi and g.round(r) == r):
                    continue
                start = P.bit_length() - 1 + g.q
                best = None
                try:
                    ctr = Counter(ctr_limit)
                    sx = seq_run(g, sx0, r, 1, ctr) if r else sx0
                    sy = seq_run(g, sy0, r, 1, ctr) if r else sy0
                    n = k + (1 if r else 0)
                    while True:
                        if (P - sy) % F or P < sy:
                            break
                        cnt = (P - sy) // F
                        u = _spacing_below(g, P)
                        if u < 4:
                            break
                        w = u + u // 4
                        if w > ctx.hi or w < ctx.lo:
                            break
                        fx = seq_run(g, sx, F, cnt, ctr)
                        fy = seq_run(g, sy, F, cnt, ctr)
                        if not (fx < P <= fy):
                            break
                        steps = -((fx - P) // u)
                        if n + cnt + steps > ctx.max_n:
                            break
                        sx = seq_run(g, fx, w, steps, ctr)
                        sy = seq_run(g, fy, w, steps, ctr)
                        runs += [(F, cnt), (w, steps)]
                        n += cnt + steps
                        best = tuple(runs)
                        P <<= 1
                except (OverflowError, StepLimit):
                    pass
                if best:
                    yield Slotted(best, 0, slot_a, slot_b, f"cascade from 2^{start}")


def straddle(ctx: Context) -> Iterator[Slotted]:
    """One binade crossing, few records (works for every order-dependent model).

    ``x`` starts with ``a`` just below a power of two ``P`` and ``x'`` with ``F + a``
    at or above it (``F`` the added record). The following small values ``w``, between
    one and one and a half spacings of ``a``'s binade, round down in ``x`` and up in
    ``x'``, so each adds up to one spacing to the difference; ``w`` just above half a
    spacing is tried too. Copies of ``a`` are repeated 1 or 8 times (NumPy's pairwise sum
    gives each of its 8 accumulators one), and the record is put first, last, or after
    the ``a`` block, to shift or not shift the accumulators' share of the data.
    """
    g = ctx.grid
    if ctx.hi <= 0:
        return
    F = _pow2_at_most(ctx.hi)
    for P in (F, 2 * F):
        if P < 8:
            continue
        for a in (P - F // 2, P - F // 4, P - _spacing_below(g, P)):
            if not (ctx.lo <= a <= ctx.hi) or a <= 0 or g.round(a) != a:
                continue
            ua = g.ulp(a)
            for w in (ua + ua // 4, ua // 2 + max(1, ua // 8)):
                if w <= 0 or not (ctx.lo <= w <= ctx.hi) or g.round(w) != w:
                    continue
                for ca in (1, 8):
                    for m in (5, 15, 119, 1 << 16):
                        if ca + m + ctx.d_in > ctx.max_n:
                            continue
                        base = ((a, ca), (w, m))
                        for k, top in sorted({(1, F), (ctx.d_in, F), (1, ctx.hi)}):
                            slot_a, slot_b = _slots(ctx, top, k)
                            for pos in (0, 2):
                                yield Slotted(base, pos, slot_a, slot_b,
                                              f"straddle (a={ctx_value(ctx, a)}, w={ctx_value(ctx, w)})")


def filled_straddle(ctx: Context) -> Iterator[Slotted]:
    """The straddle at a large partial sum (compensated sums).

    ``N`` copies of ``F`` bring ``x`` to ``P - F`` and ``x'`` (one more ``F``) exactly
    to a power of two ``P``; then a few values ``w`` near half or one and a quarter of
    the spacing ``u`` below ``P``. Kahan and Neumaier compensate the rounding of long
    runs, but not the final one: what is left in the compensation of ``x`` and of ``x'``
    differs by up to one spacing at ``P``, which grows with ``N`` (about ``N F 2**-p``).
    """
    g = ctx.grid
    if ctx.hi <= 0:
        return
    F = _pow2_at_most(ctx.hi)
    P = 4 * F
    while P // F + 16 <= ctx.max_n:
        u = _spacing_below(g, P)
        N = P // F - 1
        slot_a, slot_b = _slots(ctx, F, 1)
        for w in (u // 2 + max(1, u // 8), u + u // 4):
            if w <= 0 or not (ctx.lo <= w <= ctx.hi) or g.round(w) != w:
                continue
            for m in (1, 3, 15):
                yield Slotted(((F, N), (w, m)), 0, slot_a, slot_b,
                              f"filled straddle (P=2^{P.bit_length() - 1 + g.q})")
        P <<= 1


def ctx_value(ctx: Context, m: int) -> str:
    v = ctx.grid.value(m)
    return float(v).hex() if ctx.grid.p <= 53 and abs(v) < 2 ** 1000 else str(v)


def reorder(ctx: Context) -> Iterator[Candidate]:
    """Reordering (only when ``x`` and ``x'`` may have their own orders).

    ``x`` puts ``N`` large records first, so the partial sum is so big that the ``m``
    small records after it are absorbed (each below half a spacing, or a tie rounding
    to even); ``x'`` holds the same records plus one, small ones first, where they add
    up exactly. The difference is about ``m`` times the small value, far beyond any
    claim that ignores the order in which a library reads its data.
    """
    g = ctx.grid
    if ctx.hi <= 0 or not ctx.allow_reorder or ctx.model in ORDER_INDEPENDENT:
        return
    F = _pow2_at_most(ctx.hi)
    for j in range(g.p - 2, g.p + 40):
        N = 1 << j
        if N >= ctx.max_n:
            break
        top = N * F
        half = _spacing_below(g, 2 * top) // 2  # half the spacing on [top, 2 top)
        for w in (half, half - g.ulp(half - 1) if half > 1 else half):
            if not (ctx.lo <= w <= ctx.hi) or w <= 0:
                continue
            m = ctx.max_n - N - ctx.d_in
            if m <= 0:
                continue
            slot_a, slot_b = _slots(ctx, F, ctx.d_in)
            x = _compact(slot_a + ((F, N), (w, m)))
            y = _compact(((w, m),) + slot_b + ((F, N),))
            yield Candidate(x, y, False, f"reorder (large first vs small first, N={N})")


MAX_LANE_BLOCKS = 1 << 13
"""Most blocks of 128 the eight-accumulator construction builds (about a million records,
16,384 runs per dataset)."""


def lanes(ctx: Context) -> Iterator[Candidate]:
    """NumPy's eight accumulators under reordering (pairwise, when orders may differ).

    NumPy's pairwise sum cuts an array of ``n = 128 K`` values (``K`` a power of two) into
    ``K`` aligned blocks of 128 and sums each with 8 interleaved accumulators:
    accumulator ``i`` adds the values at positions ``i, i + 8, ..., i + 120`` in turn,
    16 values. Take ``B`` the largest power of two ``<= U``, ``u`` its spacing, and
    ``j = 8``: every block of ``x`` holds ``8 j`` copies of ``B`` and then ``8 (16 - j)``
    copies of ``w = j u / 2``, half a spacing of ``j B``. Each accumulator of ``x`` reaches
    ``j B`` and then absorbs its ``16 - j`` copies of ``w`` (ties to ``j B``'s even
    mantissa), so the block sums to ``8 j B`` and every ``w`` is lost. ``x'`` holds the same
    records, each block reordered to the ``w`` first, then the ``B`` (plus the neighbouring
    record, ``U``, at the very end, where it does not shift the blocks): each accumulator sums its
    ``w`` exactly to ``(16 - j) j u / 2`` (``32 u``), and adding the ``B`` one by one keeps
    that remainder exactly, because it is a multiple of the spacing at every partial sum
    up to ``j B``. So each block of ``x'`` exceeds its twin in ``x`` by exactly
    ``8 (16 - j) j u / 2 = 256 u`` (the largest over ``j``), the exact tree above adds the
    blocks without loss, and the difference is ``256 K u`` on top of the neighbouring
    record: it grows with the number of blocks, beyond any claim that ignores the order of
    the data. ``j = 1`` (one ``B`` per accumulator, then ``w`` half a spacing of ``B``, or
    just below) is tried too, with ``B = U`` when ``U`` is not a power of two. With fewer
    than 128 records to spare, one block of ``8 m`` values (``m`` per accumulator) is
    used; at most :data:`MAX_LANE_BLOCKS` blocks.
    """
    g = ctx.grid
    if ctx.model != "pairwise" or not ctx.allow_reorder or ctx.hi <= 0:
        return
    room = ctx.max_n - ctx.d_in
    if room >= PAIRWISE_BLOCKSIZE:
        m = PAIRWISE_BLOCKSIZE // 8
        counts = sorted({1, _pow2_at_most(min(room // PAIRWISE_BLOCKSIZE, MAX_LANE_BLOCKS))}, reverse=True)
    elif room >= 16:
        m, counts = room // 8, [1]
    else:
        return
    F = _pow2_at_most(ctx.hi)
    shapes = [(F, _pow2_at_most(m // 2))] + [(B, 1) for B in sorted({F, ctx.hi}, reverse=True)]
    seen = set()
    for B, j in shapes:
        u = g.ulp(B)
        if u < 4 or (B, j) in seen:
            continue
        seen.add((B, j))
        half = j * u // 2
        for w in (half, half - g.ulp(half - 1)):
            if w <= 0 or not (ctx.lo <= w <= ctx.hi) or g.round(w) != w:
                continue
            slot_a, slot_b = _slots(ctx, ctx.hi, ctx.d_in)
            for K in counts:
                absorb = ((B, 8 * j), (w, 8 * (m - j))) * K
                exact = ((w, 8 * (m - j)), (B, 8 * j)) * K
                yield Candidate(_compact(absorb + slot_a), _compact(exact + slot_b), False,
                                f"eight accumulators reordered ({K:,} block{'s' if K > 1 else ''} of "
                                f"{8 * m}, {j} B={ctx_value(ctx, B)} per accumulator first vs "
                                f"w={ctx_value(ctx, w)} first)")
            if j > 1:
                break  # the tie is the construction; the value below it is for j = 1


HALVING_DOWN = (0, 1, 0, 2, 0, 1, 2, 2)
HALVING_UP = (2, 1, 2, 0, 2, 1, 0, 0)
"""Eight offsets (in spacings ``u`` above a power of two ``B``) in two orders of one
multiset: OpenDP's halving tree rounds the first to ``8B`` and the second to ``8B + 16u``
(exact sum ``8B + 8u``); the largest spread over every order of every multiset of eight
offsets below 8 (found by enumeration)."""


MAX_HALVING_PATTERNS = 8
"""Most copies of the eight-run pattern :func:`halving` builds (64 runs; longer runs
reach the same spread per record at less cost)."""


def halving(ctx: Context) -> Iterator[Slotted | Candidate]:
    """Ties in OpenDP's halving tree (``opendp-pairwise``): along one path, and under
    reordering.

    Spine: ``2**h - k`` copies of a value ``v`` with an odd last mantissa bit (``U``, or
    ``B + u``), then the ``k`` neighbouring records (``L`` in ``x``, ``U`` in ``x'``; or
    nothing in ``x``). The copies add up exactly in both; along the rightmost path every
    node of ``x`` meets a sum one odd spacing away from its sibling, a tie, rounded the
    same way at every level, so ``x`` loses about one spacing of the total (``n u``) and
    ``x'`` nothing. With bounds ``(2**52, 2**52 + 1)`` this is the largest difference over
    every dataset of up to 16 records (enumerated).

    Reordering (orders free):
    ``Pairwise<T>`` splits at ``n // 2`` down to single values, so with ``n`` a power of
    two every node adds two sums of ``2**l`` values. Take values ``B + r u`` (``B`` a power
    of two, ``u`` its spacing, ``r`` in 0..2): below ``2B`` every partial sum of ``2**l``
    of them lies in ``[2**l B, 2**(l+1) B)``, where the spacing is ``2**l u``, so a node's
    rounding depends only on the offsets, and a tie goes down or up with the parity of the
    quotient. :data:`HALVING_DOWN` and :data:`HALVING_UP` order one multiset of eight
    offsets so that the tree loses ``8u`` in one and gains ``8u`` in the other; runs of
    ``2**j`` equal values act as one value scaled by ``2**j`` (their sums are exact), and
    ``K`` copies of the pattern add up exactly, so ``x`` (down) and ``x'`` (up, plus the
    neighbouring record at the end, where it moves only the rightmost path of the tree)
    differ by about ``2u`` per record: ``2 n u``. Every ``j``, with ``K`` the largest
    power of two that fits ``max_n`` (at most :data:`MAX_HALVING_PATTERNS`) and ``K = 1``,
    is tried, longest runs first.
    """
    g = ctx.grid
    if ctx.model != "opendp-pairwise" or ctx.hi <= 0:
        return
    B = _pow2_at_most(ctx.hi)
    u = g.ulp(B)
    room = ctx.max_n - ctx.d_in
    for k in sorted({1, ctx.d_in}):
        slot_a, slot_b = _slots(ctx, ctx.hi, k)
        for v in sorted({ctx.hi, B + u}, reverse=True):
            if not (ctx.lo <= v <= ctx.hi) or g.round(v) != v:
                continue
            for h in range(max(room + k, 2).bit_length() - 1, 0, -1):
                N = (1 << h) - k
                if N < 1 or N + k > ctx.max_n:
                    continue
                for pos in (1, 0):
                    yield Slotted(((v, N),), pos, slot_a, slot_b,
                                  f"halving-tree spine (2^{h} records, v={ctx_value(ctx, v)})")
                if h < room.bit_length() - 3:
                    break  # the spine grows with n: the three largest trees suffice
    if not ctx.allow_reorder or B < ctx.lo or B + 2 * u > ctx.hi or g.round(B + 2 * u) != B + 2 * u:
        return
    slot_a, slot_b = _slots(ctx, ctx.hi, ctx.d_in)
    for j in range(max(room, 8).bit_length() - 1, -1, -1):
        run = 1 << j
        if 8 * run > room:
            continue
        K = min(_pow2_at_most(room // (8 * run)), MAX_HALVING_PATTERNS)
        for k in sorted({K, 1}, reverse=True):
            down = tuple((B + r * u, run) for r in HALVING_DOWN) * k
            up = tuple((B + r * u, run) for r in HALVING_UP) * k
            text = (f"halving-tree ties reordered ({k:,} x 8 runs of {run:,}, B={ctx_value(ctx, B)})")
            yield Candidate(_compact(down + slot_a), _compact(up + slot_b), False, text)
            yield Candidate(_compact(up + slot_a), _compact(down + slot_b), False, text + " (mirrored)")


# -- randomized hill climbing ---------------------------------------------------------------------

def palette(ctx: Context) -> list[int]:
    """Values worth trying: bounds, powers of two and their neighbours, 1.25/1.5/1.75 times."""
    g = ctx.grid
    top = max(abs(ctx.lo), abs(ctx.hi), 1)
    e_hi = top.bit_length()
    e_lo = max(0, e_hi - g.p - max(ctx.max_n, 2).bit_length() - 4)
    out = {ctx.lo, ctx.hi}
    if ctx.lo <= 0 <= ctx.hi:
        out.add(0)
    for e in range(e_lo, e_hi + 1):
        P = 1 << e
        for m in (P, P + P // 4, P + P // 2, P + 3 * P // 4, P + g.ulp(P), P - g.ulp(P - 1) if P > 1 else P):
            for s in (m, -m):
                if ctx.lo <= s <= ctx.hi and g.round(s) == s:
                    out.add(s)
    return sorted(out)


def _neighbour_value(ctx: Context, v: int, rng: random.Random, pal: list[int]) -> int:
    try:
        return ctx.grid.round(_raw_neighbour_value(ctx, v, rng, pal))
    except OverflowError:
        return v


def _raw_neighbour_value(ctx: Context, v: int, rng: random.Random, pal: list[int]) -> int:
    g = ctx.grid
    r = rng.random()
    if r < 0.35:
        return rng.choice(pal)
    if r < 0.6:
        step = g.ulp(v) if v >= 0 else g.ulp(v - 1)
        return v + step * rng.choice((-1, 1)) * rng.choice((1, 1, 2, 3))
    if r < 0.8:
        return v * 2 if rng.random() < 0.5 else v // 2
    return g.round(v + rng.choice(pal) // 4)


def _relative_to_partial_sum(ctx: Context, prefix, rng: random.Random) -> int | None:
    """A value tuned to the spacing ``u`` at the partial sum before a run: just above
    ``u/2`` (rounded up to ``u``), ``u/2`` (a tie), ``1.25 u`` or ``1.5 u``."""
    g = ctx.grid
    try:
        total = 0
        ctr = Counter(STEP_LIMIT)
        for v, c in prefix:
            total = seq_run(g, total, v, c, ctr)
    except (OverflowError, StepLimit):
        return None
    u = g.ulp(total)
    if u < 8:
        return None
    v = rng.choice((u // 2 + u // 8, u // 2, u + u // 4, u + u // 2, u // 2 + g.ulp(u // 2)))
    v = v if total >= 0 else -v
    return v if ctx.lo <= v <= ctx.hi and g.round(v) == v else None


def _neighbour_count(c: int, rng: random.Random, max_n: int) -> int:
    r = rng.random()
    if r < 0.25:
        return c * 2
    if r < 0.5:
        return max(1, c // 2)
    if r < 0.75:
        return max(1, c + rng.choice((-8, -1, 1, 8)))
    return max(1, int(math.exp(rng.uniform(0, math.log(max(max_n, 2))))))


def mutate(ctx: Context, s: Slotted, rng: random.Random, pal: list[int]) -> Slotted:
    base = [list(r) for r in s.base]
    pos = s.pos
    slot_a = [list(r) for r in s.slot_a]
    slot_b = [list(r) for r in s.slot_b]
    for _ in range(rng.choice((1, 1, 2, 3))):
        r = rng.random()
        if base and r < 0.1:
            i = rng.randrange(len(base))
            base[i][0] = _relative_to_partial_sum(ctx, base[:i], rng) or base[i][0]
        elif base and r < 0.3:
            i = rng.randrange(len(base))
            base[i][0] = _neighbour_value(ctx, base[i][0], rng, pal)
        elif base and r < 0.55:
            i = rng.randrange(len(base))
            base[i][1] = _neighbour_count(base[i][1], rng, ctx.max_n)
        elif r < 0.65 and len(base) < 8:
            i = rng.randrange(len(base) + 1)
            base.insert(i, [rng.choice(pal), _neighbour_count(1, rng, ctx.max_n)])
            if i < pos:
                pos += 1
        elif r < 0.72 and len(base) > 1:
            i = rng.randrange(len(base))
            del base[i]
            if i < pos:
                pos -= 1
        elif r < 0.8 and len(base) > 1:
            i = rng.randrange(len(base) - 1)
            base[i], base[i + 1] = base[i + 1], base[i]
        elif r < 0.88:
            pos = rng.randrange(len(base) + 1)
        else:
            slot = slot_b if (not slot_a or rng.random() < 0.5) else slot_a
            slot[0][0] = _neighbour_value(ctx, slot[0][0], rng, pal)
    pos = max(0, min(pos, len(base)))
    return Slotted(tuple(map(tuple, base)), pos, tuple(map(tuple, slot_a)),
                   tuple(map(tuple, slot_b)), s.construction if "hill" in s.construction
                   else s.construction + " + hill climbing")


def random_start(ctx: Context, rng: random.Random, pal: list[int]) -> Slotted:
    pos_vals = [v for v in pal if v > 0] or pal
    room = max(1, (ctx.max_n - ctx.d_in) // 4)
    base = tuple((rng.choice(pal), min(room, _neighbour_count(1, rng, ctx.max_n // 2)))
                 for _ in range(rng.randint(1, 4)))
    k = rng.randint(1, ctx.d_in)
    top = rng.choice(pos_vals[-4:])
    slot_a, slot_b = _slots(ctx, top, k)
    return Slotted(base, rng.randrange(len(base) + 1), slot_a, slot_b, "random start")


STALE_LIMIT = 100
WORSE_MOVES = 0.1
SWEEPS = 0.15


def sweep(ctx: Context, cur: Slotted, rng: random.Random, pal: list[int]) -> tuple[Slotted, int | None]:
    """Steepest ascent along one coordinate: one run's value or count, the slot's
    position or value; every choice (up to 24 sampled values) is evaluated."""
    base = [tuple(r) for r in cur.base]
    options: list[Slotted] = []
    r = rng.random()
    if base and r < 0.45:
        i = rng.randrange(len(base))
        v, c = base[i]
        values = set(rng.sample(pal, min(24, len(pal)))) | {v + ctx.grid.ulp(v), v - ctx.grid.ulp(v)}
        for w in values:
            nb = base[:i] + [(w, c)] + base[i + 1:]
            options.append(dataclasses.replace(cur, base=tuple(nb)))
    elif base and r < 0.65:
        i = rng.randrange(len(base))
        v, c = base[i]
        for k in {c - 8, c - 1, c + 1, c + 8, 2 * c, c // 2, c + 7, c + 9}:
            if k >= 1:
                options.append(dataclasses.replace(cur, base=tuple(base[:i] + [(v, k)] + base[i + 1:])))
    elif r < 0.8:
        options = [dataclasses.replace(cur, pos=p) for p in range(len(base) + 1)]
    else:
        (sv, k), = cur.slot_b
        for w in rng.sample(pal, min(24, len(pal))):
            options.append(dataclasses.replace(cur, slot_b=((w, k),)))
    best, best_val = cur, None
    for o in options:
        val = ctx.evaluate(o.candidate())
        if val is not None and (best_val is None or val > best_val or (val == best_val and rng.random() < 0.5)):
            best, best_val = o, val
    return best, best_val


def climb(ctx: Context, seeds: Sequence[Slotted], rng: random.Random) -> None:
    """Hill climbing on ``|f(x') - f(x)|`` from the given starts, then from random ones,
    until a violation is found (unless ``ctx.maximize``) or the budget is spent."""
    pal = palette(ctx)
    starts = list(seeds)
    while not ctx.done():
        cur = starts.pop(0) if starts else random_start(ctx, rng, pal)
        cur_val = ctx.evaluate(cur.candidate())
        if cur_val is None:
            cur_val = -1
        stale = 0
        while stale < STALE_LIMIT and not ctx.done():
            if rng.random() < SWEEPS:
                nxt, val = sweep(ctx, cur, rng, pal)
            else:
                nxt = mutate(ctx, cur, rng, pal)
                val = ctx.evaluate(nxt.candidate())
            if val is None:
                stale += 1
            elif val >= cur_val or rng.random() < WORSE_MOVES:
                stale = 0 if val > cur_val else stale + 1
                cur, cur_val = nxt, val
            else:
                stale += 1


def _negated(runs: Runs) -> Runs:
    return tuple((-v, c) for v, c in runs)


def _families(ctx: Context, families=None) -> Iterator[Slotted | Candidate]:
    """The constructions, for the sign of the larger bound (all models treat ``-x`` as
    the mirror image of ``x``, except the sorted ones, which are evaluated anyway)."""
    mirror = -ctx.lo > ctx.hi
    view = dataclasses.replace(ctx, lo=-ctx.hi, hi=-ctx.lo) if mirror else ctx
    for family in families or (cascade, straddle, filled_straddle, reorder):
        for item in family(view):
            if not mirror:
                yield item
            elif isinstance(item, Slotted):
                yield Slotted(_negated(item.base), item.pos, _negated(item.slot_a),
                              _negated(item.slot_b), item.construction + " (mirrored)")
            else:
                yield Candidate(_negated(item.x), _negated(item.x_prime), item.shared_order,
                                item.construction + " (mirrored)")


def run_search(ctx: Context, seed: int) -> None:
    """Constructive families first (:func:`lanes` and :func:`halving`, each for its own
    model, only when the others found no violation, or when maximizing), then seeded hill
    climbing, within ``ctx.budget``."""
    rng = random.Random(seed)
    slotted: list[tuple[int, Slotted]] = []
    try:
        for families in (None, (lanes, halving)):  # the reordering of trees after the others
            for item in _families(ctx, families):
                if isinstance(item, Slotted):
                    val = ctx.evaluate(item.candidate())
                    if val is not None:
                        slotted.append((val, item))
                else:
                    ctx.evaluate(item)
            if ctx.done():
                return
        slotted.sort(key=lambda t: -t[0])
        climb(ctx, [s for _, s in slotted[:5]], rng)
    except _BudgetSpent:
        pass
