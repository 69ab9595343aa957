"""Figures of exact results: many sensitivity curves, privacy profiles, error against epsilon.

Every function here checks its target first (:func:`~exactdp.checkers.sensitivity.check_plot_target`:
the format, the folder, matplotlib installed), then computes, then draws, and returns a
:class:`PlotData` holding what it drew: for each line its exact values (``Fraction`` or
an exact SymPy real) or, where only an enclosure is known, the certified bounds
``lower <= value <= upper``. **The drawing is in floats** (matplotlib knows nothing
else), but every float drawn comes from an exact value or a certified bound; a band is
drawn from ``float_at_most(lower)`` to ``float_at_least(upper)``, so it never hides part of
the enclosure. Read the numbers from the returned data, not from the picture.

matplotlib is imported inside the drawing functions (the ``plot`` extra:
``pip install 'exactdp[plot]'``); figures are drawn on its non-interactive ``Agg`` canvas
without pyplot, so no global backend is switched (a Jupyter session keeps its own).

>>> from exactdp.mechanisms import make_mechanism
>>> data = privacy_profile({"RR(3/4)": (make_mechanism("randomized-response", p="3/4"), 0, 1)},
...                        epsilons=[0, "1/2", 2])
>>> data["RR(3/4)"].y
(Fraction(1, 2), 3/4 - exp(1/2)/4, Fraction(0, 1))
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from exactdp._budget import refuse_above
from exactdp.checkers.sensitivity import SensitivityCurve, check_plot_target
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.curve import PrivacyCurve
from exactdp.mechanisms.distribution import Distribution, hockey_stick
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.rounding import float_at_least, float_at_most
from exactdp.mechanisms.calibration import utility
from exactdp.mechanisms.calibration.typical import GaussianMixture

__all__ = [
    "PlotData", "Series", "composition", "privacy_profile", "plot_sensitivity_curves",
    "plot_privacy_profile", "plot_error_vs_epsilon", "plot_mixture_density", "MAX_PROFILE_POINTS",
    "MAX_DENSITY_POINTS",
]

MAX_PROFILE_POINTS = 1_000
"""Most epsilons in one privacy profile (each is an exact computation)."""

MAX_DENSITY_POINTS = 5_000
"""Most abscissae of one density figure (each curve's value is an exact expression)."""


# --- what a figure shows --------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One line (or band) of a figure.

    ``x``: exact abscissae (``d_in`` as ints, epsilons as Fractions); ``y``: the exact
    values, or ``None`` at points known only by an enclosure; ``lower``/``upper``: exact
    bounds with ``lower[i] <= value <= upper[i]`` (both equal to ``y[i]`` where it is
    exact and rational). ``panel`` names the panel of a grid (``""`` for a single axes).
    """

    label: str
    x: tuple
    y: tuple
    lower: tuple
    upper: tuple
    panel: str = ""

    @property
    def exact(self) -> bool:
        """Every point has an exact value (no point is only enclosed)."""
        return all(v is not None for v in self.y)

    def drawn(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """The floats handed to matplotlib: ``(x, y, low, high)``. ``y`` is the nearest float
        to the exact value (the midpoint of the band where only an enclosure is known);
        ``low <= value <= high`` at every point (the float at or just below the lower
        bound, at or just above the upper one)."""
        xs = [_float_near(v) for v in self.x]
        lows = [_float_down(v) for v in self.lower]
        highs = [_float_up(v) for v in self.upper]
        ys = [_float_near(y) if y is not None else (a + b) / 2
              for y, a, b in zip(self.y, lows, highs)]
        return xs, ys, lows, highs

    def points(self) -> list[tuple]:
        """``(x, y)`` pairs (``y`` exact, or the enclosure ``(lower, upper)`` where not known)."""
        return [(x, y if y is not None else (lo, hi))
                for x, y, lo, hi in zip(self.x, self.y, self.lower, self.upper)]


@dataclass(frozen=True)
class PlotData:
    """What a figure shows: the file written (``None`` when none was), its series, and the
    matplotlib ``Figure`` drawn (``None`` when nothing was drawn), which Jupyter shows."""

    path: str | None
    series: tuple[Series, ...]
    figure: Any = field(default=None, compare=False, repr=False)

    def __getitem__(self, key: str | tuple[str, str]) -> Series:
        """The series labelled ``key``, or ``(panel, label)`` in a grid."""
        if isinstance(key, tuple):
            panel, label = key
            found = [s for s in self.series if s.panel == panel and s.label == label]
        else:
            found = [s for s in self.series if s.label == key]
        if len(found) != 1:
            raise KeyError(f"{key!r}: {len(found)} series match; give (panel, label) in a grid; "
                           f"series: {[(s.panel, s.label) for s in self.series]}")
        return found[0]

    def labels(self) -> list[str]:
        return [s.label for s in self.series]

    def panels(self) -> list[str]:
        out: list[str] = []
        for s in self.series:
            if s.panel not in out:
                out.append(s.panel)
        return out

    def _repr_png_(self) -> bytes | None:
        """Jupyter shows the figure (a PNG) when a cell ends with this object."""
        if self.figure is not None:
            buffer = io.BytesIO()
            self.figure.savefig(buffer, format="png")
            return buffer.getvalue()
        if self.path and self.path.lower().endswith(".png") and os.path.isfile(self.path):
            with open(self.path, "rb") as f:
                return f.read()
        return None

    def table(self) -> str:
        lines = []
        for s in self.series:
            head = f"{s.panel}: {s.label}" if s.panel else s.label
            lines.append(head)
            for x, y in s.points():
                lines.append(f"  {_text(x):>10}  {_text(y)}")
        return "\n".join(lines)

    __str__ = table


def _text(v) -> str:
    if isinstance(v, tuple):
        return f"[{_float_down(v[0])!r}, {_float_up(v[1])!r}]"
    if isinstance(v, Fraction):
        return format_exact(v)
    return str(v)


def _is_inf(v) -> bool:
    return (isinstance(v, float) and math.isinf(v)) or v is sympy.oo or v == sympy.oo


def _float_down(v) -> float:
    if _is_inf(v):
        return math.inf
    return float_at_most(v)


def _float_up(v) -> float:
    if _is_inf(v):
        return math.inf
    return float_at_least(v)


def _float_near(v) -> float:
    if _is_inf(v):
        return math.inf
    if isinstance(v, (int, Fraction)):
        return float(v)
    return float(to_sympy(v).evalf(17))


def _bracket(v):
    """``(lower, upper)`` for an exact value: itself when rational, else a certified
    bracket of two floats' exact values (display only; ``y`` keeps the exact value)."""
    if isinstance(v, int):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return v, v
    if _is_inf(v):
        return v, v
    return Fraction(float_at_most(v)), Fraction(float_at_least(v))


def _exact_series(label: str, xs: Sequence, ys: Sequence, panel: str = "") -> Series:
    bounds = [_bracket(y) for y in ys]
    return Series(label, tuple(xs), tuple(ys), tuple(b[0] for b in bounds),
                  tuple(b[1] for b in bounds), panel)


# --- sensitivity curves ------------------------------------------------------------------


def _curve_series(curve: Any, label: str | None, panel: str, where: str) -> Series:
    if not isinstance(curve, SensitivityCurve):
        raise InvalidArgument(f"{where}={curve!r} is not a SensitivityCurve; build one with "
                              f"exactdp.sensitivity_curve(query, space, metric, d_ins)")
    rs = curve.results
    return _exact_series(label if label is not None else rs[0].query.name,
                         [r.scope.d_in for r in rs], [r.value for r in rs], panel)


def _sensitivity_series(curves: Any) -> tuple[list[Series], bool]:
    """The series of :func:`plot_sensitivity_curves` and whether they ask for a grid."""
    if isinstance(curves, SensitivityCurve):
        return [_curve_series(curves, None, "", "curves")], False
    if isinstance(curves, Mapping):
        if not curves:
            raise InvalidArgument("curves={} is empty; pass at least one SensitivityCurve")
        out: list[Series] = []
        nested = [isinstance(v, Mapping) for v in curves.values()]
        if any(nested) and not all(nested):
            raise InvalidArgument("curves mixes panels (mappings) and single curves; give every "
                                  "panel as a mapping label -> SensitivityCurve")
        for key, value in curves.items():
            if isinstance(value, Mapping):
                if not value:
                    raise InvalidArgument(f"curves[{key!r}] is empty; give the panel at least one curve")
                for label, curve in value.items():
                    out.append(_curve_series(curve, str(label), str(key), f"curves[{key!r}][{label!r}]"))
            else:
                out.append(_curve_series(value, str(key), "", f"curves[{key!r}]"))
        return out, all(nested)
    if isinstance(curves, (str, bytes)) or not isinstance(curves, Sequence):
        raise InvalidArgument(f"curves={curves!r} is not a SensitivityCurve, a list of them or a "
                              f"mapping label -> SensitivityCurve")
    if not curves:
        raise InvalidArgument("curves=[] is empty; pass at least one SensitivityCurve")
    return [_curve_series(c, None, "", f"curves[{i}]") for i, c in enumerate(curves)], False


def plot_sensitivity_curves(curves, path: str | None = None, *, layout: str | None = None,
                            columns: int | None = None, title: str | None = None,
                            xlabel: str = "d_in", ax: Any = None) -> PlotData:
    """Draw many sensitivity curves (exact sensitivity against ``d_in``) in one figure.

    ``curves``: a :class:`~exactdp.checkers.sensitivity.SensitivityCurve`, a list of them
    (labelled by query name), a mapping ``label -> curve`` (one axes, one line each), or a
    mapping ``panel -> {label -> curve}`` (a grid: one panel each, e.g. one per query with
    its bounded and unbounded curves). ``layout`` is ``"overlay"`` (one axes) or ``"grid"``
    (one panel per curve, or per panel of a nested mapping); the default is the grid for
    a nested mapping, else the overlay. ``columns``: panels per row of a grid (default
    about the square root of the number of panels); ``xlabel`` names the distance axis.

    Returns the :class:`PlotData` drawn (its ``figure`` the matplotlib Figure): each series
    holds the exact sensitivities. ``path`` (optional) writes the figure to a file; ``ax``
    draws into a matplotlib Axes of yours (one panel). The drawing itself is float; the
    values come from the exact computation.
    """
    _check_target(path)
    series, nested = _sensitivity_series(curves)
    layout = ("grid" if nested else "overlay") if layout is None else layout
    if layout not in ("overlay", "grid"):
        raise InvalidArgument(f"layout={layout!r} is not 'overlay' or 'grid'")
    if layout == "overlay" and nested:
        raise InvalidArgument("layout='overlay' with panels (a nested mapping); use layout='grid' "
                              "or pass a flat mapping label -> curve")
    if layout == "grid" and not nested:
        series = [Series(s.label, s.x, s.y, s.lower, s.upper, s.label) for s in series]
    columns = _columns(columns, len({s.panel for s in series}))
    data = PlotData(_path(path), tuple(series))
    figure = _draw(data, _path(path), xlabel=xlabel, ylabel="exact sensitivity", title=title,
                   columns=columns, integer_x=True, ax=ax)
    return dataclasses.replace(data, figure=figure)


def _columns(columns, panels: int) -> int:
    if columns is None:
        return max(1, math.ceil(math.sqrt(panels)))
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise InvalidArgument(f"columns={columns!r} is not a positive int; pass e.g. 3")
    return columns


# --- privacy profiles --------------------------------------------------------------------


def _curve_function(curve: PrivacyCurve) -> Callable:
    """``epsilon -> (delta_lower, delta_upper)`` from a :class:`PrivacyCurve`, which keeps the
    composed distribution between the epsilons of one figure."""
    def delta(epsilon):
        r = curve.delta(epsilon)
        return (r.delta_lower, r.delta_upper)
    return delta


def composition(mechanisms, k: int = 1, *, params: dict | None = None, width="1e-6") -> PrivacyCurve:
    """A privacy-profile source for :func:`privacy_profile`: ``mechanisms`` composed ``k``
    times, its ``delta(epsilon)`` enclosed by the certified accountant
    (:func:`exactdp.mechanisms.account`, same arguments) and drawn as a band. It is a
    :class:`~exactdp.mechanisms.accounting.curve.PrivacyCurve` (any one is a source too), so the
    composition is computed once for all the epsilons of a figure."""
    return PrivacyCurve(mechanisms, k, params=params, width=width)


def _epsilon_grid(epsilons) -> list:
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__iter__"):
        raise InvalidArgument(f"epsilons={epsilons!r} is not a sequence; pass e.g. [0, '1/2', 1, 2]")
    out: list = []
    for i, e in enumerate(epsilons):
        refuse_above(len(out) + 1, MAX_PROFILE_POINTS, what="epsilons in one privacy profile",
                     option=None, hint="ask for fewer epsilons")
        if isinstance(e, sympy.Basic) and not e.is_Rational:
            if e.has(sympy.Float) or e.free_symbols or not e.is_real or e.is_negative:
                raise InvalidArgument(f"epsilons[{i}]={e} is not an exact real >= 0")
            out.append(e)
            continue
        v = to_exact(e, f"epsilons[{i}]")
        if v < 0:
            raise InvalidArgument(f"epsilons[{i}]={format_exact(v)} is negative; pass epsilon >= 0")
        out.append(v)
    if not out:
        raise InvalidArgument("epsilons=[] is empty; pass at least one epsilon")
    return out


def _profile_function(label: str, source: Any) -> Callable:
    where = f"sources[{label!r}]"
    if isinstance(source, PrivacyCurve):
        return _curve_function(source)
    if callable(source) and not isinstance(source, (Mechanism, tuple)):
        return source
    if isinstance(source, tuple) and len(source) == 3 and isinstance(source[0], Mechanism):
        mech, a, b = source
        return lambda eps: mech.delta(a, b, eps)
    if isinstance(source, tuple) and len(source) == 2 and all(isinstance(d, Distribution) for d in source):
        P, Q = source

        def both(eps):
            d1, d2 = hockey_stick(P, Q, eps), hockey_stick(Q, P, eps)
            return d1 if compare(d1, d2) >= 0 else d2
        return both
    raise InvalidArgument(
        f"{where}={source!r} is not a privacy-profile source; pass (mechanism, a, b) for a "
        f"mechanism on the query values a, b, a pair (P, Q) of Distributions, "
        f"composition(mechanisms, k, params=...) or a PrivacyCurve, or a function epsilon -> exact delta "
        f"or (lower, upper)")


def _profile_point(label: str, eps, value):
    """``(y, lower, upper)`` from what a source returned."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise InvalidArgument(f"sources[{label!r}] returned {value!r} at epsilon={eps}; "
                                  f"an enclosure is a pair (lower, upper)")
        lo, hi = (v if _is_inf(v) else to_exact(v, f"sources[{label!r}] bound") for v in value)
        if not _is_inf(hi) and hi < lo:
            raise InvalidArgument(f"sources[{label!r}] returned upper={hi!r} < lower={lo!r}")
        if lo == hi:
            return lo, lo, hi
        return None, lo, hi
    if isinstance(value, float):
        raise InvalidArgument(f"sources[{label!r}] returned the float {value!r} at epsilon={eps}; "
                              f"return an exact value (Fraction, SymPy) or an enclosure (lower, upper)")
    if isinstance(value, sympy.Basic) and not value.is_Rational:
        lo, hi = _bracket(value)
        return value, lo, hi
    v = to_exact(value, f"sources[{label!r}] value")
    return v, v, v


def privacy_profile(sources, epsilons) -> PlotData:
    """``delta(epsilon)`` of each source at each epsilon, computed exactly (nothing drawn).

    ``sources`` maps a label to a ``(mechanism, a, b)`` triple (the tight ``delta`` of the
    mechanism on query values ``a``, ``b``, both directions: :meth:`Mechanism.delta`), a
    pair ``(P, Q)`` of :class:`~exactdp.mechanisms.distribution.Distribution` (the larger
    hockey-stick divergence), :func:`composition` (a certified enclosure from the
    accountant) or a function ``epsilon -> value``, where the value is exact or an
    enclosure ``(lower, upper)``. ``epsilons``: exact values ``>= 0`` (``'0.1'`` is one tenth).
    """
    grid = _epsilon_grid(epsilons)
    if not isinstance(sources, Mapping) or not sources:
        raise InvalidArgument(f"sources={sources!r} is not a non-empty mapping label -> source")
    series = []
    for label, source in sources.items():
        label = str(label)
        fn = _profile_function(label, source)
        ys, los, his = [], [], []
        for eps in grid:
            y, lo, hi = _profile_point(label, eps, fn(eps))
            ys.append(y)
            los.append(lo)
            his.append(hi)
        series.append(Series(label, tuple(grid), tuple(ys), tuple(los), tuple(his)))
    return PlotData(None, tuple(series))


def plot_privacy_profile(sources, path: str | None, epsilons, *, log_delta: bool = False,
                         title: str | None = None, ax: Any = None) -> PlotData:
    """Draw ``delta(epsilon)`` of one or more mechanisms or pairs in one figure.

    ``sources`` and ``epsilons`` as in :func:`privacy_profile`. Exact profiles are drawn
    as lines with markers; certified enclosures (:func:`composition`) as bands from the
    float just below the lower bound to the float just above the upper one. The drawing
    is float, but every value comes from the exact computation and is returned in the
    :class:`PlotData` (``log_delta``: a logarithmic delta axis, zeros left out). ``path=None``
    writes no file; ``ax`` draws into a matplotlib Axes of yours.
    """
    _check_target(path)
    data = privacy_profile(sources, epsilons)
    data = PlotData(_path(path), data.series)
    figure = _draw(data, _path(path), xlabel="epsilon", ylabel="delta(epsilon)", title=title,
                   columns=1, ylog=log_delta, ax=ax)
    return dataclasses.replace(data, figure=figure)


# --- utility -----------------------------------------------------------------------------


def plot_error_vs_epsilon(path: str | None = None, epsilons=None, sensitivities: dict | None = None,
                          n: int | None = None, *, table=None, title: str | None = None,
                          ax: Any = None) -> PlotData:
    """Seed 004's figure: the expected absolute error of the mean of ``n`` Laplace-noised
    reports against epsilon, one line per sensitivity, both axes logarithmic.

    The values are :func:`exactdp.mechanisms.calibration.utility.error_table`'s (pass ``table=`` to
    draw one already computed; the other arguments are its own, with its defaults): each
    point is exact in ``y`` and certified in ``lower``/``upper``. The drawing is float;
    ``path=None`` writes no file, ``ax`` draws into a matplotlib Axes of yours.
    """
    _check_target(path)
    if table is None:
        table = utility.error_table(utility.SEED_EPSILONS if epsilons is None else epsilons,
                                    sensitivities, utility.SEED_REPORTS if n is None else n)
    elif not isinstance(table, utility.ErrorTable) or (epsilons, sensitivities, n) != (None, None, None):
        raise InvalidArgument("table= takes an ErrorTable from error_table(...) and no other "
                              "epsilons, sensitivities or n")
    series = []
    for label in table.sensitivities:
        rows = [r for r in table.rows if r[0] == label]
        series.append(Series(label, tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                             tuple(r[3] for r in rows), tuple(r[4] for r in rows)))
    data = PlotData(_path(path), tuple(series))
    figure = _draw(data, _path(path), xlabel="epsilon", ylabel=f"expected |error| of the mean of {table.n} reports",
                   title=title, columns=1, xlog=True, ylog=True, ax=ax)
    return dataclasses.replace(data, figure=figure)


# --- densities ---------------------------------------------------------------------------


def plot_mixture_density(mixture: GaussianMixture, path: str | None = None, xs=None, *,
                         labels: Sequence[str] | None = None, title: str | None = None,
                         ax: Any = None) -> PlotData:
    """Seed 004's figure of the heights: each component's normal density and the mixture's
    density ``p(h)`` at the exact abscissae ``xs`` (default: the integers 0..220, the
    seed's plotted range in cm). ``labels`` names the components (default
    ``N(mu, sigma^2)``); the mixture is labelled ``general``.

    Returns the :class:`PlotData` drawn: every ``y`` is the exact density (a SymPy real,
    :meth:`~exactdp.mechanisms.calibration.typical.GaussianMixture.density`) with certified
    float bounds. The drawing is float; ``path=None`` writes no file, ``ax`` draws into a
    matplotlib Axes of yours.
    """
    _check_target(path)
    if not isinstance(mixture, GaussianMixture):
        raise InvalidArgument(f"mixture={mixture!r} is not a GaussianMixture; build one with "
                              f"GaussianMixture.of([('1/2', 178, 7), ('1/2', 162, '6.5')])")
    points = list(range(0, 221)) if xs is None else list(xs)
    refuse_above(len(points), MAX_DENSITY_POINTS, what="abscissae for the density figure",
                 option=None, hint="give fewer xs")
    points = [to_exact(x, "x") for x in points]
    parts = mixture.components()
    if labels is None:
        labels = [f"N({format_exact(m)}, {format_exact(s)}^2)"
                  for m, s in zip(mixture.means, mixture.sigmas)]
    elif len(labels) != len(parts):
        raise InvalidArgument(f"labels={list(labels)!r} names {len(labels)} components; the "
                              f"mixture has {len(parts)}")
    series = [_exact_series(label, points, [part.density(x) for x in points])
              for label, part in zip(labels, parts)]
    series.append(_exact_series("general", points, [mixture.density(x) for x in points]))
    data = PlotData(_path(path), tuple(series))
    figure = _draw(data, _path(path), xlabel="height (cm)", ylabel="density", title=title,
                   columns=1, ax=ax)
    return dataclasses.replace(data, figure=figure)


# --- drawing -----------------------------------------------------------------------------


def _check_target(path: str | None) -> None:
    """A file to write, checked before any work; with no file, matplotlib must still be there."""
    if path is not None:
        check_plot_target(path)
    elif importlib.util.find_spec("matplotlib") is None:
        raise InvalidArgument("plotting needs matplotlib, which is not installed; install the plot extra: "
                              "pip install 'exactdp[plot]'")


def _path(path: str | None) -> str | None:
    return None if path is None else str(path)


def _draw(data: PlotData, path: str | None, *, xlabel: str, ylabel: str, title: str | None, columns: int,
          integer_x: bool = False, xlog: bool = False, ylog: bool = False, ax: Any = None) -> Any:
    """Draw ``data`` and return the Figure: a new one (on the Agg canvas, no pyplot, so a
    Jupyter session keeps its backend), or the one of the Axes ``ax`` given (one panel only);
    written to ``path`` when one is given."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: matplotlib, an optional dependency (the plot extra)
    from matplotlib.figure import Figure  # lazy: matplotlib, an optional dependency (the plot extra)

    panels = data.panels()
    given = ax  # the loop below names each panel's axes ax
    axes: Any  # a grid of Axes: [[given]], or matplotlib's array of them
    if given is not None:
        if len(panels) != 1:
            raise InvalidArgument(f"ax= draws one panel; this figure has {len(panels)} ({', '.join(panels)}): "
                                  f"leave ax out (a new figure), or draw one panel")
        fig, rows, ncols, axes = given.figure, 1, 1, [[given]]
    else:
        rows = math.ceil(len(panels) / columns)
        ncols = min(columns, len(panels))
        size = (6.4, 4.4) if len(panels) == 1 else (4.2 * ncols, 3.2 * rows + 0.4)
        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
        axes = fig.subplots(rows, ncols, squeeze=False)
    for i, panel in enumerate(panels):
        ax = axes[i // ncols][i % ncols]
        for s in data.series:
            if s.panel != panel:
                continue
            xs, ys, lows, highs = s.drawn()
            keep = [j for j in range(len(xs)) if math.isfinite(highs[j])]
            xs, ys = [xs[j] for j in keep], [ys[j] for j in keep]
            lows, highs = [lows[j] for j in keep], [highs[j] for j in keep]
            if s.exact:
                ax.plot(xs, ys, marker="o", label=s.label)
            else:
                line, = ax.plot(xs, ys, label=s.label + " (certified band)")
                ax.fill_between(xs, lows, highs, alpha=0.3, color=line.get_color())
        if integer_x:
            ticks = sorted({x for s in data.series if s.panel == panel for x in s.x})
            ax.set_xticks([float(t) for t in ticks])
        if xlog:
            ax.set_xscale("log")
        if ylog:
            ax.set_yscale("log", nonpositive="clip")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if panel:
            ax.set_title(panel, fontsize=9)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    for j in range(len(panels), rows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    if title:
        (fig.suptitle if given is None else axes[0][0].set_title)(title, fontsize=10)
    if given is None:
        fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig
