"""Certified Rényi differential privacy: RDP curves of composed mechanisms, enclosed, and
their conversions to ``(epsilon, delta)`` and zCDP.

``rdp(mechanisms, k, orders=...)`` encloses, at each order ``alpha > 1``, the Rényi
divergence ``D_alpha(P || Q) = log(sum P^alpha Q^(1 - alpha)) / (alpha - 1)`` of the
dominating pairs :func:`~exactdp.mechanisms.accounting.accountant.account` composes (the same names
and parameters), maximised over both directions of the neighbouring relation, summed over
the composition:

- ``gaussian`` (``mu = sensitivity / sigma``): ``alpha mu^2 / 2``, exact (a Fraction);
- ``gaussian`` with ``sampling=poisson, rate=q`` (DP-SGD, add/remove neighbours): at
  **integer** orders only, ``log(A_alpha) / (alpha - 1)`` with Mironov, Talwar and Zhang's
  (2019) binomial expansion
  ``A_alpha = sum_j C(alpha, j) (1 - q)^(alpha - j) q^j exp((j^2 - j) mu^2 / 2)``,
  the divergence of the remove direction, which is the larger of the two;
- ``discrete-gaussian``: at integer orders, ``alpha sensitivity^2 / (2 sigma^2)``, exact (the
  shift ``(alpha - 1) sensitivity`` of the completed square is a whole number);
- ``discrete-laplace`` and ``randomized-response``: the finite (or geometric) sum of their
  pair, at any rational order;
- ``exponential``, ``permute-and-flip``, ``report-noisy-max``: through their worst-case pure
  epsilon as randomized response, ``log((e^(alpha eps) + e^((1 - alpha) eps)) / (1 + e^eps))
  / (alpha - 1)``, the tight RDP bound of every eps-DP mechanism (Bun & Steinke 2016,
  Prop. 3.3): a sound upper bound, not the mechanism's own value (``upper_only``).

Every value is an Arb ball (python-flint) turned into exact rationals, the lower end rounded
down and the upper up; compositions add those exactly. The argument, step by step, is
``proofs/accountant-rdp.md``.

:meth:`RdpResult.epsilon` converts to ``(epsilon, delta)``-DP, minimised over the orders:
``method="cks"`` (default; Canonne, Kamath & Steinke 2020, Prop. 12; Balle et al. 2020,
Thm. 21; the bound dp_accounting and Opacus use)
``eps = rdp + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1)``, or
``method="mironov"`` (Mironov 2017, Prop. 3) ``eps = rdp + log(1/delta)/(alpha - 1)``.
These are sound upper bounds on the tight ``epsilon(delta)``, not the truth (``account``
encloses that). ``RdpResult.rho`` is the exact zCDP parameter (the least ``rho`` with RDP at
most ``alpha rho`` at every order) of compositions of Gaussians and discrete Gaussians, else
None.

>>> r = rdp("gaussian", 10, params={"sigma": 2}, orders=[2, 8])
>>> r.lower, r.upper
((Fraction(5, 2), Fraction(10, 1)), (Fraction(5, 2), Fraction(10, 1)))
>>> r.rho
Fraction(5, 4)
>>> c = r.epsilon("1e-6")
>>> c.order, c.epsilon_upper > c.epsilon_lower > 0
(Fraction(8, 1), True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp._display import card
from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.mechanisms import specs
from exactdp.mechanisms._params import open_probability, shown
from exactdp.mechanisms.accounting.accountant import DEFAULT_MAX_K, _check_k, _component
from exactdp.numeric.exact import show_exact, to_exact
from exactdp.numeric.intervals import arb_precision
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most, exact_decimal_context

__all__ = ["rdp", "RdpResult", "RdpConversion", "parse_orders", "DEFAULT_ORDERS", "DEFAULT_MAX_ORDER",
           "MAX_ORDERS", "CONVERSIONS"]

DEFAULT_ORDERS = tuple(Fraction(a) for a in (*range(2, 65), 128, 256, 512, 1024))
"""The orders used when none are given: 2..64, 128, 256, 512, 1024 (integers, so that every
mechanism, the subsampled Gaussian included, has an exact value at each)."""

DEFAULT_MAX_ORDER = 10_000
"""Largest order accepted (raise with ``max_order``): the subsampled Gaussian's sum at order
``alpha`` has ``alpha + 1`` terms (about 1.2 ms per thousand on the benchmark machine)."""

MAX_ORDERS = 1_000
"""Most orders one call evaluates."""

CONVERSIONS = ("cks", "mironov")
"""The RDP -> (epsilon, delta) conversions of :meth:`RdpResult.epsilon`."""

_START_PREC = 128
_MAX_PREC = 4096
_TIGHT = Fraction(1, 2**64)  # relative width at which an enclosure is kept
_KEEP_BITS = 96  # the bounds are shortened outward to this many significant bits


def _flint():
    return _optional.require("flint", library="python-flint")


# --- orders ---------------------------------------------------------------------------------


def parse_orders(spec) -> tuple[Fraction, ...]:
    """Orders from ``"A..B"`` (the whole numbers from A to B), a comma list (``"2,4,8.5"``,
    ranges allowed inside: ``"2..8,16,32"``) or an iterable of exact numbers. Duplicates are
    dropped; the orders are sorted. Each must exceed 1."""
    if isinstance(spec, str):
        items: list = []
        for part in spec.split(","):
            part = part.strip()
            if ".." in part:
                a_text, b_text = part.split("..", 1)
                a, b = to_exact(a_text.strip(), "orders"), to_exact(b_text.strip(), "orders")
                if a.denominator != 1 or b.denominator != 1 or b < a:
                    raise InvalidArgument(f"orders={spec!r}: {part!r} is not a range A..B of whole numbers "
                                          f"with A <= B; e.g. 2..64")
                if b - a + 1 > MAX_ORDERS:
                    raise InvalidArgument(f"orders={spec!r}: {part!r} holds {int(b - a + 1):,} orders, more "
                                          f"than {MAX_ORDERS:,}; pass fewer")
                items.extend(range(int(a), int(b) + 1))
            elif part:
                items.append(part)
            else:
                raise InvalidArgument(f"orders={spec!r} has an empty entry; pass e.g. '2..64' or '2,4,8'")
    else:
        try:
            items = list(spec)
        except TypeError:
            raise InvalidArgument(f"orders={spec!r} is not a list of orders or a string such as '2..64'") from None
    if not items:
        raise InvalidArgument("orders=[] is empty; pass the Renyi orders to evaluate, e.g. '2..64'")
    if len(items) > MAX_ORDERS:
        raise InvalidArgument(f"{len(items):,} orders, more than {MAX_ORDERS:,}; pass fewer")
    out = set()
    for a in items:
        x = to_exact(a, "alpha")
        if x <= 1:
            raise InvalidArgument(f"alpha={shown(a)} is not > 1; a Renyi order must exceed 1 (order 1 is "
                                  f"the KL divergence, not covered here)")
        out.add(x)
    return tuple(sorted(out))


# --- balls and bounds -----------------------------------------------------------------------


def _fraction(point) -> Fraction:
    man, exp = point.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _ball(arb, x: Fraction):
    """A ball enclosing the exact rational ``x`` (exact when its denominator is a power of 2 and
    the numerator fits the precision)."""
    return arb(x.numerator) / x.denominator if x.denominator != 1 else arb(x.numerator)


def _shorten(x: Fraction, up: bool) -> Fraction:
    """``x`` rounded to ``_KEEP_BITS`` significant bits, up or down (a shorter exact bound)."""
    if x == 0:
        return x
    n, d = abs(x.numerator), x.denominator
    shift = n.bit_length() - d.bit_length() - _KEEP_BITS  # x ~ 2**(shift + _KEEP_BITS)
    away = up == (x > 0)
    if shift >= 0:
        q, r = divmod(n, d << shift)
        q += bool(r) and away
        v = Fraction(q << shift)
    else:
        q, r = divmod(n << -shift, d)
        q += bool(r) and away
        v = Fraction(q, 1 << -shift)
    return v if x > 0 else -v


def _bounds(ball) -> tuple[Fraction, Fraction]:
    """The exact ends of a finite ball, shortened outward."""
    if not ball.is_finite():
        raise _Imprecise
    return _shorten(_fraction(ball.lower()), up=False), _shorten(_fraction(ball.upper()), up=True)


class _Imprecise(Exception):
    """The enclosure at this precision is not finite or not tight enough: retry higher."""


def _tight(lo: Fraction, hi: Fraction) -> bool:
    return hi - lo <= _TIGHT * max(abs(hi), abs(lo)) or hi == lo


def _enclose(fn) -> tuple[Fraction, Fraction]:
    """``fn(arb)`` (a ball) as exact ``[lo, hi]``, the precision raised until the enclosure is
    tight (relative width 2**-64) or ``_MAX_PREC``; a loose but finite last enclosure is still
    sound and is returned."""
    flint = _flint()
    prec, last = _START_PREC, None
    while True:
        with arb_precision(prec):
            try:
                last = _bounds(fn(flint.arb))
            except _Imprecise:
                last = None
        if last is not None and _tight(*last):
            return last
        if prec >= _MAX_PREC:
            if last is None:
                raise InvalidArgument("the Renyi divergence could not be enclosed at "
                                      f"{_MAX_PREC} bits; use a smaller order or other parameters")
            return last
        prec *= 2


# --- one step of each mechanism --------------------------------------------------------------


@dataclass
class _Part:
    """One mechanism of the list: how to enclose its RDP at an order, and its count."""

    name: str
    params: dict
    times: int
    at: object  # at(alpha) -> (lo, hi) Fractions: the RDP of one step at alpha
    rho: Fraction | None = None  # the least rho with RDP <= alpha * rho at every order, when exact
    integer_only: str = ""  # why only integer orders are computed, if so
    upper_only: bool = False
    note: str = ""


def _check_integer(alpha: Fraction, part: _Part) -> None:
    if alpha.denominator != 1 and part.integer_only:
        raise InvalidArgument(f"alpha={show_exact(alpha)}: {part.integer_only}; pass whole orders "
                              f"such as 2..64")


def _log_ratio(s_fn, alpha: Fraction):
    """``fn(arb)`` enclosing ``log(S) / (alpha - 1)`` with ``S = s_fn(arb)``."""

    def fn(arb):
        s = s_fn(arb)
        if not s > 0:
            raise _Imprecise
        return s.log() / _ball(arb, alpha - 1)

    return fn


def _nonnegative(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    """A Rényi divergence is >= 0: the lower end is raised to 0 if it fell below."""
    return max(lo, Fraction(0)), max(hi, Fraction(0))


def _subsampled_at(q: Fraction, mu2: Fraction):
    def at(alpha: Fraction):
        a = int(alpha)

        def s_fn(arb):
            qb = _ball(arb, q)
            keep = _ball(arb, 1 - q)
            half = _ball(arb, mu2 / 2)
            total = arb(0)
            binom = 1
            for j in range(a + 1):
                term = arb(binom) * keep ** (a - j) * qb**j
                if j >= 2:
                    term *= (half * (j * j - j)).exp()
                total += term
                binom = binom * (a - j) // (j + 1)
            return total

        return _nonnegative(*_enclose(_log_ratio(s_fn, alpha)))

    return at


def _discrete_laplace_at(t: Fraction, d: int):
    def at(alpha: Fraction):
        if d == 0:
            return Fraction(0), Fraction(0)

        def s_fn(arb):
            b = alpha - 1
            inv_t = _ball(arb, 1 / t)
            r = (-inv_t).exp()  # e^(-1/t)
            up = (_ball(arb, b * d / t)).exp()  # e^((alpha - 1) d / t), the loss d/t
            s = up + (-inv_t * d).exp() / up  # x <= 0 and x >= d
            if d > 1:  # 0 < x < d: mass (1 - r)/(1 + r) r^z at the loss (d - 2z)/t
                step = _ball(arb, (2 * alpha - 1) / t)  # ratio = e^(-step) = r e^(-2(alpha-1)/t)
                ratio = (-step).exp()
                geo = ratio * (-(-step * (d - 1)).expm1()) / (-(-step).expm1())  # sum_{z=1}^{d-1} ratio^z
                s += (-(-inv_t).expm1()) * up * geo
            return s / (1 + r)

        return _nonnegative(*_enclose(_log_ratio(s_fn, alpha)))

    return at


def _randomized_response_at(kind: str, value: Fraction, k: int):
    """``kind`` ``"p"`` (the truth probability ``value``) or ``"epsilon"``."""

    def at(alpha: Fraction):
        def s_fn(arb):
            a = _ball(arb, alpha)
            if kind == "p":
                p = _ball(arb, value)
                o = _ball(arb, (1 - value) / (k - 1))
                lp, lo_ = p.log(), o.log()
                # p^a o^(1-a) + o^a p^(1-a) + (k - 2) o
                return (a * lp + (1 - a) * lo_).exp() + (a * lo_ + (1 - a) * lp).exp() + (k - 2) * o
            e = _ball(arb, value)
            return ((a * e).exp() + ((1 - a) * e).exp() + (k - 2)) / (e.exp() + (k - 1))

        return _nonnegative(*_enclose(_log_ratio(s_fn, alpha)))

    return at


def _exact_at(rho: Fraction):
    def at(alpha: Fraction):
        v = alpha * rho
        return v, v

    return at


def _raw_items(mechanisms, params) -> list:
    """``(name, params)`` of each mechanism, as :func:`account` reads them."""
    if isinstance(mechanisms, list):
        if not mechanisms:
            raise InvalidArgument("mechanisms=[] is empty; pass at least one mechanism")
        if params:
            raise InvalidArgument("params=... applies to a single mechanism name; in a list give "
                                  "(name, params) pairs")
        items = mechanisms
    else:
        if params and not isinstance(mechanisms, str):
            raise InvalidArgument("params=... goes with a mechanism name such as 'discrete-laplace'")
        items = [(mechanisms, dict(params)) if isinstance(mechanisms, str) and params else mechanisms]
    out = []
    for item in items:
        comp = _component(item)  # validates the name and the parameters
        if isinstance(item, str):
            raw = {}
        elif isinstance(item, tuple):
            raw = dict(item[1])
        else:
            raw = dict(item.params)
        raw.pop("times", None)
        out.append((comp, raw))
    return out


def _part(comp, raw: dict) -> _Part:
    """The RDP part of one component: zero for a null one; refused for a mechanism that lives on
    the certified grid only (or is subsampled, other than the Gaussian); otherwise the
    function its spec names (:mod:`exactdp.mechanisms.specs`)."""
    name, shown_params, times = comp.name, comp.params, comp.times
    if comp.kind == "null":
        return _Part(name, shown_params, times, _exact_at(Fraction(0)), rho=Fraction(0))
    if comp.kind == "subsampled" and name != "gaussian":  # a subsampled (or grid-only) mechanism
        if raw.get("sampling") is None:  # no sampling given: the mechanism itself lives on the grid only
            raise InvalidArgument(f"mechanism={name!r} has no Renyi DP computation yet (it is composed on the "
                                  f"certified loss grid only); use the certified (epsilon, delta) accountant "
                                  f"without --rdp")
        raise InvalidArgument(f"mechanism={name!r} with sampling={raw['sampling']!r} has no Renyi DP computation "
                              f"yet (the RDP view subsamples only the gaussian); drop sampling, or use the "
                              f"certified (epsilon, delta) accountant without --rdp")
    reference = specs.spec(name).rdp
    part = None if reference is None else specs.resolve(reference)(comp, raw)
    if part is None:
        raise InvalidArgument(f"mechanism={name!r} has no Renyi DP computation yet; the RDP view covers "
                              f"{', '.join(specs.names('rdp'))} (the gaussian plain or sampling=poisson)")
    return part


def _gaussian_part(comp, raw: dict) -> _Part | None:
    """The Gaussian: rho = mu^2/2 exactly; Poisson-subsampled, the exact binomial formula."""
    name, shown_params, times = comp.name, comp.params, comp.times
    if comp.kind == "gaussian":
        rho = comp.mu2 / 2
        return _Part(name, shown_params, times, _exact_at(rho), rho=rho)
    if comp.kind == "subsampled":
        m = comp.model
        return _Part(name, shown_params, times, _between_integers(_subsampled_at(m.q, m.mu * m.mu)),
                     note="the Poisson-subsampled Gaussian's RDP is exact at integer orders (the binomial "
                          "formula of Mironov, Talwar and Zhang 2019); at a fractional order it is enclosed "
                          "from the integer orders either side (RDP grows with the order, and (alpha - 1) "
                          "times it is convex)")
    return None


def _between_integers(at):
    """``at`` (the RDP of one step at integer orders) extended to every order ``alpha > 1``: at a
    fractional ``alpha`` between ``n`` and ``n + 1``, ``D_n <= D_alpha`` (Renyi divergences grow with
    the order) and, ``(alpha - 1) D_alpha = log E_Q[(P/Q)^alpha]`` being convex in ``alpha``,
    ``(alpha - 1) D_alpha <= (n + 1 - alpha)(n - 1) D_n + (alpha - n) n D_(n+1)`` (the chord; at
    ``n = 1`` the left end is ``0``, so ``D_alpha <= D_2`` and ``D_alpha >= 0``)."""

    def extended(alpha: Fraction):
        if alpha.denominator == 1:
            return at(alpha)
        n = alpha.numerator // alpha.denominator
        lo_n, hi_n = (Fraction(0), Fraction(0)) if n == 1 else at(Fraction(n))
        _, hi_next = at(Fraction(n + 1))
        hi = ((n + 1 - alpha) * (n - 1) * hi_n + (alpha - n) * n * hi_next) / (alpha - 1)
        return lo_n, hi

    return extended


def _discrete_gaussian_part(comp, raw: dict) -> _Part:
    d = int(to_exact(raw.get("sensitivity", 1), "sensitivity"))
    s2 = (to_exact(raw["sigma"], "sigma") ** 2 if "sigma" in raw
          else to_exact(raw["sigma_squared"], "sigma_squared"))
    rho = Fraction(d * d) / (2 * s2)
    return _Part(comp.name, comp.params, comp.times, _exact_at(rho), rho=rho,
                 integer_only="the discrete Gaussian's RDP is exact (alpha sensitivity^2/(2 sigma^2)) "
                              "at integer orders, which is where it is computed")


def _discrete_laplace_part(comp, raw: dict) -> _Part:
    t = to_exact(raw["scale"], "scale")
    d = int(to_exact(raw.get("sensitivity", 1), "sensitivity"))
    return _Part(comp.name, comp.params, comp.times, _discrete_laplace_at(t, d))


def _randomized_response_part(comp, raw: dict) -> _Part:
    k = int(to_exact(raw.get("k_values", 2), "k_values"))
    if "p" in raw:
        return _Part(comp.name, comp.params, comp.times, _randomized_response_at("p", to_exact(raw["p"], "p"), k))
    return _Part(comp.name, comp.params, comp.times,
                 _randomized_response_at("epsilon", to_exact(raw["epsilon"], "epsilon"), k))


def _selection_part(comp, raw: dict) -> _Part | None:
    """A selection mechanism, composed as randomized response with its worst-case epsilon."""
    if comp.unit is None or comp.unit.is_log:
        return None
    eps = comp.unit.value
    return _Part(comp.name, comp.params, comp.times, _randomized_response_at("epsilon", eps, 2), upper_only=True,
                 note=f"{comp.name}: the RDP of randomized response with its worst-case pure epsilon "
                      f"{show_exact(eps)}, the tight RDP bound of every eps-DP mechanism (Bun & Steinke "
                      f"2016, Prop. 3.3): sound, not tight")


# --- results --------------------------------------------------------------------------------


def _down(x: Fraction, digits: int = 17) -> str:
    return _text(decimal_at_most(x, digits)) if x else "0"


def _up(x: Fraction, digits: int = 17) -> str:
    return _text(decimal_at_least(x, digits)) if x else "0"


def _text(d: Decimal) -> str:
    text = format(d, "f") if -30 < d.adjusted() < 30 else str(d)
    if "." in text and "e" not in text.lower():
        text = text.rstrip("0").rstrip(".")
    return text


def _number(x: Fraction) -> str:
    """``x`` as a decimal when it has a short exact one (``1e-06`` -> ``0.000001``), else ``p/q``."""
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1 and len(str(x.denominator)) < 40 and len(str(x.numerator)) < 40:
        # at most ~80 significant digits: exact in a 200-digit context (which traps rounding)
        return _text(exact_decimal_context(200).divide(Decimal(x.numerator), Decimal(x.denominator)))
    return show_exact(x)


def _order_text(a: Fraction) -> str:
    return show_exact(a)


@dataclass(frozen=True)
class RdpConversion:
    """An ``(epsilon, delta)`` guarantee converted from an RDP curve: the mechanisms are
    ``(epsilon_upper, delta)``-DP. ``[epsilon_lower, epsilon_upper]`` encloses the least value
    of the bound ``max(0, bound(alpha))`` over the orders; ``order`` is the order whose
    certified upper end is least; ``per_order`` holds ``(alpha, lower, upper)`` at every order. A sound upper
    bound on the tight ``epsilon(delta)``, not the truth: :func:`account` encloses that."""

    delta: Fraction
    method: str
    order: Fraction
    epsilon_lower: Fraction
    epsilon_upper: Fraction
    per_order: tuple

    def to_dict(self) -> dict:
        return {"delta": _number(self.delta), "method": self.method, "order": _order_text(self.order),
                "epsilon_lower": _down(self.epsilon_lower), "epsilon_upper": _up(self.epsilon_upper),
                "scope": "a sound upper bound on epsilon(delta) converted from RDP, not the tight value"}

    def __str__(self) -> str:
        name = {"cks": "Canonne-Kamath-Steinke 2020", "mironov": "Mironov 2017"}[self.method]
        return (f"  (epsilon, delta)-DP from RDP ({name}), delta={_number(self.delta)}: epsilon at most "
                f"{_up(self.epsilon_upper)} at order {_order_text(self.order)}  (a sound upper bound, not the "
                f"tight epsilon(delta); the bound's least value over the orders is in "
                f"[{_down(self.epsilon_lower)}, {_up(self.epsilon_upper)}])")


@dataclass(frozen=True)
class RdpResult:
    """Certified RDP of ``mechanisms`` composed ``k`` times: at ``orders[i]`` the divergence
    (maximised over both directions) lies in ``[lower[i], upper[i]]`` (exact Fractions, the
    lower end rounded down, the upper up). ``rho`` is the exact zCDP parameter of Gaussians and
    discrete Gaussians, else None. With ``upper_only``, some mechanism is represented by a
    pair that dominates it: the upper ends bound its RDP, the lower ends only that pair's."""

    mechanisms: tuple
    k: int
    orders: tuple
    lower: tuple
    upper: tuple
    rho: Fraction | None = None
    upper_only: bool = False
    notes: str = ""
    extra: dict = field(default_factory=dict)

    def at(self, alpha) -> tuple[Fraction, Fraction]:
        """``(lower, upper)`` at the order ``alpha`` (one of ``orders``)."""
        a = to_exact(alpha, "alpha")
        if a not in self.orders:
            raise InvalidArgument(f"alpha={shown(alpha)} is not one of the orders computed; pass it in orders=...")
        i = self.orders.index(a)
        return self.lower[i], self.upper[i]

    def epsilon(self, delta, *, method: str = "cks") -> RdpConversion:
        """The ``(epsilon, delta)`` guarantee the RDP curve implies, minimised over the orders
        (``method`` ``"cks"``, the tighter, or ``"mironov"``)."""
        dlt = open_probability(delta, "delta")
        if method not in CONVERSIONS:
            raise InvalidArgument(f"method={method!r} is not one of {CONVERSIONS}; use 'cks' (tighter) or 'mironov'")
        rows = []
        for a, lo, hi in zip(self.orders, self.lower, self.upper):
            rows.append((a, *_convert(method, a, dlt, lo, hi)))
        best = min(rows, key=lambda r: (r[2], r[1]))
        return RdpConversion(dlt, method, best[0], min(r[1] for r in rows), best[2], tuple(rows))

    def to_dict(self) -> dict:
        names = [m[0] for m in self.mechanisms]
        out = {
            "mechanism": names[0] if len(names) == 1 else names,
            "params": self.mechanisms[0][1] if len(names) == 1 else [m[1] for m in self.mechanisms],
            "k": self.k,
            "rdp": [{"order": _order_text(a), "lower": _down(lo), "upper": _up(hi)}
                    for a, lo, hi in zip(self.orders, self.lower, self.upper)],
        }
        if self.rho is not None:
            out["rho"] = show_exact(self.rho)
        if self.upper_only:
            out["upper_only"] = True
        if self.notes:
            out["notes"] = self.notes
        return out

    def __str__(self) -> str:
        what = " + ".join(f"{m[0]}(" + ", ".join(f"{k}={v}" for k, v in m[1].items()) + ")"
                          for m in self.mechanisms)
        lines = [f"{what}, composed k={self.k:,} times: Renyi DP (certified: lower rounded down, upper "
                 f"rounded up{'; upper ends only bind' if self.upper_only else ''})"]
        for a, lo, hi in zip(self.orders, self.lower, self.upper):
            lines.append(f"  order {_order_text(a):>6}: [{_down(lo)}, {_up(hi)}]")
        if self.rho is not None:
            lines.append(f"  zCDP: rho = {show_exact(self.rho)} exactly (the least rho with RDP <= alpha * rho "
                         f"at every order)")
        if self.notes:
            lines.append(f"  {self.notes}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        title, *_ = str(self).split(":", 1)
        return card(f"{title}: Renyi DP", "certified",
                    [("zCDP", None if self.rho is None else f"rho = {show_exact(self.rho)} exactly"),
                     ("notes", self.notes)],
                    table=(("order", "lower (rounded down)", "upper (rounded up)"),
                           [(_order_text(a), _down(lo), _up(hi))
                            for a, lo, hi in zip(self.orders, self.lower, self.upper)]))


def _convert(method: str, alpha: Fraction, delta: Fraction, lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    """``[max(0, bound(lo)), max(0, bound(hi))]``: the bound is ``rdp + g(alpha, delta)``,
    increasing in ``rdp``, with ``g`` enclosed in a ball."""

    def g(arb):
        t = _ball(arb, alpha - 1)
        d = _ball(arb, delta)
        if method == "mironov":
            return -d.log() / t
        a = _ball(arb, alpha)
        # log((alpha - 1)/alpha) = log(t) - log1p(t), t = alpha - 1 (no cancellation near 1)
        return t.log() - t.log1p() - (d.log() + a.log()) / t

    g_lo, g_hi = _enclose(g)
    return max(Fraction(0), lo + g_lo), max(Fraction(0), hi + g_hi)


# --- the driver -----------------------------------------------------------------------------


def rdp(mechanisms, k: int = 1, *, params: dict | None = None, orders=None, max_k: int | None = DEFAULT_MAX_K,
        max_order: int | None = DEFAULT_MAX_ORDER) -> RdpResult:
    """Certified Rényi DP of ``mechanisms`` (as for :func:`~exactdp.mechanisms.accounting.accountant.account`:
    a name with ``params``, a ``(name, params)`` pair, a mechanism, or a list of these, each with
    its own ``times``) composed ``k`` times, at each of ``orders`` (default
    :data:`DEFAULT_ORDERS`; a list of exact numbers > 1 or a string such as ``"2..64"``).

    Orders above ``max_order`` and ``k`` above ``max_k`` are refused before any work.
    """
    parts = [_part(comp, raw) for comp, raw in _raw_items(mechanisms, params)]
    k = _check_k(k, max_k)
    alphas = DEFAULT_ORDERS if orders is None else parse_orders(orders)
    if max_order is not None:
        if isinstance(max_order, bool) or not isinstance(max_order, int) or max_order < 2:
            raise InvalidArgument(f"max_order={max_order!r} is not a whole number >= 2 (or None: no limit); "
                                  f"it is the largest Renyi order accepted, e.g. {DEFAULT_MAX_ORDER}")
        refuse_above(int(math.ceil(alphas[-1])), max_order, what="is the largest Renyi order asked",
                     option="max_order", hint="pass smaller orders")
    for a in alphas:
        for part in parts:
            _check_integer(a, part)
    lower, upper = [], []
    for a in alphas:
        lo_sum, hi_sum = Fraction(0), Fraction(0)
        for part in parts:
            lo, hi = part.at(a)
            lo_sum += lo * part.times
            hi_sum += hi * part.times
        lower.append(lo_sum * k)
        upper.append(hi_sum * k)
    rho = None
    if all(p.rho is not None for p in parts):
        rho = k * sum((p.rho * p.times for p in parts), Fraction(0))
    notes = "; ".join(dict.fromkeys(p.note for p in parts if p.note))
    return RdpResult(tuple((p.name, p.params) for p in parts), k, alphas, tuple(lower), tuple(upper),
                     rho=rho, upper_only=any(p.upper_only for p in parts), notes=notes)
