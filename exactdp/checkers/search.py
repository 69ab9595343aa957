"""Search for a violated sensitivity claim where enumeration cannot reach.

:func:`search_claim` first enumerates a small corner of the domain exactly (the
smallest values and sizes, with :func:`~exactdp.checkers.sensitivity.sensitivity`), then
drives Hypothesis over neighbouring pairs of the whole domain (a universe of ``10**6``
values, sizes up to ``10**4``), evaluating the query *exactly* on every candidate pair.
It answers ``violated`` with a shrunk witness, or ``not-found``: no violation was found in
the examples tried, which is never a proof that the claim holds.

The search is deterministic: Hypothesis runs from ``random.Random(seed)`` with no
example database, so the same ``seed`` gives the same examples and the same witness.

Hypothesis is imported only when a search runs (it is the ``hypothesis`` extra).
"""

from __future__ import annotations

import enum
import random
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp._display import card
from exactdp._budget import refuse_above
from exactdp.checkers.results import SensitivityResult, Witness, format_value
from exactdp.checkers.sensitivity import bind_claim, claim_parameters, sensitivity
from exactdp.queries.builtin import as_query as _query
from exactdp.spaces.metrics import as_metric
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.decide import compare
from exactdp.queries.base import UNDEFINED, Query, sqrt_value
from exactdp.spaces.datasets import Multisets
from exactdp.spaces.metrics import Metric, check_d_in
from exactdp.spaces.universe import ValueUniverse, parse_universe
from exactdp.checkers.results import _latex
from exactdp.errors import TooLarge
from exactdp.spaces.universe import ExactSet

__all__ = ["search_claim", "SearchResult", "SearchVerdict", "DEFAULT_BUDGET", "MAX_BUDGET"]

DEFAULT_BUDGET = 2_000
"""Default number of generated neighbouring pairs (shrinking adds its own evaluations)."""

MAX_BUDGET = 10_000_000
"""The most pairs one search may generate: beyond it a search runs for hours."""

CORNER_VALUES = 8
"""The corner enumerated exactly: the ``CORNER_VALUES`` smallest values of the universe..."""

CORNER_SIZES = 3
"""...and datasets of the smallest ``CORNER_SIZES`` sizes (and their neighbours)."""

CORNER_MAX_PAIRS = 200_000
"""Budget of the corner's enumeration (it is shrunk until it fits)."""


class SearchVerdict(str, enum.Enum):
    """A search's answer: a violation with its witness, or none found (not a proof)."""

    VIOLATED = "violated"
    NOT_FOUND = "not-found"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search_claim` found, where, and how to reproduce it."""

    claim: str
    claim_value: Any
    verdict: SearchVerdict
    witness: Witness | None
    seed: int
    examples: int  # pairs evaluated exactly by the search (shrinking included)
    found_by: str | None  # "corner" or "search" when violated
    corner: SensitivityResult | None
    scope: str
    params: dict

    @property
    def ok(self) -> bool:
        """``True`` when no violation was found (which proves nothing)."""
        return self.verdict is SearchVerdict.NOT_FOUND

    def summary(self) -> str:
        claim = f"claim {self.claim} = {format_value(self.claim_value)}"
        if self.verdict is SearchVerdict.VIOLATED:
            w = self.witness
            assert w is not None  # a violation always carries its witness pair
            return (f"violated ({self.found_by}): {claim} < |f(x) - f(x')| = "
                    f"{format_value(w.distance)} at {w}")
        return (f"not-found: no pair beyond {claim} in {self.examples:,} examples "
                f"(a search, not a proof)")

    def __str__(self) -> str:
        return f"{self.summary()}\n  seed={self.seed} (search_claim(..., seed={self.seed}) reproduces it)\n  scope: {self.scope}"

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict.value,
            "claim": self.claim,
            "claim_value": format_value(self.claim_value),
            "witness": None if self.witness is None else self.witness.to_dict(),
            "found_by": self.found_by,
            "seed": self.seed,
            "examples": self.examples,
            "corner_sensitivity": None if self.corner is None else format_value(self.corner.value),
            "scope": self.scope,
            "proof": False,
        }

    def _repr_html_(self) -> str:
        return card(f"search: claim {self.claim} = {format_value(self.claim_value)}", self.verdict.value,
                    [("found", self.summary()), ("witness", self.witness), ("scope", self.scope),
                     ("reproduce", f"search_claim(..., seed={self.seed})"),
                     ("evidence", "a search, not a proof" if self.witness is None else "exact pair")])

    def _repr_latex_(self) -> str:
        if self.witness is None:
            return rf"$\text{{not-found}}\ (\text{{seed}}={self.seed})$"
        return (rf"$\text{{violated}}: {_latex(self.claim_value)} < "
                rf"{_latex(self.witness.distance)}\ (\text{{seed}}={self.seed})$")


# -- arguments --------------------------------------------------------------------------

def _universe(universe: object) -> ValueUniverse:
    if isinstance(universe, ValueUniverse):
        return universe
    if isinstance(universe, str):
        return parse_universe(universe)
    raise InvalidArgument(
        f"universe={universe!r} is not a universe; pass IntegerRange(0, 10**6), "
        f"ExactSet([...]) or a string such as '0..1000000'"
    )


def _budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InvalidArgument(f"budget={budget!r} is not an int; pass a number of examples such as 2000")
    if budget < 1:
        raise InvalidArgument(f"budget={budget!r} examines no pair; pass budget >= 1 (e.g. {DEFAULT_BUDGET})")
    refuse_above(budget, MAX_BUDGET, what="examples asked for (budget)", option=None,
                 hint=f"pass budget <= {MAX_BUDGET:,}")
    return budget


def _seed(seed: object) -> int:
    if seed is None:
        return random.SystemRandom().randrange(2**32)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgument(f"seed={seed!r} is not an int; pass a whole number, or None for a fresh one")
    return seed


# -- exact evaluation -------------------------------------------------------------------

def _distance(query: Query, fx: Any, fy: Any) -> Any:
    if query.output == "vector":
        diffs = [abs(a - b) for a, b in zip(fx, fy)]
        if query.norm == "L1":
            return sum(diffs, Fraction(0))
        if query.norm == "Linf":
            return max(diffs, default=Fraction(0))
        return sqrt_value(sum((d * d for d in diffs), Fraction(0)))
    return abs(fx - fy)  # Fractions, or exact SymPy square roots: never a float


def _evaluate(query: Query, x: tuple[Fraction, ...], y: tuple[Fraction, ...]) -> tuple[Any, Any, Any]:
    fx, fy = query(x), query(y)
    return fx, fy, _distance(query, fx, fy)


def _pair_distance(query: Query, value_of, xi: tuple[int, ...], yi: tuple[int, ...]) -> Any:
    """``_evaluate(...)[2]`` for a pair of sorted value-index tuples: the query prepared
    once over the values either dataset holds, applied to both count vectors (no
    Fraction per record: evaluating 100-record datasets record by record took a third of
    a search's time)."""
    support = sorted(set(xi) | set(yi))
    where = {i: k for k, i in enumerate(support)}
    cx, cy = [0] * len(support), [0] * len(support)
    for i in xi:
        cx[where[i]] += 1
    for i in yi:
        cy[where[i]] += 1
    prepared = query.prepare(tuple(value_of(i) for i in support))
    rx, ry = prepared(tuple(cx)), prepared(tuple(cy))
    if rx is UNDEFINED or ry is UNDEFINED:  # refused as query(x) refuses it
        return _evaluate(query, tuple(value_of(i) for i in xi), tuple(value_of(i) for i in yi))[2]
    return _distance(query, query.public_value(rx), query.public_value(ry))


# -- Hypothesis's storage ---------------------------------------------------------------

@contextmanager
def _storage_outside_cwd():
    """Hypothesis's home directory pointed at a temporary one during a search, then back.

    Even with ``database=None`` Hypothesis caches the constants it reads from local modules
    under its home directory, ``./.hypothesis`` by default: ``exactdp search`` left a 140 kB
    ``.hypothesis/`` folder in the user's working directory. A home directory set before
    (``HYPOTHESIS_STORAGE_DIRECTORY``, ``set_hypothesis_home_dir``) is restored afterwards."""
    from hypothesis import configuration  # lazy: hypothesis, an optional dependency (the hypothesis extra)

    key = "__hypothesis_home_directory"  # the setting set_hypothesis_home_dir writes
    setter = getattr(configuration, "set_hypothesis_home_dir", None)
    if setter is None or key not in vars(configuration):  # pragma: no cover - another version
        yield
        return
    before = vars(configuration)[key]
    with tempfile.TemporaryDirectory(prefix="exactdp-search-") as home:
        setter(home)
        try:
            yield
        finally:
            if vars(configuration)[key] == Path(home):
                setter(before)


# -- the corner ---------------------------------------------------------------------------

def _corner(query, universe, lo, hi, metric, d_in):
    """The exact sensitivity on the smallest values and sizes, shrunk until it fits."""
    n_values = min(universe.size, CORNER_VALUES)
    top = min(hi, lo + CORNER_SIZES - 1)
    while True:
        sub = ExactSet([universe.value(i) for i in range(n_values)])
        space = Multisets(sub, sizes=(lo, top))
        try:
            return space, sensitivity(query, space, metric, d_in, undefined="exclude",
                                      max_pairs=CORNER_MAX_PAIRS, progress=False)
        except TooLarge:
            if top > lo:
                top -= 1
            elif n_values > 1:
                n_values //= 2
            else:
                return space, None


# -- the search ----------------------------------------------------------------------------

def search_claim(
    claim: object,
    query: Query | str,
    universe: ValueUniverse | str,
    sizes: object,
    metric: Metric | str = "add-remove",
    d_in: int = 1,
    *,
    exact_k: bool = False,
    budget: int = DEFAULT_BUDGET,
    seed: int | None = 0,
    enumerate_corner: bool = True,
) -> SearchResult:
    """Look for a neighbouring pair whose exact distance exceeds ``claim``.

    ``claim`` is a number or a formula in ``L``, ``U``, ``N``, ``d_in``, ``k`` (as in
    :func:`~exactdp.checkers.sensitivity.verify_claim`); ``universe`` and ``sizes`` define
    the datasets (``Multisets(universe, sizes=sizes)``, never listed); ``budget`` is the
    number of pairs Hypothesis generates; ``seed`` (``None``: a fresh one, returned)
    makes the run reproducible. Datasets smaller than the query's minimum size are left
    out. Never raises on a violation: read ``result.verdict``.

    >>> from exactdp import IntegerRange
    >>> from exactdp.queries import clipped, sum_
    >>> r = search_claim("U - L", clipped(sum_, 10, 20), IntegerRange(0, 10**6), (0, 10**4))
    >>> r.verdict, r.witness.x, r.witness.x_prime
    (<SearchVerdict.VIOLATED: 'violated'>, (), (Fraction(11, 1),))
    """
    parsed = _query(query)
    assert isinstance(parsed, Query)  # as_query without functions=True gives a multiset Query or refuses
    query = parsed
    universe = _universe(universe)
    space = Multisets(universe, sizes=sizes)
    metric = as_metric(metric)
    d_in = check_d_in(d_in)
    if not isinstance(exact_k, bool):
        raise InvalidArgument(f"exact_k={exact_k!r} is not a bool; pass True or False")
    if not isinstance(enumerate_corner, bool):
        raise InvalidArgument(f"enumerate_corner={enumerate_corner!r} is not a bool; pass True or False")
    budget = _budget(budget)
    seed = _seed(seed)
    params = claim_parameters(query, space, d_in)
    text, value = bind_claim(claim, params)  # a bad claim is refused before any work
    lo = max(space.min_size, query.min_size)
    if lo > space.max_size:
        raise InvalidArgument(
            f"sizes={sizes!r}: {query.name} needs at least {query.min_size} records; "
            f"allow larger datasets"
        )
    searched = space.with_sizes(lo, space.max_size)
    _optional.require("hypothesis", library="hypothesis", extra="hypothesis", note="search_claim draws pairs with it")
    from exactdp.spaces.pairs import index_pairs  # lazy: Hypothesis, an optional dependency (the hypothesis extra)

    strategy = index_pairs(searched, metric, d_in, exact_k)  # built before any work: refuses a space with no pairs

    scope = (f"searched {metric.describe(d_in, exact_k)} pairs of {searched.describe()}"
             + (f" (datasets under {query.min_size} records left out)" if lo > space.min_size else "")
             + f"; Hypothesis with seed={seed}, budget={budget:,}")

    def violates(distance: Any) -> bool:
        try:
            return compare(value, distance) < 0
        except Undecided:
            return False  # not shown to exceed the claim: not a witness

    corner_result = None
    if enumerate_corner:
        corner_space, corner_result = _corner(query, universe, lo, space.max_size, metric, d_in)
        if corner_result is not None:
            scope = f"enumerated {corner_result.scope.describe()}; then {scope}"
            if corner_result.scope.pairs and violates(corner_result.value):
                w = corner_result.witness
                return SearchResult(text, value, SearchVerdict.VIOLATED, w, seed, 0, "corner",
                                    corner_result, scope, params)

    from hypothesis import HealthCheck, Phase, find, settings  # lazy: hypothesis, an optional dependency (the hypothesis extra)
    from hypothesis.errors import NoSuchExample, Unsatisfiable  # lazy: hypothesis, an optional dependency

    value_of = universe.value
    evaluated = [0]

    def condition(pair) -> bool:
        evaluated[0] += 1
        return violates(_pair_distance(query, value_of, *pair))

    run_settings = settings(
        max_examples=budget, database=None, deadline=None,
        phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
    )
    try:
        with _storage_outside_cwd():
            found = find(strategy, condition, settings=run_settings, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return SearchResult(text, value, SearchVerdict.NOT_FOUND, None, seed, evaluated[0], None,
                            corner_result, scope, params)
    x, y = (tuple(value_of(i) for i in t) for t in found)
    fx, fy, dist = _evaluate(query, x, y)
    witness = Witness(x, y, fx, fy, dist)
    return SearchResult(text, value, SearchVerdict.VIOLATED, witness, seed, evaluated[0], "search",
                        corner_result, scope, params)
