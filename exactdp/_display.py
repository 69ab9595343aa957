"""Results as HTML for Jupyter: one small card per result (a title, a verdict badge, labelled
rows, an optional table), escaped, with its style inline, so that a notebook shows a result as
a reader would want it rather than a long repr. The result classes' ``_repr_html_`` methods
build their cards here; the text they show is the text their ``str`` and ``--json`` give."""

from __future__ import annotations

import html
from typing import Any, Iterable, Sequence

__all__ = ["card", "badge_class", "figure_and_axes"]

_STYLE = ("font-family: system-ui, sans-serif; border: 1px solid #c8c8c8; border-radius: 4px; "
          "padding: 0.5em 0.8em; margin: 0.3em 0; max-width: 60em")
_BADGE = "font-weight: bold; padding: 0 0.35em; border-radius: 3px; background: {}"
_COLOURS = {"fail": "#f6d2d2", "pass": "#dcefdc", "undecided": "#fbeccb", "none": "#e8e8e8"}


def badge_class(verdict: str) -> str:
    """``pass`` (a holds word), ``fail`` (violated, underestimates), ``none`` (vacuous, skipped)
    or ``undecided`` (anything else)."""
    word = verdict.lower()
    if word.startswith("holds") or word in ("ok", "certified", "fits", "inside"):
        return "pass"
    if word in ("violated", "underestimates", "overspends", "error", "below"):
        return "fail"
    if word in ("vacuous", "skipped"):
        return "none"
    return "undecided"


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def card(title: str, verdict: str | None = None, rows: Iterable[tuple[str, object]] = (), *,
         table: tuple[Sequence[str], Iterable[Sequence[object]]] | None = None) -> str:
    """One result: ``title``, the ``verdict`` as a coloured badge, ``rows`` of ``(label,
    text)`` (multi-line text keeps its lines), and an optional ``table`` ``(header, rows)``."""
    out = [f'<div class="exactdp-result" style="{_STYLE}">', f"<div><strong>{_h(title)}</strong>"]
    if verdict is not None:
        colour = _COLOURS[badge_class(verdict)]
        out.append(f' <span class="exactdp-verdict" style="{_BADGE.format(colour)}">{_h(verdict)}</span>')
    out.append("</div>")
    shown = [(label, text) for label, text in rows if text not in (None, "")]
    if shown:
        out.append('<table style="border-collapse: collapse; margin-top: 0.3em">')
        for label, text in shown:
            value = "<br>".join(_h(line) for line in str(text).splitlines()) or "&nbsp;"
            out.append(f'<tr><th style="text-align: left; padding: 0.1em 0.8em 0.1em 0; vertical-align: top; '
                       f'font-weight: normal; color: #555">{_h(label)}</th>'
                       f'<td style="padding: 0.1em 0"><code>{value}</code></td></tr>')
        out.append("</table>")
    if table is not None:
        header, body = table
        out.append('<table style="border-collapse: collapse; margin-top: 0.4em">')
        out.append("<tr>" + "".join(f'<th style="border-bottom: 1px solid #c8c8c8; padding: 0.1em 0.6em; '
                                    f'text-align: left">{_h(h)}</th>' for h in header) + "</tr>")
        for row in body:
            out.append("<tr>" + "".join(f'<td style="padding: 0.1em 0.6em"><code>{_h(c)}</code></td>'
                                        for c in row) + "</tr>")
        out.append("</table>")
    out.append("</div>")
    return "\n".join(out)


def figure_and_axes(ax: Any = None, size: tuple[float, float] = (6, 4)) -> tuple[Any, Any]:
    """``(figure, axes)``: those of the matplotlib Axes ``ax`` given, or a new Figure on the Agg
    canvas (no pyplot, so a notebook keeps its own backend) with one Axes."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: matplotlib, an optional dependency (the plot extra)
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig, fig.subplots()
