"""Sampler-level models: the exact output distribution of a sampler as it is written, not
as it was meant.

A sampler that turns **one uniform draw** ``u`` on a grid (Python's ``random()`` and
NumPy's ``uniform()`` return ``k / 2**53``, ``k = 0..2**53-1``) into an output
**monotonically** (outputs in a fixed order, each taking an interval of ``u``) is counted
exactly by :func:`grid_sampler_distribution`: the first grid point of each output is found
by bisection on ``k`` (``bits`` evaluations per boundary), and every interval's two ends
are evaluated again as a spot check (a sampler that is not monotone fails it with an
:class:`~exactdp.errors.InvalidArgument`). The probability of an output is its number of
grid points over ``2**bits``: a ``Fraction``, exact.

Uses:

* :func:`float_threshold_rr_distribution` / the ``float-randomized-response`` model:
  randomized response written ``truth if random() < p else flip`` with ``p`` a float.
  ``P(truth) = ceil(p·2^53)/2^53`` (``= p`` for ``p`` in ``[1/2, 1)``, whose grid is
  ``2^-53``): the exact epsilon is ``log(p_float/(1 - p_float))``, not the epsilon ``p``
  was computed from.
* :func:`float_exponential_cdf` / the ``exponential-float-sampler`` model: seed 002's
  sampler ``np.argmax(cdf >= np.random.uniform())`` over float probabilities
  ``exp(eps·(u - max u)/(2Δ))`` normalised and accumulated in float64. A candidate whose
  float cdf does not rise above the previous one by a grid point gets probability 0;
  next door it may get ``2^-53``: **infinite** epsilon, witness that candidate. (If no
  ``cdf[i] >= u``, ``argmax`` of all-False is candidate 0; modelled too.) The float
  operations are Python's (``math.exp``, left-to-right sums), the same as NumPy's for up
  to 8 candidates except that ``np.exp`` and ``math.exp`` may differ in the last bit on
  some platforms.
* :func:`float_laplace_distribution` / the ``float-laplace`` model: Laplace noise by the
  inverse CDF in a toy float format (:class:`~exactdp.numeric.floatformat.FloatFormat`),
  ``Y = b·ln(2u)`` for ``u < 1/2`` and ``-b·ln(2 - 2u)`` otherwise, every operation
  rounded to nearest in the format (``ln`` correctly rounded through interval
  enclosures), output ``x + Y`` rounded; ``u = k/2^g``, ``k = 1..2^g - 1`` equally likely,
  enumerated exactly. The outputs form a porous set that moves with ``x`` (Mironov 2012):
  an output reachable from ``x`` but not from ``x + 1`` gives infinite epsilon with that
  output as witness.

>>> grid_sampler_distribution(lambda u: 0 if u < Fraction(1, 3) else 1, [0, 1], bits=4).p(0)
Fraction(3, 8)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import positive
from exactdp.mechanisms.distribution import Distribution
from exactdp.mechanisms.mechanism import Mechanism, one_number
from exactdp.numeric.exact import from_float, show_exact, to_exact
from exactdp.numeric.floatformat import FloatFormat
from exactdp.numeric.intervals import enclose, exact_interval, interval_to_fractions
from exactdp.mechanisms.models.selection import _utilities

__all__ = [
    "MAX_ENUMERATED_GRID_BITS",
    "MAX_GRID_BITS",
    "MAX_SAMPLER_OUTPUTS",
    "float_exponential_cdf",
    "float_exponential_sampler_distribution",
    "float_laplace_distribution",
    "float_laplace_noise",
    "float_threshold_rr_distribution",
    "grid_sampler_counts",
    "grid_sampler_distribution",
]

MAX_SAMPLER_OUTPUTS = 100_000
"""Most outputs :func:`grid_sampler_distribution` bisects for (``bits`` calls each)."""

MAX_GRID_BITS = 64
"""Finest grid :func:`grid_sampler_distribution` takes (``2**bits`` points, never listed)."""

MAX_ENUMERATED_GRID_BITS = 16
"""Finest grid :func:`float_laplace_distribution` enumerates point by point."""

_FALLBACK = object()  # np.argmax of an all-False array


def _bits(bits, most: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
        raise InvalidArgument(f"bits={bits!r} is not a whole number >= 1")
    refuse_above(bits, most, what="bits of grid", option=None, hint="use a coarser grid")
    return bits


def grid_sampler_counts(sample_fn: Callable[[Fraction], Hashable], outputs_in_order: Sequence,
                        bits: int = 53) -> dict:
    """``{output: number of k in 0..2^bits-1 with sample_fn(k/2^bits) == output}`` for a
    sampler monotone in ``u`` (``outputs_in_order`` lists every output in the order
    ``u`` meets them); boundaries by bisection, each interval's ends spot-checked."""
    bits = _bits(bits, MAX_GRID_BITS)
    outs = list(outputs_in_order)
    if not outs:
        raise InvalidArgument("outputs_in_order is empty; list the sampler's outputs in order")
    refuse_above(len(outs), MAX_SAMPLER_OUTPUTS, what="sampler outputs", option=None,
                 hint="model a sampler with fewer outputs")
    index = {}
    for i, o in enumerate(outs):
        if o in index:
            raise InvalidArgument(f"output {o!r} is listed twice in outputs_in_order")
        index[o] = i
    n = 1 << bits

    def idx(k: int) -> int:
        o = sample_fn(Fraction(k, n))
        if o not in index:
            raise InvalidArgument(f"the sampler returned {o!r} at u={k}/2^{bits}, which is not in "
                                  f"outputs_in_order")
        return index[o]

    bounds = [0]
    for i in range(1, len(outs)):
        lo, hi = bounds[-1], n  # the first k with idx(k) >= i lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if idx(mid) >= i:
                hi = mid
            else:
                lo = mid + 1
        bounds.append(lo)
    bounds.append(n)
    counts = {}
    for i, o in enumerate(outs):
        a, b = bounds[i], bounds[i + 1]
        if b > a:
            for k in (a, b - 1):  # spot check: both ends of the interval give this output
                if idx(k) != i:
                    raise InvalidArgument(
                        f"the sampler is not monotone in u: u={k}/2^{bits} gives "
                        f"{outs[idx(k)]!r}, expected {o!r} between its boundaries")
            counts[o] = b - a
    return counts


def grid_sampler_distribution(sample_fn: Callable[[Fraction], Hashable], outputs_in_order: Sequence,
                              bits: int = 53) -> Distribution:
    """The exact output distribution of a monotone one-draw sampler (module docstring)."""
    counts = grid_sampler_counts(sample_fn, outputs_in_order, bits)
    n = 1 << bits
    return Distribution({o: Fraction(c, n) for o, c in counts.items()})


# --- randomized response with a float threshold ---------------------------------------


def float_threshold_rr_distribution(p_float: float, truth: int, bits: int = 53) -> Distribution:
    """Binary randomized response written ``truth if u < p_float else 1 - truth``, with
    ``u`` on the ``2^-bits`` grid."""
    p = from_float(p_float)
    if not 0 <= p <= 1:
        raise InvalidArgument(f"p_float={p_float!r} is not a probability in [0, 1]")
    if truth not in (0, 1):
        raise InvalidArgument(f"truth={truth!r} is not 0 or 1")
    return grid_sampler_distribution(lambda u: truth if u < p else 1 - truth, [truth, 1 - truth], bits)


class FloatRandomizedResponse(Mechanism):
    """``float-randomized-response``: ``p`` is the float a program stores (the float
    nearest to the exact ``p`` given, or ``math.exp(eps)/(1 + math.exp(eps))`` computed in
    float64 for ``epsilon``)."""

    name = "float-randomized-response"

    def __init__(self, *, p=None, epsilon=None, bits=53):
        if (p is None) == (epsilon is None):
            raise InvalidArgument("float-randomized-response takes p=... or epsilon=..., exactly one")
        if p is not None:
            exact = to_exact(p, "p")
            if not 0 <= exact <= 1:
                raise InvalidArgument(f"p={show_exact(exact)} is not a probability in [0, 1]")
            self.p_float = float(exact)  # nearest float, as the program stores it
        else:
            e = float(positive(epsilon, "epsilon"))
            self.p_float = math.exp(e) / (1 + math.exp(e))
        self.bits = _bits(bits, MAX_GRID_BITS)
        super().__init__(**({"p": to_exact(p, "p")} if p is not None else {"epsilon": to_exact(epsilon)}),
                         p_float=from_float(self.p_float))

    def check_value(self, value):
        v = one_number(value, self)
        if v not in (0, 1):
            raise InvalidArgument(f"value={show_exact(v)} is not 0 or 1")
        return int(v)

    def distribution(self, value) -> Distribution:
        return float_threshold_rr_distribution(self.p_float, self.check_value(value), self.bits)


# --- seed 002's float sampler for the exponential mechanism ----------------------------


def float_exponential_cdf(scores: Sequence, epsilon: float, sensitivity: float) -> list[Fraction]:
    """The float64 cdf of seed 002's sampler, at its exact binary values: ``scores - max``,
    ``exp(epsilon * s / (2 * sensitivity))``, divided by their (left-to-right) sum,
    accumulated left to right."""
    s = [float(x) for x in scores]
    top = max(s)
    likelihoods = [math.exp(epsilon * (x - top) / (2 * sensitivity)) for x in s]
    total = 0.0
    for w in likelihoods:
        total += w
    cdf, acc = [], 0.0
    for w in likelihoods:
        acc += w / total
        cdf.append(from_float(acc))
    return cdf


def float_exponential_sampler_distribution(scores: Sequence, epsilon: float, sensitivity: float,
                                           bits: int = 53) -> Distribution:
    """The exact output distribution of ``argmax(cdf >= u)`` (index 0 when no entry is
    ``>= u``), ``u`` on the ``2^-bits`` grid."""
    cdf = float_exponential_cdf(scores, epsilon, sensitivity)
    m = len(cdf)

    def sample(u: Fraction):
        for i, c in enumerate(cdf):
            if c >= u:
                return i
        return _FALLBACK

    counts = grid_sampler_counts(sample, list(range(m)) + [_FALLBACK], bits)
    if _FALLBACK in counts:
        counts[0] = counts.get(0, 0) + counts.pop(_FALLBACK)
    n = 1 << bits
    return Distribution({o: Fraction(c, n) for o, c in counts.items()})


class FloatExponentialSampler(Mechanism):
    """``exponential-float-sampler``: seed 002's exponential mechanism as written (float
    probabilities, ``argmax(cdf >= uniform())``). Parameters are converted to the float
    nearest to them, as the program holds them; utilities too."""

    name = "exponential-float-sampler"
    input_kind = "vector"

    def __init__(self, *, epsilon, sensitivity=1, max_candidates=1000):
        self.eps = positive(epsilon, "epsilon")
        self.sensitivity = positive(sensitivity, "sensitivity")
        self.max_candidates = max_candidates
        super().__init__(epsilon=self.eps, sensitivity=self.sensitivity)

    def check_value(self, value):
        return _utilities(value, self.max_candidates)

    def distribution(self, value) -> Distribution:
        u = self.check_value(value)
        return float_exponential_sampler_distribution(u, float(self.eps), float(self.sensitivity))


# --- a float Laplace sampler in a toy format: Mironov's porous outputs --------------------


def _round_log(fmt: FloatFormat, t: Fraction) -> Fraction:
    """``ln t`` correctly rounded to nearest in ``fmt`` (``t > 0`` dyadic)."""
    if t == 1:
        return Fraction(0)
    prec = 64
    while True:
        lo, hi = interval_to_fractions(enclose(lambda iv: iv.log(exact_interval(t)), prec=prec))
        a, b = fmt.round(lo), fmt.round(hi)
        if a == b:
            return a
        if prec > 4096:  # ln of a dyadic t != 1 is transcendental: never a tie; unreachable
            raise InvalidArgument(f"cannot round ln({t}) in {fmt.name}")
        prec *= 2


def float_laplace_noise(fmt: FloatFormat, scale, grid_bits: int) -> dict:
    """``{k: Y_k}``: the noise for ``u = k/2^g``, ``k = 1..2^g-1``, by the inverse CDF with
    every operation rounded in ``fmt`` (module docstring)."""
    g = _bits(grid_bits, MAX_ENUMERATED_GRID_BITS)
    if g > fmt.precision - 1:
        raise InvalidArgument(
            f"grid_bits={g} needs a format of precision >= {g + 1} (precision={fmt.precision}): "
            f"u = k/2^{g} and 2 - 2u must be exact, or ln(0) = -inf appears; use fewer grid bits")
    b = fmt.round(positive(scale, "scale"))
    n = 1 << g
    out = {}
    for k in range(1, n):
        u = fmt.round(Fraction(k, n))
        if u < Fraction(1, 2):
            y = fmt.round(b * _round_log(fmt, fmt.round(2 * u)))
        else:
            y = -fmt.round(b * _round_log(fmt, fmt.round(2 - fmt.round(2 * u))))
        out[k] = y
    return out


def float_laplace_distribution(x, fmt: FloatFormat, scale, grid_bits: int = 10,
                               noise: dict | None = None) -> Distribution:
    """The exact output distribution of ``round(x + Y)`` over the ``2^g - 1`` equally
    likely grid points (``noise`` from :func:`float_laplace_noise` can be shared)."""
    xv = fmt.round(to_exact(x, "x"))
    ys = noise if noise is not None else float_laplace_noise(fmt, scale, grid_bits)
    counts: dict = {}
    for y in ys.values():
        o = fmt.round(xv + y)
        counts[o] = counts.get(o, 0) + 1
    total = len(ys)
    return Distribution({o: Fraction(c, total) for o, c in counts.items()})


class FloatLaplace(Mechanism):
    """``float-laplace``: Laplace noise by the inverse CDF in a toy float format (module
    docstring), on a query value in the format."""

    name = "float-laplace"

    def __init__(self, *, scale, precision=12, emin=-14, emax=15, grid_bits=10):
        self.fmt = FloatFormat.toy(int(to_exact(precision, "precision")), int(to_exact(emin, "emin")),
                                   int(to_exact(emax, "emax")))
        self.scale = positive(scale, "scale")
        self.grid_bits = _bits(int(to_exact(grid_bits, "grid_bits")), MAX_ENUMERATED_GRID_BITS)
        self._noise = None
        super().__init__(scale=self.scale, precision=self.fmt.precision, emin=self.fmt.emin,
                         emax=self.fmt.emax, grid_bits=self.grid_bits)

    def check_value(self, value):
        return one_number(value, self)

    def distribution(self, value) -> Distribution:
        if self._noise is None:
            self._noise = float_laplace_noise(self.fmt, self.scale, self.grid_bits)
        return float_laplace_distribution(self.check_value(value), self.fmt, self.scale,
                                          noise=self._noise)
