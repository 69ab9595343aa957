"""Hockey-stick profiles of further dominating pairs, for the certified grid accountant.

:mod:`exactdp.mechanisms.accounting.subsampling` turns any pair whose profile

    H(a) = sup_S P(S) - a Q(S) = P[L > log a] - a Q[L > log a]

and right slope ``-Q[L > log a]`` can be enclosed in Arb balls at the grid points
``a_n = e^(n h)`` into a certified pair above and a pair below on the loss lattice ``n h``
(``proofs/accountant-profile.md``). This module gives those balls for

* :class:`PoissonLaplace`: the continuous Laplace mechanism (scale ``b``, sensitivity
  ``Delta``, ``eps = Delta / b``), Poisson-subsampled at rate ``q`` (``q = 1``: the plain
  mechanism). Its base pair is ``P0 = Lap(0, 1)`` against ``P1 = Lap(eps, 1)`` (in units of
  ``b``), with the likelihood ratio ``lambda(u) = p1/p0 = e^(|u| - |u - eps|)``
  nondecreasing in ``u``: ``e^-eps`` for ``u <= 0``, ``e^(2u - eps)`` between, ``e^eps``
  for ``u >= eps``;
* :class:`PoissonFinite`: randomized response and the discrete Laplace mechanism,
  Poisson-subsampled: base pairs with finitely many likelihood-ratio classes
  ``(p1_c, p0_c)``, so ``H(a) = sum_c (P_c - a Q_c)_+`` is a finite sum.

For both, under add/remove neighbours, the tight dominating pairs of the subsampled
mechanism are (Zhu, Dong and Wang 2022, Prop. 30) remove: ``(q P1 + (1 - q) P0, P0)`` and
add: ``(P0, q P1 + (1 - q) P0)``. Every loss is bounded (these mechanisms are pure DP), so
the grid covers the whole support and no tail is cut.

A comparison that decides a branch (which set ``S`` attains the sup) is used only when
certified; where a ball straddles a boundary, every branch it may be in is evaluated and
their balls are joined (each contains the true value on its side of the boundary, and
``H`` is continuous).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.subsampling import PoissonGaussian, _Profile, _Uncertified, grid_points
from exactdp.mechanisms.calibration.discrete import _truncation_point

__all__ = ["PoissonLaplace", "PoissonFinite", "PoissonDiscreteGaussian", "WithoutReplacement"]


def _check_rate(q: Fraction) -> None:
    if not 0 < q <= 1:
        raise InvalidArgument(f"rate={q} is outside (0, 1]; the sampling rate is the probability that a "
                              f"record is in a batch")


def _ball(arb, x: Fraction):
    return arb(x.numerator) / x.denominator


def _join(results: list) -> tuple:
    """Component-wise union of ``(a, H, Qt)`` triples (``a`` is the same in each)."""
    out = list(results[0])
    for r in results[1:]:
        out[1] = out[1].union(r[1])
        out[2] = out[2].union(r[2])
    return tuple(out)


def _cases(x, lo, hi, below, middle, above) -> tuple:
    """``below()`` where ``x <= lo``, ``above()`` where ``x >= hi``, ``middle(x)`` between; every
    branch the ball ``x`` may fall in is evaluated and the balls joined."""
    found = []
    if not bool(x > lo):
        found.append(below())
    if not bool(x <= lo) and not bool(x >= hi):
        found.append(middle())
    if not bool(x < hi):
        found.append(above())
    return _join(found)


def _float_losses(q: float, logs: list) -> tuple[float, float]:
    """The least and largest of ``log(1 - q + q e^x)`` over the base log-ratios ``x`` (floats:
    only the grid's range is chosen with them), without overflow or ``log(0)``."""
    vals = []
    for x in logs:
        if q == 1:
            vals.append(x)
            continue
        a, b = math.log1p(-q), math.log(q) + x
        vals.append(max(a, b) + math.log1p(math.exp(-abs(a - b))))
    return min(vals), max(vals)


def _loss_range(q: Fraction, logs: list, direction: str) -> tuple[float, float]:
    """The subsampled pair's loss range in ``direction`` from the base log-ratios ``logs``: the
    remove pair's, or its mirror image for the add pair."""
    lo, hi = _float_losses(float(q), logs)
    return (lo, hi) if direction == "remove" else (-hi, -lo)


def _square_range(model) -> float:
    """A bound on the loss's second moment: its largest square over the remove pair's range."""
    lo, hi = model.loss_range("remove")
    return max(lo * lo, hi * hi)


@dataclass(frozen=True)
class PoissonLaplace:
    """The Laplace mechanism with ``eps = sensitivity / scale`` on a Poisson subsample of rate
    ``q`` (``0 < q <= 1``)."""

    q: Fraction
    eps: Fraction
    label = "Laplace mechanism"
    grid_order = 2  # the loss has atoms at its ends (an error falling as h there), but at the widths
    # asked the continuous part's h**2 dominates: k = 1000, q = 0.01 met at the grid 2**-13 in 6.5 s
    # (as h: 2**-14, 9.3 s)

    def __post_init__(self):
        _check_rate(self.q)
        if self.eps <= 0:
            raise InvalidArgument(f"sensitivity/scale={self.eps} is not positive")

    def loss_range(self, direction: str) -> tuple[float, float]:
        e = float(self.eps)
        return _loss_range(self.q, [-e, e], direction)

    def variance_bound(self) -> float:
        return _square_range(self)

    def point(self, prof, n: int) -> tuple:
        """``(a, H(a), Q[L > log a])`` at ``a = e^(n h)``, in the remove or add direction."""
        arb = prof.arb
        a = (prof.hb * n).exp()
        q, keep = prof.q, prof.keep
        eps = _ball(arb, self.eps)
        lo, hi = (-eps).exp(), eps.exp()
        one, zero = arb(1), arb(0)

        def all_():
            return a, 1 - a, one

        def none():
            return a, zero, zero

        if prof.direction == "remove":
            # P = q P1 + keep P0, Q = P0; L = log(keep + q lambda(u)) > log a iff lambda(u) > c
            gap = a - keep
            if bool(gap <= 0):  # c <= 0: every output
                return all_()
            if not bool(gap > 0):
                raise _Uncertified(n)
            c = gap / q

            def middle():  # S = {u > u0}, lambda(u0) = c
                u0 = (c.log() + eps) / 2
                qs = (-u0).exp() / 2  # P0[u > u0]
                p1 = 1 - (u0 - eps).exp() / 2  # P1[u > u0]
                ps = keep * qs + q * p1
                return a, ps - a * qs, qs

            return _cases(c, lo, hi, all_, middle, none)
        # add: P = P0, Q = q P1 + keep P0; L = -log(keep + q lambda(u)) > log a iff lambda(u) < c
        gap = 1 / a - keep
        if bool(gap <= 0):  # c <= 0: no output
            return none()
        if not bool(gap > 0):
            raise _Uncertified(n)
        c = gap / q

        def middle_add():  # S = {u < u1}, lambda(u1) = c
            u1 = (c.log() + eps) / 2
            ps = 1 - (-u1).exp() / 2  # P0[u < u1]
            p1 = (u1 - eps).exp() / 2  # P1[u < u1]
            qs = keep * ps + q * p1
            return a, ps - a * qs, qs

        return _cases(c, lo, hi, none, middle_add, all_)


@dataclass(frozen=True)
class PoissonFinite:
    """A base pair with finitely many likelihood-ratio classes, on a Poisson subsample of rate
    ``q``: ``base`` is ``"randomized-response"`` with ``args = (epsilon or None, p or None,
    k_values)`` or ``"discrete-laplace"`` with ``args = (scale, sensitivity)``."""

    q: Fraction
    base: str
    args: tuple
    grid_order = 1  # H is piecewise linear: the grid's error falls as h at its kinks

    def __post_init__(self):
        _check_rate(self.q)
        if self.base not in ("randomized-response", "discrete-laplace"):
            raise InvalidArgument(f"base={self.base!r} is not randomized-response or discrete-laplace")

    @property
    def label(self) -> str:
        return f"subsampled {self.base}" if self.q < 1 else self.base

    def classes(self, arb) -> list:
        """The base pair's classes ``(p1_c, p0_c)`` as balls (``P1`` the neighbour's output)."""
        if self.base == "randomized-response":
            eps, p, k = self.args
            if p is not None:
                o = (1 - p) / (k - 1)
                hi, lo = _ball(arb, p), _ball(arb, o)
            else:
                e = _ball(arb, eps).exp()
                lo = 1 / (e + (k - 1))
                hi = e * lo
            out = [(lo, hi), (hi, lo)]  # the true value of the first input, of the second
            if k > 2:
                out.append(((k - 2) * lo, (k - 2) * lo))  # the other k - 2 outputs
            return out
        t, d = self.args
        r = (-1 / _ball(arb, t)).exp()
        s = 1 + r
        out = [(r**d / s, 1 / s)]  # z <= 0
        out += [((1 - r) / s * r ** (d - z), (1 - r) / s * r**z) for z in range(1, d)]
        out.append((1 / s, r**d / s))  # z >= d
        return out

    def _logs(self) -> list:
        """The base pair's least and largest log-ratio (floats)."""
        if self.base == "randomized-response":
            eps, p, k = self.args
            e = math.log(p / ((1 - p) / (k - 1))) if p is not None else float(eps)
            return [-e, e]
        t, d = self.args
        return [-d / float(t), d / float(t)]

    def loss_range(self, direction: str) -> tuple[float, float]:
        return _loss_range(self.q, self._logs(), direction)

    def kink_log_ratios(self, x_lo: float, x_hi: float, most: int) -> list | None:
        """The classes' log-ratios ``log(p1_c / p0_c)`` (floats, to place grid points only; see
        :func:`~exactdp.mechanisms.accounting.subsampling.grid_subset`), or ``None`` past ``most``."""
        if self.base == "randomized-response":
            e = self._logs()[1]
            return [-e, 0.0, e]
        t, d = self.args
        if d + 1 > most:
            return None
        return [(2 * z - d) / float(t) for z in range(d + 1)]

    def variance_bound(self) -> float:
        return _square_range(self)

    def point(self, prof, n: int) -> tuple:
        """``(a, H(a), Q[L > log a])`` at ``a = e^(n h)``: the finite sum over the classes."""
        arb = prof.arb
        a = (prof.hb * n).exp()
        q, keep = prof.q, prof.keep
        hv, qt = arb(0), arb(0)
        if "_classes" not in prof.__dict__:  # once per profile (one precision)
            prof._classes = self.classes(arb)
        for p1, p0 in prof._classes:
            mix = q * p1 + keep * p0
            pc, qc = (mix, p0) if prof.direction == "remove" else (p0, mix)
            d = pc - a * qc
            if bool(d > 0):
                hv, qt = hv + d, qt + qc
            elif not bool(d <= 0):  # undecided: (d)_+ and the class's Q-mass may or may not count
                hv = hv + arb(0).union(d)
                qt = qt + arb(0).union(qc)
        return a, hv, qt


@dataclass(frozen=True)
class PoissonDiscreteGaussian:
    """The discrete Gaussian (``P0(z)`` proportional to ``e^(-z**2 / (2 s2))``, ``P1(z) = P0(z - d)``)
    on a Poisson subsample of rate ``q``. Its likelihood ratio ``e^((2 d z - d**2) / (2 s2))``
    takes a different value at every ``z``: the classes ``z = -M .. M + d`` are summed and the
    rest, at most ``tail`` of either measure, adds ``[0, tail]`` to ``H`` and to the slope."""

    q: Fraction
    s2: Fraction
    d: int
    label = "discrete Gaussian"
    grid_order = 2

    def __post_init__(self):
        _check_rate(self.q)
        if self.s2 <= 0 or self.d < 1:
            raise InvalidArgument(f"sigma_squared={self.s2} or sensitivity={self.d} is not positive")

    def _cut(self, prec: int) -> int:
        return _truncation_point(0, self.s2, prec)

    cuts_tails = True  # its grid's range follows the tail asked for (grid_points passes tail_bits)

    def loss_range(self, direction: str, tail_bits: int = 64) -> tuple[float, float]:
        m = self._cut(max(64, tail_bits))
        exact = Fraction(2 * self.d * (m + self.d) - self.d**2) / (2 * self.s2)
        x = float(min(exact, Fraction(10**300)))  # the largest log-ratio kept (and -x the least); a float
        return _loss_range(self.q, [-x, x], direction)  # for the grid's range only (1e300: counted, refused)

    def kink_log_ratios(self, x_lo: float, x_hi: float, most: int) -> list | None:
        """The classes' log-ratios ``(2 d z - d**2) / (2 s2)`` that lie in ``[x_lo, x_hi]`` (one more
        class each side), floats to place grid points only (see
        :func:`~exactdp.mechanisms.accounting.subsampling.grid_subset`); ``None`` past ``most``."""
        d, s2 = self.d, float(self.s2)
        z_of = lambda x: (x * 2 * s2 + d * d) / (2 * d)  # noqa: E731 - the class at log-ratio x
        z_lo = -self._cut(64) - d if x_lo == -math.inf else math.floor(z_of(x_lo)) - 1
        z_hi = math.ceil(z_of(x_hi)) + 1
        if z_hi - z_lo + 1 > most:
            return None
        return [(2 * d * z - d * d) / (2 * s2) for z in range(z_lo, z_hi + 1)]

    def variance_bound(self) -> float:
        # the loss's variance is at most the base pair's, (d/sigma)**2 (1 + ...): use its square range;
        # on a subsample, as the subsampled Gaussian's: its chi-square E0[r**2] - 1 = e^(d**2/s2) - 1
        # is the Gaussian's at mu**2 = d**2/s2 exactly (P1(z)**2/P0(z) is e^(d**2/s2) P0(z - 2d))
        base = min(_square_range(self), float(min(4 * self.d**2 / self.s2, Fraction(10**300))) + 1)
        q = float(self.q)
        if q < 1:
            mu2 = float(min(Fraction(self.d**2) / self.s2, Fraction(700)))
            base = min(base, q * q * math.expm1(mu2) / (1 - q))
        return base

    def classes(self, arb, prec: int) -> tuple:
        """``([(p1_z, p0_z) for z = -M .. M + d], tail)`` as balls: ``tail`` bounds the mass of
        either measure outside those ``z``."""
        m, d = self._cut(prec), self.d
        c = 1 / _ball(arb, 2 * self.s2)
        w = {z: (-(c * z * z)).exp() for z in range(-m - d, m + d + 1)}
        k = m + 1  # sum_{z > m} e^(-c z^2) <= e^(-c k^2) / (1 - e^(-c (2k + 1))): ratios shrink
        one_side = (-(c * k * k)).exp() / (1 - (-(c * (2 * k + 1))).exp())
        kept = w[0] + 2 * sum((w[z] for z in range(1, m + 1)), arb(0))
        norm = kept + arb(0).union(2 * one_side)  # the normalising constant: kept plus both tails
        out = [(w[z - d] / norm, w[z] / norm) for z in range(-m, m + d + 1)]
        # P0 outside [-m, m + d] (z < -m, z > m) and P1 outside it (z - d < -m - d, z - d > m):
        # each at most two one-sided tails
        tail = 2 * one_side / norm
        return out, tail

    def _ordered(self, prof) -> tuple:
        """Per profile (one direction, one precision): the classes' ``(P_c, Q_c)`` ordered so that
        ``P_c - a Q_c > 0`` holds on a suffix for every ``a``, their suffix sums, and the tail.

        The order is the argument: ``P1(z)/P0(z) = e^((2 d z - d**2) / (2 s2))`` increases with ``z``.
        Remove: ``P_c - a Q_c = P0(z) (q r(z) + 1 - q - a)``, positive exactly for ``z`` above a
        threshold (ascending ``z``). Add: ``P_c - a Q_c = P0(z) (1 - a (1 - q) - a q r(z))``, positive
        exactly for ``z`` below one (descending ``z``)."""
        if "_ordered" not in prof.__dict__:
            arb = prof.arb
            cls, tail = self.classes(arb, prof.prec)
            q, keep = prof.q, prof.keep
            pairs = []
            for p1, p0 in cls:
                mix = q * p1 + keep * p0
                pairs.append((mix, p0) if prof.direction == "remove" else (p0, mix))
            if prof.direction != "remove":
                pairs.reverse()
            suf_p, suf_q = [arb(0)] * (len(pairs) + 1), [arb(0)] * (len(pairs) + 1)
            for i in range(len(pairs) - 1, -1, -1):
                suf_p[i] = suf_p[i + 1] + pairs[i][0]
                suf_q[i] = suf_q[i + 1] + pairs[i][1]
            prof._ordered = pairs, suf_p, suf_q, tail
        return prof._ordered

    def point(self, prof, n: int) -> tuple:
        """``(a, H(a), Q[L > log a])`` at ``a = e^(n h)``: ``H(a) = sum_c (P_c - a Q_c)_+``.

        The classes are ordered so that the positive terms form a suffix (:meth:`_ordered`); a
        binary search finds an index ``i0`` certified positive, so every later class is truly
        positive and is added from the suffix sums; from ``i0 - 1`` down, classes are added one by
        one (a positive one in full, an undecided one as ``[0, term]``) until one is certified
        nonpositive: every earlier one is then truly nonpositive and adds nothing. (Summing every
        class at every grid point cost points x classes: sigma = 1000 took 9 s at k = 1.)"""
        arb = prof.arb
        a = (prof.hb * n).exp()
        pairs, suf_p, suf_q, tail = self._ordered(prof)

        def positive(i):
            return bool(pairs[i][0] - a * pairs[i][1] > 0)

        lo, hi = 0, len(pairs)  # find the least certified-positive index, if the search can
        while lo < hi:
            mid = (lo + hi) // 2
            if positive(mid):
                hi = mid
            else:
                lo = mid + 1
        i0 = lo if lo < len(pairs) and positive(lo) else len(pairs)
        hv = suf_p[i0] - a * suf_q[i0]
        qt = suf_q[i0]
        for i in range(i0 - 1, -1, -1):
            pc, qc = pairs[i]
            dd = pc - a * qc
            if bool(dd > 0):
                hv, qt = hv + dd, qt + qc
            elif bool(dd <= 0):
                break  # every earlier class is truly nonpositive
            else:
                hv = hv + arb(0).union(dd)
                qt = qt + arb(0).union(qc)
        between = arb(0).union(tail)  # the outputs left out: between 0 and their mass
        return a, hv + between, qt + between


@dataclass(frozen=True)
class WithoutReplacement:
    """A mechanism run on a batch of ``batch`` records drawn uniformly without replacement from
    ``population``, under substitute (replace-one) neighbours. ``base`` is the same mechanism's
    Poisson model at the rate ``gamma = batch / population`` (a :class:`PoissonGaussian`,
    :class:`PoissonLaplace`, :class:`PoissonFinite` or :class:`PoissonDiscreteGaussian`), its
    sensitivity the query's under substitution.

    Its tight dominating pair (``proofs/accountant-profile.md``, step 8) is one symmetric pair
    whose profile is the remove pair's ``(gamma P1 + (1 - gamma) P0, P0)`` for ``a >= 1`` and the
    add pair's ``(P0, gamma P1 + (1 - gamma) P0)`` for ``a < 1``: ``point`` hands ``n >= 0`` to the
    remove profile and ``n < 0`` to the add profile, in either direction (both directions are
    this one pair)."""

    base: object
    batch: int
    population: int

    def __post_init__(self):
        if not 1 <= self.batch <= self.population:
            raise InvalidArgument(f"batch={self.batch} is not between 1 and population={self.population}")
        if self.base.q != Fraction(self.batch, self.population):
            raise InvalidArgument(f"the base model's rate {self.base.q} is not batch/population")

    @property
    def q(self) -> Fraction:
        return self.base.q

    @property
    def mu(self):
        # the Renyi DP view reads the Poisson-subsampled Gaussian's mu: refuse rather than be read as Poisson
        raise InvalidArgument("sampling=without-replacement has no Renyi DP computation yet (the RDP view "
                              "subsamples only with sampling=poisson); use the certified (epsilon, delta) "
                              "accountant without --rdp")

    @property
    def label(self) -> str:
        base = "subsampled Gaussian" if isinstance(self.base, PoissonGaussian) else self.base.label
        return f"{base} (batch {self.batch} of {self.population} without replacement)"

    @property
    def grid_order(self) -> int:
        return getattr(self.base, "grid_order", 2)

    def grid_range(self, direction: str, h: Fraction, tail_bits: int) -> tuple[int, int]:
        """The grid indices: the add pair's least loss to the remove pair's largest (either
        direction: the pair is the same)."""
        return grid_points(self.base, "add", h, tail_bits)[0], grid_points(self.base, "remove", h, tail_bits)[1]

    def loss_range(self, direction: str) -> tuple[float, float]:
        return self.base.loss_range("add")[0], self.base.loss_range("remove")[1]

    def variance_bound(self) -> float:
        if hasattr(self.base, "variance_bound"):
            return 2 * self.base.variance_bound()
        q, mu2 = float(self.base.q), float(min(self.base.mu, 10**100)) ** 2  # inf for a huge mu: as good
        bound = mu2 * (1 + mu2 / 4)
        if q < 1:
            bound = min(bound, q * q * math.expm1(min(mu2, 700.0)) / (1 - q))
        return 2 * bound  # the loss takes the remove pair's positive and the add pair's negative values

    def point(self, prof, n: int) -> tuple:
        """``(a, H(a), Q[L > log a])`` at ``a = e^(n h)``: the remove profile's for ``n >= 0``, the
        add profile's for ``n < 0`` (whatever ``prof.direction`` is)."""
        inner = prof.__dict__.setdefault("_wor", {})
        side = "remove" if n >= 0 else "add"
        if side not in inner:
            inner[side] = _Profile(self.base, side, prof.h, prof.prec)
        return inner[side].point(n)
