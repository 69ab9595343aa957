"""The :func:`~exactdp.audits.objects.audit_object` reader of OpenDP ``Transformation``,
``Measurement`` and ``Odometer`` objects (``opendp.mod``).

Everything is read from the object: its ``input_domain``, ``input_metric``,
``output_metric`` / ``output_measure``, its claimed ``map``, and how it was built
(OpenDP records every constructor call and its arguments in ``__opendp_dict__``, the record
``dp.serialize`` writes: a chain names its parts, ``make_laplace`` its scale).

**A transformation** is run on every dataset of a small space chosen from its input domain
(options override it): scalars (a few values within the domain's bounds), vectors of those
values with 0..3 records (or the sized domain's size), as multisets when the metric is
unordered and every order when the order can matter (floats: the sum's rounding depends on
it; ordered metrics). The input metric decides the neighbours (``SymmetricDistance``,
``InsertDeleteDistance``, ``ChangeOneDistance``, ``HammingDistance``, ``AbsoluteDistance``,
``L1Distance``, ``LInfDistance``), exactly as :mod:`exactdp.adapters.opendp` enumerates them;
the output distance of each pair is computed by exactdp from the object's own outputs read at
their exact binary values. The claim ``map(d_in)`` holds on the grid when no pair exceeds it
(``bit-exact-grid``, with the settings); a pair beyond it is the witness, replayed through the
object (``bit-exact``). A transformation whose outputs change between two runs on one input
(a shuffle) is not a function: no verdict.

**A measurement** is judged where exactdp has a model of its noise: the integer Laplace,
geometric and Gaussian noise of ``make_laplace``, ``make_geometric``, ``make_gaussian`` and
``make_noise`` (scalars and vectors; floats through the rounding to ``2**k`` that OpenDP's
float noise applies, the integer noise taken as the ideal discrete distribution), the bounded
geometric (modelled from OpenDP's source), randomized response (booleans, categories, bit
vectors), the noisy max / top-1 / Gumbel selection (the worse of the exponential mechanism
and permute-and-flip on a grid of scores), the thresholded counts of
``make_laplace_threshold`` (the released key's probability, the delta a claim must cover),
the private quantile (its scores enumerated through OpenDP's own
``make_quantile_score_candidates``), and through the combinators: ``make_chain_mt`` (the
transformation enumerated, the noise's loss at the largest distance found), ``make_chain_pm``
(at most the measurement's loss), compositions (the sum), ``make_zCDP_to_approxDP`` and
``make_fix_delta`` over a discrete Gaussian (its exact profile, enclosed), ``make_approximate``,
``make_fixed_approxDP_to_approxDP``, ``make_pureDP_to_zCDP`` (at most epsilon**2 / 2) and
``make_population_amplification`` (the amplification bound at the exact epsilon). The truth is
an interval: a claim at or above its upper end holds (``ideal-noise``: the library's
parameters read bit for bit, its sampler taken as the ideal distribution), below its lower end
is violated (the witness pair and setting, the claim read again from the object), between them
undecided. The budget accountants ``make_adaptive_composition`` /
``make_sequential_composition`` and ``make_privacy_filter`` are run as queryables: their
claimed total against the exact sum of the budgets, and queries beyond the budget must be
refused.

**An odometer** (``make_fully_adaptive_composition``) is invoked, given a few noise queries
built on its input domain (integer Laplace for pure DP, integer Gaussian for zCDP), and its
``privacy_loss(d_in)`` is judged against the exact composition of the queries' losses.

Anything else is one line of :class:`~exactdp.errors.InvalidArgument` saying what is missing.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from exactdp.adapters import opendp as od
from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Settings, refuse_unknown_options, weakest
from exactdp.checkers.results import Evidence, Verdict, format_value
from exactdp.errors import InvalidArgument
from exactdp.numeric.decide import compare
from exactdp.mechanisms.distribution import pure_epsilon, renyi
from exactdp.mechanisms.models.randomized_response import RandomizedResponse
from exactdp.mechanisms.models.noise import DiscreteGaussian
from exactdp.mechanisms.models.opendp import MIN_K, OpenDPBoundedGeometric, geometric_p
from exactdp.mechanisms.models.selection import ExponentialMechanism, PermuteAndFlip
from exactdp.numeric.rounding import float_at_least, float_at_most

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "RANDOM", "reads", "audit_of", "Space", "space_of", "Loss",
           "loss_of", "lineage"]

DISTRIBUTION = "opendp"
EXTRA = "opendp"
OPTIONS = ("d_in", "values", "sizes", "delta", "queries")
"""The options :func:`audit_of` takes: ``d_in`` (one input distance or a list; default 1 and 2
in the metric's units, 2 for a sized ``SymmetricDistance``), ``values`` (the values records
take, within the domain), ``sizes`` (dataset sizes, default 0..3 or the sized domain's size),
``delta`` (the deltas at which a privacy profile is read, default 1e-9, 1e-6, 0.1) and
``queries`` (an odometer's queries: a list of OpenDP measurements on its input domain)."""

RANDOM = frozenset({"make_ordered_random", "make_impute_uniform_float", "make_resize"})
"""Transformations whose output is random (a shuffle, a draw): not functions of their input."""

_BASES = {("opendp.mod", "Transformation"), ("opendp.mod", "Measurement"), ("opendp.mod", "Odometer")}
_MAX_DATASETS = 400
_DELTAS = (1e-9, 1e-6, 0.1)


class _Unsupported(InvalidArgument):
    """What the reader cannot handle (one line)."""


def reads(obj: object) -> bool:
    """Whether ``obj`` is an OpenDP Transformation, Measurement or Odometer (by its classes'
    names: OpenDP is not imported)."""
    return any((k.__module__, k.__name__) in _BASES for k in type(obj).__mro__)


def _kind(obj: object) -> str:
    names = {k.__name__ for k in type(obj).__mro__ if (k.__module__, k.__name__) in _BASES}
    return next(iter(names)).lower()


# --- the record of how an object was built --------------------------------------------------


@dataclass(frozen=True)
class Lineage:
    """One constructor call as OpenDP recorded it: its name and keyword arguments."""

    function: str
    kwargs: dict

    @property
    def qualified(self) -> str:
        return f"opendp.{_MODULES.get(self.function, 'measurements')}.{self.function}"


_MODULES: dict[str, str] = {}


def lineage(obj: object) -> Lineage | None:
    """How OpenDP recorded ``obj``'s construction (``__opendp_dict__``), or None."""
    record = getattr(obj, "__opendp_dict__", None)
    if not isinstance(record, dict) or "__function__" not in record:
        return None
    module = record.get("__module__", "")
    _MODULES[record["__function__"]] = module
    return Lineage(record["__function__"], dict(record.get("__kwargs__", {})))


def _walk(obj: object) -> Iterator[Lineage]:
    """Every constructor in ``obj``'s record, outermost first."""
    lin = lineage(obj)
    if lin is None:
        return
    yield lin
    for v in lin.kwargs.values():
        for item in (v if isinstance(v, (list, tuple)) else (v,)):
            if reads(item):
                yield from _walk(item)


def constructors(obj: object) -> tuple[str, ...]:
    """The qualified names of the OpenDP constructors ``obj`` was built with."""
    return tuple(dict.fromkeys(lin.qualified for lin in _walk(obj)))


# --- the small space of datasets --------------------------------------------------------------


def _text(obj) -> str:
    return str(obj)


def _metric_name(metric) -> str:
    name = _text(metric).split("(", 1)[0]
    return name


def _int_range(carrier: str) -> tuple[int, int] | None:
    if carrier in ("i8", "i16", "i32", "i64", "i128", "isize"):
        bits = {"isize": 64}.get(carrier) or int(carrier[1:])
        return -2 ** (bits - 1), 2 ** (bits - 1) - 1
    if carrier in ("u8", "u16", "u32", "u64", "u128", "usize"):
        bits = {"usize": 64}.get(carrier) or int(carrier[1:])
        return 0, 2 ** bits - 1
    return None


def _default_values(atom) -> tuple:
    """A few values of an atom domain: its bounds and a point between them, or a small set
    around zero with the type's extremes (where a sum could wrap or saturate)."""
    carrier = _text(atom.carrier_type)
    bounds = atom.bounds if carrier not in ("String", "bool") else None
    if carrier in ("f64", "f32"):
        if bounds is not None:
            lo, hi = float(bounds[0]), float(bounds[1])
            mid = lo / 2 + hi / 2
            return tuple(sorted({lo, hi, mid, math.nextafter(lo, hi)}))
        return (-1.0, 0.0, 0.5, 1.0)
    if carrier == "bool":
        return (False, True)
    if carrier == "String":
        return ("a", "b", "c")
    span = _int_range(carrier)
    if span is None:
        raise _Unsupported(f"an atom domain of {carrier}: the reader enumerates integers, floats, booleans "
                           f"and strings; pass values=[...] to choose the records")
    if bounds is not None:
        lo, hi = int(bounds[0]), int(bounds[1])
        return tuple(sorted({lo, hi, (lo + hi) // 2}))
    lo, hi = span
    return tuple(sorted({v for v in (lo, lo + 1, -1, 0, 1, 2, hi - 1, hi) if lo <= v <= hi}))


@dataclass
class Space:
    """The datasets of a small space and its neighbour relation (the input metric)."""

    kind: str              # "atom" or "vector"
    metric: str            # the OpenDP metric's name
    values: tuple
    sizes: tuple[int, ...]
    ordered: bool          # every order of a vector (else sorted multisets)
    monotonic: bool = False
    datasets: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind == "atom":
            self.datasets = list(self.values)
        else:
            make = (lambda n: itertools.product(self.values, repeat=n)) if self.ordered else \
                (lambda n: itertools.combinations_with_replacement(self.values, n))
            self.datasets = [tuple(x) for n in self.sizes for x in make(n)]
        if len(self.datasets) > _MAX_DATASETS:
            raise _Unsupported(f"{len(self.datasets)} datasets from values={list(self.values)!r}, "
                               f"sizes={list(self.sizes)!r}: at most {_MAX_DATASETS}; pass fewer values or "
                               f"smaller sizes")

    def distance(self, x, y) -> Fraction | None:
        """The input distance of ``x`` and ``y`` (None: infinite)."""
        m = self.metric
        if self.kind == "atom":
            return abs(od.exact(x) - od.exact(y)) if m == "AbsoluteDistance" else (
                Fraction(0) if x == y else Fraction(1))
        if m == "SymmetricDistance":
            return od.multiset_distance(x, y)
        if m == "InsertDeleteDistance":
            return od.insert_delete(x, y)
        if m in ("ChangeOneDistance", "HammingDistance") and len(x) != len(y):
            return None
        if m == "ChangeOneDistance":
            return od.change_one_distance(x, y)
        if m == "HammingDistance":
            return od.hamming(x, y)
        if len(x) != len(y):
            return None
        diffs = [od.exact(b) - od.exact(a) for a, b in zip(x, y)]
        if m == "L1Distance":
            return sum((abs(d) for d in diffs), Fraction(0))
        if m == "LInfDistance":
            if self.monotonic and not (all(d >= 0 for d in diffs) or all(d <= 0 for d in diffs)):
                return None
            return max((abs(d) for d in diffs), default=Fraction(0))
        raise _Unsupported(f"input metric {m}: the reader computes SymmetricDistance, InsertDeleteDistance, "
                           f"ChangeOneDistance, HammingDistance, AbsoluteDistance, L1Distance, LInfDistance")

    def pairs(self, d_in: Fraction) -> Iterator[tuple]:
        for x in self.datasets:
            for y in self.datasets:
                if x != y:
                    d = self.distance(x, y)
                    if d is not None and 0 < d <= d_in:
                        yield x, y

    @property
    def text(self) -> str:
        what = (f"scalars in {{{', '.join(map(repr, self.values))}}}" if self.kind == "atom" else
                f"{'sequences (every order)' if self.ordered else 'multisets'} of "
                f"{{{', '.join(map(repr, self.values))}}} with {_sizes_text(self.sizes)} records")
        return f"{len(self.datasets)} datasets: {what}, {self.metric}"


def _sizes_text(sizes) -> str:
    sizes = list(sizes)
    return f"{sizes[0]}..{sizes[-1]}" if sizes == list(range(sizes[0], sizes[-1] + 1)) and len(sizes) > 1 else \
        ", ".join(map(str, sizes))


_ORDERED_METRICS = ("InsertDeleteDistance", "HammingDistance", "L1Distance", "LInfDistance", "L2Distance")


def space_of(domain, metric, values=None, sizes=None) -> Space:
    """The small space the reader enumerates for ``domain`` under ``metric`` (see the module's
    note); ``values`` and ``sizes`` override the defaults."""
    kind = type(domain).__name__
    name = _metric_name(metric)
    if kind == "AtomDomain":
        vals = tuple(values) if values is not None else _default_values(domain)
        if name not in ("AbsoluteDistance", "DiscreteDistance"):
            raise _Unsupported(f"an atom domain under {name}: the reader enumerates scalars under "
                               f"AbsoluteDistance or DiscreteDistance")
        return Space("atom", name, vals, (), False)
    if kind == "VectorDomain":
        atom = domain.element_domain
        vals = tuple(values) if values is not None else _default_values(atom)
        size = domain.size
        if sizes is not None:
            sz = tuple(int(s) for s in sizes)
        elif size is not None:
            sz = (int(size),)
        else:
            sz = (0, 1, 2, 3) if name in ("SymmetricDistance", "InsertDeleteDistance") else (2,)
        floats = _text(atom.carrier_type) in ("f64", "f32")
        ordered = name in _ORDERED_METRICS or floats or name in ("ChangeOneDistance",) and floats
        return Space("vector", name, vals, sz, ordered, monotonic="monotonic" in _text(metric))
    raise _Unsupported(f"an input domain {_text(domain)}: the reader enumerates AtomDomain and VectorDomain "
                       f"(scalars and vectors)")


def _d_ins(obj, space: Space | None, option) -> list:
    """The input distances to judge: ``option``, or the metric's defaults."""
    carrier = _text(getattr(obj, "input_distance_type", "u32"))
    if option is not None:
        out = list(option) if isinstance(option, (list, tuple)) and not _is_tuple_distance(obj) else [option]
    elif "DiscreteDistance" in _text(getattr(obj, "input_metric", "")):
        out = [1]
    elif space is not None and space.metric == "SymmetricDistance" and space.kind == "vector" and len(space.sizes) == 1 \
            and space.sizes[0] > 0:
        out = [2, 4]
    else:
        out = [1, 2]
    if carrier in ("f64", "f32"):
        out = [float(d) for d in out]
    return out


def _is_tuple_distance(obj) -> bool:
    return _text(getattr(obj, "input_distance_type", "")).startswith("(")


# --- output distances -----------------------------------------------------------------------


def _l2_squared(a, b) -> Fraction:
    if len(a) != len(b):
        raise InvalidArgument(f"outputs of lengths {len(a)} and {len(b)}: L2Distance needs equal lengths")
    return sum(((od.exact(p, "output") - od.exact(q, "output")) ** 2 for p, q in zip(a, b)), Fraction(0))


_OUTPUT = {"AbsoluteDistance": od.absolute, "LInfDistance": od.linf, "L1Distance": od.l1,
           "SymmetricDistance": od.multiset_distance, "InsertDeleteDistance": od.insert_delete,
           "HammingDistance": od.hamming, "ChangeOneDistance": od.change_one_distance,
           "L2Distance": _l2_squared}


def _output_distance(metric) -> tuple[Callable, bool]:
    """exactdp's distance for an output metric, and whether it is squared (L2)."""
    name = _metric_name(metric)
    if name not in _OUTPUT:
        raise _Unsupported(f"output metric {_text(metric)}: the reader computes {', '.join(_OUTPUT)}")
    return _OUTPUT[name], name == "L2Distance"


# --- transformations ------------------------------------------------------------------------


@dataclass
class _Row:
    d_in: Any
    claim: Fraction
    truth: Fraction
    x: Any = None
    y: Any = None
    fx: Any = None
    fy: Any = None


def _run(obj, x, what: str = "transformation"):
    arg = list(x) if isinstance(x, tuple) else x
    return call_library(f"{what}({arg!r})", obj, arg)


def _stability_rows(t, space: Space, d_ins, what: str = "transformation"):
    """For each d_in: OpenDP's claim and the largest output distance over the pairs (outputs
    computed twice: a difference means the transformation is random)."""
    distance, squared = _output_distance(t.output_metric)
    outputs = {}
    for x in space.datasets:
        first, second = _run(t, x, what), _run(t, x, what)
        if _canon(first) != _canon(second):
            raise _Random(x, first, second)
        outputs[x] = first
    rows = []
    for d in d_ins:
        claim = od.claim_map(t, d, what)
        best = _Row(d, claim, Fraction(0))
        for x, y in space.pairs(od.exact(d)):
            moved = distance(outputs[x], outputs[y])
            if squared:
                moved = moved
            if moved > best.truth:
                best = _Row(d, claim, moved, x, y, outputs[x], outputs[y])
        rows.append(best)
    return rows, squared


class _Random(Exception):
    def __init__(self, x, a, b):
        super().__init__(f"two runs on {x!r} gave {a!r} and {b!r}")
        self.x = x


def _canon(v):
    if isinstance(v, float):
        return v.hex() if v == v else "nan"
    if isinstance(v, (list, tuple)):
        return tuple(_canon(e) for e in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _canon(e)) for k, e in v.items()))
    return v


def _exceeds(truth: Fraction, claim: Fraction, squared: bool) -> int:
    """compare(truth, claim) with an L2 truth given squared."""
    if squared:
        return (truth > claim * claim) - (truth < claim * claim)
    return (truth > claim) - (truth < claim)


def _show(q, squared: bool = False) -> str:
    if squared:
        return f"sqrt({format_value(q)})"
    return format_value(q)


def _judge_shuffle(t, space: Space, d_ins, name: str) -> Finding:
    """make_ordered_random: the output is a uniformly random order of the input. For each pair
    of neighbours, the smallest D such that some coupling of the two output distributions keeps
    every pair of outputs within InsertDeleteDistance D: by the supply-demand theorem (Gale), a
    coupling within D exists exactly when every set S of x's orders has P(S) <= Q(orders of x'
    within D of S). Exact, on every pair of the space."""
    def support(x) -> dict:
        perms = Counter(itertools.permutations(x))
        total = sum(perms.values())
        return {p: Fraction(c, total) for p, c in perms.items()}

    def feasible(P: dict, Q: dict, D: int) -> bool:
        a = list(P)
        near = {p: {q for q in Q if od.insert_delete(p, q) <= D} for p in a}
        for r in range(1, len(a) + 1):
            for S in itertools.combinations(a, r):
                if sum(P[p] for p in S) > sum(Q[q] for q in set().union(*(near[p] for p in S))):
                    return False
        return True

    seen = {x: _canon(_run(t, x)) for x in space.datasets}   # the library runs on every dataset
    rows = []
    for d in d_ins:
        claim = od.claim_map(t, d)
        best = _Row(d, claim, Fraction(0))
        for x, y in space.pairs(od.exact(d)):
            P, Q = support(x), support(y)
            D = 0
            while not feasible(P, Q, D):
                D += 1
            if D > best.truth:
                best = _Row(d, claim, Fraction(D), x, y)
        rows.append(best)
    over = [r for r in rows if r.truth > r.claim]
    for x, out in seen.items():
        if tuple(sorted(out)) != tuple(sorted(x)):
            return Finding("map", "unknown", Verdict.UNDECIDED, evidence=None, scope=space.text,
                           note=f"OpenDP's output on {x!r} is not an order of it ({out!r}): the model does not apply")
    claim = "; ".join(f"d_in={r.d_in!r}: {format_value(r.claim)}" for r in rows)
    truth = "; ".join(f"d_in={r.d_in!r}: {format_value(r.truth)} (the best coupling's largest distance)" for r in rows)
    settings = Settings(len(rows), f"d_in {', '.join(map(repr, d_ins))}; {space.text}")
    scope = (f"{name} on {space.text}; the output taken as a uniformly random order of the input (OpenDP's "
             f"shuffle; every output seen was an order of its input); the exact bottleneck coupling of every pair")
    if over:
        return Finding(claim, truth, Verdict.UNDECIDED, {"x": _json(over[0].x), "x_prime": _json(over[0].y)},
                       evidence=None, scope=scope, settings=settings,
                       note="a pair beyond the claim under the uniform-shuffle model; no replay of a coupling")
    tight = all(r.truth == r.claim for r in rows)
    return Finding(claim, truth, Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE,
                   scope=scope, settings=settings)


def _judge_transformation(t, space: Space, d_ins, name: str) -> Finding:
    if name == "make_ordered_random":
        return _judge_shuffle(t, space, d_ins, name)
    try:
        rows, squared = _stability_rows(t, space, d_ins)
    except _Random as e:
        return Finding(f"map at d_in {', '.join(map(repr, d_ins))}", "unknown", Verdict.UNDECIDED, evidence=None,
                       scope=space.text,
                       note=f"the transformation's output is random ({e}): the reader judges functions of "
                            f"their input; a random transformation's claim is about a coupling")
    verdicts = [_exceeds(r.truth, r.claim, squared) for r in rows]
    worst = next((r for r, c in zip(rows, verdicts) if c > 0), None)
    claim = "; ".join(f"d_in={r.d_in!r}: {format_value(r.claim)}" for r in rows)
    truth = "; ".join(f"d_in={r.d_in!r}: {_show(r.truth, squared)}" for r in rows)
    settings = Settings(len(rows), f"d_in {', '.join(map(repr, d_ins))}; {space.text}")
    if worst is None:
        tight = all(c == 0 for c in verdicts)
        return Finding(claim, truth, Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS, evidence=Evidence.BIT_EXACT_GRID,
                       scope=f"{name} on {space.text}; every pair at distance 1..d_in, the object's own outputs "
                             f"at exact values", settings=settings)
    distance, sq = _output_distance(t.output_metric)
    fx, fy = _run(t, worst.x), _run(t, worst.y)
    moved = distance(fx, fy)
    replay = Replay.of(_exceeds(moved, worst.claim, sq) > 0)
    witness = {"x": _json(worst.x), "x_prime": _json(worst.y), "fx": _json(fx), "fx_prime": _json(fy),
               "d_in": repr(worst.d_in), "claim": format_value(worst.claim), "distance": _show(moved, sq)}
    return Finding(claim, truth, Verdict.VIOLATED, witness, replay, evidence=Evidence.BIT_EXACT,
                   scope=f"{name} on {space.text}; every pair at distance 1..d_in, the object's own outputs at "
                         f"exact values", settings=settings)


def _json(v):
    if isinstance(v, (list, tuple)):
        return [_json(e) for e in v]
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return {str(k): _json(e) for k, e in v.items()}
    return v


# --- measurements: the loss of the noise ----------------------------------------------------


@dataclass
class Loss:
    """What exactdp knows of a measurement's loss at one input distance: the measure's value
    (pure epsilon or zCDP rho) lies in ``[lo, hi]`` (exact SymPy or Fraction; ``lo`` None:
    no lower bound, ``hi`` None: no upper bound), attained near ``witness``."""

    lo: Any
    hi: Any
    witness: dict | None = None
    evidence: Evidence = Evidence.IDEAL_NOISE
    note: str = ""


@dataclass
class Model:
    """A measurement's loss as a function of the input distance (``at(d_in) -> Loss``) and the
    measure it is stated in (``pure`` or ``zcdp``)."""

    measure: str
    at: Callable[[Any], Loss]
    what: str
    gaussian_sigma: Fraction | None = None  # a single discrete Gaussian on integers (for profiles)
    released: Callable | None = None        # thresholds: the release probability of keys with these counts
    note: str = ""


def _measure(m) -> str:
    text = _text(m.output_measure)
    return {"MaxDivergence": "pure", "ZeroConcentratedDivergence": "zcdp"}.get(text, text)


def _integer(domain) -> bool:
    atom = domain.element_domain if type(domain).__name__ == "VectorDomain" else domain
    return _int_range(_text(atom.carrier_type)) is not None


def _float_atom(domain) -> bool:
    return type(domain).__name__ == "AtomDomain" and _text(domain.carrier_type) in ("f64", "f32")


def _rat(q) -> sympy.Expr:
    q = Fraction(q)
    return sympy.Rational(q.numerator, q.denominator)


def _noise_model(m, lin: Lineage) -> Model:
    """make_laplace / make_gaussian / make_geometric / make_noise."""
    kw = lin.kwargs
    scale = kw.get("scale")
    measure = _measure(m)
    domain, metric = m.input_domain, _metric_name(m.input_metric)
    sc = od.exact(scale, "scale")
    if sc == 0:
        raise _Unsupported("scale = 0: no noise; the reader judges noise with a positive scale")
    bounds = kw.get("bounds")
    if lin.function == "make_geometric" and bounds is not None:
        q = geometric_p(float(scale))
        model = OpenDPBoundedGeometric(q.upper, int(bounds[0]), int(bounds[1]))

        def at(d):
            ratio = model.max_ratio_at(int(d))
            return Loss(None, sympy.log(_rat(ratio)), {"x": int(bounds[0]), "x_prime": int(bounds[0]) + int(d)},
                        Evidence.BIT_EXACT_GRID, "the bounded geometric modelled from OpenDP's source at the "
                                                 "largest p its code can compute")
        return Model(measure, at, f"{lin.function}(scale={scale!r}, bounds={tuple(bounds)})")
    if _integer(domain):
        if metric not in ("AbsoluteDistance", "L1Distance", "L2Distance"):
            raise _Unsupported(f"{lin.function} under {metric}: the reader models integer noise under "
                               f"AbsoluteDistance, L1Distance and L2Distance")
        if measure == "pure":
            def at(d):
                loss = od.exact(d) / sc    # independent coordinates: the shifts' L1 norm over the scale
                return Loss(loss, loss, {"x": 0, "x_prime": int(od.exact(d))})
            return Model("pure", at, f"{lin.function}(integers, scale={scale!r})")
        if measure == "zcdp":
            def at(d):
                dd = od.exact(d)
                hi = dd * dd / (2 * sc * sc)
                whole = Fraction(math.floor(dd))
                return Loss(whole * whole / (2 * sc * sc), hi, {"x": 0, "x_prime": int(whole)})
            return Model("zcdp", at, f"{lin.function}(integers, scale={scale!r})", gaussian_sigma=sc)
    if _float_atom(domain) and metric == "AbsoluteDistance" and measure in ("pure", "zcdp"):
        k = kw.get("k")
        kk = MIN_K if k is None else int(k)
        K = Fraction(2) ** kk

        def at(d):
            steps, x, y = od.float_worst_pairs(kk, [float(d)])[float(d)]
            moved = steps * K / sc
            loss = moved if measure == "pure" else moved * moved / 2
            return Loss(loss if measure == "pure" else None, loss, {"x": repr(x), "x_prime": repr(y), "k": kk},
                        note="floats rounded to a multiple of 2**k as OpenDP's source does, the worst pair among "
                             "the ties, subnormals and extremes")
        return Model(measure, at, f"{lin.function}(floats, scale={scale!r}, k={kk})")
    raise _Unsupported(f"{lin.function} on {_text(domain)} under {metric} with {_text(m.output_measure)}: no model "
                       f"(the reader models integer scalars and vectors, and float scalars)")


def _rr_model(m, lin: Lineage) -> Model:
    kw = lin.kwargs
    if lin.function == "make_randomized_response_bitvec":
        f = od.exact(kw["f"], "f")
        weight = _max_weight(m.input_domain)
        half = f / 2
        per_bit = sympy.log(_rat((1 - half) / half))

        def at(d):
            bits = 2 * weight * min(int(d), 1)
            return Loss(bits * per_bit, bits * per_bit, {"x": f"{weight} ones", "x_prime": f"{weight} other ones"},
                        note=f"each bit flipped with probability f/2 = {format_value(half)}; two vectors of weight "
                             f"<= {weight} differ in up to {2 * weight} bits")
        return Model("pure", at, f"make_randomized_response_bitvec(f={kw['f']!r}, max_weight={weight})")
    p = od.exact(kw["prob"], "prob")
    k = len(kw["categories"]) if lin.function == "make_randomized_response" else 2
    rr = RandomizedResponse(p=p, k_values=k)
    loss = pure_epsilon(rr.distribution(0), rr.distribution(1)).value

    def at(d):
        value = loss if od.exact(d) >= 1 else sympy.Integer(0)
        return Loss(value, value, {"x": 0, "x_prime": 1})
    return Model("pure", at, f"{lin.function}(prob={kw['prob']!r}, {k} categories)")


def _max_weight(domain) -> int:
    text = _text(domain)
    import re
    found = re.search(r"weight[^0-9]*([0-9]+)", text)
    if found is None:
        raise _Unsupported(f"a bit-vector domain without max_weight ({text}): its loss is unbounded")
    return int(found.group(1))


def _selection_models(scale: Fraction):
    """The two rules OpenDP's noisy-max samplers implement, with c = 1/scale: the exponential
    mechanism (Gumbel noise) and permute-and-flip (exponential noise)."""
    epsilon = 2 / scale
    return (ExponentialMechanism(epsilon=epsilon, sensitivity=1), PermuteAndFlip(epsilon=epsilon, sensitivity=1))


_ALPHAS = (Fraction(3, 2), Fraction(2), Fraction(4))


def _selection_loss(models, measure: str, pairs) -> Loss:
    """Over the pairs of score vectors: each rule's largest loss; the loss lies between the
    smaller and the larger of the two (whichever rule OpenDP's sampler follows). zCDP: Renyi
    divergences of a few orders over alpha, a lower bound only."""
    per_model, where = [], {}
    for model in models:
        best = sympy.Integer(0)
        for u, v in pairs:
            P, Q = model.distribution(tuple(u)), model.distribution(tuple(v))
            values = [pure_epsilon(P, Q).value] if measure == "pure" else [renyi(P, Q, a) / _rat(a) for a in _ALPHAS]
            for value in values:
                if compare(value, best) > 0:
                    best = value
                    where[type(model).__name__] = {"x": list(u), "x_prime": list(v)}
        per_model.append(best)
    lo, hi = (min(per_model, key=_key), max(per_model, key=_key))
    low_name = type(models[[_key(v) for v in per_model].index(_key(lo))]).__name__
    witness = {**where.get(low_name, {}), "rules": "exponential mechanism, permute-and-flip"}
    note = ("the loss of the exponential mechanism and of permute-and-flip (the rules OpenDP's samplers "
            "implement), the smaller below and the larger above")
    if measure == "pure":
        return Loss(lo, hi, witness, Evidence.IDEAL_NOISE, note)
    return Loss(lo, None, witness, Evidence.IDEAL_NOISE,
                note + "; Renyi divergences of orders 3/2, 2, 4 over alpha: a lower bound on rho")


def _selection_model(m, lin: Lineage) -> Model:
    """Noisy max / top-1 / Gumbel: every pair of score vectors of 2 candidates with scores in
    0..2d at LInfDistance <= d (monotone pairs under a monotonic metric)."""
    kw = lin.kwargs
    if int(kw.get("k", 1)) != 1:
        raise _Unsupported(f"make_noisy_top_k with k={kw['k']}: the reader models k = 1 (the noisy max)")
    scale = od.exact(kw["scale"], "scale")
    measure = _measure(m)
    monotonic = "monotonic" in _text(m.input_metric)
    models = _selection_models(scale)

    def at(d):
        dd = int(od.exact(d))
        vectors = [(a, b) for a in range(0, 1 + 2 * dd) for b in range(0, 1 + 2 * dd)]
        pairs = []
        for u in vectors:
            if min(u) != 0:        # both rules depend on the scores' differences only: shift u to 0
                continue
            for v in vectors:
                diff = [q - p for p, q in zip(u, v)]
                if u == v or max(map(abs, diff)) > dd:
                    continue
                if monotonic and not (all(x >= 0 for x in diff) or all(x <= 0 for x in diff)):
                    continue
                pairs.append((u, v))
        return _selection_loss(models, measure, pairs)
    return Model(measure, at, f"{lin.function}(scale={kw['scale']!r})")


def _quantile_model(m, lin: Lineage, options: dict) -> Model:
    """make_private_quantile: OpenDP's own make_quantile_score_candidates on every dataset of
    the space, then the selection's loss between the score vectors of every pair of
    neighbours. The scores are rebuilt from the construction record (OpenDP does not expose the
    ones its quantile uses), so the interval's lower end is not a witness: no violation is
    claimed from it."""
    dp = od.load()
    kw = lin.kwargs
    scores = call_library("make_quantile_score_candidates", dp.t.make_quantile_score_candidates,
                          kw["input_domain"], kw["input_metric"], kw["candidates"], alpha=kw["alpha"])
    space = space_of(m.input_domain, m.input_metric, options.get("values"), options.get("sizes"))
    measure = _measure(m)
    models = _selection_models(od.exact(kw["scale"], "scale"))

    def at(d):
        outputs = {x: _run(scores, x, "make_quantile_score_candidates") for x in space.datasets}
        pairs = {(tuple(outputs[x]), tuple(outputs[y])) for x, y in space.pairs(od.exact(d))}
        pairs = [(u, v) for u, v in pairs if u != v]
        loss = _selection_loss(models, measure, pairs)
        return Loss(None, loss.hi, loss.witness, loss.evidence,
                    f"scores from OpenDP's make_quantile_score_candidates on {space.text} ({len(pairs)} pairs of "
                    f"score vectors); {loss.note}")
    return Model(measure, at, f"make_private_quantile(scale={kw['scale']!r})")


def _threshold_model(m, lin: Lineage) -> Model:
    """make_laplace_threshold / make_noise_threshold (integer counts, discrete Laplace Z): a key
    present in one dataset only, with count c, is released when ``c + Z >= threshold``, which
    the other dataset never does; so delta(epsilon) is at least the probability that one of
    those keys is released, at every epsilon: ``1 - prod(1 - P(c + Z >= threshold))``. The
    reader judges the claimed delta against that lower bound (the claim's epsilon is not
    bounded here)."""
    kw = lin.kwargs
    gaussian = _measure(m) == "Approximate(ZeroConcentratedDivergence)"
    if _measure(m) != "Approximate(MaxDivergence)" and not gaussian:
        raise _Unsupported(f"{lin.function} with {_text(m.output_measure)}: the reader models the Laplace and "
                           f"Gaussian thresholds")
    value = _text(m.input_domain)
    if not any(f"AtomDomain{s}{t}" in value for s in ("<", "(T=") for t in ("i", "u")):
        raise _Unsupported(f"{lin.function} on {value}: the reader models integer counts")
    scale = od.exact(kw["scale"], "scale")
    threshold = int(kw["threshold"])
    q = sympy.exp(-1 / _rat(scale))

    def tail(c: int) -> sympy.Expr:          # P(c + Z >= threshold) for the discrete Laplace Z
        gap = threshold - c
        if gap <= 0:
            return 1 - q ** (1 - gap) / (1 + q)
        return q ** gap / (1 + q)

    if gaussian:
        tail = _gaussian_tail_below(scale, threshold)

    def released(counts):
        keep = 1
        for c in counts:
            keep *= 1 - tail(int(c))
        return 1 - keep

    def at(d):
        l0, lp, linf = (od.exact(v) for v in d)   # lp: l1 (Laplace) or l2 (Gaussian)
        best, where = 0, None
        for j in range(1, int(l0) + 1):
            for counts in itertools.product(range(1, int(linf) + 1), repeat=j):
                norm = sum(c * c for c in counts) if gaussian else sum(counts)
                if norm <= (lp * lp if gaussian else lp) and compare(released(counts), best) > 0:
                    x = {f"k{i}": c for i, c in enumerate(counts)}
                    best, where = released(counts), {"x": x, "x_prime": {}, "input": x, "keys": list(x)}
        return Loss((sympy.Integer(0), best), None, where, note=_threshold_note(threshold, gaussian))
    model = Model("threshold", at, f"{lin.function}(scale={kw['scale']!r}, threshold={threshold})")
    model.released = released
    model.note = _threshold_note(threshold, gaussian)
    return model


_GAUSS_TERMS = 4


def _gaussian_tail_below(sigma: Fraction, threshold: int) -> Callable[[int], Fraction]:
    """A lower bound on P(c + Z >= threshold) for the discrete Gaussian Z of scale ``sigma``,
    as an exact Fraction: finitely many terms of the numerator (interval arithmetic, lower
    ends) over an upper bound of the normaliser (its terms with |z| <= N, upper ends, and a
    geometric bound on the rest)."""
    import mpmath

    N = _GAUSS_TERMS + int(math.ceil(12 * float(sigma)))
    with mpmath.workprec(200):
        iv = mpmath.iv
        s2 = 2 * iv.mpf(sigma.numerator) ** 2 / iv.mpf(sigma.denominator) ** 2
        e = [iv.exp(-iv.mpf(z * z) / s2) for z in range(N + 2)]
        rest = 2 * e[N + 1] / (1 - iv.exp(-iv.mpf(2 * N + 3) / s2))
        norm_upper = _mp_fraction((e[0] + 2 * sum(e[1:N + 1]) + rest).b)
        cache: dict[int, Fraction] = {}

        def numerator(gap: int) -> Fraction:
            with mpmath.workprec(200):
                total = sum(iv.exp(-iv.mpf(z * z) / s2) for z in range(gap, gap + N))
                return _mp_fraction(total.a)

    def tail(c: int) -> Fraction:
        gap = threshold - c
        if gap not in cache:
            cache[gap] = numerator(gap) / norm_upper
        return cache[gap]
    return tail


def _threshold_note(threshold: int, gaussian: bool = False) -> str:
    if gaussian:
        return (f"a key of count c in one dataset only is released when c + Z >= {threshold}, Z the discrete "
                f"Gaussian: that probability enclosed from below (interval arithmetic)")
    return (f"a key of count c in one dataset only is released when c + Z >= {threshold}, with probability "
            f"q**({threshold} - c) / (1 + q), q = exp(-1/scale), Z the discrete Laplace")


def loss_of(m, options: dict | None = None) -> Model:
    """exactdp's model of measurement ``m``'s loss, read from how it was built; one line of
    :class:`InvalidArgument` when there is none."""
    options = options or {}
    lin = lineage(m)
    if lin is None:
        raise _Unsupported(f"a measurement without OpenDP's construction record (__opendp_dict__): the reader "
                           f"cannot tell which noise it adds")
    f = lin.function
    if f in ("make_laplace", "make_gaussian", "make_geometric", "make_noise"):
        return _noise_model(m, lin)
    if f in ("make_randomized_response_bool", "make_randomized_response", "make_randomized_response_bitvec"):
        return _rr_model(m, lin)
    if f in ("make_noisy_max", "make_noisy_top_k", "make_report_noisy_max_gumbel"):
        return _selection_model(m, lin)
    if f == "make_private_quantile":
        return _quantile_model(m, lin, options)
    if f in ("make_laplace_threshold", "make_gaussian_threshold", "make_noise_threshold"):
        return _threshold_model(m, lin)
    if f == "make_chain_mt":
        return _chain_model(lin, options)
    if f == "make_canonical_noise":
        return _canonical_model(lin)
    if f == "make_chain_pm":
        inner = loss_of(lin.kwargs["measurement0"], options)

        def at(d):
            loss = inner.at(d)
            return Loss(None, loss.hi, loss.witness, loss.evidence,
                        _join("post-processing: at most the measurement's loss", loss.note))
        return Model(inner.measure, at, f"make_chain_pm(..., {inner.what})")
    if f in ("make_composition", "make_basic_composition"):
        parts = [loss_of(p, options) for p in lin.kwargs["measurements"]]
        measures = {p.measure for p in parts}
        if measures - {"pure", "zcdp"} or len(measures) > 1:
            raise _Unsupported(f"{f} of {', '.join(sorted(measures))} measurements: the reader composes pure DP "
                               f"or zCDP")

        def at(d):
            losses = [p.at(d) for p in parts]
            his = [x.hi for x in losses]
            los = [x.lo for x in losses if x.lo is not None]
            hi = None if any(h is None for h in his) else sum(his, sympy.Integer(0))
            lo = max(los, key=_key) if los else None
            return Loss(lo, hi, losses[0].witness, _weakest(x.evidence for x in losses),
                        "the sum of the parts' losses (their ratios multiply) above; the largest part below")
        return Model(parts[0].measure, at, f"{f}({', '.join(p.what for p in parts)})")
    if f == "make_pureDP_to_zCDP":
        inner = loss_of(lin.kwargs["measurement"], options)

        def at(d):
            loss = inner.at(d)
            hi = None if loss.hi is None else loss.hi ** 2 / 2
            return Loss(None, hi, loss.witness, loss.evidence,
                        _join("epsilon-DP implies (epsilon**2 / 2)-zCDP (Bun & Steinke 2016, Prop. 1.4)", loss.note))
        return Model("zcdp", at, f"make_pureDP_to_zCDP({inner.what})")
    if f == "make_approximate":
        inner = loss_of(lin.kwargs["measurement"], options)
        return Model("approx-of:" + inner.measure, inner.at, f"make_approximate({inner.what})",
                     inner.gaussian_sigma)
    if f == "make_population_amplification":
        inner = loss_of(lin.kwargs["measurement"], options)
        if inner.measure != "pure":
            raise _Unsupported(f"make_population_amplification of a {inner.measure} measurement: the reader "
                               f"amplifies pure DP")
        n = lin.kwargs["measurement"].input_domain.size
        big_n = int(lin.kwargs["population_size"])

        def at(d):
            loss = inner.at(d)
            hi = None if loss.hi is None else sympy.log(1 + sympy.Rational(n, big_n) * (sympy.exp(loss.hi) - 1))
            return Loss(None, hi, loss.witness, loss.evidence,
                        _join(f"sampling {n} of {big_n} without replacement: ln(1 + n/N (e**eps - 1)) "
                              f"(Balle, Barthe & Gaboardi 2018)", loss.note))
        return Model("pure", at, f"make_population_amplification({inner.what}, {big_n})")
    raise _Unsupported(f"{lin.qualified}: exactdp has no model of this measurement's noise")


def _canonical_model(lin: Lineage) -> Model:
    """make_canonical_noise at delta = 0: the noise is d_in times Tulap(0, b = e**-epsilon, q = 0),
    a discrete Laplace of parameter b plus an independent uniform on [-1/2, 1/2] (Awan & Vadhan
    2023); its density is b**|round(t)| up to a constant, so any shift of at most d_in moves it
    across a step: the pure epsilon is exactly epsilon at every input distance in (0, d_in]."""
    kw = lin.kwargs
    eps, delta = (od.exact(v, "d_out") for v in kw["d_out"])
    top = od.exact(kw["d_in"], "d_in")
    if delta != 0:
        raise _Unsupported(f"make_canonical_noise with delta={kw['d_out'][1]!r}: the reader models the canonical "
                           f"noise at delta = 0 (Tulap with q = 0)")

    def at(d):
        if not 0 < od.exact(d) <= top:
            return Loss(sympy.Integer(0), sympy.Integer(0))
        return Loss(eps, eps, {"x": 0.0, "x_prime": repr(float(d))}, Evidence.IDEAL_NOISE,
                    "the noise taken as the ideal Tulap(0, e**-epsilon, 0) scaled by d_in (the float sampler's "
                    "arithmetic is not modelled)")
    return Model("approx-of:pure", at, f"make_canonical_noise(d_in={kw['d_in']!r}, d_out={tuple(kw['d_out'])!r})")


def _key(v):
    return float(sympy.N(v, 30)) if not isinstance(v, tuple) else float(sympy.N(v[0], 30))


def _weakest(evidence) -> Evidence:
    return weakest(*list(evidence))


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a and b else a or b


def _chain_model(lin: Lineage, options: dict) -> Model:
    t = lin.kwargs["transformation0"]
    inner = loss_of(lin.kwargs["measurement1"], options)
    space = space_of(t.input_domain, t.input_metric, options.get("values"), options.get("sizes"))
    if inner.measure == "threshold":
        return _chain_threshold(t, inner, space)
    _, squared = _output_distance(t.output_metric)

    def at(d):
        try:
            rows, _ = _stability_rows(t, space, [d], "transformation0")
        except _Random as e:
            raise _Unsupported(f"the chain's transformation is random ({e}): the reader enumerates functions")
        row = rows[0]
        mid = row.truth
        if squared:
            # the L2 distance: the measurement's loss at the smallest float at or above it
            mid_value = float_at_least(_sqrt_upper(mid))
        else:
            mid_value = _as_distance(mid, lin.kwargs["measurement1"])
        loss = inner.at(mid_value) if mid else Loss(sympy.Integer(0), sympy.Integer(0))
        witness = {"x": _json(row.x), "x_prime": _json(row.y), "d_mid": _show(mid, squared)}
        return Loss(loss.lo, loss.hi, witness, _weakest([loss.evidence, Evidence.BIT_EXACT_GRID]),
                    _join(f"the transformation enumerated on {space.text} (largest output distance "
                          f"{_show(mid, squared)}; the measurement's loss there)", loss.note))
    return Model(inner.measure, at, f"make_chain_mt({inner.what}, ...)", inner.gaussian_sigma)


def _chain_threshold(t, inner: Model, space: Space) -> Model:
    """A transformation into counts by key, then a threshold: every pair of the space, the keys
    the first output has and the second lacks, and the probability one of them is released."""
    def at(d):
        outputs = {x: _run(t, x, "transformation0") for x in space.datasets}
        best, where = sympy.Integer(0), None
        for x, y in space.pairs(od.exact(d)):
            fx, fy = outputs[x], outputs[y]
            only = {k: c for k, c in fx.items() if k not in fy and c > 0}
            if only and compare(inner.released(only.values()), best) > 0:
                best = inner.released(only.values())
                where = {"x": _json(x), "x_prime": _json(y), "fx": _json(fx), "fx_prime": _json(fy),
                         "input": list(x), "keys": list(only)}
        return Loss((sympy.Integer(0), best), None, where,
                    note=_join(f"the transformation enumerated on {space.text}", inner.note))
    model = Model("threshold", at, f"make_chain_mt({inner.what}, ...)", released=inner.released)
    model.note = inner.note
    return model


def _sqrt_upper(q: Fraction) -> Fraction:
    r = sympy.sqrt(_rat(q))
    return Fraction(str(sympy.Rational(sympy.ceiling(r * 2 ** 60), 2 ** 60)))


def _as_distance(q: Fraction, m):
    carrier = _text(m.input_distance_type)
    if carrier in ("f64", "f32"):
        return float_at_least(q)
    return int(q) if q.denominator == 1 else int(math.ceil(q))


# --- judging a measurement ------------------------------------------------------------------


def _verdict(claim, loss: Loss) -> Verdict:
    if loss.lo is not None and compare(loss.lo, claim) > 0:
        return Verdict.VIOLATED
    if loss.hi is not None and compare(loss.hi, claim) <= 0:
        return Verdict.HOLDS_TIGHT if loss.lo is not None and compare(loss.lo, claim) == 0 and compare(
            loss.hi, claim) == 0 else Verdict.HOLDS
    return Verdict.UNDECIDED


def _worst(verdicts) -> Verdict:
    verdicts = list(verdicts)
    for v in (Verdict.VIOLATED, Verdict.UNDECIDED):
        if v in verdicts:
            return v
    return Verdict.HOLDS_TIGHT if verdicts and all(v is Verdict.HOLDS_TIGHT for v in verdicts) else Verdict.HOLDS


def _num(v) -> str:
    if v is None:
        return "?"
    if isinstance(v, Fraction):
        return format_value(v)
    return f"{v} (~{float(sympy.N(v, 20)):.12g})" if not getattr(v, "is_Rational", False) else format_value(
        Fraction(int(v.p), int(v.q)))


def _judge_measurement(m, options: dict, name: str) -> Finding:
    model = loss_of(m, options)
    if model.measure == "threshold":
        return _judge_threshold(m, model, options, name)
    if model.measure.startswith("approx-of:"):
        return _judge_approximate(m, model, options, name)
    if model.measure not in ("pure", "zcdp"):
        raise _Unsupported(f"a measurement stated in {model.measure}: the reader judges pure DP, zCDP, "
                           f"approximate DP and privacy profiles of a discrete Gaussian")
    d_ins = _d_ins(m, _first_space(m, options), options.get("d_in"))
    rows, verdicts = [], []
    for d in d_ins:
        claim = od.claim_map(m, d, "measurement")
        loss = model.at(d)
        rows.append((d, claim, loss))
        verdicts.append(_verdict(claim, loss))
    return _measurement_finding(m, model, rows, verdicts, name, lambda d: od.claim_map(m, d, "measurement"))


def _measurement_finding(m, model, rows, verdicts, name, reclaim) -> Finding:
    word = {"pure": "epsilon", "zcdp": "rho"}.get(model.measure, model.measure)
    verdict = _worst(verdicts)
    claim = "; ".join(f"d_in={d!r}: {word} {format_value(c)}" for d, c, _ in rows)
    truth = "; ".join(f"d_in={d!r}: in [{_num(x.lo) if x.lo is not None else '0'}, "
                      f"{_num(x.hi) if x.hi is not None else 'unbounded'}]" for d, _, x in rows)
    witness = replay = None
    if verdict is Verdict.VIOLATED:
        d, c, loss = next(r for r, v in zip(rows, verdicts) if v is Verdict.VIOLATED)
        again = reclaim(d)
        replay = Replay.of(again == c and compare(loss.lo, again) > 0)
        witness = {**(loss.witness or {}), "d_in": repr(d), "claim": format_value(c), "exact_loss": _num(loss.lo)}
    evidence = _weakest([x.evidence for _, _, x in rows])
    notes = "; ".join(dict.fromkeys(x.note for _, _, x in rows if x.note))
    return Finding(claim, truth, verdict, witness, replay, evidence=evidence,
                   scope=f"{name}: {model.what}; {word} at each d_in against exactdp's model of the noise",
                   note=notes, settings=Settings(len(rows), f"d_in {', '.join(repr(d) for d, _, _ in rows)}"))


def _first_space(m, options: dict) -> Space | None:
    """The space of the transformation a measurement starts with (for its default d_in)."""
    lin = lineage(m)
    if lin is None:
        return None
    if lin.function == "make_chain_mt":
        t = lin.kwargs["transformation0"]
        try:
            return space_of(t.input_domain, t.input_metric, options.get("values"), options.get("sizes"))
        except InvalidArgument:
            return None
    for key in ("measurement0", "measurement"):
        if key in lin.kwargs and reads(lin.kwargs[key]):
            return _first_space(lin.kwargs[key], options)
    if lin.function in ("make_composition", "make_basic_composition") and lin.kwargs.get("measurements"):
        return _first_space(lin.kwargs["measurements"][0], options)
    return None


def _judge_approximate(m, model: Model, options, name: str) -> Finding:
    """make_approximate(m): the claim is (epsilon, 0); the inner's pure loss must be within it."""
    inner = model.measure.split(":", 1)[1]
    d_ins = _d_ins(m, _first_space(m, options), options.get("d_in"))
    rows, verdicts = [], []
    for d in d_ins:
        pair = call_library(f"measurement.map({d!r})", m.map, d)
        eps, delta = od.exact(pair[0], "epsilon"), od.exact(pair[1], "delta")
        loss = model.at(d)
        rows.append((d, eps, loss))
        verdicts.append(_verdict(eps, loss) if inner == "pure" else Verdict.UNDECIDED)
    return _measurement_finding(m, Model("pure", model.at, model.what), rows, verdicts, name,
                                lambda d: od.exact(call_library("map", m.map, d)[0]))


def _judge_threshold(m, model: Model, options, name: str) -> Finding:
    space = _first_space(m, options)
    d_ins = options.get("d_in")
    if space is not None:
        d_ins = _d_ins(m, space, d_ins)
    elif d_ins is not None:
        d_ins = [tuple(d_ins)] if not isinstance(d_ins[0], (list, tuple)) else [tuple(d) for d in d_ins]
    else:
        d_ins = [(1, 1, 1), (1, 2, 2)]
    rows, verdicts = [], []
    for d in d_ins:
        pair = call_library(f"measurement.map({d!r})", m.map, d)
        eps, delta = od.exact(pair[0], "epsilon"), od.exact(pair[1], "delta")
        loss = model.at(d)
        rows.append((d, (eps, delta), loss))
        verdicts.append(Verdict.VIOLATED if compare(loss.lo[1], delta) > 0 else Verdict.UNDECIDED)
    witness = replay = None
    verdict = _worst(verdicts)
    note = rows[0][2].note
    if verdict is Verdict.VIOLATED:
        d, (eps, delta), loss = next(r for r, v in zip(rows, verdicts) if v is Verdict.VIOLATED)
        w = loss.witness
        released, draws, bound = _release_frequency(m, w["input"], w["keys"], delta)
        replay = Replay.of(bound > delta)
        witness = {"x": w["x"], "x_prime": w["x_prime"], "d_in": _json(list(d) if isinstance(d, tuple) else d),
                   "claim": f"(epsilon, delta) = ({format_value(eps)}, {format_value(delta)})",
                   "exact_release_probability": _num(loss.lo[1]), "released": f"{released} of {draws} draws",
                   "release_probability_at_least": f"{float(bound):.6g}"}
        note = _join(note, f"replay: {draws} draws of OpenDP on x released a key of x only {released} times: the "
                           f"release probability is at least {float(bound):.6g} (Chernoff bound, error "
                           f"probability below {_REPLAY_ERROR:g}){', above the claimed delta' if bound > delta else ''}")
    return Finding("; ".join(f"d_in={d}: (epsilon, delta) = ({format_value(e)}, {format_value(dl)})"
                             for d, (e, dl), _ in rows),
                   "; ".join(f"d_in={d}: delta >= {_num(x.lo[1])} (a key of one dataset only, released)"
                             for d, _, x in rows),
                   verdict, witness, replay,
                   # a violation rests on the ideal discrete Laplace and a sampled replay
                   evidence=Evidence.STATISTICAL,
                   scope=f"{name}: {model.what}; the delta needed at the pairs with a key in one dataset only",
                   note=note, settings=Settings(len(rows), f"d_in {', '.join(map(str, d_ins))}"))


_RELEASE_DRAWS = (1_000, 20_000)
"""The thresholded release's replay: draws in rounds of the first number, at most the second."""

_REPLAY_ERROR = 1e-9


def _release_frequency(m, x, keys, delta) -> tuple[int, int, Fraction]:
    """Run the thresholded release on ``x`` and count the draws that release any of its keys,
    in rounds until the lower confidence bound on the release probability exceeds ``delta``
    (or the draws run out): ``(hits, draws, bound)``."""
    step, most = _RELEASE_DRAWS
    hits = draws = 0
    bound = Fraction(0)
    target = od.exact(delta)
    while draws < most:
        for _ in range(step):
            out = call_library("threshold release", m, dict(x) if isinstance(x, dict) else list(x))
            hits += any(k in out for k in keys)
        draws += step
        bound = binomial_lower(hits, draws, _REPLAY_ERROR)
        if bound > target:
            break
    return hits, draws, bound


def binomial_lower(hits: int, draws: int, error: float) -> Fraction:
    """A lower confidence bound on a Bernoulli probability from ``hits`` of ``draws``: the
    smallest ``p`` with ``exp(-draws KL(hits/draws || p)) >= error`` (Chernoff), found by
    bisection at 60 digits and rounded down to a float."""
    import mpmath

    if hits == 0:
        return Fraction(0)
    with mpmath.workdps(60):
        f = mpmath.mpf(hits) / draws
        need = mpmath.log(1 / mpmath.mpf(error)) / draws

        def kl(p):
            out = f * mpmath.log(f / p)
            if f < 1:
                out += (1 - f) * mpmath.log((1 - f) / (1 - p))
            return out
        lo, hi = mpmath.mpf(0), f
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid == 0 or kl(mid) > need:
                lo = mid
            else:
                hi = mid
        return Fraction(float_at_most(_mp_fraction(lo)))


def _mp_fraction(x) -> Fraction:
    import mpmath
    man, exp = mpmath.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# --- profiles of a discrete Gaussian -----------------------------------------------------------


def _gaussian_under(m) -> tuple[Fraction, Model]:
    """The sigma of the single integer discrete Gaussian inside ``m`` (and its model)."""
    model = loss_of(m)
    if model.measure != "zcdp" or model.gaussian_sigma is None:
        raise _Unsupported(f"a privacy profile of {model.what}: the reader computes the exact profile of one "
                           f"integer discrete Gaussian")
    return model.gaussian_sigma, model


def _judge_profile(m, inner, options, name: str, fixed: bool) -> Finding:
    sigma, model = _gaussian_under(inner)
    gauss = DiscreteGaussian(sigma=sigma)
    d_ins = _d_ins(m, None, options.get("d_in"))
    deltas = options.get("delta") or _DELTAS
    deltas = [deltas] if isinstance(deltas, (int, float)) else list(deltas)
    rows, verdicts, witness, replay = [], [], None, None
    for d in d_ins:
        shift = int(math.floor(od.exact(model.at(d).witness.get("x_prime", d)))) if model.at(d).witness else int(d)
        settings = []
        if fixed:
            pair = call_library(f"measurement.map({d!r})", m.map, d)
            settings.append((od.exact(pair[1], "delta"), od.exact(pair[0], "epsilon"), pair[1]))
        else:
            profile = call_library(f"measurement.map({d!r})", m.map, d)
            for delta in deltas:
                eps = od.exact(call_library(f"profile.epsilon({delta!r})", profile.epsilon, delta), "epsilon")
                settings.append((od.exact(delta), eps, delta))
        for delta, eps, raw in settings:
            if eps < 0:
                v = Verdict.UNDECIDED
                lo = hi = None
            else:
                lo, hi = gauss.delta_enclosure(0, shift, eps)
                hi_all = hi
                # the shift the chain reaches is a lower bound on the worst; a larger shift (up to
                # d_in itself) bounds it above: the profile is monotone in the shift
                top = int(math.ceil(od.exact(d))) if not isinstance(d, tuple) else shift
                if top != shift:
                    hi_all = gauss.delta_enclosure(0, top, eps)[1]
                v = Verdict.VIOLATED if lo > delta else Verdict.HOLDS if hi_all <= delta else Verdict.UNDECIDED
            rows.append((d, raw, eps, lo, hi))
            verdicts.append(v)
            if v is Verdict.VIOLATED and witness is None:
                witness = {"x": 0, "x_prime": shift, "d_in": repr(d), "delta": repr(raw), "epsilon": str(eps),
                           "exact_delta_at_least": f"{float(lo):.6g}"}
                again = (od.exact(call_library("map", m.map, d)[0]) if fixed else
                         od.exact(call_library("epsilon", call_library("map", m.map, d).epsilon, raw)))
                replay = Replay.of(again == eps)
    claim = "; ".join(f"d_in={d!r}, delta={raw!r}: epsilon {format_value(e)}" for d, raw, e, _, _ in rows)
    truth = "; ".join(f"d_in={d!r}, delta={raw!r}: exact delta(epsilon) in "
                      f"[{float(lo):.6g}, {float(hi):.6g}]" if lo is not None else f"d_in={d!r}: epsilon < 0"
                      for d, raw, e, lo, hi in rows)
    return Finding(claim, truth, _worst(verdicts), witness, replay, evidence=Evidence.IDEAL_NOISE,
                   scope=f"{name}: the exact privacy profile of the discrete Gaussian (sigma = "
                         f"{format_value(sigma)}) between 0 and the shift the input distance allows, enclosed",
                   settings=Settings(len(rows), f"d_in {', '.join(map(repr, d_ins))}; delta "
                                                f"{', '.join(repr(r[1]) for r in rows[:4])}"
                                                + (" ..." if len(rows) > 4 else "")))


# --- accountants: compositions with budgets, filters, odometers ----------------------------------


def _sum_of(values) -> Fraction:
    return sum((od.exact(v, "d_mid") for v in values), Fraction(0))


def _default_query(domain, metric, measure: str, loss: Fraction):
    """An integer noise measurement on ``domain`` whose claimed loss at d_in is ``loss``."""
    dp = od.load()
    if measure == "MaxDivergence":
        return call_library("make_laplace", dp.m.make_laplace, domain, metric, scale=float(1 / loss))
    return call_library("make_gaussian", dp.m.make_gaussian, domain, metric, scale=float(1 / loss))


def _judge_budget(m, lin: Lineage, name: str) -> Finding:
    """make_adaptive_composition / make_sequential_composition: the claimed total against the
    exact sum of the budgets; each budget is spent by one query, and a further query must be
    refused."""
    kw = lin.kwargs
    d_in, d_mids = kw["d_in"], list(kw["d_mids"])
    measure = _text(kw["output_measure"])
    if measure not in ("MaxDivergence", "ZeroConcentratedDivergence"):
        raise _Unsupported(f"{lin.function} in {measure}: the reader sums pure DP and zCDP budgets")
    claim = od.claim_map(m, d_in, "composition")
    truth = _sum_of(d_mids)
    queryable = call_library("invoke the composition", m, _default_value(m.input_domain))
    spent, refused = [], None
    for i, d_mid in enumerate(d_mids):
        q = _query_at(m, measure, d_in, od.exact(d_mid))
        call_library(f"query {i} (loss {d_mid!r})", queryable, q)
        spent.append(d_mid)
    extra = _query_at(m, measure, d_in, Fraction(1, 1000))
    try:
        queryable(extra)
        refused = False
    except Exception:   # the library refusing a query beyond the budget is what is expected
        refused = True
    verdict = Verdict.VIOLATED if claim < truth or not refused else (
        Verdict.HOLDS_TIGHT if claim == truth else Verdict.HOLDS)
    witness = replay = None
    if verdict is Verdict.VIOLATED:
        witness = {"d_in": repr(d_in), "d_mids": [repr(v) for v in d_mids], "claim": format_value(claim),
                   "extra_query_accepted": not refused}
        replay = Replay.of(od.claim_map(m, d_in, "composition") == claim)
    return Finding(f"map({d_in!r}) = {format_value(claim)}", f"sum of the budgets = {format_value(truth)}; a "
                   f"query past the budget {'refused' if refused else 'ACCEPTED'}", verdict, witness, replay,
                   evidence=Evidence.BIT_EXACT_GRID if verdict is not Verdict.VIOLATED else Evidence.BIT_EXACT,
                   scope=f"{name}: {len(d_mids)} budgets, one query spending each, then one more",
                   settings=Settings(1, f"d_in {d_in!r}, d_mids {', '.join(map(repr, d_mids))}"))


def _default_value(domain):
    kind = type(domain).__name__
    if kind == "AtomDomain":
        return _default_values(domain)[0]
    if kind == "VectorDomain":
        size = domain.size
        return [_default_values(domain.element_domain)[0]] * (size or 1)
    raise _Unsupported(f"an accountant on {_text(domain)}: the reader invokes it on scalars and vectors")


def _query_at(m, measure: str, d_in, loss: Fraction):
    """A query on ``m``'s input space whose claimed loss at ``d_in`` is at most ``loss``."""
    dp = od.load()
    domain, metric = m.input_domain, m.input_metric
    if type(domain).__name__ != "AtomDomain" or not _integer(domain):
        raise _Unsupported(f"queries on {_text(domain)}: the reader builds integer noise on integer scalars")
    d = od.exact(d_in)
    if measure == "MaxDivergence":
        scale = float(d / loss)
        while od.exact(scale) * loss < d:
            scale = math.nextafter(scale, math.inf)
        return call_library("make_laplace", dp.m.make_laplace, domain, metric, scale=scale)
    scale = float(sympy.sqrt(_rat(d * d / (2 * loss))).evalf(30))
    while d * d / (2 * od.exact(scale) ** 2) > loss:
        scale = math.nextafter(scale, math.inf)
    return call_library("make_gaussian", dp.m.make_gaussian, domain, metric, scale=scale)


def _judge_filter(m, lin: Lineage, name: str) -> Finding:
    """make_privacy_filter(odometer, d_in, d_out): queries of a fixed loss until the filter
    refuses one; the exact sum of the accepted queries' losses must stay within d_out."""
    kw = lin.kwargs
    d_in, d_out = kw["d_in"], kw["d_out"]
    odometer = kw["odometer"]
    measure = _text(odometer.output_measure)
    claim = od.claim_map(m, d_in, "privacy filter")
    queryable = call_library("invoke the filter", m, _default_value(m.input_domain))
    bound = od.exact(d_out)
    step = bound / 3 + bound / 17         # not a divisor of the budget: the last query must not fit
    accepted: list[Fraction] = []
    for i in range(8):
        q = _query_at(m, measure, d_in, step)
        model = loss_of(q)
        try:
            queryable(q)
        except Exception:  # the filter refusing the query that would exceed d_out: expected
            break
        loss = model.at(d_in)
        accepted.append(Fraction(str(loss.hi)) if not isinstance(loss.hi, Fraction) else loss.hi)
    total = sum(accepted, Fraction(0))
    over = total > bound or claim < bound
    witness = replay = None
    if over:
        witness = {"d_in": repr(d_in), "d_out": repr(d_out), "accepted_losses": [format_value(a) for a in accepted]}
        replay = Replay.of(od.claim_map(m, d_in, "privacy filter") == claim)
    return Finding(f"map({d_in!r}) = {format_value(claim)}; queries refused past d_out = {d_out!r}",
                   f"{len(accepted)} queries accepted, exact total loss {format_value(total)}",
                   Verdict.VIOLATED if over else Verdict.HOLDS, witness, replay,
                   evidence=Evidence.IDEAL_NOISE if not over else Evidence.BIT_EXACT,
                   scope=f"{name}: integer noise queries of loss {format_value(step)} each until one is refused",
                   settings=Settings(1, f"d_in {d_in!r}, d_out {d_out!r}"))


def _judge_odometer(o, options, name: str) -> Finding:
    measure = _text(o.output_measure)
    d_in = _d_ins(o, None, options.get("d_in"))[0]
    queries = options.get("queries")
    if queries is None:
        queries = [_query_at(o, measure, d_in, loss) for loss in (Fraction(1, 2), Fraction(1, 3), Fraction(1, 7))]
    queryable = call_library("invoke the odometer", o, _default_value(o.input_domain))
    losses = []
    for i, q in enumerate(queries):
        model = loss_of(q)
        call_library(f"query {i}", queryable, q)
        losses.append(model.at(d_in))
    claim = od.exact(call_library(f"privacy_loss({d_in!r})", queryable.privacy_loss, d_in), "privacy_loss")
    his = [x.hi for x in losses]
    hi = None if any(h is None for h in his) else sum(his, sympy.Integer(0))
    los = [x.lo for x in losses if x.lo is not None]
    lo = max(los, key=_key) if los else None
    if measure == "MaxDivergence" and all(x.lo is not None and x.hi is not None and compare(x.lo, x.hi) == 0
                                          for x in losses):
        lo = hi      # pure DP of independent releases of one shift: the losses add exactly
    loss = Loss(lo, hi, None, _weakest(x.evidence for x in losses))
    verdict = _verdict(claim, loss)
    witness = replay = None
    if verdict is Verdict.VIOLATED:
        again = od.exact(call_library("privacy_loss", queryable.privacy_loss, d_in))
        replay = Replay.of(again == claim)
        witness = {"d_in": repr(d_in), "queries": len(queries), "privacy_loss": format_value(claim)}
    return Finding(f"privacy_loss({d_in!r}) = {format_value(claim)} after {len(queries)} queries",
                   f"the queries' exact composition in [{_num(lo)}, {_num(hi)}]", verdict, witness, replay,
                   evidence=loss.evidence,
                   scope=f"{name}: {len(queries)} noise queries on {_text(o.input_domain)}; the composition of "
                         f"their exact losses",
                   settings=Settings(1, f"d_in {d_in!r}, {len(queries)} queries"))


# --- the reader's entry point -------------------------------------------------------------------


def audit_of(obj: object, **options: Any) -> Audit:
    """The :class:`Audit` of one OpenDP object (see the module's note)."""
    refuse_unknown_options(options, OPTIONS, "the OpenDP reader")
    if not reads(obj):
        raise InvalidArgument(f"an object of type {type(obj).__qualname__}: the OpenDP reader reads Transformation, "
                              f"Measurement and Odometer")
    kind = _kind(obj)
    lin = lineage(obj)
    name = lin.function if lin is not None else f"an OpenDP {kind}"
    covers = constructors(obj)
    check = _with_features(_planned(obj, kind, lin, name, dict(options)))
    claim = {"transformation": "stability map d_in -> d_out bounds the output distance of neighbours",
             "measurement": "privacy map d_in -> d_out bounds the exact loss of the noise",
             "odometer": "privacy_loss after the queries bounds their exact composition"}[kind]
    return Audit(id=f"opendp/object/{name}", library="opendp", component=name, claim=claim, check=check,
                 covers=covers)


def _with_features(check: Callable[[], Finding]) -> Callable[[], Finding]:
    """Run ``check`` with OpenDP's ``contrib`` switch on (the queries the reader builds need it),
    noting the toggle it flipped."""
    from dataclasses import replace

    def run() -> Finding:
        with od.features("contrib") as flipped:
            found = check()
        note = od.toggles_note(flipped)
        return replace(found, note=_join(found.note, note)) if note else found
    return run


def _planned(obj, kind: str, lin: Lineage | None, name: str, options: dict) -> Callable[[], Finding]:
    """The check, after the refusals that need no library call (one line each)."""
    if kind == "transformation":
        space = space_of(obj.input_domain, obj.input_metric, options.get("values"), options.get("sizes"))
        _output_distance(obj.output_metric)
        d_ins = _d_ins(obj, space, options.get("d_in"))
        return lambda: _judge_transformation(obj, space, d_ins, name)
    if kind == "odometer":
        measure = _text(obj.output_measure)
        if lin is None or lin.function != "make_fully_adaptive_composition" or measure not in (
                "MaxDivergence", "ZeroConcentratedDivergence"):
            raise _Unsupported(f"an odometer {name} in {measure}: the reader judges make_fully_adaptive_composition "
                               f"in pure DP or zCDP")
        return lambda: _judge_odometer(obj, options, name)
    f = lin.function if lin is not None else ""
    if f in ("make_adaptive_composition", "make_sequential_composition"):
        return lambda: _judge_budget(obj, lin, name)
    if f == "make_privacy_filter":
        return lambda: _judge_filter(obj, lin, name)
    if f == "make_zCDP_to_approxDP":
        _gaussian_under(lin.kwargs["measurement"])
        return lambda: _judge_profile(obj, lin.kwargs["measurement"], options, name, fixed=False)
    if f == "make_fix_delta":
        inner = lineage(lin.kwargs["measurement"])
        if inner is None or inner.function != "make_zCDP_to_approxDP":
            raise _Unsupported("make_fix_delta of anything but make_zCDP_to_approxDP: no model of that profile")
        _gaussian_under(inner.kwargs["measurement"])
        return lambda: _judge_profile(obj, inner.kwargs["measurement"], options, name, fixed=True)
    if f == "make_fixed_approxDP_to_approxDP":
        inner = lin.kwargs["measurement"]
        model = loss_of(inner, options)
        if not model.measure.startswith("approx-of:pure"):
            raise _Unsupported("make_fixed_approxDP_to_approxDP of anything but make_approximate(pure DP): no model")
        return lambda: _judge_fixed_profile(obj, model, options, name)
    loss_of(obj, options)     # refuses an unmodelled measurement now, in one line
    return lambda: _judge_measurement(obj, options, name)


def _judge_fixed_profile(m, model: Model, options, name: str) -> Finding:
    """make_fixed_approxDP_to_approxDP(make_approximate(pure)): the profile's epsilon at every
    delta must be at least the inner's pure epsilon (enough at any delta)."""
    d_ins = _d_ins(m, None, options.get("d_in"))
    deltas = options.get("delta") or (0.0,) + _DELTAS
    deltas = [deltas] if isinstance(deltas, (int, float)) else list(deltas)
    rows, verdicts = [], []
    for d in d_ins:
        profile = call_library(f"measurement.map({d!r})", m.map, d)
        loss = model.at(d)
        for delta in deltas:
            eps = od.exact(call_library(f"profile.epsilon({delta!r})", profile.epsilon, delta), "epsilon")
            rows.append((d, eps, loss))
            verdicts.append(Verdict.HOLDS if compare(loss.hi, eps) <= 0 else Verdict.UNDECIDED)
    f = _measurement_finding(m, Model("pure", model.at, model.what), rows, verdicts, name, lambda d: None)
    from dataclasses import replace
    return replace(f, settings=Settings(len(rows), f"d_in {', '.join(map(repr, d_ins))}; delta "
                                                   f"{', '.join(map(repr, deltas))}"))
