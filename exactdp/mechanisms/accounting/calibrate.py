"""DP-SGD calibrated by the certified accountant: the noise multiplier (or the number of steps)
whose certified epsilon is at most a target, never an uncertified one.

``calibrate_dp_sgd(epsilon, delta, rate, steps=K)`` returns a sigma (a short decimal, rounded
up) whose certified ``epsilon_upper`` at ``delta`` is at most ``epsilon`` after ``K`` steps of
the Poisson-subsampled Gaussian (add/remove neighbours), and whose neighbour ``0.99 sigma`` has a
certified ``epsilon_lower`` above ``epsilon``: the sigma is within 1% of the smallest one that
works, and both accountings come back with the result. With ``sigma=S`` instead of ``steps`` it
returns the largest number of steps whose certified epsilon is at most the target (and the next
number's certified lower end above it).

The search uses that epsilon does not increase with sigma (more noise is post-processing: add
independent noise to the output) nor decrease with the steps; every number it returns is read
off certified enclosures, and a comparison the enclosure cannot decide at the finest width is
refused, never guessed.

>>> r = calibrate_dp_sgd("1", "1e-5", "0.1", steps=10)
>>> r.sigma, r.certified
(Fraction(7, 4), True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import ROUND_CEILING, Context, Decimal
from fractions import Fraction
from typing import Any

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms._params import open_probability, positive
from exactdp.mechanisms.accounting.accountant import AccountResult, account
from exactdp.numeric.exact import show_exact, to_exact

__all__ = ["Calibrated", "calibrate_dp_sgd", "MAX_SIGMA", "MAX_STEPS", "MAX_CALLS"]

MAX_SIGMA = Fraction(10**4)
"""The largest noise multiplier tried (a target no sigma up to it reaches is refused)."""

MAX_STEPS = 10**6
"""The largest number of steps tried in steps mode."""

MAX_CALLS = 60
"""Most accountant calls one calibration may make (each certified; refused above)."""

_WIDTHS = (Fraction(1, 10**3), Fraction(1, 10**5), Fraction(1, 10**7))
"""The widths an undecided comparison is retried at, coarsest first."""

_DIGITS = 4  # significant digits of the sigmas tried


@dataclass(frozen=True)
class Calibrated:
    """A DP-SGD calibration: the parameter found, the accounting that certifies it (``at``:
    epsilon at most the target) and the one that shows it is nearly the best (``beyond``:
    ``0.99 sigma``, or one step more, certified above the target)."""

    epsilon: Fraction
    delta: Fraction
    rate: Fraction
    sigma: Fraction
    steps: int
    solved_for: str  # "sigma" or "steps"
    at: AccountResult
    beyond: AccountResult | None
    calls: int
    seconds: float

    @property
    def certified(self) -> bool:
        """The answer's own accounting is at most the target, and the next candidate's above it."""
        return self.at.epsilon_upper <= self.epsilon and (
            self.beyond is None or self.beyond.epsilon_lower > self.epsilon)

    def __str__(self) -> str:
        lo, hi = self.at.decimal_bounds()
        head = (f"DP-SGD at rate {show_exact(self.rate)}, delta {show_exact(self.delta)}, target epsilon "
                f"{show_exact(self.epsilon)}: ")
        if self.solved_for == "sigma":
            head += f"sigma = {_decimal(self.sigma)} for {self.steps:,} steps"
        else:
            head += f"{self.steps:,} steps at sigma = {_decimal(self.sigma)}"
        lines = [head, f"  certified epsilon in [{lo}, {hi}] (at most the target)"]
        if self.beyond is not None:
            blo, bhi = self.beyond.decimal_bounds()
            what = f"0.99 sigma = {_decimal(self.sigma * Fraction(99, 100))}" if self.solved_for == "sigma" \
                else f"{self.steps + 1:,} steps"
            lines.append(f"  at {what}: certified epsilon in [{blo}, {bhi}] (above the target)")
        lines.append(f"  {self.calls} certified accountings, {self.seconds:.2f} s")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"solved_for": self.solved_for, "sigma": _decimal(self.sigma), "steps": self.steps,
                "target": {"epsilon": show_exact(self.epsilon), "delta": show_exact(self.delta)},
                "rate": show_exact(self.rate), "certified": self.certified, "at": self.at.to_dict(),
                "beyond": None if self.beyond is None else self.beyond.to_dict(),
                "calls": self.calls, "seconds": round(self.seconds, 3)}


def _decimal(x: Fraction) -> str:
    d = Decimal(x.numerator) / Decimal(x.denominator)
    return format(d.normalize(), "f") if x.denominator != 1 else str(x.numerator)


def _short_up(x: Fraction) -> Fraction:
    """``x`` rounded up to :data:`_DIGITS` significant digits (an exact short decimal)."""
    ctx = Context(prec=_DIGITS, rounding=ROUND_CEILING)
    d = ctx.divide(Decimal(x.numerator), Decimal(x.denominator))
    return Fraction(d)


class _Search:
    """The accountings of one calibration, counted against :data:`MAX_CALLS`."""

    def __init__(self, epsilon: Fraction, delta: Fraction, rate: Fraction, max_slots: Any):
        self.epsilon, self.delta, self.rate, self.max_slots = epsilon, delta, rate, max_slots
        self.calls = 0

    def account(self, sigma: Fraction, steps: int, width: Fraction) -> AccountResult:
        self.calls += 1
        refuse_above(self.calls, MAX_CALLS, what="certified accountings in one calibration", option=None,
                     hint="give a target further from the edge, or a larger tolerance")
        return account("gaussian", steps, delta=self.delta, width=width, max_slots=self.max_slots,
                       params={"sigma": sigma, "sampling": "poisson", "rate": self.rate})

    def side(self, sigma: Fraction, steps: int) -> tuple[bool, AccountResult]:
        """``(True, r)`` when ``epsilon_upper <= target`` (private enough), ``(False, r)`` when
        ``epsilon_lower > target``; refined through :data:`_WIDTHS`; else :class:`Undecided`."""
        for width in _WIDTHS:
            r = self.account(sigma, steps, width)
            if r.epsilon_upper <= self.epsilon:
                return True, r
            if r.epsilon_lower > self.epsilon:
                return False, r
        raise Undecided(f"sigma={_decimal(sigma)}, steps={steps:,}: the certified epsilon [{_decimal(r.epsilon_lower)}, "
                        f"{_decimal(r.epsilon_upper)}] still holds the target {show_exact(self.epsilon)} at width "
                        f"{_decimal(_WIDTHS[-1])}: choose a target a little further from this value")


def calibrate_dp_sgd(epsilon, delta, rate, steps=None, sigma=None, *, max_slots: Any = "auto") -> Calibrated:
    """The sigma (given ``steps``) or the number of steps (given ``sigma``) of DP-SGD (the
    Poisson-subsampled Gaussian, sampling ``rate``, add/remove neighbours) whose certified
    ``epsilon(delta)`` is at most ``epsilon``; see the module docstring."""
    started = time.monotonic()
    eps = positive(epsilon, "epsilon")
    d = open_probability(delta, "delta")
    q = to_exact(rate, "rate")
    if not 0 < q <= 1:
        raise InvalidArgument(f"rate={show_exact(q)} is not a sampling rate in (0, 1]: each record joins a "
                              f"batch with this probability, e.g. rate=0.01")
    if (steps is None) == (sigma is None):
        raise InvalidArgument("give steps= (to solve for sigma) or sigma= (to solve for the steps), one of them")
    search = _Search(eps, d, q, max_slots)
    if sigma is None:
        k = _steps(steps)
        return _solve_sigma(search, k, started)
    s = positive(sigma, "sigma")
    return _solve_steps(search, s, started)


def _steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, str)) or (isinstance(steps, str) and not steps.strip().isdigit()):
        raise InvalidArgument(f"steps={steps!r} is not a whole number of steps; give e.g. steps=1000")
    k = int(steps)
    if not 1 <= k <= MAX_STEPS:
        raise InvalidArgument(f"steps={k:,} is outside 1..{MAX_STEPS:,}")
    return k


def _solve_sigma(search: _Search, k: int, started: float) -> Calibrated:
    hi, lo = Fraction(1), None
    ok, r_hi = search.side(hi, k)
    while not ok:  # too little noise: double until private enough
        lo = hi
        hi *= 2
        if hi > MAX_SIGMA:
            raise InvalidArgument(f"no sigma up to {MAX_SIGMA} gives epsilon {show_exact(search.epsilon)} at delta "
                                  f"{show_exact(search.delta)} after {k:,} steps at rate {show_exact(search.rate)}")
        ok, r_hi = search.side(hi, k)
    while lo is None:  # private enough at 1: halve until not
        candidate = hi / 2
        ok, r = search.side(candidate, k)
        if ok:
            hi, r_hi = candidate, r
        else:
            lo = candidate
    while True:  # lo not private enough, hi private enough
        below = _short_up(hi * Fraction(99, 100))
        if below <= lo:  # hi is within 1% of the boundary: certify 0.99 hi
            ok, r_below = search.side(hi * Fraction(99, 100), k)
            if not ok:
                return Calibrated(search.epsilon, search.delta, search.rate, hi, k, "sigma", r_hi, r_below,
                                  search.calls, time.monotonic() - started)
            hi, r_hi = hi * Fraction(99, 100), r_below  # rare: 0.99 hi still private enough
            hi = _short_up(hi)
            ok, r_hi = search.side(hi, k)
            continue
        mid = _short_up((lo + hi) / 2)
        if mid >= hi or mid <= lo:
            mid = below
        ok, r = search.side(mid, k)
        if ok:
            hi, r_hi = mid, r
        else:
            lo = mid


def _solve_steps(search: _Search, s: Fraction, started: float) -> Calibrated:
    ok, r_one = search.side(s, 1)
    if not ok:
        raise InvalidArgument(f"even one step at sigma={_decimal(s)} has certified epsilon above "
                              f"{show_exact(search.epsilon)}: give a larger sigma or a larger target")
    good, r_good, bad = 1, r_one, None
    while bad is None:  # double the steps until one count is above the target
        k = good * 2
        if k > MAX_STEPS:
            raise InvalidArgument(f"{MAX_STEPS:,} steps at sigma={_decimal(s)} stay within epsilon "
                                  f"{show_exact(search.epsilon)}: more steps than exactdp tries")
        ok, r = search.side(s, k)
        if ok:
            good, r_good = k, r
        else:
            bad, r_bad = k, r
    while bad - good > 1:
        k = (good + bad) // 2
        ok, r = search.side(s, k)
        if ok:
            good, r_good = k, r
        else:
            bad, r_bad = k, r
    return Calibrated(search.epsilon, search.delta, search.rate, s, good, "steps", r_good, r_bad,
                      search.calls, time.monotonic() - started)
