"""Progress is shown on a terminal and in a Jupyter kernel, never on stdout, and can be
turned off (progress=False) or forced for a process (EXACTDP_PROGRESS)."""

from __future__ import annotations

import io
import os
import sys

import pytest

from exactdp import _progress
from exactdp._progress import Progress


def _captured(monkeypatch, enabled=None) -> str:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress("demo", 10, enabled, interval=0)
    bar.update(5, 7)
    bar.close()
    return err.getvalue()


def test_not_a_terminal_and_not_a_kernel_shows_nothing(monkeypatch):
    monkeypatch.delenv("EXACTDP_PROGRESS", raising=False)
    assert _captured(monkeypatch) == ""


def test_environment_forces_it_on_and_off(monkeypatch):
    monkeypatch.setenv("EXACTDP_PROGRESS", "1")
    assert "exactdp: demo:  50.0% of 10 datasets, 7 pairs" in _captured(monkeypatch)
    monkeypatch.setenv("EXACTDP_PROGRESS", "0")
    assert _captured(monkeypatch) == ""


def test_progress_false_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("EXACTDP_PROGRESS", "1")
    assert _captured(monkeypatch, enabled=False) == ""


def test_a_jupyter_kernel_shows_progress_on_stderr_not_stdout():
    nbformat = pytest.importorskip("nbformat", reason="nbformat and nbclient run a real kernel (docs/test extra)")
    nbclient = pytest.importorskip("nbclient", reason="nbformat and nbclient run a real kernel (docs/test extra)")
    pytest.importorskip("ipykernel", reason="a Jupyter kernel (ipykernel) is needed")
    code = ("from exactdp._progress import Progress, in_jupyter_kernel\n"
            "print('kernel', in_jupyter_kernel())\n"
            "bar = Progress('demo', 10, interval=0)\n"
            "bar.update(5, 7)\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    env_before = os.environ.pop("EXACTDP_PROGRESS", None)
    try:
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    finally:
        if env_before is not None:
            os.environ["EXACTDP_PROGRESS"] = env_before
    streams = {o["name"]: o["text"] for o in nb.cells[0].outputs if o["output_type"] == "stream"}
    assert streams.get("stdout") == "kernel True\n"
    assert "exactdp: demo:  50.0% of 10 datasets, 7 pairs" in streams.get("stderr", "")


def test_outside_a_kernel_the_detector_says_no():
    assert _progress.in_jupyter_kernel() is False


def test_verify_in_json_shows_which_claim_it_is_on(monkeypatch, capsys):
    """verify --json prints nothing until its report: on a terminal (here forced) a progress
    line names the claim it is on; the report on stdout stays only JSON."""
    import json

    from exactdp.cli import main

    monkeypatch.setenv("EXACTDP_PROGRESS", "1")
    ticks = iter(range(0, 10**6))  # a clock half a second further at every reading
    monkeypatch.setattr("exactdp._progress.time.monotonic", lambda: next(ticks) / 2)
    assert main(["verify", "--only", "s000", "--no-catalogue", "--json"]) == 0
    out, err = capsys.readouterr()
    # 15 sensitivity claims of seed 000 (seed 003's histogram statement moved to s003/, issue 28)
    assert "exactdp: verify: claim 1 of 15 (s000/" in err
    assert sum(row.get("kind") == "claim" for row in json.loads(out)) == 15
