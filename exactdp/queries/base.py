"""The :class:`Query` type: an exact function of a dataset.

A query is evaluated on count vectors over a sorted universe (the engine's canonical
form). ``prepare(values)`` returns a fast function ``counts -> result`` for one
universe; calling the query on a list of values is the convenient public form.

Output kinds:

* ``"scalar"``: a rational number (``Fraction``); distance ``|f(x) - f(x')|``.
* ``"sqrt"``: the square root of a non-negative rational (standard deviation). The
  prepared function returns the radicand, so everything stays rational; the public
  value is a SymPy ``sqrt``.
* ``"vector"``: a tuple of rationals (histogram counts), compared under the query's
  ``norm``: ``"L1"``, ``"L2"`` or ``"Linf"``.

A query has a ``min_size``: the smallest dataset on which it is defined (mean: 1,
sample variance: 2). Smaller datasets are *undefined*, and the checker asks the user
for a policy rather than inventing a value.

One variant: a :class:`GraphQuery` (:func:`make_query`) is any function of a dataset's
public form (a sequence in order, or the ``(id, value)`` rows of a units dataset), for the
edit-graph engine, which alone keeps order and ids. A :class:`Query` is read there too
(on the dataset's values); :func:`exactdp.queries.builtin.as_query` is the one parser of
both.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.numeric.exact import format_dataset, to_exact

__all__ = ["Query", "UNDEFINED", "IncrementalForm", "GraphQuery", "make_query"]


class _Undefined:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = _Undefined()
"""Returned by a prepared query on a dataset smaller than its ``min_size``."""

Prepared = Callable[[Sequence[int]], object]


@dataclass(frozen=True)
class IncrementalForm:
    """How a query can be kept up to date while datasets grow one value at a time.

    The engine enumerates count vectors depth first (each a parent plus ``c`` records of
    the next value) and keeps running integers: the size ``n``, ``S1 = sum c_i v_i`` and
    ``S2 = sum c_i v_i^2`` over one common denominator of ``values``, or the cumulative
    counts that locate an order statistic. ``kind`` names the function of those:

    * ``"count"``, ``"sum"``, ``"mean"``, ``"variance"`` (with ``ddof``; also the radicand
      of the standard deviation);
    * ``"quantile"`` (level ``q`` and numpy ``method``);
    * ``"histogram"``: ``bins[i]`` is the bin of ``values[i]`` (``None``: not counted),
      out of ``nbins``.

    ``values`` are the sorted universe values the query sees (already clamped for a
    clipped query). The result must equal the prepared function's exactly; the engine
    checks nothing else, and ``tests/checkers/test_engine_scale.py`` compares both.
    """

    kind: str
    values: tuple
    ddof: int = 0
    q: Fraction | None = None
    method: str | None = None
    bins: tuple | None = None
    nbins: int = 0


class Query:
    """An exact query with a name, an output kind and a minimum defined size."""

    __slots__ = ("name", "output", "min_size", "norm", "_prepare", "clip", "_incremental")

    def __init__(
        self,
        name: str,
        prepare: Callable[[tuple[Fraction, ...]], Prepared],
        *,
        output: str = "scalar",
        min_size: int = 0,
        norm: str | None = None,
        clip: tuple[Fraction, Fraction] | None = None,
        incremental: Callable[[tuple[Fraction, ...]], IncrementalForm | None] | None = None,
    ):
        if output not in ("scalar", "sqrt", "vector"):
            raise InvalidArgument(f"output={output!r} is not one of 'scalar', 'sqrt', 'vector'")
        if output == "vector" and norm not in ("L1", "L2", "Linf"):
            raise InvalidArgument(f"norm={norm!r} is not one of 'L1', 'L2', 'Linf'")
        self.name = name
        self.output = output
        self.min_size = min_size
        self.norm = norm
        self.clip = clip
        self._prepare = prepare
        self._incremental = incremental

    def prepare(self, values: tuple[Fraction, ...]) -> Prepared:
        """A function of count vectors over the sorted ``values``."""
        return self._prepare(values)

    def incremental(self, values: tuple[Fraction, ...]) -> IncrementalForm | None:
        """The query's :class:`IncrementalForm` over the sorted ``values``, or ``None``
        when it has none (the engine then calls :meth:`prepare` on every dataset)."""
        if self._incremental is None:
            return None
        return self._incremental(values)

    def __call__(self, dataset: Sequence[object]):
        """Evaluate on a dataset given as exact values (any order).

        >>> from exactdp.queries import mean
        >>> mean(["1", "2", "5/2"])
        Fraction(11, 6)
        """
        exact = sorted(to_exact(v, "dataset value") for v in dataset)
        values = tuple(sorted(set(exact)))
        index = {v: i for i, v in enumerate(values)}
        counts = [0] * len(values)
        for v in exact:
            counts[index[v]] += 1
        raw = self.prepare(values)(tuple(counts))
        if raw is UNDEFINED:
            raise InvalidArgument(
                f"{self.name} is undefined on a dataset of {len(exact)} records; it needs "
                f"at least {self.min_size}"
            )
        return self.public_value(raw)

    def public_value(self, raw: object):
        """The value a user sees: ``Fraction``, SymPy ``sqrt`` or a tuple."""
        if self.output == "sqrt":
            return sqrt_value(raw)  # type: ignore[arg-type]
        return raw

    def __repr__(self) -> str:
        return f"<Query {self.name}>"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class GraphQuery:
    """A function of a dataset in its public form (a sequence of values in order, or
    the ``(id, value)`` rows) returning an exact number or a tuple of them.

    ``output="vector"`` results are compared under ``norm`` (``"L1"``, ``"L2"`` or
    ``"Linf"``). ``clip=(L, U)`` names the bounds a claim's ``L`` and ``U`` mean.
    """

    name: str
    fn: Callable[[tuple], Any]
    output: str = "scalar"
    norm: str | None = None
    clip: tuple[Fraction, Fraction] | None = None

    def __call__(self, dataset: tuple) -> Any:
        return self.fn(dataset)


def make_query(name: str, fn: Callable[[tuple], Any], *, output: str = "scalar",
               norm: str | None = None, clip: tuple[object, object] | None = None) -> GraphQuery:
    """A query for :func:`~exactdp.checkers.graph.graph_sensitivity` from any function of
    the dataset.

    The function may return :data:`~exactdp.queries.base.UNDEFINED` where it is
    undefined (see ``undefined`` in :func:`~exactdp.checkers.graph.graph_sensitivity`). A
    float result is refused: return an ``int`` or a ``Fraction`` (e.g. ``Fraction(x)`` for
    the exact value of a float the library computed, or
    :func:`exactdp.numeric.floatsum.float_sum`).
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"name={name!r} is not a non-empty string")
    if not callable(fn):
        raise InvalidArgument(f"fn={fn!r} is not a function of a dataset")
    if output not in ("scalar", "vector"):
        raise InvalidArgument(f"output={output!r} is not 'scalar' or 'vector'")
    if output == "vector" and norm not in ("L1", "L2", "Linf"):
        raise InvalidArgument(f"norm={norm!r} is not one of 'L1', 'L2', 'Linf' (needed for a vector)")
    if output == "scalar" and norm is not None:
        raise InvalidArgument(f"norm={norm!r} is for output='vector'; a scalar uses |f(x) - f(x')|")
    bounds = None
    if clip is not None:
        lo, hi = (to_exact(clip[0], "clip lower"), to_exact(clip[1], "clip upper"))
        if lo > hi:
            raise InvalidArgument(f"Cannot have clip upper={hi} < lower={lo}; swap them")
        bounds = (lo, hi)
    return GraphQuery(name, fn, output, norm, bounds)


def sqrt_value(radicand: Fraction):
    """``sqrt(radicand)`` exactly: a ``Fraction`` when rational, else a SymPy expression."""
    import sympy

    r = Fraction(radicand)
    root = sympy.sqrt(sympy.Rational(r.numerator, r.denominator))
    if root.is_Rational:
        return Fraction(int(root.p), int(root.q))
    return root


def check_result(name: str, value: object, dataset: Sequence[Fraction]) -> Fraction:
    """Validate what a user function returned on ``dataset``: an exact number."""
    shown = format_dataset(dataset)
    if isinstance(value, float):
        raise InexactInput(
            f"query {name!r} returned the float {value!r} on the dataset {shown}; return an "
            f"int or a Fraction so the result is exact"
        )
    try:
        return to_exact(value, f"result of query {name!r}")
    except (InvalidArgument, InexactInput) as e:
        raise type(e)(f"{e} (on the dataset {shown})") from None
