"""A composition's privacy curve as an object: certified ``epsilon(delta)`` and ``delta(epsilon)``
queries that share the composed privacy-loss distribution.

:func:`~exactdp.mechanisms.accounting.accountant.account` composes and then answers one query.
:class:`PrivacyCurve` keeps what it composed (the lattice at each precision, the subsampled
Gaussian's pairs at each grid), so that further queries reuse it::

    >>> curve = PrivacyCurve("discrete-laplace", 100, params={"scale": 10})
    >>> r = curve.epsilon(delta="1e-6")
    >>> r.epsilon_lower <= r.epsilon_upper
    True
    >>> [row["delta_upper"] >= row["delta_lower"] for row in curve.band(["0.5", "1"])]
    [True, True]

Every answer is an :class:`~exactdp.mechanisms.accounting.accountant.AccountResult`: a certified
enclosure (lower rounded down, upper rounded up), as from ``account``.
"""

from __future__ import annotations

import math
from typing import Any


from exactdp._display import card, figure_and_axes
from exactdp.numeric.rounding import float_at_least, float_at_most
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting import events
from exactdp.mechanisms.accounting.accountant import (
    DEFAULT_MAX_K, AccountResult, _check_k, _check_width, _component, account,
)
from exactdp.mechanisms.accounting.rdp import rdp
from exactdp.numeric.exact import to_exact

__all__ = ["PrivacyCurve", "MAX_BAND_POINTS"]

MAX_BAND_POINTS = 1_000
"""Most epsilons one :meth:`PrivacyCurve.band` call evaluates."""


class PrivacyCurve:
    """The privacy curve of ``mechanisms`` composed ``k`` times (the same mechanisms and
    parameters as :func:`~exactdp.mechanisms.accounting.accountant.account`)."""

    def __init__(self, mechanisms, k: int = 1, *, params: dict | None = None, width=None,
                 max_k: int | None = DEFAULT_MAX_K, max_slots: int | None | str = "auto"):
        # validated here, once, so that a bad argument is named at construction, not at the first query
        if params is not None and not isinstance(params, dict):
            raise InvalidArgument(f"params={params!r} is not a dict; pass the mechanism's parameters, e.g. "
                                  f"params={{'scale': 10}}")
        if events.is_event(mechanisms):  # a dp_accounting DpEvent: the components it describes
            if params:
                raise InvalidArgument("params=... goes with a mechanism name, not with a DpEvent")
            mechanisms, count, _ = events.components(mechanisms)
            k = _check_k(k, max_k) * count
        if isinstance(mechanisms, list):
            if not mechanisms:
                raise InvalidArgument("mechanisms=[] is empty; pass at least one mechanism")
            if params:
                raise InvalidArgument("params=... applies to a single mechanism name; in a list give "
                                      "(name, params) pairs")
            for item in mechanisms:
                _component(item)
        elif isinstance(mechanisms, str):
            _component((mechanisms, dict(params or {})))
        else:
            if params:
                raise InvalidArgument("params=... goes with a mechanism name such as 'discrete-laplace'")
            _component(mechanisms)
        k = _check_k(k, max_k)
        if width is not None:
            _check_width(width)
        if not (max_slots in ("auto", None) or (isinstance(max_slots, int) and not isinstance(max_slots, bool)
                                                 and max_slots >= 1)):
            raise InvalidArgument(f"max_slots={max_slots!r} is not a whole number >= 1, 'auto' or None; it is "
                                  f"the most lattice points a composition may hold")
        self.mechanisms, self.k, self.params, self.width = mechanisms, k, params, width
        self.max_k, self.max_slots = max_k, max_slots
        self._cache: dict = {}
        self.queries = 0

    def _ask(self, **query) -> AccountResult:
        self.queries += 1
        width = query.pop("width", None)
        return account(self.mechanisms, self.k, params=self.params, max_k=self.max_k,
                       max_slots=self.max_slots, width=width if width is not None else self.width,
                       _cache=self._cache, **query)

    def epsilon(self, delta, *, width=None) -> AccountResult:
        """The certified enclosure of ``epsilon(delta)``."""
        return self._ask(delta=delta, width=width)

    def delta(self, epsilon, *, width=None) -> AccountResult:
        """The certified enclosure of ``delta(epsilon)``."""
        return self._ask(epsilon=epsilon, width=width)

    def epsilons_over_steps(self, delta, steps, *, width=None) -> list[AccountResult]:
        """The certified enclosure of ``epsilon(delta)`` after each number of rounds ``k`` in
        ``steps`` (the curve's mechanisms composed ``k`` times; the curve's own ``k`` is not used).

        One pass, as an accountant composing step by step would give: on a loss grid the
        precision, the grid's range and the trims are chosen for the largest ``k``, and the
        squarings of each round's pairs (``pairs**(2**j)``) are computed once and shared by every
        ``k``, so the whole curve costs about what the largest ``k`` alone does. Every enclosure is
        certified as :meth:`epsilon`'s is."""
        ks = [_check_k(k, self.max_k) for k in steps]
        if not ks or len(ks) > MAX_BAND_POINTS:
            raise InvalidArgument(f"steps={list(steps)!r}: give 1 to {MAX_BAND_POINTS:,} numbers of compositions")
        plan = max(ks)
        shared: dict = {}  # the profiles' points, the rounds' lattices and squarings, the grid to start at
        out: dict[int, AccountResult] = {}
        for k in sorted(set(ks)):  # ascending: each k's power is the last one's times a few more steps
            cache = dict(shared)  # the profiles' points and the squarings; each k's own grids apart
            self.queries += 1
            out[k] = account(self.mechanisms, k, params=self.params, delta=delta, max_k=self.max_k,
                             max_slots=self.max_slots, width=width if width is not None else self.width,
                             _cache=cache, _plan_k=plan)
            shared.update((key, v) for key, v in cache.items()
                          if isinstance(key, tuple) and key[0] in ("points", "squarings", "rounds", "start"))
        return [out[k] for k in ks]

    def band(self, epsilons, *, width=None) -> list[dict]:
        """Certified ``delta(epsilon)`` at each of ``epsilons``: one row per epsilon with the exact
        ``epsilon`` and the enclosure's ``delta_lower``/``delta_upper`` (Fractions; the lower end
        rounded down, the upper up)."""
        epsilons = list(epsilons)
        if not epsilons:
            raise InvalidArgument("epsilons=[] is empty; pass the epsilons at which to bound delta")
        if len(epsilons) > MAX_BAND_POINTS:
            raise InvalidArgument(f"{len(epsilons):,} epsilons, more than {MAX_BAND_POINTS:,}; pass fewer")
        rows = []
        for e in epsilons:
            r = self.delta(e, width=width)
            rows.append({"epsilon": to_exact(e, "epsilon"), "delta_lower": r.delta_lower,
                         "delta_upper": r.delta_upper, "width_met": r.width_met})
        return rows

    def plot(self, deltas=("1e-5",), *, steps=None, ax: Any = None, path: str | None = None) -> Any:
        """Draw the certified band ``[epsilon_lower, epsilon_upper]`` and return the matplotlib
        Figure (the ``plot`` extra): against ``delta`` (log scale) at each of ``deltas``, or,
        with ``steps`` (a list of ``k``), against the number of compositions at ``deltas[0]``.
        Into the Axes ``ax`` if given (else a new Figure, no pyplot); written to ``path`` if
        given. The band is drawn from the floats just outside the enclosure."""
        deltas = list(deltas)
        if not deltas or len(deltas) > MAX_BAND_POINTS:
            raise InvalidArgument(f"deltas={deltas!r}: give 1 to {MAX_BAND_POINTS:,} values of delta")
        if steps is not None:
            steps = [_check_k(k, self.max_k) for k in steps]
            if not steps or len(steps) > MAX_BAND_POINTS:
                raise InvalidArgument(f"steps={steps!r}: give 1 to {MAX_BAND_POINTS:,} numbers of compositions")
            results = self.epsilons_over_steps(deltas[0], steps)
            xs, xlabel = [float(k) for k in steps], f"compositions k (delta = {deltas[0]})"
        else:
            results = [self.epsilon(d) for d in deltas]
            xs, xlabel = [float(to_exact(d, "delta")) for d in deltas], "delta"
        lows = [float_at_most(r.epsilon_lower) for r in results]
        highs = [float_at_least(r.epsilon_upper) if r.epsilon_upper != math.inf else math.inf for r in results]
        fig, ax = figure_and_axes(ax)
        line, = ax.plot(xs, highs, marker="o", label="epsilon (certified upper bound)")
        ax.fill_between(xs, lows, highs, alpha=0.3, color=line.get_color(), label="certified band")
        if steps is None:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("epsilon")
        ax.legend(fontsize=8)
        if path is not None:
            fig.tight_layout()
            fig.savefig(path)
        return fig

    def rdp(self, orders=None):
        """The certified Rényi DP curve at ``orders`` (see :func:`~exactdp.mechanisms.accounting.rdp.rdp`;
        default :data:`~exactdp.mechanisms.accounting.rdp.DEFAULT_ORDERS`), an
        :class:`~exactdp.mechanisms.accounting.rdp.RdpResult`."""
        return rdp(self.mechanisms, self.k, params=self.params, orders=orders, max_k=self.max_k)

    def epsilon_from_rdp(self, delta, orders=None, *, method: str = "cks"):
        """The ``(epsilon, delta)`` guarantee the RDP curve implies, minimised over ``orders``
        (an :class:`~exactdp.mechanisms.accounting.rdp.RdpConversion`): a sound upper bound on
        ``epsilon(delta)``, looser than :meth:`epsilon`, which encloses the tight value."""
        return self.rdp(orders).epsilon(delta, method=method)

    def to_dict(self, *, epsilons=(), deltas=()) -> dict:
        """JSON-ready: the mechanisms, ``k`` and the enclosures at the given points (each as
        :meth:`AccountResult.to_dict`: decimal strings, lower ends rounded down, upper up)."""
        points = [self.epsilon(d).to_dict() for d in deltas] + [self.delta(e).to_dict() for e in epsilons]
        if not points:
            raise InvalidArgument("give epsilons=[...] and/or deltas=[...]: the points to export")
        return {"mechanism": points[0]["mechanism"], "params": points[0]["params"], "k": self.k,
                "points": points}

    def __repr__(self) -> str:
        return f"PrivacyCurve({self.mechanisms!r}, k={self.k}, queries={self.queries})"

    def _repr_html_(self) -> str:
        items = self.mechanisms if isinstance(self.mechanisms, list) else [
            (self.mechanisms, self.params) if isinstance(self.mechanisms, str) else self.mechanisms]
        what = " + ".join(_shown(item) for item in items)
        return card(f"PrivacyCurve: {what}, k={self.k:,}", None,
                    [("queries", f"{self.queries} answered (certified: ask .epsilon(delta) or .delta(epsilon))")])


def _shown(item) -> str:
    """``name(k=v, ...)`` for a mechanism given as a name with params, a pair or an object."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict):
        name, params = item
    else:
        name, params = getattr(item, "name", str(item)), getattr(item, "params", {})
    return f"{name}(" + ", ".join(f"{k}={v}" for k, v in (params or {}).items()) + ")"
