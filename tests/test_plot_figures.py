"""Plotting returns the matplotlib Figure, takes ax=, and writes a file only when asked; the
drawn values are the exact ones."""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib", reason="the plot extra draws figures")
from matplotlib.figure import Figure  # noqa: E402

from exactdp import IntegerRange, Multisets, sensitivity_curve  # noqa: E402
from exactdp.mechanisms import PrivacyCurve  # noqa: E402
from exactdp.plotting import plot_sensitivity_curves  # noqa: E402

SPACE = Multisets(IntegerRange(0, 3), sizes=(0, 2))


def test_no_path_no_file_and_the_figure_is_returned(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = plot_sensitivity_curves(sensitivity_curve("sum", SPACE, d_ins=(1, 2)))
    assert data.path is None and list(tmp_path.iterdir()) == []
    assert isinstance(data.figure, Figure)
    assert [float(y) for y in data.figure.axes[0].lines[0].get_ydata()] == [3.0, 6.0]
    assert data._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"  # what Jupyter shows


def test_drawn_into_the_users_axes():
    fig = Figure()
    ax = fig.subplots()
    data = plot_sensitivity_curves(sensitivity_curve("count", SPACE, d_ins=(1, 2, 3)), ax=ax)
    assert data.figure is fig and [float(y) for y in ax.lines[0].get_ydata()] == [1.0, 2.0, 2.0]  # sizes 0..2
    curve = sensitivity_curve("sum", SPACE, d_ins=(1, 2))
    assert curve.plot(ax=ax) is fig and len(ax.lines) == 2


def test_privacy_curve_plot_against_delta_and_against_steps(tmp_path):
    curve = PrivacyCurve("discrete-laplace", 2, params={"scale": 10})
    fig = curve.plot(["1e-6", "1e-3"], path=str(tmp_path / "band.png"))
    assert (tmp_path / "band.png").read_bytes()[:4] == b"\x89PNG"
    upper = [curve.epsilon(d).epsilon_upper for d in ("1e-6", "1e-3")]
    drawn = [float(y) for y in fig.axes[0].lines[0].get_ydata()]
    assert all(float(u) <= d <= float(u) * (1 + 1e-12) for u, d in zip(upper, drawn))  # floats at least the bound
    by_steps = curve.plot(["1e-6"], steps=[1, 2, 4])
    assert [float(x) for x in by_steps.axes[0].lines[0].get_xdata()] == [1.0, 2.0, 4.0]
    assert by_steps.axes[0].get_xlabel() == "compositions k (delta = 1e-6)"
