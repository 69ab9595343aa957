"""Sound upper bounds on the sensitivity of clipped sums computed in floating point.

A dataset is a multiset of values of a format ``fmt`` lying in ``[L, U]``, of size at most
``max_n`` (or exactly ``max_n`` with ``known_n=True``), and the summation algorithm may
read it in *any* order: the adversary orders both neighbours. With ``M = max(|L|, |U|)``,
``f`` the exact sum and ``f^`` the stored float result, the triangle inequality gives

    |f^(x) - f^(x')| <= |f(x) - f(x')| + |f^(x) - f(x)| + |f^(x') - f(x')|,

so :func:`sensitivity_bound` is :func:`exact_sum_sensitivity` plus the rounding-error
bound of the model (:func:`rounding_error_bound`) for the sizes of both datasets. Each
model's rounding-error bound is proved in ``proofs/floatsum-<model>.md``; all are exact
rationals (no float is used), and all rest on one fact about round to nearest: for values
``a``, ``b`` of the format, ``fl(a + b) = (a + b)(1 + d)`` with ``|d| <= u = 2**-p``,
*including* gradual underflow (a sum or difference that lands in the subnormal range is a
multiple of the smallest subnormal below ``2**emin``, hence exact), as long as nothing
overflows; that is checked (``n * M`` plus the error bound must stay below the largest
finite value) and :class:`~exactdp.errors.InvalidArgument` is raised otherwise.

For comparison, :func:`opendp_relaxation` and :func:`opendp_stability_map` reproduce the
terms OpenDP adds for its ``Sequential`` and ``Pairwise`` sums (exact SymPy values).

>>> sensitivity_bound("fsum", "float64", bounds=(0, 1), max_n=2**20) - 1  # ulp(2**20)/2 + ulp(2**20 - 1)/2
Fraction(3, 17179869184)
>>> sequential_bound("float64", 10, 2**20) < opendp_relaxation("sequential", "float64", (-10, 10), 2**20) / 4
True
"""

from __future__ import annotations

import functools
from fractions import Fraction

import sympy

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import show_exact, to_exact
from exactdp.numeric.floatformat import FloatFormat, _pow2, floor_log2, format_named
from exactdp.numeric.floatsum import LIBRARY_MODELS, MODEL_NAMES, PAIRWISE_BLOCKSIZE

__all__ = [
    "NEIGHBORS",
    "exact_sum_sensitivity",
    "fsum_bound",
    "kahan_bound",
    "neumaier_bound",
    "numpy_pairwise_depths",
    "opendp_pairwise_bound",
    "opendp_pairwise_depths",
    "opendp_relaxation",
    "opendp_stability_map",
    "pairwise_bound",
    "rounding_error_bound",
    "sensitivity_bound",
    "sequential_bound",
]

NEIGHBORS = ("add-remove", "substitute")


# -- argument checks ------------------------------------------------------------------------

def _count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f"{name}={value!r} is not an integer >= {minimum}; pass one")
    return value


def _magnitude(value: object) -> Fraction:
    m = to_exact(value, "magnitude")
    if m < 0:
        raise InvalidArgument(f"magnitude={value!r} is negative; pass max(|L|, |U|) >= 0")
    return m


def _bounds(bounds: object) -> tuple[Fraction, Fraction]:
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise InvalidArgument(f"bounds={bounds!r} is not a pair (L, U); pass e.g. (0, 1)")
    lower, upper = to_exact(bounds[0], "L"), to_exact(bounds[1], "U")
    if lower > upper:
        raise InvalidArgument(f"Cannot have L={show_exact(bounds[0])} > U={show_exact(bounds[1])}; pass L <= U")
    return lower, upper


def _size_text(x: Fraction) -> str:
    """A short, readable size of a positive exact number (``float`` overflows past 1.8e308)."""
    k = x.numerator.bit_length() - x.denominator.bit_length()
    return f"{float(x):.10g}" if -1000 < k < 1000 else f"about 2**{k}"


def _no_overflow(fmt: FloatFormat, largest: Fraction, what: str) -> None:
    if largest > fmt.max_value:
        raise InvalidArgument(
            f"{what}: intermediate results may reach {_size_text(largest)}, above the largest "
            f"finite value of {fmt.name} ({float(fmt.max_value):.10g}); overflow is not "
            f"covered by this bound: use smaller bounds, a smaller max_n or a wider format")


def _gamma_denominator(fmt: FloatFormat, depth: int, what: str) -> Fraction:
    """``1 - depth*u``, which must be positive for ``gamma_depth`` to exist."""
    den = 1 - depth * fmt.unit_roundoff
    if den <= 0:
        raise InvalidArgument(
            f"{what}: {depth} chained roundings with u = 2**-{fmt.precision} leave no "
            f"bound of the form depth*u/(1 - depth*u); use a smaller max_n or a wider format")
    return den


# -- per-model rounding-error bounds ---------------------------------------------------------
# Each returns E with |f^(x) - sum(x)| <= E for every dataset of at most n values of fmt
# with |x_i| <= magnitude, in any order (pairwise_bound(exact_size=True): exactly n).

def _ceil_div(a: Fraction, b: Fraction) -> int:
    return -((-a) // b)


def _sequential_staircase(fmt: FloatFormat, m: Fraction, n: int) -> Fraction:
    """``E_n`` of the recursion ``E_1 = 0``, ``E_k = E_(k-1) + h(k M + E_(k-1))`` with
    ``h(v) = 2**(floor(log2 v) - p)`` (half an ulp at ``v``), or 0 below ``2**emin``;
    computed binade by binade. Raises ``InvalidArgument`` if some ``k M + E_(k-1)`` could
    exceed ``max_value``."""
    err, k = Fraction(0), 2
    while k <= n:
        v = k * m + err
        if v < fmt.min_normal:  # additions landing below 2**emin are exact
            k += min(_ceil_div(fmt.min_normal - v, m), n - k + 1)
            continue
        e = floor_log2(v)
        half_ulp = _pow2(e - fmt.precision)
        step = m + half_ulp
        j = min(_ceil_div(_pow2(e + 1) - v, step), n - k + 1)
        _no_overflow(fmt, v + (j - 1) * step, "sequential")
        err += j * half_ulp
        k += j
    return err


def sequential_bound(fmt: FloatFormat | str, magnitude: object, n: int) -> Fraction:
    """Rounding-error bound of the left fold over at most ``n`` values of magnitude <= M:
    the smaller of ``M * u * (n-1)(n+2)/2 / (1 - (n-1)u)`` (Higham's ``gamma`` bound,
    element by element; only when ``(n-1)u < 1``) and the *staircase* bound, the sum over
    the additions of half an ulp at a bound of each partial sum (no condition on ``n*u``).
    Also valid for ``sorted`` and ``sorted-magnitude`` (a particular order).

    >>> sequential_bound(FloatFormat.toy(3, -2, 5), 1, 4)   # 1/4 + 1/4 + 1/2
    Fraction(1, 1)
    """
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    if n <= 1 or m == 0:
        return Fraction(0)
    err = _sequential_staircase(fmt, m, n)   # also checks that nothing overflows
    den = 1 - (n - 1) * fmt.unit_roundoff
    if den > 0:
        err = min(err, m * fmt.unit_roundoff * Fraction((n - 1) * (n + 2), 2) / den)
    return err


def sequential_stagnation(fmt: FloatFormat | str, magnitude: object) -> Fraction | None:
    """A bound ``T`` on every partial sum of a left fold over any number of values with
    ``|x_i| <= M``: ``T = 2**e`` for the smallest ``e >= emin`` whose spacing
    ``2**(e - p + 1)`` exceeds ``2M`` (from there on an addition can no longer move the
    sum outward). ``None`` when that ``T`` is beyond the format's largest value.

    >>> sequential_stagnation("float32", 1)   # float32 sums of values in [-1, 1] stay in [-2**25, 2**25]
    Fraction(33554432, 1)
    """
    fmt, m = format_named(fmt), _magnitude(magnitude)
    if m == 0:
        return Fraction(0)
    e = max(fmt.emin, floor_log2(m))
    while _pow2(e - fmt.precision + 1) <= 2 * m:
        e += 1
    return _pow2(e) if e <= fmt.emax else None


@functools.lru_cache(maxsize=4096)
def numpy_pairwise_depths(n: int) -> tuple[int, int]:
    """``(total, deepest)``: the sum over the ``n`` inputs of the number of rounded
    additions on each input's path to NumPy's pairwise result, and the largest such number.

    >>> numpy_pairwise_depths(8), numpy_pairwise_depths(127), numpy_pairwise_depths(128)
    ((24, 3), (2180, 24), (1464, 18))
    """
    _count(n, "n", 0)
    if n < 8:  # res = 0; res += x_i: the first addition is exact
        return ((n - 1) * (n + 2) // 2, n - 1) if n else (0, 0)
    if n <= PAIRWISE_BLOCKSIZE:
        q, r = divmod(n, 8)  # 8 accumulators of q inputs, a 3-level tree, r more additions
        total = 8 * ((q - 1) * (q + 2) // 2) + 8 * q * (3 + r) + r * (r + 1) // 2
        return total, q - 1 + 3 + r
    n2 = n // 2 - (n // 2) % 8
    t1, d1 = numpy_pairwise_depths(n2)
    t2, d2 = numpy_pairwise_depths(n - n2)
    return t1 + t2 + n, 1 + max(d1, d2)


@functools.lru_cache(maxsize=4096)
def _pairwise_envelope(n: int) -> tuple[int, int]:
    """Upper bounds on ``max(total)`` and ``max(deepest)`` over all sizes ``0..n``."""
    if n <= PAIRWISE_BLOCKSIZE:
        pairs = [numpy_pairwise_depths(k) for k in range(n + 1)]
        return max(t for t, _ in pairs), max(d for _, d in pairs)
    k, j = divmod(n, 16)
    low_half = 8 * k                      # largest n2 = 8*floor(k'/16) over sizes <= n
    high_half = 8 * k + max(j, 7)         # largest k' - n2 over sizes <= n
    t0, d0 = _pairwise_envelope(PAIRWISE_BLOCKSIZE)
    tl, _ = _pairwise_envelope(low_half)
    th, dh = _pairwise_envelope(high_half)
    return max(t0, n + tl + th), max(d0, 1 + dh)


def pairwise_bound(fmt: FloatFormat | str, magnitude: object, n: int, *,
                   exact_size: bool = False) -> Fraction:
    """Rounding-error bound of NumPy's pairwise sum over at most ``n`` values (exactly
    ``n`` with ``exact_size=True``): ``M * u * T / (1 - D*u)`` with ``T`` the total and
    ``D`` the deepest number of roundings on an input's path (:func:`numpy_pairwise_depths`;
    for "at most n" an envelope over all sizes, since ``T`` is not monotone in ``n``)."""
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    total, deepest = numpy_pairwise_depths(n) if exact_size else _pairwise_envelope(n)
    den = _gamma_denominator(fmt, deepest, "pairwise")
    err = m * fmt.unit_roundoff * total / den
    _no_overflow(fmt, n * m + err, "pairwise")
    return err


def _solve3(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """Exact solution of a 3x3 linear system by Cramer's rule (None if singular)."""
    def det(x):
        return (x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1])
                - x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0])
                + x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]))
    d = det(a)
    if d == 0:
        return None
    out = []
    for col in range(3):
        ai = [row[:] for row in a]
        for r in range(3):
            ai[r][col] = b[r]
        out.append(det(ai) / d)
    return out


def _kahan_invariants(fmt: FloatFormat, m: Fraction, n: int) -> tuple[Fraction, Fraction, Fraction]:
    """``(S, C, B)``: bounds on the drift of ``s - c`` from the exact partial sum, on the
    compensation ``|c|`` and on the rounding error ``|beta|`` of ``t = s + y``."""
    u = fmt.unit_roundoff
    a = n * m
    v = 1 + (1 + u) ** 2
    w = (1 + u) ** 2
    # Unknowns (S, C, B); the fixed point of the step inequalities (see the proof).
    matrix = [[Fraction(1), -u * v * n, -n * u * (2 + u)],
              [Fraction(0), 1 - u * w, -w],
              [-u, -u * u, Fraction(1)]]
    rhs = [u * v * a, u * w * m, u * (a + u * m)]
    sol = _solve3(matrix, rhs)
    if sol is None or any(x < 0 for x in sol):
        raise InvalidArgument(
            f"kahan: n={n} values with u = 2**-{fmt.precision} admit no bound of this form; "
            f"use a smaller max_n or a wider format")
    return sol[0], sol[1], sol[2]


def kahan_bound(fmt: FloatFormat | str, magnitude: object, n: int) -> Fraction:
    """Rounding-error bound of Kahan's compensated sum of at most ``n`` values: ``S + C``
    from the exact solution of the linear fixed point in the proof; about
    ``(3u + O(n u**2)) * n * M`` (Knuth's sharper analysis gives ``2u``; ours is
    self-contained and does not rely on it)."""
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    if n <= 1:
        return Fraction(0)
    u = fmt.unit_roundoff
    drift, comp, beta = _kahan_invariants(fmt, m, n)
    a = n * m
    y_max = (1 + u) * (m + comp)
    largest = max(m + comp, a + drift + u * (m + comp), y_max + beta,
                  beta + u * (y_max + beta))
    _no_overflow(fmt, max(largest, a + drift + comp), "kahan")
    return drift + comp


def neumaier_bound(fmt: FloatFormat | str, magnitude: object, n: int) -> Fraction:
    """Rounding-error bound of Neumaier's compensated sum of at most ``n`` values:
    ``u*n*M + (1+u) * min(G*T, u/(1 - (n-1)u) * (u*M*n(n+1)(n+2)/6 + u*T*n(n+1)/2))``
    with ``G = gamma_{n-1}`` and ``T = u*M*n(n+1) / (2(1 - (n-1)u))`` bounding the sum of the exact errors collected
    in the compensation ``c``. About ``(u + n**2 u**2 / 6) * n * M``: the compensation
    itself is summed with a left fold, so once ``n*u`` is not small (float32 with ``n``
    above about 14,000) this exceeds the Kahan bound."""
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    if n <= 1:
        return Fraction(0)
    u = fmt.unit_roundoff
    den = _gamma_denominator(fmt, n - 1, "neumaier")
    collected = u * m * Fraction(n * (n + 1), 2) / den
    gamma = (n - 1) * u / den
    # the left fold of the collected errors: every error through n-1 roundings, or the
    # j-th through n-j+1 (both sound; the second is ~3x smaller for large n)
    fold_error = min(gamma * collected,
                     u / den * (u * m * Fraction(n * (n + 1) * (n + 2), 6)
                                + u * collected * Fraction(n * (n + 1), 2)))
    err = u * n * m + (1 + u) * fold_error
    _no_overflow(fmt, n * m + (2 + gamma) * collected + err, "neumaier")
    return err


def fsum_bound(fmt: FloatFormat | str, magnitude: object, n: int) -> Fraction:
    """Rounding-error bound of the correctly rounded sum of at most ``n`` values: half
    the spacing of the format at ``n*M`` (``fmt.ulp(n*M) / 2``)."""
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    if n <= 1 or m == 0:
        return Fraction(0)
    _no_overflow(fmt, n * m, "fsum")
    return fmt.ulp(n * m) / 2


_BOUNDS = {
    "sequential": sequential_bound,
    "sorted": sequential_bound,
    "sorted-magnitude": sequential_bound,
    "pairwise": pairwise_bound,
    "kahan": kahan_bound,
    "neumaier": neumaier_bound,
    "fsum": fsum_bound,
}
assert set(_BOUNDS) == set(MODEL_NAMES)


@functools.lru_cache(maxsize=4096)
def opendp_pairwise_depths(n: int) -> tuple[int, int]:
    """``(total, deepest)`` for OpenDP's ``Pairwise<T>`` sum of ``n`` values (the model
    ``opendp-pairwise``): ``T(n) = n + T(n // 2) + T(n - n // 2)``, ``T(0) = T(1) = 0``;
    the deepest path has ``ceil(log2 n)`` roundings. Both are non-decreasing in ``n``
    (by induction: the two halves of ``n + 1`` are each at least those of ``n``), so the
    values at ``n`` also bound every smaller size.

    >>> opendp_pairwise_depths(8), opendp_pairwise_depths(5), opendp_pairwise_depths(1000)
    ((24, 3), (12, 3), (9976, 10))
    """
    _count(n, "n", 0)
    if n <= 1:
        return 0, 0
    m = n // 2
    t1, d1 = opendp_pairwise_depths(m)
    t2, d2 = opendp_pairwise_depths(n - m)
    return t1 + t2 + n, 1 + max(d1, d2)


def opendp_pairwise_bound(fmt: FloatFormat | str, magnitude: object, n: int, *,
                          exact_size: bool = False) -> Fraction:
    """Rounding-error bound of OpenDP's ``Pairwise<T>`` sum over at most ``n`` values:
    ``M * u * T(n) / (1 - D(n)*u)`` (:func:`opendp_pairwise_depths`). Each input ``x_i``
    reaches the result multiplied by ``prod (1 + d_j)`` over the ``D_i`` roundings on its
    path, ``|d_j| <= u`` (gradual underflow included: sums landing below ``2**emin`` are
    exact), so its error is at most ``|x_i| * gamma(D_i) <= M * u * D_i / (1 - D u)``;
    summing over the inputs gives the bound. ``T`` and ``D`` are non-decreasing, so the
    same value holds for every size up to ``n`` (``exact_size`` changes nothing).

    >>> opendp_pairwise_bound("float64", 1, 8) == Fraction(24, 2**53) / (1 - Fraction(3, 2**53))
    True
    """
    fmt, m, n = format_named(fmt), _magnitude(magnitude), _count(n, "n", 0)
    total, deepest = opendp_pairwise_depths(n)
    if total == 0 or m == 0:
        return Fraction(0)
    den = _gamma_denominator(fmt, deepest, "opendp-pairwise")
    err = m * fmt.unit_roundoff * total / den
    _no_overflow(fmt, n * m + err, "opendp-pairwise")
    return err


_LIBRARY_BOUNDS = {"opendp-pairwise": opendp_pairwise_bound}
assert set(_LIBRARY_BOUNDS) == set(LIBRARY_MODELS)


def _model_name(model: object) -> str:
    name = getattr(model, "name", model)
    if not isinstance(name, str) or (name not in _BOUNDS and name not in _LIBRARY_BOUNDS):
        raise InvalidArgument(f"model={model!r} is not a known summation model; pass one of "
                              f"{', '.join(MODEL_NAMES + tuple(LIBRARY_MODELS))}")
    return name


def rounding_error_bound(model: str, fmt: FloatFormat | str, magnitude: object, n: int, *,
                         exact_size: bool = False) -> Fraction:
    """A bound on ``|f^(x) - sum(x)|`` for summation ``model`` in ``fmt`` over every
    dataset of at most ``n`` values (exactly ``n`` if ``exact_size``) with
    ``|x_i| <= magnitude``, read in any order.

    >>> rounding_error_bound("sequential", FloatFormat.toy(3, -2, 3), 2, 3)
    Fraction(1, 1)
    """
    name = _model_name(model)
    if name == "pairwise":
        return pairwise_bound(fmt, magnitude, n, exact_size=exact_size)
    if name in _LIBRARY_BOUNDS:
        return _LIBRARY_BOUNDS[name](fmt, magnitude, n, exact_size=exact_size)
    return _BOUNDS[name](fmt, magnitude, n)


def exact_sum_sensitivity(bounds: tuple[object, object], max_n: int, *,
                          neighbors: str = "add-remove", d_in: int = 1,
                          known_n: bool = False) -> Fraction:
    """The exact sensitivity of the (real-valued) sum of values in ``[L, U]`` over datasets
    of size <= ``max_n`` (exactly ``max_n`` if ``known_n``).

    add-remove: ``r`` records removed and ``a`` added with ``r + a <= d_in``, each at most
    ``max_n``, moves the sum by at most ``r*U - a*L`` (or its mirror), maximised greedily
    (``d_in * max(|L|, |U|)`` when ``d_in <= max_n``; for ``L > 0`` or ``U < 0`` this is
    *not* ``U - L``). substitute: ``min(d_in, max_n) * (U - L)``.

    >>> exact_sum_sensitivity((2, 10), 5), exact_sum_sensitivity((-3, 1), 5, d_in=2)
    (Fraction(10, 1), Fraction(6, 1))
    >>> exact_sum_sensitivity((2, 10), 5, neighbors="substitute")
    Fraction(8, 1)
    """
    lower, upper = _bounds(bounds)
    max_n = _count(max_n, "max_n", 1)
    d_in = _count(d_in, "d_in", 0)
    if neighbors == "substitute":
        return min(d_in, max_n) * (upper - lower)
    if neighbors != "add-remove":
        raise InvalidArgument(f"neighbors={neighbors!r} is not one of {NEIGHBORS}")
    if known_n:
        raise InvalidArgument("known_n=True needs neighbors='substitute' (adding or removing "
                              "a record changes the size)")
    # max of r*U + a*(-L) with r + a <= d_in and r, a <= max_n (the mirror is the same).
    best, left = Fraction(0), d_in
    for coefficient in sorted((upper, -lower), reverse=True):
        if coefficient <= 0 or left == 0:
            break
        take = min(left, max_n)
        best += take * coefficient
        left -= take
    return best


def sensitivity_bound(model: str, fmt: FloatFormat | str, bounds: tuple[object, object],
                      max_n: int, *, neighbors: str = "add-remove", d_in: int = 1,
                      known_n: bool = False) -> Fraction:
    """A sound upper bound on ``|f^(x) - f^(x')|`` over neighbouring datasets of values of
    ``fmt`` in ``bounds`` summed by ``model``, both in any order.

    ``neighbors="add-remove"``: ``x'`` is ``x`` with up to ``d_in`` records added or
    removed, both of size <= ``max_n``. ``neighbors="substitute"``: up to ``d_in`` records
    changed, equal sizes <= ``max_n`` (exactly ``max_n`` with ``known_n=True``).

    >>> b = sensitivity_bound("pairwise", "float64", (-10, 10), 1000,
    ...                       neighbors="substitute", known_n=True)
    >>> opendp = opendp_stability_map("pairwise", "float64", (-10, 10), 2, size=1000)
    >>> float(b - 20), float(opendp - 20)
    (3.1654678878112534e-11, 4.4256972685117675e-11)
    """
    name = _model_name(model)
    fmt = format_named(fmt)
    lower, upper = _bounds(bounds)
    max_n = _count(max_n, "max_n", 1)
    d_in = _count(d_in, "d_in", 0)
    if neighbors not in NEIGHBORS:
        raise InvalidArgument(f"neighbors={neighbors!r} is not one of {NEIGHBORS}")
    exact = exact_sum_sensitivity((lower, upper), max_n, neighbors=neighbors, d_in=d_in,
                                  known_n=known_n)
    m = max(abs(lower), abs(upper))
    ceiling = None  # left folds: both results lie in [-T, T] whatever n is
    if name in ("sequential", "sorted", "sorted-magnitude"):
        t = sequential_stagnation(fmt, m)
        if t is not None:
            ceiling = t if lower >= 0 or upper <= 0 else 2 * t
    try:
        if neighbors == "substitute":
            bound = exact + 2 * rounding_error_bound(name, fmt, m, max_n, exact_size=known_n)
        else:
            # add/remove: sizes n, n' <= max_n; with d_in = 1 they differ by exactly one.
            err = rounding_error_bound(name, fmt, m, max_n)
            other = err if d_in != 1 else rounding_error_bound(name, fmt, m, max_n - 1)
            bound = exact + err + other
    except InvalidArgument:
        if ceiling is None:
            raise
        return ceiling
    return bound if ceiling is None else min(bound, ceiling)


# -- OpenDP's relaxation terms, for comparison ---------------------------------------------

def _opendp_error(model: str, fmt: FloatFormat, lower: Fraction, upper: Fraction, n: int):
    k = fmt.precision - 1                      # OpenDP's MANTISSA_BITS (52 for f64)
    m = sympy.Rational(max(abs(lower), upper))  # OpenDP: max(|L|, U)
    two_k = sympy.Integer(2) ** k
    if model == "sequential":
        return sympy.Integer(n) ** 2 / two_k * m
    if model in ("pairwise", "opendp-pairwise"):
        uk = sympy.log(sympy.Integer(n), 2) / two_k
        return uk / (1 - uk) * n * m
    raise InvalidArgument(f"model={model!r}: OpenDP has relaxations for 'sequential' and "
                          f"'pairwise' only")


def opendp_relaxation(model: str, fmt: FloatFormat | str, bounds: tuple[object, object],
                      n: int) -> sympy.Expr:
    """OpenDP's relaxation term ``2 * error(n, L, U)`` for its ``Sequential`` or
    ``Pairwise`` float sum, as an exact SymPy value (OpenDP rounds each step up in f64).

    >>> opendp_relaxation("sequential", "float64", (-10, 10), 2**20)
    5/1024
    """
    name = _model_name(model)
    n = _count(n, "n", 1)
    lower, upper = _bounds(bounds)
    return 2 * _opendp_error(name, format_named(fmt), lower, upper, n)


def opendp_stability_map(model: str, fmt: FloatFormat | str, bounds: tuple[object, object],
                         d_in: int, *, size: int | None = None,
                         size_limit: int | None = None) -> sympy.Expr:
    """OpenDP's stability map of ``make_sized_bounded_float_checked_sum(size, bounds, S)``
    (``floor(d_in/2) * (U - L) + relaxation(size)``) or
    ``make_bounded_float_checked_sum(size_limit, bounds, S)``
    (``d_in * max(U - L, |L|, U) + relaxation(size_limit)``), ``d_in`` a symmetric
    distance (one change is 2), as an exact SymPy value.

    >>> opendp_stability_map("pairwise", "float64", (-10, 10), 1, size_limit=2**20)
    22517998241709980/1125899906842619
    """
    lower, upper = _bounds(bounds)
    d_in = _count(d_in, "d_in", 0)
    if (size is None) == (size_limit is None):
        raise InvalidArgument(f"size={size!r}, size_limit={size_limit!r}: pass exactly one")
    rel = opendp_relaxation(model, fmt, (lower, upper), size if size is not None else size_limit)
    if size is not None:
        return (d_in // 2) * sympy.Rational(upper - lower) + rel
    return d_in * sympy.Rational(max(upper - lower, abs(lower), upper)) + rel
