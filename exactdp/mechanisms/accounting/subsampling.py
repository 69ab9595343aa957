"""The Poisson-subsampled Gaussian (DP-SGD) as certified lattice pairs for the accountant.

One step of DP-SGD adds ``N(0, sigma**2)`` noise to a sum of clipped gradients computed on a
batch that holds each record independently with probability ``q`` (Poisson subsampling).
Under add/remove neighbours (one record more or less), with ``mu = sensitivity / sigma``,
the tight dominating pairs are (Zhu, Dong and Wang 2022, Prop. 30; Balle, Barthe and
Gaboardi 2018)

* remove: ``P = (1 - q) N(0, 1) + q N(mu, 1)`` against ``Q = N(0, 1)``;
* add:    ``P = N(0, 1)`` against ``Q = (1 - q) N(0, 1) + q N(mu, 1)``;

and ``k`` steps have ``delta(eps) = max(delta_remove^(k)(eps), delta_add^(k)(eps))``: the
differing record is the same in every step, so each direction is composed with itself.

Each pair's privacy profile ``H(a) = sup_S P(S) - a Q(S) = P[L > log a] - a Q[L > log a]``
(``L`` the privacy loss) is convex and decreasing in ``a >= 0`` with ``H(0) = 1`` and slope
``H'(a) = -Q[L > log a]``, and has a closed form through the normal CDF (the loss is
monotone in the Gaussian output). This module encloses ``H`` with ball arithmetic (Arb, via
python-flint) on the grid ``a_n = e^(n h)``, ``h = 2**-m``, and builds two discrete pairs
whose losses lie on the lattice ``n h`` (so that ``k`` steps compose by exact integer
convolution in :mod:`exactdp.mechanisms.accounting.accountant`):

* an **upper pair** whose profile is the piecewise-linear interpolation, through ``(0, 1)``,
  of upper bounds of ``H(a_n)`` at a subset of the grid points (kept only where convexity is
  certified): a chord between points on or above a convex function lies above it, so the
  pair dominates the true one ("connect the dots", Doroshenko et al. 2022); after the last
  point the profile stays at its last value (that mass has an infinite loss);
* a **lower pair** (remove direction) through ``(0, 1)`` along ``1 - a`` (where ``H`` is
  exactly ``1 - a``: ``L > log(1 - q)`` always) and then through the values
  ``H(a_n) - c_n``, with ``c_n = max(E_(n-1), E_n)`` and ``E_n = (a_(n+1) - a_n) Q_n / 4``
  (``Q_n`` the ``Q``-mass of ``log a_n < L <= log a_(n+1)``): on a cell ``[a, b]`` a convex
  ``f`` lies at most ``(b - a)(f'(b) - f'(a)) / 4`` below its chord, so every chord lies
  below ``H``; it ends at 0 through a last point under ``H``'s tangent.

A convex, decreasing profile through ``(0, 1)`` with slopes in ``[-1, 0]`` is the profile
of a pair of probability measures (its kinks are the losses, the slope increments the
``Q``-masses); a pair whose profile is pointwise above (below) another's dominates (is
dominated by) it in the Blackwell order, and composition preserves that order. So the
``k``-fold composition of the upper pair bounds ``delta`` from above and that of the lower
pair from below, at every ``eps``. The proof, step by step, is
``proofs/accountant-poisson-gaussian.md``; the same construction serves any pair whose profile
a model encloses (``point``, ``loss_range``: the Laplace mechanism, subsampled randomized
response and discrete Laplace in :mod:`exactdp.mechanisms.accounting.profiles`,
``proofs/accountant-profile.md``).

Every probability here is an Arb ball; masses are handed on as ``[lo, hi]`` dyadic
rationals. Nothing is rounded the unsafe way: a convexity that cannot be certified at the
working precision drops the point (upper pair) or lowers the value (lower pair), both of
which keep the pair on its side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp import _optional
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.intervals import arb_precision

__all__ = ["PoissonGaussian", "LatticePair", "lattice_pairs", "grid_points", "grid_subset"]


def _flint():
    return _optional.require("flint", library="python-flint")  # pragma: no cover - a dependency of exactdp


@dataclass(frozen=True)
class PoissonGaussian:
    """The Gaussian mechanism with noise ``sigma`` on a sum of ``sensitivity``-bounded terms,
    run on a Poisson subsample of rate ``q`` (``0 < q <= 1``)."""

    q: Fraction
    mu: Fraction  # sensitivity / sigma

    def __post_init__(self):
        if not 0 < self.q <= 1:
            raise InvalidArgument(f"rate={self.q} is outside (0, 1]; the sampling rate is the "
                                  f"probability that a record is in a batch")
        if self.mu <= 0:
            raise InvalidArgument(f"sensitivity/sigma={self.mu} is not positive")


@dataclass
class LatticePair:
    """A discrete pair on the losses ``n h``, in fixed point with ``bits`` fraction bits:
    ``w[i] / 2**bits`` is a lower bound of the ``P``-mass at loss ``(top - i) h``, and
    ``slack / 2**bits`` bounds what the ``w`` miss in all, the ``P``-mass with an infinite loss
    (the upper pair's tail; none in the lower pair) included."""

    top: int
    w: list
    slack: int
    bits: int


def _fraction_floor(x, prec: int) -> Fraction:
    """An exact point ``x`` rounded DOWN to a multiple of ``2**-prec`` (a lower bound of it).

    A value far below ``2**-prec`` (a Gaussian tail ``erfc(4e4)`` is about ``2**-(2e9)``) is
    not turned into a Fraction of a 2-billion-bit denominator: it rounds to 0 (or to
    ``-2**-prec`` when negative). Every caller needs only a lower bound, so rounding down is
    the safe side."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    if exp >= 0:
        return Fraction(man << exp)
    if man.bit_length() + exp >= -prec - 2:  # not tiny: exact
        return Fraction(man, 1 << -exp)
    return Fraction(0) if man >= 0 else Fraction(-1, 1 << prec)


def _dyadic(arb, x: Fraction):
    """The dyadic rational ``x`` as an exact ball (a power-of-two denominator divides exactly)."""
    d = x.denominator
    if d & (d - 1):
        raise ValueError(f"{x} is not dyadic")
    return arb(x.numerator) * arb(2) ** -(d.bit_length() - 1) if d > 1 else arb(x.numerator)


class _Profile:
    """``H(a_n)``, ``Q[L > log a_n]`` and ``a_n`` on the grid, as Arb balls."""

    def __init__(self, model: PoissonGaussian, direction: str, h: Fraction, prec: int):
        flint = _flint()
        self.arb = flint.arb
        self.model, self.direction, self.h, self.prec = model, direction, h, prec
        arb = self.arb
        with arb_precision(prec):
            self.q = arb(model.q.numerator) / model.q.denominator
            self.keep = 1 - self.q  # 1 - q
            self.hb = arb(h.numerator) / h.denominator
            if isinstance(model, PoissonGaussian):
                self.mu = arb(model.mu.numerator) / model.mu.denominator

    def point(self, n: int):
        """``(a, H(a), Q[L > log a])`` at ``a = e^(n h)`` (balls; other models than the Gaussian
        give their own, :mod:`exactdp.mechanisms.accounting.profiles`)."""
        arb = self.arb
        with arb_precision(self.prec):
            if not isinstance(self.model, PoissonGaussian):
                return self.model.point(self, n)
            loss = self.hb * n
            a = loss.exp()
            q, mu, keep = self.q, self.mu, self.keep
            half = mu * mu / 2
            if self.direction == "remove":
                # L = log(1 - q + q e^(mu x - mu^2/2)) > loss  iff  x > x0
                gap = a - keep
                if gap <= 0:  # certified a <= 1 - q: L > log a always
                    return a, 1 - a, arb(1)
                if not gap > 0:
                    raise _Uncertified(n)
                x0 = ((gap / q).log() + half) / mu
                qt = _upper_tail(x0)  # Q[x > x0], x ~ N(0, 1)
                pt = keep * qt + q * _upper_tail(x0 - mu)
            else:
                # L = -log(1 - q + q e^(mu x - mu^2/2)) > loss  iff  x < x1
                gap = 1 / a - keep
                if gap <= 0:  # L < -log(1 - q) <= loss: never
                    return a, arb(0), arb(0)
                if not gap > 0:
                    raise _Uncertified(n)
                x1 = ((gap / q).log() + half) / mu
                pt = _upper_tail(-x1)  # P[x < x1], x ~ N(0, 1)
                qt = keep * pt + q * _upper_tail(mu - x1)
            return a, pt - a * qt, qt


class _Uncertified(Exception):
    """A comparison could not be decided at the working precision (raise it)."""


def _upper_tail(t):
    """``P[Z > t]`` for a standard normal ``Z``: ``erfc(t / sqrt 2) / 2``."""
    return (t / t.__class__(2).sqrt()).erfc() / 2


def grid_points(model, direction: str, h: Fraction, tail_bits: int) -> tuple[int, int]:
    """The grid indices ``n_lo..n_hi`` (losses ``n h``) that hold all but ``2**-tail_bits`` of
    each tail. The choice is a matter of accuracy only: the pairs are valid for any range (the
    upper pair gives what lies beyond an infinite loss, the lower pair drops it)."""
    if hasattr(model, "grid_range"):  # a model that chooses its own (sampling without replacement)
        return model.grid_range(direction, h, tail_bits)
    if not isinstance(model, PoissonGaussian):
        # floats: the bounded losses' least and largest (a truncated one's, at the tail asked for)
        lo, hi = model.loss_range(direction, tail_bits) if getattr(model, "cuts_tails", False) else \
            model.loss_range(direction)
        return math.floor(lo / float(h)) - 1, math.ceil(hi / float(h)) + 1
    t = math.sqrt(2 * tail_bits * math.log(2)) + 1  # P[Z > t] <= 2**-tail_bits
    keep = 1 - float(model.q)
    if model.mu > 10**100:  # mu**2 overflows a float: a bound in exact arithmetic (only counted, then refused)
        # every loss is at most mu**2/2 + mu t + 1 in size on the grid's range (|mu x - mu**2/2| there)
        reach = model.mu * model.mu / 2 + model.mu * (Fraction(t) + 1) + 1
        n = math.ceil(reach / h) + 2
        low = math.floor(math.log(keep) / float(h)) - 1 if keep > 0 else -n
        high = math.ceil(-math.log(keep) / float(h)) + 2 if keep > 0 else n
        return (low, n) if direction == "remove" else (-n, high)
    q, mu = float(model.q), float(model.mu)

    def loss_at(x):  # log(1 - q + q e^(mu x - mu^2/2)), without overflow, accurate for a tiny mu
        y = mu * x - mu * mu / 2
        if q == 1:
            return y
        if y < 30:  # log1p(q expm1(y)) keeps a loss of 1e-300 (sigma = 1e300) from rounding to 0
            return math.log1p(q * math.expm1(y))
        z = y + math.log(q)
        return z + math.log1p(keep * math.exp(-z)) if z > 0 else math.log(keep + math.exp(z))

    hf = float(h)
    if direction == "remove":
        low = math.log(keep) if keep > 0 else loss_at(-t)
        return math.floor(low / hf) - 1, math.ceil(loss_at(mu + t) / hf) + 1
    high = -math.log(keep) if keep > 0 else -loss_at(-t)
    return math.floor(-loss_at(mu + t) / hf) - 1, math.ceil(high / hf) + 2


def lattice_pairs(model: PoissonGaussian, m: int, bits: int, *, tail_bits: int | None = None,
                  cache: dict | None = None, tol: float = 0.0) -> dict:
    """The certified pairs on the grid ``h = 2**-m`` in fixed point with ``bits`` fraction bits:
    ``{"remove": upper pair, "add": upper pair, "lower": lower pair (remove)}``; probabilities
    enclosed at ``bits + 64`` bits (more when a convexity is not certified there); the grid
    leaves out tails of at most ``2**-tail_bits`` (default ``bits + 16``). ``cache`` (a
    dict) keeps the profile's points between calls for the same model: a finer grid holds the
    coarser one's points (a ball from a call with a few bits less is as valid, a little wider;
    the retries at a higher precision keep their own). ``tol > 0`` (the subsampled Gaussian
    only) evaluates the profile at a subset of the grid (:func:`grid_subset`: every point where
    the mass is, wider cells in the tails); the pairs stay on the lattice ``n h``."""
    for extra in (64, 192, 576):
        try:
            store = ({} if cache is None else cache).setdefault(extra, {})
            return _lattice_pairs(model, m, bits, bits + extra, store,
                                  bits + 16 if tail_bits is None else tail_bits, last=extra == 576, tol=tol)
        except _Uncertified as e:
            where = e.args[0]
    what = "the subsampled Gaussian's" if isinstance(model, PoissonGaussian) else f"the {model.label}'s"
    raise Undecided(f"{what} pairs at the grid 2**-{m} could not be certified convex "
                    f"near the loss {where}/2**{m} at {bits + 576} bits; try another rate or sigma")


def _tails_float(model: PoissonGaussian, direction: str, loss: float) -> float:
    """``Q[L > loss]`` in floating point (an estimate: it only chooses where the grid is
    coarse, never a bound)."""
    q, mu = float(model.q), float(model.mu)
    keep = 1 - q
    try:
        if direction == "remove":
            gap = math.exp(loss) - keep
            if gap <= 0:
                return 1.0
            x0 = (math.log(gap / q) + mu * mu / 2) / mu
            return math.erfc(x0 / math.sqrt(2)) / 2
        gap = math.exp(-loss) - keep
        if gap <= 0:
            return 0.0
        x1 = (math.log(gap / q) + mu * mu / 2) / mu
        p = math.erfc(-x1 / math.sqrt(2)) / 2
        return keep * p + q * math.erfc((mu - x1) / math.sqrt(2)) / 2
    except (OverflowError, ValueError):  # far outside the floats' range: a tail of no weight here
        return 0.0 if loss > 0 else 1.0


_MAX_CELL = 1 << 12
"""Widest cell of a grid subset, in grid steps."""


def grid_subset(model, direction: str, m: int, lo: int, hi: int, tol: float) -> list:
    """The grid indices ``lo..hi`` at which the profile is enclosed: all of them when ``tol`` is 0
    or the model is not the subsampled Gaussian; otherwise ``lo``, ``0`` (the loss 0, ``a = 1``),
    ``hi`` and, from each kept index ``i``, the next at ``i + s`` for the largest power of two ``s``
    dividing ``i`` (so a coarser grid's subset shares points; in the remove direction, whose lower
    pair starts along ``1 - a`` at the low losses, only at losses ``>= 0``) whose cell's chord error
    ``(a_(i+s) - a_i)(Q_i - Q_(i+s)) / 4`` is estimated (floats) at most ``tol``. Any subset gives
    certified pairs (the upper pair's chords run through points above ``H``; the lower pair's
    error bound holds on every cell); the choice only sets how close they are."""
    if hasattr(model, "kink_log_ratios"):  # a profile that is linear between its kinks
        return _kink_subset(model, direction, m, lo, hi)
    if tol <= 0 or type(model) is not PoissonGaussian or hi - lo < 4:
        return list(range(lo, hi + 1))
    h = 2.0 ** -m
    memo: dict = {}

    def qt(n):
        if n not in memo:
            memo[n] = _tails_float(model, direction, n * h)
        return memo[n]

    def err(i, j):
        try:
            return (math.exp(j * h) - math.exp(i * h)) * (qt(i) - qt(j)) / 4
        except OverflowError:
            return math.inf

    out, i = [lo], lo
    while i < hi:
        s = 1
        while (s < _MAX_CELL and i % (2 * s) == 0 and i + 2 * s <= hi and not (i < 0 < i + 2 * s)
               and (i >= 0 or direction == "add") and err(i, i + 2 * s) <= tol):
            s *= 2
        i += s
        out.append(i)
    return out


def _mixture_log(q: float, x: float) -> float:
    """``log(1 - q + q e^x)`` in floats, without overflow (an estimate: it only places points)."""
    if x > 0:
        return x + math.log(q) + math.log1p((1 - q) * math.exp(-x) / q) if q > 0 else math.log(1 - q)
    return math.log1p(q * math.expm1(x))


def _kink_subset(model, direction: str, m: int, lo: int, hi: int) -> list:
    """The grid indices of a profile that is linear between its kinks (a base pair with
    likelihood-ratio classes: ``H(a) = sum_c (P_c - a Q_c)_+`` bends only at ``a = P_c / Q_c``):
    ``lo``, ``hi``, ``0``, in the remove direction every index below ``0`` (where the lower pair
    starts along ``1 - a``), and the two indices either side of each kink's loss (one more each way
    for the float error of its place). Between two listed indices with no kink between them ``H`` is
    a line, so its chord is ``H`` itself: the pairs are those of the whole grid, read at fewer
    points (and, as for any subset, certified whatever the floats say). The whole range when the
    kinks outnumber its points or cannot be placed in floats."""
    whole = list(range(lo, hi + 1))
    h = 2.0 ** -m
    q = float(model.q)
    sign = 1 if direction == "remove" else -1
    try:
        # the base pair's log-ratios x whose losses sign * log(1 - q + q e^x) fall in [lo h, hi h]
        keep = 1 - q
        ends = []
        for n in (lo, hi):
            e = math.exp(sign * n * h)
            ends.append(math.log((e - keep) / q) if e > keep else -math.inf)
        xs = model.kink_log_ratios(min(ends), max(ends), hi - lo + 1)
        if xs is None:
            return whole
        keys = {lo, hi} | ({0} if lo <= 0 <= hi else set())
        if direction == "remove":
            keys.update(range(lo, min(0, hi) + 1))
        for x in xs:
            n = math.floor(sign * _mixture_log(q, x) / h)
            keys.update(j for j in range(n - 1, n + 3) if lo <= j <= hi)
    except (OverflowError, ValueError):
        return whole
    return sorted(keys) if len(keys) < len(whole) else whole


def _key(direction: str, n: int, m: int) -> tuple:
    """A point's cache key, the same on every grid that holds it (``n 2**-m`` in lowest terms)."""
    while m > 0 and n % 2 == 0 and n:
        n //= 2
        m -= 1
    return direction, n if n else 0, m if n else 0


def _lattice_pairs(model, m: int, bits: int, prec: int, cache: dict, tail_bits: int, last: bool = False,
                   tol: float = 0.0) -> dict:
    """The pairs at one precision; at the ``last`` one a lower pair that cannot be certified
    (a grid too coarse for the loss's range: a subsampled Laplace at rate 1e-6 spans a few
    grid cells) is the pair with no privacy loss, whose profile ``(1 - a)_+`` lies below every
    profile: sound, and the grid is refined."""
    h = Fraction(1, 2**m)
    out = {}
    for direction in ("remove", "add"):
        if direction == "add" and hasattr(model, "grid_range"):  # one symmetric pair (without replacement)
            out["add"] = out["remove"]
            continue
        lo, hi = grid_points(model, direction, h, tail_bits)
        idx = grid_subset(model, direction, m, lo, hi, tol)
        prof = _Profile(model, direction, h, prec)
        pts = []
        for n in idx:
            key = _key(direction, n, m)
            if key not in cache:
                cache[key] = prof.point(n)
            pts.append(cache[key])
        out[direction] = _upper_pair(prof, idx, pts, bits)
        if direction == "remove":
            try:
                out["lower"] = _lower_pair(prof, idx, pts, bits)
            except _Uncertified:
                if not last:
                    raise
                out["lower"] = LatticePair(0, [1 << bits], 0, bits)  # all mass at the loss 0
    return out


# --- the upper pair: connect the dots ------------------------------------------------------


def _upper_pair(prof: _Profile, idx: list, pts: list, bits: int) -> LatticePair:
    arb = prof.arb
    with arb_precision(prof.prec):
        # vertices (index, a, g) with g an exact upper bound of H(a); (0, 1) first
        verts = [(None, arb(0), arb(1))]
        for i, (a, hval, _) in enumerate(pts):
            g = hval.upper()  # an exact point at or above H(a)
            if g > 1:
                g = arb(1)
            verts.append((idx[i], a, g))
            while len(verts) >= 3 and not _convex(verts[-3], verts[-2], verts[-1]):
                del verts[-2]  # any subset of points above H gives a chord above H
        # flat after the last vertex: its kink is convex only if the last segment descends
        while len(verts) >= 3 and not bool(verts[-1][2] < verts[-2][2]):
            del verts[-1]  # the flat value rises to the previous one: still above H
        # the profile is flat after the last vertex: its value is mass at an infinite loss
        return _pair_of(prof, verts, bits, infinite=verts[-1][2])


def _cross(u, v, w):
    """``(slope(v, w) - slope(u, v))`` times the two (positive) widths: a ball."""
    return (w[2] - v[2]) * (v[1] - u[1]) - (v[2] - u[2]) * (w[1] - v[1])


def _convex(u, v, w) -> bool:
    """Certified: the slope from ``v`` to ``w`` is above the slope from ``u`` to ``v``."""
    return bool(_cross(u, v, w) > 0)


def _pair_of(prof: _Profile, verts: list, bits: int, infinite=None) -> LatticePair:
    """The pair whose profile is the polyline through ``verts`` (then flat), in fixed point:
    ``P``-mass ``a (s_after - s_before)`` at each vertex's loss, rounded down, the rest in
    the slack; ``infinite`` (a ball) is the flat value, mass with an infinite loss."""
    arb = prof.arb
    slopes = [(verts[i + 1][2] - verts[i][2]) / (verts[i + 1][1] - verts[i][1]) for i in range(len(verts) - 1)]
    slopes.append(arb(0))
    top = verts[-1][0]
    w = [0] * (top - verts[1][0] + 1)
    slack = 0 if infinite is None else max(0, _fixed(infinite.upper(), bits, up=True))
    for j in range(1, len(verts)):
        mass = verts[j][1] * (slopes[j] - slopes[j - 1])
        lo_ = max(0, _fixed(mass.lower(), bits, up=False))
        w[top - verts[j][0]] = lo_
        slack += _fixed(mass.upper(), bits, up=True) - lo_
    return LatticePair(top, w, slack, bits)


def _fixed(point, bits: int, *, up: bool) -> int:
    """``floor`` (or ``ceil``) of an exact point times ``2**bits``."""
    man, exp = point.man_exp()
    man, shift = int(man), int(exp) + bits
    if shift >= 0:
        return man << shift
    return -((-man) >> -shift) if up else man >> -shift


# --- the lower pair: below every chord -------------------------------------------------------


def _lower_pair(prof: _Profile, idx: list, pts: list, bits: int) -> LatticePair:
    arb = prof.arb
    with arb_precision(prof.prec):
        a = [p[0] for p in pts]
        hv = [p[1] for p in pts]
        qt = [p[2] for p in pts]
        n = len(pts)
        err = [(a[i + 1] - a[i]) * (qt[i] - qt[i + 1]) / 4 for i in range(n - 1)]
        err.append(arb(0))
        c = [err[0]] + [_max(err[i - 1], err[i]) for i in range(1, n)]
        g = [_fraction_floor((hv[i] - c[i]).lower(), prof.prec) for i in range(n)]  # exact, <= H - c
        # the end: the first point (past the start) whose value is not certified positive
        # holds 0; the one before lies under the tangent of H there (so that chord is below H)
        first = next((i for i in range(1, n) if hv[i].upper() < 1 and g[i] <= 0), n - 1)
        end = max(first, 2)
        g[end] = Fraction(0)
        tangent = _fraction_floor((qt[end] * (a[end] - a[end - 1])).lower(), prof.prec)
        g[end - 1] = max(Fraction(0), min(g[end - 1], tangent))
        # the start: along 1 - a up to a point m whose value 1 - a_m is at most H - E_m (its
        # chord to the next point stays below H); every later value must lie above the line
        # (with the line as the first segment, convexity then keeps the profile >= 1 - a)
        # (the start comes after the last point before the end not certified above the line: a
        # later point below it would make the hull bend the wrong way at the start, and refuse)
        above = [bool(a[i] >= 1) or bool(_dyadic(arb, g[i]) - (1 - a[i]) > 0) for i in range(end)]
        m = next((i for i in range(end - 1, -1, -1) if not above[i]), 0)
        while m < end - 1 and not (bool(hv[m] - err[m] - (1 - a[m]) > 0)
                                   and bool(_dyadic(arb, g[m + 1]) - (1 - a[m + 1]) > 0)):
            m += 1
        verts = [(None, arb(0), arb(1)), (idx[m], a[m], 1 - a[m])]
        verts += [(idx[i], a[i], _dyadic(arb, g[i])) for i in range(m + 1, end + 1)]
        verts = _lower_hull(verts, Fraction(1, 2 ** (prof.prec - 16)), prof.prec)
        return _pair_of(prof, verts, bits)


def _max(x, y):
    return x if bool(x > y) else (y if bool(y > x) else x.union(y))


def _lower_hull(verts: list, margin: Fraction, prec: int = 1 << 20) -> list:
    """The greatest convex minorant of the polyline through ``verts``, certified: a vertex
    certified above its neighbours' chord is dropped (the new chord lies below the polyline,
    so below ``H``); one that cannot be told from the chord is lowered ``margin`` below it (a
    lower value keeps every chord below ``H``). The first two vertices, ``(0, 1)`` and the
    end of the line ``1 - a``, are fixed: a kink there that is not certified convex is
    refused (:class:`_Uncertified`)."""
    arb = verts[0][2].__class__
    out = verts[:2]
    for w in verts[2:]:
        out.append(w)
        j = len(out) - 2
        while j >= 1:
            u, v, x = out[j - 1], out[j], out[j + 1]
            if _convex(u, v, x):
                break
            if j == 1:
                raise _Uncertified(v[0])
            if _cross(u, v, x) < 0:  # certified: v lies above the chord from u to x
                del out[j]
                j -= 1
                continue
            chord = u[2] + (x[2] - u[2]) * (v[1] - u[1]) / (x[1] - u[1])
            new = min(_fraction_floor(v[2].lower(), prec), _fraction_floor(chord.lower(), prec)) - margin
            if new < 0:  # a value this small cannot be placed below the chord and above 0
                raise _Uncertified(v[0])
            out[j] = (v[0], v[1], _dyadic(arb, new))
            if not _convex(out[j - 1], out[j], out[j + 1]):
                raise _Uncertified(v[0])
            j -= 1  # the kink before has changed
    return out
