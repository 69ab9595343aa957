"""Search for float-sum witnesses: neighbouring datasets whose *computed* sums differ by
more than a claimed sensitivity.

Casacuberta, Shoemate, Vadhan and Wagaman (CCS 2022) showed that a float sum of values
clipped to ``[L, U]`` can move by more than ``U - L`` (or ``max(|L|, |U|)`` when a record
is added or removed) between neighbouring datasets, because every addition is rounded.
:func:`search_float_witness` finds such datasets for a summation model of
:mod:`exactdp.numeric.floatsum`, computing both results exactly (bit for bit what a
program in that format stores) and their difference as a :class:`~fractions.Fraction`.

Datasets are kept as runs ``(value, count)`` in data order, and runs of equal values are
simulated in jumps, so witnesses with millions of records cost milliseconds. Limits: a
pair whose evaluation needs more than ``_float_search.STEP_LIMIT`` single (un-jumped)
additions, or overflows, is skipped and counted in ``skipped`` (Kahan summation of a long
run whose compensation never repeats is the usual case); the randomized part only builds
pairs that share the order of their common records (reordered pairs come from the
reordering construction).

>>> r = search_float_witness("sequential", "float32", bounds=(0, 1), max_n=10_000, claim=1)
>>> r.verdict.value, r.witness.exact_difference
('violated', Fraction(2, 1))
>>> r.witness.x_prime[:1], r.witness.shared_order
(((Fraction(1, 1), 4096),), True)

Even the correctly rounded sum moves by more than 1 (its one rounding differs), but
not by 2; a search that finds nothing is not a proof, though:

>>> search_float_witness("fsum", "float64", bounds=(0, 1), max_n=100, claim=1).witness.exact_difference
Fraction(140737488355329, 140737488355328)
>>> search_float_witness("fsum", "float64", bounds=(0, 1), max_n=100, claim=2, budget=200).verdict.value
'not-found'
"""

from __future__ import annotations

import dataclasses
import enum
from fractions import Fraction
from typing import Any, Callable

from exactdp._budget import check_budget, refuse_above
from exactdp._display import card
from exactdp.checkers._float_search import Candidate, Context, run_search
from exactdp.checkers._float_sim import Grid
from exactdp.checkers.results import Evidence
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import float_reading, format_exact, show_exact, to_exact
from exactdp.numeric.floatformat import FloatFormat, format_named
from exactdp.numeric.floatsum import LIBRARY_MODELS, MODEL_NAMES

__all__ = [
    "FloatVerdict", "FloatWitness", "FloatWitnessResult", "search_float_witness",
    "naive_sum_claim", "DEFAULT_BUDGET", "MAX_BUDGET", "SLOWEST_RATE", "NEIGHBORS",
    "SEARCH_MODELS",
]

DEFAULT_BUDGET = 2000
"""Model evaluations (each: both datasets of a pair) a search may spend by default."""

MAX_BUDGET = 1_000_000
"""Largest ``budget`` accepted by default (``max_budget=`` raises it). Measured on one core
of the benchmark machine (2-vCPU Xeon VM, CPython 3.11): 2,000 to 12,000 evaluations per
second for the pairwise, Neumaier, sorted and sequential models (1.5 to 8 minutes for a
million), 76,000 for fsum, and 220 in the slowest case (Kahan over long runs, where many
pairs need single additions: about 75 minutes)."""

SLOWEST_RATE = 220
"""Evaluations per second in the slowest case measured (Kahan, float64, max_n = 10**6)."""

NEIGHBORS = ("add-remove", "substitute")

SEARCH_MODELS = MODEL_NAMES + tuple(LIBRARY_MODELS)
"""Every model the search takes: :data:`~exactdp.numeric.floatsum.MODEL_NAMES` and the
library models of :data:`~exactdp.numeric.floatsum.LIBRARY_MODELS` (``opendp-pairwise``)."""


class FloatVerdict(str, enum.Enum):
    """Outcome of a witness search: a witness, or none within the budget (no proof)."""

    VIOLATED = "violated"
    NOT_FOUND = "not-found"

    def __str__(self) -> str:
        return self.value


def _value_text(v: Fraction) -> str:
    """``float.hex`` when the value is a float64 (always, for float64/float32 data)."""
    try:
        f = float(v)
    except OverflowError:
        return format_exact(v)
    return f.hex() if Fraction(f) == v else format_exact(v)


def _runs_text(runs, limit: int = 6) -> str:
    parts = [f"{float(v)!r} x {c:,}" if c > 1 else f"{float(v)!r}" for v, c in runs[:limit]]
    if len(runs) > limit:
        parts.append(f"... ({len(runs) - limit} more runs)")
    return "[" + ", ".join(parts) + "]"


@dataclasses.dataclass(frozen=True)
class FloatWitness:
    """Two neighbouring datasets as runs ``(value, count)`` in data order, with the exact
    results the summation model stores for each.

    ``shared_order`` is true when ``x'`` is ``x`` with records inserted, removed or
    substituted in place (the common records are read in the same order); false when the
    two datasets also order their common records differently.
    """

    x: tuple[tuple[Fraction, int], ...]
    x_prime: tuple[tuple[Fraction, int], ...]
    fx: Fraction
    fx_prime: Fraction
    shared_order: bool
    construction: str

    @property
    def exact_difference(self) -> Fraction:
        """``|f(x') - f(x)|``, exactly."""
        return abs(self.fx_prime - self.fx)

    @property
    def sizes(self) -> tuple[int, int]:
        return sum(c for _, c in self.x), sum(c for _, c in self.x_prime)

    def expand(self) -> tuple[list[Fraction], list[Fraction]]:
        """Both datasets as plain lists, in data order (mind the size)."""
        return ([v for v, c in self.x for _ in range(c)],
                [v for v, c in self.x_prime for _ in range(c)])

    def to_dict(self) -> dict:
        return {
            "x": [[_value_text(v), c] for v, c in self.x],
            "x_prime": [[_value_text(v), c] for v, c in self.x_prime],
            "fx": _value_text(self.fx),
            "fx_prime": _value_text(self.fx_prime),
            "exact_difference": format_exact(self.exact_difference),
            "sizes": list(self.sizes),
            "shared_order": self.shared_order,
            "construction": self.construction,
        }

    def __str__(self) -> str:
        nx, ny = self.sizes
        order = ("common records in the same order" if self.shared_order
                 else "common records in a different order")
        return (f"x  = {_runs_text(self.x)} ({nx:,} records)\n"
                f"x' = {_runs_text(self.x_prime)} ({ny:,} records; {order})\n"
                f"f(x) = {float(self.fx)!r} ({_value_text(self.fx)}), "
                f"f(x') = {float(self.fx_prime)!r} ({_value_text(self.fx_prime)})\n"
                f"|f(x') - f(x)| = {format_exact(self.exact_difference)} "
                f"(~{float(self.exact_difference):.17g}); found by: {self.construction}")


@dataclasses.dataclass(frozen=True)
class FloatWitnessResult:
    """What :func:`search_float_witness` did and found.

    ``verdict`` is VIOLATED with a ``witness`` whose exact difference exceeds ``claim``,
    or NOT_FOUND: no violation within ``budget`` evaluations, which proves nothing.
    ``largest`` is the pair with the largest difference seen (the witness, when violated).
    ``first`` is the first violating pair the search met; with ``maximize`` the search
    spent its whole budget and ``witness`` is the largest violation, at least ``first``'s.

    ``evidence`` is ``bit-exact``: every pair evaluated is summed bit for bit as the named
    summation model stores it, so a witness is a real violation of that model. The search
    itself covers only the pairs it evaluated: ``not-found`` says nothing holds (there is
    no ``holds`` verdict here; a sound bound, :mod:`exactdp.numeric.floatsum_bounds`, is
    what establishes a claim).
    """

    verdict: FloatVerdict
    model: str
    fmt: FloatFormat
    bounds: tuple[Fraction, Fraction]
    max_n: int
    neighbors: str
    d_in: int
    claim: Fraction
    budget: int
    evaluations: int
    skipped: int
    seed: int
    same_order: bool
    witness: FloatWitness | None
    largest: FloatWitness | None
    maximize: bool = False
    first: FloatWitness | None = None

    @property
    def evidence(self) -> Evidence:
        """``bit-exact``: each evaluated pair is computed bit for bit (see the class)."""
        return Evidence.BIT_EXACT

    @property
    def violated(self) -> bool:
        return self.verdict is FloatVerdict.VIOLATED

    def scope(self) -> str:
        lo, hi = self.bounds
        order = "common records in the same order" if self.same_order else "any data orders"
        return (f"model {self.model}, {self.fmt.name}, bounds [{format_exact(lo)}, "
                f"{format_exact(hi)}], datasets of at most {self.max_n:,} records, "
                f"{self.neighbors} neighbours at distance {self.d_in}, {order}; "
                f"{self.evaluations:,} of budget={self.budget:,} evaluations used"
                + (", maximizing" if self.maximize else "")
                + (f" ({self.skipped} skipped: overflow or too slow)" if self.skipped else ""))

    @property
    def message(self) -> str:
        c = format_exact(self.claim)
        if self.violated:
            assert self.witness is not None  # a violation carries its witness
            largest = ""
            if self.maximize:
                first = self.first.exact_difference if self.first is not None else None
                largest = (f" (the largest violation found in {self.evaluations:,} evaluations"
                           + (f"; the first was {format_exact(first)})" if first is not None
                              and first != self.witness.exact_difference else ")"))
            return (f"VIOLATED: the {self.model} sum in {self.fmt.name} moves by "
                    f"{format_exact(self.witness.exact_difference)} > claim {c} between "
                    f"neighbouring datasets{largest}")
        best = ("" if self.largest is None else
                f"; largest difference seen {format_exact(self.largest.exact_difference)}")
        return (f"NOT FOUND (evidence: {self.evidence.value} evaluations of the pairs a "
                f"randomized search tried, no more): no pair moved the {self.model} sum in "
                f"{self.fmt.name} by more than claim {c} within budget={self.budget:,} "
                f"evaluations{best}. This is NOT a proof that the claim holds; compare it with "
                f"a sound bound (exactdp.numeric.floatsum_bounds) or raise the budget")

    def __str__(self) -> str:
        text = self.message
        if self.witness is not None:
            text += "\n" + str(self.witness)
        return text + "\n  scope: " + self.scope()

    def _repr_html_(self) -> str:
        return card(f"{self.model} sum in {self.fmt.name}: claim {format_exact(self.claim)}",
                    self.verdict.value,
                    [("found", self.message), ("witness", self.witness), ("scope", self.scope()),
                     ("reproduce", f"search_float_witness(..., seed={self.seed})"),
                     ("evidence", self.evidence.value)])

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict.value,
            "evidence": self.evidence.value,
            "model": self.model,
            "dtype": self.fmt.name,
            "bounds": [format_exact(b) for b in self.bounds],
            "max_n": self.max_n,
            "neighbors": self.neighbors,
            "d_in": self.d_in,
            "claim": format_exact(self.claim),
            "witness": None if self.witness is None else self.witness.to_dict(),
            "largest_difference": (None if self.largest is None
                                   else format_exact(self.largest.exact_difference)),
            "budget": self.budget,
            "evaluations": self.evaluations,
            "seed": self.seed,
            "same_order": self.same_order,
            "maximize": self.maximize,
            "first_difference": (None if self.first is None
                                 else format_exact(self.first.exact_difference)),
            "message": self.message,
        }

    def _repr_latex_(self) -> str:
        import sympy  # lazy: SymPy is heavy; only a notebook's LaTeX display needs it

        c = sympy.latex(sympy.Rational(self.claim.numerator, self.claim.denominator))
        if self.witness is None:
            return (rf"$\text{{not found within {self.budget} evaluations: no }}"
                    rf"|f(x) - f(x')| > {c}$")
        d = self.witness.exact_difference
        dl = sympy.latex(sympy.Rational(d.numerator, d.denominator))
        return (rf"$\text{{{self.model} ({self.fmt.name}): }} |f(x) - f(x')| = {dl} > {c}"
                rf" \quad \text{{(violated)}}$")


def naive_sum_claim(bounds, neighbors: str = "add-remove", d_in: int = 1) -> Fraction:
    """The sensitivity of the *exact* sum of values in ``bounds``: ``d_in * max(|L|, |U|)``
    under add/remove, ``d_in * (U - L)`` under substitution. Float sums exceed it.

    >>> naive_sum_claim((-2, 1)), naive_sum_claim((-2, 1), "substitute")
    (Fraction(2, 1), Fraction(3, 1))
    """
    lo, hi = _bounds(bounds)
    _check_neighbors(neighbors)
    d_in = _positive_int(d_in, "d_in")
    if neighbors == "add-remove":
        return d_in * max(abs(lo), abs(hi))
    return d_in * (hi - lo)


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; pass a whole number such as 1")
    if value < 1:
        raise InvalidArgument(f"{name}={value!r} is below 1; pass a whole number >= 1")
    return value


def _check_neighbors(neighbors: object) -> str:
    if neighbors not in NEIGHBORS:
        raise InvalidArgument(f"neighbors={neighbors!r} is not one of {', '.join(NEIGHBORS)}")
    return neighbors  # type: ignore[return-value]


def _bounds(bounds: object) -> tuple[Fraction, Fraction]:
    if (isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__len__")
            or not hasattr(bounds, "__getitem__") or len(bounds) != 2):  # a set: no bounds[0]
        raise InvalidArgument(f"bounds={bounds!r} is not a pair (L, U); pass e.g. bounds=(0, 1)")
    lo, hi = to_exact(bounds[0], "L"), to_exact(bounds[1], "U")
    if hi < lo:
        raise InvalidArgument(f"Cannot have U={show_exact(hi)} < L={show_exact(lo)}; pass bounds=(L, U) with L <= U")
    return lo, hi


def search_float_witness(model: str, fmt: FloatFormat | str, bounds, max_n: int, claim,
                         neighbors: str = "add-remove", d_in: int = 1,
                         budget: int = DEFAULT_BUDGET, seed: int = 0,
                         progress: Callable[[int, int], Any] | None = None,
                         same_order: bool = False,
                         max_budget: int | None = MAX_BUDGET,
                         maximize: bool = False, floats: str | None = None) -> FloatWitnessResult:
    """Look for neighbouring datasets whose float sums differ by more than ``claim``.

    ``model`` is a summation model of :data:`exactdp.numeric.floatsum.MODELS` or of
    :data:`~exactdp.numeric.floatsum.LIBRARY_MODELS` (:data:`SEARCH_MODELS`), ``fmt`` a
    :class:`~exactdp.numeric.floatformat.FloatFormat` or ``"float64"``/``"float32"``;
    records are values of ``fmt`` in ``bounds = (L, U)`` (both values of ``fmt``), at most
    ``max_n`` per dataset; neighbours differ by ``d_in`` added/removed records or by
    ``d_in`` substituted ones. Each dataset is read in an order the adversary chooses;
    with ``same_order=True`` only pairs whose common records share the order count.
    ``claim`` is an exact number (the naive one is :func:`naive_sum_claim`).

    The search tries constructions first (each explained in
    :mod:`exactdp.checkers._float_search`: a binade-straddling cascade that doubles the
    gap between the two partial sums in every binade, a single binade crossing, and,
    when orders may differ, reordering), then seeded hill climbing on the difference
    from the best of them and from random starts, for at most ``budget`` evaluations
    (one evaluation sums both datasets of a pair). ``progress(done, budget)`` is called
    after each evaluation. Never raises on a violation: the result's verdict says it.

    A ``budget`` above ``max_budget`` (default :data:`MAX_BUDGET`; ``None``: no limit) is
    refused with :class:`~exactdp.errors.TooLarge` before any work.

    ``floats`` says how ``bounds`` and ``claim`` are read (see
    :func:`~exactdp.numeric.exact.to_exact`): ``"binary"`` takes ``bounds=(0, 0.1)`` at the
    float's exact value, as a library holds it; ``None`` follows
    :func:`~exactdp.numeric.exact.float_reading` (``"decimal"``: a float is refused).

    By default the search stops at the first violation. With ``maximize=True`` it spends
    the whole budget and returns the largest violation found, with its witness (the
    result's ``first`` keeps the first one, which it is at least):

    >>> r = search_float_witness("pairwise", "float32", (0, 1), 10_000, 1, maximize=True, budget=300)
    >>> r.witness.exact_difference, r.first.exact_difference
    (Fraction(513, 512), Fraction(16777221, 16777216))
    >>> r.witness.construction.startswith("eight accumulators reordered (64 blocks of 128")
    True
    """
    if floats is not None:
        with float_reading(floats):
            return search_float_witness(model, fmt, bounds, max_n, claim, neighbors=neighbors,
                                        d_in=d_in, budget=budget, seed=seed, progress=progress,
                                        same_order=same_order, max_budget=max_budget,
                                        maximize=maximize)
    if model not in SEARCH_MODELS:
        raise InvalidArgument(f"model={model!r} is not a summation model; pass one of "
                              f"{', '.join(SEARCH_MODELS)}")
    fmt = format_named(fmt)
    lo, hi = _bounds(bounds)
    for name, b in (("L", lo), ("U", hi)):
        if not fmt.is_representable(b):
            raise InvalidArgument(
                f"{name}={show_exact(b)} is not a value of {fmt.name}; pass bounds that are values of "
                f"the format, e.g. {name}={show_exact(fmt.round(max(min(b, fmt.max_value), -fmt.max_value)))}")
    max_n = _positive_int(max_n, "max_n")
    neighbors = _check_neighbors(neighbors)
    d_in = _positive_int(d_in, "d_in")
    budget = _positive_int(budget, "budget")
    refuse_above(budget, check_budget(max_budget, "max_budget"),
                 what="search evaluations asked for by budget", option="max_budget",
                 hint="use a smaller budget (or several runs with different seeds)")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgument(f"seed={seed!r} is not an int; pass a whole number such as 0")
    if not isinstance(maximize, bool):
        raise InvalidArgument(f"maximize={maximize!r} is not a bool; pass True or False")
    claim = to_exact(claim, "claim")
    if claim < 0:
        raise InvalidArgument(f"claim={claim!r} is negative; a sensitivity is at least 0")
    if neighbors == "add-remove" and max_n < d_in:
        raise InvalidArgument(f"max_n={max_n!r} is below d_in={d_in!r}; add/remove "
                              f"neighbours at distance d_in need room for d_in records")
    grid = Grid(fmt)
    ctx = Context(model=model, grid=grid, lo=grid.units(lo), hi=grid.units(hi), max_n=max_n,
                  neighbors=neighbors, d_in=d_in, claim_units=claim / grid.value(1),
                  budget=budget, allow_reorder=not same_order, progress=progress,
                  maximize=maximize)
    run_search(ctx, seed)
    largest = None if ctx.best is None else _witness(grid, *ctx.best)
    violated = ctx.violated()
    return FloatWitnessResult(
        verdict=FloatVerdict.VIOLATED if violated else FloatVerdict.NOT_FOUND,
        model=model, fmt=fmt, bounds=(lo, hi), max_n=max_n, neighbors=neighbors, d_in=d_in,
        claim=claim, budget=budget, evaluations=ctx.evaluations, skipped=ctx.skipped,
        seed=seed, same_order=same_order, witness=largest if violated else None,
        largest=largest, maximize=maximize,
        first=None if ctx.first is None else _witness(grid, *ctx.first))


def _witness(grid: Grid, diff: int, cand: Candidate, fx: int, fy: int) -> FloatWitness:
    conv = lambda runs: tuple((grid.value(v), c) for v, c in runs)  # noqa: E731
    return FloatWitness(conv(cand.x), conv(cand.x_prime), grid.value(fx), grid.value(fy),
                        cand.shared_order, cand.construction)


